"""The FILE_INDEXED events of an applied delta (the indexer's, and a derived checkout's)."""

from __future__ import annotations

from graphmem.types import Event, EventKind

from graphmemd.graph.delta import GraphDelta
from graphmemd.graph.model import ChangeKind

_CHANGED = (ChangeKind.BODY_CHANGED, ChangeKind.SIGNATURE_CHANGED, ChangeKind.ANNOTATIONS_CHANGED)


def file_events(delta: GraphDelta, now: float) -> list[Event]:
    """One FILE_INDEXED event per changed or removed file of ``delta``, with symbol counts."""
    by_path = delta.changes_by_path()
    out: list[Event] = []
    for f in delta.changed:
        n = by_path.get(f.path, [])
        detail = {
            "removed": 0,
            "symbols": len(f.symbols),
            "added": sum(c.kind is ChangeKind.ADDED for c in n),
            "removed_symbols": sum(c.kind is ChangeKind.REMOVED for c in n),
            "changed": sum(c.kind in _CHANGED for c in n),
        }
        out.append(Event(EventKind.FILE_INDEXED, now, delta.repo_id, path=f.path, detail=detail))
    for p in delta.removed:
        detail = {"removed": 1, "symbols": 0, "added": 0, "removed_symbols": len(by_path.get(p, [])), "changed": 0}
        out.append(Event(EventKind.FILE_INDEXED, now, delta.repo_id, path=p, detail=detail))
    return out
