"""A knowledge-file reference's grade and its one line of words: shared by ``graphmem check``,
the review page and the language server, so that each says the same of the same reference.

Pure: a ``KnowledgeReference`` (what the daemon answered) in, a ``Grade`` or a string out.
Grades, worst first: dangling > stale > suspect > deprecated > changed > ok. What a maintainer
is asked to look at (``needs_review``) is what ``check`` prints by default: dangling, stale,
suspect and deprecated; *changed* (the code changed, but what the text uses still fits) is
shown only when asked for (``check --level all``) and is never a review item.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from graphmem.types import KnowledgeReference, ReferenceState

__all__ = ["CLOSE_MATCHES_SHOWN", "MESSAGE_LIMIT", "RANK", "Grade", "describe", "grade", "needs_review"]

#: How many close matches a message lists at most (the JSON and SARIF properties carry them all).
CLOSE_MATCHES_SHOWN: Final = 3
#: The longest text message (a finding's reason with its suggestions).
MESSAGE_LIMIT: Final = 160


class Grade(str, Enum):
    """A finding's grade: its ``ReferenceState``, with a suspect reference the daemon flags
    ``deprecated`` (a name a module still serves with a warning) a grade of its own."""

    DANGLING = "dangling"
    STALE = "stale"
    SUSPECT = "suspect"
    DEPRECATED = "deprecated"
    CHANGED = "changed"
    OK = "ok"


#: Each grade's weight: a higher one is worse (what ``--level`` and ``--fail-on`` compare).
RANK: Final[dict[Grade, int]] = {
    Grade.OK: 0,
    Grade.CHANGED: 1,
    Grade.DEPRECATED: 2,
    Grade.SUSPECT: 3,
    Grade.STALE: 4,
    Grade.DANGLING: 5,
}

_DEFAULT_REASON: Final[dict[Grade, str]] = {
    Grade.DANGLING: "names code that no longer exists",
    Grade.STALE: "is a call that no longer fits the code's signature",
    Grade.SUSPECT: "names code that changed in a way that breaks old callers",
    Grade.DEPRECATED: "names code that is gone but still served, with a warning",
    Grade.CHANGED: "names code that changed, compatibly with what the text uses",
    Grade.OK: "resolves",
}


def grade(ref: KnowledgeReference) -> Grade:
    """``ref``'s grade: its state, or *deprecated* for a suspect one the daemon flags so."""
    if ref.state is ReferenceState.SUSPECT and ref.deprecated:
        return Grade.DEPRECATED
    return Grade(ref.state.value)


def needs_review(ref: KnowledgeReference) -> bool:
    """Whether ``ref`` asks a maintainer to look at the text: graded deprecated or worse (what
    ``graphmem check`` prints by default). An unchanged or compatibly changed reference does not."""
    return RANK[grade(ref)] >= RANK[Grade.DEPRECATED]


def _short(commit: str) -> str:
    return commit[:7]


def _short_ref(ref: str) -> str:
    """``src/app/auth.py::AuthService.login`` -> ``AuthService.login`` (a path stays)."""
    return ref.rpartition("::")[2] or ref


def describe(ref: KnowledgeReference, limit: int = MESSAGE_LIMIT) -> str:
    """One line of at most ``limit`` characters: what happened to what the reference names
    (the daemon's reason, or a default for its state, with the commit when known) and, for
    a dangling reference, the closest names there are now, as many as fit."""
    reason = " ".join(ref.reason.split())
    if not reason:
        reason = f"`{ref.text}` {_DEFAULT_REASON[grade(ref)]}"
        if ref.renamed_to:
            reason += f": renamed to `{_short_ref(ref.renamed_to)}`"
        if ref.commit:
            reason += f" (in {_short(ref.commit)})"
    elif not reason.startswith("`") and ref.text not in reason:
        reason = f"`{ref.text}`: {reason}"
    if len(reason) > limit:
        return reason[: limit - 1] + "…"
    if ref.state is not ReferenceState.DANGLING or ref.renamed_to:  # (a new name known: that is the fix)
        return reason
    renamed = _short_ref(ref.renamed_to) if ref.renamed_to else ""
    written = _written_last(ref.text)
    offered = [_offer(m, written) for m in ref.close_matches if m and m != ref.renamed_to]
    shown: list[str] = []
    for m in dict.fromkeys(x for x in offered if x != f"`{renamed}`"):
        tail = "; did you mean " + ", ".join((*shown, m)) + "?"
        if len(shown) == CLOSE_MATCHES_SHOWN or len(reason) + len(tail) > limit:
            break
        shown.append(m)
    if shown:
        reason += "; did you mean " + ", ".join(shown) + "?"
    return reason


def _written_last(text: str) -> str:
    """The last part of the name a reference's text spells (``:func:`a.b(x)``` -> ``b``)."""
    inner = text.split("`")[-2] if text.count("`") >= 2 else text
    return inner.split("(", 1)[0].strip().rsplit(".", 1)[-1]


def _offer(match: str, written: str) -> str:
    """A close match as offered: its qualified name; with its file when that name is the one
    the text writes (the same name elsewhere: ``from click.parser import split_arg_string``
    after it moved to ``shell_completion.py``)."""
    short = _short_ref(match)
    path = match.rpartition("::")[0]
    return f"`{short}` in {path}" if path and short == written else f"`{short}`"
