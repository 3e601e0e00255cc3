"""Operations on knowledge files that span several parts: the ``CheckKnowledge`` answer,
saving a shared note (a file the indexer then reads like any knowledge file), and confirming
a unit of a knowledge file (a shared note's front matter records it)."""

from __future__ import annotations

import logging
import os
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from graphmem.errors import FailedPrecondition, InvalidArgument, NotFound
from graphmem.types import Anchor, KnowledgeCheck, KnowledgeKind, Observation

from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.knowledge_refs import RefIndex
from graphmemd.indexing.indexer import Indexer, Job
from graphmemd.ingest.gitinfo import run_git
from graphmemd.ingest.knowledge.notes import SharedNote, format_note, parse_note, render_note
from graphmemd.ingest.knowledge.selection import NOTES_DIR
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.memory.knowledge import check_references
from graphmemd.memory.memory import Memory, NewObservation
from graphmemd.retrieval.readview import ReadView

logger = logging.getLogger(__name__)

#: How long saving a shared note waits for the indexer to read it.
NOTE_WAIT_S = 60.0
_ANONYMOUS = frozenset({"", "unknown", "cli", "python-client", "mcp"})


class KnowledgeOps:
    """Check, shared notes and confirmation for knowledge files."""

    def __init__(
        self,
        registry: RepoRegistry,
        memory: Memory,
        state: GraphState,
        indexer: Indexer,
        view: Callable[[], ReadView],
    ) -> None:
        self._registry = registry
        self._memory = memory
        self._state = state
        self._indexer = indexer
        self._view = view
        self._keys: dict[str, str] = {}

    # ------------------------------------------------------------------ check

    def check(self, repo: str, paths: Sequence[str], wait_s: float) -> KnowledgeCheck:
        """Every reference that is not OK in the knowledge files of ``repo`` (or of
        ``paths``: files or folders), after waiting up to ``wait_s`` for a current index."""
        view = self._view()
        rt = view.repo(repo)
        deadline = time.monotonic() + wait_s
        while wait_s > 0 and not view.freshness([rt]).current and time.monotonic() < deadline:
            time.sleep(0.05)
        scope = [self._scope(rt, p) for p in paths]

        def inside(path: str) -> bool:
            return not scope or any(not s or path == s or path.startswith(s + "/") for s in scope)

        units = [
            o
            for o in self._memory.book.all()
            if o.repo_id == rt.id and o.knowledge is not None and inside(o.knowledge.path)
        ]
        files = {p for p in rt.doc_stats if inside(p)}
        index: list[RefIndex] = []

        def close(name: str) -> tuple[str, ...]:
            if not index:
                with self._state.reading() as g:
                    index.append(RefIndex([s for s in g.symbols.values() if s.repo_id == rt.id], ()))
            return index[0].close_matches(name)

        units.sort(key=lambda o: (o.knowledge.path, o.knowledge.start_line) if o.knowledge else ("", 0))
        found = check_references(units, len(files), close)
        return replace(found, freshness=view.freshness([rt]))

    def _scope(self, rt: RepoRuntime, path: str) -> str:
        p = Path(path)
        if not p.is_absolute():
            return p.as_posix().strip("/").removeprefix("./").rstrip("/") if path not in (".", "./") else ""
        if p.resolve() == rt.root:
            return ""
        rel = rt.rel(p.resolve())
        if rel is None:
            raise InvalidArgument(f"{path} is not inside repository {rt.id} ({rt.root})")
        return rel

    # ------------------------------------------------------------------ shared notes

    def create_shared(self, rt: RepoRuntime, new: NewObservation, anchors: Sequence[Anchor]) -> Observation:
        """Write a new shared note as ``.graphmem/notes/<id>.md`` and read it now; the note
        is then a knowledge file (it travels with git, its state is derived everywhere)."""
        if new.idempotency_key and new.idempotency_key in self._keys:
            try:
                return self._memory.book.get(self._keys[new.idempotency_key])
            except NotFound:
                pass
        if not new.text.strip():
            raise InvalidArgument("observation text is empty")
        if not anchors:
            raise InvalidArgument("a shared note needs at least one anchor (a symbol ref or a file path)")
        note = SharedNote(
            id=uuid.uuid4().hex[:16],
            anchors=tuple(a.ref for a in anchors),
            category=new.category.value,
            tags=new.tags,
            author=_author(rt.root, new.source),
            created=time.time(),
            body=new.text.strip(),
            body_line=0,
        )
        rel = f"{NOTES_DIR}/{note.id}.md"
        _write_atomic(rt.root / rel, render_note(note))
        self._read_now(rt, rel)
        if new.idempotency_key:
            self._keys[new.idempotency_key] = note.id
        try:
            return self._memory.book.get(note.id)
        except NotFound:
            raise FailedPrecondition(f"the shared note {rel} was written but names no code graphmem knows") from None

    def _read_now(self, rt: RepoRuntime, rel: str) -> None:
        job = self._indexer.submit(Job("docs", rt.id, paths=(rel,)))
        if not job.done.wait(NOTE_WAIT_S):
            raise FailedPrecondition(f"{rel} was written; the indexer has not read it yet (it will)")
        if job.error is not None:
            raise job.error

    # ------------------------------------------------------------------ confirm

    def confirm(self, o: Observation, anchors: Sequence[Anchor], by: str) -> Observation:
        """Confirm a unit of a knowledge file: its anchors take the current code (a shared
        note's front matter records who and when). One naming code that no longer exists is
        refused before this (``confirming.confirm_refusal``): its text must change."""
        k = o.knowledge
        assert k is not None
        new = self._memory.confirm(o.id, anchors, [], by)
        if k.kind is KnowledgeKind.SHARED_NOTE:
            rt = self._registry.get(o.repo_id)
            if rt is not None:
                self._record_confirmation(rt, k.path, by, new.confirmed_at or time.time())
        return new

    def _record_confirmation(self, rt: RepoRuntime, rel: str, by: str, at: float) -> None:
        path = rt.root / rel
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise FailedPrecondition(f"cannot read {rel} to record the confirmation: {exc}") from exc
        note = parse_note(text, Path(rel).stem)
        if note is None:
            raise FailedPrecondition(f"{rel} has no front matter to record the confirmation in")
        _write_atomic(path, format_note(note, confirmed=at, confirmed_by=by or "unknown"))
        self._read_now(rt, rel)


def _author(root: Path, source: str) -> str:
    """Who writes a shared note: the repository's git user, else the saving client's name."""
    if source not in _ANONYMOUS:
        return source
    try:
        out = run_git(root, "config", "user.name")
    except (OSError, subprocess.TimeoutExpired):
        out = None
    name = out.stdout.decode("utf-8", "replace").strip() if out is not None and out.returncode == 0 else ""
    return name or os.environ.get("USER", "") or source or "unknown"


def _write_atomic(path: Path, text: str) -> None:
    """Write a file whole or not at all (temporary file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
