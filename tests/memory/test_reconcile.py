"""The pure merge of journal and store: union, newest wins, deletions only by tombstones."""

from __future__ import annotations

import json
from typing import Any

from graphmemd.memory.obsdoc import validate_doc
from graphmemd.memory.reconcile import FoldedJournal, fold_records, reconcile


def doc(oid: str, updated: float, text: str = "t", **extra: Any) -> dict[str, Any]:
    return {"id": oid, "text": text, "created_at": 1.0, "updated_at": updated, **extra}


def put(d: dict[str, Any], key: str = "") -> dict[str, Any]:
    rec: dict[str, Any] = {"op": "put", "obs": d}
    if key:
        rec["key"] = key
    return rec


def rows(*docs: dict[str, Any]) -> dict[str, str]:
    return {d["id"]: json.dumps(d) for d in docs}


def test_fold_last_write_wins_and_delete_then_put_revives() -> None:
    f = fold_records([put(doc("a", 1)), put(doc("a", 2, "new"), key="k"), {"op": "delete", "id": "b", "at": 5.0}])
    assert f.docs["a"]["text"] == "new"
    assert f.tombstones == {"b": 5.0}
    assert f.keys == {"k": "a"}
    f2 = fold_records([{"op": "delete", "id": "a", "at": 3.0}, put(doc("a", 4))])
    assert "a" in f2.docs
    assert not f2.tombstones


def test_fold_rejects_unusable_records_and_keeps_the_previous_version() -> None:
    f = fold_records(
        [
            put(doc("a", 1, "good")),
            put(doc("a", 2, "bad", confirmed_at=1e300)),
            {"op": "put", "obs": {"text": "no id"}},
            {"op": "frobnicate"},
            {"op": "delete"},
        ],
        validate_doc,
    )
    assert f.docs["a"]["text"] == "good"
    assert len(f.rejected) == 4
    assert "confirmed_at" in f.rejected[0].reason


def test_empty_journal_is_rebuilt_from_the_store_and_nothing_is_deleted() -> None:
    m = reconcile(FoldedJournal(), rows(doc("a", 1), doc("b", 2)))
    assert m.rebuild_journal
    assert sorted(m.docs) == ["a", "b"]
    assert not m.store_deletes
    assert not m.store_upserts


def test_union_newest_wins_both_ways() -> None:
    j = fold_records([put(doc("a", 5, "journal newer")), put(doc("b", 1, "journal older")), put(doc("c", 1))])
    store = rows(doc("a", 1, "store older"), doc("b", 9, "store newer"), doc("d", 3, "store only"))
    m = reconcile(j, store)
    assert m.docs["a"]["text"] == "journal newer"
    assert m.docs["b"]["text"] == "store newer"
    assert set(m.docs) == {"a", "b", "c", "d"}
    assert {d["id"] for d in m.store_upserts} == {"a", "c"}
    assert {d["id"] for d in m.journal_appends} == {"b", "d"}
    assert not m.rebuild_journal
    assert not m.store_deletes


def test_tie_is_deterministic_and_prefers_the_journal() -> None:
    j = fold_records([put(doc("a", 5, "from journal"))])
    m = reconcile(j, rows(doc("a", 5, "from store")))
    assert m.docs["a"]["text"] == "from journal"
    assert m.store_upserts
    assert not m.journal_appends


def test_deletion_only_by_tombstone() -> None:
    j = fold_records([put(doc("keep", 1)), {"op": "delete", "id": "gone", "at": 10.0}])
    m = reconcile(j, rows(doc("gone", 5), doc("absent-from-journal", 2)))
    assert m.store_deletes == ("gone",)
    assert "gone" not in m.docs
    assert "absent-from-journal" in m.docs
    assert m.tombstones == {"gone": 10.0}


def test_a_version_newer_than_the_tombstone_survives() -> None:
    j = fold_records([{"op": "delete", "id": "a", "at": 3.0}])
    m = reconcile(j, rows(doc("a", 7)))
    assert "a" in m.docs
    assert not m.store_deletes
    assert "a" not in m.tombstones


def test_invalid_store_rows_are_ignored_and_overwritten_from_the_journal() -> None:
    j = fold_records([put(doc("a", 1))])
    store = {"a": "{not json", "z": json.dumps(doc("z", 1, confirmed_at=1e300))}
    m = reconcile(j, store, validate_doc)
    assert m.unreadable_store_rows == ("a", "z")
    assert [d["id"] for d in m.store_upserts] == ["a"]
    assert "z" not in m.docs


def test_keys_only_for_live_observations() -> None:
    j = fold_records([put(doc("a", 1), key="ka"), put(doc("b", 1), key="kb"), {"op": "delete", "id": "b", "at": 2}])
    m = reconcile(j, {})
    assert m.keys == {"ka": "a"}
    assert not m.rebuild_journal
    assert not m.journal_appends


def test_agreeing_sides_need_nothing() -> None:
    d = doc("a", 1)
    m = reconcile(fold_records([put(d)]), rows(d))
    assert not m.store_upserts
    assert not m.journal_changes
    assert m.summary() == ""


def test_keys_kept_by_the_store_survive_a_lost_journal() -> None:
    a, b = doc("a", 1), doc("b", 1)
    m = reconcile(fold_records([]), rows(a, b), validate_doc, {"a": "ka"})
    assert m.rebuild_journal
    assert m.keys == {"ka": "a"}
    assert not m.store_upserts


def test_a_store_row_without_its_key_is_rewritten_with_it() -> None:
    a, b = doc("a", 1), doc("b", 1)
    m = reconcile(fold_records([put(a, key="ka"), put(b, key="kb")]), rows(a, b), validate_doc, {"b": "kb"})
    assert [d["id"] for d in m.store_upserts] == ["a"]
    assert m.keys == {"ka": "a", "kb": "b"}
    # the journal's key wins a conflict; a deleted observation's key is dropped
    j = fold_records([put(a, key="ka"), put(b), {"op": "delete", "id": "b", "at": 2}])
    assert reconcile(j, rows(a), validate_doc, {"a": "other", "b": "kb"}).keys == {"ka": "a"}
