"""PURE: what a daemon event means for the open documents.

Observation events name the files of their anchors (a payload-less one: every file of its
repository); a file-indexed event names its file; lost events mean everything (and the
repository roots) must be read again; an event from a repository the server does not know
means one was registered: the roots are read again. Index and watcher events change the
status line. A file indexed or an observation changed also means the open knowledge files of
its repository are checked again (a reference there may now dangle, or be fixed); an
observation that is a knowledge unit names its file.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from graphmem.types import Event, EventKind

__all__ = ["Route", "route"]

_OBSERVATION_KINDS = frozenset(
    {
        EventKind.OBSERVATION_CHANGED,
        EventKind.OBSERVATION_STALE,
        EventKind.OBSERVATION_FRESH,
        EventKind.OBSERVATION_SUSPECT,
    }
)
_STATUS_KINDS = frozenset(
    {EventKind.INDEX_PROGRESS, EventKind.INDEX_QUERYABLE, EventKind.WATCHER_DEGRADED, EventKind.EVENTS_LOST}
)


@dataclass(frozen=True, slots=True)
class Route:
    """The reaction to one event."""

    files: frozenset[tuple[str, str]] = frozenset()  # (repo id, path) to read again
    repos: frozenset[str] = frozenset()  # every open file of these repositories
    everything: bool = False  # every open file, and the roots
    roots: bool = False  # read the repository roots again
    status: bool = False  # the status line changed
    knowledge: frozenset[str] = frozenset()  # every open knowledge file of these repositories


def route(event: Event, known_repos: Set[str]) -> Route:
    """How the server reacts to ``event``, given the ids of the repositories it knows."""
    if event.kind is EventKind.EVENTS_LOST:
        return Route(everything=True, roots=True, status=True)
    unknown = bool(event.repo_id) and event.repo_id not in known_repos
    status = event.kind in _STATUS_KINDS
    knowledge = frozenset({event.repo_id}) if event.repo_id else frozenset()
    if event.kind in _OBSERVATION_KINDS:
        if event.observation is None:
            return Route(repos=frozenset({event.repo_id}), roots=unknown, status=status, knowledge=knowledge)
        o = event.observation
        files = {(a.repo_id or event.repo_id, a.path) for a in o.anchors}
        if o.knowledge is not None:
            files.add((o.repo_id or event.repo_id, o.knowledge.path))
        return Route(files=frozenset(files), roots=unknown, status=status, knowledge=knowledge)
    if event.kind is EventKind.FILE_INDEXED and event.path:
        indexed = frozenset({(event.repo_id, event.path)})
        return Route(files=indexed, roots=unknown, status=status, knowledge=knowledge)
    return Route(roots=unknown, status=status)
