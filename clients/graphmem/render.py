"""The one text rendering of observations, shared by the CLI, the MCP bridge and the daemon's
session briefs (whose token estimate measures exactly this text). A change is said by
``graphmem.changes`` (``change_words``/``change_line``)."""

from __future__ import annotations

from collections.abc import Callable

from graphmem.changes import change_line, change_words
from graphmem.grading import RANK, grade
from graphmem.types import ChangeKind, Checkout, ConfirmRefusal, Observation, ObservationStatus, StaleReason

__all__ = [
    "REFUSAL_CHARS", "SEVERITY", "brief_line", "gone_words", "main_reason", "marker", "plural", "reason_lines",
    "refusal_line",
]  # fmt: skip

#: Order of stale reasons in a marker, most serious first.
SEVERITY: dict[ChangeKind, int] = {
    ChangeKind.REMOVED: 4,
    ChangeKind.SIGNATURE_CHANGED: 3,
    ChangeKind.BODY_CHANGED: 2,
    ChangeKind.RENAMED: 1,
    ChangeKind.ADDED: 0,
    ChangeKind.DEPENDENCY_CHANGED: 0,
    ChangeKind.ANNOTATIONS_CHANGED: 0,
    ChangeKind.DEPRECATED: 0,
}

#: Where an agent reads why a note cannot be confirmed (hooks, briefs), the reason is cut to this.
REFUSAL_CHARS = 160


def refusal_line(o: Observation) -> str:
    """"" when the note may be confirmed from the checkout it is read in; else what an agent
    reads instead of being told to confirm it, in one short line: that it cannot be confirmed
    here, why (the first sentence of the daemon's ``confirm_refused``, cut to ``REFUSAL_CHARS``)
    and what to do instead (update the note or fix the code; a note stale or suspect only here
    is confirmed in its home checkout). The one place the hooks and briefs word it."""
    if not o.confirm_refused:
        return ""
    why = " ".join(o.confirm_refused.split()).split(". ", 1)[0].rstrip(".")
    if why.startswith(f"{o.id} "):
        why = "it" + why[len(o.id):]
    if len(why) > REFUSAL_CHARS:
        why = why[: REFUSAL_CHARS - 1].rstrip() + "…"
    home = "; confirming is for its home checkout" if o.confirm_refusal is ConfirmRefusal.ONLY_HERE else ""
    return f"not confirmable here: {why}. Update the note or fix the code{home}"


def _weight(o: Observation) -> Callable[[StaleReason], tuple[int, int]]:
    """How serious each of ``o``'s reasons is: for a unit of a knowledge file, first by the
    grade of the reference to the code it is about (``grading``: a body change of a function
    the text merely names is *changed*, a deprecated name a finding), then by its kind."""
    ranks: dict[str, int] = {}
    for ref in o.references if o.knowledge is not None else ():
        if ref.target_ref:
            ranks[ref.target_ref] = max(ranks.get(ref.target_ref, 0), RANK[grade(ref)])
    return lambda r: (ranks.get(r.anchor_ref, 0), SEVERITY.get(r.change, 0))


def main_reason(o: Observation) -> StaleReason | None:
    """The reason to name first: the most serious change of the note's own anchors, else the
    first dependency's (None when there is no reason). A knowledge file's unit names first the
    change that asks for an edit of its text (its worst-graded reference's)."""
    if not o.stale_reasons:
        return None
    own = [r for r in o.stale_reasons if r.change is not ChangeKind.DEPENDENCY_CHANGED]
    pool = own or list(o.stale_reasons)
    return max(pool, key=_weight(o))


def _more(o: Observation) -> str:
    return f" (+{len(o.stale_reasons) - 1} more)" if len(o.stale_reasons) > 1 else ""


def on_what(o: Observation) -> str:
    """What a note shown "on branch" (``Observation.on_branch``) was made on: ``branch feature``,
    or ``commit 53494716e80b`` when it was made at a detached HEAD (a commit no branch held: the
    Codex app's worktrees are at one)."""
    return f"{'branch' if o.origin_branch else 'commit'} {o.on_branch}"


def on_marker(o: Observation) -> str:
    """``[ON BRANCH feature]`` or ``[ON COMMIT 53494716e80b]`` (``on_what``)."""
    return f"[ON {'BRANCH' if o.origin_branch else 'COMMIT'} {o.on_branch}]"


def marker(o: Observation) -> str:
    """``[FRESH]``, ``[STALE: body changed]``, ``[SUSPECT: calls `b.py::g`, whose parameter
    `x` was removed]``, ``[SUPERSEDED by ID]``, ``[ARCHIVED]``, ``[ON BRANCH feature]`` (a note of another
    checkout made on a branch this one does not contain; ``[ON COMMIT 53494716e80b]`` at a
    detached HEAD: ``on_what``); plus ``[NEEDS REVIEW: …]`` when an anchor followed a rename."""
    first = main_reason(o)
    if o.on_branch:
        text = on_marker(o)
    elif o.status in (ObservationStatus.STALE, ObservationStatus.SUSPECT):
        what = f": {change_words(first)}{_more(o)}" if first is not None else ""
        text = f"[{o.status.value.upper()}{what}]"
    elif o.status is ObservationStatus.SUPERSEDED:
        text = f"[SUPERSEDED by {o.superseded_by}]" if o.superseded_by else "[SUPERSEDED]"
    else:
        text = f"[{o.status.value.upper()}]"
    if o.needs_review:
        text += " [NEEDS REVIEW: anchor renamed or moved]"
    return text


def reason_lines(o: Observation) -> list[str]:
    """Each reason of a note in one line (``changes.change_line``), most serious first (a
    unit's: what asks for an edit of its text first, ``_weight``)."""
    weight = _weight(o)
    ordered = sorted(o.stale_reasons, key=lambda r: tuple(-w for w in weight(r)))
    return [change_line(r) for r in ordered]


def brief_line(o: Observation, why: str = "") -> str:
    """One observation as a line of a session brief: category, text, tags, anchors, a marker
    when it is not fresh (its main change in one line), why it cannot be confirmed here when
    the daemon would refuse it (``refusal_line``), and how retrieval reached it."""
    note = ""
    first = main_reason(o)
    if o.status in (ObservationStatus.STALE, ObservationStatus.SUSPECT):
        what = f": {change_line(first)}{_more(o)}" if first is not None else ""
        note = f" [{o.status.value.upper()}{what}]"
    anchors = ", ".join(a.ref for a in o.anchors)
    tags = f" #{' #'.join(o.tags)}" if o.tags else ""
    via = f" (via {why})" if why else ""
    where = f" ({o.knowledge.path}:{o.knowledge.start_line})" if o.knowledge is not None else ""
    refused = f" [{refusal_line(o)}]" if o.confirm_refused else ""
    return f"- [{o.category.value}] {o.text}{where}{tags} @ {anchors}{note}{refused}{via}"


def plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def gone_words(c: Checkout) -> str:
    """How a checkout whose directory is gone is listed (``status``, ``doctor``): with the
    notes saved there, which are kept (the daemon lists no gone checkout where none was)."""
    kept = f"its {plural(c.notes, 'note')} kept" if c.notes else "no notes were saved there"
    return f"directory gone, {kept}"
