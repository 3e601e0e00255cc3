"""Shared notes: ``.graphmem/notes/<id>.md``, front matter and a Markdown body (pure codec).

The front matter is YAML restricted to one ``key: value`` per line with JSON values (JSON is
valid YAML), so any YAML reader reads it and no YAML library is needed here::

    ---
    id: "3f2a9c0e1b7d4a65"
    anchors: ["app/auth/crypto.py::hash_password"]
    category: "constraint"
    tags: ["security"]
    author: "alice"
    created: "2026-01-02T03:04:05Z"
    confirmed: null
    confirmed_by: ""
    ---
    hash_password must stay constant-time: the login timing test depends on it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Final

from graphmemd.ingest.knowledge.model import RefKind, Span, TargetKind, TextRef

__all__ = ["SharedNote", "format_note", "note_anchor_refs", "parse_note", "render_note"]

_ID: Final = re.compile(r"^[0-9a-f]{8,64}$")


@dataclass(frozen=True, slots=True)
class SharedNote:
    """A shared note as its file says: front matter fields and the body (with the 1-based
    line the body starts at)."""

    id: str
    anchors: tuple[str, ...]
    category: str
    tags: tuple[str, ...]
    author: str
    created: float
    body: str
    body_line: int
    confirmed: float | None = None
    confirmed_by: str = ""


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _time(value: Any) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def render_note(note: SharedNote) -> str:
    """The file text of a shared note."""
    fields: list[tuple[str, Any]] = [
        ("id", note.id),
        ("anchors", list(note.anchors)),
        ("category", note.category),
        ("tags", list(note.tags)),
        ("author", note.author),
        ("created", _iso(note.created)),
        ("confirmed", _iso(note.confirmed) if note.confirmed is not None else None),
        ("confirmed_by", note.confirmed_by),
    ]
    head = "\n".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields)
    return f"---\n{head}\n---\n{note.body.strip()}\n"


def _front_matter(lines: list[str]) -> tuple[dict[str, Any], int] | None:
    """The front matter's values and the 0-based index of its closing line."""
    if not lines or lines[0].strip() != "---":
        return None
    values: dict[str, Any] = {}
    for i in range(1, len(lines)):
        line = lines[i]
        if line.strip() == "---":
            return values, i
        key, sep, raw = line.partition(":")
        if not sep:
            continue
        try:
            values[key.strip()] = json.loads(raw.strip()) if raw.strip() else ""
        except json.JSONDecodeError:
            values[key.strip()] = raw.strip().strip("'\"")
    return None


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, str | int | float) and str(v))
    return ()


def parse_note(text: str, file_id: str = "") -> SharedNote | None:
    """The shared note a file holds, or None when it has no usable front matter (then it is
    read as an ordinary Markdown file). ``file_id`` (the file's name) stands in for a
    missing or malformed ``id``."""
    lines = text.replace("\r\n", "\n").split("\n")
    got = _front_matter(lines)
    if got is None:
        return None
    values, close = got
    rest = lines[close + 1 :]
    blank = next((k for k, line in enumerate(rest) if line.strip()), len(rest))
    note_id = str(values.get("id", "")).strip()
    if not _ID.match(note_id):
        note_id = file_id if _ID.match(file_id) else ""
    if not note_id:
        return None
    return SharedNote(
        id=note_id,
        anchors=_strings(values.get("anchors")),
        category=str(values.get("category") or "other"),
        tags=_strings(values.get("tags")),
        author=str(values.get("author") or ""),
        created=_time(values.get("created")) or 0.0,
        body="\n".join(rest[blank:]).rstrip(),
        body_line=close + 2 + blank,
        confirmed=_time(values.get("confirmed")),
        confirmed_by=str(values.get("confirmed_by") or ""),
    )


def note_anchor_refs(text: str) -> tuple[TextRef, ...]:
    """The declared anchors of a note's front matter as references, each spanning the
    anchor's text inside its JSON string on the ``anchors:`` line."""
    out: list[TextRef] = []
    for i, line in enumerate(text.replace("\r\n", "\n").split("\n")):
        if i and line.strip() == "---":
            break
        if not line.startswith("anchors:"):
            continue
        start = len("anchors:")
        try:
            anchors = _strings(json.loads(line[start:].strip() or "[]"))
        except json.JSONDecodeError:
            continue
        for anchor in anchors:
            col = line.find(json.dumps(anchor, ensure_ascii=False)[1:-1], start)
            if col < 0:
                continue
            kind = TargetKind.SYMBOL if "::" in anchor else TargetKind.PATH
            span = Span(i + 1, col + 1, i + 1, col + 1 + len(anchor))
            out.append(TextRef(RefKind.ANCHOR, kind, anchor, anchor, span))
            start = col + len(anchor)
    return tuple(out)


def format_note(note: SharedNote, **changes: Any) -> str:
    """The file text of ``note`` with some fields changed (``confirmed=`` …)."""
    return render_note(replace(note, **changes))
