"""Staleness of anchored observations, end to end: a real daemon, a temp copy of a fixture
repository, real edits on disk (in place, and the way editors save: a temp file in the same
directory ``os.replace``-d over the original).

One daemon serves the whole module (starting one costs seconds); every test registers its
own fresh copy of a fixture (and names that repository in every call), so tests never see
each other's edits or observations.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, short_tmp, spawn_daemon, wait_for
from graphmem.changes import change_words
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.types import (
    AnchorKind,
    ChangeKind,
    Event,
    EventKind,
    IndexState,
    Observation,
    ObservationStatus,
)

TIMEOUT = 10.0
NO_MATCH = "zzzz-no-such-term-zzzz"  # a recall that matches nothing, for its freshness

# ----------------------------------------------------------------------------- helpers


def atomic_write(path: Path, text: str) -> None:
    """Save like an editor: write a temp file next to ``path``, then rename it over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".swp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def inplace_write(path: Path, text: str) -> None:
    """Save by truncating and rewriting the file itself."""
    path.write_text(text, encoding="utf-8")


def edit(path: Path, old: str, new: str, *, atomic: bool = True) -> str:
    """Replace exactly one occurrence of ``old`` in ``path``; returns the new text."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur exactly once in {path}"
    text = text.replace(old, new)
    (atomic_write if atomic else inplace_write)(path, text)
    return text


def changes(o: Observation) -> list[tuple[ChangeKind, str]]:
    return [(r.change, r.anchor_ref) for r in o.stale_reasons]


@dataclass
class Repo:
    root: Path
    id: str
    client: GraphMem

    def path(self, rel: str) -> Path:
        return self.root / rel

    def observe(self, text: str, *anchors: str) -> Observation:
        return self.client.observe(text, anchors=list(anchors), repo=self.id)

    def wait_obs(self, obs_id: str, pred: Callable[[Observation], bool], timeout: float = TIMEOUT,
                 what: str = "") -> Observation:
        """Poll the observation until ``pred`` holds; fails with its last state."""
        deadline = time.monotonic() + timeout
        o = self.client.get(obs_id)
        while not pred(o):
            if time.monotonic() > deadline:
                raise AssertionError(f"observation never became {what or 'as expected'} "
                                     f"within {timeout}s: {o}")
            time.sleep(0.02)
            o = self.client.get(obs_id)
        return o

    def wait_current(self) -> None:
        wait_for(lambda: self.client.recall(NO_MATCH, repo=self.id).freshness.current, TIMEOUT)


class Events:
    """A live subscription collected by a background thread."""

    def __init__(self, client: GraphMem, repo: str, kinds: tuple[EventKind, ...] = ()) -> None:
        self.client = client
        self.stream = client.events(repo=repo, kinds=kinds)
        self.items: list[Event] = []
        self.error: GraphMemError | None = None
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="test-events", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for ev in self.stream:
                with self.cond:
                    self.items.append(ev)
                    self.cond.notify_all()
        except GraphMemError as exc:
            self.error = exc

    def wait(self, pred: Callable[[Event], bool], timeout: float = TIMEOUT) -> Event | None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for ev in self.items:
                    if pred(ev):
                        return ev
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.error is not None:
                    return None
                self.cond.wait(min(remaining, 0.1))

    def sync(self, obs_id: str) -> None:
        """Prove the subscription is live (needs OBSERVATION_CHANGED in its kinds): touch an
        observation's tags and wait for the resulting event."""
        token = f"sync-{uuid.uuid4().hex[:8]}"
        self.client.update(obs_id, tags=[token])
        ev = self.wait(lambda e: e.kind is EventKind.OBSERVATION_CHANGED and e.observation is not None
                       and token in e.observation.tags)
        assert ev is not None, f"the event subscription never delivered the sync event (error: {self.error})"

    def file_indexed(self, rel: str, timeout: float = TIMEOUT) -> Event:
        ev = self.wait(lambda e: e.kind is EventKind.FILE_INDEXED and e.path == rel, timeout)
        assert ev is not None, f"no FILE_INDEXED event for {rel} within {timeout}s; got {self.items}"
        return ev

    def close(self) -> None:
        self.stream.cancel()
        self.thread.join(5)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    d = spawn_daemon(short_tmp(), [])
    try:
        yield d
    finally:
        if d.proc.poll() is None:
            try:
                d.stop()
            finally:
                if d.proc.poll() is None:
                    d.proc.kill()
                    d.proc.wait(10)


@pytest.fixture
def open_repo(daemon: Daemon) -> Iterator[Callable[[str], Repo]]:
    client = daemon.client()

    def open_(fixture: str) -> Repo:
        root = copy_fixture(fixture)
        rid = client.add_repo(root).id
        wait_for(lambda: any(r.id == rid and r.state is IndexState.READY and r.pending_changes == 0
                             for r in client.list_repos()), 30)
        repo = Repo(root, rid, client)
        repo.wait_current()
        return repo

    yield open_
    # Repositories stay registered until the module's daemon stops: every call names its
    # repository, and unregistering waits for the daemon's queued store writes (seconds).
    client.close()


@pytest.fixture
def events_of() -> Iterator[Callable[..., Events]]:
    made: list[Events] = []

    def make(client: GraphMem, repo: str, kinds: tuple[EventKind, ...] = ()) -> Events:
        ev = Events(client, repo, kinds)
        made.append(ev)
        return ev

    yield make
    for ev in made:
        ev.close()


# ----------------------------------------------------------------------------- languages


@dataclass(frozen=True)
class Lang:
    fixture: str
    path: str  # the file holding the function under test
    func: str  # its qualname
    sibling: str  # another function of the same file
    body: tuple[str, str]  # (old, new): a body-only edit
    sig: tuple[str, str]  # (old, new): a parameter-list edit, body unchanged
    rename: tuple[str, str, str]  # (old, new, new qualname): same body, new name
    func_text: str  # the function's exact text in the file (with its leading comment, if any)
    move_path: str  # where the move test puts it
    move_file: str  # that file's whole text (the function with the same body)
    formatted: str  # the whole file rewritten with formatting-only changes, function moved lower
    kind: str = "function"  # the symbol kind of `func`

    @property
    def ref(self) -> str:
        return f"{self.path}::{self.func}"


PYTHON = Lang(
    fixture="python",
    path="app/auth/crypto.py",
    func="hash_password",
    sibling="make_token",
    body=("return digest(password, salt=SALT)", "return digest(password.strip(), salt=SALT)"),
    sig=("def hash_password(password: str) -> str:",
         "def hash_password(password: str, rounds: int = 1) -> str:"),
    rename=("def hash_password(", "def hash_pw(", "hash_pw"),
    func_text="def hash_password(password: str) -> str:\n    return digest(password, salt=SALT)\n\n\n",
    move_path="app/auth/hashing.py",
    move_file='"""Password hashing, moved out of crypto.py."""\n\nfrom app.util.encoding import digest\n\n'
              'SALT = "graphmem"\n\n\ndef hash_password(password: str) -> str:\n'
              "    return digest(password, salt=SALT)\n",
    formatted='''"""Password hashing and session tokens."""
# This module was reformatted: 2-space indents, comments, blank lines, new order.

from app.util.encoding import b64, digest


SALT = "graphmem"  # shared by every hash



def make_token(user_id: int) -> str:
  # the payload is built lazily
  def payload() -> bytes:
    return str(user_id).encode()  # bytes, not str


  return b64(payload())




# hashing comes last now
def hash_password(password: str) -> str:
  # salted digest
  return digest(password,
                salt=SALT)  # wrapped arguments, same tokens
''',
)

GO = Lang(
    fixture="go",
    path="auth/crypto.go",
    func="HashPassword",
    sibling="MakeToken",
    body=("return util.Digest(password, salt)", 'return util.Digest(password+"!", salt)'),
    sig=("func HashPassword(password string) string {",
         "func HashPassword(password string, rounds int) string {"),
    rename=("func HashPassword(", "func DigestPassword(", "DigestPassword"),
    func_text="// HashPassword hashes a password with the package salt.\n"
              "func HashPassword(password string) string {\n\treturn util.Digest(password, salt)\n}\n\n",
    move_path="auth/hashing.go",
    move_file='package auth\n\nimport "example.com/shop/util"\n\n'
              "// HashPassword hashes a password with the package salt.\n"
              "func HashPassword(password string) string {\n\treturn util.Digest(password, salt)\n}\n",
    formatted='''package auth

// Hashing and tokens (reformatted: spaces, comments, blank lines, new order).

import (
    "fmt"

    "example.com/shop/util"
)


const salt = "graphmem" // shared by every hash



// MakeToken issues a session token for a user id.
func MakeToken(userID int) string {
    // the payload is built lazily
    payload := func() []byte {
        return util.ToBytes(fmt.Sprintf("user:%d", userID))
    }


    return util.B64(payload())
}




// HashPassword hashes a password with the package salt.
func HashPassword(password string) string {
    /* salted digest */
    return util.Digest(password, salt) // hex
}
''',
)

TYPESCRIPT = Lang(
    fixture="typescript",
    path="src/auth/crypto.ts",
    func="hashPassword",
    sibling="makeToken",
    body=("return digest(password, SALT);", "return digest(password.trim(), SALT);"),
    sig=("export function hashPassword(password: string): string {",
         "export function hashPassword(password: string, rounds = 1): string {"),
    rename=("function hashPassword(", "function hashSecret(", "hashSecret"),
    func_text="export function hashPassword(password: string): string {\n"
              "  return digest(password, SALT);\n}\n\n",
    move_path="src/auth/hashing.ts",
    move_file='import { digest } from "../util/encoding";\n\nconst SALT = "graphmem";\n\n'
              "export function hashPassword(password: string): string {\n"
              "  return digest(password, SALT);\n}\n",
    formatted='''import { Base64, digest } from "../util/encoding";

// reformatted: 4-space indents, comments, blank lines, new order
const SALT = "graphmem"; // shared by every hash



export const makeToken = (userId: number): string => {
    // the payload is built lazily
    const payload = (): Uint8Array => new TextEncoder().encode(String(userId));


    return Base64.encode(payload());
};




/* hashing comes last now */
export function hashPassword(password: string): string {
    // salted digest
    return digest(password,
                  SALT); // wrapped arguments, same tokens
}
''',
)

C = Lang(
    fixture="c",
    path="src/item.c",
    func="item_price",
    sibling="item_make",
    body=("return round_cents(item->cents * quantity);", "return round_cents(item->cents * quantity + 1);"),
    sig=("long item_price(const item_t *item, int quantity)\n",
         "long item_price(const item_t *item, int quantity, int rounds)\n"),
    rename=("long item_price(", "long item_cost(", "item_cost"),
    func_text="long item_price(const item_t *item, int quantity)\n{\n    if (strlen(item->name) == 0)\n"
              "        return 0;\n    return round_cents(item->cents * quantity);\n}\n",
    move_path="src/pricing.c",
    move_file='#include <string.h>\n\n#include "shop/item.h"\n\nlong round_cents(long cents);\n\n'
              "long item_price(const item_t *item, int quantity)\n{\n    if (strlen(item->name) == 0)\n"
              "        return 0;\n    return round_cents(item->cents * quantity);\n}\n",
    formatted='''#include <string.h>

#include "shop/item.h"

/* reformatted by clang-format --style=GNU, with comments and blank lines */

static long
round_cents (long cents)
{
  return cents - cents % 5; // to the nickel
}



item_t
item_make (const char *name, long cents)
{
  item_t item;
  item.name = name; /* borrowed */
  item.cents = round_cents (cents);
  item.currency = EUR;
  return item;
}

// the price of a line
long
item_price (const item_t *item, int quantity)
{
  if (strlen (item->name) == 0)
    return 0;
  return round_cents (item->cents
                      * quantity);
}
''',
)

CPP = Lang(
    fixture="cpp",
    path="src/main.cpp",
    func="make_item",
    sibling="report",
    body=("return Item{name, cents, 1};", "return Item{name, cents, 2};"),
    sig=("static Item make_item(const char* name, long cents)\n",
         "static Item make_item(const char* name, long cents, int rounds)\n"),
    rename=("static Item make_item(", "static Item build_item(", "build_item"),
    func_text="static Item make_item(const char* name, long cents)\n{\n    return Item{name, cents, 1};\n}\n\n",
    move_path="src/items.cpp",
    move_file='#include "shop/item.h"\n\nusing namespace shop;\n\n'
              "static Item make_item(const char* name, long cents)\n{\n    return Item{name, cents, 1};\n}\n",
    formatted='''#include <iostream>

#include "shop/fmt.h"
#include "shop/store.h"

// reformatted by clang-format --style=Google, with comments, blank lines and a new order
using namespace shop;

static void report(const Store& store, const Store* other) {
  std::cout << store.summary() << " / "
            << fmt::money(other->total()) << "\n";  // both totals
}



/* items are made one at a time */
static Item make_item(const char* name, long cents) {
  return Item{name, cents,
              1};
}

int main() {
  Store store = Store::open("main");
  Item tea = make_item("tea", 250);
  store.add(tea.with_quantity(2));
  Store* other = new Store("other");
  other->add(make_item("cup", 1000));
  report(store, other);
  delete other;
  return 0;
}
''',
)

RUBY = Lang(
    fixture="ruby",
    path="app/models/application_record.rb",
    func="ApplicationRecord.persist",
    sibling="ApplicationRecord.table_name",
    body=("    values.size\n", "    values.size + 1\n"),
    sig=("def persist(values)", "def persist(values, rounds = 1)"),
    rename=("def persist(", "def store_values(", "ApplicationRecord.store_values"),
    func_text="  def persist(values)\n    values.size\n  end\n\n",
    move_path="app/models/persistence.rb",
    move_file="class ApplicationRecord\n  def persist(values)\n    values.size\n  end\nend\n",
    formatted='''# Reformatted (4-space indents, comments, blank lines).
class ApplicationRecord
    def self.table_name
        name.downcase  # the class name
    end


    def save
        persist( attributes )
    end

    # counts what it stores
    def persist( values )
        values.size
    end

    def attributes
        {}
    end
end
''',
    kind="method",
)

PHP = Lang(
    fixture="php",
    path="src/helpers.php",
    func="money",
    sibling="cents",
    body=("return Util\\Fmt::money($cents);", "return Util\\Fmt::money($cents + 0);"),
    sig=("function money(int $cents): string", "function money(int $cents, int $rounds = 1): string"),
    rename=("function money(", "function price(", "price"),
    func_text="function money(int $cents): string\n{\n    return Util\\Fmt::money($cents);\n}\n",
    move_path="src/money.php",
    move_file="<?php\n\nnamespace App;\n\n"
              "function money(int $cents): string\n{\n    return Util\\Fmt::money($cents);\n}\n",
    formatted='''<?php
// Reformatted: braces, spaces, blank lines and comments.
namespace App;

function cents( float $amount ) : int {
    return (int)round( $amount*100 );  // whole cents
}



/* money renders cents */
function money( int $cents ) : string {
  return Util\\Fmt::money(
      $cents
  );
}
''',
)

CSHARP = Lang(
    fixture="csharp",
    path="src/Shop.Core/Services/Pricing.cs",
    func="Checkout.Log",
    sibling="Checkout.Checkout",
    body=("System.Console.WriteLine(message);", 'System.Console.WriteLine(message + "!");'),
    sig=("private void Log(string message)", "private void Log(string message, int rounds)"),
    rename=("private void Log(", "private void Trace(", "Checkout.Trace"),
    func_text="\n        private void Log(string message)\n        {\n            System.Console.WriteLine(message);\n"
              "        }\n",
    move_path="src/Shop.Core/Services/Checkout.Log.cs",
    move_file="namespace Shop.Core.Services\n{\n    public partial class Checkout\n    {\n"
              "        private void Log(string message)\n        {\n            System.Console.WriteLine(message);\n"
              "        }\n    }\n}\n",
    formatted='''using Shop.Core.Models;

// Reformatted: K&R braces, two-space indents, comments, blank lines.
namespace Shop.Core.Services {
  public static class Pricing {
    public static decimal WithTax(decimal amount) {
      return Round(amount * 1.2m);  // with VAT
    }


    private static decimal Round(decimal amount) => System.Math.Round(amount,
                                                                     2);
  }

  public class Checkout {
    private readonly Order _order;

    public Checkout(Order order) {
      _order = order;
    }

    public decimal Pay() {
      var total = Pricing.WithTax(_order.Total());
      Log(_order.Describe());
      return total;
    }

    /* one line per payment */
    private void Log(string message) {
      System.Console.WriteLine(message);
    }
  }
}
''',
    kind="method",
)

KOTLIN_MAIN = (
    'fun main() {\n    val store = Store()\n    val cart: Cart = Cart.empty(store)\n    cart.add("tea", 250)\n'
    '    cart.add(Item("cup", 1000))\n    println(M.format(cart.discounted(10)))\n    println(cart.label())\n}\n'
)

KOTLIN = Lang(
    fixture="kotlin",
    path="src/main/kotlin/shop/App.kt",
    func="main",
    sibling="Cart.discounted",
    body=('cart.add("tea", 250)', 'cart.add("tea", 260)'),
    sig=("fun main() {", "fun main(rounds: Int) {"),
    rename=("fun main(", "fun run(", "run"),
    func_text=KOTLIN_MAIN,
    move_path="src/main/kotlin/shop/Main.kt",
    move_file="package shop\n\nimport shop.model.*\nimport shop.util.Money as M\n\n" + KOTLIN_MAIN,
    formatted='''package shop

import shop.model.*
import shop.util.Money as M

// Reformatted: two-space indents, comments, blank lines, wrapped calls.
fun Cart.discounted(percent: Int): Long =
  price() * (100 - percent) / 100



/* the entry point */
fun main() {
  val store = Store()  // one store
  val cart: Cart = Cart.empty(
    store
  )
  cart.add("tea", 250)
  cart.add(Item("cup", 1000))

  println(M.format(cart.discounted(10)))
  println(cart.label())
}
''',
)

SCALA = Lang(
    fixture="scala",
    path="src/main/scala/shop/util/Money.scala",
    func="Money.format",
    sibling="Money.cents",
    body=('f"${cents / 100.0}%.2f"', 'f"${cents / 100.5}%.2f"'),
    sig=("def format(cents: Long): String", "def format(cents: Long, rounds: Int): String"),
    rename=("def format(", "def render(", "Money.render"),
    func_text='\n  def format(cents: Long): String = f"${cents / 100.0}%.2f"\n',
    move_path="src/main/scala/shop/util/Format.scala",
    move_file='package shop.util\n\nobject Money {\n  def format(cents: Long): String = f"${cents / 100.0}%.2f"\n}\n',
    formatted='''package shop.util

// Reformatted: four-space indents, comments, blank lines, a wrapped definition.
object Money {
    def cents(amount: Double): Long =
        math.round(amount * 100)  // to the cent



    /* two decimals */
    def format(cents: Long): String =
        f"${cents / 100.0}%.2f"
}
''',
)

SWIFT = Lang(
    fixture="swift",
    path="Sources/shop/main.swift",
    func="checkout",
    sibling="banner",
    body=("return cart.label()", 'return cart.label() + "!"'),
    sig=("func checkout(_ cart: Cart) -> String {", "func checkout(_ cart: Cart, rounds: Int) -> String {"),
    rename=("func checkout(", "func settle(", "settle"),
    func_text="func checkout(_ cart: Cart) -> String {\n    return cart.label()\n}\n\n",
    move_path="Sources/shop/Checkout.swift",
    move_file="import ShopCore\n\nfunc checkout(_ cart: Cart) -> String {\n    return cart.label()\n}\n",
    formatted='''import Foundation
import ShopCore

// Reformatted: two-space indents, comments, blank lines.
func banner() -> String {
  return "shop"  // the name
}



/* what the cart costs */
func checkout(_ cart: Cart) -> String {
  return cart
    .label()
}

let store = Store()
let cart = Cart(store: store)
cart.add(name: "tea", cents: 250)
cart.add(Item(name: "cup", cents: 1000))
print(banner(), checkout(cart))
''',
)

LANGS = [pytest.param(PYTHON, id="python"), pytest.param(GO, id="go"), pytest.param(RUBY, id="ruby"),
         pytest.param(PHP, id="php"), pytest.param(CSHARP, id="csharp"), pytest.param(KOTLIN, id="kotlin"),
         pytest.param(SCALA, id="scala"), pytest.param(SWIFT, id="swift"),
         pytest.param(TYPESCRIPT, id="typescript"), pytest.param(C, id="c"), pytest.param(CPP, id="cpp")]


# ----------------------------------------------------------------------------- per language


@pytest.mark.parametrize("lang", LANGS)
def test_body_and_signature_changes_then_revert(open_repo: Callable[[str], Repo], lang: Lang) -> None:
    repo = open_repo(lang.fixture)
    f = repo.path(lang.path)
    original = f.read_text(encoding="utf-8")
    o = repo.observe("hashing must stay salted with the package salt", lang.ref)
    assert o.status is ObservationStatus.FRESH
    assert o.stale_reasons == ()
    anchor = o.anchors[0]
    assert anchor.kind is AnchorKind.SYMBOL
    assert anchor.ref == lang.ref

    # body edit -> STALE, exactly one BODY_CHANGED reason naming the anchor
    before = time.time()
    edit(f, *lang.body)
    s = repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.STALE, what="stale after a body edit")
    assert changes(s) == [(ChangeKind.BODY_CHANGED, lang.ref)]
    assert before - 1 <= s.stale_reasons[0].detected_at <= time.time() + 1
    assert s.anchors[0].ref == lang.ref
    assert not s.needs_review

    # back to the original -> fresh again
    inplace_write(f, original)
    back = repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.FRESH, what="fresh after the revert")
    assert back.stale_reasons == ()

    # parameters changed (body untouched) -> SIGNATURE_CHANGED with both signature texts
    edit(f, *lang.sig)
    s = repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.STALE,
                      what="stale after a signature edit")
    assert changes(s) == [(ChangeKind.SIGNATURE_CHANGED, lang.ref)]
    reason = s.stale_reasons[0]
    assert reason.detected_at > 0
    assert reason.old_signature == anchor.signature
    current = repo.client.symbol(lang.ref, repo=repo.id).symbol.signature
    assert reason.new_signature == current
    assert "rounds" in reason.new_signature
    assert "rounds" not in reason.old_signature
    assert not reason.body_changed  # (the body is untouched: said as the parameter alone)

    atomic_write(f, original)
    back = repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.FRESH, what="fresh after the revert")
    assert back.stale_reasons == ()
    assert back.anchors == o.anchors


def test_a_second_change_renews_the_reason(open_repo: Callable[[str], Repo]) -> None:
    """A stale note whose function changes again: its reason names the latest change (when
    and what, against the anchored code), as another session's post-edit hook must see it."""
    repo = open_repo(PYTHON.fixture)
    f = repo.path(PYTHON.path)
    o = repo.observe("hashing must stay salted with the package salt", PYTHON.ref)
    old, new = PYTHON.sig
    edit(f, old, new)
    first = repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.STALE, what="stale after a signature edit")
    (r1,) = first.stale_reasons
    assert "rounds:int=1" in r1.new_signature  # signatures are kept without spaces
    again = time.time()
    edit(f, new, new.replace("rounds: int = 1", "rounds: int = 2, pepper: str = ''"))
    second = repo.wait_obs(o.id, lambda x: "pepper" in x.stale_reasons[0].new_signature,
                           what="the reason naming the second edit")
    (r2,) = second.stale_reasons
    assert r2.change is ChangeKind.SIGNATURE_CHANGED
    assert r2.old_signature == r1.old_signature == o.anchors[0].signature  # still against the anchored code
    assert r2.detected_at >= again - 1 > r1.detected_at - 1
    assert r2.uncommitted
    assert second.status is ObservationStatus.STALE


def test_a_signature_change_with_its_body_says_both(open_repo: Callable[[str], Repo]) -> None:
    """A parameter added and the body changed in one edit: the reason names the parameter and
    that the body changed too (it said only "parameter `rounds` added (optional)", though what
    the function does changed as well)."""
    repo = open_repo(PYTHON.fixture)
    f = repo.path(PYTHON.path)
    o = repo.observe("hashing must stay salted with the package salt", PYTHON.ref)
    old, new = PYTHON.sig
    body_old, body_new = PYTHON.body
    inplace_write(f, f.read_text(encoding="utf-8").replace(old, new).replace(body_old, body_new))
    s = repo.wait_obs(o.id, lambda x: bool(x.stale_reasons) and x.stale_reasons[0].body_changed,
                      what="a signature reason that says the body changed too")
    (r,) = s.stale_reasons
    assert r.change is ChangeKind.SIGNATURE_CHANGED
    assert change_words(r) == "parameter `rounds` added (optional), body changed"


@pytest.mark.parametrize("lang", LANGS)
def test_removed_function_then_removed_file(open_repo: Callable[[str], Repo], lang: Lang) -> None:
    repo = open_repo(lang.fixture)
    f = repo.path(lang.path)
    sibling_ref = f"{lang.path}::{lang.sibling}"
    on_func = repo.observe("hashing is salted", lang.ref)
    on_sibling = repo.observe("tokens are not signed", sibling_ref)
    on_file = repo.observe("this file owns every credential transform", lang.path)
    assert on_file.anchors[0].kind is AnchorKind.FILE
    assert on_file.anchors[0].ref == lang.path

    edit(f, lang.func_text, "")
    s = repo.wait_obs(on_func.id, lambda x: x.status is ObservationStatus.STALE, what="stale after removal")
    assert changes(s) == [(ChangeKind.REMOVED, lang.ref)]
    assert s.stale_reasons[0].detected_at > 0
    # the file's definitions changed; its other function did not
    fs = repo.wait_obs(on_file.id, lambda x: x.status is ObservationStatus.STALE, what="stale (file)")
    assert changes(fs) == [(ChangeKind.BODY_CHANGED, lang.path)]
    assert repo.client.get(on_sibling.id).status is ObservationStatus.FRESH

    os.remove(f)
    fs = repo.wait_obs(on_file.id, lambda x: changes(x) == [(ChangeKind.REMOVED, lang.path)],
                       what="REMOVED after the file was deleted")
    assert fs.status is ObservationStatus.STALE
    sib = repo.wait_obs(on_sibling.id, lambda x: x.status is ObservationStatus.STALE, what="stale (sibling)")
    assert changes(sib) == [(ChangeKind.REMOVED, sibling_ref)]
    assert changes(repo.client.get(on_func.id)) == [(ChangeKind.REMOVED, lang.ref)]


@pytest.mark.parametrize("lang", LANGS)
def test_move_then_rename_moves_the_anchor(open_repo: Callable[[str], Repo], lang: Lang) -> None:
    repo = open_repo(lang.fixture)
    o = repo.observe("hashing is salted", lang.ref)
    moved_ref = f"{lang.move_path}::{lang.func}"

    # moved to another file, same body: both files saved together, as a refactoring tool would
    inplace_write(repo.path(lang.move_path), lang.move_file)
    edit(repo.path(lang.path), lang.func_text, "")
    m = repo.wait_obs(o.id, lambda x: x.anchors[0].ref == moved_ref, what=f"re-anchored to {moved_ref}")
    assert m.anchors[0].path == lang.move_path
    assert m.needs_review
    assert [(x.change, x.anchor_ref, x.new_ref) for x in m.stale_reasons] == [
        (ChangeKind.RENAMED, lang.ref, moved_ref)]
    assert m.stale_reasons[0].detected_at > 0
    assert [x.id for x in repo.client.symbol(moved_ref, repo=repo.id).observations] == [o.id]

    # reviewed: confirming clears the flag and the reason
    c = repo.client.confirm(o.id, confirmed_by="reviewer")
    assert c.status is ObservationStatus.FRESH
    assert not c.needs_review
    assert c.stale_reasons == ()
    assert c.anchors[0].ref == moved_ref

    # renamed in place, same parameters and body
    old, new, new_qual = lang.rename
    new_ref = f"{lang.move_path}::{new_qual}"
    edit(repo.path(lang.move_path), old, new)
    r = repo.wait_obs(o.id, lambda x: x.anchors[0].ref == new_ref, what=f"re-anchored to {new_ref}")
    a = r.anchors[0]
    assert a.path == lang.move_path
    assert a.symbol_id.endswith(f"::{new_qual}#{lang.kind}")
    assert r.needs_review
    renamed = [x for x in r.stale_reasons if x.change is ChangeKind.RENAMED]
    assert [(x.anchor_ref, x.new_ref) for x in renamed] == [(moved_ref, new_ref)]
    assert [x.id for x in repo.client.symbol(new_ref, repo=repo.id).observations] == [o.id]
    # Only the name changed: the rename should be the one reason (not also SIGNATURE_CHANGED
    # for a signature that differs by the name alone).
    assert changes(r) == [(ChangeKind.RENAMED, moved_ref)], (
        f"a pure rename should be reported as RENAMED only, got {r.stale_reasons}")


def _indexed(repo: Repo, ref: str) -> bool:
    """Whether the daemon's graph holds ``ref`` (its file's batch was applied)."""
    try:
        repo.client.symbol(ref, repo=repo.id)
    except GraphMemError:
        return False
    return True


@pytest.mark.parametrize("lang", [pytest.param(PYTHON, id="python"), pytest.param(GO, id="go"),
                                  pytest.param(TYPESCRIPT, id="typescript")])
@pytest.mark.parametrize("first", ["new file", "removal"])
def test_a_move_seen_in_two_batches_still_moves_the_anchor(open_repo: Callable[[str], Repo], lang: Lang,
                                                           first: str) -> None:
    """The watcher's batches are not transactions. Under load the two files of a move (the
    test above) came as two batches in ~1 run of 3 at load 12 and the note stayed stale
    "removed" of a function that still existed; a person who cuts a function, saves, pastes it
    into another file and saves that one gives two batches every time. Either order now moves
    the anchor (``graph/recent.py``)."""
    repo = open_repo(lang.fixture)
    o = repo.observe("hashing is salted", lang.ref)
    moved_ref = f"{lang.move_path}::{lang.func}"
    if first == "new file":  # the copy is indexed before the original goes
        inplace_write(repo.path(lang.move_path), lang.move_file)
        wait_for(lambda: _indexed(repo, moved_ref), TIMEOUT)
        edit(repo.path(lang.path), lang.func_text, "")
    else:  # the original goes first: stale, removed, until the other half arrives
        edit(repo.path(lang.path), lang.func_text, "")
        repo.wait_obs(o.id, lambda x: changes(x) == [(ChangeKind.REMOVED, lang.ref)], what="stale (removed)")
        inplace_write(repo.path(lang.move_path), lang.move_file)
    m = repo.wait_obs(o.id, lambda x: x.anchors[0].ref == moved_ref, what=f"re-anchored to {moved_ref}")
    assert m.needs_review
    assert [(x.change, x.anchor_ref, x.new_ref) for x in m.stale_reasons] == [
        (ChangeKind.RENAMED, lang.ref, moved_ref)]
    assert [x.id for x in repo.client.symbol(moved_ref, repo=repo.id).observations] == [o.id]


@pytest.mark.parametrize("lang", LANGS)
def test_formatting_only_rewrite_stays_fresh(open_repo: Callable[[str], Repo],
                                             events_of: Callable[..., Events], lang: Lang) -> None:
    repo = open_repo(lang.fixture)
    on_func = repo.observe("hashing is salted", lang.ref)
    on_sibling = repo.observe("tokens are not signed", f"{lang.path}::{lang.sibling}")
    on_file = repo.observe("this file owns every credential transform", lang.path)
    ev = events_of(repo.client, repo.id)
    ev.sync(on_func.id)

    atomic_write(repo.path(lang.path), lang.formatted)
    indexed = ev.file_indexed(lang.path)
    repo.wait_current()
    assert indexed.detail.get("added", 0) == 0
    assert indexed.detail.get("changed", 0) == 0
    # the function really moved lower: the daemon saw the new layout
    sym = repo.client.symbol(lang.ref, repo=repo.id).symbol
    assert sym.start_line > repo.client.symbol(f"{lang.path}::{lang.sibling}", repo=repo.id).symbol.start_line
    for o in (on_func, on_sibling, on_file):
        now = repo.client.get(o.id)
        assert now.status is ObservationStatus.FRESH, now
        assert now.stale_reasons == ()
        assert not now.needs_review
    assert not [e for e in ev.items if e.kind is EventKind.OBSERVATION_STALE]


# ----------------------------------------------------------------------------- python only


def test_reasons_are_ordered_by_severity(open_repo: Callable[[str], Repo]) -> None:
    repo = open_repo("python")
    hp, mt, b64 = ("app/auth/crypto.py::hash_password", "app/auth/crypto.py::make_token",
                   "app/util/encoding.py::b64")
    two = repo.observe("hashing and tokens share the salt", hp, mt)
    three = repo.observe("hashing, tokens and encoding agree on bytes", hp, mt, b64)
    crypto, encoding = repo.path("app/auth/crypto.py"), repo.path("app/util/encoding.py")

    # body change on hash_password, signature change on make_token, b64 removed.
    # (Alphabetical order of the refs is the reverse of the severity order.)
    text = crypto.read_text(encoding="utf-8")
    text = text.replace(*PYTHON.body).replace("def make_token(user_id: int) -> str:",
                                              "def make_token(user_id: int, ttl: int = 60) -> str:")
    atomic_write(crypto, text)
    edit(encoding, 'def b64(data: bytes) -> str:\n    return base64.b64encode(data).decode("ascii")\n\n\n',
         "")
    o2 = repo.wait_obs(two.id, lambda x: len(x.stale_reasons) == 2, what="two reasons")
    assert changes(o2) == [(ChangeKind.SIGNATURE_CHANGED, mt), (ChangeKind.BODY_CHANGED, hp)]
    o3 = repo.wait_obs(three.id, lambda x: len(x.stale_reasons) == 3, what="three reasons")
    assert changes(o3) == [(ChangeKind.REMOVED, b64), (ChangeKind.SIGNATURE_CHANGED, mt),
                           (ChangeKind.BODY_CHANGED, hp)]

    # make_token removed: REMOVED now outranks the body change
    start = text.index("def make_token(")
    atomic_write(crypto, text[:start].rstrip() + "\n")
    o2 = repo.wait_obs(two.id, lambda x: changes(x)[:1] == [(ChangeKind.REMOVED, mt)], what="REMOVED first")
    assert changes(o2) == [(ChangeKind.REMOVED, mt), (ChangeKind.BODY_CHANGED, hp)]
    assert o2.status is ObservationStatus.STALE


def test_stale_event_is_streamed(open_repo: Callable[[str], Repo], events_of: Callable[..., Events]) -> None:
    repo = open_repo("python")
    target = repo.observe("login compares hashes in constant time", "app/auth/service.py::AuthService.login")
    primer = repo.observe("digest is hex sha-256", "app/util/encoding.py::digest")
    ev = events_of(repo.client, repo.id, (EventKind.OBSERVATION_STALE,))

    def stale_event_of(obs_id: str, timeout: float) -> Event | None:
        return ev.wait(lambda e: e.observation is not None and e.observation.id == obs_id, timeout)

    # Make sure the subscription is live first: a STALE event for the primer must arrive
    # (if the edit raced the subscription, revert and edit again).
    enc = repo.path("app/util/encoding.py")
    enc_original = enc.read_text(encoding="utf-8")
    for attempt in range(3):
        edit(enc, "return hashlib.sha256(raw).hexdigest()",
             f"return hashlib.sha256(raw).hexdigest()[{attempt}:]")
        repo.wait_obs(primer.id, lambda x: x.status is ObservationStatus.STALE, what="stale (primer)")
        if stale_event_of(primer.id, 2.0) is not None:
            break
        atomic_write(enc, enc_original)
        repo.wait_obs(primer.id, lambda x: x.status is ObservationStatus.FRESH, what="fresh (primer)")
    else:
        pytest.fail(f"no OBSERVATION_STALE event ever arrived (stream error: {ev.error})")

    svc = repo.path("app/auth/service.py")
    edit(svc, "raise AuthError(email)", "raise AuthError(f'bad login for {email}')")
    got = stale_event_of(target.id, 5.0)
    assert got is not None, f"no OBSERVATION_STALE event for {target.id}; got {ev.items}"
    assert got.kind is EventKind.OBSERVATION_STALE
    assert got.repo_id == repo.id
    assert got.observation is not None
    assert got.observation.status is ObservationStatus.STALE
    assert changes(got.observation) == [(ChangeKind.BODY_CHANGED, "app/auth/service.py::AuthService.login")]
    assert all(e.kind is EventKind.OBSERVATION_STALE for e in ev.items)


def test_confirm_refingerprints(open_repo: Callable[[str], Repo], events_of: Callable[..., Events]) -> None:
    repo = open_repo("python")
    crypto = repo.path("app/auth/crypto.py")
    original = crypto.read_text(encoding="utf-8")
    o = repo.observe("hashing is salted", PYTHON.ref)

    edit(crypto, *PYTHON.body)
    repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.STALE, what="stale")
    before = time.time()
    c = repo.client.confirm(o.id, confirmed_by="alice")
    assert c.status is ObservationStatus.FRESH
    assert c.stale_reasons == ()
    assert not c.needs_review
    assert c.confirmed_by == "alice"
    assert c.confirmed_at is not None
    assert c.confirmed_at >= before - 1
    assert c.anchors[0].ref == PYTHON.ref
    assert c.anchors[0].sig_hash == o.anchors[0].sig_hash
    assert c.anchors[0].body_hash != o.anchors[0].body_hash  # fingerprinted again, on the new body
    assert repo.client.get(o.id) == c

    # unrelated edits (another function of the same file, another file) keep it fresh
    ev = events_of(repo.client, repo.id)
    ev.sync(o.id)
    edit(crypto, "return b64(payload())", "return b64(payload()) + ''")
    edit(repo.path("app/models.py"), 'return self.email.split("@")[0]', 'return self.email.split("@")[-1]',
         atomic=False)
    ev.file_indexed("app/auth/crypto.py")
    ev.file_indexed("app/models.py")
    repo.wait_current()
    still = repo.client.get(o.id)
    assert still.status is ObservationStatus.FRESH
    assert still.confirmed_by == "alice"

    # a new body edit makes it stale again -- even going back to the code it was first
    # anchored to, since the confirmation moved the fingerprint
    atomic_write(crypto, original)
    s = repo.wait_obs(o.id, lambda x: x.status is ObservationStatus.STALE, what="stale again")
    assert changes(s) == [(ChangeKind.BODY_CHANGED, PYTHON.ref)]


def test_file_indexed_events_describe_the_change(open_repo: Callable[[str], Repo],
                                                 events_of: Callable[..., Events]) -> None:
    repo = open_repo("python")
    o = repo.observe("hashing is salted", PYTHON.ref)
    ev = events_of(repo.client, repo.id)
    ev.sync(o.id)

    edit(repo.path(PYTHON.path), PYTHON.func_text, "")
    gone_func = ev.file_indexed(PYTHON.path)
    assert gone_func.detail["removed"] == 0, f"the file still exists: {gone_func}"
    assert gone_func.detail["removed_symbols"] == 1, gone_func

    os.remove(repo.path("app/models.py"))
    gone_file = ev.file_indexed("app/models.py")
    assert gone_file.detail["removed"] == 1, f"the file was deleted: {gone_file}"
