"""The daemon's core: repositories, indexing, live changes, staleness and observations.

Threads: gRPC handlers call the public methods; ONE indexing thread runs every job that
changes the code graph (cold index, rescans, live file changes, repository removal), so the
code graph has a single writer. Observation writes are journaled (fsync) first, then
mirrored into the store under the store's lock. The watcher thread only queues paths.
"""

from __future__ import annotations

import difflib
import gc
import logging
import os
import queue
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from graphmem.errors import FailedPrecondition, GraphMemError, InvalidArgument, NotFound, StoreError
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    Event,
    EventKind,
    Freshness,
    IndexProgress,
    IndexState,
    Observation,
    ObservationStatus,
    RepoFreshness,
    StaleReason,
)

from graphmemd.codegraph import CodeGraph, FileNode
from graphmemd.config import DaemonConfig
from graphmemd.diff import diff_symbols
from graphmemd.events import EventBus
from graphmemd.gitinfo import head_commit, working_tree_dirty
from graphmemd.journal import Journal
from graphmemd.model import ChangeKind as ModelChange
from graphmemd.model import (
    FileRecord,
    ParsedFile,
    SkippedFile,
    SymbolChange,
    SymbolInfo,
    file_id,
    symbols_of,
)
from graphmemd.observations import (
    CodeView,
    ObservationBook,
    file_anchor,
    file_fingerprint,
    reevaluate,
    symbol_anchor,
    to_doc,
)
from graphmemd.parse_pool import ParseOutcome, ParsePool
from graphmemd.parsing import language_for_path
from graphmemd.repos import RepoRuntime, load_registry, repo_id_for, save_registry
from graphmemd.store import Store, observation_row
from graphmemd.walker import WalkedFile, walk_repo
from graphmemd.watcher import RepoWatcher
from graphmemd.writer import StoreWriter

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class Job:
    kind: str  # "index" | "changes" | "remove"
    repo_id: str
    full: bool = False
    paths: tuple[str, ...] = ()
    done: threading.Event = field(default_factory=threading.Event)
    error: GraphMemError | None = None


class Engine(CodeView):
    def __init__(self, config: DaemonConfig) -> None:
        self.cfg = config
        self.bus = EventBus()
        self.graph = CodeGraph()
        self.lock = threading.RLock()  # guards graph + repos
        self.repos: dict[str, RepoRuntime] = {}
        self.started_at = time.time()
        self.ready = threading.Event()
        self.last_error = ""
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._store: Store | None = None
        self._journal: Journal | None = None
        self._book: ObservationBook | None = None
        self._pool: ParsePool | None = None
        self._watcher: RepoWatcher | None = None
        self.writer = StoreWriter(self._store_failed, self._store_idle)

    # ------------------------------------------------------------------ lifecycle

    @property
    def store(self) -> Store:
        if self._store is None:
            raise FailedPrecondition("the store is not open yet")
        return self._store

    @property
    def book(self) -> ObservationBook:
        if self._book is None:
            raise FailedPrecondition("observations are not loaded yet")
        return self._book

    def open(self) -> None:
        paths = self.cfg.paths
        paths.ensure()
        self._store = self._open_store()
        self._journal = Journal(paths.journal)
        self._book = ObservationBook(self._journal, self._mirror_observation)
        n = self._book.load()
        logger.info("journal replayed: %d records, %d observations", n, len(self._book))
        if self._book.compact_if_needed(n):
            logger.info("journal compacted: %d records -> %d", n, len(self._book))
        self._sync_store_observations()
        self.writer.submit(self.store.refresh_row_ids)
        self._pool = ParsePool(
            self.cfg.parse_workers, timeout_s=self.cfg.parse_timeout_s, max_file_size=self.cfg.max_file_size
        )
        self._pool.start()
        if self.cfg.watch:
            self._watcher = RepoWatcher(
                self._on_batch,
                ignore=self._ignored,
                on_degraded=self._on_degraded,
                on_rescan=self._on_rescan,
                debounce_ms=self.cfg.debounce_ms,
                step_ms=self.cfg.watch_step_ms,
                rescan_interval_s=self.cfg.rescan_interval_s,
            )
            self._watcher.start()
        self._worker = threading.Thread(target=self._work, name="graphmem-indexer", daemon=True)
        self._worker.start()
        stored = {rid: (root, commit, at) for rid, root, commit, at in self.store.repos()}
        roots = list(dict.fromkeys([*load_registry(paths.repos_file), *self.cfg.repos]))
        for root in roots:
            try:
                self.add_repo(root, _stored=stored)
            except GraphMemError as exc:
                logger.error("cannot register %s: %s", root, exc)
                self.last_error = str(exc)
        self.ready.set()

    def _open_store(self) -> Store:
        """Open the store; if it is damaged, move it aside and start a new one.

        Nothing is lost by that: observations are replayed from the journal (the source of
        truth) and the code graph is re-derived from the repositories."""
        paths = self.cfg.paths

        def open_() -> Store:
            return Store(paths.store, buffer_pool_mb=self.cfg.buffer_pool_mb, max_db_size_gb=self.cfg.max_db_size_gb)

        try:
            return open_()
        except StoreError as exc:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            moved = []
            for p in (paths.store, Path(str(paths.store) + ".wal")):
                if p.exists():
                    target = p.with_name(f"{p.name}.broken-{stamp}")
                    try:
                        p.rename(target)
                    except OSError as err:
                        raise StoreError(f"the store cannot be opened ({exc}) nor moved aside ({err})") from err
                    moved.append(str(target))
            logger.error(
                "the store could not be opened (%s); moved aside to %s and rebuilding it from the "
                "journal and the repositories",
                exc,
                ", ".join(moved) or "nothing",
            )
            self.last_error = f"store rebuilt after an open failure: {exc}"
            return open_()

    def close(self) -> None:
        self.ready.clear()
        if self._watcher is not None:
            self._watcher.stop()
        self._jobs.put(None)
        if self._worker is not None:
            self._worker.join(timeout=30)
        self.bus.close()
        self.writer.close()
        if self._pool is not None:
            self._pool.close()
        if self._journal is not None:
            self._journal.close()
        if self._store is not None:
            self._store.close()

    def _store_idle(self) -> None:
        if self._store is not None:
            self._store.refresh_row_ids()

    def _rebuild_fts(self) -> None:
        t = time.time()
        if self.store.ensure_symbol_fts():
            logger.info("symbol full-text index rebuilt in %.2fs", time.time() - t)

    def flush_store(self, timeout: float = 30.0) -> None:
        """Wait until every queued store write is done."""
        self.writer.submit(lambda: None).result(timeout)

    def _sync_store_observations(self) -> None:
        """Make the store's Observation nodes equal the journal's (the journal wins)."""
        want = {o.id: observation_row(to_doc(o)) for o in self.book.all()}
        have = {s.id: s.doc for s in self.store.observations()}
        stale = [row for oid, row in want.items() if have.get(oid) != row["doc"]]
        extra = [oid for oid in have if oid not in want]
        for oid in extra:
            self.store.delete_observation(oid)
        for i in range(0, len(stale), 500):
            self.store.upsert_observations(stale[i : i + 500])
        if stale or extra:
            logger.warning(
                "store repaired from the journal: %d observations rewritten, %d removed",
                len(stale),
                len(extra),
            )

    def _store_failed(self, exc: GraphMemError) -> None:
        self.last_error = str(exc)

    def _mirror_observation(self, o: Observation | None, obs_id: str) -> None:
        """Queue the store copy of an observation (the journal already has it; a failed store
        write is repaired from the journal at the next start)."""
        store = self.store
        if o is None:
            self.writer.submit(lambda: store.delete_observation(obs_id))
        else:
            row = observation_row(to_doc(o))
            self.writer.submit(lambda: store.upsert_observations([row]))

    # ------------------------------------------------------------------ repositories

    def add_repo(self, path: Path | str, *, _stored: dict[str, tuple[str, str, float]] | None = None) -> RepoRuntime:
        root = Path(path).expanduser().absolute()
        try:
            root = root.resolve(strict=True)
        except OSError as exc:
            raise InvalidArgument(f"no such directory: {root}") from exc
        with self.lock:
            rid = repo_id_for(root)
            if rid in self.repos:
                return self.repos[rid]
            rt = RepoRuntime.create(root)
            self.repos[rid] = rt
            stored = _stored if _stored is not None else {r[0]: (r[1], r[2], r[3]) for r in self.store.repos()}
            if rid in stored:
                rt.indexed_commit, rt.last_indexed_at = stored[rid][1], stored[rid][2] or None
                self._load_graph(rt)
            save_registry(self.cfg.paths.repos_file, [r.root for r in self.repos.values()])
        if self._watcher is not None:
            self._watcher.add_root(root)
            # Scan only once the OS watch is registered, so no change falls in between.
            if not self._watcher.wait_live(root, timeout=5.0):
                logger.warning("watch of %s not live after 5 s; the periodic rescan covers the gap", root)
        self.submit(Job("index", rid))
        return rt

    def _load_graph(self, rt: RepoRuntime) -> None:
        files, symbols, stored = self.store.load_repo_graph(rt.id)
        by_path: dict[str, list[SymbolInfo]] = {}
        for s in symbols:
            by_path.setdefault(s.path, []).append(s)
        for f in files:
            self.graph.put_file(FileNode(rt.id, f.path, f.language, f.content_hash), by_path.get(f.path, []))
        self.graph.set_edges([file_id(rt.id, f.path) for f in files], stored.edges)
        rt.n_files, rt.n_symbols = self.graph.counts(rt.id)
        logger.info("loaded %s from the store: %d files, %d symbols", rt.id, len(files), len(symbols))

    def remove_repo(self, repo: str, keep_observations: bool = False) -> None:
        rt = self.repo(repo)
        job = self.submit(Job("remove", rt.id, full=keep_observations))
        job.done.wait(60)
        if job.error is not None:
            raise job.error

    def repo(self, hint: str) -> RepoRuntime:
        """A repository by id or by a path inside it; with one repository, "" names it."""
        with self.lock:
            if not hint:
                if len(self.repos) == 1:
                    return next(iter(self.repos.values()))
                if not self.repos:
                    raise FailedPrecondition("no repository is registered: add one with `graphmem repo add PATH`")
                raise InvalidArgument(
                    f"several repositories are registered; name one of: {', '.join(sorted(self.repos))}"
                )
            if hint in self.repos:
                return self.repos[hint]
            p = Path(hint).expanduser()
            if p.is_absolute() or p.exists():
                try:
                    p = p.resolve()
                except OSError:
                    p = p.absolute()
                for rt in self.repos.values():
                    if p == rt.root or rt.root in p.parents:
                        return rt
        raise NotFound(f"no registered repository {hint!r}")

    def repos_for(self, hint: str) -> list[RepoRuntime]:
        if hint:
            return [self.repo(hint)]
        with self.lock:
            return list(self.repos.values())

    # ------------------------------------------------------------------ jobs

    def submit(self, job: Job) -> Job:
        self._jobs.put(job)
        return job

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            rt = self.repos.get(job.repo_id)
            try:
                if rt is None:
                    raise NotFound(f"no registered repository {job.repo_id!r}")
                rt.busy = True
                if job.kind == "index":
                    rt.rescan_queued = False
                    self._index(rt, full=job.full, only=job.paths)
                elif job.kind == "changes":
                    self._changes(rt)
                elif job.kind == "remove":
                    self._remove(rt, keep_observations=job.full)
            except GraphMemError as exc:
                logger.error("%s job on %s failed: %s", job.kind, job.repo_id, exc)
                job.error = exc
                self.last_error = str(exc)
                if rt is not None:
                    rt.error = str(exc)
            finally:
                if rt is not None:
                    rt.busy = False
                job.done.set()
            self._warm()

    def _warm(self) -> None:
        """Precompute the walk's adjacency for what the job changed, in slices so that queries
        wait at most a few milliseconds for the lock."""
        while True:
            with self.lock:
                if not self.graph.warm(1000):
                    return

    def _remove(self, rt: RepoRuntime, keep_observations: bool) -> None:
        if self._watcher is not None:
            self._watcher.remove_root(rt.root)
        with self.lock:
            self.graph.drop_repo(rt.id)
            self.repos.pop(rt.id, None)
            save_registry(self.cfg.paths.repos_file, [r.root for r in self.repos.values()])
        store = self.store
        self.writer.submit(lambda: store.delete_repo(rt.id)).result(120)
        if not keep_observations:
            archived = [
                replace(o, status=ObservationStatus.ARCHIVED, updated_at=time.time())
                for o in self.book.all()
                if o.repo_id == rt.id and o.status is not ObservationStatus.ARCHIVED
            ]
            self.book.apply(archived)

    def progress(self, rt: RepoRuntime, started: float) -> IndexProgress:
        """A repository's index progress, from counters the indexer maintains (safe from any thread)."""
        return IndexProgress(
            rt.id, rt.state, rt.files_done, rt.files_total, rt.n_symbols, len(rt.skipped), time.time() - started
        )

    def _publish_progress(self, rt: RepoRuntime, started: float) -> None:
        self.bus.publish(Event(EventKind.INDEX_PROGRESS, time.time(), rt.id, progress=self.progress(rt, started)))

    def _index(self, rt: RepoRuntime, *, full: bool, only: Sequence[str] = ()) -> None:
        """Walk, parse what changed (everything on the first pass), diff, store, re-evaluate."""
        started = time.time()
        if not rt.root.is_dir():
            # Unmounted or moved away: report it, and do NOT treat every file as deleted (that
            # would mark every observation stale). The watcher's rescans retry until it is back.
            rt.state, rt.error = IndexState.ERROR, f"repository root {rt.root} is missing"
            logger.error("%s: %s", rt.id, rt.error)
            return
        rt.state, rt.error = IndexState.INDEXING, ""
        # An index pass allocates ~10^5-10^6 acyclic objects; cyclic GC passes over them are
        # pure overhead (~15 % of the pass). Collected once at the end, then frozen.
        gc.disable()
        try:
            self._index_pass(rt, full=full, only=only, started=started)
        finally:
            gc.enable()
            gc.collect(1)
            gc.freeze()

    def _index_pass(self, rt: RepoRuntime, *, full: bool, only: Sequence[str], started: float) -> None:
        rt.filter.reload()
        walked: list[WalkedFile] = []
        skipped: dict[str, str] = {}
        for item in walk_repo(rt.root, max_file_size=self.cfg.max_file_size, filter=rt.filter):
            if isinstance(item, SkippedFile):
                skipped[item.path] = item.reason
            else:
                walked.append(item)
        if only:
            wanted = set(only)
            walked = [w for w in walked if w.path in wanted]
        known = rt.resolver.paths()
        todo: list[tuple[str, Path]] = []
        for w in walked:
            try:
                st = w.abs_path.stat()
            except OSError:
                continue
            key = (st.st_size, st.st_mtime_ns)
            if full or w.path not in known or rt.stats.get(w.path) != key:
                todo.append((w.path, w.abs_path))
                rt.stats[w.path] = key
        rt.files_total, rt.files_done = len(walked), len(walked) - len(todo)
        self._publish_progress(rt, started)
        outcomes: dict[str, ParseOutcome] = {}
        last = time.monotonic()
        assert self._pool is not None
        prepared: dict[str, list[SymbolInfo]] = {}
        for out in self._pool.parse_many(todo):
            rt.files_done += 1
            if out.parsed is not None:
                outcomes[out.path] = out
                # overlap the daemon's per-file work with the workers' parsing
                rt.resolver.set_file(out.parsed)
                prepared[out.path] = symbols_of(rt.id, out.parsed)
            elif out.skipped is not None:
                skipped[out.path] = out.skipped.reason
            if time.monotonic() - last > 0.25:
                last = time.monotonic()
                self._publish_progress(rt, started)
        on_disk = {w.path for w in walked} - set(skipped)
        removed = set() if only else {n.path for n in self.graph.repo_files(rt.id)} - on_disk
        for p in removed:
            rt.stats.pop(p, None)
        rt.skipped = skipped
        t_parsed = time.time()
        for path, reason in skipped.items():
            logger.info("skipped %s/%s: %s", rt.id, path, reason)
        self._apply(rt, outcomes, removed, full=full, prepared=prepared)
        rt.indexed_commit = head_commit(rt.root)
        rt.dirty = working_tree_dirty(rt.root)
        rt.last_indexed_at = time.time()
        rt.n_edges = self.graph.edge_count(rt.id)
        rt.state = IndexState.READY
        store, commit, at = self.store, rt.indexed_commit, rt.last_indexed_at
        self.writer.submit(lambda: store.upsert_repo(rt.id, str(rt.root), commit, at))
        self._publish_progress(rt, started)
        self.writer.submit(self._rebuild_fts)
        logger.info(
            "indexed %s: %d files, %d symbols, %d skipped in %.2fs (walk+parse %.2fs, apply %.2fs)",
            rt.id,
            rt.n_files,
            rt.n_symbols,
            len(skipped),
            time.time() - started,
            t_parsed - started,
            time.time() - t_parsed,
        )

    def _changes(self, rt: RepoRuntime) -> None:
        """Apply the file changes the watcher reported (stat each path for its final state)."""
        with rt.lock:
            paths, rt.pending = rt.pending, set()
            rt.queued = False
        if not paths:
            return
        if not rt.root.is_dir():  # the whole root went away: see _index
            rt.state, rt.error = IndexState.ERROR, f"repository root {rt.root} is missing"
            return
        todo: dict[str, Path] = {}
        removed: set[str] = set()
        rescan = False
        known_files = {n.path for n in self.graph.repo_files(rt.id)}
        for p in paths:
            rel = rt.rel(p)
            if rel is None:
                continue
            if rt.filter.maybe_invalidate(rel):
                rescan = True
                continue
            try:
                st = os.stat(p)
            except OSError:  # gone (deleted, or renamed away): drop it and anything under it
                prefix = rel + "/"
                removed.update(f for f in known_files if f == rel or f.startswith(prefix))
                continue
            if stat.S_ISDIR(st.st_mode):
                if rt.filter.is_ignored(rel, is_dir=True):
                    continue
                # a directory appeared (mkdir, moved in, checkout): walk it with the repo's own rules
                for item in walk_repo(rt.root, max_file_size=self.cfg.max_file_size, filter=rt.filter, under=rel):
                    if isinstance(item, WalkedFile):
                        todo[item.path] = item.abs_path
                continue
            if rt.filter.is_ignored(rel) or not stat.S_ISREG(st.st_mode) or language_for_path(rel) is None:
                if rel in known_files:
                    removed.add(rel)
                continue
            if st.st_size > self.cfg.max_file_size:
                rt.skipped[rel] = f"file is {st.st_size} bytes, over the {self.cfg.max_file_size}-byte limit"
                if rel in known_files:
                    removed.add(rel)
                continue
            todo[rel] = Path(p)
            rt.stats[rel] = (st.st_size, st.st_mtime_ns)
        if rescan:
            self.submit(Job("index", rt.id))
        outcomes: dict[str, ParseOutcome] = {}
        assert self._pool is not None
        for out in self._pool.parse_many(sorted(todo.items())):
            if out.parsed is not None:
                outcomes[out.path] = out
                rt.skipped.pop(out.path, None)
            else:
                if out.skipped is not None:
                    rt.skipped[out.path] = out.skipped.reason
                if out.path in known_files:
                    removed.add(out.path)
        self._apply(rt, outcomes, removed - set(outcomes), full=False)
        rt.dirty = working_tree_dirty(rt.root) if (outcomes or removed) else rt.dirty
        rt.indexed_commit = head_commit(rt.root)

    def _apply(
        self,
        rt: RepoRuntime,
        outcomes: dict[str, ParseOutcome],
        removed: set[str],
        *,
        full: bool,
        prepared: dict[str, list[SymbolInfo]] | None = None,
    ) -> None:
        """The one place the code graph changes: memory, store, then staleness and events."""
        now = time.time()
        # Only this (indexing) thread mutates the graph and the resolver, so everything up to the
        # swap reads without the lock; readers are blocked only while the results are swapped in.
        old_files = {n.path: n for n in self.graph.repo_files(rt.id)}
        cold = not old_files
        changed: list[str] = []
        parsed: dict[str, ParsedFile] = {}
        for path, out in outcomes.items():
            assert out.parsed is not None
            parsed[path] = out.parsed
            if prepared is None or path not in prepared:
                rt.resolver.set_file(out.parsed)
            prev = old_files.get(path)
            if full or prev is None or prev.content_hash != out.content_hash:
                changed.append(path)
        removed = {p for p in removed if p in old_files}
        for p in removed:
            rt.resolver.remove_file(p)
        if not changed and not removed:
            return
        pre = prepared or {}
        infos = {p: pre[p] if p in pre else symbols_of(rt.id, parsed[p]) for p in changed}
        if cold:  # nothing to diff against: re-evaluate the repository's observations instead
            changes: list[SymbolChange] = []
        else:
            old_states = [s.state() for p in (*changed, *removed) for s in self.graph.file_symbols(rt.id, p)]
            changes = diff_symbols(old_states, [s.state() for syms in infos.values() for s in syms])
        if cold:
            edges = rt.resolver.all_edges()
            sources: set[str] = set()
        else:
            touched = set(changed) | removed
            sources = rt.resolver.dependents_of(touched) - touched
            edges = rt.resolver.edges_for(set(changed) | sources)
        with self.lock:
            for p in removed:
                self.graph.remove_file(rt.id, p)
            for p in changed:
                out = outcomes[p]
                self.graph.put_file(FileNode(rt.id, p, parsed[p].language, out.content_hash or ""), infos[p])
            self.graph.set_edges([file_id(rt.id, p) for p in (*changed, *sources)], edges)
            rt.n_files, rt.n_symbols = self.graph.counts(rt.id)
        t_mem = time.time()
        self._restale(rt, changes, set(changed) | removed, whole_repo=cold)
        t_stale = time.time()
        records = [
            (
                FileRecord(
                    rt.id,
                    p,
                    parsed[p].language,
                    outcomes[p].content_hash or "",
                    outcomes[p].size,
                    now,
                    parsed[p].syntax_errors,
                ),
                parsed[p],
            )
            for p in changed
        ]
        store, removed_now, sources_now = self.store, set(removed), set(sources)
        # Memory is current; if this write fails the store catches up at the next pass (hashes differ).
        self.writer.submit(lambda: store.replace_files(rt.id, records, removed_now, edges, edge_sources=sources_now))
        logger.debug(
            "applied %d changed, %d removed: memory+resolve %.3fs, staleness %.3fs",
            len(changed),
            len(removed),
            t_mem - now,
            t_stale - t_mem,
        )
        by_path: dict[str, list[SymbolChange]] = {}
        for c in changes:
            state = c.new or c.old
            if state is not None:
                by_path.setdefault(state.path, []).append(c)
        for p in changed:
            n = by_path.get(p, [])
            self.bus.publish(
                Event(
                    EventKind.FILE_INDEXED,
                    now,
                    rt.id,
                    path=p,
                    detail={
                        "removed": 0,
                        "symbols": len(infos[p]),
                        "added": sum(c.kind is ModelChange.ADDED for c in n),
                        "removed_symbols": sum(c.kind is ModelChange.REMOVED for c in n),
                        "changed": sum(c.kind in (ModelChange.BODY_CHANGED, ModelChange.SIGNATURE_CHANGED) for c in n),
                    },
                )
            )
        for p in removed:
            n = by_path.get(p, [])
            self.bus.publish(
                Event(
                    EventKind.FILE_INDEXED,
                    now,
                    rt.id,
                    path=p,
                    detail={"removed": 1, "symbols": 0, "added": 0, "removed_symbols": len(n), "changed": 0},
                )
            )

    # ------------------------------------------------------------------ staleness

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        return self.graph.symbols.get(symbol_id)

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        node = self.graph.files.get(file_id(repo_id, path))
        if node is None:
            return None
        return file_fingerprint(self.graph.file_symbols(repo_id, path), node.content_hash)

    def _restale(
        self, rt: RepoRuntime, changes: Sequence[SymbolChange], touched: set[str], *, whole_repo: bool = False
    ) -> None:
        ids: set[str] = {file_id(rt.id, p) for p in touched}
        for c in changes:
            ids.update(s.id for s in (c.old, c.new) if s is not None)
        candidates: dict[str, Observation] = {}
        if whole_repo:
            candidates = {o.id: o for o in self.book.all() if any(a.repo_id == rt.id for a in o.anchors)}
        for i in ids:
            for o in self.book.anchored_to(i):
                candidates[o.id] = o
        if not candidates:
            return
        now, commit = time.time(), head_commit(rt.root)
        renames = {c.old.id: c.new for c in changes if c.kind is ModelChange.RENAMED and c.old and c.new}
        updated: list[Observation] = []
        with self.lock:
            for o in candidates.values():
                new = o
                moved = [a for a in o.anchors if a.kind is AnchorKind.SYMBOL and a.symbol_id in renames]
                if moved:
                    anchors, reasons = [], list(o.stale_reasons)
                    for a in o.anchors:
                        target = renames.get(a.symbol_id) if a.kind is AnchorKind.SYMBOL else None
                        if target is None:
                            anchors.append(a)
                            continue
                        new_ref = f"{target.path}::{target.qualname}"
                        # The anchor follows with the new fingerprints (the name is part of the
                        # signature); the RENAMED reason keeps the old signature for review.
                        anchors.append(
                            replace(
                                a,
                                ref=new_ref,
                                symbol_id=target.id,
                                path=target.path,
                                signature=target.signature,
                                sig_hash=target.sig_hash,
                                body_hash=target.body_hash,
                            )
                        )
                        reasons.append(
                            StaleReason(
                                a.ref,
                                ChangeKind.RENAMED,
                                now,
                                old_signature=a.signature,
                                new_signature=target.signature,
                                new_ref=new_ref,
                                commit=commit,
                                detail=f"{a.ref} was renamed or moved to {new_ref}",
                            )
                        )
                    new = replace(o, anchors=tuple(anchors), stale_reasons=tuple(reasons), needs_review=True)
                new = reevaluate(new, self, now, commit)
                if new != o:
                    updated.append(replace(new, updated_at=now))
        if not updated:
            return
        self.book.apply(updated)
        before = {o.id: o.status for o in candidates.values()}
        for o in updated:
            if o.status is ObservationStatus.STALE:
                kind = EventKind.OBSERVATION_STALE
            elif o.status is ObservationStatus.FRESH and before.get(o.id) is ObservationStatus.STALE:
                kind = EventKind.OBSERVATION_FRESH
            else:
                kind = EventKind.OBSERVATION_CHANGED
            self.bus.publish(Event(kind, now, o.repo_id, observation=o))

    # ------------------------------------------------------------------ watcher callbacks

    def _repo_of_path(self, path: Path) -> RepoRuntime | None:
        with self.lock:
            for rt in self.repos.values():
                if path == rt.root or rt.root in path.parents:
                    return rt
        return None

    def _ignored(self, path: Path) -> bool:
        rt = self._repo_of_path(path)
        if rt is None:
            return True
        rel = rt.rel(path)
        if rel is None:
            return False
        if rt.filter.is_ignore_file(rel):
            return False
        return rt.filter.is_ignored(rel)

    def _on_batch(self, root: Path, paths: set[Path]) -> None:
        rt = self._repo_of_path(root)
        if rt is None:
            return
        with rt.lock:
            rt.pending.update(paths)
            if rt.queued:
                return
            rt.queued = True
        self.submit(Job("changes", rt.id))

    def _on_degraded(self, root: Path, reason: str) -> None:
        rt = self._repo_of_path(root)
        rid = rt.id if rt else ""
        self.bus.publish(Event(EventKind.WATCHER_DEGRADED, time.time(), rid, message=reason))
        if rt is not None:
            self.submit(Job("index", rt.id))

    def _on_rescan(self, root: Path) -> None:
        rt = self._repo_of_path(root)
        if rt is not None:
            self.submit(Job("index", rt.id))

    def watcher_state(self) -> tuple[str, bool, str, int]:
        """(mode, healthy, degraded reason, restarts) over every watched root."""
        if self._watcher is None:
            return ("stopped", True, "", 0)
        states = self._watcher.states()
        reasons = [f"{root}: {s.degraded_reason}" for root, s in states.items() if s.degraded_reason]
        mode = "polling" if any(s.mode == "polling" for s in states.values()) else "watching"
        return (mode, not reasons, "; ".join(reasons), sum(s.restarts for s in states.values()))

    # ------------------------------------------------------------------ freshness

    def freshness(self, repos: Iterable[RepoRuntime]) -> Freshness:
        out: list[RepoFreshness] = []
        for rt in repos:
            head = head_commit(rt.root)
            pending = len(rt.pending)
            current = rt.state is IndexState.READY and pending == 0 and not rt.busy and not rt.queued
            if head and head != rt.indexed_commit:
                # HEAD moved (commit, checkout, pull): not current until a rescan confirms the tree.
                current = False
                if rt.state is IndexState.READY and not rt.rescan_queued:
                    rt.rescan_queued = True
                    self.submit(Job("index", rt.id))
            out.append(RepoFreshness(rt.id, current, rt.state, pending, rt.indexed_commit, head, rt.dirty))
        return Freshness(all(r.current for r in out), tuple(out))

    def resolve_anchor(self, ref: str, repo_hint: str = "") -> Anchor:
        ref = ref.strip()
        if not ref:
            raise InvalidArgument("an anchor reference is empty")
        with self.lock:
            if "#" in ref and ref in self.graph.symbols:
                return symbol_anchor(self.graph.symbols[ref])
            path_part, _, qual = ref.partition("::")
            rt, rel = self.locate(path_part, repo_hint)
            if not qual:
                if file_id(rt.id, rel) not in self.graph.files:
                    raise InvalidArgument(self._unresolved(ref, rt, rel))
                fp = self.file_fingerprint(rt.id, rel)
                assert fp is not None
                return file_anchor(rt.id, rel, fp)
            matches = [s for s in self.graph.file_symbols(rt.id, rel) if s.qualname == qual]
            if not matches:
                raise InvalidArgument(self._unresolved(ref, rt, rel))
            return symbol_anchor(sorted(matches, key=lambda s: s.kind.value == "module")[0])

    def locate(self, path_part: str, repo_hint: str) -> tuple[RepoRuntime, str]:
        p = Path(path_part)
        if p.is_absolute():
            rt = self._repo_of_path(p)
            if rt is None:
                raise InvalidArgument(f"{path_part} is not inside a registered repository")
            rel = rt.rel(p)
            if rel is None:
                raise InvalidArgument(f"{path_part} is a repository root, not a file")
            return rt, rel
        rt = self.repo(repo_hint)
        return rt, p.as_posix().lstrip("./") if path_part.startswith("./") else p.as_posix()

    def _unresolved(self, ref: str, rt: RepoRuntime, rel: str) -> str:
        syms = self.graph.file_symbols(rt.id, rel)
        pool = [s.ref for s in syms] if syms else [n.path for n in self.graph.repo_files(rt.id)]
        close = difflib.get_close_matches(ref, pool, n=5, cutoff=0.4)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        return f"anchor {ref!r} does not resolve in repository {rt.id}{hint}"

    def create_observation(
        self,
        *,
        repo: str,
        text: str,
        category: Category,
        tags: Sequence[str],
        source: str,
        confidence: float,
        anchors: Sequence[str],
        supersedes: Sequence[str],
        contradicts: Sequence[str],
        idempotency_key: str,
    ) -> Observation:
        resolved: list[Anchor] = []
        errors: list[str] = []
        for ref in anchors:
            try:
                resolved.append(self.resolve_anchor(ref, repo))
            except InvalidArgument as exc:
                errors.append(str(exc))
        if errors:
            raise InvalidArgument("; ".join(errors))
        repo_ids = {a.repo_id for a in resolved}
        repo_id = self.repo(repo).id if repo else (next(iter(repo_ids)) if len(repo_ids) == 1 else "")
        if not repo_id and resolved:
            raise InvalidArgument("anchors span several repositories; name the repository with repo=")
        o = self.book.create(
            repo_id=repo_id,
            text=text,
            category=category,
            tags=tags,
            source=source,
            confidence=confidence,
            anchors=resolved,
            supersedes=supersedes,
            contradicts=contradicts,
            idempotency_key=idempotency_key,
        )
        try:
            self.writer.submit(lambda: None).result(10)  # visible to text search when we answer
        except (TimeoutError, GraphMemError) as exc:
            logger.warning("observation %s acknowledged from the journal; store copy pending: %s", o.id, exc)
        self.bus.publish(Event(EventKind.OBSERVATION_CHANGED, time.time(), o.repo_id, observation=o))
        return o

    def confirm(self, obs_id: str, by: str) -> Observation:
        o = self.book.get(obs_id)
        anchors: list[Anchor] = []
        lost: list[str] = []
        with self.lock:
            for a in o.anchors:
                if a.kind is AnchorKind.SYMBOL:
                    s = self.graph.symbols.get(a.symbol_id)
                    if s is None:
                        lost.append(a.ref)
                    else:
                        anchors.append(symbol_anchor(s))
                else:
                    fp = self.file_fingerprint(a.repo_id, a.path)
                    if fp is None:
                        lost.append(a.ref)
                    else:
                        anchors.append(file_anchor(a.repo_id, a.path, fp))
        if not anchors:
            raise FailedPrecondition(
                f"every anchor of {obs_id} is gone ({', '.join(lost)}); save a new observation that supersedes it"
            )
        new = self.book.confirm(obs_id, anchors, by or "unknown")
        self.bus.publish(Event(EventKind.OBSERVATION_FRESH, time.time(), new.repo_id, observation=new))
        return new

    def publish_changed(self, o: Observation) -> None:
        self.bus.publish(Event(EventKind.OBSERVATION_CHANGED, time.time(), o.repo_id, observation=o))

    def request_index(self, repo: str, paths: Sequence[str], full: bool) -> tuple[RepoRuntime, Job]:
        rt = self.repo(repo)
        rels: list[str] = []
        for p in paths:
            pp = Path(p)
            rel = rt.rel(pp.resolve()) if pp.is_absolute() else pp.as_posix()
            if rel is None:
                raise InvalidArgument(f"{p} is not inside {rt.root}")
            rels.append(rel)
        return rt, self.submit(Job("index", rt.id, full=full, paths=tuple(rels)))
