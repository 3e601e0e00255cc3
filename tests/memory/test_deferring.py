"""Listeners of the observation book are told of a write after the book's lock is let go:
a listener that takes its own lock, whose holder reads the book, cannot deadlock with it
(issue 43: a note saved in one worktree while the indexer judged another's projections)."""

from __future__ import annotations

import threading
from pathlib import Path

from graphmem.types import Anchor, AnchorKind, Category, Observation
from graphmemd.memory.deferring import DeferringLock
from graphmemd.memory.journal import Journal
from graphmemd.memory.observations import ObservationBook

F = Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py", "r:a.py::f", "def f(x):", "s1", "b1")


def _free_elsewhere(lock: DeferringLock) -> bool:
    """Whether another thread can take ``lock`` now (within a second)."""
    took: list[bool] = []

    def other() -> None:
        with lock:
            took.append(True)

    t = threading.Thread(target=other)
    t.start()
    t.join(1.0)
    return bool(took)


def test_a_deferred_call_runs_after_the_outermost_hold_in_order() -> None:
    lock = DeferringLock()
    ran: list[tuple[str, bool]] = []
    with lock:
        with lock:
            lock.defer(lambda: ran.append(("first", _free_elsewhere(lock))))
        assert ran == []  # the inner hold let go; the outer one still holds
        lock.defer(lambda: ran.append(("second", _free_elsewhere(lock))))
        assert ran == []
    assert ran == [("first", True), ("second", True)]
    lock.defer(lambda: ran.append(("unheld", True)))  # nothing held: at once
    assert ran[-1] == ("unheld", True)


def test_a_raise_inside_still_lets_go_and_runs_what_was_queued() -> None:
    lock = DeferringLock()
    ran: list[str] = []
    try:
        with lock:
            lock.defer(lambda: ran.append("queued"))
            raise ValueError("inside")
    except ValueError:
        pass
    assert ran == ["queued"]
    assert _free_elsewhere(lock)


def test_the_book_tells_its_listener_with_its_lock_free(tmp_path: Path) -> None:
    """A listener that reads the book from another thread (as the checkout projections'
    holder does) gets it: no write path tells it while holding the book's lock."""
    seen: list[tuple[str, int]] = []
    book: ObservationBook

    def listener(o: Observation | None, obs_id: str) -> None:
        got: list[int] = []
        t = threading.Thread(target=lambda: got.append(len(book.all())))
        t.start()
        t.join(2.0)
        seen.append((obs_id, got[0] if got else -1))

    book = ObservationBook(Journal(tmp_path / "journal.jsonl"), listener)
    a = book.create(repo_id="r", text="f retries twice", category=Category.OTHER, tags=(), source="t",
                    confidence=1.0, anchors=(F,))  # fmt: skip
    book.update(a.id, by="t", text="f retries three times")
    b = book.create(repo_id="r", text="f retries three times, said again", category=Category.OTHER, tags=(),
                    source="t", confidence=1.0, anchors=(F,), supersedes=(a.id,))  # fmt: skip
    book.confirm(b.id, (F,), by="t")
    assert seen
    assert all(n >= 1 for _, n in seen), seen  # -1: the listener waited on the book's lock
    assert [i for i, _ in seen][:2] == [a.id, a.id]
