"""PURE: minimal edits of JSON and JSONC text (comments, trailing commas), keeping everything else.

A client's configuration file is the user's: ``graphmem setup`` changes one member or one array
item and leaves every other byte as it was (key order, indentation, comments). ``parse`` reads
the text into nodes that know their spans; ``set_member``, ``remove_member``, ``upsert_item`` and
``remove_items`` splice new text into those spans. New values are written with the file's own
indentation unit (2 spaces when it has none).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "JsonSyntaxError",
    "Node",
    "parse",
    "remove_items",
    "remove_member",
    "set_member",
    "upsert_item",
    "value_of",
]


class JsonSyntaxError(ValueError):
    """The text is not JSON (or JSONC); the message says where."""


@dataclass
class Node:
    """A JSON value in the text: ``start``/``end`` offsets; an object's members
    (key, key start, value) or an array's items."""

    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int
    members: list[tuple[str, int, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        """The value of member ``key`` (the last one when repeated), or None."""
        found = None
        for k, _, v in self.members:
            if k == key:
                found = v
        return found


_WS = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.S)
_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null', re.S)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def fail(self, what: str) -> JsonSyntaxError:
        line = self.text.count("\n", 0, self.i) + 1
        return JsonSyntaxError(f"{what} at line {line}, column {self.i - self.text.rfind(chr(10), 0, self.i)}")

    def ws(self) -> None:
        m = _WS.match(self.text, self.i)
        self.i = m.end() if m else self.i

    def value(self) -> Node:
        self.ws()
        c = self.text[self.i : self.i + 1]
        if c == "{":
            return self.container("object", "}")
        if c == "[":
            return self.container("array", "]")
        m = _SCALAR.match(self.text, self.i)
        if not m:
            raise self.fail("a value was expected")
        self.i = m.end()
        return Node("scalar", m.start(), m.end())

    def container(self, kind: str, close: str) -> Node:
        node = Node(kind, self.i, -1)
        self.i += 1
        while True:
            self.ws()
            if self.text[self.i : self.i + 1] == close:
                self.i += 1
                node.end = self.i
                return node
            if kind == "object":
                m = _SCALAR.match(self.text, self.i)
                if not m or not m.group().startswith('"'):
                    raise self.fail("a member name was expected")
                key_start, self.i = self.i, m.end()
                self.ws()
                if self.text[self.i : self.i + 1] != ":":
                    raise self.fail("':' was expected")
                self.i += 1
                node.members.append((json.loads(m.group()), key_start, self.value()))
            else:
                node.items.append(self.value())
            self.ws()
            c = self.text[self.i : self.i + 1]
            if c == ",":
                self.i += 1
            elif c != close:
                raise self.fail(f"',' or '{close}' was expected")


def parse(text: str) -> Node:
    """The root node of a JSON/JSONC text (an empty text reads as an empty object at 0..0)."""
    if not text.strip():
        return Node("object", 0, 0)
    p = _Parser(text)
    root = p.value()
    p.ws()
    if p.i != len(text):
        raise p.fail("the text goes on after the value")
    return root


def _strip(text: str) -> str:
    """``text`` without comments and trailing commas: plain JSON."""
    out: list[str] = []
    i = 0
    while i < len(text):
        m = _SCALAR.match(text, i) if text[i] == '"' else None
        if m:
            out.append(m.group())
            i = m.end()
            continue
        w = _WS.match(text, i)
        if w and w.end() > i:
            out.append(" ")
            i = w.end()
            continue
        if text[i] in "}]":  # a trailing comma before it (outside strings) goes
            j = len(out) - 1
            while j >= 0 and out[j] == " ":
                j -= 1
            if j >= 0 and out[j] == ",":
                del out[j]
        out.append(text[i])
        i += 1
    return "".join(out)


def value_of(text: str, node: Node | None = None) -> Any:
    """The Python value of ``node`` (default: the whole text)."""
    if node is None:
        return json.loads(_strip(text)) if text.strip() else {}
    return json.loads(_strip(text[node.start : node.end]))


# ---------------------------------------------------------------------------- layout


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _indent_of(text: str, i: int) -> str:
    start = _line_start(text, i)
    return text[start : start + len(text[start:i]) - len(text[start:i].lstrip(" \t"))]


def indent_unit(text: str) -> str:
    """The file's indentation step (the smallest leading whitespace of an indented line), else 2 spaces."""
    found = [m.group(1) for m in re.finditer(r"\n([ \t]+)\S", text)]
    return min(found, key=len) if found else "  "


def _dump(value: Any, unit: str, indent: str) -> str:
    """``value`` as JSON with ``unit`` indentation, continuation lines indented by ``indent``."""
    text = json.dumps(value, indent=unit, ensure_ascii=False)
    return text.replace("\n", "\n" + indent)


def _is_inline(text: str, node: Node) -> bool:
    return "\n" not in text[node.start : node.end]


def _after_value(text: str, end: int) -> tuple[int, bool]:
    """Where to insert after a value ending at ``end``: after a trailing comma (if any) and the
    comments on that line; and whether a comma follows it."""
    i = end
    m = re.compile(r"[ \t]*").match(text, i)
    i = m.end() if m else i
    comma = text[i : i + 1] == ","
    if comma:
        i += 1
    m = re.compile(r"[ \t]*(?://[^\n]*)?").match(text, i)
    return (m.end() if m else i), comma


def _insert(text: str, node: Node, entry: str, unit: str, last_end: int | None) -> str:
    """Insert ``entry`` (a member or an item, already serialized for its indent) as the last one
    of container ``node``; ``last_end``: where its current last entry ends (None: it is empty)."""
    close = node.end - 1
    outer = _indent_of(text, node.start)
    if last_end is None:  # empty: open it up over lines
        inner = outer + unit
        return text[: node.start + 1] + "\n" + inner + entry + "\n" + outer + text[close:]
    at, comma = _after_value(text, last_end)
    tail = "," if comma else ""  # a file that ends its lists with a comma gets one after ours too
    if _is_inline(text, node):
        return text[:at] + (" " if comma else ", ") + entry + tail + text[at:]
    inner = _indent_of(text, last_end) if _line_start(text, last_end) > node.start else outer + unit
    head = text[:last_end] + ("" if comma else ",") + text[last_end:at]
    return head + "\n" + inner + entry + tail + text[at:]


def _remove_span(text: str, start: int, end: int, prev_end: int | None, container: Node | None = None) -> str:
    """Remove an entry spanning ``start``..``end`` (a value's end), with its comma and, when it
    sits on lines of its own, those lines; ``prev_end``: where the entry before it ends. The
    only entry of ``container`` leaves it as ``{}`` / ``[]`` when nothing else is inside."""
    if container is not None and prev_end is None:
        inside = text[container.start + 1 : start] + text[_after_value(text, end)[0] : container.end - 1]
        if not inside.strip():
            return text[: container.start + 1] + text[container.end - 1 :]
    after, comma = _after_value(text, end)
    if not comma and prev_end is not None:  # the last one: drop the comma before it instead
        p_after, p_comma = _after_value(text, prev_end)
        if p_comma:
            cut = text.rfind(",", prev_end, p_after)
            text = text[:cut] + text[cut + 1 :]
            shift = 1
            start, end, after = start - shift, end - shift, after - shift
    line_a = _line_start(text, start)
    if not text[line_a:start].strip() and (after >= len(text) or text[after] == "\n"):
        return text[:line_a] + text[after + 1 :]
    if comma:
        return text[:start] + text[after:].lstrip(" ")
    return text[:start].rstrip(" ") + text[after:]


# ---------------------------------------------------------------------------- operations


def _walk(text: str, path: Sequence[str]) -> tuple[Node, list[str]]:
    """The deepest existing object along ``path`` and the keys still missing below it."""
    node = parse(text)
    if node.kind != "object":
        raise JsonSyntaxError("the file's top level is not an object")
    for n, key in enumerate(path):
        child = node.get(key)
        if child is None:
            return node, list(path[n:])
        if child.kind != "object":
            raise JsonSyntaxError(f"{'.'.join(path[: n + 1])} is not an object")
        node = child
    return node, []


def _nest(keys: Sequence[str], value: Any) -> Any:
    for key in reversed(keys):
        value = {key: value}
    return value


def set_member(text: str, path: Sequence[str], key: str, value: Any) -> str:
    """``text`` with the object at ``path`` (created as needed) having ``key``: ``value``. A
    member already equal to ``value`` leaves the text as it is."""
    if not text.strip():
        return json.dumps(_nest([*path, key], value), indent=2, ensure_ascii=False) + "\n"
    unit = indent_unit(text)
    node, missing = _walk(text, path)
    if missing:
        entry_key, entry_value = missing[0], _nest([*missing[1:], key], value)
    else:
        entry_key, entry_value = key, value
        current = node.get(key)
        if current is not None:
            if value_of(text, current) == value:
                return text
            indent = _indent_of(text, current.start)
            return text[: current.start] + _dump(value, unit, indent) + text[current.end :]
    last = node.members[-1][2].end if node.members else None
    indent = (
        _indent_of(text, last)
        if last is not None and not _is_inline(text, node)
        else _indent_of(text, node.start) + unit
    )
    if last is not None and _is_inline(text, node):
        entry = json.dumps(entry_key) + ": " + json.dumps(entry_value, ensure_ascii=False)
    else:
        entry = json.dumps(entry_key) + ": " + _dump(entry_value, unit, indent)
    return _insert(text, node, entry, unit, last)


def remove_member(text: str, path: Sequence[str], key: str) -> str:
    """``text`` without member ``key`` of the object at ``path`` (unchanged when absent)."""
    if not text.strip():
        return text
    node, missing = _walk(text, path)
    if missing:
        return text
    for n, (k, key_start, value) in enumerate(node.members):
        if k == key:
            prev = node.members[n - 1][2].end if n else None
            return _remove_span(text, key_start, value.end, prev, node if len(node.members) == 1 else None)
    return text


def _array(text: str, path: Sequence[str]) -> Node | None:
    node, missing = _walk(text, path[:-1])
    if missing:
        return None
    arr = node.get(path[-1])
    if arr is not None and arr.kind != "array":
        raise JsonSyntaxError(f"{'.'.join(path)} is not an array")
    return arr


def upsert_item(text: str, path: Sequence[str], is_ours: Callable[[Any], bool], value: Any) -> str:
    """``text`` with the array at ``path`` (created as needed) holding ``value`` once: in place
    of the first item ``is_ours`` matches (others it matches are removed), else appended."""
    if not text.strip() or _array(text, path) is None:
        return set_member(text, path[:-1], path[-1], [value])
    arr = _array(text, path)
    assert arr is not None
    ours = [n for n, item in enumerate(arr.items) if is_ours(value_of(text, item))]
    if ours:
        first = arr.items[ours[0]]
        if value_of(text, first) != value:
            unit = indent_unit(text)
            text = text[: first.start] + _dump(value, unit, _indent_of(text, first.start)) + text[first.end :]
        return remove_items(text, path, is_ours, keep_first=True)
    unit = indent_unit(text)
    last = arr.items[-1].end if arr.items else None
    indent = (
        _indent_of(text, last) if last is not None and not _is_inline(text, arr) else _indent_of(text, arr.start) + unit
    )
    if last is not None and _is_inline(text, arr):
        entry = json.dumps(value, ensure_ascii=False)
    else:
        entry = _dump(value, unit, indent)
    return _insert(text, arr, entry, unit, last)


def remove_items(text: str, path: Sequence[str], is_ours: Callable[[Any], bool], *, keep_first: bool = False) -> str:
    """``text`` without the items of the array at ``path`` that ``is_ours`` matches (the first
    one kept with ``keep_first``)."""
    if not text.strip():
        return text
    kept_one = not keep_first
    while True:
        arr = _array(text, path)
        if arr is None:
            return text
        victim = None
        seen_first = False
        for n, item in enumerate(arr.items):
            if is_ours(value_of(text, item)):
                if not kept_one and not seen_first:
                    seen_first = True
                    continue
                victim = n
                break
        if victim is None:
            return text
        prev = arr.items[victim - 1].end if victim else None
        only = arr if len(arr.items) == 1 else None
        text = _remove_span(text, arr.items[victim].start, arr.items[victim].end, prev, only)
