"""PURE core of the language server: one document as graphmem shows it.

Given the daemon's outline of a file (symbols with line ranges, the notes anchored there),
the text those line numbers refer to (when known) and the buffer's current text, a
``FileView`` answers hovers, code lenses, diagnostics and code actions, with every range on
the buffer's lines (``positions.place_symbols``). A note whose symbol cannot be found in the
buffer is not shown; a note whose symbol is gone from the file (removed) shows on the first
line, with the file's own notes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lsprotocol import types as lsp

from graphmem.lsp.commands import Command
from graphmem.lsp.positions import Placements, index_of_units, units
from graphmem.lsp.present import diagnostic_message, hover_markdown, lens_title
from graphmem.lsp.settings import Settings, Severity
from graphmem.types import AnchorKind, ChangeKind, FileOutline, Observation, ObservationStatus, Symbol

__all__ = ["SEVERITY", "SOURCE", "FileView"]

#: ``Diagnostic.source`` of everything the server publishes.
SOURCE: Final = "graphmem"
#: The LSP severity of each setting.
SEVERITY: Final = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFORMATION: lsp.DiagnosticSeverity.Information,
    Severity.HINT: lsp.DiagnosticSeverity.Hint,
}
_SHOWN: Final = (ObservationStatus.STALE, ObservationStatus.SUSPECT)


def _deprecated(o: Observation) -> bool:
    """A suspect note whose every reason is a name gone but still served with a warning."""
    return (
        o.status is ObservationStatus.SUSPECT
        and bool(o.stale_reasons)
        and all(r.change is ChangeKind.DEPRECATED for r in o.stale_reasons)
    )


class FileView:
    """An outline placed on a buffer; positions in and out are in the client's encoding."""

    def __init__(
        self,
        outline: FileOutline,
        indexed: Sequence[str] | None,
        buffer: Sequence[str],
        encoding: str = "utf-16",
    ) -> None:
        self.outline = outline
        self.lines = buffer
        self.encoding = encoding
        self.placements = Placements(outline.symbols, indexed, buffer)
        self.symbols: dict[str, Symbol] = {s.id: s for s in outline.symbols}
        self.notes: dict[str, list[Observation]] = {}
        self.file_notes: list[Observation] = []
        for o in outline.observations:
            ids = {a.symbol_id for a in o.anchors if a.kind is AnchorKind.SYMBOL and a.repo_id == outline.repo_id}
            on_file = any(
                a.path == outline.path
                and a.repo_id == outline.repo_id
                and (a.kind is AnchorKind.FILE or a.symbol_id not in self.symbols)
                for a in o.anchors
            )
            for sid in sorted(ids & self.symbols.keys()):
                self.notes.setdefault(sid, []).append(o)
            if on_file:
                self.file_notes.append(o)

    # ------------------------------------------------------------------ positions

    def _range(self, line: int, start: int, end: int) -> lsp.Range:
        text = self.lines[line] if line < len(self.lines) else ""
        return lsp.Range(
            start=lsp.Position(line=line, character=units(text[:start], self.encoding)),
            end=lsp.Position(line=line, character=units(text[:end], self.encoding)),
        )

    def _file_range(self) -> lsp.Range:
        return self._range(0, 0, len(self.lines[0]) if self.lines else 0)

    def symbol_at(self, line: int, character: int) -> Symbol | None:
        """The symbol with notes whose name is at the position (on its definition line)."""
        if line >= len(self.lines):
            return None
        col = index_of_units(self.lines[line], character, self.encoding)
        for sid in self.notes:
            p = self.placements.get(sid)
            if p is not None and p.line == line and p.start <= col <= p.end:
                return self.symbols[sid]
        return None

    def enclosing(self, line: int) -> Symbol | None:
        """The innermost symbol whose lines contain ``line`` (None: at file level)."""
        best: tuple[int, str] | None = None
        for sid, p in self.placements.all().items():
            if p.line <= line <= p.last_line and (best is None or p.last_line - p.line < best[0]):
                best = (p.last_line - p.line, sid)
        return self.symbols[best[1]] if best is not None else None

    def ref_of(self, symbol: Symbol | None) -> str:
        """An anchor ref: ``path::qualname`` for a symbol, the path for the file."""
        return symbol.ref if symbol is not None else self.outline.path

    def notes_for(self, ref: str) -> list[Observation]:
        """The notes of a symbol by ref (the file's own for ``""`` or the file's path; every
        note of the file for ``*``)."""
        if ref == "*":
            return list(self.outline.observations)
        if not ref or ref == self.outline.path:
            return list(self.file_notes)
        for sid, s in self.symbols.items():
            if s.ref == ref:
                return list(self.notes.get(sid, []))
        return []

    # ------------------------------------------------------------------ features

    def hover(self, line: int, character: int, now: float) -> lsp.Hover | None:
        """The notes of the symbol whose name is under the cursor (the file's on line 0)."""
        s = self.symbol_at(line, character)
        p = self.placements.get(s.id) if s is not None else None
        if s is not None and p is not None and self.notes.get(s.id):
            text = hover_markdown(s.qualname, self.notes[s.id], now)
            rng = self._range(p.line, p.start, p.end)
        elif line == 0 and self.file_notes:
            text = hover_markdown(self.outline.path, self.file_notes, now)
            rng = self._file_range()
        else:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text), range=rng)

    def code_lenses(self, uri: str) -> list[lsp.CodeLens]:
        """``N notes · M stale`` above each symbol with notes (and the file's, on line 0)."""
        out: list[lsp.CodeLens] = []
        if self.file_notes:
            command = lsp.Command(
                title=lens_title(self.file_notes), command=Command.SHOW_NOTES.value, arguments=[uri, ""]
            )
            out.append(lsp.CodeLens(range=self._range(0, 0, 0), command=command))
        for sid, notes in self.notes.items():
            p = self.placements.get(sid)
            if p is None:
                continue
            command = lsp.Command(
                title=lens_title(notes), command=Command.SHOW_NOTES.value, arguments=[uri, self.symbols[sid].ref]
            )
            out.append(lsp.CodeLens(range=self._range(p.line, p.start, p.end), command=command))
        return sorted(out, key=lambda c: (c.range.start.line, c.range.start.character))

    def diagnostics(self, settings: Settings, now: float) -> list[lsp.Diagnostic]:
        """A diagnostic for each stale or suspect note at its symbol (the file's on line 0);
        tagged ``Deprecated`` when every reason of a suspect note is a name still served with
        a warning."""
        out: list[lsp.Diagnostic] = []

        def add(o: Observation, rng: lsp.Range, ref: str) -> None:
            level = settings.stale if o.status is ObservationStatus.STALE else settings.suspect
            if level is Severity.OFF:
                return
            out.append(
                lsp.Diagnostic(
                    range=rng,
                    message=diagnostic_message(o, now),
                    severity=SEVERITY[level],
                    source=SOURCE,
                    code=f"{o.status.value}-note",
                    data={"id": o.id, "ref": ref},
                    # a note suspect because a name it uses is deprecated (served with a warning)
                    tags=[lsp.DiagnosticTag.Deprecated] if _deprecated(o) else None,
                )
            )

        for o in self.file_notes:
            if o.status in _SHOWN:
                add(o, self._file_range(), self.outline.path)
        for sid, notes in self.notes.items():
            p = self.placements.get(sid)
            if p is None:
                continue
            for o in notes:
                if o.status in _SHOWN:
                    add(o, self._range(p.line, p.start, p.end), self.symbols[sid].ref)
        return sorted(out, key=lambda d: (d.range.start.line, d.range.start.character, str(d.data)))

    def code_actions(
        self, uri: str, rng: lsp.Range, diagnostics: Sequence[lsp.Diagnostic], settings: Settings
    ) -> list[lsp.CodeAction]:
        """Confirm or archive the stale/suspect notes at the range (its graphmem diagnostics,
        and those of the symbol enclosing it; no confirm where the daemon says it would refuse
        it: ``confirm_refused``, shown in the hover); add a note there when the client prompts
        for text."""
        targets: dict[str, tuple[Observation | None, list[lsp.Diagnostic]]] = {}
        for d in diagnostics:
            data = d.data if isinstance(d.data, dict) else {}
            if d.source == SOURCE and isinstance(data.get("id"), str):
                targets.setdefault(data["id"], (None, []))[1].append(d)
        enclosing = self.enclosing(rng.start.line)
        nearby = self.notes.get(enclosing.id, []) if enclosing is not None else self.file_notes
        for o in nearby:
            if o.status in _SHOWN:
                targets[o.id] = (o, targets.get(o.id, (None, []))[1])
        known = {o.id: o for o in self.outline.observations}
        out: list[lsp.CodeAction] = []
        for obs_id, (_, diags) in sorted(targets.items()):
            short = obs_id[:8]
            seen = known.get(obs_id)
            refused = seen is not None and bool(seen.confirm_refused)  # the daemon would refuse it from here
            for title, command, preferred in (
                *(() if refused else ((f"graphmem: confirm note {short} (it still holds)", Command.CONFIRM, True),)),
                (f"graphmem: archive note {short}", Command.ARCHIVE, False),
            ):
                out.append(
                    lsp.CodeAction(
                        title=title,
                        kind=lsp.CodeActionKind.QuickFix,
                        diagnostics=diags or None,
                        is_preferred=preferred,
                        command=lsp.Command(
                            title=title, command=command.value, arguments=_arguments(command, obs_id, uri)
                        ),
                    )
                )
        if settings.client_prompts:
            where = enclosing.qualname if enclosing is not None else self.outline.path
            title = f"graphmem: add a note to {where}"
            args: list[object] = [uri, rng.start.line, rng.start.character]
            add = lsp.Command(title=title, command=Command.ADD_NOTE.value, arguments=args)
            out.append(lsp.CodeAction(title=title, kind=lsp.CodeActionKind.Refactor, command=add))
        return out


def _arguments(command: Command, obs_id: str, uri: str) -> list[object]:
    """A note action's arguments: confirm names the document too (its checkout judges it)."""
    return [obs_id, uri] if command is Command.CONFIRM else [obs_id]
