"""PURE: what an agent should hear right after it edited files (the post-edit hook's text).

*Call-outs* come first: the notes the edit just made stale or suspect. A note is called out
when one of its stale reasons was detected at or after the edited file's modification time
(less ``SLACK_S``) and the reason is about code in that file: its own anchor there changed
(signature, body, removal, rename), or, for a suspect note anchored elsewhere, the dependency
there changed its signature or went away. Each call-out names the changed symbol, the kind of
change and the note that may no longer hold.

Then the other notes anchored in the edited files and the code one step away (as retrieval
ranked them), within the token budget, leaving out what the session was already told.
Nothing at all to say gives an empty text.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from graphmem.render import SEVERITY, brief_line
from graphmem.types import ChangeKind, Observation, ObservationStatus, Recalled, StaleReason

from graphmemd.retrieval.overview import estimate_tokens

__all__ = ["SLACK_S", "Aftermath", "Callout", "find_callouts", "render", "render_callout"]

#: A reason detected this long before the file's modification time still counts as this edit's
#: (file systems with coarse timestamps round the modification time down).
SLACK_S = 1.0


@dataclass(frozen=True, slots=True)
class Callout:
    """A note the edit just made stale or suspect, with the reason that concerns the edit and
    the ref of the code that changed."""

    observation: Observation
    reason: StaleReason
    changed_ref: str


@dataclass(frozen=True, slots=True)
class Aftermath:
    """The post-edit text (empty: nothing to say), the notes it shows (call-outs first), the
    call-outs, how many notes the budget left out, and the text's token estimate."""

    text: str
    shown: tuple[str, ...]
    callouts: tuple[str, ...]
    left_out: int
    tokens: int


def _path(ref: str) -> str:
    return ref.partition("::")[0]


def _changed_ref(r: StaleReason) -> str:
    return r.dependency_ref if r.change is ChangeKind.DEPENDENCY_CHANGED else r.anchor_ref


def find_callouts(notes: Sequence[Observation], edited: Mapping[tuple[str, str], float]) -> list[Callout]:
    """The notes whose stale or suspect reason comes from an edit of a file in ``edited``
    ((repository id, relative path) -> the file's modification time), most serious first."""
    found: list[Callout] = []
    for o in notes:
        if o.status not in (ObservationStatus.STALE, ObservationStatus.SUSPECT):
            continue
        best: Callout | None = None
        for r in o.stale_reasons:
            ref = _changed_ref(r)
            paths = {_path(ref), _path(r.new_ref)} - {""}
            since = min((edited[(o.repo_id, p)] for p in paths if (o.repo_id, p) in edited), default=None)
            if since is None or r.detected_at < since - SLACK_S:
                continue
            if best is None or _rank(r) > _rank(best.reason):
                best = Callout(o, r, ref)
        if best is not None:
            found.append(best)
    found.sort(key=lambda c: (-_rank(c.reason), c.observation.status is not ObservationStatus.STALE, c.observation.id))
    return found


def _rank(r: StaleReason) -> int:
    """Own-anchor changes by severity; a dependency's signature change counts like one's own."""
    if r.change is ChangeKind.DEPENDENCY_CHANGED:
        return SEVERITY[ChangeKind.SIGNATURE_CHANGED]
    return SEVERITY.get(r.change, 0)


def _name(ref: str) -> str:
    """``AuthService.login`` for ``app/auth/service.py::AuthService.login``; a file stays a path."""
    return ref.partition("::")[2] or ref


def _what_changed(c: Callout) -> str:
    r, name = c.reason, _name(c.changed_ref)
    if r.change is ChangeKind.DEPENDENCY_CHANGED:
        if r.new_signature or not r.detail.endswith("was removed"):
            sigs = f" (`{r.old_signature}` -> `{r.new_signature}`)" if r.old_signature or r.new_signature else ""
            return f"you changed `{name}`'s signature{sigs}"
        return f"you removed `{name}`"
    if r.change is ChangeKind.SIGNATURE_CHANGED:
        sigs = f" (`{r.old_signature}` -> `{r.new_signature}`)" if r.old_signature or r.new_signature else ""
        return f"you changed `{name}`'s signature{sigs}"
    if r.change is ChangeKind.REMOVED:
        return f"you removed `{name}`"
    if r.change is ChangeKind.RENAMED:
        return f"you renamed or moved `{name}`" + (f" to `{r.new_ref}`" if r.new_ref else "")
    if "::" not in c.changed_ref:
        return f"you changed the definitions in {c.changed_ref}"
    return f"you changed the body of `{name}`"


def render_callout(c: Callout) -> str:
    """One call-out line: what changed, which note may no longer hold, and what to do."""
    o, r = c.observation, c.reason
    on = r.anchor_ref
    via = f" ({r.detail})" if r.change is ChangeKind.DEPENDENCY_CHANGED and r.detail else ""
    state = "STALE" if o.status is ObservationStatus.STALE else "SUSPECT"
    what = _what_changed(c)
    return (
        f"- {what[0].upper()}{what[1:]}; this {o.category.value} on `{_name(on)}` "
        f"({on}) may no longer hold [{state}, id {o.id}]{via}: {o.text.strip()}\n"
        f"  Check it against the new code: if it still holds, confirm it (confirm_observation, or "
        f"`graphmem confirm {o.id}`); if not, save the corrected knowledge with supersedes=[{o.id}]."
    )


def render(
    files: Sequence[str],
    callouts: Sequence[Callout],
    related: Sequence[Recalled],
    *,
    budget: int,
    already_shown: Collection[str] = (),
) -> Aftermath:
    """The post-edit text for ``files`` within ``budget`` tokens: every call-out (the first even
    over budget), then ``related`` (retrieval's ranking) not called out and not ``already_shown``."""
    called = {c.observation.id for c in callouts}
    others = [r for r in related if r.observation.id not in called and r.observation.id not in already_shown]
    if not callouts and not others:
        return Aftermath("", (), (), 0, 0)
    title = f"graphmem: what is known about {', '.join(files)} and the code it calls or is called by"
    spent = estimate_tokens(title) + 30
    lines = [title]
    shown: list[str] = []
    left = 0
    if callouts:
        lines.append(f"This edit may have invalidated {len(callouts)} note{'s' if len(callouts) != 1 else ''}:")
        spent += 12
        for c in callouts:
            line = render_callout(c)
            cost = estimate_tokens(line) + 1
            if shown and spent + cost > budget:
                left += 1
                continue
            lines.append(line)
            shown.append(c.observation.id)
            spent += cost
    header = "Other notes on this code:" if callouts else ""
    body: list[str] = []
    for r in others:
        line = brief_line(r.observation, r.why)
        cost = estimate_tokens(line) + 1
        if spent + cost > budget:
            left += 1
            continue
        body.append(line)
        shown.append(r.observation.id)
        spent += cost
    if body:
        lines += ([header] if header else []) + body
    if left:
        lines.append(f"({left} more not shown within the budget of {budget} tokens; see them with recall)")
    text = "\n".join(lines)
    return Aftermath(text, tuple(shown), tuple(i for i in shown if i in called), left, estimate_tokens(text))
