"""Anchors and how one is judged against the current code (pure): shared by the staleness
core (``staleness.py``) and the grading of knowledge units (``knowledge.py``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Protocol

from graphmem.types import Anchor, AnchorKind, ChangeKind, StaleReason

from graphmemd.graph.model import SEVERITY, SymbolInfo
from graphmemd.graph.model import ChangeKind as ModelChange
from graphmemd.graph.signatures import head_change
from graphmemd.memory.spelling import as_respelled


class CodeView(Protocol):
    """What staleness needs to know of the current code."""

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        """The symbol with this id, or None when it does not exist (any more)."""
        ...

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        """The file's structural fingerprint, or None when it is not indexed."""
        ...


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
    ModelChange.ANNOTATIONS_CHANGED: ChangeKind.ANNOTATIONS_CHANGED,
}
#: Reasons that make an observation suspect, not stale: its code may still do what it says.
SUSPECT_ONLY = frozenset({ChangeKind.DEPENDENCY_CHANGED, ChangeKind.ANNOTATIONS_CHANGED})
_SEVERITY = {c: SEVERITY[m] for m, c in _CHANGE_OF.items()}
_SEVERITY[ChangeKind.DEPENDENCY_CHANGED] = 0


def severity(r: StaleReason) -> int:
    """How serious a stale reason is (removed > signature > body > annotations, renamed)."""
    return _SEVERITY.get(r.change, 0)


def dependency_holds(r: StaleReason, code: CodeView) -> bool:
    """A suspect reason still holds until its dependency is back with its old signature."""
    dep = code.symbol(r.dependency_id)
    return dep is None or dep.sig_hash != r.dependency_sig_hash


def persisting(
    r: StaleReason, a: Anchor, previous: Mapping[tuple[str, ChangeKind, str], StaleReason], changed_now: Collection[str]
) -> StaleReason:
    """The reason to keep for ``a`` when ``r`` is what it is judged now: the one it had before
    (``previous``, by anchor ref, change and dependency id), with its detection time and commit,
    unless ``a``'s symbol changed again just now (``changed_now``: symbol ids): then ``r``, which
    names the latest change."""
    if a.kind is AnchorKind.SYMBOL and a.symbol_id in changed_now:
        return r
    return previous.get((r.anchor_ref, r.change, ""), r)


def evaluate_anchor(a: Anchor, code: CodeView, now: float, commit: str, *, body: bool = True) -> StaleReason | None:
    """The reason an anchor no longer matches the code, or None when it still does. A
    signature change says whether the body changed too (``StaleReason.body_changed``), unless
    ``body`` is False (a knowledge file's unit: what a text names is judged by its interface)."""
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
    head = head_change(a.sig_hash, s.sig_hash, a.signature, s.signature)
    if head is ModelChange.SIGNATURE_CHANGED:
        reason = _head_reason(a, s.signature, ChangeKind.SIGNATURE_CHANGED, "signature", now, commit)
        return replace(reason, body_changed=True) if body and a.body_hash and s.body_hash != a.body_hash else reason
    if s.body_hash != a.body_hash:
        return StaleReason(a.ref, ChangeKind.BODY_CHANGED, now, commit=commit, detail=f"the body of {a.ref} changed")
    if head is ModelChange.ANNOTATIONS_CHANGED:
        return _head_reason(a, s.signature, ChangeKind.ANNOTATIONS_CHANGED, "annotations", now, commit)
    return None


def _head_reason(a: Anchor, signature: str, change: ChangeKind, what: str, now: float, commit: str) -> StaleReason:
    """A change of the anchored symbol's head (its signature, or only its annotations)."""
    return StaleReason(
        a.ref,
        change,
        now,
        old_signature=as_respelled(a.signature, signature, a.path),
        new_signature=signature,
        commit=commit,
        detail=f"the {what} of {a.ref} changed: {a.signature!r} -> {signature!r}",
    )
