"""Fingerprint scheme 1, frozen: kept only to recognise hashes stored before the upgrade.

Scheme 1 hashed text, not tokens: the head with comments cut and whitespace collapsed
(one space only between identifier characters), and the body with comments and the
leading docstring cut, each directly nested definition replaced by
``\\x00kind:name:sig_hash\\x00``, and *all* whitespace deleted. Under scheme 1 duplicate
qualnames were disambiguated by ``~N`` only (no overload rules).

A store holding scheme-1 anchors can parse the current code with
``parse_source(..., scheme=1)``: an anchor whose stored hashes equal these still matches the
code it was made on, and can be re-anchored to the scheme-2 hashes of the same definition
(same byte range in a ``parse_source(...)`` of the same bytes) without turning stale.
This module is a copy on purpose: changes to the current scheme must not touch it.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LegacyDef", "legacy_fingerprints"]

_WHITESPACE = b" \t\n\r\f\v"
_WS = re.compile(rb"\s+")
_IDENT = rb"A-Za-z0-9_$\x80-\xff"
_DROP_SPACE = re.compile(rb" (?![" + _IDENT + rb"])|(?<![" + _IDENT + rb"]) ")


@dataclass(frozen=True, slots=True)
class LegacyDef:
    """What scheme 1 needs of a definition (``-1``: no body / no docstring / no parent)."""

    start: int
    end: int
    kind: str
    name: str
    body_start: int
    body_end: int
    doc_start: int
    doc_end: int
    parent_index: int


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _normalise(text: bytes) -> bytes:
    return _DROP_SPACE.sub(b"", _WS.sub(b" ", text)).strip()


def _cut(
    source: bytes,
    start: int,
    end: int,
    cuts: Sequence[tuple[int, int]],
    cut_starts: list[int],
    replaced: list[tuple[int, int, bytes]],
) -> bytes:
    i = bisect_left(cut_starts, start)
    if not replaced and (i == len(cut_starts) or cut_starts[i] >= end):
        return source[start:end]
    count = len(cut_starts)
    parts: list[bytes] = []
    pos = start
    for seg_start, seg_end, replacement in [*replaced, (end, end, b"")]:
        if seg_start < pos:
            continue
        i = bisect_left(cut_starts, pos, i)
        while i < count and cut_starts[i] < seg_start:
            comment_start, comment_end = cuts[i]
            parts.append(source[pos:comment_start])
            parts.append(b" ")
            pos = min(comment_end, seg_start)
            i += 1
        parts.append(source[pos:seg_start])
        parts.append(replacement)
        pos = seg_end
    return b"".join(parts)


def legacy_fingerprints(
    source: bytes, defs: Sequence[LegacyDef], cuts: Sequence[tuple[int, int]]
) -> list[tuple[str, str]]:
    """Scheme-1 ``(sig_hash, body_hash)`` of each definition (in start order; ``cuts`` are
    the sorted comment ranges)."""
    cut_starts = [c[0] for c in cuts]
    children: list[list[int]] = [[] for _ in defs]
    for i, d in enumerate(defs):
        if d.parent_index >= 0:
            children[d.parent_index].append(i)
    sig_hashes = [""] * len(defs)
    body_hashes = [_hash(b"")] * len(defs)
    for i in range(len(defs) - 1, -1, -1):  # children before parents
        d = defs[i]
        head_end = d.body_start if d.body_start >= 0 else d.end
        sig_hashes[i] = _hash(_normalise(_cut(source, d.start, head_end, cuts, cut_starts, [])))
        if d.body_start >= 0:
            replaced = [
                (defs[j].start, defs[j].end, f"\x00{defs[j].kind}:{defs[j].name}:{sig_hashes[j]}\x00".encode())
                for j in children[i]
            ]
            if d.doc_start >= 0:
                replaced.insert(0, (d.doc_start, d.doc_end, b""))
            body = _cut(source, d.body_start, d.body_end, cuts, cut_starts, replaced)
            body_hashes[i] = _hash(body.translate(None, _WHITESPACE))
    return list(zip(sig_hashes, body_hashes, strict=True))
