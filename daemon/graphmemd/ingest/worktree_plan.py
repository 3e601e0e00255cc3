"""What to do about worktrees that came or went (pure: no threads, no I/O).

The loop in ``app/worktrees.py`` looks at git and the registry and asks ``plan`` what to
register and what to drop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from graphmemd.ingest.gitparse import WorktreeEntry


@dataclass(frozen=True, slots=True)
class CheckoutSeen:
    """A registered checkout as the loop saw it."""

    id: str
    root: Path
    repository: str
    common_dir: Path | None
    exists: bool
    #: the checkout relative to the top of its working tree ("" at the top, else "a/b/")
    prefix: str = ""
    #: its worktree's entry in the common directory and that entry's stamp (``RepoRuntime.git_entry``)
    entry: WorktreeEntry | None = None


@dataclass(frozen=True, slots=True)
class WorktreePlan:
    """What to register and what to drop."""

    add: tuple[Path, ...] = ()
    drop: tuple[str, ...] = ()
    #: (a checkout dropped now or before, a root added now) that are one worktree moved: its
    #: entry is the same
    moved: tuple[tuple[str, Path], ...] = ()


def plan(
    seen: Sequence[CheckoutSeen],
    worktrees: Mapping[Path, Sequence[Path]],
    declined: Iterable[Path],
    entries: Mapping[Path, WorktreeEntry] | None = None,
    dropped: Mapping[WorktreeEntry, str] | None = None,
) -> WorktreePlan:
    """Pure: the worktrees of registered repositories that are not registered (and not
    declined), and the checkouts to drop: those git no longer lists as a worktree, and those
    of a repository of several whose directory is gone (``worktrees``: common directory ->
    its working trees). A checkout registered as a folder inside its working tree (its
    ``prefix``) stands for that same folder in every worktree: those are what is added and
    listed (whether the folder exists on a worktree's branch is for the caller to check).
    ``entries``: each listed working tree's entry (linked ones'); ``dropped``: the entries of
    checkouts dropped before, with their ids. A root added whose entry is that of a checkout
    dropped now or before is that worktree moved (``WorktreePlan.moved``)."""
    registered = {c.root for c in seen}
    skip = set(declined) | registered
    listed: dict[tuple[Path, str], list[Path]] = {}
    top_of: dict[Path, Path] = {}
    for c in seen:
        if c.common_dir is not None and c.common_dir in worktrees:
            roots = listed[(c.common_dir, c.prefix)] = []
            for top in worktrees[c.common_dir]:
                root = top / c.prefix if c.prefix else top
                roots.append(root)
                top_of[root] = top
    add = [r for roots in listed.values() for r in roots if r not in skip]
    per_repo: dict[str, int] = {}
    for c in seen:
        per_repo[c.repository] = per_repo.get(c.repository, 0) + 1
    drop: list[str] = []
    for c in seen:
        gone = c.common_dir is not None and c.root not in listed.get((c.common_dir, c.prefix), [c.root])
        if gone or (not c.exists and per_repo[c.repository] > 1):
            drop.append(c.id)
    owners = dict(dropped or {})
    owners.update((c.entry, c.id) for c in seen if c.id in drop and c.entry is not None)
    moved = []
    for root in dict.fromkeys(add):
        entry = (entries or {}).get(top_of[root])
        if entry is not None and entry in owners:
            moved.append((owners.pop(entry), root))
    return WorktreePlan(tuple(dict.fromkeys(add)), tuple(drop), tuple(moved))
