"""The code graph's edges between two nodes packed into one small int. Pure, no state.

The graph keeps, for each node, one dict of its out-neighbours and one of its in-neighbours
(``codegraph.py``). Every edge kind from ``a`` to ``b`` and how each was resolved live in the
one int ``a``'s dict holds for ``b``: four bits per forward kind, 0 for no such edge, 1 for a
structural edge (no confidence), 2 + the index of its ``EdgeConfidence`` otherwise. ``b``'s
dict holds for ``a`` only which kinds point at it: one bit per kind. Small ints are shared
objects, so an edge costs a dict slot on each side instead of a set, a dict and a
per-kind dict per node (about a third of the memory on a stdlib-sized graph).
"""

from __future__ import annotations

import functools

from graphmem.types import EdgeConfidence, EdgeKind

#: the kinds the graph stores, in bit order (their reverses are walked, never stored)
FORWARD: tuple[EdgeKind, ...] = (
    EdgeKind.DEFINES,
    EdgeKind.CONTAINS,
    EdgeKind.CALLS,
    EdgeKind.IMPORTS,
    EdgeKind.INHERITS,
)
_INDEX = {k: i for i, k in enumerate(FORWARD)}
_CONFIDENCES: tuple[EdgeConfidence, ...] = tuple(EdgeConfidence)
_CODE = {c: i + 2 for i, c in enumerate(_CONFIDENCES)}
_WIDTH = 4
_NIBBLE = (1 << _WIDTH) - 1
#: the lowest bit of every kind's nibble (``count``)
_LOW_BITS = sum(1 << (_WIDTH * i) for i in range(len(FORWARD)))

if len(_CONFIDENCES) + 2 > _NIBBLE + 1:  # pragma: no cover - a guard for whoever adds a confidence
    raise RuntimeError("edge confidences no longer fit in a nibble")


def bit(kind: EdgeKind) -> int:
    """``kind``'s bit in an in-neighbour's kind mask."""
    return 1 << _INDEX[kind]


def mask(kinds: tuple[EdgeKind, ...]) -> tuple[int, int]:
    """The (out nibbles, in bits) covering ``kinds`` (what ``CodeGraph._unlink_out`` clears)."""
    return (
        sum(_NIBBLE << (_WIDTH * _INDEX[k]) for k in kinds),
        sum(1 << _INDEX[k] for k in kinds),
    )


@functools.cache
def put(packed: int, kind: EdgeKind, confidence: EdgeConfidence | None) -> int:
    """``packed`` with its ``kind`` edge set to ``confidence`` (None: structural). Cached, so
    that equal values are one int object (ints above 256 are not shared by themselves)."""
    shift = _WIDTH * _INDEX[kind]
    code = 1 if confidence is None else _CODE[confidence]
    return (packed & ~(_NIBBLE << shift)) | (code << shift)


def has(packed: int, kind: EdgeKind) -> bool:
    """Whether ``packed`` holds an edge of ``kind``."""
    return bool((packed >> (_WIDTH * _INDEX[kind])) & _NIBBLE)


def confidence(packed: int, kind: EdgeKind) -> EdgeConfidence | None:
    """How ``packed``'s ``kind`` edge was resolved (None: structural, or no such edge)."""
    code = (packed >> (_WIDTH * _INDEX[kind])) & _NIBBLE
    return _CONFIDENCES[code - 2] if code >= 2 else None


@functools.cache
def edges(packed: int) -> tuple[tuple[EdgeKind, EdgeConfidence | None], ...]:
    """Each (kind, confidence) ``packed`` holds, in ``FORWARD`` order (cached: a graph
    holds only a few dozen distinct values)."""
    out: list[tuple[EdgeKind, EdgeConfidence | None]] = []
    for i, kind in enumerate(FORWARD):
        code = (packed >> (_WIDTH * i)) & _NIBBLE
        if code:
            out.append((kind, _CONFIDENCES[code - 2] if code >= 2 else None))
    return tuple(out)


@functools.cache
def kinds(bits: int) -> tuple[EdgeKind, ...]:
    """Each kind set in an in-neighbour's kind mask, in ``FORWARD`` order (cached)."""
    return tuple(kind for i, kind in enumerate(FORWARD) if bits >> i & 1)


@functools.cache
def count(packed: int) -> int:
    """How many edges ``packed`` holds (one per kind; cached like ``edges``)."""
    return ((packed | packed >> 1 | packed >> 2 | packed >> 3) & _LOW_BITS).bit_count()
