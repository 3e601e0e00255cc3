"""A re-entrant lock whose holder queues calls to run once it lets go.

The observation book tells the rest of the daemon of each write (events, the projections
into sibling checkouts). Those listeners take their own locks, and some of their holders
read the book: telling them while the book's lock is held inverts the lock order and can
deadlock (a note saved in one worktree while the indexer judges another's projections).
``DeferringLock.defer`` runs a call at once when the thread holds nothing, else after the
thread's outermost hold is released, in the order the calls were queued.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType


class DeferringLock:
    """A ``threading.RLock`` (``with lock:``) with ``defer``: calls run after the outermost hold."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._local = threading.local()

    def __enter__(self) -> DeferringLock:
        self._lock.acquire()
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            self._local.calls = []
        self._local.depth = depth + 1
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._local.depth -= 1
        calls: list[Callable[[], object]] = []
        if self._local.depth == 0:
            calls, self._local.calls = self._local.calls, []
        self._lock.release()
        for call in calls:
            call()

    def defer(self, call: Callable[[], object]) -> None:
        """Run ``call`` now when this thread holds the lock not at all, else when it lets go."""
        if getattr(self._local, "depth", 0) == 0:
            call()
        else:
            self._local.calls.append(call)
