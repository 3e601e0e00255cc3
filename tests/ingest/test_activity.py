"""What ``status`` and freshness say the indexer is doing (``ingest/activity.py``: pure)."""

from __future__ import annotations

from graphmemd.ingest.activity import IDLE, Activity, Doing, why_not_current


def test_each_step_in_everyday_words_with_its_figures() -> None:
    assert Activity(Doing.PARSING, 1204, 9933).words() == "indexing 1,204 of 9,933 files"
    assert Activity(Doing.KNOWLEDGE, 120, 340).words() == "reading knowledge files (120 of 340)"
    assert Activity(Doing.EDIT_BATCH, total=1).words() == "applying an edit batch (1 file)"
    assert Activity(Doing.EDIT_BATCH, total=3).words() == "applying an edit batch (3 files)"
    assert Activity(Doing.LOADING).words() == "putting the graph back from its snapshot"
    assert IDLE.words() == ""
    assert all(Activity(d).words() or d is Doing.IDLE for d in Doing)


def test_why_not_current_says_the_step_then_what_waits() -> None:
    reading = Activity(Doing.KNOWLEDGE, 4, 16)
    assert why_not_current(reading, pending=2, queued=True, rescan=False) == (
        "reading knowledge files (4 of 16); 2 saved files waiting to be indexed"
    )
    assert why_not_current(IDLE, pending=0, queued=True, rescan=False) == "an edit batch is waiting"
    assert why_not_current(IDLE, pending=0, queued=False, rescan=True, head_moved=True) == (
        "HEAD moved: a rescan is queued"
    )
    assert why_not_current(IDLE, pending=0, queued=False, rescan=False) == ""
