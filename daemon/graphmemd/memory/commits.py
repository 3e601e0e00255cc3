"""Which commit made a change, or that it is not committed yet (pure).

A stale reason is found when the indexer takes in a change. Whether that change is in a commit
or only in the working tree is a fact about the file the reason is about (``reason_path``: the
anchor's file; a dependency's or a rename's target for those reasons): the shell asks git which
of those files differ from HEAD and ``mark_uncommitted`` flags the reasons found just now
(``detected_at == now``) in them. When HEAD moves, ``name_commits`` gives each uncommitted reason
whose file is clean again the last commit that touched it, and drops the flag; a note saved
on code not committed yet (``Observation.origin_uncommitted``) whose anchored files are all
clean again takes the commit HEAD is at as its origin (``commit_origin``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from graphmem.types import ChangeKind, Observation, StaleReason

from graphmemd.memory.knowledge import reference_states

__all__ = [
    "commit_origin",
    "mark_uncommitted",
    "name_commits",
    "new_reason_paths",
    "origin_paths",
    "reason_path",
    "uncommitted_reason_paths",
]


def reason_path(r: StaleReason) -> str:
    """The repository-relative file whose change the reason is about."""
    if r.change is ChangeKind.DEPENDENCY_CHANGED and r.dependency_ref:
        ref = r.dependency_ref
    elif r.change is ChangeKind.RENAMED and r.new_ref:
        ref = r.new_ref
    else:
        ref = r.anchor_ref
    return ref.partition("::")[0]


def new_reason_paths(notes: Iterable[Observation], now: float) -> set[str]:
    """The files of the reasons detected at ``now`` (the pass that just ran)."""
    return {reason_path(r) for o in notes for r in o.stale_reasons if r.detected_at == now}


def mark_uncommitted(o: Observation, now: float, dirty: Collection[str]) -> Observation:
    """``o`` with its reasons detected at ``now`` flagged uncommitted when their file is in ``dirty``."""
    reasons = tuple(
        replace(r, uncommitted=True) if r.detected_at == now and reason_path(r) in dirty else r for r in o.stale_reasons
    )
    return o if reasons == o.stale_reasons else _with_reasons(o, reasons)


def _with_reasons(o: Observation, reasons: tuple[StaleReason, ...]) -> Observation:
    """``o`` with ``reasons``; a knowledge unit's references said again (their lines say
    whether the change is committed)."""
    o = replace(o, stale_reasons=reasons)
    return replace(o, references=reference_states(o)) if o.knowledge is not None else o


def flag_uncommitted(
    notes: Sequence[Observation], now: float, uncommitted: Callable[[Collection[str]], Collection[str]]
) -> list[Observation]:
    """``notes`` with the reasons detected at ``now`` flagged uncommitted where their file
    differs from HEAD (``uncommitted(paths)``, asked only when there are such reasons)."""
    fresh_paths = new_reason_paths(notes, now)
    dirty = frozenset(uncommitted(fresh_paths)) if fresh_paths else frozenset()
    return [mark_uncommitted(o, now, dirty) for o in notes] if dirty else list(notes)


def uncommitted_reason_paths(notes: Iterable[Observation]) -> set[str]:
    """The files of every uncommitted reason of ``notes``."""
    return {reason_path(r) for o in notes for r in o.stale_reasons if r.uncommitted}


def origin_paths(o: Observation) -> set[str]:
    """The files a note saved on uncommitted code is about (none for any other note)."""
    return {a.path for a in o.anchors if a.path and a.repo_id == o.repo_id} if o.origin_uncommitted else set()


def commit_origin(o: Observation, committed: Mapping[str, str], head: str) -> Observation:
    """``o``, saved on code not committed then, with ``head`` (the commit HEAD is at now) as its
    origin once every file it is about is committed (``committed``: path -> the last commit
    that touched it, for the files no longer different from HEAD); ``o`` otherwise."""
    paths = origin_paths(o)
    if not paths or not head or not paths <= committed.keys():
        return o
    return replace(o, origin_commit=head, origin_uncommitted=False)


def name_commits(o: Observation, committed: Mapping[str, str]) -> Observation:
    """``o`` with each uncommitted reason whose file is now committed (``committed``: path ->
    the last commit that touched it) naming that commit."""
    keep = o.knowledge is not None  # a unit's reason was named by history already (``refresh_commits``)
    reasons = tuple(
        replace(r, uncommitted=False, commit=r.commit if keep and r.commit else committed[reason_path(r)])
        if r.uncommitted and reason_path(r) in committed
        else r
        for r in o.stale_reasons
    )
    return o if reasons == o.stale_reasons else _with_reasons(o, reasons)
