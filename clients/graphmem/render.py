"""The one text rendering of observations, shared by the CLI, the MCP bridge and the daemon's
session briefs (whose token estimate measures exactly this text)."""

from __future__ import annotations

from graphmem.types import ChangeKind, Observation, ObservationStatus

__all__ = ["brief_line", "marker"]

#: Order of stale reasons in a marker, most serious first.
SEVERITY: dict[ChangeKind, int] = {
    ChangeKind.REMOVED: 4,
    ChangeKind.SIGNATURE_CHANGED: 3,
    ChangeKind.BODY_CHANGED: 2,
    ChangeKind.RENAMED: 1,
    ChangeKind.ADDED: 0,
    ChangeKind.DEPENDENCY_CHANGED: 0,
    ChangeKind.ANNOTATIONS_CHANGED: 0,
}


def _suspect_text(o: Observation) -> str:
    deps = [r for r in o.stale_reasons if r.change is ChangeKind.DEPENDENCY_CHANGED]
    if not deps:
        return "[SUSPECT]"
    more = f" (+{len(deps) - 1} more)" if len(deps) > 1 else ""
    return f"[SUSPECT: {deps[0].detail}{more}]"


def marker(o: Observation) -> str:
    """``[FRESH]``, ``[STALE: body changed]``, ``[SUSPECT: a.py::f calls b.py::g, whose
    signature changed]``, ``[SUPERSEDED by ID]``, ``[ARCHIVED]``, ``[ON BRANCH feature]`` (a
    note of another checkout made on a branch this one does not contain); plus ``[NEEDS
    REVIEW: …]`` when an anchor followed a rename."""
    if o.on_branch:
        text = f"[ON BRANCH {o.on_branch}]"
    elif o.status is ObservationStatus.STALE:
        own = {r.change for r in o.stale_reasons if r.change is not ChangeKind.DEPENDENCY_CHANGED}
        changes = sorted(own, key=lambda c: -SEVERITY.get(c, 0))
        what = ", ".join(c.value.replace("_", " ") for c in changes) or "code changed"
        text = f"[STALE: {what}]"
    elif o.status is ObservationStatus.SUSPECT:
        text = _suspect_text(o)
    elif o.status is ObservationStatus.SUPERSEDED:
        text = f"[SUPERSEDED by {o.superseded_by}]" if o.superseded_by else "[SUPERSEDED]"
    else:
        text = f"[{o.status.value.upper()}]"
    if o.needs_review:
        text += " [NEEDS REVIEW: anchor renamed or moved]"
    return text


def brief_line(o: Observation, why: str = "") -> str:
    """One observation as a line of a session brief: category, text, tags, anchors, a marker
    when it is not fresh, and how retrieval reached it."""
    note = ""
    if o.status is ObservationStatus.STALE:
        own = [r for r in o.stale_reasons if r.change is not ChangeKind.DEPENDENCY_CHANGED]
        note = f" [STALE: {own[0].change.value.replace('_', ' ')} at {own[0].anchor_ref}]" if own else " [STALE]"
    elif o.status is ObservationStatus.SUSPECT:
        note = " " + _suspect_text(o)
    anchors = ", ".join(a.ref for a in o.anchors)
    tags = f" #{' #'.join(o.tags)}" if o.tags else ""
    via = f" (via {why})" if why else ""
    where = f" ({o.knowledge.path}:{o.knowledge.start_line})" if o.knowledge is not None else ""
    return f"- [{o.category.value}] {o.text}{where}{tags} @ {anchors}{note}{via}"
