"""The canonical text of a type annotation (pure): equivalent spellings read alike.

A language's fingerprint rules (``[annotations]`` in ``fingerprints/<language>.toml``) say
which spellings are one: module prefixes that do not matter (``typing.List``, ``t.List``
and ``List``), deprecated aliases of builtins (``List`` is ``list``), the optional and
union forms (``Optional[X]`` and ``Union[X, None]`` are ``X | None``), subscripts whose
argument values are not types (``Literal["a"]`` keeps its string), and default trailing
arguments (``Generator[int, None, None]`` is ``Generator[int]``). A quoted annotation
(``"Foo"``, ``List["Foo"]``) is read as the expression it quotes.

``canonical(text, rules)`` parses the annotation's source text with a small expression
reader (names, subscripts, ``|``, strings, numbers, lists, ``...``) and prints the
canonical form without whitespace; text it cannot read is returned with its whitespace
removed (compared as written).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = ["AnnotationRules", "canonical", "rules_from_table"]


@dataclass(frozen=True, slots=True)
class AnnotationRules:
    """One language's annotation equivalences (see the module docstring)."""

    #: module prefixes dropped from a dotted name (``typing`` -> ``typing.List`` is ``List``)
    modules: frozenset[str] = frozenset()
    #: a name (after the prefix is dropped) -> the name it means (``List`` -> ``list``)
    aliases: dict[str, str] = field(default_factory=dict)
    #: ``Optional[X]`` is ``X | None``
    optional: frozenset[str] = frozenset()
    #: ``Union[A, B]`` is ``A | B``
    union: frozenset[str] = frozenset()
    #: subscripts whose arguments after the first (``Annotated``) or all (``Literal``) are values
    values: frozenset[str] = frozenset()
    values_after_first: frozenset[str] = frozenset()
    #: ``Unpack[Ts]`` is ``*Ts``
    unpack: frozenset[str] = frozenset()
    #: trailing arguments a subscript may leave out (``Generator`` -> ``("None", "None")``)
    default_args: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the null type's name in a union
    none: str = "None"


def rules_from_table(table: dict[str, Any] | None) -> AnnotationRules | None:
    """A language's ``[annotations]`` table (its fingerprint rules file) as rules; None when
    the language has none."""
    if not table:
        return None
    return AnnotationRules(
        modules=frozenset(table.get("modules", [])),
        aliases={str(k): str(v) for k, v in table.get("aliases", {}).items()},
        optional=frozenset(table.get("optional", [])),
        union=frozenset(table.get("union", [])),
        values=frozenset(table.get("values", [])),
        values_after_first=frozenset(table.get("values_after_first", [])),
        unpack=frozenset(table.get("unpack", [])),
        default_args={str(k): tuple(map(str, v)) for k, v in table.get("default_args", {}).items()},
        none=str(table.get("none", "None")),
    )


# A name's first character: ``[A-Za-z_\u0080-\uffff]``, and the next ones: ``[\w\u0080-\uffff]``,
# written as negated ASCII classes: the same characters (a test checks every code point), but
# the range ``\u0080-\uffff`` took ~10 ms to compile at every start of the daemon and its workers.
_NAME_START: Final = r"[^\x00-@\[-^`{-\x7f\U00010000-\U0010ffff]"
_NAME_CONT: Final = r"(?:[^\x00-/:-@\[-^`{-\x7f\U00010000-\U0010ffff]|\w)"
_NAME: Final = _NAME_START + _NAME_CONT + "*"
_TOKEN: Final = re.compile(
    r"""\s*(?:
      (?P<str>[rRuUbB]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
    | (?P<num>-?\d[\w.]*)
    | (?P<name>"""
    + _NAME
    + r"""(?:\s*\.\s*"""
    + _NAME
    + r""")*)
    | (?P<punct>\.\.\.|[\[\](),|*])
    | (?P<comment>\#[^\n]*)
    )""",
    re.VERBOSE,
)

# a parsed annotation: ("name", text) | ("str", value) | ("lit", text) | ("sub", base, args)
# | ("union", items) | ("list", items) | ("star", item)
_Node = tuple[object, ...]


class _Unreadable(Exception):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise _Unreadable(text)
        pos = m.end()
        kind = m.lastgroup
        if kind is None or kind == "comment":
            continue
        value = m.group(kind)
        out.append((kind, re.sub(r"\s+", "", value) if kind == "name" else value))
    return out


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else ""

    def take(self, punct: str) -> bool:
        if self.pos < len(self.tokens) and self.tokens[self.pos] == ("punct", punct):
            self.pos += 1
            return True
        return False

    def union(self) -> _Node:
        items = [self.primary()]
        while self.take("|"):
            items.append(self.primary())
        return items[0] if len(items) == 1 else ("union", tuple(items))

    def items(self, close: str) -> tuple[_Node, ...]:
        out: list[_Node] = []
        while not self.take(close):
            out.append(self.union())
            if not self.take(","):
                if not self.take(close):
                    raise _Unreadable(close)
                break
        return tuple(out)

    def primary(self) -> _Node:
        if self.pos >= len(self.tokens):
            raise _Unreadable("end")
        kind, value = self.tokens[self.pos]
        self.pos += 1
        node: _Node
        if kind == "name":
            node = ("name", value)
        elif kind == "str":
            node = ("str", value)
        elif kind == "num" or value == "...":
            node = ("lit", value)
        elif value == "[":
            node = ("list", self.items("]"))
        elif value == "(":
            inner = self.items(")")
            node = inner[0] if len(inner) == 1 else ("list", inner)
        elif value == "*":
            node = ("star", self.primary())
        else:
            raise _Unreadable(value)
        while self.take("["):
            node = ("sub", node, self.items("]"))
        return node


def _parse(text: str) -> _Node:
    reader = _Reader(_tokens(text))
    node = reader.union()
    if reader.pos != len(reader.tokens):
        raise _Unreadable(text)
    return node


def _string_value(literal: str) -> str | None:
    try:
        value = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


class _Printer:
    def __init__(self, rules: AnnotationRules) -> None:
        self.rules = rules

    def name(self, text: str) -> str:
        rules = self.rules
        head, _, last = text.rpartition(".")
        if head and head in rules.modules:
            text = last
        return rules.aliases.get(text, text)

    def value(self, node: _Node) -> str:
        """An argument that is a value, not a type (``Literal["a"]``)."""
        if node[0] == "str":
            value = _string_value(str(node[1]))
            return repr(value) if value is not None else str(node[1])
        return self.type(node)

    def flat(self, node: _Node) -> list[str]:
        """The members of a union, nested unions and optionals flattened."""
        if node[0] == "union":
            return [m for item in node[1] for m in self.flat(item)]  # type: ignore[attr-defined]
        if node[0] == "sub":
            name = self.type(node[1])  # type: ignore[arg-type]
            args: tuple[_Node, ...] = node[2]  # type: ignore[assignment]
            if name in self.rules.union:
                return [m for a in args for m in self.flat(a)]
            if name in self.rules.optional and len(args) == 1:
                return [*self.flat(args[0]), self.rules.none]
        if node[0] == "str":  # a quoted member
            value = _string_value(str(node[1]))
            if value is not None:
                try:
                    return self.flat(_parse(value))
                except _Unreadable:
                    pass
        return [self.type(node)]

    def type(self, node: _Node) -> str:
        kind = node[0]
        if kind == "name":
            return self.name(str(node[1]))
        if kind == "lit":
            return str(node[1])
        if kind == "str":
            value = _string_value(str(node[1]))
            if value is None:
                return str(node[1])
            try:
                return self.type(_parse(value))
            except (_Unreadable, RecursionError):
                return repr(value)
        if kind == "list":
            return "[" + ",".join(self.type(i) for i in node[1]) + "]"  # type: ignore[attr-defined]
        if kind == "star":
            return "*" + self.type(node[1])  # type: ignore[arg-type]
        base: _Node = node[1]  # type: ignore[assignment]
        args: tuple[_Node, ...] = node[2] if kind == "sub" else ()  # type: ignore[assignment]
        name = self.type(base) if kind == "sub" else ""
        rules = self.rules
        if kind == "union" or name in rules.union or (name in rules.optional and len(args) == 1):
            return "|".join(dict.fromkeys(self.flat(node)))
        if name in rules.unpack and len(args) == 1:
            return "*" + self.type(args[0])
        if name in rules.values:
            printed = [self.value(a) for a in args]
        elif name in rules.values_after_first:
            printed = [self.type(a) for a in args[:1]] + [self.value(a) for a in args[1:]]
        else:
            printed = [self.type(a) for a in args]
        defaults = rules.default_args.get(name, ())
        # defaults[i] is the default of argument i + 1: trailing arguments equal to theirs go
        while 1 < len(printed) <= len(defaults) + 1 and printed[-1] == defaults[len(printed) - 2]:
            printed.pop()
        return name + "[" + ",".join(printed) + "]"


#: A plain (dotted) name: most annotations, canonical without the expression reader.
_PLAIN: Final = re.compile(r"[A-Za-z_][\w.]*")


def canonical(text: str, rules: AnnotationRules) -> str:
    """The canonical text of the annotation ``text`` (see the module docstring)."""
    if _PLAIN.fullmatch(text):
        return _Printer(rules).name(text)
    try:
        return _Printer(rules).type(_parse(text))
    except (_Unreadable, RecursionError):
        return re.sub(r"\s+", "", text)
