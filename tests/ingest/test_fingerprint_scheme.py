"""The fingerprint scheme version, and the frozen scheme 1 (for stores written before the
upgrade): ``parse_source(..., scheme=1)`` reproduces the pre-upgrade hashes and qualnames
exactly, so a stored anchor can be recognised and re-anchored instead of turning stale."""

from __future__ import annotations

from graphmemd.ingest.parsing import FINGERPRINT_SCHEME, parse_source

SRC = b'''import typing


class Store:
    """A store."""

    def load(self, name: str, default: int = 0) -> int:
        # read it
        path = "a b"  # comment
        def inner(y):
            return y + 1
        return inner(int(open(path).read()))

    @typing.overload
    def get(self, k: int) -> int: ...
    def get(self, k):
        return k
'''

# computed by the scheme-1 parser (graphmem before the upgrade) on SRC
SCHEME_1 = {
    ("Store", "class"): ("0adb9b9c1a262e9b", "f1f040d17588bf41"),
    ("Store.load", "method"): ("11aef0b7957f940f", "12f265ca42ede97c"),
    ("Store.load.inner", "function"): ("14747bc1f42ffe94", "0b290f79948223b3"),
    ("Store.get", "method"): ("6e4e7ede0a7c590a", "ed8afa03a2db846a"),
    ("Store.get~2", "method"): ("4727361dc8072bf4", "fcea0f6a73775fb6"),
}


def test_scheme_version() -> None:
    assert FINGERPRINT_SCHEME == 3


def test_scheme_1_reproduces_stored_hashes() -> None:
    old = {(s.qualname, s.kind.value): (s.sig_hash, s.body_hash) for s in parse_source("m.py", SRC, scheme=1).symbols}
    assert old == SCHEME_1


def test_scheme_2_differs_and_maps_by_byte_range() -> None:
    old = parse_source("m.py", SRC, scheme=1)
    new = parse_source("m.py", SRC)
    by_range = {(s.start_byte, s.end_byte): s for s in new.symbols}
    pairs = {o.qualname: by_range[(o.start_byte, o.end_byte)].qualname for o in old.symbols}
    # the overload stub and its implementation swap names under scheme 2
    assert pairs == {
        "Store": "Store",
        "Store.load": "Store.load",
        "Store.load.inner": "Store.load.inner",
        "Store.get": "Store.get~overload1",
        "Store.get~2": "Store.get",
    }
    assert all(
        (s.sig_hash, s.body_hash) != SCHEME_1[(o.qualname, o.kind.value)]
        for o in old.symbols
        for s in [by_range[(o.start_byte, o.end_byte)]]
    )
