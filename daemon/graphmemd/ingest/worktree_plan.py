"""What to do about worktrees that came or went (pure: no threads, no I/O).

The loop in ``app/worktrees.py`` looks at git and the registry and asks ``plan`` what to
register and what to drop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class CheckoutSeen:
    """A registered checkout as the loop saw it."""

    id: str
    root: Path
    repository: str
    common_dir: Path | None
    exists: bool


@dataclass(frozen=True, slots=True)
class WorktreePlan:
    """What to register and what to drop."""

    add: tuple[Path, ...] = ()
    drop: tuple[str, ...] = ()


def plan(
    seen: Sequence[CheckoutSeen], worktrees: Mapping[Path, Sequence[Path]], declined: Iterable[Path]
) -> WorktreePlan:
    """Pure: the worktrees of registered repositories that are not registered (and not
    declined), and the checkouts to drop: those git no longer lists as a worktree, and those
    of a repository of several whose directory is gone (``worktrees``: common directory ->
    its working trees)."""
    registered = {c.root for c in seen}
    skip = set(declined) | registered
    add = [r for roots in worktrees.values() for r in roots if r not in skip]
    per_repo: dict[str, int] = {}
    for c in seen:
        per_repo[c.repository] = per_repo.get(c.repository, 0) + 1
    drop: list[str] = []
    for c in seen:
        listed = c.common_dir is None or c.common_dir not in worktrees or c.root in worktrees[c.common_dir]
        if not listed or (not c.exists and per_repo[c.repository] > 1):
            drop.append(c.id)
    return WorktreePlan(tuple(dict.fromkeys(add)), tuple(drop))
