"""A warm restart's resolver holds the graph's string objects, not equal copies of them."""

from __future__ import annotations

import pickle

from graphmemd.graph.model import symbols_of
from graphmemd.indexing.restore import decode_sharing
from graphmemd.ingest import parsecache
from graphmemd.ingest.parsing.parser import parse_source

SOURCE = b"class Pool:\n    def take(self, n: int) -> int:\n        return n\n\ndef second_pool():\n    return Pool()\n"


def test_the_decoded_parse_takes_the_graphs_strings() -> None:
    parsed = parse_source("pools.py", SOURCE)
    text = parsecache.encode(parsed)
    # what a snapshot gives back: equal symbols, separate string objects
    infos = pickle.loads(pickle.dumps(symbols_of("r", parsed)))
    assert infos[0].signature is not parsed.symbols[0].signature
    shared = decode_sharing(text, infos)
    assert shared == parsecache.decode(text)
    for s, i in zip(shared.symbols, infos, strict=True):
        assert s.signature is i.signature
        assert s.sig_hash is i.sig_hash
        assert s.body_hash is i.body_hash


def test_symbols_of_another_parse_are_not_shared() -> None:
    parsed = parse_source("pools.py", SOURCE)
    other = pickle.loads(pickle.dumps(symbols_of("r", parse_source("pools.py", SOURCE.replace(b"take", b"give")))))
    shared = decode_sharing(parsecache.encode(parsed), other)
    assert shared == parsed
    assert all(s.signature is not i.signature for s, i in zip(shared.symbols, other, strict=True))
