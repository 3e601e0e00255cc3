"""Pure rendering of a knowledge check (``graphmem check``): the gate, the messages, and the
``text``, ``json`` and GitHub Actions ``github`` formats (SARIF is ``check.sarif``).

Nothing here does I/O: a ``KnowledgeCheck`` (what the daemon answered) and the ``--fail-on``
threshold in, strings out. The order of findings is the file order: path, line, column.

Severity (``Grade``): dangling > stale > suspect > deprecated > changed. *Deprecated* is a
suspect reference whose name is gone as a symbol but still served by a module with a warning
(the daemon's ``deprecated`` flag): it works today, so it is a level of its own, below
suspect. A finding *fails* the check when its grade is at or above ``--fail-on`` (default:
dangling); failing findings are errors in every format, the others are warnings (stale,
dangling below the threshold) or notes (suspect: old callers of the named code break, worth a
look; deprecated: it still works, with a warning; changed: it changed but what the text uses
still fits, shown only with ``--level all`` and never failing). ``--level`` chooses what is
printed (``at_level``); the gate is judged on every finding all the same.

A finding repeated — one symbol, one change, one file — is printed once, listing its other
lines (``grouped``). A text message is at most ``MESSAGE_LIMIT`` characters: the close
matches it offers are cut to fit, and the full signatures go in JSON and SARIF.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum
from typing import Final

from google.protobuf import json_format

from graphmem import convert
from graphmem.grading import CLOSE_MATCHES_SHOWN, MESSAGE_LIMIT, RANK, Grade, describe, grade
from graphmem.render import plural
from graphmem.types import Freshness, KnowledgeCheck, KnowledgeReference, ReferenceState

__all__ = [
    "CLOSE_MATCHES_SHOWN",
    "GITHUB_ANNOTATIONS_SHOWN",
    "MESSAGE_LIMIT",
    "FailOn",
    "Grade",
    "Group",
    "Level",
    "ReportLevel",
    "at_level",
    "describe",
    "escape_github_data",
    "escape_github_property",
    "exit_status",
    "fails",
    "findings",
    "github_lines",
    "grade",
    "grouped",
    "json_text",
    "level",
    "rule_id",
    "summary",
    "text_lines",
]

class FailOn(str, Enum):
    """The lowest grade that fails the check (``--fail-on``); ``never`` only reports."""

    DANGLING = "dangling"
    STALE = "stale"
    SUSPECT = "suspect"
    DEPRECATED = "deprecated"
    NEVER = "never"


class ReportLevel(str, Enum):
    """What is printed (``--level``): each level adds the next grade below it."""

    DANGLING = "dangling"
    STALE = "stale"
    SUSPECT = "suspect"  # what a maintainer must act on
    DEPRECATED = "deprecated"  # the default: and names that still work, with a warning
    ALL = "all"  # and the changes what the text uses still fits


class Level(str, Enum):
    """How loud a finding is: SARIF's ``level`` values (GitHub's ``notice`` is ``note``)."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


_THRESHOLD: Final[dict[FailOn, int]] = {
    FailOn.DANGLING: 5,
    FailOn.STALE: 4,
    FailOn.SUSPECT: 3,
    FailOn.DEPRECATED: 2,
    FailOn.NEVER: 99,
}
_SHOWN: Final[dict[ReportLevel, int]] = {
    ReportLevel.DANGLING: 5,
    ReportLevel.STALE: 4,
    ReportLevel.SUSPECT: 3,
    ReportLevel.DEPRECATED: 2,
    ReportLevel.ALL: 1,
}

def fails(ref: KnowledgeReference, fail_on: FailOn) -> bool:
    """Whether ``ref`` fails the check at threshold ``fail_on``."""
    return RANK[grade(ref)] >= _THRESHOLD[fail_on]


def level(ref: KnowledgeReference, fail_on: FailOn) -> Level:
    """Error when it fails the check; else warning (dangling, stale) or note (suspect,
    deprecated, changed)."""
    if fails(ref, fail_on):
        return Level.ERROR
    return Level.WARNING if grade(ref) in (Grade.DANGLING, Grade.STALE) else Level.NOTE


def rule_id(ref: KnowledgeReference) -> str:
    """The rule ``ref`` breaks: ``dangling-reference``, ``stale-reference``,
    ``suspect-reference``, ``deprecated-reference``, ``changed-reference``."""
    g = grade(ref)
    return "reference" if g is Grade.OK else f"{g.value}-reference"


def findings(check: KnowledgeCheck) -> tuple[KnowledgeReference, ...]:
    """The references that are not OK, in file order (path, line, column)."""
    return tuple(
        sorted(
            (r for r in check.references if r.state is not ReferenceState.OK),
            key=lambda r: (r.path, r.line, r.column, r.end_line, r.end_column, r.text),
        )
    )


def at_level(check: KnowledgeCheck, report: ReportLevel, fail_on: FailOn = FailOn.NEVER) -> KnowledgeCheck:
    """``check`` with only the findings ``--level`` prints (and those that fail the check:
    what fails is always shown)."""
    keep = tuple(r for r in check.references if RANK[grade(r)] >= _SHOWN[report] or fails(r, fail_on))
    return replace(check, references=keep)


@dataclass(frozen=True, slots=True)
class Group:
    """One finding as printed: its first reference and the others like it (same file,
    same named code, same state and reason) at other places."""

    first: KnowledgeReference
    others: tuple[KnowledgeReference, ...] = ()

    @property
    def lines(self) -> tuple[int, ...]:
        """Every line the finding is at, in file order."""
        return tuple(dict.fromkeys(r.line for r in (self.first, *self.others)))


def grouped(check: KnowledgeCheck) -> list[Group]:
    """The findings in file order, each repeated one (one symbol and one change in one file)
    folded into the first of its kind."""
    groups: dict[tuple[str, str, ReferenceState, str], list[KnowledgeReference]] = {}
    for r in findings(check):
        key = (r.path, r.target_ref or r.text, r.state, r.reason or r.text)
        groups.setdefault(key, []).append(r)
    return [Group(refs[0], tuple(refs[1:])) for refs in groups.values()]


def _also(group: Group) -> str:
    lines = group.lines[1:]
    if not lines:
        return ""
    shown = ", ".join(map(str, lines[:5])) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    return f" (also line{'s' if len(lines) > 1 else ''} {shown})"


def exit_status(check: KnowledgeCheck, fail_on: FailOn) -> int:
    """1 when any finding is at or above ``fail_on``, else 0."""
    return 1 if any(fails(r, fail_on) for r in check.references) else 0


def summary(check: KnowledgeCheck, fail_on: FailOn) -> str:
    """``2 dangling, 1 stale, 0 suspect in 4 files (12 units, 30 references checked); fails
    on dangling: 2``, or ``no findings in …`` when every reference resolves."""
    counts = Counter(grade(r) for r in findings(check))
    scope = (
        f"in {plural(check.files_checked, 'file')} ({plural(check.units, 'unit')}, "
        f"{plural(check.references_checked, 'reference')} checked)"
    )
    if not counts:
        head = f"no findings {scope}"
    else:
        head = (
            f"{counts[Grade.DANGLING]} dangling, {counts[Grade.STALE]} stale, {counts[Grade.SUSPECT]} suspect"
            + (f", {counts[Grade.DEPRECATED]} deprecated" if counts[Grade.DEPRECATED] else "")
            + (f", {counts[Grade.CHANGED]} changed" if counts[Grade.CHANGED] else "")
            + f" {scope}"
        )
    failing = sum(1 for r in check.references if fails(r, fail_on))
    if fail_on is FailOn.NEVER:
        return head + "; --fail-on never: reporting only"
    return head + (f"; {failing} at or above {fail_on.value}: FAILED" if failing else "; passed")


def _freshness_warning(freshness: Freshness | None) -> str:
    if freshness is None or freshness.current:
        return ""
    pending = sum(r.pending_changes for r in freshness.repositories)
    detail = f" ({plural(pending, 'pending change')})" if pending else ""
    return f"warning: the index was not current when checked{detail}; the findings may lag the files"


def text_lines(check: KnowledgeCheck, fail_on: FailOn) -> list[str]:
    """``path:line:column: state: message`` per finding (the form compilers print, which
    editors and terminals link), then the summary (and a warning when the index lagged)."""
    lines = [f"{g.first.path}:{g.first.line}:{g.first.column}: {grade(g.first).value}: {describe(g.first)}{_also(g)}"
             for g in grouped(check)]  # fmt: skip
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
    props.append(("title", f"graphmem: {grade(ref).value} reference"))
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
    for group in grouped(check):
        ref = group.first
        command = _GITHUB_COMMAND[level(ref, fail_on)]
        counts[command] += 1
        props = ",".join(f"{key}={escape_github_property(value)}" for key, value in _github_properties(ref))
        out.append(f"::{command} {props}::{escape_github_data(describe(ref) + _also(group))}")
    if any(n > GITHUB_ANNOTATIONS_SHOWN for n in counts.values()):
        told = ", ".join(plural(counts[c], c) for c in ("error", "warning", "notice") if counts[c])
        out.append(
            f"::notice title={escape_github_property('graphmem check')}::"
            + escape_github_data(
                f"{told}: GitHub shows {GITHUB_ANNOTATIONS_SHOWN} of each kind per step; every finding is in this log"
            )
        )
    return out
