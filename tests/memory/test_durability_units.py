"""Unit tests of the durability pieces: strict codec, request validation, journal scan,
quarantine and disk-full handling, and the start-up reconciliation against a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import STORE_ENGINE
from graphmem.errors import InvalidArgument, ResourceExhausted
from graphmem.v1 import service_pb2
from graphmemd.memory.journal import Journal
from graphmemd.memory.obsdoc import MAX_TS, from_doc, to_doc, validate_doc
from graphmemd.memory.observations import ObservationBook
from graphmemd.memory.recovery import recover_observations, resync_store
from graphmemd.memory.validation import parse_import, validate_request
from graphmemd.store.engine import Store, observation_row


def doc(oid: str = "a1", **extra: Any) -> dict[str, Any]:
    return {
        "id": oid,
        "repo_id": "r",
        "text": "tokens are single-use",
        "created_at": 1.0,
        "updated_at": 2.0,
        "anchors": [{"kind": "file", "ref": "a.py", "repo_id": "r", "path": "a.py"}],
        **extra,
    }


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"confirmed_at": 1e300}, "confirmed_at"),
        ({"updated_at": float("nan")}, "updated_at"),
        ({"created_at": MAX_TS + 1}, "created_at"),
        ({"confidence": 2}, "confidence"),
        ({"text": ["not", "a", "string"]}, "text"),
        ({"tags": ["a\x00b"]}, "tags"),
        ({"needs_review": "yes"}, "needs_review"),
        ({"status": "zombie"}, "status"),
        ({"anchors": [{"kind": "file"}]}, "ref"),
        ({"text": "x" * 20_001}, "text"),
    ],
)
def test_from_doc_rejects_what_would_break_a_reader(patch: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument, match=field):
        from_doc(doc(**patch))


def test_codec_round_trips() -> None:
    o = from_doc(doc(confirmed_at=3.0, tags=["x"]))
    assert from_doc(to_doc(o)) == o
    assert validate_doc(to_doc(o)) is None


def test_a_heading_unit_round_trips_its_flag() -> None:
    knowledge = {"path": "docs/a.rst", "start_line": 3, "end_line": 3, "kind": "documentation", "heading": True}
    o = from_doc(doc(knowledge=knowledge))
    assert o.knowledge is not None
    assert o.knowledge.heading
    assert from_doc(to_doc(o)) == o
    plain = from_doc(doc(knowledge={**knowledge, "heading": False}))
    assert plain.knowledge is not None
    assert not plain.knowledge.heading
    assert "heading" not in to_doc(plain)["knowledge"]


def test_a_deprecated_reference_round_trips_and_an_old_journal_s_is_read_from_its_reason() -> None:
    reason = "`get_stream` is deprecated: `pkg.__getattr__` still serves it, with a warning, since 1a2b3c4"
    ref = {"text": "get_stream", "line": 3, "column": 27, "end_line": 3, "end_column": 37, "state": "suspect"}
    knowledge = {"path": "docs/a.md", "start_line": 1, "end_line": 3, "kind": "documentation"}
    new = from_doc(doc(knowledge=knowledge, references=[{**ref, "reason": reason, "deprecated": True}]))
    assert new.references[0].deprecated
    assert to_doc(new)["references"][0]["deprecated"] is True
    assert from_doc(to_doc(new)) == new
    # written before the field: the reason says it (and only a suspect one's)
    old = from_doc(doc(knowledge=knowledge, references=[{**ref, "reason": reason}]))
    assert old.references[0].deprecated
    other = from_doc(doc(knowledge=knowledge, references=[{**ref, "reason": "`f`: parameter `x` was removed"}]))
    assert not other.references[0].deprecated
    assert "deprecated" not in to_doc(other)["references"][0]


def test_validate_request_names_the_field() -> None:
    with pytest.raises(InvalidArgument, match="text: contains a NUL"):
        validate_request(service_pb2.CreateObservationRequest(text="a\x00b"))
    with pytest.raises(InvalidArgument, match="255 bytes"):
        validate_request(service_pb2.AddRepositoryRequest(path="/tmp/" + "x" * 300))
    with pytest.raises(InvalidArgument, match="anchors: has 65 items"):
        validate_request(service_pb2.CreateObservationRequest(anchors=["a.py"] * 65))
    with pytest.raises(InvalidArgument, match="unknown Category"):
        validate_request(service_pb2.CreateObservationRequest(category=99))
    with pytest.raises(InvalidArgument, match="hops"):
        validate_request(service_pb2.RetrieveRequest(text="x", hops=7))
    with pytest.raises(InvalidArgument, match="finite"):
        validate_request(service_pb2.CreateObservationRequest(confidence=float("inf")))
    validate_request(service_pb2.CreateObservationRequest(text="fine", anchors=["a.py::f"], tags=["t"]))


def test_parse_import_reports_lines_and_keeps_the_rest() -> None:
    lines = [
        json.dumps({"op": "put", "obs": doc("ok")}),
        "",
        json.dumps({"op": "put", "obs": doc("bad", confirmed_at=1e300)}),
        "[1, 2]",
        json.dumps(doc("bare")),
    ]
    batch = parse_import(lines)
    assert [o.id for o in batch.observations] == ["ok", "bare"]
    assert [e.split(":")[0] for e in batch.errors] == ["line 3", "line 4"]


def test_journal_scan_collects_corrupt_lines(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append_many([{"n": i} for i in range(4)])
    raw = path.read_bytes().split(b"\n")
    raw[2] = b"\xff\xfe{broken"
    path.write_bytes(b"\n".join(raw))
    with Journal(path) as j:
        scan = j.scan()
    assert [r["n"] for r in scan.records] == [0, 1, 3]
    assert [(c.number, c.raw[:2]) for c in scan.corrupt] == [(3, b"\xff\xfe")]
    assert scan.existed


def test_journal_refuses_writes_when_the_disk_is_nearly_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Journal(tmp_path / "j.jsonl", min_free_bytes=1 << 20) as j:
        j.append({"n": 0})
        monkeypatch.setattr(j, "_free_bytes", lambda: 1000)
        with pytest.raises(ResourceExhausted, match="disk full"):
            j.append({"n": 1})
        assert "disk full" in j.space_problem()
        monkeypatch.setattr(j, "_free_bytes", lambda: 1 << 30)
        assert j.space_problem() == ""  # space is back: cleared without a write
        j.append({"n": 2})
        assert [r["n"] for r in j.replay()] == [0, 2]


def test_injected_enospc_leaves_no_partial_line_and_is_sticky(tmp_path: Path) -> None:
    fire = iter([True, False])
    with Journal(tmp_path / "j.jsonl", inject_enospc=lambda: next(fire, False)) as j:
        with pytest.raises(ResourceExhausted):
            j.append({"n": "lost"})
        assert "disk full" in j.space_problem()  # stays until a write succeeds
        j.append({"n": "kept"})
        assert j.space_problem() == ""
        assert [r["n"] for r in j.replay()] == ["kept"]


def _book(path: Path) -> tuple[Journal, ObservationBook]:
    journal = Journal(path)
    return journal, ObservationBook(journal, lambda _o, _i: None)


def test_recovery_against_a_real_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "graph.kuzu", buffer_pool_mb=64, engine=STORE_ENGINE)
    try:
        store.upsert_observations([observation_row(doc("s1")), observation_row(doc("gone"))])
        jpath = tmp_path / "observations.jsonl"
        with Journal(jpath) as j:
            j.append_many(
                [
                    {"op": "put", "obs": doc("j1")},
                    {"op": "put", "obs": doc("gone")},
                    {"op": "delete", "id": "gone", "at": 9.0},
                ]
            )
        with jpath.open("ab") as f:
            f.write(b"\x00\x01 not json\n")
        journal, book = _book(jpath)
        report = recover_observations(journal, book, store)
        assert sorted(o.id for o in book.all()) == ["j1", "s1"]
        assert report.quarantined_lines == (4,)
        assert "quarantined" in report.summary()
        assert sorted(s.id for s in store.observations()) == ["j1", "s1"]
        journal.close()
        # the journal was rewritten whole: it alone now yields the same state, tombstone kept
        journal2, book2 = _book(jpath)
        scan = journal2.scan()
        assert not scan.corrupt
        assert {"op": "delete", "id": "gone"}.items() <= scan.records[-1].items()
        book2.load()
        assert sorted(o.id for o in book2.all()) == ["j1", "s1"]
        # a store row lost behind the book's back is repaired without deleting anything else
        store.delete_observation("j1")
        assert resync_store(book2, store) == 1
        assert sorted(s.id for s in store.observations()) == ["j1", "s1"]
        journal2.close()
    finally:
        store.close()
