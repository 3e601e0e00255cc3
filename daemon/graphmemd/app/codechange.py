"""The code change under a stale or suspect note (issue 44: the review page shows the symbol
before and after).

An anchor keeps its symbol's fingerprints, not its text. The text before is found in git: the
anchored file at HEAD and at the newest commits that touched it (``GitHistory``), each version
parsed once in the parse workers like any file, and the pure core (``memory/then.py``) picks
the version whose symbol has the anchored fingerprints. The text after is the symbol's lines
in the working tree now. A suspect note gets its dependency's before (the version with the
signature fingerprint the reason recorded) and after, and the edge from the anchor to it.
Runs on the calling gRPC thread: git and the parse pool are both safe to call from there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from graphmem.changes import reason_detail
from graphmem.errors import InvalidArgument
from graphmem.types import (
    AnchorChange,
    AnchorKind,
    ChangeKind,
    CodeVersion,
    EdgeKind,
    Hop,
    Observation,
    ObservationChange,
    StaleReason,
)

from graphmemd.graph.model import SymbolInfo, symbols_of
from graphmemd.indexing.history_shared import Kept
from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.version_parse import VersionParser
from graphmemd.memory.then import Wanted, lines_of, pick_version, split_symbol_id
from graphmemd.retrieval.readview import ReadView

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_COMMITS", "MAX_COMMITS", "CodeChanges"]

DEFAULT_COMMITS = 30
MAX_COMMITS = 200
#: versions parsed per round while looking for the anchored one (newest first)
_ROUND = 8
#: most serious first
_ORDER = {
    ChangeKind.REMOVED: 0,
    ChangeKind.SIGNATURE_CHANGED: 1,
    ChangeKind.BODY_CHANGED: 2,
    ChangeKind.ANNOTATIONS_CHANGED: 3,
    ChangeKind.RENAMED: 4,
    ChangeKind.DEPENDENCY_CHANGED: 5,
    ChangeKind.ADDED: 6,
}


class ParsedVersions:
    """The symbols of old file versions parsed for earlier requests, by blob id and path
    (the newest ``limit``): a reviewer opening the notes of one file, or the same note again,
    does not parse the same versions again. Thread-safe (gRPC handlers share it)."""

    def __init__(self, limit: int = 256) -> None:
        self._lock = threading.Lock()
        self._items: Kept[str, list[SymbolInfo] | None] = Kept(limit)

    def get(self, key: str) -> tuple[bool, list[SymbolInfo] | None]:
        """(found, symbols) of ``key``."""
        with self._lock:
            if key not in self._items:
                return False, None
            return True, self._items[key]

    def put(self, key: str, symbols: list[SymbolInfo] | None) -> None:
        """Keep ``symbols`` for ``key``, forgetting the oldest beyond the limit."""
        with self._lock:
            self._items[key] = symbols


class CodeChanges:
    """Answers ``GetObservationChange``: the code before and after under each stale reason."""

    def __init__(self, view: Callable[[], ReadView], pool: Callable[[], ParsePool]) -> None:
        self._view = view
        self._pool = pool
        self._versions = ParsedVersions()

    def change(self, obs_id: str, max_commits: int = 0, checkout: str = "") -> ObservationChange:
        """The changes under ``obs_id``'s stale reasons, most serious first; ``checkout``: as
        that checkout shows the note (its reasons on that checkout's code, read from its tree)."""
        if not obs_id:
            raise InvalidArgument("id is required")
        if max_commits > MAX_COMMITS:
            raise InvalidArgument(f"max_commits must be at most {MAX_COMMITS}, not {max_commits}")
        view = self._view()
        o = view.observation_in(obs_id, (checkout,))  # ("": as saved)
        if not view.registered(o.repo_id):  # saved in a checkout since removed: as its repository's main one shows it
            o = view.observation_in(obs_id, (view.heir(o.repo_id),))
        if not o.stale_reasons:
            return ObservationChange(obs_id)
        rt = view.repo(o.repo_id)
        search = _Search(
            rt.root, o.repo_id, GitHistory(rt.root), self._pool, max_commits or DEFAULT_COMMITS, self._versions
        )
        try:
            reasons = sorted(o.stale_reasons, key=lambda r: (_ORDER.get(r.change, 9), r.anchor_ref))
            return ObservationChange(obs_id, tuple(self._one(view, search, o, r) for r in reasons))
        finally:
            search.close()

    def _one(self, view: ReadView, search: _Search, o: Observation, r: StaleReason) -> AnchorChange:
        base = AnchorChange(r.anchor_ref, r.change, _ABSENT, _ABSENT, detail=reason_detail(r), commit=r.commit)
        if r.change is ChangeKind.DEPENDENCY_CHANGED:
            path, qualname, kind = split_symbol_id(r.dependency_id)
            now = _symbol(view, r.dependency_id)
            before, note = search.before(path, Wanted(qualname, kind, r.dependency_sig_hash), now)
            via = EdgeKind.__members__.get(r.via.upper(), EdgeKind.CALLS)
            return AnchorChange(
                r.anchor_ref,
                r.change,
                before,
                search.now(now),
                detail=reason_detail(r),
                commit=r.commit,
                dependency_ref=r.dependency_ref,
                # the edge from the note's code to its dependency, when that is one edge: the
                # walk that found a farther one keeps no path, and a search now could find
                # another one than made the note suspect (``dependency_hops`` says how far)
                path=(Hop(r.anchor_ref, via, r.dependency_ref),) if r.dependency_hops <= 1 else (),
                note=note,
            )
        anchor = next((a for a in o.anchors if a.ref == r.anchor_ref), None)
        followed = anchor is None and bool(r.new_ref)  # renamed or moved: the anchor followed it
        if followed:
            anchor = next((a for a in o.anchors if a.ref == r.new_ref), None)
        if anchor is None:
            return replace(base, note="the anchor is no longer on the note")
        if anchor.kind is AnchorKind.FILE:
            return replace(base, note=f"a file anchor: {r.detail or 'the file changed'}")
        path, qualname, kind = split_symbol_id(anchor.symbol_id)
        now = _symbol(view, anchor.symbol_id)
        if now is None and r.new_ref:
            now = _symbol_by_ref(view, o.repo_id, r.new_ref)
        wanted = Wanted(qualname, kind, anchor.sig_hash, anchor.body_hash)
        if followed and "::" in r.anchor_ref:  # the code before lived under the old name: same body
            path, qualname = r.anchor_ref.split("::", 1)
            wanted = Wanted(qualname, kind, "", anchor.body_hash)
        before, note = search.before(path, wanted, now)
        return AnchorChange(
            r.anchor_ref, r.change, before, search.now(now), detail=reason_detail(r), commit=r.commit, note=note
        )


_ABSENT = CodeVersion(present=False)


def _symbol(view: ReadView, symbol_id: str) -> SymbolInfo | None:
    if not symbol_id:
        return None
    with view.reading() as g:
        return g.symbols.get(symbol_id)


def _symbol_by_ref(view: ReadView, repo_id: str, ref: str) -> SymbolInfo | None:
    try:
        a = view.resolve_anchor(ref, repo_id)
    except InvalidArgument:
        return None
    return _symbol(view, a.symbol_id)


class _Search:
    """One request's reads of git and parses of old versions (each blob parsed once)."""

    def __init__(
        self,
        root: Path,
        repo_id: str,
        git: GitHistory,
        pool: Callable[[], ParsePool],
        commits: int,
        versions: ParsedVersions,
    ) -> None:
        self.root = root
        self.repo_id = repo_id
        self.git = git
        self.commits = commits
        self._versions = versions
        self._parsed: dict[str, list[SymbolInfo] | None] = {}
        self._parser = VersionParser(pool, "gm-then-")

    def close(self) -> None:
        """Remove the scratch copies of old versions."""
        self._parser.close()

    def now(self, s: SymbolInfo | None) -> CodeVersion:
        """The symbol's lines in the working tree now (absent when it is gone)."""
        if s is None:
            return _ABSENT
        try:
            data = (self.root / s.path).read_bytes()
        except OSError:
            return _ABSENT
        return _version(s, data, "", s.path)

    def before(self, path: str, wanted: Wanted, now: SymbolInfo | None) -> tuple[CodeVersion, str]:
        """The version of the symbol with the anchored fingerprints (else the nearest older
        one that differs from now), and a note when there is none."""
        if not self.git.enabled:
            return _ABSENT, "not a git repository: the code as anchored was never committed"
        commits = list(dict.fromkeys([self.git.head, *self.git.recent_commits(path, self.commits)]))
        ids = self.git.blob_ids((c, path) for c in commits)
        blobs = [ids.get((c, path)) for c in commits]
        fallback: tuple[CodeVersion, str] | None = None
        for start in range(0, len(commits), _ROUND):
            chunk = blobs[start : start + _ROUND]
            self._parse(path, [b for b in chunk if b is not None])
            found = pick_version(wanted, [self._parsed.get(b) if b else None for b in chunk], now)
            if found is None:
                continue
            blob = chunk[found.index]
            assert blob is not None
            data = self.git.contents([blob]).get(blob, b"")
            version = _version(found.symbol, data, commits[start + found.index], path, exact=found.exact)
            if found.exact:
                return version, ""
            if fallback is None:
                fallback = (version, "the anchored version was not found in git; this is the newest older version")
        if fallback is not None:
            return fallback
        return _ABSENT, f"the anchored version is not in the last {len(commits)} commits of {path} (never committed?)"

    def _parse(self, path: str, blobs: Sequence[str]) -> None:
        todo: list[str] = []
        for b in dict.fromkeys(blobs):
            if b in self._parsed:
                continue
            found, symbols = self._versions.get(f"{b}:{path}")
            if found:
                self._parsed[b] = symbols
            else:
                todo.append(b)
        if not todo:
            return
        data = self.git.contents(todo)
        for b in todo:
            self._parsed[b] = None
        for b, parsed in self._parser.parse({b: (path, data[b]) for b in todo if b in data}):
            self._parsed[b] = symbols_of(self.repo_id, parsed)
        for b in todo:  # a version that did not parse (a worker lost) is tried again next time
            if self._parsed.get(b) is not None:
                self._versions.put(f"{b}:{path}", self._parsed[b])


def _version(s: SymbolInfo, data: bytes, commit: str, path: str, *, exact: bool = True) -> CodeVersion:
    """``s``'s lines of ``data`` (the file ``path`` at ``commit``; "": the working tree)."""
    return CodeVersion(
        present=True,
        ref=f"{path}::{s.qualname}",
        path=path,
        start_line=s.start_line,
        end_line=s.end_line,
        text=lines_of(data, s.start_line, s.end_line),
        signature=s.signature,
        commit=commit,
        exact=exact,
    )
