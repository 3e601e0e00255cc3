"""Fast construction of the frozen records the extractor builds by the ten thousand.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (and
keyword arguments cost as much again): ~1 µs per ``CallRef``, a few per cent of a whole
parse. These builders allocate the same classes with ``object.__new__`` and set the slots
through their member descriptors (what ``object.__setattr__`` does underneath, without the
lookups). The results are ordinary instances: equal, hashable and picklable exactly like
ones built by the constructor; none of the classes has a ``__post_init__``.

The field order is checked against the model when this module is imported, so a change
to one of the classes fails loudly here instead of building wrong records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from graphmemd.graph.model import CallRef, InheritKind, InheritRef, ParsedSymbol, SymbolKind, TypeRef
from graphmemd.ingest.parsing.fingerprint import DefSpan

__all__ = ["call_ref", "def_span", "inherit_ref", "parsed_symbol", "type_ref"]

_Setter = Callable[[Any, Any], None]


def _setters(cls: type, names: tuple[str, ...]) -> tuple[_Setter, ...]:
    """The slot setters of ``cls``'s fields, which must be exactly ``names`` in order."""
    found = tuple(f.name for f in fields(cls))
    if found != names or "__post_init__" in vars(cls):
        raise TypeError(f"records.py is out of date with {cls.__name__}: fields {found}")
    return tuple(vars(cls)[name].__set__ for name in names)


_new = object.__new__

_c0, _c1, _c2, _c3, _c4, _c5 = _setters(CallRef, ("caller", "callee", "name", "line", "args", "shape"))


def call_ref(caller: str, callee: str, name: str, line: int, args: int, shape: str) -> CallRef:
    """``CallRef(caller, callee, name, line, args, shape)``."""
    ref: CallRef = _new(CallRef)
    _c0(ref, caller)
    _c1(ref, callee)
    _c2(ref, name)
    _c3(ref, line)
    _c4(ref, args)
    _c5(ref, shape)
    return ref


_t0, _t1, _t2, _t3, _t4, _t5 = _setters(TypeRef, ("scope", "name", "type", "from_call", "line", "attr"))


def type_ref(scope: str, name: str, type_: str, from_call: bool, line: int, attr: bool) -> TypeRef:
    """``TypeRef(scope, name, type_, from_call, line, attr)``."""
    ref: TypeRef = _new(TypeRef)
    _t0(ref, scope)
    _t1(ref, name)
    _t2(ref, type_)
    _t3(ref, from_call)
    _t4(ref, line)
    _t5(ref, attr)
    return ref


_i0, _i1, _i2, _i3 = _setters(InheritRef, ("child", "parent", "kind", "line"))


def inherit_ref(child: str, parent: str, kind: InheritKind, line: int) -> InheritRef:
    """``InheritRef(child, parent, kind, line)``."""
    ref: InheritRef = _new(InheritRef)
    _i0(ref, child)
    _i1(ref, parent)
    _i2(ref, kind)
    _i3(ref, line)
    return ref


_d0, _d1, _d2, _d3, _d4, _d5 = _setters(DefSpan, ("start", "end", "body_start", "body_end", "doc_start", "doc_end"))


def def_span(start: int, end: int, body_start: int, body_end: int, doc_start: int, doc_end: int) -> DefSpan:
    """``DefSpan(start, end, body_start, body_end, doc_start, doc_end)``."""
    span: DefSpan = _new(DefSpan)
    _d0(span, start)
    _d1(span, end)
    _d2(span, body_start)
    _d3(span, body_end)
    _d4(span, doc_start)
    _d5(span, doc_end)
    return span


_s = _setters(
    ParsedSymbol,
    (
        "name",
        "qualname",
        "kind",
        "parent",
        "start_line",
        "end_line",
        "start_byte",
        "end_byte",
        "signature",
        "sig_hash",
        "body_hash",
    ),
)
_s0, _s1, _s2, _s3, _s4, _s5, _s6, _s7, _s8, _s9, _s10 = _s


def parsed_symbol(
    name: str,
    qualname: str,
    kind: SymbolKind,
    parent: str | None,
    start_line: int,
    end_line: int,
    start_byte: int,
    end_byte: int,
    signature: str,
    sig_hash: str,
    body_hash: str,
) -> ParsedSymbol:
    """``ParsedSymbol(...)`` with the fields in declaration order."""
    symbol: ParsedSymbol = _new(ParsedSymbol)
    _s0(symbol, name)
    _s1(symbol, qualname)
    _s2(symbol, kind)
    _s3(symbol, parent)
    _s4(symbol, start_line)
    _s5(symbol, end_line)
    _s6(symbol, start_byte)
    _s7(symbol, end_byte)
    _s8(symbol, signature)
    _s9(symbol, sig_hash)
    _s10(symbol, body_hash)
    return symbol
