"""One knowledge file's bytes -> its units (pure): the reader by extension, shared notes by
their front matter.

The readers (``markdown``, ``rst``: markdown-it and docutils, 60-140 ms to import, more than a
tenth of the daemon's own imports) are imported by the first file that needs them
(``_readers``), not by every start of the daemon (the parse workers' forkserver preloads
markdown-it on purpose, for the code examples they read: ``parse_pool._make_context``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from graphmem.types import KnowledgeKind

from graphmemd.ingest.knowledge.model import KnowledgeDoc, Span, TextRef, Unit, UnitKind
from graphmemd.ingest.knowledge.notes import SharedNote, note_anchor_refs, parse_note

__all__ = ["decode", "read_doc", "read_note"]

_Rst = Callable[[str, str], list[Unit]]


def decode(data: bytes) -> str:
    """A knowledge file's text: UTF-8 (a BOM dropped, bad bytes replaced), line ends unified."""
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _readers() -> tuple[Callable[[str, str, _Rst], list[Unit]], _Rst]:
    """``extract_markdown`` and ``extract_rst``, imported on first use (the one place)."""
    from graphmemd.ingest.knowledge.markdown import extract_markdown
    from graphmemd.ingest.knowledge.rst import extract_rst

    return extract_markdown, extract_rst


def read_doc(path: str, data: bytes, kind: KnowledgeKind) -> KnowledgeDoc:
    """The units of a knowledge file that contain references to code, in source order."""
    extract_markdown, extract_rst = _readers()
    text = decode(data)
    if path.lower().endswith(".rst"):
        return KnowledgeDoc(path, kind, tuple(extract_rst(text, path)))
    if kind is KnowledgeKind.SHARED_NOTE:
        got = read_note(path, text)
        if got is not None:
            return KnowledgeDoc(path, kind, (got[1],))
    return KnowledgeDoc(path, kind, tuple(extract_markdown(text, path, extract_rst)))


def _shift(ref: TextRef, lines: int) -> TextRef:
    s = ref.span
    return replace(ref, span=Span(s.line + lines, s.column, s.end_line + lines, s.end_column))


def read_note(path: str, text: str) -> tuple[SharedNote, Unit] | None:
    """A shared note and its one unit (the whole file: its declared anchors, then the
    references of its body), or None when the file has no usable front matter."""
    extract_markdown, extract_rst = _readers()
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    note = parse_note(text, stem)
    if note is None:
        return None
    body_refs = [_shift(r, note.body_line - 1) for u in extract_markdown(note.body, path, extract_rst) for r in u.refs]
    lines = text.rstrip("\n").count("\n") + 1
    unit = Unit(UnitKind.NOTE, 1, lines, (), note.body, (*note_anchor_refs(text), *body_refs))
    return note, unit
