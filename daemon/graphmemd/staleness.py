"""Memory's pure core: anchors, fingerprints and staleness as a function of a graph delta.

No threads, no I/O. An anchor is stale when the symbol's signature or body fingerprint
differs from the one recorded at anchoring, or when the symbol or file is gone. Renames
found by the symbol diff move the anchor to the new id and flag the observation for
review. ``restale(delta, candidates, code, now, commit)`` returns the state changes a delta
causes, each with the event to publish; the shell (``memory.py``) journals and publishes them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from graphmem.types import (
    Anchor,
    AnchorKind,
    ChangeKind,
    EventKind,
    Observation,
    ObservationStatus,
    StaleReason,
)

from graphmemd.delta import GraphDelta
from graphmemd.model import SEVERITY, SymbolInfo, SymbolState
from graphmemd.model import ChangeKind as ModelChange


class CodeView(Protocol):
    """What staleness needs to know of the current code."""

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        """The symbol with this id, or None when it does not exist (any more)."""
        ...

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        """The file's structural fingerprint, or None when it is not indexed."""
        ...


@dataclass(frozen=True, slots=True)
class StateChange:
    """An observation before and after a delta, and the event that announces it."""

    before: Observation
    after: Observation
    event: EventKind


def file_fingerprint(symbols: Iterable[SymbolInfo], content_hash: str) -> str:
    """A file's structural fingerprint: its symbols' identities and hashes (formatting-blind).

    A file without symbols falls back to its content hash."""
    parts = sorted(f"{s.qualname}#{s.kind.value}:{s.sig_hash}:{s.body_hash}" for s in symbols)
    if not parts:
        return "content:" + content_hash
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def symbol_anchor(s: SymbolInfo) -> Anchor:
    """An anchor on ``s`` with its current fingerprints."""
    return Anchor(
        kind=AnchorKind.SYMBOL,
        ref=s.ref,
        repo_id=s.repo_id,
        path=s.path,
        symbol_id=s.id,
        signature=s.signature,
        sig_hash=s.sig_hash,
        body_hash=s.body_hash,
    )


def file_anchor(repo_id: str, path: str, fingerprint: str) -> Anchor:
    """An anchor on a file with its current structural fingerprint."""
    return Anchor(kind=AnchorKind.FILE, ref=path, repo_id=repo_id, path=path, body_hash=fingerprint)


_CHANGE_OF = {
    ModelChange.REMOVED: ChangeKind.REMOVED,
    ModelChange.SIGNATURE_CHANGED: ChangeKind.SIGNATURE_CHANGED,
    ModelChange.BODY_CHANGED: ChangeKind.BODY_CHANGED,
    ModelChange.RENAMED: ChangeKind.RENAMED,
}
_SEVERITY = {c: SEVERITY[m] for m, c in _CHANGE_OF.items()}


def severity(r: StaleReason) -> int:
    """How serious a stale reason is (removed > signature > body > renamed)."""
    return _SEVERITY.get(r.change, 0)


def evaluate_anchor(a: Anchor, code: CodeView, now: float, commit: str) -> StaleReason | None:
    """The reason an anchor no longer matches the code, or None when it still does."""
    if a.kind is AnchorKind.FILE:
        fp = code.file_fingerprint(a.repo_id, a.path)
        if fp is None:
            return StaleReason(a.ref, ChangeKind.REMOVED, now, commit=commit, detail=f"file {a.path} was removed")
        if fp != a.body_hash:
            return StaleReason(
                a.ref, ChangeKind.BODY_CHANGED, now, commit=commit, detail=f"the definitions in {a.path} changed"
            )
        return None
    s = code.symbol(a.symbol_id)
    if s is None:
        return StaleReason(
            a.ref, ChangeKind.REMOVED, now, old_signature=a.signature, commit=commit, detail=f"{a.ref} was removed"
        )
    if s.sig_hash != a.sig_hash:
        return StaleReason(
            a.ref,
            ChangeKind.SIGNATURE_CHANGED,
            now,
            old_signature=a.signature,
            new_signature=s.signature,
            commit=commit,
            detail=f"the signature of {a.ref} changed: {a.signature!r} -> {s.signature!r}",
        )
    if s.body_hash != a.body_hash:
        return StaleReason(a.ref, ChangeKind.BODY_CHANGED, now, commit=commit, detail=f"the body of {a.ref} changed")
    return None


def reevaluate(o: Observation, code: CodeView, now: float, commit: str) -> Observation:
    """The observation with status and reasons recomputed against the code.

    Reasons that persist keep their original detection time and commit; RENAMED reasons
    stay until someone confirms the observation. Archived and superseded observations keep
    their status (their reasons are still updated, for display)."""
    previous = {(r.anchor_ref, r.change): r for r in o.stale_reasons}
    reasons: list[StaleReason] = [r for r in o.stale_reasons if r.change is ChangeKind.RENAMED]
    for a in o.anchors:
        r = evaluate_anchor(a, code, now, commit)
        if r is not None:
            reasons.append(previous.get((r.anchor_ref, r.change), r))
    reasons.sort(key=lambda r: (-severity(r), r.anchor_ref))
    status = o.status
    if status in (ObservationStatus.FRESH, ObservationStatus.STALE):
        status = ObservationStatus.STALE if reasons else ObservationStatus.FRESH
    return replace(o, status=status, stale_reasons=tuple(reasons))


def follow_renames(o: Observation, renames: dict[str, SymbolState], now: float, commit: str) -> Observation:
    """Move anchors on renamed/moved symbols to the new id, with a RENAMED reason to review.

    The anchor takes the new fingerprints (the name is part of the signature); the reason
    keeps the old signature for the reviewer."""
    if not any(a.kind is AnchorKind.SYMBOL and a.symbol_id in renames for a in o.anchors):
        return o
    anchors: list[Anchor] = []
    reasons = list(o.stale_reasons)
    for a in o.anchors:
        target = renames.get(a.symbol_id) if a.kind is AnchorKind.SYMBOL else None
        if target is None:
            anchors.append(a)
            continue
        new_ref = f"{target.path}::{target.qualname}"
        anchors.append(
            replace(
                a,
                ref=new_ref,
                symbol_id=target.id,
                path=target.path,
                signature=target.signature,
                sig_hash=target.sig_hash,
                body_hash=target.body_hash,
            )
        )
        reasons.append(
            StaleReason(
                a.ref,
                ChangeKind.RENAMED,
                now,
                old_signature=a.signature,
                new_signature=target.signature,
                new_ref=new_ref,
                commit=commit,
                detail=f"{a.ref} was renamed or moved to {new_ref}",
            )
        )
    return replace(o, anchors=tuple(anchors), stale_reasons=tuple(reasons), needs_review=True)


def event_for(before: Observation, after: Observation) -> EventKind:
    """The event announcing a recomputed observation."""
    if after.status is ObservationStatus.STALE:
        return EventKind.OBSERVATION_STALE
    if after.status is ObservationStatus.FRESH and before.status is ObservationStatus.STALE:
        return EventKind.OBSERVATION_FRESH
    return EventKind.OBSERVATION_CHANGED


def restale(
    delta: GraphDelta, candidates: Sequence[Observation], code: CodeView, now: float, commit: str
) -> list[StateChange]:
    """The state changes ``delta`` causes to ``candidates`` (observations anchored to what it
    touched; every observation of the repository for a cold delta), ``code`` being the code
    after the delta. Unchanged observations are left out."""
    renames = {c.old.id: c.new for c in delta.changes if c.kind is ModelChange.RENAMED and c.old is not None and c.new}
    out: list[StateChange] = []
    for o in candidates:
        new = reevaluate(follow_renames(o, renames, now, commit), code, now, commit)
        if new != o:
            after = replace(new, updated_at=now)
            out.append(StateChange(o, after, event_for(o, after)))
    return out
