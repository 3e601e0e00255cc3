"""PURE: what an agent should hear right after it edited files (the post-edit hook's text).

Only what the edit changed: the notes the edit just made stale or suspect (*call-outs*). A note
is called out when one of its stale reasons is *uncommitted* (the change is in the working
tree, not in git history), was detected at or after the edited file's modification time (less
``SLACK_S``), and is about code in that file: its own anchor there changed (signature, body,
removal, rename), or, for a suspect note anchored elsewhere, the dependency there changed its
signature or went away. History (a knowledge unit that went stale in past commits, a reason
found when the repository was indexed) is never called out, and an edit that changed nothing
under any note gives an empty text.

Each call-out is the change in one line (``graphmem.changes.change_line``) and the note it
concerns; the instruction to confirm or supersede is said once, at the end. A note the daemon
would refuse to confirm from this checkout (``confirm_refused``: stale only in this worktree, ...)
says so in one more line (``graphmem.render.refusal_line``), and the instruction offers
confirming only when some note shown can be (``instruction``). A note the session
was already shown in the same state (``already_shown`` holds ``state_key``s) is not repeated
until its state changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from graphmem.changes import change_line
from graphmem.render import SEVERITY, refusal_line
from graphmem.types import ChangeKind, Observation, ObservationStatus, StaleReason

from graphmemd.retrieval.overview import estimate_tokens

__all__ = [
    "INSTRUCTION", "INSTRUCTION_MIXED", "INSTRUCTION_NO_CONFIRM", "SLACK_S", "Aftermath", "Callout", "find_callouts",
    "instruction", "render", "render_callout", "state_key",
]  # fmt: skip

#: A reason detected this long before the file's modification time still counts as this edit's
#: (file systems with coarse timestamps round the modification time down).
SLACK_S = 1.0
#: A note's text in a call-out is cut to this many characters.
MAX_NOTE_CHARS = 240
#: Said once per call-out text, after the notes.
INSTRUCTION = (
    "Check each against the new code: if it still holds, confirm it (confirm_observation, or "
    "`graphmem confirm ID`); if not, save the corrected knowledge with supersedes=[ID]."
)
#: ... when some of the notes shown cannot be confirmed here (each says so).
INSTRUCTION_MIXED = (
    "Check each against the new code: if it still holds, confirm it (confirm_observation, or "
    "`graphmem confirm ID`) unless it says not confirmable here; if not, save the corrected knowledge "
    "with supersedes=[ID]."
)
#: ... when none of them can be confirmed here.
INSTRUCTION_NO_CONFIRM = (
    "Check each against the new code: if it no longer holds, save the corrected knowledge with "
    "supersedes=[ID], or fix the code."
)


@dataclass(frozen=True, slots=True)
class Callout:
    """A note the edit just made stale or suspect, with the reason that concerns the edit and
    the ref of the code that changed."""

    observation: Observation
    reason: StaleReason
    changed_ref: str


@dataclass(frozen=True, slots=True)
class Aftermath:
    """The post-edit text (empty: nothing to say), the notes it shows, the call-outs, how many
    notes the budget left out, the text's token estimate and the ``state_key`` of each note shown."""

    text: str
    shown: tuple[str, ...]
    callouts: tuple[str, ...]
    left_out: int
    tokens: int
    states: tuple[str, ...] = ()


def state_key(o: Observation) -> str:
    """``ID@KEY``: the note in its current state (status and reasons); a session that was shown
    this key is not shown the note again until the key changes."""
    reasons = sorted(f"{r.anchor_ref}|{r.change.value}|{r.dependency_ref}|{r.detected_at:.3f}" for r in o.stale_reasons)
    digest = hashlib.blake2b("\n".join([o.status.value, *reasons]).encode(), digest_size=6).hexdigest()
    return f"{o.id}@{digest}"


def _path(ref: str) -> str:
    return ref.partition("::")[0]


def _changed_ref(r: StaleReason) -> str:
    return r.dependency_ref if r.change is ChangeKind.DEPENDENCY_CHANGED else r.anchor_ref


def find_callouts(notes: Sequence[Observation], edited: Mapping[tuple[str, str], float]) -> list[Callout]:
    """The notes whose stale or suspect reason comes from an edit of a file in ``edited``
    ((repository id, relative path) -> the file's modification time), most serious first:
    uncommitted reasons detected since the file was modified (module docstring)."""
    found: list[Callout] = []
    for o in notes:
        if o.status not in (ObservationStatus.STALE, ObservationStatus.SUSPECT):
            continue
        best: Callout | None = None
        for r in o.stale_reasons:
            if not r.uncommitted:
                continue
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


def _cut(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_NOTE_CHARS else flat[: MAX_NOTE_CHARS - 1].rstrip() + "…"


def render_callout(c: Callout) -> str:
    """One call-out: the change in one line, then the note that may no longer hold."""
    o = c.observation
    state = "STALE" if o.status is ObservationStatus.STALE else "SUSPECT"
    where = f" ({o.knowledge.path}:{o.knowledge.start_line})" if o.knowledge is not None else ""
    refused = f"\n  {refusal_line(o)}" if o.confirm_refused else ""
    return f"- {change_line(c.reason)}\n  [{state} {o.category.value}, id {o.id}]{where} {_cut(o.text)}{refused}"


def instruction(shown: Sequence[Callout]) -> str:
    """What to do with the notes ``shown``, said once: confirm or supersede; not confirm where
    the daemon would refuse it for every one of them (``confirm_refused``), or only for some."""
    refused = sum(1 for c in shown if c.observation.confirm_refused)
    if not refused:
        return INSTRUCTION
    return INSTRUCTION_NO_CONFIRM if refused == len(shown) else INSTRUCTION_MIXED


def render(
    files: Sequence[str],
    callouts: Sequence[Callout],
    *,
    budget: int,
    already_shown: Collection[str] = (),
) -> Aftermath:
    """The post-edit text for ``files`` within ``budget`` tokens: the call-outs not already shown
    in their current state (the first even over budget), the instruction once; empty when none."""
    todo = [c for c in callouts if state_key(c.observation) not in already_shown]
    if not todo:
        return Aftermath("", (), (), 0, 0)
    n = len(todo)
    title = f"graphmem: your edit of {', '.join(files)} changed code under {n} note{'s' if n != 1 else ''}:"
    lines = [title]
    spent = estimate_tokens(title) + estimate_tokens(INSTRUCTION_MIXED) + 30  # the longest
    shown: list[Callout] = []
    left = 0
    for c in todo:
        line = render_callout(c)
        cost = estimate_tokens(line) + 1
        if shown and spent + cost > budget:
            left += 1
            continue
        lines.append(line)
        shown.append(c)
        spent += cost
    if left:
        lines.append(
            f"({left} more not shown within the budget of {budget} tokens; see them with `graphmem list --stale`)"
        )
    lines.append(instruction(shown))
    text = "\n".join(lines)
    ids = tuple(c.observation.id for c in shown)
    states = tuple(state_key(c.observation) for c in shown)
    return Aftermath(text, ids, ids, left, estimate_tokens(text), states)
