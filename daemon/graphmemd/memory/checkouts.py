"""A note judged in another checkout of its repository (pure: no threads, no I/O).

A private note lives in the checkout where it was saved (its ``repo_id``: its *home*), and is
journaled with the state it has there. Every other checkout of the same repository shows a
*projection* of it: the same note with its anchors moved into that checkout's ids
(``translate``) and its state judged against that checkout's code by the same staleness core
(``project``): fresh where the anchored code is as it was, stale where it changed. An anchor
that is missing or differs because the note was made on a branch the checkout does not
contain (its origin commit is not an ancestor of the checkout's HEAD) is neither stale nor
removed there: the projection says ``on_branch`` (the note describes that branch's code: a
note saved on ``upgrade`` about a parameter ``upgrade`` added is not "parameter removed" on
``main``, which never had it). So is a note saved on code its checkout had not committed:
no other checkout has that code (``on branch feature, uncommitted``). Projections are
derived, never journaled: they are recomputed from the note and the code after a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from graphmem.types import Anchor, AnchorKind, ChangeKind, Observation, ObservationStatus

from graphmemd.memory.anchors import CodeView
from graphmemd.memory.staleness import reevaluate

__all__ = ["branch_label", "carry_renames", "project", "translate", "translate_anchor"]

_LIVE = (ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT)


def translate_anchor(a: Anchor, checkout: str) -> Anchor:
    """``a`` as the same code in ``checkout`` (symbol ids begin with their checkout's id)."""
    if a.repo_id == checkout:
        return a
    sid = a.symbol_id
    if a.kind is AnchorKind.SYMBOL and sid.startswith(a.repo_id + ":"):
        sid = checkout + sid[len(a.repo_id) :]
    return replace(a, repo_id=checkout, symbol_id=sid)


def translate(o: Observation, checkout: str) -> Observation:
    """The note with its anchors in ``checkout``'s ids, its reasons dropped (they are the home
    checkout's), shown as belonging to ``checkout`` (``saved_in``: its home checkout)."""
    return replace(
        o,
        repo_id=checkout,
        saved_in=o.saved_in or o.repo_id,
        anchors=tuple(translate_anchor(a, checkout) for a in o.anchors),
        stale_reasons=(),
        needs_review=False,
    )


def carry_renames(t: Observation, previous: Observation) -> Observation:
    """``t`` (a note translated into a checkout) with the anchors ``previous`` (that
    checkout's last projection of it) moved by renames seen in that checkout: an anchor of
    ``t`` whose ref leads, through ``previous``'s RENAMED reasons, to the ref of
    ``previous``'s anchor at the same place takes that anchor. Anchors the home note changed
    since (another ref, another count) are left as ``t`` has them."""
    if len(t.anchors) != len(previous.anchors) or not any(
        r.change is ChangeKind.RENAMED for r in previous.stale_reasons
    ):
        return t
    steps = {r.anchor_ref: r.new_ref for r in previous.stale_reasons if r.change is ChangeKind.RENAMED and r.new_ref}
    anchors = []
    for a, p in zip(t.anchors, previous.anchors, strict=True):
        ref, seen = a.ref, {a.ref}
        while ref != p.ref and ref in steps and steps[ref] not in seen:
            ref = steps[ref]
            seen.add(ref)
        anchors.append(p if ref == p.ref and a.kind is p.kind else a)
    return replace(t, anchors=tuple(anchors))


def branch_label(o: Observation) -> str:
    """How a note's origin is named: its branch, else its commit's short hash (``, uncommitted``
    when its code was not committed there yet)."""
    label = o.origin_branch or o.origin_commit[:12] or "another branch"
    return f"{label}, uncommitted" if o.origin_uncommitted else label


def project(
    o: Observation,
    checkout: str,
    code: CodeView,
    now: float,
    commit: str,
    contains_origin: Callable[[str], bool],
    previous: Observation | None = None,
) -> Observation:
    """The note ``o`` (saved in another checkout) as ``checkout`` shows it, judged against
    ``code`` (which holds ``checkout``'s graph). ``contains_origin(commit)``: whether that
    commit is an ancestor of ``checkout``'s HEAD (asked only when an anchor is missing or
    differs: a note made on a branch this checkout does not contain describes that branch's
    code, so its anchored code differing here is no change made here — "on branch", neither
    stale nor suspect; once the branch is merged the note is judged as any). A note saved on
    code not committed in its checkout (``origin_uncommitted``) is contained by no other
    checkout until that code is committed (``commits.commit_origin``).
    A note with no origin commit (saved before checkouts were shared) counts as contained.
    ``previous``: this checkout's last projection of the note, whose reasons keep the time
    and commit they were first seen at, and whose anchors moved by a rename in this checkout
    stay moved (``carry_renames``); a delta's new reasons are put on it first
    (``CheckoutViews.refresh``)."""
    t = translate(o, checkout)
    if previous is not None:
        t = replace(t, stale_reasons=previous.stale_reasons, needs_review=previous.needs_review)
        t = carry_renames(t, previous)
    base = replace(t, status=ObservationStatus.FRESH) if o.status in _LIVE else t
    judged = reevaluate(base, code, now, commit)
    if judged.stale_reasons and o.origin_commit and (o.origin_uncommitted or not contains_origin(o.origin_commit)):
        status = o.status if o.status not in _LIVE else ObservationStatus.FRESH
        return replace(t, status=status, stale_reasons=(), on_branch=branch_label(o))
    return judged
