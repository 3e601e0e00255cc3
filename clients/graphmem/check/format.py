"""Pure rendering of a knowledge check (``graphmem check``): the gate, the messages, and the
``text``, ``json`` and GitHub Actions ``github`` formats (SARIF is ``check.sarif``).

Nothing here does I/O: a ``KnowledgeCheck`` (what the daemon answered) and the ``--fail-on``
threshold in, strings out. The order of findings is the file order: path, line, column.

Severity: dangling > stale > suspect. A finding *fails* the check when its state is at or
above ``--fail-on`` (default: dangling); failing findings are errors in every format, the
others are warnings (stale, dangling below the threshold) or notes (suspect: the named
code's body changed, worth a look, not an error).
"""

from __future__ import annotations

import json
from collections import Counter
from enum import Enum
from typing import Final

from google.protobuf import json_format

from graphmem import convert
from graphmem.types import Freshness, KnowledgeCheck, KnowledgeReference, ReferenceState

__all__ = [
    "CLOSE_MATCHES_SHOWN",
    "GITHUB_ANNOTATIONS_SHOWN",
    "FailOn",
    "Level",
    "describe",
    "escape_github_data",
    "escape_github_property",
    "exit_status",
    "fails",
    "findings",
    "github_lines",
    "json_text",
    "level",
    "rule_id",
    "summary",
    "text_lines",
]

#: How many close matches a message lists (the JSON and SARIF properties carry them all).
CLOSE_MATCHES_SHOWN: Final = 5


class FailOn(str, Enum):
    """The lowest state that fails the check (``--fail-on``); ``never`` only reports."""

    DANGLING = "dangling"
    STALE = "stale"
    SUSPECT = "suspect"
    NEVER = "never"


class Level(str, Enum):
    """How loud a finding is: SARIF's ``level`` values (GitHub's ``notice`` is ``note``)."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


_RANK: Final[dict[ReferenceState, int]] = {
    ReferenceState.OK: 0,
    ReferenceState.SUSPECT: 1,
    ReferenceState.STALE: 2,
    ReferenceState.DANGLING: 3,
}
_THRESHOLD: Final[dict[FailOn, int]] = {FailOn.DANGLING: 3, FailOn.STALE: 2, FailOn.SUSPECT: 1, FailOn.NEVER: 99}

_RULE_IDS: Final[dict[ReferenceState, str]] = {
    ReferenceState.DANGLING: "dangling-reference",
    ReferenceState.STALE: "stale-reference",
    ReferenceState.SUSPECT: "suspect-reference",
    ReferenceState.OK: "reference",
}

_DEFAULT_REASON: Final[dict[ReferenceState, str]] = {
    ReferenceState.DANGLING: "names code that no longer exists",
    ReferenceState.STALE: "names code whose signature changed after this text was last edited",
    ReferenceState.SUSPECT: "names code whose body changed after this text was last edited",
    ReferenceState.OK: "resolves",
}


def fails(state: ReferenceState, fail_on: FailOn) -> bool:
    """Whether a finding in ``state`` fails the check at threshold ``fail_on``."""
    return _RANK[state] >= _THRESHOLD[fail_on]


def level(ref: KnowledgeReference, fail_on: FailOn) -> Level:
    """Error when it fails the check; else warning (dangling, stale) or note (suspect)."""
    if fails(ref.state, fail_on):
        return Level.ERROR
    return Level.NOTE if ref.state is ReferenceState.SUSPECT else Level.WARNING


def rule_id(state: ReferenceState) -> str:
    """The rule a finding in ``state`` breaks: ``dangling-reference``, ``stale-reference``, …"""
    return _RULE_IDS[state]


def findings(check: KnowledgeCheck) -> tuple[KnowledgeReference, ...]:
    """The references that are not OK, in file order (path, line, column)."""
    return tuple(
        sorted(
            (r for r in check.references if r.state is not ReferenceState.OK),
            key=lambda r: (r.path, r.line, r.column, r.end_line, r.end_column, r.text),
        )
    )


def exit_status(check: KnowledgeCheck, fail_on: FailOn) -> int:
    """1 when any finding is at or above ``fail_on``, else 0."""
    return 1 if any(fails(r.state, fail_on) for r in check.references) else 0


def _short(commit: str) -> str:
    return commit[:7]


def describe(ref: KnowledgeReference) -> str:
    """One sentence: the reference as written, what happened to it (the daemon's reason, or
    a default for its state, with the commit when known) and, for a dangling reference,
    the closest names there are now."""
    reason = ref.reason.strip()
    if not reason:
        reason = f"`{ref.text}` {_DEFAULT_REASON[ref.state]}"
        if ref.renamed_to:
            reason += f": renamed to `{ref.renamed_to}`"
        if ref.commit:
            reason += f" (in {_short(ref.commit)})"
    elif ref.text not in reason:
        reason = f"`{ref.text}`: {reason}"
    matches = [m for m in ref.close_matches if m and m != ref.renamed_to][:CLOSE_MATCHES_SHOWN]
    if matches and ref.state is ReferenceState.DANGLING:
        reason += "; did you mean " + ", ".join(f"`{m}`" for m in matches) + "?"
    return reason


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary(check: KnowledgeCheck, fail_on: FailOn) -> str:
    """``2 dangling, 1 stale, 0 suspect in 4 files (12 units, 30 references checked); fails
    on dangling: 2``, or ``no findings in …`` when every reference resolves."""
    counts = Counter(r.state for r in findings(check))
    scope = (
        f"in {_plural(check.files_checked, 'file')} ({_plural(check.units, 'unit')}, "
        f"{_plural(check.references_checked, 'reference')} checked)"
    )
    if not counts:
        head = f"no findings {scope}"
    else:
        head = (
            f"{counts[ReferenceState.DANGLING]} dangling, {counts[ReferenceState.STALE]} stale, "
            f"{counts[ReferenceState.SUSPECT]} suspect {scope}"
        )
    failing = sum(1 for r in check.references if fails(r.state, fail_on))
    if fail_on is FailOn.NEVER:
        return head + "; --fail-on never: reporting only"
    return head + (f"; {failing} at or above {fail_on.value}: FAILED" if failing else "; passed")


def _freshness_warning(freshness: Freshness | None) -> str:
    if freshness is None or freshness.current:
        return ""
    pending = sum(r.pending_changes for r in freshness.repositories)
    detail = f" ({_plural(pending, 'pending change')})" if pending else ""
    return f"warning: the index was not current when checked{detail}; the findings may lag the files"


def text_lines(check: KnowledgeCheck, fail_on: FailOn) -> list[str]:
    """``path:line:column: state: message`` per finding (the form compilers print, which
    editors and terminals link), then the summary (and a warning when the index lagged)."""
    lines = [f"{r.path}:{r.line}:{r.column}: {r.state.value}: {describe(r)}" for r in findings(check)]
    warning = _freshness_warning(check.freshness)
    if warning:
        lines.append(warning)
    lines.append(summary(check, fail_on))
    return lines


def json_text(check: KnowledgeCheck, fail_on: FailOn) -> str:
    """The protobuf JSON mapping of the daemon's ``CheckKnowledgeResponse`` (like every
    ``--json`` of the CLI: ``.proto`` field names, every field printed, enums by name), with
    the findings in file order, plus the CLI-only ``fail_on`` and ``failed``."""
    ordered = KnowledgeCheck(
        references=findings(check),
        files_checked=check.files_checked,
        units=check.units,
        references_checked=check.references_checked,
        freshness=check.freshness,
    )
    data = json_format.MessageToDict(
        convert.knowledge_check_to_proto(ordered),
        preserving_proto_field_name=True,
        always_print_fields_with_no_presence=True,
    )
    data["fail_on"] = fail_on.value
    data["failed"] = bool(exit_status(check, fail_on))
    return json.dumps(data, indent=2, ensure_ascii=False)


# ---------------------------------------------------------------------------- GitHub Actions

_GITHUB_COMMAND: Final[dict[Level, str]] = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "notice"}


def escape_github_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF percent-encoded (``%25``, ``%0D``, ``%0A``),
    as the Actions toolkit's ``escapeData`` does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_github_property(text: str) -> str:
    """A workflow command's property value: the message escapes plus ``:`` (``%3A``) and
    ``,`` (``%2C``), as the Actions toolkit's ``escapeProperty`` does."""
    return escape_github_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_properties(ref: KnowledgeReference) -> list[tuple[str, str]]:
    props = [("file", ref.path), ("line", str(ref.line)), ("endLine", str(max(ref.end_line, ref.line)))]
    # Columns only on one line: GitHub rejects col/endColumn when line and endLine differ.
    if ref.column and max(ref.end_line, ref.line) == ref.line:
        props.append(("col", str(ref.column)))
        if ref.end_column > ref.column:
            props.append(("endColumn", str(ref.end_column)))
    props.append(("title", f"graphmem: {ref.state.value} reference"))
    return props


#: GitHub shows at most this many annotations of each kind per step (the rest only in the log).
GITHUB_ANNOTATIONS_SHOWN: Final = 10


def github_lines(check: KnowledgeCheck, fail_on: FailOn) -> list[str]:
    """One workflow command per finding: ``::error file=F,line=L,endLine=L,col=C,
    endColumn=E,title=T::message`` (``warning`` / ``notice`` below the threshold), which the
    Actions runner turns into annotations on the files of a run and its pull request. When a
    kind has more than GitHub shows per step, a last ``::notice`` says so, with the counts."""
    out: list[str] = []
    counts: Counter[str] = Counter()
    for ref in findings(check):
        command = _GITHUB_COMMAND[level(ref, fail_on)]
        counts[command] += 1
        props = ",".join(f"{key}={escape_github_property(value)}" for key, value in _github_properties(ref))
        out.append(f"::{command} {props}::{escape_github_data(describe(ref))}")
    if any(n > GITHUB_ANNOTATIONS_SHOWN for n in counts.values()):
        told = ", ".join(_plural(counts[c], c) for c in ("error", "warning", "notice") if counts[c])
        out.append(
            f"::notice title={escape_github_property('graphmem check')}::"
            + escape_github_data(
                f"{told}: GitHub shows {GITHUB_ANNOTATIONS_SHOWN} of each kind per step; every finding is in this log"
            )
        )
    return out
