"""Let the index take in files an agent just saved, within a short deadline (the post-edit hook).

An agent's post-edit hook runs a moment after the file was written, usually before the
watcher's batch reached the indexer. ``settle`` hands the files to the indexer at once (as a
watcher batch would: one ``changes`` job per burst) and waits, polling, until each file's size
and modification time at its last parse equal the ones on disk and the repository has no job
queued or running, or until the deadline. Files the index never takes (ignored, not a supported
language, too large) are not waited for.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphmemd.indexing.indexer import Indexer
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.registry import RepoRuntime

__all__ = ["POLL_S", "Edited", "settle"]

#: How often the index is checked while waiting.
POLL_S = 0.004


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
    """Whether the index holds the file as it is on disk, with nothing left to do for it."""
    rt = e.rt
    if rt.stats.get(e.rel) != _stat_key(e.path) or rt.queued or rt.busy:
        return False
    with rt.lock:
        return e.path not in rt.pending


def settle(
    files: Sequence[str],
    locate: Callable[[str], tuple[RepoRuntime, str]],
    indexer: Indexer,
    *,
    wait_s: float,
    max_file_size: int,
) -> tuple[list[Edited], bool]:
    """The edited ``files`` (``locate``: path -> repository and relative path) and whether the
    index took in their current content within ``wait_s`` seconds (module docstring)."""
    deadline = time.monotonic() + max(0.0, wait_s)
    edited: list[Edited] = []
    for f in files:
        rt, rel = locate(f)
        path = rt.root / rel
        key = _stat_key(path)
        edited.append(Edited(rt, rel, path, key[1] / 1e9 if key is not None else 0.0))
    waiting = [e for e in edited if _indexable(e, max_file_size)]
    for e in waiting:  # not parsed at this state yet: hand it over now rather than after the watcher's debounce
        if e.rt.stats.get(e.rel) != _stat_key(e.path):
            indexer.on_batch(e.rt, {e.path})
    while True:
        if all(_taken_in(e) for e in waiting):
            return edited, True
        if time.monotonic() >= deadline:
            return edited, False
        time.sleep(POLL_S)
