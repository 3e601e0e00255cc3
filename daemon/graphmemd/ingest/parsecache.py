"""The parse cache codec: a ``ParsedFile`` as a JSON text, and back. Pure, no I/O.

A restart reads every file's last parse back from the parse cache (``parse_pack.py``, with
the file's size and mtime at that parse) instead of parsing the tree again: only files whose size or mtime
changed are parsed. ``PARSER_VERSION`` is a hash of the extraction code and its data files
(``parsing/``) and of the model's field layout, so a daemon whose parser changed never
trusts a parse made by another: those files are parsed again (and their observations
re-anchored, not marked stale; see ``staleness.rebase``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
import sys
import typing
from enum import Enum
from pathlib import Path
from typing import Any

from graphmemd.graph.model import CallRef, ImportRef, InheritRef, ParsedFile, ParsedSymbol, TypeRef, from_columns

_NESTED: dict[str, type[Any]] = {
    "symbols": ParsedSymbol,
    "imports": ImportRef,
    "calls": CallRef,
    "inherits": InheritRef,
    "types": TypeRef,
}


def _tuples(value: Any) -> Any:
    """JSON lists back to (nested) tuples (``arities``: pairs; ``exports``: names or None)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _layout(cls: type[Any]) -> list[tuple[str, Any]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, hints[f.name]) for f in dataclasses.fields(cls)]


def _converter(hint: Any) -> Any:
    """How to turn a JSON value back into a field of type ``hint`` (None: as it is)."""
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    if typing.get_origin(hint) is tuple:
        return tuple
    if any(typing.get_origin(arg) is tuple for arg in typing.get_args(hint)):
        return tuple  # ``tuple[...] | None``
    return None


_FILE_LAYOUT = _layout(ParsedFile)
_CLASSES: tuple[type[Any], ...] = (ParsedFile, *_NESTED.values())


def _parser_version() -> str:
    h = hashlib.blake2b(digest_size=8)
    root = Path(__file__).resolve().parent / "parsing"
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in (".py", ".scm", ".json", ".toml"):
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    for cls in _CLASSES:
        h.update(repr(_layout(cls)).encode())
    return h.hexdigest()


PARSER_VERSION = _parser_version()


_GETTERS = {
    name: operator.attrgetter(*(f.name for f in dataclasses.fields(cls))) for name, cls in _NESTED.items()
}
_FILE_GETTER = operator.attrgetter(*(name for name, _ in _FILE_LAYOUT))


def encode(parsed: ParsedFile) -> str:
    """``parsed`` as compact JSON (the model's enums are ``str`` enums: JSON strings)."""
    row = list(_FILE_GETTER(parsed))
    for i, (name, _hint) in enumerate(_FILE_LAYOUT):
        getter = _GETTERS.get(name)
        if getter is not None:
            row[i] = list(map(getter, row[i]))
    return _ENCODER.encode(row)


#: ``json.dumps(row, separators=(",", ":"), ensure_ascii=False)``'s encoder, made once and
#: without the check for circular references (a row is lists of lists of plain values: it
#: has none), which cost a dictionary insert and delete per record: the same text.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


#: String fields whose values repeat across a repository's parses (the caller of every call of
#: a function, callee texts, scopes, type and module names): decoded values are interned, so
#: the resolver holds each once (~45 % of the strings of a decoded stdlib parse repeat).
_REPEATING = frozenset({"caller", "callee", "name", "scope", "type", "parent", "child", "module", "qualname"})


def _fixups(cls: type[Any]) -> tuple[list[tuple[int, dict[Any, Any]]], list[int], list[int]]:
    """(positions of enum fields with their value->member maps, None kept as None; positions
    of tuple fields; positions of ``_REPEATING`` string fields)."""
    enums: list[tuple[int, dict[Any, Any]]] = []
    tuples: list[int] = []
    interned: list[int] = []
    for i, (name, hint) in enumerate(_layout(cls)):
        conv = _converter(hint)
        if conv is tuple:
            tuples.append(i)
        elif conv is not None:
            enums.append((i, {**conv._value2member_map_, None: None}))
        elif cls is not ParsedFile and name in _REPEATING and str in (hint, *typing.get_args(hint)):
            interned.append(i)
    return enums, tuples, interned


_FIXUPS = {cls: _fixups(cls) for cls in _CLASSES}
_WIDTH = {cls: len(dataclasses.fields(cls)) for cls in _CLASSES}


def _build_all(cls: type[Any], items: list[Any]) -> tuple[Any, ...]:
    """An instance of ``cls`` from each of ``items`` (JSON arrays of its fields): enum values
    to members, lists to tuples, repeating strings interned, column by column (one pass per
    conversion), and the objects built by ``model.from_columns`` (decoding the stdlib's 734
    parses: 0.188 s against 0.229 s one object at a time)."""
    if not items:
        return ()
    if set(map(type, items)) != {list} or set(map(len, items)) != {_WIDTH[cls]}:
        raise ValueError(f"not encoded {cls.__name__}s")
    columns: list[Any] = list(zip(*items, strict=True))
    enums, tuples, interned = _FIXUPS[cls]
    for i, members in enums:
        columns[i] = list(map(members.__getitem__, columns[i]))
    for i in tuples:
        columns[i] = list(map(_tuples, columns[i]))
    intern = sys.intern
    for i in interned:
        try:
            columns[i] = list(map(intern, columns[i]))
        except TypeError:  # (a None or another non-string among them: kept as it is)
            columns[i] = [intern(v) if v.__class__ is str else v for v in columns[i]]
    return tuple(from_columns(cls, columns))


def decode(text: str, *, outline: bool = False) -> ParsedFile:
    """The ``ParsedFile`` encoded in ``text``; ValueError when it is not one.

    ``outline``: only its symbols (imports, calls, inheritance and types left empty), which is
    all the graph needs: a warm restart builds the graph from outlines and hands the full
    parses to the resolver later (~70 % of a decode is building those references)."""
    try:
        row = json.loads(text)
        if not isinstance(row, list) or len(row) != len(_FILE_LAYOUT):
            raise ValueError("not an encoded ParsedFile")
        values: list[Any] = []
        for (name, _hint), value in zip(_FILE_LAYOUT, row, strict=True):
            nested = _NESTED.get(name)
            if nested is None:
                values.append(value)
            elif outline and nested is not ParsedSymbol:
                values.append(())
            else:
                values.append(_build_all(nested, value))
        return typing.cast(ParsedFile, _build_all(ParsedFile, [values])[0])
    except (TypeError, KeyError, IndexError, json.JSONDecodeError) as exc:
        raise ValueError(f"not an encoded ParsedFile: {exc}") from exc
