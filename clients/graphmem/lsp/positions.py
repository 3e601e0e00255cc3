"""PURE: where the daemon's symbols are in the text an editor holds.

The daemon knows a file's symbols by the lines of the text it indexed (the file on disk). The
editor's buffer may differ (unsaved edits). ``place_symbols`` maps each symbol onto the buffer:

1. when the text the line numbers refer to is known (``indexed``), the symbol's definition
   line (the first line of its range naming it) is carried over by a line diff; if that line
   is unchanged in the buffer, the symbol is there;
2. otherwise (the definition line was edited, or the indexed text is unknown) the buffer is
   searched for a line that defines the symbol's name as its kind (``def``/``class``/``fn``/a
   method declaration, …), inside its container when the container was placed, nearest to
   where the diff says it should be;
3. a symbol found by neither is not placed: nothing is shown for it rather than something on
   the wrong line.

Columns are code points here; ``units``/``index_of_units`` convert to and from the position
encoding an LSP client negotiated (UTF-16 by default).
"""

from __future__ import annotations

import bisect
import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from graphmem.types import Symbol

__all__ = [
    "LineMap",
    "Placement",
    "Placements",
    "definition_column",
    "index_of_units",
    "place_symbols",
    "split_lines",
    "units",
]

#: How many lines below a symbol's start its name may first appear (decorators, annotations).
_HEAD_SCAN: Final = 40
_CLASS_LIKE: Final = frozenset({"class", "struct", "interface", "trait", "enum", "module"})
_CLASS_KW: Final = re.compile(
    r"\b(?:class|struct|interface|trait|enum|union|record|type|mod|module|namespace|impl|object)\b[^=(]*$"
)
_FUNC_KW: Final = re.compile(r"\b(?:def|fn|func|function|fun|sub)\b[^=]*$")
_PARAMS: Final = re.compile(r"^\s*(?:<[^>]*>\s*|\[[^\]]*\]\s*)?\(")
_ASSIGNED_FN: Final = re.compile(
    r"^\s*(?::[^=]*)?[:=]\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[\w$]+\s*=>)"
)
_ASSIGN_PREFIX: Final = re.compile(
    r"^\s*(?:export\s+)?(?:(?:const|let|var|static|readonly|private|public|protected|async)\s+)*(?:this\.|self\.)?$"
)
_DECL_PREFIX: Final = re.compile(r"^\s*(?:[@\w<>\[\],.?*&:]+\s+)*$")
_NOT_DECL: Final = frozenset(
    {"return", "new", "await", "yield", "if", "while", "for", "switch", "case", "throw", "else", "typeof", "delete"}
    | {"not", "and", "or", "in", "is", "print", "assert", "raise", "with", "elif"}
)
_WORD: Final = re.compile(r"[\w$]+")
_EOL: Final = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """``text``'s lines as LSP counts them (ended by ``\\n``, ``\\r\\n`` or ``\\r``)."""
    return _EOL.split(text)


def units(text: str, encoding: str = "utf-16") -> int:
    """The length of ``text`` in the code units of a position encoding (utf-8/16/32)."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def index_of_units(line: str, column: int, encoding: str = "utf-16") -> int:
    """The code-point index in ``line`` of a column counted in code units (clamped to the line)."""
    if encoding == "utf-32":
        return max(0, min(column, len(line)))
    count = 0
    for i, ch in enumerate(line):
        if count >= column:
            return i
        count += len(ch.encode("utf-8")) if encoding == "utf-8" else (2 if ord(ch) > 0xFFFF else 1)
    return len(line)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a symbol is in the buffer: the line and code-point columns of its name on its
    definition line, and the last line of its body (approximate after edits)."""

    line: int
    start: int
    end: int
    last_line: int


class LineMap:
    """Lines of an old text mapped onto a new one: exactly for unchanged lines, approximately
    (by position inside the changed region) for the others."""

    def __init__(self, old: Sequence[str], new: Sequence[str]) -> None:
        self._old_len, self._new_len = len(old), len(new)
        n = min(len(old), len(new))
        head = 0
        while head < n and old[head] == new[head]:
            head += 1
        tail = 0
        while tail < n - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
            tail += 1
        blocks: list[tuple[int, int, int]] = [(0, 0, head)] if head else []
        if head + tail < max(len(old), len(new)):
            middle = difflib.SequenceMatcher(None, old[head : len(old) - tail], new[head : len(new) - tail])
            blocks += [(a + head, b + head, size) for a, b, size in middle.get_matching_blocks() if size]
        if tail:
            blocks.append((len(old) - tail, len(new) - tail, tail))
        self._blocks = blocks
        self._starts = [a for a, _, _ in blocks]

    def exact(self, line: int) -> int | None:
        """The new line of an unchanged old ``line``, or None when it was changed or removed."""
        i = bisect.bisect_right(self._starts, line) - 1
        if i >= 0:
            a, b, size = self._blocks[i]
            if line < a + size:
                return b + (line - a)
        return None

    def approx(self, line: int) -> int:
        """The new line of old ``line``: exact when unchanged, else the same offset into the
        changed region that replaced it (clamped to that region and to the text)."""
        found = self.exact(line)
        if found is not None:
            return found
        i = bisect.bisect_right(self._starts, line) - 1
        old_from, new_from = (0, 0)
        if i >= 0:
            a, b, size = self._blocks[i]
            old_from, new_from = a + size, b + size
        new_to = self._blocks[i + 1][1] if i + 1 < len(self._blocks) else self._new_len
        guess = new_from + (line - old_from)
        guess = min(guess, max(new_from, new_to - 1))
        return max(0, min(guess, self._new_len - 1))


@functools.lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$])")


def _occurrences(line: str, name: str) -> list[int]:
    if name not in line:
        return []
    return [m.start() for m in _name_pattern(name).finditer(line)]


def _defines_at(line: str, at: int, name: str, kind: str) -> bool:
    prefix, suffix = line[:at], line[at + len(name) :]
    if kind in _CLASS_LIKE:
        return bool(_CLASS_KW.search(prefix))
    if _FUNC_KW.search(prefix) and _PARAMS.match(suffix):
        return True
    if _ASSIGN_PREFIX.match(prefix) and _ASSIGNED_FN.match(suffix):
        return True
    if _DECL_PREFIX.match(prefix) and _PARAMS.match(suffix):
        words = prefix.split()
        if any(w in _NOT_DECL for w in words):
            return False
        return bool(words) or suffix.rstrip().endswith(("{", ":"))
    return False


def definition_column(line: str, name: str, kind: str) -> int | None:
    """The column where ``line`` defines ``name`` as a ``kind`` symbol, or None."""
    for at in _occurrences(line, name):
        if _defines_at(line, at, name, kind):
            return at
    return None


def _name_column(line: str, name: str, kind: str) -> int | None:
    """The name's column on a known definition line: where it is defined, else its first mention."""
    found = definition_column(line, name, kind)
    if found is not None:
        return found
    hits = _occurrences(line, name)
    return hits[0] if hits else None


class _Placer:
    """One placement pass over a buffer (a word index built on first need)."""

    def __init__(self, indexed: Sequence[str] | None, buffer: Sequence[str]) -> None:
        self.indexed = indexed
        self.buffer = buffer
        self.map = LineMap(indexed, buffer) if indexed is not None else None
        self.used: set[tuple[int, int]] = set()
        self._words: dict[str, list[int]] | None = None

    def lines_naming(self, name: str) -> list[int]:
        if self._words is None:
            words: dict[str, list[int]] = {}
            for n, text in enumerate(self.buffer):
                for w in set(_WORD.findall(text)):
                    words.setdefault(w, []).append(n)
            self._words = words
        return self._words.get(name, [])

    def head_of(self, s: Symbol) -> tuple[int, int] | None:
        """(line, column) of the symbol's name in the indexed text."""
        if self.indexed is None:
            return None
        first = max(s.start_line - 1, 0)
        last = min(max(s.end_line - 1, first), first + _HEAD_SCAN, len(self.indexed) - 1)
        for n in range(first, last + 1):
            col = _name_column(self.indexed[n], s.name, s.kind)
            if col is not None:
                return n, col
        return None

    def place(self, s: Symbol, window: tuple[int, int] | None) -> Placement | None:
        head = self.head_of(s)
        lo, hi = window if window is not None else (0, len(self.buffer) - 1)
        if head is not None and self.map is not None:
            new = self.map.exact(head[0])
            if new is not None and lo <= new <= hi:
                col = _name_column(self.buffer[new], s.name, s.kind)
                if col is not None and (new, col) not in self.used:
                    return self._placed(s, new, col)
        expected = self.map.approx(head[0]) if head is not None and self.map is not None else s.start_line - 1
        best: tuple[int, int] | None = None
        for n in self.lines_naming(s.name):
            if not lo <= n <= hi:
                continue
            col = definition_column(self.buffer[n], s.name, s.kind)
            if col is None or (n, col) in self.used:
                continue
            if best is None or abs(n - expected) < abs(best[0] - expected):
                best = (n, col)
        if best is None:
            return None
        return self._placed(s, best[0], best[1])

    def _placed(self, s: Symbol, line: int, col: int) -> Placement:
        self.used.add((line, col))
        if self.map is not None:
            last = self.map.approx(max(s.end_line - 1, 0))
        else:
            last = line + max(s.end_line - s.start_line, 0)
        last = max(line, min(last, len(self.buffer) - 1))
        return Placement(line=line, start=col, end=col + len(s.name), last_line=last)


def _container(s: Symbol, by_qualname: dict[str, list[Symbol]]) -> Symbol | None:
    """The symbol whose qualname is ``s``'s prefix and whose lines contain it (a class of its
    method, a function of its nested function; not a Go/Rust type of its out-of-line method)."""
    parent_q = s.qualname.rpartition(".")[0]
    for other in by_qualname.get(parent_q, ()) if parent_q else ():
        if other.start_line <= s.start_line and s.end_line <= other.end_line and other.id != s.id:
            return other
    return None


class Placements:
    """The symbols of one outline placed on a buffer, each on first request (a symbol's
    container first, since it bounds where the symbol may be); ``all()`` places the rest.
    Asking for a few symbols (those with notes) costs only theirs."""

    def __init__(self, symbols: Sequence[Symbol], indexed: Sequence[str] | None, buffer: Sequence[str]) -> None:
        self._symbols = {s.id: s for s in symbols}
        self._placer = _Placer(indexed, buffer) if buffer else None
        self._by_qualname: dict[str, list[Symbol]] = {}
        for s in symbols:
            self._by_qualname.setdefault(s.qualname, []).append(s)
        self._done: dict[str, Placement | None] = {}

    def get(self, symbol_id: str) -> Placement | None:
        """Where the symbol is in the buffer (None: not found by name and kind, or unknown)."""
        if symbol_id in self._done:
            return self._done[symbol_id]
        s = self._symbols.get(symbol_id)
        if s is None or self._placer is None:
            return None
        parent = _container(s, self._by_qualname)
        where = self.get(parent.id) if parent is not None else None
        placed = self._placer.place(s, (where.line, where.last_line) if where is not None else None)
        self._done[symbol_id] = placed
        return placed

    def all(self) -> dict[str, Placement]:
        """Every symbol that could be placed, by id."""
        for s in sorted(self._symbols.values(), key=lambda x: (x.start_line, -x.end_line, x.qualname)):
            self.get(s.id)
        return {sid: p for sid, p in self._done.items() if p is not None}


def place_symbols(
    symbols: Sequence[Symbol], indexed: Sequence[str] | None, buffer: Sequence[str]
) -> dict[str, Placement]:
    """Each symbol's placement in ``buffer`` (lines), by symbol id; symbols that cannot be
    found by name and kind are left out. ``indexed`` is the text the symbols' line numbers
    refer to (None when unknown)."""
    return Placements(symbols, indexed, buffer).all()
