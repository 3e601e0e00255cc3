"""The audit trail of a note: the pure core (``memory.history``: one write's entries), the
codec (old documents without a history still load), and the journal-backed book: every write
records who and when, and a deletion record keeps who deleted the note and its history
through a reload, a compaction and the reconciliation with a real store."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import STORE_ENGINE
from graphmem.changes import history_line, history_words
from graphmem.errors import InvalidArgument, NotFound
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    HistoryEvent,
    HistoryKind,
    Observation,
    ObservationStatus,
    StaleReason,
)
from graphmemd.memory import history
from graphmemd.memory.journal import Journal
from graphmemd.memory.obsdoc import MAX_HISTORY, from_doc, to_doc
from graphmemd.memory.observations import ObservationBook, Origin
from graphmemd.memory.recovery import recover_observations
from graphmemd.store.engine import Store

F = Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py", "r:a.py::f", "def f(x):", "s1", "b1")
G = Anchor(AnchorKind.SYMBOL, "a.py::g", "r", "a.py", "r:a.py::g", "def g(x):", "s2", "b2")


def note(**kw: Any) -> Observation:
    base = Observation("n1", "r", "f retries twice", Category.DECISION, 1.0, 1.0, source="mcp:claude", anchors=(F,))
    return replace(base, **kw)


def kinds(events: tuple[HistoryEvent, ...]) -> list[HistoryKind]:
    return [e.kind for e in events]


# ------------------------------------------------------------------------------ pure core


def test_a_new_note_is_created_by_its_source_at_its_origin_commit() -> None:
    (e,) = history.events(None, note(origin_commit="c0ffee", supersedes=("old1",)), at=5.0, by="mcp:claude")
    assert (e.kind, e.at, e.by, e.commit, e.detail, e.related) == (
        HistoryKind.CREATED,
        5.0,
        "mcp:claude",
        "c0ffee",
        "supersedes old1",
        "old1",
    )


def test_each_kind_of_write_is_told_apart() -> None:
    o = note()
    stale = replace(
        o,
        status=ObservationStatus.STALE,
        stale_reasons=(StaleReason("a.py::f", ChangeKind.REMOVED, 9.0, commit="abc1234"),),
    )
    (e,) = history.events(o, stale, at=9.0, by=history.DAEMON, commit="head")
    assert (e.kind, e.by, e.commit, e.detail) == (
        HistoryKind.STALE,
        "graphmem",
        "abc1234",
        "`a.py::f`: removed",
    )
    # the code came back without anyone confirming: fresh again
    assert kinds(history.events(stale, o, at=10.0, by="graphmem", commit="h2")) == [HistoryKind.FRESH]
    # a confirmation is one entry, by whoever confirmed, even though the status went back to fresh
    confirmed = replace(o, confirmed_by="ui:ana", confirmed_at=11.0)
    (e,) = history.events(stale, confirmed, at=11.0, by="ui:ana", commit="h3")
    assert (e.kind, e.by, e.commit) == (HistoryKind.CONFIRMED, "ui:ana", "h3")
    suspect = replace(o, status=ObservationStatus.SUSPECT)
    assert kinds(history.events(o, suspect, at=12.0, by="graphmem")) == [HistoryKind.SUSPECT]
    (e,) = history.events(o, replace(o, text="f retries three times", tags=("x",)), at=13.0, by="cli:bo")
    assert (e.kind, e.by, e.detail) == (HistoryKind.EDITED, "cli:bo", "text, tags")
    (e,) = history.events(o, replace(o, anchors=(G,)), at=14.0, by="graphmem")
    assert (e.kind, e.detail) == (HistoryKind.REANCHORED, "a.py::f -> a.py::g")
    (e,) = history.events(o, replace(o, status=ObservationStatus.ARCHIVED), at=15.0, by="ui:ana")
    assert (e.kind, e.by) == (HistoryKind.ARCHIVED, "ui:ana")
    older = replace(o, status=ObservationStatus.SUPERSEDED, superseded_by="n2")
    (e,) = history.events(o, older, at=16.0, by="ui:ana", how="re-anchored")
    assert (e.kind, e.related, e.detail) == (HistoryKind.SUPERSEDED, "n2", "re-anchored")
    # nothing the history tells: nothing recorded
    assert history.events(o, replace(o, updated_at=99.0), at=17.0, by="graphmem") == ()
    # an archived note that the engine re-judges does not go "stale"
    archived = replace(o, status=ObservationStatus.ARCHIVED)
    assert history.events(archived, replace(archived, updated_at=3.0), at=18.0, by="graphmem") == ()


def test_the_history_keeps_the_first_entry_and_the_newest() -> None:
    o = note()
    for i in range(MAX_HISTORY + 30):
        flipped = replace(
            o, status=ObservationStatus.STALE if o.status is ObservationStatus.FRESH else ObservationStatus.FRESH
        )
        o = history.record(o, flipped, at=float(i), by="graphmem")
    assert len(o.history) == MAX_HISTORY
    assert o.history[-1].at == float(MAX_HISTORY + 29)
    created = history.record(None, note(), at=0.5, by="cli")
    long = replace(o, history=(created.history[0], *o.history))
    assert history.trim(long.history)[0].kind is HistoryKind.CREATED


def test_the_renderer_says_each_entry_in_words() -> None:
    e = HistoryEvent(HistoryKind.SUPERSEDED, 1.0, "ui:ana", "abcdef123456", "edited", "n2")
    assert history_words(e) == "superseded by n2 (edited)"
    assert history_line(e, "2026-11-29 05:00") == "2026-11-29 05:00  superseded by n2 (edited)  by ui:ana  at abcdef1"
    assert history_words(HistoryEvent(HistoryKind.STALE, 1.0, detail="`a.py::f`: removed")) == (
        "went stale: `a.py::f`: removed"
    )


# ------------------------------------------------------------------------------ codec


def test_the_codec_carries_the_history_and_old_documents_still_load() -> None:
    o = history.record(None, note(), at=2.0, by="cli:bo")
    assert from_doc(to_doc(o)) == o
    old = to_doc(note())
    assert "history" not in old  # a note without one writes none: old documents stay byte-equal
    assert from_doc(old).history == ()
    bad = {**to_doc(o), "history": [{"kind": "exploded", "at": 1.0}]}
    with pytest.raises(InvalidArgument, match=r"history\[0\]\.kind: unknown value 'exploded'"):
        from_doc(bad)


# ------------------------------------------------------------------------------ the book, on a real journal


def _book(path: Path) -> tuple[Journal, ObservationBook]:
    journal = Journal(path)
    return journal, ObservationBook(journal, lambda _o, _i: None)


def _lived(book: ObservationBook) -> tuple[str, str]:
    """Create a note, let the daemon judge it stale, confirm it, edit it, archive another one,
    supersede the first by re-anchoring and delete the second: (superseded id, deleted id)."""
    a = book.create(
        repo_id="r",
        text="f retries twice",
        category=Category.DECISION,
        tags=(),
        source="mcp:claude",
        confidence=1.0,
        anchors=(F,),
        origin=Origin("c0", "main"),
    )
    reason = StaleReason("a.py::f", ChangeKind.BODY_CHANGED, 3.0, commit="c1")
    book.apply([replace(a, status=ObservationStatus.STALE, stale_reasons=(reason,))], commit="c1")
    book.confirm(a.id, (F,), by="ui:ana", commit="c1")
    book.update(a.id, by="cli:bo", commit="c1", text="f retries twice, then gives up")
    b = book.create(
        repo_id="r",
        text="g is pure",
        category=Category.CONVENTION,
        tags=(),
        source="cli:bo",
        confidence=1.0,
        anchors=(G,),
    )
    book.archive(b.id, by="ui:ana", commit="c2")
    c = book.create(
        repo_id="r",
        text="f retries twice, then gives up",
        category=Category.DECISION,
        tags=(),
        source="ui:ana",
        confidence=1.0,
        anchors=(G,),
        supersedes=(a.id,),
    )
    assert c.history[0].related == a.id
    book.delete(b.id, by="ui:ana")
    return a.id, b.id


def _check(book: ObservationBook, a_id: str, b_id: str) -> None:
    a = book.get(a_id)
    assert [(e.kind, e.by, e.commit) for e in a.history] == [
        (HistoryKind.CREATED, "mcp:claude", "c0"),
        (HistoryKind.STALE, "graphmem", "c1"),
        (HistoryKind.CONFIRMED, "ui:ana", "c1"),
        (HistoryKind.EDITED, "cli:bo", "c1"),
        (HistoryKind.SUPERSEDED, "ui:ana", ""),
    ]
    assert (a.history[-1].detail, a.history[-1].related) == ("re-anchored", a.superseded_by)
    assert [e.at for e in a.history] == sorted(e.at for e in a.history)
    with pytest.raises(NotFound, match=rf"observation '{b_id}' was deleted by ui:ana at 20\d\d-"):
        book.get(b_id)
    deleted = book.deleted(b_id)
    assert deleted is not None
    at, by, events = deleted
    assert by == "ui:ana"
    assert kinds(events) == [HistoryKind.CREATED, HistoryKind.ARCHIVED, HistoryKind.DELETED]
    assert (events[1].by, events[1].commit, events[2].at) == ("ui:ana", "c2", at)
    assert book.deleted(a_id) is None


def test_every_write_is_recorded_and_survives_reload_and_compaction(tmp_path: Path) -> None:
    path = tmp_path / "observations.jsonl"
    journal, book = _book(path)
    a_id, b_id = _lived(book)
    _check(book, a_id, b_id)
    journal.close()
    journal, book = _book(path)  # a restart: the journal alone
    book.load()
    _check(book, a_id, b_id)
    book.rewrite_journal()  # compaction keeps the deletion record whole
    journal.close()
    journal, book = _book(path)
    book.load()
    _check(book, a_id, b_id)
    journal.close()
    # the text of the deleted note is gone from the journal; its record remains
    assert "g is pure" not in path.read_text()


def test_the_reconciliation_with_a_real_store_keeps_the_deletion_record(tmp_path: Path) -> None:
    path = tmp_path / "observations.jsonl"
    store = Store(tmp_path / "graph.kuzu", buffer_pool_mb=64, engine=STORE_ENGINE)
    try:
        journal, book = _book(path)
        a_id, b_id = _lived(book)
        journal.close()
        journal, book = _book(path)
        recover_observations(journal, book, store)
        _check(book, a_id, b_id)
        journal.close()
    finally:
        store.close()
