"""Whether a note can be confirmed from a checkout, and why not: the one rule set that
``Core.confirm`` refuses by and that every note as a checkout shows it carries
(``Observation.confirm_refused``), so that a client offers no action the daemon would refuse
(see docs/how-it-works.md, "Confirming")."""

from __future__ import annotations

from dataclasses import dataclass, replace

from graphmem.errors import NotFound
from graphmem.types import ChangeKind, ConfirmRefusal, Observation, ObservationStatus

from graphmemd.app.checkouts import confirming_elsewhere, current_anchors
from graphmemd.retrieval.readview import ReadView

__all__ = ["Refused", "as_seen", "confirm_refusal"]


@dataclass(frozen=True, slots=True)
class Refused:
    """Why confirming a note from a checkout is refused: its kind, and the sentence said."""

    kind: ConfirmRefusal
    why: str


def confirm_refusal(
    view: ReadView, home: Observation, checkout: str, shown: Observation | None = None
) -> Refused | None:
    """Why confirming ``home`` (a note as saved) from ``checkout`` ("" for none named) is
    refused, None when it is not: an archived note; a note stale or suspect only in
    ``checkout`` (``confirming_elsewhere``: its home checkout's path and branch); a unit of a
    knowledge file naming code that no longer exists (its file must change); a note every
    anchor of which is gone (a new note must supersede it). A note whose checkout is gone (a
    worktree removed) is judged as ``checkout`` shows it (when that is not a checkout of its
    repository: the repository's main one), and confirming it moves it there
    (``checkouts.adopt_orphan``). ``shown``: the note as ``checkout`` shows it, when the caller
    has it already."""
    if home.status is ObservationStatus.ARCHIVED:
        return Refused(
            ConfirmRefusal.ARCHIVED, f"{home.id} is archived; save a new observation instead of confirming it"
        )
    if not view.registered(home.repo_id):  # its checkout is gone: judged as the one confirming it shows it
        checkout = view.heir(home.repo_id, checkout) or checkout
        home = shown if shown is not None and shown.repo_id == checkout else view.observation_in(home.id, (checkout,))
    if elsewhere := confirming_elsewhere(view, home, checkout, shown):
        return Refused(ConfirmRefusal.ONLY_HERE, elsewhere)
    k = home.knowledge
    dangling = [r for r in home.stale_reasons if r.change in (ChangeKind.REMOVED, ChangeKind.RENAMED)]
    if k is not None and dangling:
        return Refused(
            ConfirmRefusal.CODE_GONE,
            f"{home.id} names code that no longer exists ({dangling[0].detail}); edit {k.path}:{k.start_line}",
        )
    if not home.anchors:
        return Refused(
            ConfirmRefusal.NO_ANCHORS, f"{home.id} has no anchors to re-take on the code; edit its text instead"
        )
    anchors, lost = current_anchors(view, home)
    if not anchors:
        return Refused(
            ConfirmRefusal.ANCHORS_GONE,
            f"every anchor of {home.id} is gone ({', '.join(lost)}); save a new observation that supersedes it",
        )
    return None


def as_seen(view: ReadView, shown: Observation) -> Observation:
    """``shown`` (a note as the checkout ``shown.repo_id`` shows it: its own, or a sibling's
    projection) with ``confirm_refused`` and ``confirm_refusal`` set: what ``Core.confirm``
    from that checkout would answer. A note no longer saved (deleted) is returned as it is."""
    try:
        home = view.observation(shown.id)
    except NotFound:
        return shown
    refused = confirm_refusal(view, home, shown.repo_id, shown)
    why, kind = (refused.why, refused.kind) if refused is not None else ("", None)
    if why == shown.confirm_refused and kind is shown.confirm_refusal:
        return shown
    return replace(shown, confirm_refused=why, confirm_refusal=kind)
