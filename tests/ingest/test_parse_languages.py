"""Parser details of the languages added after the first six, on small sources written for
each rule (the fixture repositories' symbols and edges are checked in
``tests/graph/test_language_fixtures.py``)."""

from __future__ import annotations

from graphmemd.graph.model import NO_BODY_HASH, InheritKind, ParsedFile, SymbolKind
from graphmemd.ingest.parsing import parse_source

F = SymbolKind.FUNCTION
M = SymbolKind.METHOD
C = SymbolKind.CLASS
S = SymbolKind.STRUCT
E = SymbolKind.ENUM
MOD = SymbolKind.MODULE
INH = InheritKind.INHERITS


def parse(path: str, text: str) -> ParsedFile:
    parsed = parse_source(path, text.encode())
    assert parsed.syntax_errors == 0
    assert parsed.truncated is None
    return parsed


def symbols(parsed: ParsedFile) -> list[tuple[str, SymbolKind]]:
    return [(s.qualname, s.kind) for s in parsed.symbols]


def calls(parsed: ParsedFile) -> list[tuple[str, str]]:
    return [(c.caller, c.callee) for c in parsed.calls]


# ----------------------------------------------------------------------------- C


C_SOURCE = """#include <stdio.h>
#include "util/fmt.h"
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define LIMIT 10
typedef struct { int x; } point_t;
typedef struct node { struct node *next; } node_t;
struct list { node_t *head; };
enum color { RED, GREEN };
static int helper(int);
int (*handler)(int);
static int *make(void) { return 0; }
int helper(int x) {
    struct list l;
    point_t *p = make_point();
    l.head->next = 0;
    return MAX(x, LIMIT) + helper(x - 1) + p->x + l.head->next->value;
}
void run(struct list *items) { items->head = 0; printf("%d", helper(1)); }
"""


def test_c_symbols() -> None:
    parsed = parse("a.c", C_SOURCE)
    assert symbols(parsed) == [
        ("MAX", F),  # a function-like macro; LIMIT is a constant, not a symbol
        ("point_t", S),  # an anonymous struct takes its typedef's name
        ("node", S),  # a named one keeps its own (no second symbol for the typedef)
        ("list", S),
        ("color", E),
        ("make", F),  # through the pointer declarator of its return type
        ("helper", F),  # the prototype is dropped: its definition follows in the file
        ("run", F),
    ]  # `handler` is a function pointer variable, not a function
    helper = next(s for s in parsed.symbols if s.qualname == "helper")
    assert helper.signature == "int helper(int x)"
    assert helper.body_hash != NO_BODY_HASH


def test_c_calls_imports_and_types() -> None:
    parsed = parse("a.c", C_SOURCE)
    assert [(i.module, i.names) for i in parsed.imports] == [("<stdio.h>", ()), ("util/fmt.h", ())]
    assert calls(parsed) == [
        ("helper", "make_point"),
        ("helper", "MAX"),
        ("helper", "helper"),
        ("run", "printf"),
        ("run", "helper"),
    ]
    assert parsed.types == ()  # no methods in C: a typed receiver leads to no definition
    types = {(t.scope, t.name, t.type) for t in parse("a.h", C_SOURCE).types}  # a header is C++
    assert ("helper", "l", "list") in types  # `struct list l`
    assert ("helper", "p", "point_t") in types  # through the pointer declarator
    assert ("run", "items", "list") in types  # a parameter
    assert ("list", "head", "node_t") in types  # a field


def test_c_prototype_without_definition_is_a_symbol() -> None:
    parsed = parse("api.h", "int api_open(const char *path);\nvoid api_close(int fd);\n")
    assert symbols(parsed) == [("api_open", F), ("api_close", F)]
    assert {s.body_hash for s in parsed.symbols} == {NO_BODY_HASH}
    assert parsed.arities == (("api_open", 1), ("api_close", 1))


# ----------------------------------------------------------------------------- C++


CPP_SOURCE = """#include "store.h"
using namespace std;
using app::Store;
namespace app {
class GTEST_API_ Store : public Base, private Counted {
public:
    Store(int n);
    ~Store();
    void save(int x);
    void save(int x, int y);
    bool operator==(const Store& o) const;
    JUCE_DECLARE_NON_COPYABLE (Store)
private:
    Helper* helper_;
};
}
namespace app {
Store::Store(int n) : count_(n) {}
void Store::save(int x) { this->flush(); helper_->go(x); Store other(x); other.save(1, 2); }
}
void app::Store::save(int x, int y) { std::sort(a, b); auto p = std::make_unique<Widget>(x); p->draw(); }
template <typename T> T Box<T>::get() const { return value_; }
void JUCE_CALLTYPE shutdown() { detail::reset(); }
"""


def test_cpp_symbols() -> None:
    parsed = parse("store.cpp", CPP_SOURCE)
    assert symbols(parsed) == [
        ("app", MOD),  # the second `namespace app` block is the same symbol
        ("app.Store", C),  # the export macro GTEST_API_ is read as a blank
        ("app.Store.~Store", M),
        ("app.Store.operator==", M),
        ("app.Store.Store", M),  # declared in the class, defined out of line: one symbol
        ("app.Store.save", M),
        ("app.Store.save~2", M),  # an overload: `~<arity>`
        ("Box.get", M),  # template arguments are not part of a name
        ("shutdown", F),
    ]
    parents = {s.qualname: s.parent for s in parsed.symbols}
    assert parents["app.Store.save"] == "app.Store"  # the out-of-line definition joins its class
    assert parents["Box.get"] is None  # (Box is declared elsewhere)
    assert [(h.child, h.parent, h.kind) for h in parsed.inherits] == [
        ("app.Store", "Base", INH),
        ("app.Store", "Counted", INH),
    ]


def test_cpp_calls_imports_and_types() -> None:
    parsed = parse("store.cpp", CPP_SOURCE)
    assert [(i.module, i.names) for i in parsed.imports] == [
        ("store.h", ()),
        ("std", ("*",)),
        ("app", ("Store",)),
    ]
    assert calls(parsed) == [
        ("app.Store.save", "this.flush"),
        ("app.Store.save", "helper_.go"),  # `->` is `.`
        ("app.Store.save", "Store"),  # `Store other(x)`: a constructor
        ("app.Store.save", "other.save"),
        ("app.Store.save~2", "std::sort"),
        ("app.Store.save~2", "std::make_unique"),
        ("app.Store.save~2", "p.draw"),
        ("shutdown", "detail::reset"),
    ]
    assert [c.args for c in parsed.calls if c.callee == "other.save"] == [2]
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert ("app.Store", "helper_", "Helper") in types  # a field
    assert ("app.Store.save", "other", "Store") in types  # `T x(y);` inside a block is a variable
    assert ("app.Store.save~2", "p", "Widget") in types  # a smart pointer stands for its pointee


def test_cpp_specializations_and_thread_safety_annotations() -> None:
    """A class template's specialization is named like its template; a thread-safety
    annotation macro after a declarator is read as a blank, never as the member's name."""
    parsed = parse(
        "mock.h",
        """namespace t {
template <typename F> class Typed;
template <typename R, typename... Args>
class Typed<R(Args...)> : public Base {
  int calls_ GUARDED_BY(mu_);
  void Reset() GTEST_LOCK_EXCLUDED_(g_mu) { Clear(); }
  void Clear() const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
};
template <> struct hash<Id> { int operator()(Id id) const { return id.value(); } };
}
""",
    )
    assert symbols(parsed) == [
        ("t", MOD),
        ("t.Typed", C),
        ("t.Typed.Reset", M),
        ("t.Typed.Clear", M),
        ("t.hash", S),
        ("t.hash.operator()", M),
    ]
    assert calls(parsed) == [("t.Typed.Reset", "Clear"), ("t.hash.operator()", "id.value")]


def test_cpp_macro_lines_are_blanks_only_where_a_statement_could_stand() -> None:
    """A line holding only an ALL_CAPS macro is read as a blank (a statement-like macro with no
    semicolon), but not an enumerator alone on its line, an operand of a continued
    expression, a function-like macro heading a body at file level, or a line continuing a
    directive; a qualified name split over lines and ``operator ()`` are named as written
    on one line."""
    parsed = parse_source(
        "t.cc",
        b"""enum Format {
  FORMAT_A = 1,
  FORMAT_B
      = (FORMAT_A | 2),
  FORMAT_C
};
TEST_F(Shop, Totals)
{
  run();
}
int f() {
#if OS_A || \\
    OS_B
  return 1;
#endif
  JUCE_TRY
  {
    g();
  }
}
class Box {
  int operator () (int x);
  JUCE_LEAK_DETECTOR (Box)
};
Store
    ::Store() noexcept {}
int Box::operator () (int x) { return x; }
""",
    )
    assert parsed.syntax_errors == 0
    assert symbols(parsed) == [
        ("Format", E),
        ("TEST_F", F),
        ("f", F),
        ("Box", C),
        ("Store.Store", M),
        ("Box.operator()", M),
    ]
    assert ("TEST_F", "run") in calls(parsed)
    assert ("f", "g") in calls(parsed)


def test_cpp_a_macro_is_named_at_file_level() -> None:
    """A function-like macro defined inside a namespace or class is named at file level (the
    preprocessor knows no scope), so a call from anywhere finds it by its name."""
    parsed = parse(
        "gtest.h",
        """namespace testing {
#define EXPECT_TRUE(c) Check(c)
class Test {
#define TEST_HELPER(x) x
  void Run() { EXPECT_TRUE(1); }
};
}
""",
    )
    assert [(s.qualname, s.kind, s.parent) for s in parsed.symbols] == [
        ("testing", MOD, None),
        ("EXPECT_TRUE", F, None),
        ("testing.Test", C, "testing"),
        ("TEST_HELPER", F, None),
        ("testing.Test.Run", M, "testing.Test"),
    ]


# ----------------------------------------------------------------------------- Ruby


RUBY_SOURCE = """require "json"
require_relative "shop/item"

module Shop
  class Cart < Base
    include Discountable
    attr_reader :items, :owner

    def initialize(owner)
      @items = []
      @ledger = Ledger.new
      @owner = owner
    end

    def total
      count = items.size
      subtotal + tax(count) + Shop::Tax.rate(self) + count
    end

    def self.build(*args)
      new(*args)
    end
  end

  module Shop
    Point = Struct.new(:x, :y) do
      def norm
        x + y
      end
    end
  end
end

module Shop
  class Cart
    def tax(n)
      @ledger.record(n)
      super
    end
  end
end
"""


def test_ruby_symbols() -> None:
    parsed = parse("cart.rb", RUBY_SOURCE)
    assert symbols(parsed) == [
        ("Shop", MOD),  # the module reopened at the end is the same symbol
        ("Shop.Cart", C),
        ("Shop.Cart.items", M),  # attr_reader names are methods
        ("Shop.Cart.owner", M),
        ("Shop.Cart.initialize", M),
        ("Shop.Cart.total", M),
        ("Shop.Cart.build", M),  # `def self.build`
        ("Shop.Shop", MOD),
        ("Shop.Shop.Point", C),  # `Struct.new` assigned to a constant: a class
        ("Shop.Shop.Point.norm", M),
        ("Shop.Cart.tax", M),  # a method of the reopened class
    ]


def test_ruby_calls_imports_and_types() -> None:
    parsed = parse("cart.rb", RUBY_SOURCE)
    assert [(i.module, i.names) for i in parsed.imports] == [("json", ()), ("shop/item", ("relative",))]
    assert calls(parsed) == [
        ("Shop.Cart.initialize", "Ledger.new"),
        ("Shop.Cart.total", "items.size"),
        ("Shop.Cart.total", "subtotal"),  # a bare name no local holds is a call
        ("Shop.Cart.total", "tax"),
        ("Shop.Cart.total", "Shop::Tax.rate"),  # (`count` is a local: not a call)
        ("Shop.Cart.build", "new"),
        ("Shop.Shop.Point", "Struct.new"),
        ("Shop.Shop.Point.norm", "x"),
        ("Shop.Shop.Point.norm", "y"),
        ("Shop.Cart.tax", "ledger.record"),  # `@ledger`
        ("Shop.Cart.tax", "super"),
    ]
    assert [(h.child, h.parent) for h in parsed.inherits] == [("Shop.Cart", "Base"), ("Shop.Cart", "Discountable")]
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert ("Shop.Cart.initialize", "self.ledger", "Ledger.new") in types
    assert ("Shop.Cart.build", "", "new") in types  # what `build` returns


# ----------------------------------------------------------------------------- PHP


PHP_SOURCE = r"""<?php
namespace App\Models;

use App\Contracts\Repository;
use App\Util\{Fmt, Money as M};
use function App\money;

class User extends Model implements Repository, \JsonSerializable
{
    use HasName;
    private Mailer $mailer;

    public function __construct(private Logger $log) {}

    public function save(int $x): ?Receipt
    {
        $this->mailer->send($x);
        self::audit();
        parent::save();
        $r = new Receipt($x);
        $r->print();
        return \App\Util\Fmt::money(money($x));
    }
}
"""


def test_php_symbols_calls_imports() -> None:
    parsed = parse("User.php", PHP_SOURCE)
    assert parsed.package == "App.Models"  # the namespace, with `\` read as `.`
    assert symbols(parsed) == [("User", C), ("User.__construct", M), ("User.save", M)]
    assert [(i.module, i.names, i.alias) for i in parsed.imports] == [
        ("App\\Contracts", ("Repository",), None),
        ("App\\Util", ("Fmt",), None),
        ("App\\Util", ("Money",), "M"),
        ("App", ("money",), None),
    ]
    assert calls(parsed) == [
        ("User.save", "this.mailer.send"),  # `$` dropped, `->` is `.`
        ("User.save", "self.audit"),
        ("User.save", "parent.save"),
        ("User.save", "Receipt"),  # `new Receipt(...)`
        ("User.save", "r.print"),
        ("User.save", "::App::Util::Fmt.money"),  # a name from the root
        ("User.save", "money"),
    ]
    assert [(h.parent, h.kind) for h in parsed.inherits] == [
        ("Model", INH),
        ("Repository", InheritKind.IMPLEMENTS),
        ("::JsonSerializable", InheritKind.IMPLEMENTS),
        ("HasName", INH),  # a trait used in the class
    ]
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert ("User", "mailer", "Mailer") in types  # a typed property
    assert ("User.__construct", "this.log", "Logger") in types  # a promoted constructor parameter
    assert ("User.save", "r", "Receipt") in types
    assert ("User.save", "", "Receipt") in types  # the return type


# ----------------------------------------------------------------------------- C#


CSHARP_SOURCE = """using System;
using Shop.Util;
using Svc = Shop.Services.Checkout;

namespace Shop.Models
{
    public partial class Cart : Entity, IRepository<Item>
    {
        private readonly Store _store = new Store();
        public Cart(int n) : base(n) { }
        public int Total(int x) { var s = new Ledger(); s.Add(x); this.Save(); base.Run(); return Helper(x); }
        public int Total(int x, int y) => x + y;
        public Item First { get; set; }
    }
}
"""


def test_csharp_symbols_calls_imports() -> None:
    parsed = parse("Cart.cs", CSHARP_SOURCE)
    assert parsed.package == "Shop.Models"
    assert symbols(parsed) == [("Cart", C), ("Cart.Cart", M), ("Cart.Total", M), ("Cart.Total~2", M)]
    assert [(i.module, i.names, i.alias) for i in parsed.imports] == [
        ("System", ("*",), None),
        ("Shop.Util", ("*",), None),
        ("Shop.Services", ("Checkout",), "Svc"),
    ]
    assert calls(parsed) == [
        ("Cart", "Store"),
        ("Cart.Total", "Ledger"),
        ("Cart.Total", "s.Add"),
        ("Cart.Total", "this.Save"),
        ("Cart.Total", "base.Run"),
        ("Cart.Total", "Helper"),
    ]
    assert [(h.parent, h.kind) for h in parsed.inherits] == [("Entity", INH), ("IRepository", InheritKind.IMPLEMENTS)]
    assert parsed.arities == (("Cart.Cart", 1), ("Cart.Total", 1), ("Cart.Total~2", 2))
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert {("Cart", "_store", "Store"), ("Cart.Total", "s", "Ledger"), ("Cart", "First", "Item")} <= types


# ----------------------------------------------------------------------------- Kotlin


KOTLIN_SOURCE = """package shop.model

import shop.util.Money
import shop.util.*
import shop.x.Y as Z

open class Cart(private val store: Store) : Entity(), Priced {
    private val ledger = Ledger()

    fun total(x: Int): Receipt {
        val s = Store()
        s.put(x)
        this.save()
        super.run()
        return "%d".format(x)
    }

    fun total(x: Int, y: Int) = x + y

    companion object {
        fun empty(store: Store): Cart = Cart(store)
    }
}

object Registry { fun all() {} }

fun Cart.extra(): Int = 1
"""


def test_kotlin_symbols_calls_imports() -> None:
    parsed = parse("Cart.kt", KOTLIN_SOURCE)
    assert parsed.package == "shop.model"
    assert symbols(parsed) == [
        ("Cart", C),
        ("Cart.total", M),
        ("Cart.total~2", M),
        ("Cart.empty", M),  # a companion object's function is the class's
        ("Registry", C),  # an object
        ("Registry.all", M),
        ("Cart.extra", M),  # an extension function is a method of its receiver
    ]
    assert [(i.module, i.names, i.alias) for i in parsed.imports] == [
        ("shop.util", ("Money",), None),
        ("shop.util", ("*",), None),
        ("shop.x", ("Y",), "Z"),
    ]
    assert calls(parsed) == [
        ("Cart", "Ledger"),
        ("Cart.total", "Store"),
        ("Cart.total", "s.put"),
        ("Cart.total", "this.save"),
        ("Cart.total", "super.run"),  # (`"%d".format`: a literal's method is no call of ours)
        ("Cart.empty", "Cart"),
    ]
    assert [(h.parent, h.kind) for h in parsed.inherits] == [("Entity", INH), ("Priced", InheritKind.IMPLEMENTS)]
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert {("Cart", "store", "Store"), ("Cart", "ledger", "Ledger"), ("Cart.total", "", "Receipt")} <= types


# ----------------------------------------------------------------------------- Scala


SCALA_SOURCE = """package shop.model

import shop.util.Money
import shop.util._
import shop.x.{A, B => C}

class Cart(store: Store) extends Entity with Priced {
  private val ledger = new Ledger()
  def total(x: Int): Receipt = {
    val s = new Store()
    s.put(x)
    this.save()
    Money.format(x)
    Cart.empty(store)
  }
  def total(x: Int, y: Int) = x + y
}

object Cart { def empty(s: Store): Cart = new Cart(s) }
"""


def test_scala_symbols_calls_imports() -> None:
    parsed = parse("Cart.scala", SCALA_SOURCE)
    assert parsed.package == "shop.model"
    assert symbols(parsed) == [
        ("Cart", C),
        ("Cart.total", M),
        ("Cart.total~2", M),
        ("Cart", MOD),  # the companion object
        ("Cart.empty", F),
    ]
    assert [(i.module, i.names, i.alias) for i in parsed.imports] == [
        ("shop.util", ("Money",), None),
        ("shop.util", ("*",), None),
        ("shop.x", ("A",), None),
        ("shop.x", ("B",), "C"),
    ]
    assert calls(parsed) == [
        ("Cart", "Ledger"),
        ("Cart.total", "Store"),
        ("Cart.total", "s.put"),
        ("Cart.total", "this.save"),
        ("Cart.total", "Money.format"),
        ("Cart.total", "Cart.empty"),
        ("Cart.empty", "Cart"),
    ]
    assert [h.parent for h in parsed.inherits] == ["Entity", "Priced"]
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert {("Cart", "store", "Store"), ("Cart.total", "s", "Store"), ("Cart.empty", "", "Cart")} <= types


# ----------------------------------------------------------------------------- Swift


SWIFT_SOURCE = """import Foundation
import ShopCore

protocol Priced { func price() -> Int }

class Cart: Entity, Priced {
    let store: Store
    init(store: Store) { self.store = store }
    func add(_ item: Item) { store.save(self); let s = Ledger(); s.put(1); self.log(); helper(1) }
    func add(name: String, cents: Int) { add(Item(name: name, cents: cents)) }
}

extension Cart: CustomStringConvertible {
    func total() -> Receipt { price() }
}
"""


def test_swift_symbols_calls_imports() -> None:
    parsed = parse("Cart.swift", SWIFT_SOURCE)
    assert symbols(parsed) == [
        ("Priced", SymbolKind.INTERFACE),  # a protocol
        ("Priced.price", M),
        ("Cart", C),
        ("Cart.init", M),
        ("Cart.add", M),
        ("Cart.add~2", M),  # an overload: `~<arity>`
        ("Cart.total", M),  # the extension's method is Cart's
    ]
    assert parsed.arities == (("Cart.add", 1), ("Cart.add~2", 2))  # (from the overload tags)
    assert [i.module for i in parsed.imports] == ["Foundation", "ShopCore"]
    assert calls(parsed) == [
        ("Cart.add", "store.save"),
        ("Cart.add", "Ledger"),
        ("Cart.add", "s.put"),
        ("Cart.add", "self.log"),
        ("Cart.add", "helper"),
        ("Cart.add~2", "add"),
        ("Cart.add~2", "Item"),
        ("Cart.total", "price"),
    ]
    assert [(h.child, h.parent, h.kind) for h in parsed.inherits] == [
        ("Cart", "Entity", INH),
        ("Cart", "Priced", INH),
        ("Cart", "CustomStringConvertible", InheritKind.IMPLEMENTS),  # the extension's conformance
    ]
    types = {(t.scope, t.name, t.type) for t in parsed.types}
    assert {("Cart", "store", "Store"), ("Cart.add", "s", "Ledger"), ("Cart.total", "", "Receipt")} <= types
