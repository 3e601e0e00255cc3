"""A new parse of a file takes the graph's string objects and unchanged symbol records where
the values are equal: the same values, held once."""

from __future__ import annotations

import pickle

from graphmemd.graph.model import SymbolInfo, symbols_of
from graphmemd.graph.sharing import reuse_unchanged, share_parse, share_strings
from graphmemd.ingest.parsing.parser import parse_source

BEFORE = b"class Pool:\n    def take(self, n: int) -> int:\n        return n\n\ndef second_pool():\n    return Pool()\n"
# one method changed, one function added at the end
AFTER = BEFORE.replace(b"return n", b"return n + 1") + b"\ndef third_pool():\n    return None\n"


def _graph_symbols() -> list[SymbolInfo]:
    """What the graph holds for the file: the old parse's symbols, as separate objects (a
    snapshot's unpickled strings)."""
    symbols: list[SymbolInfo] = pickle.loads(pickle.dumps(symbols_of("r", parse_source("pools.py", BEFORE))))
    return symbols


def test_a_new_parse_holds_the_graphs_strings_where_equal() -> None:
    old = _graph_symbols()
    parsed = parse_source("pools.py", AFTER)
    shared = share_strings(parsed, old)
    assert shared == parsed  # the same values
    by_qualname = {i.qualname: i for i in old}
    pool, take, second, third = shared.symbols
    assert pool.signature is by_qualname["Pool"].signature
    assert pool.sig_hash is by_qualname["Pool"].sig_hash
    assert pool.body_hash is not by_qualname["Pool"].body_hash  # its method changed
    assert take.signature is by_qualname["Pool.take"].signature
    assert take.body_hash != by_qualname["Pool.take"].body_hash
    assert second.body_hash is by_qualname["second_pool"].body_hash
    assert second.qualname is by_qualname["second_pool"].qualname
    assert third.qualname == "third_pool"
    assert share_strings(parsed, []) is parsed


def test_unchanged_symbol_records_are_reused() -> None:
    old = _graph_symbols()
    new = symbols_of("r", share_strings(parse_source("pools.py", AFTER), old))
    reused = reuse_unchanged(new, old)
    assert reused == new
    by_id = {o.id: o for o in old}
    assert [r is by_id.get(r.id) for r in reused] == [False, False, True, False]  # second_pool only
    assert reuse_unchanged(new, []) == new


def test_a_parse_equal_to_another_checkouts_holds_its_records() -> None:
    """A worktree's parse of a file another checkout holds: equal records are that checkout's
    objects; a field that differs keeps the new parse's, with the strings shared."""
    donor = pickle.loads(pickle.dumps(parse_source("pools.py", BEFORE)))
    infos = symbols_of("other", donor)
    same = share_parse(parse_source("pools.py", BEFORE), donor, infos)
    assert same == donor
    assert same.symbols is donor.symbols
    assert same.imports is donor.imports
    changed = share_parse(parse_source("pools.py", AFTER), donor, infos)
    assert changed == parse_source("pools.py", AFTER)
    assert changed.symbols is not donor.symbols
    assert changed.symbols[2].qualname is infos[2].qualname  # (second_pool) strings still shared
    assert changed.symbols[2].body_hash is infos[2].body_hash
    other_file = pickle.loads(pickle.dumps(parse_source("other.py", BEFORE)))
    assert share_parse(parse_source("pools.py", BEFORE), other_file, []).symbols is not other_file.symbols
