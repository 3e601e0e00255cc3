"""Memory's pure core: anchors, fingerprints and staleness as a function of a graph delta.

No threads, no I/O. An anchor is stale when the symbol's signature or body fingerprint
differs from the one recorded at anchoring, or when the symbol or file is gone. Renames
found by the symbol diff move the anchor to the new id and flag the observation for
review. ``restale(delta, candidates, code, now, commit)`` returns the state changes a delta
causes, each with the event to publish; the shell (``memory.py``) journals and publishes them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from graphmem.types import (
    Anchor,
    AnchorKind,
    ChangeKind,
    EdgeKind,
    EventKind,
    Observation,
    ObservationStatus,
    StaleReason,
)

from graphmemd.graph.delta import GraphDelta, Impact
from graphmemd.graph.model import ChangeKind as ModelChange
from graphmemd.graph.model import SymbolState, file_id
from graphmemd.memory.anchors import (
    SUSPECT_ONLY,
    CodeView,
    dependency_holds,
    evaluate_anchor,
    file_anchor,
    persisting,
    severity,
    symbol_anchor,
)
from graphmemd.memory.knowledge import grade
from graphmemd.memory.spelling import as_respelled

__all__ = [
    "CodeView",
    "StateChange",
    "evaluate_anchor",
    "event_for",
    "file_anchor",
    "follow_renames",
    "reevaluate",
    "restale",
    "severity",
    "symbol_anchor",
]


@dataclass(frozen=True, slots=True)
class StateChange:
    """An observation before and after a delta, and the event that announces it."""

    before: Observation
    after: Observation
    event: EventKind


_LIVE = (ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT)
_DEPENDENCY = ChangeKind.DEPENDENCY_CHANGED


def suspect_reason(a: Anchor, impact: Impact, now: float, commit: str) -> StaleReason:
    """Why an anchor is suspect: a dependency of it changed its signature or went away."""
    dep = impact.dependency
    dep_ref = f"{dep.path}::{dep.qualname}"
    verb = {EdgeKind.CALLS: "calls", EdgeKind.INHERITS: "inherits from", EdgeKind.IMPORTS: "imports the file of"}
    removed = impact.change is ModelChange.REMOVED
    what = "which was removed" if removed else "whose signature changed"
    via = verb.get(impact.via, "depends on")
    hops = f" ({impact.hops} hops away)" if impact.hops > 1 else ""
    return StaleReason(
        a.ref,
        _DEPENDENCY,
        now,
        old_signature=as_respelled(dep.signature, impact.new_signature, dep.path),
        new_signature=impact.new_signature,
        commit=commit,
        detail=f"{a.ref} {via} {dep_ref}{hops}, {what}",
        dependency_ref=dep_ref,
        dependency_id=dep.id,
        dependency_sig_hash=dep.sig_hash,
        via=impact.via.value,
        caller_omits=impact.caller.names if impact.caller is not None else (),
        caller_starred=impact.caller is not None and impact.caller.starred,
        dependency_hops=impact.hops,
        dependency_removed=removed,
    )


def reevaluate(
    o: Observation,
    code: CodeView,
    now: float,
    commit: str,
    suspects: Sequence[StaleReason] = (),
    changed_now: Collection[str] = (),
) -> Observation:
    """The observation with status and reasons recomputed against the code.

    Reasons that persist keep their original detection time and commit, unless their anchor
    changed again just now (``changed_now``: symbol ids; the reason then names the latest
    change, as the post-edit hook needs: "what this edit changed"); RENAMED reasons
    stay until someone confirms the observation; DEPENDENCY_CHANGED reasons (``suspects``
    are new ones) stay until confirmed or until the dependency has its old signature again,
    and are dropped for an anchor that has a reason of its own.
    Status: STALE with any reason of its own anchors but an annotation change, else SUSPECT
    with an annotation change or a dependency reason, else FRESH (stale always wins).
    Archived and superseded observations keep their status (their reasons are still
    updated, for display). A unit of a knowledge file is graded
    by ``knowledge.grade`` (a passing mention is a weaker anchor; a dependency's change marks
    the unit, not its references; ``changed_now``: the symbols the delta changed, whose
    reasons name the latest change)."""
    if o.knowledge is not None:
        return grade(o, code, now, commit, suspects, changed_now)
    previous = {(r.anchor_ref, r.change, r.dependency_id): r for r in o.stale_reasons}
    reasons: list[StaleReason] = [r for r in o.stale_reasons if r.change is ChangeKind.RENAMED]
    for a in o.anchors:
        r = evaluate_anchor(a, code, now, commit)
        if r is not None:
            reasons.append(persisting(r, a, previous, changed_now))
    deps = {(r.anchor_ref, r.dependency_id): r for r in o.stale_reasons if r.change is _DEPENDENCY}
    for r in suspects:
        deps.setdefault((r.anchor_ref, r.dependency_id), r)
    # An anchor whose own code changed needs review anyway: its dependencies' reasons are dropped.
    changed = {r.anchor_ref for r in reasons}
    reasons.extend(r for _, r in sorted(deps.items()) if r.anchor_ref not in changed and dependency_holds(r, code))
    reasons.sort(key=lambda r: (-severity(r), r.anchor_ref, r.dependency_ref))
    status = o.status
    if status in _LIVE:
        own = any(r.change not in SUSPECT_ONLY for r in reasons)
        status = ObservationStatus.STALE if own else ObservationStatus.SUSPECT if reasons else ObservationStatus.FRESH
    return replace(o, status=status, stale_reasons=tuple(reasons))


def _undone(reasons: list[StaleReason], current: str, back_to: str) -> list[StaleReason] | None:
    """The RENAMED reasons that led an anchor from ``back_to`` to ``current`` (a rename chain
    the new rename undoes), or None when ``back_to`` is not an earlier name of the anchor."""
    chain: list[StaleReason] = []
    ref = current
    while True:
        step = next(
            (r for r in reasons if r.change is ChangeKind.RENAMED and r.new_ref == ref and r not in chain), None
        )
        if step is None:
            return None
        chain.append(step)
        if step.anchor_ref == back_to:
            return chain
        ref = step.anchor_ref


def follow_renames(o: Observation, renames: dict[str, SymbolState], now: float, commit: str) -> Observation:
    """Move anchors on renamed/moved symbols to the new id, with a RENAMED reason to review.

    The anchor takes the new fingerprints (the name is part of the signature); the reason
    keeps the old signature for the reviewer. A rename back to an earlier name of the anchor
    removes the reasons of the renames it undoes instead (rename-and-back is no change)."""
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
        undone = _undone(reasons, a.ref, new_ref)
        if undone is not None:
            reasons = [r for r in reasons if r not in undone]
            continue
        reasons.append(
            StaleReason(
                a.ref,
                ChangeKind.RENAMED,
                now,
                old_signature=as_respelled(a.signature, target.signature, target.path),
                new_signature=target.signature,
                new_ref=new_ref,
                commit=commit if o.knowledge is None else "",  # a file's unit: named once committed
                detail=f"{a.ref} was renamed or moved to {new_ref}",
            )
        )
    review = any(r.change is ChangeKind.RENAMED for r in reasons)
    return replace(o, anchors=tuple(anchors), stale_reasons=tuple(reasons), needs_review=review)


def rebase(o: Observation, delta: GraphDelta, code: CodeView) -> Observation:
    """After a parser upgrade (``delta.rebase``): anchors that matched the fingerprints the old
    parser computed take the ones the new parser computes for the same code; anchors that
    did not match stay as they are (and are judged as usual). A symbol the new parser names
    differently (``delta.renamed_by_parser``, e.g. an overload) takes its anchors along."""
    pairs = {c.old.id: (c.old, c.new) for c in delta.changes if c.old and c.new and c.old.id == c.new.id}
    pairs.update((old.id, (old, new)) for old, new in delta.renamed_by_parser)
    old_fps = dict(delta.old_fingerprints)
    anchors: list[Anchor] = []
    for a in o.anchors:
        if a.kind is AnchorKind.SYMBOL and a.symbol_id in pairs:
            old, new = pairs[a.symbol_id]
            if (a.sig_hash, a.body_hash) == (old.sig_hash, old.body_hash):
                a = replace(
                    a,
                    ref=f"{new.path}::{new.qualname}",
                    symbol_id=new.id,
                    signature=new.signature,
                    sig_hash=new.sig_hash,
                    body_hash=new.body_hash,
                )
        elif a.kind is AnchorKind.FILE and old_fps.get(a.path) == a.body_hash:
            fp = code.file_fingerprint(a.repo_id, a.path)
            if fp is not None:
                a = replace(a, body_hash=fp)
        anchors.append(a)
    return replace(o, anchors=tuple(anchors))


def event_for(before: Observation, after: Observation) -> EventKind:
    """The event announcing a recomputed observation."""
    if after.status is ObservationStatus.STALE:
        return EventKind.OBSERVATION_STALE
    if after.status is ObservationStatus.SUSPECT:
        return EventKind.OBSERVATION_SUSPECT
    if after.status is ObservationStatus.FRESH and before.status is not ObservationStatus.FRESH:
        return EventKind.OBSERVATION_FRESH
    return EventKind.OBSERVATION_CHANGED


def _suspects(o: Observation, by_node: dict[str, list[Impact]], now: float, commit: str) -> list[StaleReason]:
    out: list[StaleReason] = []
    for a in o.anchors:
        node = a.symbol_id if a.kind is AnchorKind.SYMBOL else file_id(a.repo_id, a.path)
        out.extend(suspect_reason(a, i, now, commit) for i in by_node.get(node, ()))
    return out


def restale(
    delta: GraphDelta, candidates: Sequence[Observation], code: CodeView, now: float, commit: str
) -> list[StateChange]:
    """The state changes ``delta`` causes to ``candidates`` (observations anchored to what it
    touched; every observation of the repository for a cold delta), ``code`` being the code
    after the delta. Unchanged observations are left out."""
    renames = {c.old.id: c.new for c in delta.changes if c.kind is ModelChange.RENAMED and c.old is not None and c.new}
    edited = (ModelChange.BODY_CHANGED, ModelChange.SIGNATURE_CHANGED, ModelChange.ANNOTATIONS_CHANGED)
    changed_now = {c.new.id for c in delta.changes if c.kind in edited and c.new is not None}
    by_node: dict[str, list[Impact]] = {}
    for i in delta.impacts:
        by_node.setdefault(i.dependent, []).append(i)
    out: list[StateChange] = []
    for o in candidates:
        base = rebase(o, delta, code) if delta.rebase else o
        moved = follow_renames(base, renames, now, commit)
        new = reevaluate(moved, code, now, commit, _suspects(moved, by_node, now, commit), changed_now)
        if new != o:
            after = replace(new, updated_at=now)
            out.append(StateChange(o, after, event_for(o, after)))
    return out
