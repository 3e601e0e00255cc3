"""Which watched roots share one watch (pure: no threads, no I/O).

Each root a ``RepoWatcher`` is given is watched on its own first (its own thread and watch,
live before its first scan, as ever). Every watch wakes every ``step_ms`` (20 ms) to check
whether it was asked to stop, so an idle daemon's CPU grew with its checkouts (16 worktrees:
~1.5-2 % of a CPU, each root's thread 0.1-0.2 %). Once no root was added for a while, the
roots watched on their own and healthy join the *group*: one watch over all of them, on one
thread, with the same debounce and step (so a batch is as soon as before). Taking a new group
over from the old one leaves no gap: the new watch is live before the old ones stop (a change
in between is reported twice; the daemon stats every reported path, so twice is harmless).

``regroup`` decides when, and with which roots; ``root_of`` tells which root a reported path
belongs to.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Alone:
    """A root watched on its own: whether it is healthy (live, watching, not degraded) and
    since when (monotonic seconds; None when not healthy)."""

    root: Path
    healthy_since: float | None


def regroup(
    grouped: Collection[Path], alone: Iterable[Alone], now: float, last_added: float, quiet_s: float
) -> tuple[Path, ...] | None:
    """The roots of the next group, or None to keep things as they are. Nothing changes until
    ``quiet_s`` passed since a root was last added (``last_added``): a burst of new worktrees
    is joined once, after it, rather than once per worktree (each new group walks every root
    it watches). Then every root healthy for ``quiet_s`` joins ``grouped`` (the roots the
    current group watches), when that makes a group of two roots or more."""
    if now - last_added < quiet_s:
        return None
    joining = [a.root for a in alone if a.healthy_since is not None and now - a.healthy_since >= quiet_s]
    if not joining or len(grouped) + len(joining) < 2:
        return None
    return tuple(sorted({*grouped, *joining}))


def root_of(path: str, roots: Collection[Path]) -> Path | None:
    """The root of ``roots`` that ``path`` (absolute, as the watch reports it) is in: the
    deepest one, should roots nest; None when in none of them."""
    best: Path | None = None
    for root in roots:
        text = str(root)
        if (path == text or path.startswith(text + os.sep)) and (best is None or len(text) > len(str(best))):
            best = root
    return best
