"""Equivalent forms fingerprint alike (issue 41): every rewrite of the fingerprint rules,
one by one, in both directions, and a near miss that changes behaviour still differs."""

from __future__ import annotations

import textwrap

import pytest
from graphmemd.graph.model import Language, annotations_only, sig_halves
from graphmemd.ingest.parsing import parse_source
from graphmemd.ingest.parsing.fingerprint import _word_roots, load_rules


def _wrap(body: str) -> str:
    """``body`` as a method of class ``C`` of a module (``self`` its first parameter)."""
    return "class C(Base):\n    def m(self, a, b, x, f):\n" + textwrap.indent(textwrap.dedent(body), " " * 8) + "\n"


def hashes(source: str, qualname: str = "C.m", path: str = "mod.py") -> tuple[str, str]:
    parsed = parse_source(path, source.encode())
    assert parsed.syntax_errors == 0, source
    found = next(s for s in parsed.symbols if s.qualname == qualname)
    return found.sig_hash, found.body_hash


#: a line that names typing: a bare deprecated alias (`Dict`) means typing's only in such a module
_TYPING = "from typing import Dict, FrozenSet, Set, Tuple\n"

# (rule, before, after): the body of C.m before and after ruff's fix
BODIES = [
    ("UP024", "raise IOError('x')", "raise OSError('x')"),
    ("UP024", "raise EnvironmentError", "raise OSError"),
    ("UP024", "raise socket.error()", "raise OSError()"),
    ("UP024", "try:\n    pass\nexcept (IOError, OSError):\n    pass", "try:\n    pass\nexcept OSError:\n    pass"),
    (
        "UP024",
        "try:\n    pass\nexcept (OSError, select.error, ValueError) as e:\n    pass",
        "try:\n    pass\nexcept (OSError, ValueError) as e:\n    pass",
    ),
    (
        "UP041",
        "try:\n    pass\nexcept asyncio.TimeoutError:\n    pass",
        "try:\n    pass\nexcept TimeoutError:\n    pass",
    ),
    ("UP041", "try:\n    pass\nexcept socket.timeout:\n    pass", "try:\n    pass\nexcept TimeoutError:\n    pass"),
    ("UP008", "return super(C, self).m(a)", "return super().m(a)"),
    ("UP032", "return '{} and {}'.format(a, b)", "return f'{a} and {b}'"),
    ("UP032", "return '{x!r:>10} {y}'.format(x=a, y=b.c)", "return f'{a!r:>10} {b.c}'"),
    ("UP032", "return '{0.real} {1}'.format(a, b + 1)", "return f'{a.real} {b + 1}'"),
    ("UP032", "return ('{}' '-{}').format(a, b)", "return f'{a}-{b}'"),
    ("UP032", "return '{{}} {}'.format(a)", "return f'{{}} {a}'"),
    # an argument the string does not use, read without an effect: ruff drops it
    ("UP032", "return 'Not valid.'.format(a)", "return 'Not valid.'"),
    ("UP032", "return '{} {}'.format(a, b, x.y, key=1)", "return f'{a} {b}'"),
    # the callee's last name after a line continuation or a comment (tried at this call)
    ("UP032", "return '{} and {}'. \\\n    format(a, b)", "return f'{a} and {b}'"),
    ("UP032", "return ('{}'.  # why\n    format(a))", "return f'{a}'"),
    ("UP018", "return f(str('x'))", "return f('x')"),
    ("UP018", "return (str('x'), int(1))", "return ('x', 1)"),
    ("UP030", "return '{0} {1}'.format(a, b)", "return '{} {}'.format(a, b)"),
    ("UP025", "return u'text'", "return 'text'"),
    ("UP015", "return open(f, 'r')", "return open(f)"),
    ("UP015", "return open(f, 'rt', encoding='utf-8')", "return open(f, encoding='utf-8')"),
    ("UP015", "return open(f, mode='r')", "return open(f)"),
    ("UP015", "return x.open('r')", "return x.open()"),
    ("UP020", "return io.open(f)", "return open(f)"),
    ("UP012", "return a.encode('utf-8')", "return a.encode()"),
    ("UP012", "return a.encode(encoding='utf-8')", "return a.encode()"),
    ("UP012", "return 'abc'.encode('utf-8')", "return b'abc'"),
    ("UP012", "return 'abc'.encode()", "return b'abc'"),
    ("UP018", "return str('x')", "return 'x'"),
    ("UP018", "return str()", "return ''"),
    ("UP018", "return bytes()", "return b''"),
    ("UP018", "return int(1)", "return 1"),
    ("UP018", "return int()", "return 0"),
    ("UP018", "return float()", "return 0.0"),
    ("UP018", "return float(1.5)", "return 1.5"),
    ("UP018", "return bool()", "return False"),
    ("UP018", "return bool(True)", "return True"),
    ("UP018", "return bytes(b'x')", "return b'x'"),
    ("UP003", "return type('')", "return str"),
    ("UP003", "return type(0)", "return int"),
    ("UP034", "print((a))", "print(a)"),
    ("UP005", "self.assertEquals(a, b)", "self.assertEqual(a, b)"),
    ("UP005", "self.failUnless(a)", "self.assertTrue(a)"),
    ("UP005", "self.assertRaisesRegexp(E, 'x')", "self.assertRaisesRegex(E, 'x')"),
    ("UP017", "return datetime.timezone.utc", "return datetime.UTC"),
    ("UP021", "return subprocess.run(a, universal_newlines=True)", "return subprocess.run(a, text=True)"),
    ("UP023", "return cElementTree.parse(f)", "return ElementTree.parse(f)"),
    ("UP006", "y: List[int] = []\nreturn y", "y: list[int] = []\nreturn y"),
    ("UP045", "y: Optional[int] = None\nreturn y", "y: int | None = None\nreturn y"),
    ("UP037", "y: 'Foo' = a\nreturn y", "y: Foo = a\nreturn y"),
    ("UP006", "assert typing.List[int] is a", "assert list[int] is a"),
    # annotated assignments to a subscript, an attribute and a name (the rule's own pattern, and
    # the extraction's captures it shares)
    ("UP006", "a[0]: List[int] = x\nreturn a", "a[0]: list[int] = x\nreturn a"),
    ("UP006", "self.y: Dict[str, int] = {}\nreturn a", "self.y: dict[str, int] = {}\nreturn a"),
    ("UP045", "y: Optional[int]\nreturn a", "y: int | None\nreturn a"),
    ("UP006", "return f(x=t.Dict[str, int], y=Tuple[int, ...])", "return f(x=dict[str, int], y=tuple[int, ...])"),
    # a deprecated alias written bare outside an annotation (ruff's safe fix, py39+)
    # (in a module that names typing: `_TYPING`)
    ("UP006", "return typing.cast(typing.Dict, a)", "return typing.cast(dict, a)"),
    ("UP006", f"{_TYPING}return cast(Dict, a)", f"{_TYPING}return cast(dict, a)"),
    ("UP006", "return isinstance(a, typing.List)", "return isinstance(a, list)"),
    ("UP006", f"{_TYPING}T = TypeVar('T', bound=Dict)\nreturn T", f"{_TYPING}T = TypeVar('T', bound=dict)\nreturn T"),
    ("UP006", f"{_TYPING}return (FrozenSet, t.Type, Set, Tuple)", f"{_TYPING}return (frozenset, type, set, tuple)"),
    ("UP006", "return typing.Deque, DefaultDict", "return deque, defaultdict"),
    ("UP019", "return isinstance(a, typing.Text)", "return isinstance(a, str)"),
    ("UP006", "return cast(typing.Dict[str, typing.List], a)", "return cast(dict[str, list], a)"),
    ("UP006", "y: typing.Dict[str, typing.List] = {}\nreturn y", "y: dict[str, list] = {}\nreturn y"),
]

# (rule, before, after): the whole class/function definition (qualname "C" or "C.m")
DEFINITIONS = [
    ("UP004", "class C(object):\n    x = 1\n", "class C:\n    x = 1\n", "C"),
    ("UP004", "class C(Base, object):\n    x = 1\n", "class C(Base):\n    x = 1\n", "C"),
    ("UP039", "class C():\n    x = 1\n", "class C:\n    x = 1\n", "C"),
    ("UP050", "class C(metaclass=type):\n    x = 1\n", "class C:\n    x = 1\n", "C"),
    ("UP050", "class C(Base, metaclass=type):\n    x = 1\n", "class C(Base):\n    x = 1\n", "C"),
    ("UP001", "class C:\n    __metaclass__ = type\n    x = 1\n", "class C:\n    x = 1\n", "C"),
    (
        "UP011",
        "class C:\n    @lru_cache()\n    def m(self):\n        pass\n",
        "class C:\n    @lru_cache\n    def m(self):\n        pass\n",
        "C.m",
    ),
    (
        "UP011",
        "class C:\n    @functools.lru_cache()\n    def m(self):\n        pass\n",
        "class C:\n    @functools.lru_cache\n    def m(self):\n        pass\n",
        "C.m",
    ),
    (
        "UP033",
        "class C:\n    @lru_cache(maxsize=None)\n    def m(self):\n        pass\n",
        "class C:\n    @cache\n    def m(self):\n        pass\n",
        "C.m",
    ),
    (
        "UP033",
        "class C:\n    @functools.lru_cache(maxsize=None)\n    def m(self):\n        pass\n",
        "class C:\n    @functools.cache\n    def m(self):\n        pass\n",
        "C.m",
    ),
]

# (rule, before, after): a function's signature (def f...: pass)
SIGNATURES = [
    (
        "UP006",
        "def f(a: List[int]) -> Dict[str, Tuple[int, ...]]:",
        "def f(a: list[int]) -> dict[str, tuple[int, ...]]:",
    ),
    ("UP006", "def f(a: typing.List[int]):", "def f(a: list[int]):"),
    ("UP006", "def f(a: t.Type[Foo]):", "def f(a: type[Foo]):"),
    ("UP006", "def f(a: Deque[int]):", "def f(a: collections.deque[int]):"),
    ("UP035", "def f(a: typing.Callable[[int], str]):", "def f(a: collections.abc.Callable[[int], str]):"),
    ("UP007", "def f(a: Union[int, str]):", "def f(a: int | str):"),
    ("UP045", "def f(a: Optional[int] = None):", "def f(a: int | None = None):"),
    ("UP045", "def f(a: t.Optional[t.List[str]] = None):", "def f(a: list[str] | None = None):"),
    ("UP007", "def f(a: Union[int, None]):", "def f(a: int | None):"),
    ("UP007", "def f(a: Optional[Union[int, str]]):", "def f(a: int | str | None):"),
    ("UP019", "def f(a: Text) -> typing.Text:", "def f(a: str) -> str:"),
    ("UP037", "def f(a: 'Foo') -> 'List[Foo]':", "def f(a: Foo) -> list[Foo]:"),
    ("UP037", "def f(a: List['Foo']):", "def f(a: list[Foo]):"),
    ("UP043", "def f() -> Generator[int, None, None]:", "def f() -> Generator[int]:"),
    ("UP043", "def f() -> AsyncGenerator[int, None]:", "def f() -> AsyncGenerator[int]:"),
    ("UP044", "def f(*args: Unpack[Ts]):", "def f(*args: *Ts):"),
    ("UP006", "def f(*args: List[int], **kw: Optional[int]):", "def f(*args: list[int], **kw: int | None):"),
    (
        "UP006",
        "def f(a: List[int] = x, *, b: Dict[str, int]) -> Tuple[int]:",
        "def f(a: list[int] = x, *, b: dict[str, int]) -> tuple[int]:",
    ),
    ("annotations", "def f(a: Literal['x', \"y\"]):", "def f(a: Literal[\"x\", 'y']):"),
    ("annotations", "def f(a: 'Optional[int]' = None):", "def f(a: int | None = None):"),
]

# (what, one, other, qualname): forms that do NOT mean the same: they must differ
NEAR_MISSES = [
    ("super of another class", _wrap("return super(Other, self).m(a)"), _wrap("return super().m(a)"), "C.m"),
    ("super with another instance", _wrap("return super(C, a).m(a)"), _wrap("return super().m(a)"), "C.m"),
    ("open for writing", _wrap("return open(f, 'w')"), _wrap("return open(f)"), "C.m"),
    ("open binary", _wrap("return open(f, 'rb')"), _wrap("return open(f)"), "C.m"),
    ("another encoding", _wrap("return a.encode('latin-1')"), _wrap("return a.encode()"), "C.m"),
    ("non-ascii literal encoded", _wrap("return 'é'.encode()"), _wrap("return b'\\xc3\\xa9'"), "C.m"),
    ("str of bytes", _wrap("return str(b'x')"), _wrap("return b'x'"), "C.m"),
    ("format with an unused call", _wrap("return '{}'.format(a, b())"), _wrap("return f'{a}'"), "C.m"),
    ("format with an unused subscript", _wrap("return 'x'.format(a[0])"), _wrap("return 'x'"), "C.m"),
    ("format of another argument", _wrap("return '{1}'.format(a, b)"), _wrap("return f'{a}'"), "C.m"),
    ("format with another spec", _wrap("return '{:>3}'.format(a)"), _wrap("return f'{a:>4}'"), "C.m"),
    ("another base", "class C(Base):\n    x = 1\n", "class C:\n    x = 1\n", "C"),
    ("a real metaclass", "class C(metaclass=Meta):\n    x = 1\n", "class C:\n    x = 1\n", "C"),
    ("lru_cache with a size", "@lru_cache(maxsize=10)\ndef f():\n    pass\n", "@cache\ndef f():\n    pass\n", "f"),
    ("another exception", _wrap("raise ValueError"), _wrap("raise OSError"), "C.m"),
    (
        "a smaller except tuple",
        _wrap("try:\n    pass\nexcept (OSError, ValueError):\n    pass"),
        _wrap("try:\n    pass\nexcept OSError:\n    pass"),
        "C.m",
    ),
    ("int of a float", _wrap("return int(1.5)"), _wrap("return 1.5"), "C.m"),
]

# annotations that say something else: the structure half is equal, the other differs
ANNOTATION_CHANGES = [
    ("def f(a: int):", "def f(a: str):"),
    ("def f(a):", "def f(a: int):"),
    ("def f(a) -> int:", "def f(a):"),
    ("def f(a: Optional[int] = None):", "def f(a: int = None):"),
    ("def f(a: List[int]):", "def f(a: List[str]):"),
    ("def f(a: Literal['x']):", "def f(a: Literal['y']):"),
]


@pytest.mark.parametrize(("rule", "before", "after"), BODIES, ids=[f"{r[0]}:{r[1]}" for r in BODIES])
def test_body_rewrites_fingerprint_alike_both_ways(rule: str, before: str, after: str) -> None:
    old, new = hashes(_wrap(before)), hashes(_wrap(after))
    assert old == new, rule
    assert hashes(_wrap(after)) == hashes(_wrap(before)), rule


@pytest.mark.parametrize(("rule", "before", "after", "qualname"), DEFINITIONS, ids=[r[0] for r in DEFINITIONS])
def test_definition_rewrites_fingerprint_alike_both_ways(rule: str, before: str, after: str, qualname: str) -> None:
    assert hashes(before, qualname) == hashes(after, qualname), rule
    assert hashes(after, qualname) == hashes(before, qualname), rule


@pytest.mark.parametrize(("rule", "before", "after"), SIGNATURES, ids=[f"{r[0]}:{r[1]}" for r in SIGNATURES])
def test_annotation_spellings_fingerprint_alike_both_ways(rule: str, before: str, after: str) -> None:
    old, new = hashes(before + "\n    pass\n", "f"), hashes(after + "\n    pass\n", "f")
    assert old == new, rule
    assert hashes(after + "\n    pass\n", "f") == hashes(before + "\n    pass\n", "f")


@pytest.mark.parametrize(("what", "one", "other", "qualname"), NEAR_MISSES, ids=[r[0] for r in NEAR_MISSES])
def test_near_misses_still_differ(what: str, one: str, other: str, qualname: str) -> None:
    assert hashes(one, qualname) != hashes(other, qualname), what


@pytest.mark.parametrize(("before", "after"), ANNOTATION_CHANGES)
def test_an_annotation_change_keeps_the_structure_half(before: str, after: str) -> None:
    old, new = hashes(before + "\n    pass\n", "f")[0], hashes(after + "\n    pass\n", "f")[0]
    assert old != new
    assert sig_halves(old)[0] == sig_halves(new)[0]
    assert annotations_only(old, new)


def test_a_parameter_change_is_not_an_annotation_change() -> None:
    old = hashes("def f(a: int):\n    pass\n", "f")[0]
    for other in ("def f(b: int):", "def f(a: int, b: int):", "def f(a: int = 1):", "def g(a: int):"):
        new = hashes(other + "\n    pass\n", other[4])[0]
        assert not annotations_only(old, new), other


def test_a_body_annotation_is_part_of_the_body() -> None:
    """A dataclass field's type is behaviour: in a body, annotations are code."""
    one = hashes("class C:\n    x: int = 1\n", "C")
    other = hashes("class C:\n    x: str = 1\n", "C")
    assert one[1] != other[1]


_ALIASES = sorted((load_rules(Language.PYTHON).aliases or {}).items())


@pytest.mark.parametrize(("alias", "meant"), _ALIASES, ids=[a.decode() for a, _m in _ALIASES])
def test_every_alias_is_found_in_code_only(alias: bytes, meant: bytes) -> None:
    """Each ``[aliases]`` name, found by its shared scan (``textscan``), means its name in
    code, twice in one line and beside another alias; in a string or as part of a longer
    name it does not."""
    one, other = alias.decode(), meant.decode()
    typed = "import typing\n"  # (some apply only in a module that names typing: [aliases_where])
    both = hashes(typed + _wrap(f"return f({one}, {one}) or IOError"))
    assert both == hashes(typed + _wrap(f"return f({other}, {other}) or OSError"))
    assert hashes(typed + _wrap(f"return '{one}'")) != hashes(typed + _wrap(f"return '{other}'"))
    assert hashes(typed + _wrap(f"return x{one}_")) != hashes(typed + _wrap(f"return x{other}_"))
    assert hashes(typed + _wrap(f"return {one}Error")) != hashes(typed + _wrap(f"return {other}Error"))


def test_a_bare_typing_name_is_typing_s_only_where_typing_is_named() -> None:
    """``Set``, ``Tuple``, ``Type`` written bare mean typing's deprecated aliases only in a
    module that names typing (sympy's ``Tuple`` is not ``tuple``); a dotted ``typing.Dict``
    always does."""
    assert hashes(_wrap("return Tuple(a), Set(b)")) != hashes(_wrap("return tuple(a), set(b)"))
    with_typing = "from typing import Set, Tuple\n" + _wrap("return Tuple(a), Set(b)")
    assert hashes(with_typing) == hashes("from typing import Set, Tuple\n" + _wrap("return tuple(a), set(b)"))


_TWO_CLASSES = (
    'class A(metaclass=type):\n    """no metaclass"""\n\nclass B(Base, metaclass=type):  # metaclass\n    x = 1\n'
)
_TWO_CLASSES_AFTER = 'class A:\n    """no metaclass"""\n\nclass B(Base):  # metaclass\n    x = 1\n'


@pytest.mark.parametrize(
    ("before", "after", "qualname"),
    [
        # in a nested class, the innermost class around the word is the one tried
        (
            "class O:\n    class C:\n        __metaclass__ = type\n        x = 1\n",
            "class O:\n    class C:\n        x = 1\n",
            "O",
        ),
        # two classes of one file, the word also in a docstring and a comment
        (
            _TWO_CLASSES,
            _TWO_CLASSES_AFTER,
            "B",
        ),
        (
            _TWO_CLASSES,
            _TWO_CLASSES_AFTER,
            "A",
        ),
    ],
)
def test_rewrites_tried_around_their_words(before: str, after: str, qualname: str) -> None:
    """UP001/UP050 run only at the class around each ``metaclass`` written in the file
    (``words``): each class is still rewritten, wherever it is and however many there are."""
    assert hashes(before, qualname) == hashes(after, qualname)


def test_a_real_metaclass_attribute_still_differs() -> None:
    one = "class C:\n    __metaclass__ = Meta\n    x = 1\n"
    assert hashes(one, "C") != hashes("class C:\n    x = 1\n", "C")


def test_a_words_rewrite_names_its_root() -> None:
    with pytest.raises(ValueError, match="rooted at"):
        _word_roots({"words": ["metaclass"], "query": "(class_definition) @node"})
    with pytest.raises(ValueError, match="rooted at"):
        _word_roots({"words": ["metaclass"], "at": "call", "query": "(class_definition) @node"})
    assert _word_roots({"words": ["m"], "at": "class_definition", "query": "((class_definition) @node)"}) == {
        b"m": "class_definition"
    }


def test_format_of_a_parenthesised_string_is_one_form() -> None:
    """The formatter joins implicit concatenations inside parentheses: still one f-string."""
    one = "def f(self):\n    raise ValueError(('a {} b '\n        'c').format(self.name))\n"
    other = "def f(self):\n    raise ValueError(\n        ('a {} b c').format(self.name)\n    )\n"
    assert hashes(one, "f") == hashes(other, "f")


# ----------------------------------------------------------------------------- JavaScript / TypeScript

# (rule, before, after): the body of function f; eslint's dot-notation and object-shorthand
JS_BODIES = [
    ("dot-notation", 'return o["name"];', "return o.name;"),
    ("dot-notation", 'o["name"] = 1;', "o.name = 1;"),
    ("dot-notation", "return o['a']['b'];", "return o.a.b;"),
    ("object-shorthand", "return {a: a, b: 1};", "return {a, b: 1};"),
    ("object-shorthand", "const {a: a, b} = o; return a + b;", "const {a, b} = o; return a + b;"),
]
JS_NEAR_MISSES = [
    ("not an identifier", 'return o["a-b"];', "return o.ab;"),
    ("a computed key", "return o[name];", "return o.name;"),
    ("another value", "return {a: b};", "return {a};"),
    ("optional chain kept apart", 'return o?.["a"];', "return o.a;"),
]


@pytest.mark.parametrize("path", ["m.js", "m.ts"])
@pytest.mark.parametrize(("rule", "before", "after"), JS_BODIES, ids=[f"{r[0]}:{r[1]}" for r in JS_BODIES])
def test_js_rewrites_fingerprint_alike_both_ways(path: str, rule: str, before: str, after: str) -> None:
    one = hashes(f"function f(o, a, b) {{ {before} }}\n", "f", path)
    other = hashes(f"function f(o, a, b) {{ {after} }}\n", "f", path)
    assert one == other, rule


@pytest.mark.parametrize("path", ["m.js", "m.ts"])
@pytest.mark.parametrize(("what", "one", "other"), JS_NEAR_MISSES, ids=[r[0] for r in JS_NEAR_MISSES])
def test_js_near_misses_still_differ(path: str, what: str, one: str, other: str) -> None:
    a = hashes(f"function f(o, a, b, name) {{ {one} }}\n", "f", path)
    b = hashes(f"function f(o, a, b, name) {{ {other} }}\n", "f", path)
    assert a != b, what
