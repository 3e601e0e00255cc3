"""The audit trail of an observation (pure): what one write changed, as history entries.

Every write of an observation goes through ``ObservationBook._put``, which hands the version
it replaces and the new one to ``record``: the entries are derived from the difference (a
status that became stale, a confirmation time that moved, a text that changed, ...) and
stamped with who asked (the client's or agent's name; ``graphmem`` for the daemon's own
judgement), when, and the commit HEAD was at. Deriving them in one place means no write path
can forget to record itself. A document keeps at most ``MAX_HISTORY`` entries: the first
(created) and the newest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from graphmem.changes import change_line
from graphmem.types import HistoryEvent, HistoryKind, Observation, ObservationStatus

from graphmemd.memory.obsdoc import MAX_HISTORY

__all__ = ["DAEMON", "deleted", "events", "record", "trim"]

#: The actor of what the daemon decides itself (staleness, following a rename, a knowledge file).
DAEMON: Final = "graphmem"

_EDITABLE: Final = ("text", "category", "tags", "confidence")
_LIVE: Final = (ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT)
_JUDGED: Final = {ObservationStatus.STALE: HistoryKind.STALE, ObservationStatus.SUSPECT: HistoryKind.SUSPECT}


def _reasons(o: Observation) -> str:
    """The stale reasons, each in the one renderer's line (``changes.change_line``), without
    the commit: the entry has its own."""
    return "; ".join(change_line(replace(r, commit="")) for r in o.stale_reasons)


def _reason_commit(o: Observation, commit: str) -> str:
    return next((r.commit for r in o.stale_reasons if r.commit), commit)


def _created(new: Observation, at: float, by: str, commit: str) -> HistoryEvent:
    detail = f"supersedes {', '.join(new.supersedes)}" if new.supersedes else ""
    related = new.supersedes[0] if new.supersedes else ""
    return HistoryEvent(HistoryKind.CREATED, at, by or new.source, new.origin_commit or commit, detail, related)


def _status_events(old: Observation, new: Observation, at: float, by: str, commit: str, how: str) -> list[HistoryEvent]:
    if new.status is old.status:
        return []
    if new.status is ObservationStatus.SUPERSEDED:
        return [HistoryEvent(HistoryKind.SUPERSEDED, at, by, commit, how, new.superseded_by)]
    if new.status is ObservationStatus.ARCHIVED:
        return [HistoryEvent(HistoryKind.ARCHIVED, at, by, commit)]
    if old.status not in _LIVE:
        return []
    kind = _JUDGED.get(new.status)
    if kind is not None:
        return [HistoryEvent(kind, at, by, _reason_commit(new, commit), _reasons(new))]
    if new.confirmed_at == old.confirmed_at:  # fresh again without a confirmation: the code came back
        return [HistoryEvent(HistoryKind.FRESH, at, by, commit)]
    return []


def events(
    old: Observation | None, new: Observation, *, at: float, by: str, commit: str = "", how: str = ""
) -> tuple[HistoryEvent, ...]:
    """What writing ``new`` over ``old`` (None: a new note) did, oldest first. ``how`` says how
    a note was superseded (``edited``, ``re-anchored``)."""
    if old is None:
        return (_created(new, at, by, commit),)
    out: list[HistoryEvent] = []
    confirmed = new.confirmed_at is not None and new.confirmed_at != old.confirmed_at
    if confirmed:
        out.append(HistoryEvent(HistoryKind.CONFIRMED, at, new.confirmed_by or by, commit))
    changed = [f for f in _EDITABLE if getattr(old, f) != getattr(new, f)]
    if changed:
        out.append(HistoryEvent(HistoryKind.EDITED, at, by, commit, ", ".join(changed)))
    old_refs, new_refs = [a.ref for a in old.anchors], [a.ref for a in new.anchors]
    if old_refs != new_refs and not confirmed:
        moved = [f"{a} -> {b}" for a, b in zip(old_refs, new_refs, strict=False) if a != b]
        out.append(HistoryEvent(HistoryKind.REANCHORED, at, by, commit, "; ".join(moved)))
    out.extend(_status_events(old, new, at, by, commit, how))
    return tuple(out)


def trim(history: Sequence[HistoryEvent]) -> tuple[HistoryEvent, ...]:
    """At most ``MAX_HISTORY`` entries: the first one and the newest."""
    if len(history) <= MAX_HISTORY:
        return tuple(history)
    return (history[0], *history[len(history) - MAX_HISTORY + 1 :])


def record(
    old: Observation | None, new: Observation, *, at: float, by: str, commit: str = "", how: str = ""
) -> Observation:
    """``new`` with the entries of this write appended to the history it had (``old``'s: the
    history the journal holds is the base, whatever the caller's copy carried)."""
    base = old.history if old is not None else new.history
    added = events(old, new, at=at, by=by, commit=commit, how=how)
    if not added and base == new.history:
        return new
    return replace(new, history=trim((*base, *added)))


def deleted(o: Observation, *, at: float, by: str) -> tuple[HistoryEvent, ...]:
    """The history a deletion record keeps: the note's, with who deleted it and when."""
    return trim((*o.history, HistoryEvent(HistoryKind.DELETED, at, by)))
