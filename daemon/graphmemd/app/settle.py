"""Let the index take in files an agent just saved, within a short deadline (the post-edit hook).

An agent's post-edit hook runs a moment after the file was written, usually before the
watcher's batch reached the indexer. ``settle`` hands the files to the indexer at once (as a
watcher batch would: one ``changes`` job per burst) and waits until each file's size and
modification time as its last batch applied it (graph, notes, knowledge) equal the ones on
disk, or at its last parse with the repository having no job queued or running, or until the
deadline: it checks again each time the indexer finishes a job or applies a batch
(``Indexer.job_done``), not on a poll interval. Files the index never takes (ignored, not a
supported language, too large) are not waited for.
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from graphmemd.indexing.indexer import Indexer
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.registry import RepoRuntime

__all__ = ["Arrival", "Edited", "Settled", "settle"]


@dataclass(frozen=True, slots=True)
class Edited:
    """One edited file: its repository, path in it, absolute path and modification time
    (seconds; 0 when it no longer exists)."""

    rt: RepoRuntime
    rel: str
    path: Path
    mtime: float


def _stat_key(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def _indexable(e: Edited, max_file_size: int) -> bool:
    key = _stat_key(e.path)
    return (
        key is not None
        and key[0] <= max_file_size
        and language_for_path(e.rel) is not None
        and not e.rt.filter.is_ignored(e.rel)
    )


def _taken_in(e: Edited) -> bool:
    """Whether the index holds the file as it is on disk, its notes judged: its batch applied
    it (that job may still be running: its ``git status``; a watcher batch queued with the
    file meanwhile will find it parsed at this state and skip it), or nothing is left to do
    for it."""
    rt = e.rt
    key = _stat_key(e.path)
    if key is not None and rt.applied.get(e.rel) == key:
        return True
    with rt.lock:
        if e.path in rt.pending:
            return False
    return rt.stats.get(e.rel) == key and not rt.queued and not rt.busy


@dataclass(frozen=True, slots=True)
class Settled:
    """What ``settle`` found and waited for: the edited files, whether the index took their
    current content in before the deadline, how each file stood when the call arrived, and
    the seconds waited."""

    edited: list[Edited]
    indexed: bool
    arrival: tuple[Arrival, ...]
    waited_s: float
    #: seconds from the newest edited file's modification to the call's arrival
    age_s: float = 0.0

    def describe(self) -> str:
        """One phrase for the daemon's log: ``3 files written 52.0 ms before the call (1 handed
        over, 2 in the index already), taken in after 41.2 ms``."""
        counts = ", ".join(f"{n} {a.value}" for a, n in Counter(self.arrival).items())
        what = "taken in" if self.indexed else "NOT taken in (deadline)"
        files = f"{len(self.edited)} file{'' if len(self.edited) == 1 else 's'}"
        return (
            f"{files} written {self.age_s * 1000:.1f} ms before the call "
            f"({counts or 'none indexable'}), {what} after {self.waited_s * 1000:.1f} ms"
        )


class Arrival(Enum):
    """How an edited file stood when the post-edit call arrived."""

    #: the index held the file's current content already (the watcher's batch got there first)
    INDEXED = "in the index already"
    #: parsed at this state, its batch still being applied (or another job still running)
    APPLYING = "being applied"
    #: the watcher's batch with it was queued, not started
    QUEUED = "queued by the watcher"
    #: not seen yet: handed to the indexer by this call
    HANDED = "handed over"


def _arrival(e: Edited) -> Arrival:
    rt = e.rt
    if rt.stats.get(e.rel) != _stat_key(e.path):
        with rt.lock:
            return Arrival.QUEUED if e.path in rt.pending else Arrival.HANDED
    return Arrival.INDEXED if _taken_in(e) else Arrival.APPLYING


def settle(
    files: Sequence[str],
    locate: Callable[[str], tuple[RepoRuntime, str]],
    indexer: Indexer,
    *,
    wait_s: float,
    max_file_size: int,
) -> Settled:
    """The edited ``files`` (``locate``: path -> repository and relative path) and whether the
    index took in their current content within ``wait_s`` seconds (module docstring)."""
    started, now = time.monotonic(), time.time()
    deadline = started + max(0.0, wait_s)
    edited: list[Edited] = []
    for f in files:
        rt, rel = locate(f)
        path = rt.root / rel
        key = _stat_key(path)
        edited.append(Edited(rt, rel, path, key[1] / 1e9 if key is not None else 0.0))
    waiting = [e for e in edited if _indexable(e, max_file_size)]
    arrival = tuple(_arrival(e) for e in waiting)
    age = now - max((e.mtime for e in edited), default=now)
    for e, how in zip(waiting, arrival, strict=True):
        if how is Arrival.HANDED:  # hand it over now rather than after the watcher's debounce
            indexer.on_batch(e.rt, {e.path})
    with indexer.job_done:  # (the indexer notifies it after each job, having marked the repository not busy)
        while not (taken := all(_taken_in(e) for e in waiting)) and (left := deadline - time.monotonic()) > 0:
            indexer.job_done.wait(left)
    return Settled(edited, taken, arrival, time.monotonic() - started, age)
