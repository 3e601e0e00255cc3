"""Query values written as Cypher literals (Kùzu 0.11.3 leaks memory for every query run with
parameters) and the store's periodic reopen (it leaks for rows deleted from full-text-indexed
tables until the database closes): both keep every value exactly, and a real store answers
the same before and after."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import STORE_ENGINE
from graphmemd.store.engine import Store, observation_row
from graphmemd.store.engines import WORKAROUNDS
from graphmemd.store.literals import MAX_LIST, inline, literal

TRICKY = [
    "it's",
    "back\\slash",
    "ends with \\",
    "\\'",
    'double "quotes"',
    "new\nline and\ttab\r",
    "NUL \x00 inside",
    "ünïcödé ∂ƒ 中文 🎉",
    "$id and $text look like parameters",
    "// not a comment /* nor this */",
    json.dumps({"a": "b\\\"c", "n": [1, 2]}),
    "",
]


@pytest.fixture(params=["literals", "parameters"])
def store(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Store]:
    """A real store writing values as literals (with every workaround), or as parameters."""
    workarounds = frozenset(WORKAROUNDS) if request.param == "literals" else frozenset()
    s = Store(tmp_path / "graph.db", buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE, workarounds=workarounds)
    yield s
    s.close()


def test_literals() -> None:
    assert literal(None) == "NULL"
    assert literal(True) == "true"
    assert literal(-5) == "-5"
    assert literal(2**63) is None  # beyond int64: stays a parameter
    assert literal(1732412345.25) == "1732412345.25"
    assert literal(1e-7) is None  # Cypher has no exponent notation
    assert literal(float("nan")) is None
    assert literal("it's \\") == "'it\\'s \\\\'"
    assert literal(["a", "b'"]) == "['a', 'b\\'']"
    assert literal([]) is None  # an empty list's type cannot be inferred
    assert literal(["a", 1]) is None
    assert literal(["x"] * (MAX_LIST + 1)) is None
    assert literal({"a": 1}) is None


def test_inline_replaces_each_parameter_once() -> None:
    assert inline("MATCH (o {id: $id}) SET o.t = $t", {"id": "$t", "t": "x"}) == "MATCH (o {id: '$t'}) SET o.t = 'x'"
    assert inline("RETURN $a, $b", {"a": 1}) is None  # a missing value: run with parameters
    assert inline("RETURN $a", {"a": float("inf")}) is None


def _doc(i: int, text: str) -> dict[str, object]:
    tags = [text[:5]]
    return {"id": f"obs-{i:03d}", "repo_id": "r", "text": text, "tags": tags, "created_at": 1.5, "updated_at": 2.5}


def test_every_character_survives_a_write_and_a_read(store: Store) -> None:
    docs = {f"obs-{i:03d}": observation_row(_doc(i, t)) for i, t in enumerate(TRICKY)}
    for row in docs.values():
        store.upsert_observations([row])  # one row: the CREATE path, with its values inlined
    stored = {o.id: o.doc for o in store.observations()}
    assert stored == {k: r["doc"] for k, r in docs.items()}
    store.delete_observation("obs-000")
    assert "obs-000" not in {o.id for o in store.observations()}


def test_reopen_keeps_data(store: Store) -> None:
    if "recycle" not in store.engine.workarounds:
        assert not store.recycle_if_due(every=1)  # never reopened without the workaround
        return
    store.upsert_observations([observation_row(_doc(i, f"cache lock note {i}")) for i in range(5)])
    before = sorted((o.id, o.doc) for o in store.observations())
    assert len(before) == 5
    assert not store.recycle_if_due(every=10**9)  # not due: nothing happens
    assert store.recycle_if_due(every=1)
    assert store.queries == 0
    assert sorted((o.id, o.doc) for o in store.observations()) == before
    store.upsert_observations([observation_row(_doc(9, "cache again"))])  # writes work after it
    assert "obs-009" in {o.id for o in store.observations()}
