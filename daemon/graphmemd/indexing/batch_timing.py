"""Where a watcher batch's time goes, for the daemon's log (``Indexer._changes``).

One line per batch: how many of its paths were parsed and removed, its steps with the
indexer thread's CPU (``Steps``: classify, parse, delta, swap, memory, publish, durable,
knowledge, dirty), how long after the newest write of its files it began (the watcher's
debounce and the indexer's queue, or the post-edit hook's hand-over), how many parse
workers had to start for it, and the parse workers' own time on its files (wall and CPU
milliseconds, summed: the parse step's wall time less this is the daemon's and the wait for
a CPU). A post-edit hook waits for exactly this path
(``app/settle.py``); ``scripts/bench_hooks.py`` reads these lines. Costs a clock read per
step and, for a batch of at most ``TIMED_WRITES`` files to parse, one ``stat`` per file.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from graphmemd.runtime.timing import Steps

__all__ = ["TIMED_WRITES", "BatchTiming"]

logger = logging.getLogger(__name__)

#: a batch of at most this many files to parse says how long after its newest write it began
TIMED_WRITES = 16


class BatchTiming:
    """The timing of one watcher batch (module docstring)."""

    def __init__(self) -> None:
        self.steps = Steps(cpu_clock=time.thread_time)
        self._started = time.time()
        self._written: float | None = None
        self._starts: Callable[[], int] = lambda: 0
        self._starts_before = 0
        self._worker_ms = [0.0, 0.0]
        self._worker_files = 0
        self._incremental = 0

    def parsing(self, todo: Collection[Path], started_workers: Callable[[], int]) -> None:
        """The batch classified its paths (``todo``: the files to parse, absolute) and is
        about to parse them; ``started_workers``: the parse pool's count of workers started."""
        if todo:
            self._written = _newest_write(todo) if len(todo) <= TIMED_WRITES else None
            self._starts = started_workers
            self._starts_before = started_workers()
        self.steps.mark("classify")

    def took(self, worker_ms: tuple[float, float] | None, incremental: bool = False) -> None:
        """A parse worker's (wall, CPU) milliseconds on one of the batch's files (None: not a
        worker's), and whether it re-parsed the file incrementally (``ParseOutcome.incremental``)."""
        self._incremental += incremental
        if worker_ms is not None:
            self._worker_ms[0] += worker_ms[0]
            self._worker_ms[1] += worker_ms[1]
            self._worker_files += 1

    def log(self, repo_id: str, paths: int, parsed: int, removed: int) -> None:
        """The batch's line in the daemon's log."""
        written, started = self._written, self._starts() - self._starts_before
        began = f" (begun {(self._started - written) * 1000:.1f} ms after the newest write)" if written else ""
        logger.info(
            "changes %s: %d of %d paths parsed, %d removed in %.1f ms%s%s: %s; %.1f CPU-ms%s",
            repo_id,
            parsed,
            paths,
            removed,
            self.steps.total * 1000,
            began,
            f", {started} parse workers started for it" if started else "",
            self.steps,
            self.steps.cpu * 1000,
            f"; parse workers {self._worker_ms[0]:.1f} ms ({self._worker_ms[1]:.1f} CPU) on {self._worker_files}"
            + (f", {self._incremental} re-parsed incrementally" if self._incremental else "")
            if self._worker_files
            else "",
        )


def _newest_write(paths: Iterable[Path]) -> float | None:
    """The newest modification time of ``paths`` (seconds), None when none can be read."""
    times = []
    for p in paths:
        with contextlib.suppress(OSError):
            times.append(p.stat().st_mtime)
    return max(times, default=None)
