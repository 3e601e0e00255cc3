"""Worktrees come and go: checkouts added and dropped without a command.

A supervised loop looks at the ``worktrees/`` folder of each registered repository's common
git directory (``git worktree add`` creates an entry there, ``git worktree remove`` and ``git
worktree prune`` delete it) and at whether each checkout's directory still exists. It looks
when woken and once a second besides: a second loop watches each common directory, its
``worktrees/`` folder and each entry in it (``GitDirWatch``: ``git worktree add`` holds a
``locked`` file in its entry until its files are checked out, and deletes it then), so a new
worktree is registered as soon as git is done with it. A new worktree of a registered
repository is registered (and indexed, sharing the parses its siblings already have); for a
repository registered as a folder inside its working tree, the same folder of the new
worktree is (once it exists there). A checkout whose worktree
entry or directory is gone is dropped: its graph is forgotten, its notes stay in the
repository and every other checkout keeps showing them. A worktree moved (``git worktree
move``: the same entry in the common directory, its ``gitdir`` naming the new place) is
registered at its new place and the notes saved at the old one move with it (``moved``).
A lone repository whose directory disappears is not dropped (it may be an unmounted disk:
``status`` reports it and the rescans wait for it), and a worktree the user removed with
``graphmem repo remove`` is not registered again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from graphmemd.ingest.gitinfo import worktree_entries, worktree_entry
from graphmemd.ingest.gitparse import WorktreeEntry
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.ingest.watcher import watch_dirs
from graphmemd.ingest.worktree_plan import CheckoutSeen, WorktreePlan, plan

logger = logging.getLogger(__name__)

#: how often the checkout directories are looked at when nothing woke the loop (a deleted
#: checkout directory), and the worktree folders too while a common directory is not watched
INTERVAL_S = 1.0
#: how often the worktree folders are read when nothing woke the loop while they are watched
#: (a safety net: every change git makes there wakes it)
FULL_LOOK_S = 30.0
#: how often the watch of the common directories checks whether what it watches changed
WATCH_TIMEOUT_MS = 1000


class WorktreeWatch:
    """The loop's step: look, plan, act through ``add`` and ``drop``."""

    def __init__(
        self,
        checkouts: Callable[[], list[RepoRuntime]],
        declined: Callable[[], set[Path]],
        add: Callable[[Path], object],
        drop: Callable[[RepoRuntime], object],
        interval_s: float = INTERVAL_S,
        watched: Callable[[], bool] = lambda: False,
        full_look_s: float = FULL_LOOK_S,
        moved: Callable[[str, Path], object] = lambda _old, _root: None,
        gone_entries: Callable[[], Mapping[WorktreeEntry, str]] = dict,
    ) -> None:
        self._checkouts = checkouts
        self._declined = declined
        self._add = add
        self._drop = drop
        #: (the id of a checkout dropped, the root registered in its place): a worktree moved
        self._moved_to = moved
        #: the entries of the checkouts dropped (now, before, or in an earlier run of the daemon)
        #: while git keeps them, with their ids: a move may be seen in two looks (the directory
        #: gone first, its new place listed next), or made while the daemon was stopped
        self._gone_entries = gone_entries
        self._interval = interval_s
        #: whether every common directory's worktree folders are watched now (``GitDirWatch.live``)
        self._watched = watched
        self._full_look = full_look_s
        self._stop = threading.Event()
        self._woken = threading.Event()
        #: (checkout id, its directory exists) of each checkout at the last look, and when it was
        self._last: frozenset[tuple[str, bool]] = frozenset()
        self._last_at = -float("inf")

    def step(self) -> bool:
        """One look, once woken (``wake``) or ``interval_s`` after the last (supervised
        loop); False once stopped. Unwoken while the worktree folders are watched, only the
        checkouts' directories are looked at (a ``stat`` each), and the folders read when one
        of those changed or ``full_look_s`` after the last full look."""
        woken = self._woken.wait(self._interval)
        self._woken.clear()  # (before the look: a wake during it means another look)
        if self._stop.is_set():
            return False
        if woken or not self._watched() or time.monotonic() - self._last_at >= self._full_look or self._moved():
            self.look()
        return not self._stop.is_set()

    def _moved(self) -> bool:
        """Whether a checkout came, went, or had its directory appear or disappear since the
        last look."""
        return frozenset((rt.id, rt.root.is_dir()) for rt in self._checkouts()) != self._last

    def wake(self) -> None:
        """Look now (something changed in a common directory's worktree folders)."""
        self._woken.set()

    def common_dirs(self) -> set[Path]:
        """The common git directories of the registered checkouts."""
        return {rt.common_dir for rt in self._checkouts() if rt.common_dir is not None}

    def look(self) -> WorktreePlan:
        """Compare what git lists with what is registered, and act on the difference."""
        rts = self._checkouts()
        seen = [
            CheckoutSeen(rt.id, rt.root, rt.repository, rt.common_dir, rt.root.is_dir(), rt.git_prefix, rt.git_entry)
            for rt in rts
        ]
        self._last, self._last_at = frozenset((c.id, c.exists) for c in seen), time.monotonic()
        listing = {c: self._worktrees(c) for c in {rt.common_dir for rt in rts} if c is not None and c.is_dir()}
        worktrees = {c: tuple(root for root, _ in listed) for c, listed in listing.items()}
        entries = {root: entry for listed in listing.values() for root, entry in listed if entry is not None}
        todo = plan(seen, worktrees, self._declined(), entries, self._gone_entries() if entries else {})
        by_id = {rt.id: rt for rt in rts}
        for cid in todo.drop:
            logger.info("checkout %s (%s) is gone: dropped, its notes kept", cid, by_id[cid].root)
            self._drop(by_id[cid])
        for root in todo.add:
            if not root.is_dir():
                continue  # a registered folder this worktree's branch does not have (yet)
            logger.info("new worktree %s: registered", root)
            self._add(root)
        for cid, root in todo.moved:
            if root.is_dir():
                logger.info("checkout %s moved to %s: its notes go with it", cid, root)
                self._moved_to(cid, root)
        return todo

    def _worktrees(self, common_dir: Path) -> tuple[tuple[Path, WorktreeEntry | None], ...]:
        # read every time (a few small files per worktree): an entry's ``locked`` file going
        # away when ``git worktree add`` is done does not touch the folder's own mtime
        return tuple(
            (_resolved(root), worktree_entry(entry) if entry is not None else None)
            for root, entry in worktree_entries(common_dir)
        )

    def stop(self) -> None:
        """End the loop at its next step."""
        self._stop.set()
        self._woken.set()


def watched_dirs(common_dirs: Iterable[Path]) -> tuple[Path, ...]:
    """What ``GitDirWatch`` watches of ``common_dirs``: each one itself (where ``worktrees/``
    appears), its ``refs/heads`` (a branch made or deleted), its ``worktrees/`` folder (where
    entries come and go) and each entry (where ``git worktree add`` deletes its ``locked`` file
    once done), those that exist."""
    out: list[Path] = []
    for common in sorted(set(common_dirs)):
        if not common.is_dir():
            continue
        out.append(common)
        if (common / "refs" / "heads").is_dir():
            out.append(common / "refs" / "heads")
        try:
            entries = sorted(e for e in (common / "worktrees").iterdir() if e.is_dir())
        except OSError:
            continue
        out += [common / "worktrees", *entries]
    return tuple(out)


class GitDirWatch:
    """Wakes a ``WorktreeWatch`` (``wake``) when something changes in the common directories
    of the registered checkouts (``common_dirs``) or their worktree folders (``watched_dirs``),
    on its own supervised loop."""

    def __init__(self, common_dirs: Callable[[], set[Path]], wake: Callable[[], None]) -> None:
        self._common_dirs = common_dirs
        self._wake = wake
        self._stop = threading.Event()
        self._failed = False  # (the first failure is a warning, the next ones are not)
        #: every common directory's worktree folders are watched now (or there is none):
        #: ``WorktreeWatch`` need not read them unless woken
        self.live = False

    def step(self) -> bool:
        """Watch what there is to watch until that changes (supervised loop); False once stopped."""
        dirs = watched_dirs(self._common_dirs())
        if not dirs:
            self.live = True
            return not self._stop.wait(WATCH_TIMEOUT_MS / 1000)
        try:
            changes = watch_dirs(dirs, self._stop, WATCH_TIMEOUT_MS)
            self._wake()  # (what changed before this watch began)
            for changed in changes:
                self.live = True
                if changed:
                    self._wake()
                if watched_dirs(self._common_dirs()) != dirs:
                    break  # a worktree came or went, a checkout of another repository: watch anew
        except (OSError, RuntimeError) as exc:  # one went away meanwhile, inotify is exhausted (the
            # watch's own errors are RuntimeErrors): the looks go on, once a second
            self.live = False
            (logger.debug if self._failed else logger.warning)("watch of git directories ended: %s", exc)
            self._failed = True
            self._stop.wait(WATCH_TIMEOUT_MS / 1000)
        return not self._stop.is_set()

    def stop(self) -> None:
        """End the loop (its watch ends within a step)."""
        self._stop.set()


def _resolved(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p
