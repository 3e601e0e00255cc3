"""PURE: edits of a TOML text (Codex's ``config.toml``) that keep its formatting, with tomlkit.

tomlkit (a style-preserving TOML library: comments, order, spacing and quoting survive a
round trip) reads the document; one table or key is set or removed; the rest is written back
as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

__all__ = ["TomlSyntaxError", "remove_table", "set_default", "set_table", "table_value"]


class TomlSyntaxError(ValueError):
    """The text is not TOML; the message says where."""


def _doc(text: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise TomlSyntaxError(str(exc)) from exc


def _plain(value: Any) -> Any:
    unwrap = getattr(value, "unwrap", None)
    return unwrap() if callable(unwrap) else value


def table_value(text: str, path: Sequence[str]) -> Any:
    """The plain value at ``path`` (None when absent)."""
    node: Any = _doc(text)
    for key in path:
        if not hasattr(node, "get") or key not in node:
            return None
        node = node[key]
    return _plain(node)


def _parent(doc: tomlkit.TOMLDocument, path: Sequence[str]) -> Any:
    """The container at ``path``, created as (super) tables as needed."""
    node: Any = doc
    for key in path:
        if key not in node:
            node[key] = tomlkit.table(is_super_table=True)
        node = node[key]
    return node


def set_table(text: str, path: Sequence[str], key: str, values: Mapping[str, Any]) -> str:
    """``text`` with table ``[path.key]`` holding exactly ``values`` (unchanged when it already does)."""
    doc = _doc(text)
    if table_value(text, [*path, key]) == dict(values):
        return text
    parent = _parent(doc, path)
    table = tomlkit.table()
    for k, v in values.items():
        table[k] = v
    had_tables_after = bool(text.strip())
    if key in parent:
        del parent[key]
    if had_tables_after:
        table.add(tomlkit.nl())
    parent[key] = table
    return tomlkit.dumps(doc)


def remove_table(text: str, path: Sequence[str], key: str) -> str:
    """``text`` without ``[path.key]`` (unchanged when absent); a super table left empty goes too."""
    doc = _doc(text)
    node: Any = doc
    chain: list[tuple[Any, str]] = []
    for k in path:
        if k not in node:
            return text
        chain.append((node, k))
        node = node[k]
    if key not in node:
        return text
    del node[key]
    for parent, k in reversed(chain):
        child = parent[k]
        if isinstance(child, Table) and not child.value and child.is_super_table():
            del parent[k]
    return tomlkit.dumps(doc)


def set_default(text: str, path: Sequence[str], key: str, value: Any, *, unless: Sequence[str] = ()) -> str:
    """``text`` with ``path.key = value`` unless ``path`` already has ``key`` or any of ``unless``."""
    if any(table_value(text, [*path, k]) is not None for k in (key, *unless)):
        return text
    doc = _doc(text)
    node: Any = doc
    for k in path:
        if k not in node:
            node[k] = tomlkit.table()
        node = node[k]
    node[key] = value
    return tomlkit.dumps(doc)
