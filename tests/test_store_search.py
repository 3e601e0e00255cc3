"""Full-text search through the store: the fast path (node offsets mapped to ids in memory)
answers exactly what the plain Kùzu query answers, before and after every kind of write."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
from graphmemd.store import Store, observation_row
from graphmemd.store_tables import OffsetMap

QUERIES = ("cache", "lock timeout", "socket cache buffer", "nothing-matches-this")


def _doc(i: int, text: str) -> dict[str, object]:
    return {"id": f"obs-{i:03d}", "repo_id": "r", "text": text, "tags": ["t"], "created_at": 1.0, "updated_at": 1.0}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "graph.kuzu", buffer_pool_mb=64, max_db_size_gb=1)
    yield s
    s.close()


def _both_paths(s: Store, query: str) -> list[tuple[str, float]]:
    """The answer with the offset map fresh, checked against the plain query."""
    s.refresh_row_ids()
    fast = s.search_observations(query, 10)
    s._row_ids["Observation"] = None  # what a write does: the next search runs the plain query
    slow = s.search_observations(query, 10)
    assert fast == slow, query
    return fast


def test_offset_map_agrees_with_the_plain_query_through_writes(store: Store) -> None:
    words = ["cache", "lock", "timeout", "socket", "buffer"]
    texts = {i: f"note {words[i % 5]} {words[(i * 3) % 5]}" for i in range(40)}
    store.upsert_observations([observation_row(_doc(i, t)) for i, t in texts.items()])  # one batch
    before = {q: _both_paths(store, q) for q in QUERIES}
    assert not before["nothing-matches-this"]
    # every row of a batch is indexed with its own text (Kùzu's UNWIND...CREATE got this wrong)
    for w in words:
        assert {oid for oid, _ in store.search_observations(w, 50)} == {
            f"obs-{i:03d}" for i, t in texts.items() if w in t.split()
        }, w

    store.refresh_row_ids()
    store.delete_observation("obs-000")  # a write invalidates the map before the next search
    assert all(oid != "obs-000" for oid, _ in store.search_observations("cache", 50))
    for q in QUERIES:
        _both_paths(store, q)

    # rewritten rows (delete + insert) and new rows get new offsets
    store.refresh_row_ids()
    store.upsert_observations([observation_row(_doc(5, "cache cache cache")), observation_row(_doc(99, "socket"))])
    assert store.search_observations("cache", 1)[0][0] == "obs-005"
    for q in QUERIES:
        _both_paths(store, q)
    assert "obs-099" in {oid for oid, _ in _both_paths(store, "socket")}


def test_a_stale_offset_map_is_never_trusted(store: Store) -> None:
    store.upsert_observations([observation_row(_doc(i, "cache lock")) for i in range(3)])
    store.refresh_row_ids()
    ids = store._row_ids["Observation"]
    assert ids is not None
    assert len(ids) == 3
    # an offset the map does not know: the plain query answers, and the map is dropped
    store._row_ids["Observation"] = OffsetMap(pa.table({"o": pa.array([], pa.int64()), "id": [], "repo": []}))
    assert {oid for oid, _ in store.search_observations("cache", 10)} == {"obs-000", "obs-001", "obs-002"}
    assert store._row_ids["Observation"] is None


def test_an_index_built_by_the_old_batched_writes_is_rebuilt_at_open(tmp_path: Path) -> None:
    path = tmp_path / "graph.kuzu"
    s = Store(path, buffer_pool_mb=64, max_db_size_gb=1)
    rows = [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}]
    # what the first releases did: Kùzu 0.11.3 indexes "b" with "alpha"'s postings
    s._run("UNWIND $rows AS r CREATE (:Observation {id: r.id, text: r.text, tags: ''})", {"rows": rows})
    s._run("MATCH (m:Meta {key: 'observation_fts'}) DELETE m")
    assert [oid for oid, _ in s.search_observations("beta", 5)] == []
    s.close()
    s = Store(path, buffer_pool_mb=64, max_db_size_gb=1)
    try:
        assert [oid for oid, _ in s.search_observations("beta", 5)] == ["b"]
        assert [oid for oid, _ in s.search_observations("alpha", 5)] == ["a"]
    finally:
        s.close()


def test_offset_map_reads_chunked_and_sliced_arrays() -> None:
    offsets = pa.chunked_array([pa.array([0, 2], pa.int64()), pa.array([9, 5, 7, 40], pa.int64())[1:]])
    ids = pa.chunked_array([["a", "c"], ["e", "f", "z"]])
    repos = pa.chunked_array([["r", "r"], ["s", "s", "s"]])
    m = OffsetMap(pa.table({"o": offsets, "id": ids, "repo": repos}))  # offsets 0 2 5 7 40, sorted
    assert len(m) == 5
    assert [m.get(o) for o in (0, 2, 5, 7, 40)] == [("a", "r"), ("c", "r"), ("e", "s"), ("f", "s"), ("z", "s")]
    assert m.get(1) is None
    assert m.get(41) is None
    assert m.get(-1) is None
