"""The human renderings of what the daemon answers: observations, recall results, status,
symbols, events and index progress."""

from __future__ import annotations

import os
import textwrap
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TextIO

from graphmem.changes import history_line, reason_detail, spaced
from graphmem.cli.common import first_line, fmt_bytes, fmt_duration, fmt_time, freshness_line, short
from graphmem.render import gone_words, marker, on_what, plural, reason_lines
from graphmem.types import (
    Event,
    Hop,
    IndexProgress,
    IndexState,
    Observation,
    ObservationStatus,
    Recalled,
    Repository,
    Status,
    Symbol,
    SymbolDetail,
)


def render_observation(o: Observation, *, verbose: bool = False, current: Mapping[str, str] | None = None) -> list[str]:
    """``graphmem show``: one observation in full; each stale reason in one line
    (``changes.change_line``), signatures spaced. ``current``: ref -> the anchor's signature as
    the code spells it now (shown instead of the spelling it was anchored with; ``verbose``
    shows that one too when it differs; a note "on branch" shows its anchors as that branch
    has them). ``verbose``: every reason's detection time, full
    commit, old and new signature and the daemon's sentence, and the note's history (who did
    what, when, at which commit)."""
    status = o.status.value + (" (needs review: an anchor was renamed or moved)" if o.needs_review else "")
    if o.status is ObservationStatus.SUPERSEDED and o.superseded_by:
        status += f" by {o.superseded_by}"
    if o.on_branch:  # (its anchors are that branch's code: judged here once it is merged)
        status = f"on {on_what(o)} (saved there, about its code; judged here once merged)"
    lines = [
        f"id:         {o.id}",
        f"status:     {status}",
        f"category:   {o.category.value}    confidence: {o.confidence:g}    source: {o.source or '-'}",
        f"repository: {o.repo_id or '-'}" + (f" (judged on its code; saved in {o.saved_in})" if o.saved_in else ""),
        f"created:    {fmt_time(o.created_at)}    updated: {fmt_time(o.updated_at)}",
    ]
    if o.origin_commit:
        on = f" on {o.origin_branch}" if o.origin_branch else ""
        pending = " (its code not committed yet)" if o.origin_uncommitted else ""
        lines.append(f"made at:    {short(o.origin_commit)}{on}{pending}")
    if o.tags:
        lines.append(f"tags:       {', '.join(o.tags)}")
    lines.extend(knowledge_lines(o))
    if o.anchors:
        lines.append("anchors:")
        for a in o.anchors:
            now = a.signature if o.on_branch else (current or {}).get(a.ref, a.signature)
            lines.append(f"  - {a.ref}" + (f"    {spaced(now)}" if now else f" ({a.kind.value})"))
            if verbose and a.signature and spaced(now) != spaced(a.signature):
                lines.append(f"      anchored as: {spaced(a.signature)}")
    if o.stale_reasons:
        lines.append("suspect because:" if o.status is ObservationStatus.SUSPECT else "stale because:")
        lines.extend(f"  - {line}" for line in reason_lines(o))
        if verbose:
            lines.extend(_reason_detail(o))
    if o.confirm_refused:
        lines.append(f"confirm:    not here: {o.confirm_refused}")
    for label, ids in (("supersedes", o.supersedes), ("contradicts", o.contradicts)):
        if ids:
            lines.append(f"{label + ':':<12}{', '.join(ids)}")
    if o.superseded_by:
        lines.append(f"superseded by: {o.superseded_by}")
    if o.confirmed_by or o.confirmed_at:
        lines.append(f"confirmed:  by {o.confirmed_by or '-'} at {fmt_time(o.confirmed_at)}")
    if verbose and o.history:
        lines.append("history:")
        lines.extend(f"  - {history_line(e, fmt_time(e.at))}" for e in o.history)
    lines.append("")
    lines.extend(o.text.splitlines() or [""])
    return lines


def _reason_detail(o: Observation) -> list[str]:
    """``show --verbose``: each reason with everything the daemon recorded."""
    lines = ["reasons in full:"]
    for r in o.stale_reasons:
        when = "uncommitted" if r.uncommitted else "committed"
        commit = f"commit {r.commit}" if r.commit else "no commit"
        lines.append(f"  - {r.anchor_ref}: {r.change.value}, detected {fmt_time(r.detected_at)}, {commit} ({when})")
        if r.old_signature:
            lines.append(f"      was: {spaced(r.old_signature)}")
        if r.new_signature:
            lines.append(f"      now: {spaced(r.new_signature)}")
        if r.new_ref:
            lines.append(f"      now at: {r.new_ref}")
        if r.dependency_ref:
            lines.append(f"      dependency: {r.dependency_ref} (via {r.via or '?'})")
        if r.detail:
            lines.append(f"      {reason_detail(r)}")
    return lines


def knowledge_lines(o: Observation) -> list[str]:
    """Where a unit of a knowledge file comes from, and the state of each of its references."""
    k = o.knowledge
    if k is None:
        return []
    heading = f"    ({' > '.join(h for h in k.heading_path if h)})" if any(k.heading_path) else ""
    lines = [f"file:       {k.path}:{k.start_line}-{k.end_line} ({k.kind.value.replace('_', ' ')}){heading}"]
    lines.append("            read-only through graphmem: edit the file to change it")
    if o.references:
        lines.append("references:")
    for r in o.references:
        state = r.state.value.upper()
        lines.append(f"  - {r.path}:{r.line}:{r.column} {r.text} -> {r.target_ref or '?'} [{state}]")
        if r.reason:
            lines.append(f"      {r.reason}")
        if r.close_matches:
            lines.append(f"      close matches: {', '.join(r.close_matches)}")
    return lines


def observation_row(o: Observation) -> str:
    """One observation as a ``list`` row."""
    anchors = ", ".join(a.ref for a in o.anchors)
    where = f"  [{o.knowledge.path}:{o.knowledge.start_line}]" if o.knowledge is not None else ""
    row = f"{o.id}  {marker(o)}  {o.category.value}  {first_line(o.text, 70)}{where}"
    return row + (f"  @ {anchors}" if anchors else "")


def render_recalled(n: int, r: Recalled) -> list[str]:
    """The ``n``-th recall result: score, marker, text, why, score components, anchors."""
    o = r.observation
    far = f"  (distance {r.distance})" if r.path else ""  # (no path: its anchor is asked for, or history or words)
    lines = [f"{n}. [{r.score:.3f}] {marker(o)} {o.category.value}  {o.id}{far}"]
    if o.knowledge is not None and o.knowledge.example:
        lines.extend(f"   {ln}" if ln else "" for ln in example_lines(o.text))
    else:
        lines.extend(f"   {ln}" for ln in textwrap.wrap(" ".join(o.text.split()), width=96) or [""])
    if r.why:
        lines.append(f"   why: {r.why}")
    elif r.path:
        lines.append("   why: " + " ".join(hop_text(h) for h in r.path))
    if r.matched_terms:
        lines.append(f"   matched: {', '.join(r.matched_terms)}")
    c = r.components
    names = ("proximity", "cochange", "breadth", "reach", "text", "text_proximity", "text_cochange", "text_breadth",
             "pagerank", "centrality", "focus")  # fmt: skip
    signals = [(k.replace("_", " "), getattr(c, k)) for k in names]
    shown = ", ".join(f"{k} {v:.2f}" for k, v in signals if v)
    if shown:
        lines.append(f"   score: {shown}")
    if o.anchors:
        lines.append(f"   anchors: {', '.join(a.ref for a in o.anchors)}")
    return lines


#: the most lines of a code example a recall result shows
EXAMPLE_LINES = 8


def example_lines(text: str) -> list[str]:
    """A code example as code: its lines as written (common indentation removed, blank ends
    dropped), at most ``EXAMPLE_LINES``, then how many more there are."""
    body = textwrap.dedent(text.expandtabs(4)).strip("\n").splitlines() or [""]
    if len(body) <= EXAMPLE_LINES:
        return [ln.rstrip() for ln in body]
    return [ln.rstrip() for ln in body[: EXAMPLE_LINES - 1]] + [f"… ({len(body) - EXAMPLE_LINES + 1} more lines)"]


def hop_text(h: Hop) -> str:
    """``a -calls-> b``; a guessed edge says so: ``a -calls(name_only?)-> b``."""
    conf = h.confidence
    if conf is None:
        label = h.edge.value
    elif conf.certain:
        label = f"{h.edge.value}({conf.value})"
    else:
        label = f"{h.edge.value}({conf.value}?)"
    return f"{h.from_ref} -{label}-> {h.to_ref}"


def resolution_lines(r: Repository) -> list[str]:
    """One line per language: call sites, share resolved, by method, unresolved."""
    lines = []
    for lr in r.resolution:
        if not lr.call_sites:
            continue
        pct = 100.0 * lr.resolved / lr.call_sites
        by = ", ".join(f"{c.value} {n}" for c, n in sorted(lr.resolved_by, key=lambda x: -x[1]) if n)
        lines.append(
            f"    calls {lr.language}: {lr.call_sites} sites, {pct:.1f}% resolved"
            + (f" ({by})" if by else "")
            + f", {lr.unresolved} unresolved"
        )
    return lines


def repo_lines(r: Repository) -> list[str]:
    """A repository's lines in ``status`` and ``repo list``."""
    counts = (
        f"{plural(r.files, 'file')}, {plural(r.symbols, 'symbol')}, {plural(r.edges, 'edge')}, "
        f"{plural(r.observations, 'observation')} ({r.stale_observations} stale, {r.suspect_observations} suspect)"
    )
    state = r.state.value
    if r.state is IndexState.INDEXING and r.files_total:
        pct = 100 * r.files_done // max(r.files_total, 1)
        state += f" {r.files_done}/{r.files_total} files ({pct}%)"
    extra = []
    if r.pending_changes:
        extra.append(plural(r.pending_changes, "pending change"))
    if r.skipped_files:
        extra.append(f"{r.skipped_files} skipped")
    if r.head_commit:
        extra.append(f"HEAD {short(r.head_commit)}")
    if r.last_indexed_at:
        extra.append(f"indexed {fmt_time(r.last_indexed_at)}")
    if r.branch:
        extra.append(f"branch {r.branch}")
    lines = [f"  {r.id}  {r.root}", f"    {state}: {counts}" + (f"; {', '.join(extra)}" if extra else "")]
    if r.activity:
        lines.append(f"    now: {r.activity}")
    lines.extend(checkout_lines(r))
    lines.extend(resolution_lines(r))
    if r.error:
        lines.append(f"    error: {r.error}")
    return lines


def checkout_lines(r: Repository) -> list[str]:
    """The other checkouts of ``r``'s repository (worktrees, linked clones), and the
    registered checkouts that look like clones of it."""
    others = [c for c in r.checkouts if c.id != r.id]
    which = "the other" if len(others) == 1 else "the others"
    lines = [f"    repository {r.repository_id}, {plural(len(r.checkouts), 'checkout')}; {which}:"] if others else []
    for c in others:
        where = (
            gone_words(c)
            if c.missing
            else " ".join(
                x for x in (c.branch or "detached", f"HEAD {short(c.head_commit)}" if c.head_commit else "") if x
            )
        )
        lines.append(f"      {c.root}  ({where})")
    if r.possible_clones:
        lines.append(
            f"    looks like a clone of {', '.join(r.possible_clones)}: share notes with "
            f"graphmem repo link {r.root} --to {r.possible_clones[0]}"
        )
    return lines


def render_status(s: Status) -> list[str]:
    """``graphmem status``'s lines."""
    health = "healthy" if s.healthy else ("degraded" if s.serving else "NOT serving")
    lines = [
        f"graphmemd {s.version}  pid {s.pid}  up {fmt_duration(s.uptime_seconds)}  {health}",
        f"socket:   {s.socket_path or '-'}",
    ]
    if s.tcp_address:
        lines.append(f"tcp:      {s.tcp_address}")
    lines.append(f"store:    {s.store_path or '-'} ({fmt_bytes(s.store_size_bytes)})")
    if s.journal_path:
        lines.append(f"journal:  {s.journal_path}")
    if s.watcher is not None:
        w = s.watcher
        state = "healthy" if w.healthy else f"degraded: {w.degraded_reason or 'unknown reason'}"
        lines.append(f"watcher:  {w.mode} ({state}, {plural(w.restarts, 'restart')})")
    lines.append(f"observations: {s.observations} ({s.stale_observations} stale, {s.suspect_observations} suspect)")
    if s.repositories:
        lines.append(f"repositories ({len(s.repositories)}):")
        for r in s.repositories:
            lines.extend(repo_lines(r))
    else:
        lines.append("repositories: none (add one with: graphmem repo add PATH)")
    for reason in s.degraded_reasons:
        lines.append(f"degraded: {reason}")
    if s.last_error:
        lines.append(f"last error: {s.last_error}")
    return lines


def symbol_row(s: Symbol) -> str:
    """One symbol as a row: kind, reference, lines."""
    return f"{s.kind or '?':<9} {s.ref}  (lines {s.start_line}-{s.end_line})"


def render_symbol_detail(d: SymbolDetail) -> list[str]:
    """``graphmem symbol``: a symbol with its neighbours and notes."""
    s = d.symbol
    lines = [f"{s.kind} {s.ref}  ({s.language}, lines {s.start_line}-{s.end_line})"]
    if s.signature:
        lines.append(f"  {s.signature}")
    lines.append(f"  id: {s.id}")
    if d.container is not None:
        lines.append(f"in: {d.container.kind} {d.container.ref}")

    def group(title: str, items: Sequence[str]) -> None:
        if items:
            lines.append(f"{title} ({len(items)}):")
            lines.extend(f"  {x}" for x in items)

    group("callers", [x.ref for x in d.callers])
    group("callees", [x.ref for x in d.callees])
    group("unresolved calls", list(d.unresolved_calls))
    group("contains", [f"{x.kind} {x.ref}" for x in d.contains])
    group("inherits", [x.ref for x in d.inherits])
    group("inherited by", [x.ref for x in d.inherited_by])
    group("file imports", list(d.file_imports))
    group("file imported by", list(d.file_imported_by))
    group("observations", [observation_row(o) for o in d.observations])
    if d.freshness is not None:
        lines.append(freshness_line(d.freshness))
    return lines


def render_event(e: Event) -> str:
    """One event as a line of ``graphmem events``."""
    when = datetime.fromtimestamp(e.at).strftime("%H:%M:%S") if e.at else "--:--:--"
    head = f"#{e.seq} {when}  {e.kind.value:<19} {e.repo_id or '-'}"
    if e.observation is not None:
        o = e.observation
        action = f"{e.action.value} " if e.action is not None else ""
        return f"{head}  {action}{o.id} {marker(o)} {first_line(o.text, 60)}"
    if e.progress is not None:
        p = e.progress
        return f"{head}  {p.state.value} {p.files_done}/{p.files_total} files, {p.symbols} symbols"
    if e.path or e.detail:
        d = e.detail
        if d.get("removed"):
            return f"{head}  {e.path} removed"
        return (
            f"{head}  {e.path}: {d.get('symbols', 0)} symbols "
            f"(+{d.get('added', 0)} -{d.get('removed_symbols', 0)} ~{d.get('changed', 0)})"
        )
    return f"{head}  {e.message}"


class Progress:
    """Index progress on stderr: on a terminal one line redrawn in place (``\\r``, cut to the
    terminal's width so it never wraps into new lines); otherwise plain lines, one per state
    change and at most one every 2 s in between. The elapsed time keeps the line moving while
    the daemon works on a phase without file counts (storing, resolving)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self._last_state: IndexState | None = None
        self._last_time = 0.0
        self._drawn = False

    def _width(self) -> int:
        try:
            return max(os.get_terminal_size(self.stream.fileno()).columns - 1, 20)
        except (OSError, ValueError):
            return 79

    @staticmethod
    def text(p: IndexProgress, bar_width: int = 0) -> str:
        """``repo [####....] 12/40 files, 310 symbols, 3s (indexing)``; no bar when ``bar_width`` is 0."""
        counts = f"{p.files_done}/{p.files_total} files, {plural(p.symbols, 'symbol')}, {p.elapsed_seconds:.1f}s"
        if bar_width <= 0:
            return f"{p.repo_id} {counts} ({p.state.value})"
        frac = min(p.files_done / p.files_total, 1.0) if p.files_total else 0.0
        bar = "#" * int(frac * bar_width) + "." * (bar_width - int(frac * bar_width))
        return f"{p.repo_id} [{bar}] {counts} ({p.state.value})"

    def update(self, p: IndexProgress) -> None:
        """Show ``p`` (redrawn in place on a terminal)."""
        if self.tty:
            width = self._width()
            bare = len(self.text(p))
            line = self.text(p, min(30, width - bare - 3)) if width - bare - 3 >= 10 else self.text(p)
            self.stream.write("\r\x1b[K" + line[:width])
            self.stream.flush()
            self._drawn = True
            return
        now = time.monotonic()
        if p.state is not self._last_state or now - self._last_time >= 2.0:
            print(self.text(p), file=self.stream, flush=True)
            self._last_state, self._last_time = p.state, now

    def finish(self) -> None:
        """Clear the redrawn line."""
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
