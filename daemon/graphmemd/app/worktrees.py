"""Worktrees come and go: checkouts added and dropped without a command.

A supervised loop looks, five times a second, at the ``worktrees/`` folder of each registered
repository's common git directory (``git worktree add`` creates an entry there, ``git worktree
remove`` and ``git worktree prune`` delete it) and at whether each checkout's directory still
exists. A new worktree of a registered repository is registered (and indexed, sharing the
parses its siblings already have); for a repository registered as a folder inside its working
tree, the same folder of the new worktree is (once it exists there). A checkout whose worktree
entry or directory is gone is dropped: its graph is forgotten, its notes stay in the
repository and every other checkout keeps showing them. A lone repository whose directory
disappears is not dropped (it may be an unmounted disk: ``status`` reports it and the rescans
wait for it), and a worktree the user removed with ``graphmem repo remove`` is not registered
again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from graphmemd.ingest.gitinfo import worktree_roots
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.ingest.worktree_plan import CheckoutSeen, WorktreePlan, plan

logger = logging.getLogger(__name__)

#: how often the worktree folders and checkout directories are looked at
INTERVAL_S = 0.2


class WorktreeWatch:
    """The loop's step: look, plan, act through ``add`` and ``drop``."""

    def __init__(
        self,
        checkouts: Callable[[], list[RepoRuntime]],
        declined: Callable[[], set[Path]],
        add: Callable[[Path], object],
        drop: Callable[[RepoRuntime], object],
    ) -> None:
        self._checkouts = checkouts
        self._declined = declined
        self._add = add
        self._drop = drop
        self._stop = threading.Event()

    def step(self) -> bool:
        """One look (supervised loop); False once stopped."""
        if self._stop.wait(INTERVAL_S):
            return False
        self.look()
        return not self._stop.is_set()

    def look(self) -> WorktreePlan:
        """Compare what git lists with what is registered, and act on the difference."""
        rts = self._checkouts()
        seen = [
            CheckoutSeen(rt.id, rt.root, rt.repository, rt.common_dir, rt.root.is_dir(), rt.git_prefix) for rt in rts
        ]
        worktrees = {c: self._worktrees(c) for c in {rt.common_dir for rt in rts} if c is not None and c.is_dir()}
        todo = plan(seen, worktrees, self._declined())
        by_id = {rt.id: rt for rt in rts}
        for cid in todo.drop:
            logger.info("checkout %s (%s) is gone: dropped, its notes kept", cid, by_id[cid].root)
            self._drop(by_id[cid])
        for root in todo.add:
            if not root.is_dir():
                continue  # a registered folder this worktree's branch does not have (yet)
            logger.info("new worktree %s: registered", root)
            self._add(root)
        return todo

    def _worktrees(self, common_dir: Path) -> tuple[Path, ...]:
        # read every time (a few small files per worktree): an entry's ``locked`` file going
        # away when ``git worktree add`` is done does not touch the folder's own mtime
        return tuple(_resolved(r) for r in worktree_roots(common_dir))

    def stop(self) -> None:
        """End the loop at its next step."""
        self._stop.set()


def _resolved(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p
