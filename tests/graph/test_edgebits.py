"""The packing of a pair's edges into one int round-trips every kind and confidence."""

from __future__ import annotations

import itertools

from graphmem.types import EdgeConfidence, EdgeKind
from graphmemd.graph import edgebits


def test_every_kind_and_confidence_round_trips_beside_the_others() -> None:
    choices: list[EdgeConfidence | None] = [None, *EdgeConfidence]
    for a, b in itertools.product(edgebits.FORWARD, repeat=2):
        if a is b:
            continue
        for ca, cb in itertools.product(choices, repeat=2):
            packed = edgebits.put(edgebits.put(0, a, ca), b, cb)
            assert edgebits.has(packed, a)
            assert edgebits.has(packed, b)
            assert edgebits.confidence(packed, a) is ca
            assert edgebits.confidence(packed, b) is cb
            assert dict(edgebits.edges(packed)) == {a: ca, b: cb}
            assert edgebits.count(packed) == 2


def test_put_overwrites_and_mask_clears_only_its_kinds() -> None:
    packed = edgebits.put(0, EdgeKind.CALLS, EdgeConfidence.NAME_ONLY)
    packed = edgebits.put(packed, EdgeKind.CALLS, EdgeConfidence.IMPORT)
    packed = edgebits.put(packed, EdgeKind.CONTAINS, None)
    assert edgebits.confidence(packed, EdgeKind.CALLS) is EdgeConfidence.IMPORT
    nibbles, bits = edgebits.mask((EdgeKind.CALLS, EdgeKind.IMPORTS))
    left = packed & ~nibbles
    assert edgebits.edges(left) == ((EdgeKind.CONTAINS, None),)
    assert not edgebits.has(left, EdgeKind.CALLS)
    assert bits == edgebits.bit(EdgeKind.CALLS) | edgebits.bit(EdgeKind.IMPORTS)
    assert edgebits.kinds(bits) == (EdgeKind.CALLS, EdgeKind.IMPORTS)
    assert edgebits.count(0) == 0
