"""PURE: how notes read in an editor: status phrases, ages, hover Markdown, lens titles,
diagnostic messages and the JSON shapes the commands return."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Final

from graphmem.changes import change_line
from graphmem.types import (
    KnowledgeReference,
    Observation,
    ObservationStatus,
    RecallResult,
    ReferenceState,
    Repository,
    StaleReason,
    Status,
)

__all__ = [
    "age",
    "diagnostic_message",
    "hover_markdown",
    "lens_title",
    "note_json",
    "note_markdown",
    "recall_json",
    "reference_message",
    "status_json",
    "status_text",
]

_MINUTE: Final = 60.0
_HOUR: Final = 3600.0
_DAY: Final = 86400.0
#: Longest note text a diagnostic message carries (the hover shows it whole).
_DIAGNOSTIC_TEXT: Final = 200


def age(seconds: float) -> str:
    """A coarse age: ``just now``, ``5 min ago``, ``3 h ago``, ``2 d ago``, ``4 mo ago``, ``1 y ago``."""
    if seconds < _MINUTE:
        return "just now"
    if seconds < _HOUR:
        return f"{int(seconds // _MINUTE)} min ago"
    if seconds < _DAY:
        return f"{int(seconds // _HOUR)} h ago"
    if seconds < 30 * _DAY:
        return f"{int(seconds // _DAY)} d ago"
    if seconds < 365 * _DAY:
        return f"{int(seconds // (30 * _DAY))} mo ago"
    return f"{int(seconds // (365 * _DAY))} y ago"


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return _dt.datetime.fromtimestamp(seconds, tz=_dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _reason(r: StaleReason, now: float) -> str:
    """The change in one line (``changes.change_line``) and how long ago it was seen."""
    when = age(max(now - r.detected_at, 0.0)) if r.detected_at else ""
    return f"{change_line(r)} ({when})" if when else change_line(r)


def status_text(o: Observation, now: float) -> str:
    """``fresh``, ``stale: <what changed> (<when> at <commit>)``, ``suspect: <the path>``, …"""
    if o.status in (ObservationStatus.STALE, ObservationStatus.SUSPECT) and o.stale_reasons:
        return f"{o.status.value}: " + "; ".join(_reason(r, now) for r in o.stale_reasons)
    if o.needs_review and o.stale_reasons:
        return "fresh, needs review: " + "; ".join(_reason(r, now) for r in o.stale_reasons)
    return o.status.value


def _who(o: Observation, now: float) -> str:
    parts = [f"saved {age(max(now - o.created_at, 0.0))}" + (f" by {o.source}" if o.source else "")]
    if o.confirmed_by or o.confirmed_at is not None:
        when = f" {age(max(now - o.confirmed_at, 0.0))}" if o.confirmed_at is not None else ""
        parts.append(f"confirmed by {o.confirmed_by or 'someone'}{when}")
    return " · ".join(parts)


def _escape(text: str) -> str:
    """``text`` with the Markdown that would change how prose reads escaped (emphasis stars,
    code ticks, links, HTML, headings); an underscore inside a name stays as it is."""
    out = []
    for i, ch in enumerate(text):
        heading = ch == "#" and (i == 0 or text[i - 1] == "\n")
        out.append("\\" + ch if ch in "\\`*[]<>" or heading else ch)
    return "".join(out)


def note_markdown(o: Observation, now: float) -> str:
    """One note in a hover: a header line (category, status, age, who) and its text."""
    mark = {ObservationStatus.STALE: "⚠ ", ObservationStatus.SUSPECT: "? "}.get(o.status, "")
    head = f"**{o.category.value}** · {mark}{_escape(status_text(o, now))} · {_who(o, now)} · `{o.id}`"
    refused = f"\n\nNot confirmable here: {_escape(o.confirm_refused)}" if o.confirm_refused else ""
    return f"{head}\n\n{_escape(o.text)}{refused}"


def hover_markdown(subject: str, notes: Sequence[Observation], now: float) -> str:
    """The hover for a symbol (or file) with notes."""
    count = f"{len(notes)} note" + ("" if len(notes) == 1 else "s")
    parts = [f"**graphmem** · {count} on `{subject}`"]
    parts += [note_markdown(o, now) for o in notes]
    return "\n\n---\n\n".join(parts)


def lens_title(notes: Sequence[Observation]) -> str:
    """``2 notes · 1 stale`` (with suspect and needs-review counts when there are any)."""
    title = f"{len(notes)} note" + ("" if len(notes) == 1 else "s")
    stale = sum(1 for o in notes if o.status is ObservationStatus.STALE)
    suspect = sum(1 for o in notes if o.status is ObservationStatus.SUSPECT)
    review = sum(1 for o in notes if o.needs_review and o.status is ObservationStatus.FRESH)
    for n, word in ((stale, "stale"), (suspect, "suspect"), (review, "to review")):
        if n:
            title += f" · {n} {word}"
    return title


def diagnostic_message(o: Observation, now: float) -> str:
    """A stale or suspect note as a diagnostic: the status with its reason, then the note."""
    text = " ".join(o.text.split())
    if len(text) > _DIAGNOSTIC_TEXT:
        text = text[: _DIAGNOSTIC_TEXT - 1] + "…"
    return f"graphmem {o.category.value} note is {status_text(o, now)}\n{text}"


def reference_message(ref: KnowledgeReference) -> str:
    """A reference to code that is not OK, as a diagnostic: what it names, what happened (the
    reason, the new name, the commit) and the close matches."""
    state = ref.state.value if ref.state is not ReferenceState.OK else "suspect"
    named = f" ({ref.target_ref})" if ref.target_ref and ref.target_ref != ref.text else ""
    lines = [f"graphmem: {state} reference `{ref.text}`{named}"]
    what = ref.reason.strip()
    if ref.commit and ref.commit[:7] not in what:
        what = f"{what} (commit {ref.commit[:8]})" if what else f"changed in commit {ref.commit[:8]}"
    if what:
        lines.append(what)
    if ref.renamed_to and ref.renamed_to.rpartition("::")[2] not in what:
        lines.append(f"renamed to `{ref.renamed_to}`")
    matches = [m for m in ref.close_matches if m != ref.renamed_to]
    if matches:
        lines.append("close matches: " + ", ".join(f"`{m}`" for m in matches))
    return "\n".join(lines)


def note_json(o: Observation, now: float) -> dict[str, object]:
    """A note as the commands return it (camelCase JSON)."""
    return {
        "id": o.id,
        "text": o.text,
        "category": o.category.value,
        "status": o.status.value,
        "statusText": status_text(o, now),
        "anchors": [a.ref for a in o.anchors],
        "tags": list(o.tags),
        "source": o.source,
        "created": _iso(o.created_at),
        "age": age(max(now - o.created_at, 0.0)),
        "confirmedBy": o.confirmed_by,
        "confirmed": _iso(o.confirmed_at),
        "reasons": [_reason(r, now) for r in o.stale_reasons],
        "needsReview": o.needs_review,
    }


def recall_json(result: RecallResult, now: float) -> dict[str, object]:
    """``graphmem.recall``'s answer: ranked notes with their why-paths and the index freshness."""
    return {
        "results": [
            {
                "note": note_json(r.observation, now),
                "score": round(r.score, 4),
                "distance": r.distance,
                "why": r.why,
                "path": [{"from": h.from_ref, "edge": h.edge.value, "to": h.to_ref} for h in r.path],
            }
            for r in result.results
        ],
        "current": result.freshness.current,
        "warnings": list(result.warnings),
    }


def _repo_json(r: Repository) -> dict[str, object]:
    return {
        "id": r.id,
        "root": r.root,
        "state": r.state.value,
        "current": r.state.value == "ready" and r.pending_changes == 0,
        "pendingChanges": r.pending_changes,
        "filesDone": r.files_done,
        "filesTotal": r.files_total,
        "observations": r.observations,
        "stale": r.stale_observations,
        "suspect": r.suspect_observations,
    }


def status_json(status: Status | None, down_reason: str = "") -> dict[str, object]:
    """The ``graphmem/status`` notification and ``graphmem.status`` answer: ``daemon`` is
    ``running``, ``degraded`` or ``down``; ``summary`` is a one-line text for any editor."""
    if status is None:
        return {"daemon": "down", "summary": "graphmem: daemon not running", "detail": down_reason, "repositories": []}
    repos = [_repo_json(r) for r in status.repositories]
    daemon = "running" if status.healthy else "degraded"
    behind = [r for r in repos if not r["current"]]
    index = "index current" if not behind else f"indexing {len(behind)} of {len(repos)} repositories"
    summary = f"graphmem: {'ok' if status.healthy else 'DEGRADED'} · {index}"
    return {
        "daemon": daemon,
        "summary": summary,
        "detail": "; ".join(status.degraded_reasons),
        "version": status.version,
        "stale": status.stale_observations,
        "suspect": status.suspect_observations,
        "observations": status.observations,
        "repositories": repos,
    }
