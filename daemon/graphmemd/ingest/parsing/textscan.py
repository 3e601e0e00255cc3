"""Finding every occurrence of a set of byte strings in a source with few scans (pure).

A ``bytes.find`` scan costs about the same per byte whatever it looks for (~3 instructions a
byte on source code: its skip test collides on most letters), and checking a hit costs
little. So a set of texts (a language's ``[aliases]``: 30 names) is not scanned for one by
one: the texts are grouped by a substring they share (``assert`` for ``assertEquals``,
``assertNotEquals`` …; ``.error`` for ``socket.error``, ``os.error`` …), each group's key is
scanned for once, and each hit is checked against the group's texts where the key sits in
them. The keys are chosen from the texts alone (``plan``), so a rules file lists only the
texts. A hit is checked only against the texts whose byte just after the key (or, when a
text ends with the key, just before it) is the one in the source (``Scan.by_byte``): the
key ``assert`` hits ~80,000 times in the standard library's tests, nearly always as
``assertEqual``, which then costs one comparison instead of eight. Every occurrence of every
text is found, overlapping ones included, in the same order as checking every text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SHORTEST_KEY", "Scan", "occurrences", "plan"]

#: The shortest key a group is scanned for (a text shorter than this is its own key): a
#: shorter key would hit at nearly every line (``rror``), a longer one groups less.
SHORTEST_KEY = 5


@dataclass(frozen=True, slots=True)
class Scan:
    """One scan: the ``key`` looked for, and the texts holding it, each with the offset of
    the key in it (the first, if it holds it twice); the bytes that can come just before and
    just after the key in one of them (None: a text starts, or ends, with the key), which
    rule out most hits at once (``ValueError`` for the key ``Error`` of ``IOError``)."""

    key: bytes
    texts: tuple[tuple[bytes, int], ...]
    before: frozenset[int] | None = None
    after: frozenset[int] | None = None
    #: the texts to check at a hit, by the byte just after the key (when ``after`` is set),
    #: else by the byte just before it (when ``before`` is): each ``(text, offset of the key,
    #: bytes from the key's start to the text's end)``, in the order of ``texts``. A hit of
    #: ``assert`` followed by ``E`` is checked against ``assertEquals`` only, not all eight
    #: ``assert…`` texts (the key hits ~80,000 times in the standard library's tests).
    by_byte: dict[int, tuple[tuple[bytes, int, int], ...]] | None = None


def plan(texts: Sequence[bytes], shortest: int = SHORTEST_KEY, keys: Sequence[bytes] = ()) -> tuple[Scan, ...]:
    """The scans that find ``texts``: first one per key of ``keys`` that texts not yet
    covered hold, in that order (``Dict`` for ``Dict``, ``t.Dict`` and ``typing.Dict``, which
    the greedy choice would split); then greedily, the substring (at least ``shortest``
    bytes, or a whole text when shorter) held by the most texts not yet covered, the longest
    of those, the first in byte order; until every text is covered. Deterministic: the same
    texts give the same scans."""
    left = list(dict.fromkeys(texts))
    if any(not text for text in left):
        raise ValueError("an empty text cannot be scanned for")
    scans: list[Scan] = []
    for key in keys:
        covered = [text for text in left if key in text]
        if covered:
            scans.append(_scan(key, covered))
            left = [text for text in left if text not in covered]
    while left:
        holders: dict[bytes, list[bytes]] = {}
        for text in left:
            size = min(shortest, len(text))
            subs = {text[i:j] for i in range(len(text) - size + 1) for j in range(i + size, len(text) + 1)}
            for sub in subs:
                holders.setdefault(sub, []).append(text)
        best = min(holders, key=lambda sub: (-len(holders[sub]), -len(sub), sub))
        covered = holders[best]
        scans.append(_scan(best, covered))
        left = [text for text in left if text not in covered]
    return tuple(scans)


def _scan(key: bytes, covered: Sequence[bytes]) -> Scan:
    """The scan for ``key`` that finds the texts ``covered`` (each holds it)."""
    found = tuple((text, text.find(key)) for text in covered)
    ends = [(text, offset + len(key)) for text, offset in found]
    before = None if any(offset == 0 for _t, offset in found) else frozenset(t[o - 1] for t, o in found)
    after = None if any(end == len(t) for t, end in ends) else frozenset(t[end] for t, end in ends)
    side = None if after is None and before is None else len(key) if after is not None else -1
    return Scan(key, found, before, after, _by_byte(found, side))


def _by_byte(
    found: tuple[tuple[bytes, int], ...], side: int | None
) -> dict[int, tuple[tuple[bytes, int, int], ...]] | None:
    """The texts by their byte at ``side`` from the key's start (None: no side)."""
    if side is None:
        return None
    table: dict[int, list[tuple[bytes, int, int]]] = {}
    for text, offset in found:
        table.setdefault(text[offset + side], []).append((text, offset, len(text) - offset))
    return {byte: tuple(texts) for byte, texts in table.items()}


def occurrences(source: bytes, scans: Sequence[Scan], lo: int, hi: int) -> list[tuple[int, bytes]]:
    """Every ``(start, text)`` of the planned texts that lies within ``source[lo:hi]``:
    grouped by scan, in source order within each."""
    found: list[tuple[int, bytes]] = []
    for scan in scans:
        key, before, after, by_byte = scan.key, scan.before, scan.after, scan.by_byte
        size = len(key)
        every = tuple((text, offset, len(text) - offset) for text, offset in scan.texts)
        hit = source.find(key, lo, hi)
        while hit >= 0:
            if by_byte is None:  # (no text has a byte before or after the key)
                texts: tuple[tuple[bytes, int, int], ...] | None = every
            elif after is not None:
                texts = by_byte.get(source[hit + size]) if hit + size < hi else None
                if before is not None and not (hit > lo and source[hit - 1] in before):
                    texts = None
            else:
                texts = by_byte.get(source[hit - 1]) if hit > lo else None
            if texts is not None:
                for text, offset, rest in texts:
                    start = hit - offset
                    if start >= lo and hit + rest <= hi and source.startswith(text, start):
                        found.append((start, text))
            hit = source.find(key, hit + 1, hi)
    return found
