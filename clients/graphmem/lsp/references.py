"""PURE: references to code in knowledge files (Markdown, reStructuredText) as diagnostics.

The daemon reports each reference that is not OK (``CheckKnowledge``) with its span in the file
it read (1-based lines and columns in characters, end column exclusive). ``reference_diagnostics``
carries each span over to the editor's buffer through the same line diff as the code symbols
(``positions.LineMap``): a reference whose lines are unchanged in the buffer shows at its exact
span; one whose lines were edited is not shown (never on the wrong line), nor one whose span
no longer holds its text on disk (the file changed after the daemon read it). Dangling and stale
references are warnings, suspect ones information, deprecated ones (a name gone that a module
still serves with a warning: the daemon's ``deprecated`` flag) hints with LSP's
``DiagnosticTag.Deprecated``, which editors draw struck through (``Settings.reference`` /
``Settings.suspect_reference`` / ``Settings.deprecated_reference``). ``replace_actions`` offers
the rename target and the close matches as quick fixes (a ``WorkspaceEdit`` of the span).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Final

from lsprotocol import types as lsp

from graphmem.grading import Grade, grade
from graphmem.lsp.positions import LineMap, units
from graphmem.lsp.present import reference_message
from graphmem.lsp.settings import Settings, Severity
from graphmem.lsp.view import SEVERITY
from graphmem.types import KnowledgeReference, ReferenceState

__all__ = ["REFERENCE_SOURCE", "is_knowledge_path", "reference_diagnostics", "replace_actions"]

#: ``Diagnostic.source`` of the reference diagnostics (as the notes', ``graphmem``).
REFERENCE_SOURCE: Final = "graphmem"
_SUFFIXES: Final = frozenset({".md", ".markdown", ".mdx", ".mdc", ".rst"})
_NAMES: Final = frozenset({".cursorrules", ".windsurfrules", ".clinerules"})
#: How many replacements a quick fix list offers at most.
_MAX_FIXES: Final = 5


def is_knowledge_path(path: str) -> bool:
    """Whether a file may be one the daemon reads as knowledge (by its name; the daemon decides)."""
    p = PurePosixPath(path.replace("\\", "/"))
    return p.suffix.lower() in _SUFFIXES or p.name in _NAMES


def _deprecated(ref: KnowledgeReference) -> bool:
    """Graded *deprecated* (``check``'s grade of its own: ``grading.grade``)."""
    return grade(ref) is Grade.DEPRECATED


def _level(ref: KnowledgeReference, settings: Settings) -> Severity:
    if _deprecated(ref):
        return settings.deprecated_reference
    return settings.suspect_reference if ref.state is ReferenceState.SUSPECT else settings.reference


def _span(
    ref: KnowledgeReference, disk: Sequence[str], buffer: Sequence[str], lines: LineMap, encoding: str
) -> lsp.Range | None:
    """The reference's span on the buffer (None: its lines were edited, or it is out of range)."""
    first, last = ref.line - 1, max(ref.end_line, ref.line) - 1
    if first < 0 or last >= len(disk):
        return None
    if first == last and disk[first][ref.column - 1 : ref.end_column - 1] != ref.text:
        return None  # the file changed after the daemon read it: its answer comes again
    start, end = lines.exact(first), lines.exact(last)
    if start is None or end is None or end - start != last - first:
        return None
    head, tail = buffer[start], buffer[end]
    c0 = min(max(ref.column - 1, 0), len(head))
    c1 = min(max(ref.end_column - 1, 0), len(tail))
    if start == end and c1 < c0:
        c1 = c0
    return lsp.Range(
        start=lsp.Position(line=start, character=units(head[:c0], encoding)),
        end=lsp.Position(line=end, character=units(tail[:c1], encoding)),
    )


def reference_diagnostics(
    refs: Sequence[KnowledgeReference],
    disk: Sequence[str],
    buffer: Sequence[str],
    settings: Settings,
    encoding: str = "utf-16",
) -> list[lsp.Diagnostic]:
    """A diagnostic at the exact buffer span of each dangling, stale, suspect or deprecated
    reference (the grades ``graphmem check`` prints by default).

    ``disk`` is the text the references' lines refer to (the file the daemon read), ``buffer``
    the editor's text; both as lines."""
    lines = LineMap(disk, buffer)
    out: list[lsp.Diagnostic] = []
    for ref in refs:
        level = _level(ref, settings)
        # (a change what the text uses still fits is no warning: ``check --level all`` lists it)
        if ref.state in (ReferenceState.OK, ReferenceState.CHANGED) or level is Severity.OFF:
            continue
        rng = _span(ref, disk, buffer, lines, encoding)
        if rng is None:
            continue
        fixes = [r for r in (ref.renamed_to, *ref.close_matches) if r]
        out.append(
            lsp.Diagnostic(
                range=rng,
                message=reference_message(ref),
                severity=SEVERITY[level],
                source=REFERENCE_SOURCE,
                code="deprecated-reference" if _deprecated(ref) else f"{ref.state.value}-reference",
                tags=[lsp.DiagnosticTag.Deprecated] if _deprecated(ref) else None,
                data={"reference": ref.text, "fixes": list(dict.fromkeys(fixes))},
            )
        )
    return sorted(out, key=lambda d: (d.range.start.line, d.range.start.character, d.message))


def _replacement(text: str, fix: str) -> str:
    """What replaces a reference's span: the new name written as the reference was (inside a
    role's or code span's backticks, with its call parentheses; a ``path::name`` ref only where
    the reference was one, else the dotted name)."""
    if "::" in fix and "::" not in text:
        fix = fix.rpartition("::")[2]
    head, tick, rest = text.partition("`")
    inner, tick2, tail = rest.partition("`") if tick else (text, "", "")
    if not tick:
        head, tail = "", ""
    if inner.endswith("()") and not fix.endswith(")"):
        fix += "()"
    return f"{head}{tick}{fix}{tick2}{tail}"


def replace_actions(uri: str, diagnostics: Sequence[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    """Quick fixes for the reference diagnostics among ``diagnostics``: replace the reference
    with its rename target (preferred) or a close match, as a ``WorkspaceEdit`` of its span."""
    out: list[lsp.CodeAction] = []
    for d in diagnostics:
        data = d.data if isinstance(d.data, dict) else {}
        fixes = data.get("fixes")
        text = data.get("reference")
        if d.source != REFERENCE_SOURCE or not isinstance(fixes, list) or not isinstance(text, str):
            continue
        for i, fix in enumerate(f for f in fixes[:_MAX_FIXES] if isinstance(f, str)):
            new = _replacement(text, fix)
            edit = lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=d.range, new_text=new)]})
            out.append(
                lsp.CodeAction(
                    title=f"graphmem: replace with {new}",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    is_preferred=i == 0 and str(d.code) == "dangling-reference",
                    edit=edit,
                )
            )
    return out
