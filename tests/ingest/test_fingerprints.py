"""Fingerprints: signature/body hashes survive formatting, comments and moves, and change
exactly when a definition's head or body changes."""

from __future__ import annotations

import pytest
from graphmemd.graph.model import Language, ParsedSymbol, SymbolKind
from graphmemd.ingest.parsing import parse_source


def prints(path: str, source: str) -> dict[tuple[str, SymbolKind], tuple[str, str]]:
    parsed = parse_source(path, source.encode())
    assert parsed.syntax_errors == 0, source
    return {(s.qualname, s.kind): (s.sig_hash, s.body_hash) for s in parsed.symbols}


def symbol(path: str, source: str, qualname: str) -> ParsedSymbol:
    return next(s for s in parse_source(path, source.encode()).symbols if s.qualname == qualname)


def diff(
    old: dict[tuple[str, SymbolKind], tuple[str, str]], new: dict[tuple[str, SymbolKind], tuple[str, str]]
) -> dict[str, tuple[bool, bool]]:
    """qualname -> (sig changed, body changed) for the ids present in both."""
    assert old.keys() == new.keys()
    return {key[0]: (old[key][0] != new[key][0], old[key][1] != new[key][1]) for key in old if old[key] != new[key]}


# ----------------------------------------------------------------------------- Python

PY = '''"""Module docstring."""

import os


class Store:
    """A store."""

    def __init__(self, root: str) -> None:
        self.root = root

    def load(self, name: str, default: int = 0) -> int:
        # read the file
        path = os.path.join(self.root, name)
        if not os.path.exists(path):
            return default
        return int(open(path).read())


def helper(a, b):
    total = a + b
    return total * 2


def outer(x):
    def inner(y):
        return y + 1

    return inner(x)
'''

PY_REFORMATTED = '''"""Module docstring, edited."""
import os
class Store:
  """A store, with a reworded docstring."""
  def __init__(self,
               root: str) -> None:
    self.root = root  # remember it
  def load(self, name: str, default: int=0) -> int:
    path = os.path.join( self.root , name )
    # a new comment
    if not os.path.exists(path): return default
    return int(open(path).read())
def outer(x):
  def inner(y):
    return y+1
  return inner(x)
def helper(a, b):
  total = a+b
  return total*2
'''


def test_python_reformatting_comments_docstrings_and_moves_keep_hashes() -> None:
    before = prints("m.py", PY)
    after = prints("m.py", PY_REFORMATTED)
    assert set(before) == {
        ("Store", SymbolKind.CLASS),
        ("Store.__init__", SymbolKind.METHOD),
        ("Store.load", SymbolKind.METHOD),
        ("helper", SymbolKind.FUNCTION),
        ("outer", SymbolKind.FUNCTION),
        ("outer.inner", SymbolKind.FUNCTION),
    }
    assert before == after


def test_python_four_to_two_space_reindent() -> None:
    two = "\n".join(" " * ((len(line) - len(line.lstrip(" "))) // 2) + line.lstrip(" ") for line in PY.splitlines())
    assert prints("m.py", PY) == prints("m.py", two)


def test_python_parameter_change_changes_signature_only() -> None:
    changed = PY.replace("def helper(a, b):", "def helper(a, b, c=1):")
    assert diff(prints("m.py", PY), prints("m.py", changed)) == {"helper": (True, False)}
    assert symbol("m.py", changed, "helper").signature == "def helper(a,b,c=1):"


def test_python_body_change_changes_body_only() -> None:
    changed = PY.replace("return total * 2", "return total * 3")
    assert diff(prints("m.py", PY), prints("m.py", changed)) == {"helper": (False, True)}


def test_python_method_body_edit_changes_its_class_not_its_siblings() -> None:
    changed = PY.replace("return int(open(path).read())", "return int(open(path).read().strip())")
    # the class's body contains the method's code; Store.__init__ is untouched
    assert diff(prints("m.py", PY), prints("m.py", changed)) == {"Store.load": (False, True), "Store": (False, True)}


def test_python_method_signature_edit_changes_class_body() -> None:
    changed = PY.replace("default: int = 0", "default: int = 1")
    assert diff(prints("m.py", PY), prints("m.py", changed)) == {
        "Store.load": (True, False),
        "Store": (False, True),
    }


def test_python_adding_a_method_changes_class_body_only() -> None:
    changed = PY.replace("    def load(", "    def size(self) -> int:\n        return 0\n\n    def load(")
    before, after = prints("m.py", PY), prints("m.py", changed)
    assert set(after) - set(before) == {("Store.size", SymbolKind.METHOD)}
    del after[("Store.size", SymbolKind.METHOD)]
    assert diff(before, after) == {"Store": (False, True)}


def test_python_nested_function_edit() -> None:
    body = PY.replace("return y + 1", "return y + 2")
    # nested code counts: the closure and every enclosing function change
    assert diff(prints("m.py", PY), prints("m.py", body)) == {"outer.inner": (False, True), "outer": (False, True)}
    sig = PY.replace("def inner(y):", "def inner(y, z=0):")
    assert diff(prints("m.py", PY), prints("m.py", sig)) == {
        "outer.inner": (True, False),
        "outer": (False, True),
    }


def test_python_docstring_is_not_body() -> None:
    a = symbol("m.py", 'def f():\n    """One."""\n    return 1\n', "f")
    b = symbol("m.py", 'def f():\n    """Two, longer."""\n    return 1\n', "f")
    c = symbol("m.py", "def f():\n    return 1\n", "f")
    assert a.body_hash == b.body_hash == c.body_hash
    assert a.sig_hash == c.sig_hash


def test_python_decorator_is_part_of_signature() -> None:
    plain = symbol("m.py", "def f():\n    return 1\n", "f")
    decorated = symbol("m.py", "@cache\ndef f():\n    return 1\n", "f")
    assert plain.body_hash == decorated.body_hash
    assert plain.sig_hash != decorated.sig_hash
    assert decorated.signature == "@cache def f():"


# ----------------------------------------------------------------------------- JavaScript

JS = """import { log } from "./log.js";

export class Repo extends Base {
  constructor(db) {
    super();
    this.db = db;
  }

  find(id, opts = {}) {
    // look it up
    return this.db.get(id, opts);
  }
}

export function save(repo, item) {
  log("saving", item);
  return repo.db.put(item.id, item);
}

const double = (x) => x * 2;
"""

JS_REFORMATTED = """import {log} from "./log.js";
/* moved things around */
const double = (x)=>x*2;
export function save (repo, item)
{
  log("saving", item);   // trailing comment
  return repo.db.put(item.id,
                     item);
}
export class Repo extends Base
{
    constructor (db)
    {
        super();
        this.db = db;
    }
    find (id, opts = {})
    {
        return this.db.get(id, opts);
    }
}
"""


def test_javascript_reformatting_keeps_ids_and_hashes() -> None:
    before = prints("r.js", JS)
    assert set(before) == {
        ("Repo", SymbolKind.CLASS),
        ("Repo.constructor", SymbolKind.METHOD),
        ("Repo.find", SymbolKind.METHOD),
        ("save", SymbolKind.FUNCTION),
        ("double", SymbolKind.FUNCTION),
    }
    assert prints("r.js", JS_REFORMATTED) == before
    # optional semicolons and quote style are formatting too
    assert prints("r.js", JS.replace("super();", "super()").replace('"saving"', "'saving'")) == before
    assert prints("r.js", JS.replace('"saving"', '"saving "')) != before


def test_javascript_signature_and_body_changes() -> None:
    base = prints("r.js", JS)
    sig = JS.replace("find(id, opts = {})", "find(id, opts = {}, extra)")
    assert diff(base, prints("r.js", sig)) == {"Repo.find": (True, False), "Repo": (False, True)}
    body = JS.replace("return this.db.get(id, opts);", "return this.db.fetch(id, opts);")
    assert diff(base, prints("r.js", body)) == {"Repo.find": (False, True), "Repo": (False, True)}
    arrow = JS.replace("(x) => x * 2", "(x) => x * 3")
    assert diff(base, prints("r.js", arrow)) == {"double": (False, True)}
    added = JS.replace("  find(id", "  count() {\n    return 0;\n  }\n\n  find(id")
    after = prints("r.js", added)
    del after[("Repo.count", SymbolKind.METHOD)]
    assert diff(base, after) == {"Repo": (False, True)}


# ----------------------------------------------------------------------------- Go

GO = """package store

import "errors"

// Store keeps values.
type Store struct {
	items map[string]int
}

// Get returns a value.
func (s *Store) Get(key string) (int, error) {
	v, ok := s.items[key]
	if !ok {
		return 0, errors.New("missing")
	}
	return v, nil
}

func Sum(values ...int) int {
	total := 0
	for _, v := range values {
		total += v
	}
	return total
}
"""

GO_REFORMATTED = """package store
import "errors"
func Sum(values ...int) int {
    total := 0 // running total
    for _, v := range values { total += v }
    return total
}
/* Store keeps values,
   and the comment moved. */
type Store struct { items map[string]int }
func (s *Store) Get(key string) (int, error) {
    v, ok := s.items[key]
    if !ok { return 0, errors.New("missing") }
    return v, nil
}
"""


def test_go_reformatting_keeps_ids_and_hashes() -> None:
    before = prints("s.go", GO)
    assert set(before) == {
        ("Store", SymbolKind.STRUCT),
        ("Store.Get", SymbolKind.METHOD),
        ("Sum", SymbolKind.FUNCTION),
    }
    assert prints("s.go", GO_REFORMATTED) == before


def test_go_signature_and_body_changes() -> None:
    base = prints("s.go", GO)
    sig = GO.replace("func Sum(values ...int) int {", "func Sum(values ...int) int64 {")
    assert diff(base, prints("s.go", sig)) == {"Sum": (True, False)}
    body = GO.replace('errors.New("missing")', 'errors.New("not found")')
    assert diff(base, prints("s.go", body)) == {"Store.Get": (False, True)}
    field = GO.replace("items map[string]int", "items map[string]int64")
    assert diff(base, prints("s.go", field)) == {"Store": (False, True)}


# ----------------------------------------------------------------------------- Java and Rust

JAVA = """package p;

public class Repo {
    private final Db db;

    public Repo(Db db) { this.db = db; }

    /** Finds one. */
    public Item find(long id) {
        return db.get(id);
    }

    public Item find(String key) {
        return db.byKey(key);
    }
}
"""


def test_java_overloads_and_changes() -> None:
    base = prints("Repo.java", JAVA)
    assert set(base) == {
        ("Repo", SymbolKind.CLASS),
        ("Repo.Repo", SymbolKind.METHOD),
        ("Repo.find", SymbolKind.METHOD),
        ("Repo.find~1", SymbolKind.METHOD),
    }
    reformatted = JAVA.replace(
        "    public Item find(long id) {\n        return db.get(id);\n    }",
        "    // comment\n    public Item find(long id)\n    {\n      return db.get( id );\n    }",
    )
    assert prints("Repo.java", reformatted) == base
    body = JAVA.replace("return db.byKey(key);", "return db.byKey(key.trim());")
    assert diff(base, prints("Repo.java", body)) == {"Repo.find~1": (False, True), "Repo": (False, True)}


def test_rust_impl_method_changes() -> None:
    src = """struct P { x: i32 }

impl P {
    fn new(x: i32) -> Self { P { x } }
    fn get(&self) -> i32 { self.x }
}
"""
    base = prints("p.rs", src)
    assert set(base) == {("P", SymbolKind.STRUCT), ("P.new", SymbolKind.METHOD), ("P.get", SymbolKind.METHOD)}
    body = src.replace("{ self.x }", "{ self.x + 1 }")
    assert diff(base, prints("p.rs", body)) == {"P.get": (False, True)}
    reindented = "\n".join(line.strip() for line in src.splitlines())
    assert prints("p.rs", reindented) == base


def test_hash_format() -> None:
    for s in parse_source("m.py", PY.encode(), Language.PYTHON).symbols:
        assert len(s.sig_hash) in (16, 32)  # (two halves with annotations)
        assert len(s.body_hash) == 16
        int(s.sig_hash, 16)
        int(s.body_hash, 16)


# ----------------------------------------------------------------------------- what counts


def body(source: str, qualname: str = "f", path: str = "m.py") -> str:
    return symbol(path, source, qualname).body_hash


def sig(source: str, qualname: str = "f", path: str = "m.py") -> str:
    return symbol(path, source, qualname).sig_hash


def test_python_literal_spelling_is_not_a_change() -> None:
    same = [
        "def f():\n    return 'it', \"x\"\n",
        "def f():\n    return \"it\", 'x'\n",
        "def f():\n    return 'i' 't', '\\x78'\n",  # implicit concatenation, escape spelling
        "def f():\n    return (\n        'i'\n        't'\n    ), u'x'\n",  # grouping parentheses, u prefix
        "def f():\n    return ('it', 'x',)\n",  # tuple parentheses, trailing comma
        "def f():\n    return 'it', \\\n        'x'  # comment\n",  # line continuation
    ]
    assert len({body(s) for s in same}) == 1
    numbers = ["def f():\n    return 0XFF, 1E5, 1_000\n", "def f():\n    return 255, 1e5, 1000\n"]
    assert len({body(s) for s in numbers}) == 1
    raw = ["def f():\n    return r'\\d', '\\\\d'\n", "def f():\n    return R'\\d', \"\\\\d\"\n"]
    assert len({body(s) for s in raw}) == 1
    fstrings = ["def f(k):\n    return f'{k=}'\n", "def f(k):\n    return f'k={k!r}'\n"]
    assert len({body(s) for s in fstrings}) == 1
    elif_chain = [
        "def f(a):\n    if a:\n        return 1\n    elif a > 1:\n        return 2\n    else:\n        return 3\n",
        "def f(a):\n    if a:\n        return 1\n    else:\n"
        "        if a > 1:\n            return 2\n        else:\n            return 3\n",
    ]
    assert len({body(s) for s in elif_chain}) == 1


SENSITIVE = "def f(a, b=1):\n    s = 'a b'\n    if a:\n        g(a)\n        h(b)\n    return a + b * 2\n"


@pytest.mark.parametrize(
    "edit",
    [
        ("'a b'", "'a  b'"),  # a space inside a string
        ("'a b'", "'a\\tb'"),  # whitespace of another kind
        ("'a b'", "'a c'"),  # a character
        ("'a b'", "b'a b'"),  # bytes are not text
        ("b * 2", "b * 3"),  # a number
        ("b * 2", "b * 2.0"),  # an int is not a float
        ("a + b", "a - b"),  # an operator
        ("a + b * 2", "(a + b) * 2"),  # precedence
        ("        h(b)\n", "    h(b)\n"),  # a statement moved out of a block
        ("        g(a)\n        h(b)\n", "        h(b)\n        g(a)\n"),  # statement order
    ],
)
def test_python_body_changes_are_seen(edit: tuple[str, str]) -> None:
    changed = SENSITIVE.replace(*edit)
    assert changed != SENSITIVE
    assert body(changed) != body(SENSITIVE)
    assert sig(changed) == sig(SENSITIVE)


@pytest.mark.parametrize(
    "edit",
    [("b=1", "b=2"), ("b=1", "b='1'"), ("def f", "@cache\ndef f"), ("(a, b=1)", "(a, *, b=1)")],
)
def test_python_signature_changes_are_seen(edit: tuple[str, str]) -> None:
    changed = SENSITIVE.replace(*edit)
    assert sig(changed) != sig(SENSITIVE)


def test_redundant_parentheses_are_not_a_change() -> None:
    a = "def f(a, b, c):\n    return a * b + c, not a, (a and b) or c\n"
    b = "def f(a, b, c):\n    return (a * b) + (c), not (a), a and b or (c)\n"
    assert body(a) == body(b)


NESTED = """def outer(x):
    def middle(y):
        def inner(z):
            return z + 1
        f = lambda w: w * 2
        return inner(y) + f(y)
    return middle(x)


def sibling():
    return 0
"""


def test_change_inside_a_closure_changes_every_enclosing_function() -> None:
    before = prints("m.py", NESTED)
    after = prints("m.py", NESTED.replace("return z + 1", "return z + 2"))
    assert diff(before, after) == {
        "outer.middle.inner": (False, True),
        "outer.middle": (False, True),
        "outer": (False, True),
    }
    lam = prints("m.py", NESTED.replace("w * 2", "w * 3"))
    assert diff(before, lam) == {"outer.middle": (False, True), "outer": (False, True)}


def test_python_overload_stubs_leave_the_plain_name_to_the_implementation() -> None:
    src = """import typing
from typing import overload


class Conv:
    @typing.overload
    def to(self, x: int) -> int: ...
    @overload
    def to(self, x: str) -> str: ...
    def to(self, x):
        return x


@overload
def parse(x: int) -> int: ...
def parse(x):
    return x
"""
    before = prints("m.py", src)
    assert set(before) == {
        ("Conv", SymbolKind.CLASS),
        ("Conv.to~overload1", SymbolKind.METHOD),
        ("Conv.to~overload2", SymbolKind.METHOD),
        ("Conv.to", SymbolKind.METHOD),
        ("parse~overload1", SymbolKind.FUNCTION),
        ("parse", SymbolKind.FUNCTION),
    }
    impl = prints(
        "m.py", src.replace("    def to(self, x):\n        return x", "    def to(self, x):\n        return -x")
    )
    assert diff(before, impl) == {"Conv.to": (False, True), "Conv": (False, True)}
    stub = prints("m.py", src.replace("def parse(x: int) -> int", "def parse(x: float) -> int"))
    assert diff(before, stub) == {"parse~overload1": (True, False)}


def test_typescript_overload_signatures_are_not_symbols() -> None:
    src = "function f(a: string): string;\nfunction f(a: number): number;\nfunction f(a: any): any { return a; }\n"
    assert set(prints("o.ts", src)) == {("f", SymbolKind.FUNCTION)}


def test_javascript_spelling_is_not_a_change() -> None:
    a = "function f(x) {\n  const o = {'a': 1, b: [1, 2,]};\n  return new Foo, x => x * 0xFF, 'q'\n}\n"
    b = 'function f(x) {\n  const o = { a: 1, b: [1, 2] };\n  return new Foo(), (x) => x * 255, "q";\n}\n'
    assert body(a, path="a.js") == body(b, path="a.js")
    assert body(a.replace("'q'", "'q '"), path="a.js") != body(a, path="a.js")
    assert body(a.replace("x * 0xFF", "(x * 0xFF)"), path="a.js") == body(a, path="a.js")


def test_every_definition_gets_its_own_streams() -> None:
    # many definitions, adjacent and nested, decorators and docstrings at the boundaries
    src = "".join(
        f"@d{i}\nclass C{i}:\n    '''doc'''\n    def m(self):\n        '''doc'''\n        def n(): return {i}\n"
        f"        return n\n    x = lambda: {i}\n"
        for i in range(30)
    )
    parsed = parse_source("m.py", src.encode())
    hashes = {(s.qualname, s.body_hash) for s in parsed.symbols}
    assert len(parsed.symbols) == 90
    assert len({h for _q, h in hashes}) == 90  # every body differs (its number)
    single = parse_source("m.py", src.split("@d1\n")[0].encode())
    assert {(s.qualname, s.sig_hash, s.body_hash) for s in single.symbols} <= {
        (s.qualname, s.sig_hash, s.body_hash) for s in parsed.symbols
    }


def test_fallback_rendering_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the boundary markers of a file do not line up (a boundary inside a skipped range),
    each definition is rendered on its own: same hashes as the one-pass path."""
    from graphmemd.ingest.parsing import fingerprint as fp

    sources = {"m.py": PY + NESTED, "r.js": JS, "s.go": GO, "Repo.java": JAVA}
    normal = {path: prints(path, src) for path, src in sources.items()}
    original = fp.normalise
    calls: list[bytes] = []

    def misaligned(stream: bytes) -> bytes:
        calls.append(stream)
        out = original(stream)
        return out + fp._BOUNDARY if len(calls) == 1 else out  # an extra marker in the one-pass stream

    for path, src in sources.items():
        calls.clear()
        monkeypatch.setattr(fp, "normalise", misaligned)
        assert prints(path, src) == normal[path]
        monkeypatch.setattr(fp, "normalise", original)
        assert len(calls) > 1  # the fallback ran
