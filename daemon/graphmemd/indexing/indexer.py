"""The indexer: the only writer of the code graph.

One supervised thread runs every job that changes the graph (a cold or forced index, a
rescan, a batch of live file changes, a repository's removal), so the graph has a single
writer. A job walks or stats the files, parses what changed in the worker pool, computes a
``GraphDelta`` with the pure core (``delta.py``), swaps it into the graph under the graph
lock, lets memory re-evaluate the observations it touched, queues the store write and
publishes what happened. A job that raises fails alone: the loop goes on (``supervisor.py``).
"""

from __future__ import annotations

import contextlib
import gc
import logging
import queue
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from graphmem.errors import GraphMemError, InvalidArgument, NotFound
from graphmem.types import Event, EventKind, Freshness, IndexState, RepoFreshness

from graphmemd.graph.delta import (
    GraphDelta,
    ParsedUnit,
    apply_delta,
    build_delta,
    impacts_of,
    old_files,
    set_outgoing_edges,
    with_dependents,
)
from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.model import ParsedFile, SymbolInfo, file_id, symbols_of
from graphmemd.graph.resolution import facts_from_files, is_fact_file
from graphmemd.graph.sharing import reuse_unchanged, share_parse, share_strings
from graphmemd.indexing.batch_timing import BatchTiming
from graphmemd.indexing.bodylines_git import measure_bodies
from graphmemd.indexing.derive import Deriver, Todo
from graphmemd.indexing.file_events import file_events
from graphmemd.indexing.knowledge import KnowledgeKeeper
from graphmemd.indexing.live import LiveRunner
from graphmemd.indexing.restore import hand_over, replace_all_edges, restore
from graphmemd.indexing.shared_parses import SharedParses
from graphmemd.indexing.workers import POOL, Workers
from graphmemd.ingest.activity import IDLE, Activity, Doing, why_not_current
from graphmemd.ingest.gitinfo import head_commit, last_commits, uncommitted_paths, working_tree_dirty
from graphmemd.ingest.parse_pack import ParsePack
from graphmemd.ingest.parse_pool import ParseOutcome, ParsePool
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.ingest.scan import DocChanges, classify_batch, scan_tree
from graphmemd.ingest.walker import WalkedDoc, WalkedFile
from graphmemd.memory.memory import Memory
from graphmemd.runtime import malloc
from graphmemd.runtime.config import DaemonConfig
from graphmemd.runtime.events import EventBus
from graphmemd.runtime.faults import Faults
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread, describe
from graphmemd.runtime.timing import Steps
from graphmemd.store.delta_sink import DeltaSink
from graphmemd.store.engine import Store
from graphmemd.store.graph_snapshot import Snapshots
from graphmemd.store.writer import StoreWriter

logger = logging.getLogger(__name__)

#: a watcher batch of at least this many paths is applied with the cyclic GC off (``no_cyclic_gc``)
BULK_BATCH_FILES = 100
COMPONENT = "indexer"


@dataclass(eq=False)
class Job:
    """One unit of the indexer's work; ``done`` is set when it finished (``error`` if it failed)."""

    kind: str  # "index" | "changes" | "remove" | "load" | "docs" (read these knowledge files now)
    repo_id: str
    full: bool = False
    paths: tuple[str, ...] = ()
    done: threading.Event = field(default_factory=threading.Event)
    error: GraphMemError | None = None
    #: when it was queued (monotonic seconds): a pass logs how long it waited
    queued_at: float = field(default_factory=time.monotonic)


def freshness_of(repos: Iterable[RepoRuntime], submit: Callable[[Job], object]) -> Freshness:
    """How current the index of each repository is. When HEAD moved since the last full
    pass (commit, checkout, pull), not current until a rescan (queued by ``submit``) has
    confirmed the tree."""
    out: list[RepoFreshness] = []
    for rt in repos:
        head = head_commit(rt.root)
        pending = len(rt.pending)
        moved = _rescan_if_moved(rt, head, submit)
        current = rt.state is IndexState.READY and pending == 0 and not rt.busy and not rt.queued and not moved
        behind = moved and bool(rt.indexed_commit)
        why = "" if current else why_not_current(
            rt.doing(), pending=pending, queued=rt.queued, rescan=rt.rescan_queued, head_moved=behind
        )  # fmt: skip
        out.append(RepoFreshness(rt.id, current, rt.state, pending, rt.indexed_commit, head, rt.dirty, why))
    return Freshness(all(r.current for r in out), tuple(out))


def rescan_moved(repos: Iterable[RepoRuntime], submit: Callable[[Job], object]) -> None:
    """Queue (``submit``) the rescan of each of ``repos`` whose HEAD moved since its last full
    pass (a commit, checkout, reset or pull seen in its git directory), as ``freshness_of``
    does for the repositories a query asks about."""
    for rt in repos:
        _rescan_if_moved(rt, head_commit(rt.root), submit)


def _rescan_if_moved(rt: RepoRuntime, head: str, submit: Callable[[Job], object]) -> bool:
    """Whether ``rt``'s HEAD (``head``) moved since its last full pass; if so and it is READY
    with no rescan queued yet, its rescan is queued."""
    moved = bool(head) and head != rt.indexed_commit
    if moved and rt.state is IndexState.READY and not rt.rescan_queued:
        rt.rescan_queued = True
        submit(Job("index", rt.id))
    return moved


#: parse outcomes, and whether each was parsed now (``SharedParses.outcomes``)
Outcomes = Iterator[tuple[ParseOutcome, bool]]


class Indexer:
    """Turns file changes into graph deltas, on one supervised thread."""

    def __init__(
        self,
        cfg: DaemonConfig,
        registry: RepoRegistry,
        state: GraphState,
        store: Store,
        parses: ParsePack,
        snapshots: Snapshots,
        writer: StoreWriter,
        memory: Memory,
        bus: EventBus,
        health: Health,
        faults: Faults,
    ) -> None:
        self.cfg = cfg
        self._registry = registry
        self._state = state
        self._store = store
        self._writer = writer
        self._memory = memory
        self._bus = bus
        self._health = health
        self._faults = faults
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        #: notified after each job and each batch applied: ``settle`` checks again then, not on a poll
        self.job_done = threading.Condition()
        self._workers = Workers(cfg, health, faults)
        self._snapshots = snapshots
        #: jobs that raised: a clean stop then writes no snapshots (``graph_snapshot.py``)
        self.failed_jobs = 0
        #: set by ``close``: an idle hand-over pauses (an arriving job does not: a checkout's batches gather meanwhile)
        self._closing = threading.Event()
        self._sink = DeltaSink(store, parses, writer, bus)
        self._deriver = Deriver(registry, state, memory, bus, store, writer, self._sink, cfg, self._hand_over)
        #: live edit batches that go first inside a long job (``live.py``)
        self._live = LiveRunner(registry, self._changes, health, lambda rt: self.submit(Job("index", rt.id)))
        live = self._live.batches()
        self.knowledge = KnowledgeKeeper(memory, state, self.pool, cfg.max_file_size, self._hand_over, live)
        holds, queued = partial(_holds, state), self._sink.queued_parse
        self._shared = SharedParses(registry, parses, cfg.max_file_size, queued, holds)
        self._loop = SupervisedThread(COMPONENT, self._step, health)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the indexing loop; then ``start_pool`` (a warm restart's loads need no workers)."""
        self._loop.start()

    def start_pool(self) -> None:
        """Start the parse workers in the background (``workers.py``)."""
        self._workers.start()

    def close(self) -> bool:
        """Finish the queued jobs, stop the loop and the parse workers; True when the loop
        stopped and no job failed (the graph is then what the queued store writes make)."""
        self._closing.set()
        self._loop.stop_after_crash()
        self._jobs.put(None)
        self._loop.join(timeout=30)
        self._workers.close()
        return not self._loop.is_alive() and not self.failed_jobs

    def pool(self) -> ParsePool:
        """The parse pool (``Workers.get``: waits for its start, replaces one that stopped)."""
        return self._workers.get()

    # ------------------------------------------------------------------ jobs

    def submit(self, job: Job) -> Job:
        """Queue a job for the indexing thread."""
        self._jobs.put(job)
        return job

    def request_index(self, rt: RepoRuntime, paths: Sequence[str], full: bool) -> Job:
        """Queue a (re-)index of ``rt``, of only ``paths`` when given."""
        return self.submit(Job("index", rt.id, full=full, paths=_relative(rt, paths)))

    def _step(self) -> bool:
        job = self._jobs.get()
        if job is None:
            return False
        rt = self._registry.get(job.repo_id)
        try:
            if rt is None:
                raise NotFound(f"no registered repository {job.repo_id!r}")
            rt.busy, self._live.running = True, rt if job.kind != "changes" else None
            self._faults.check(COMPONENT)
            self._run(rt, job)
            self._health.recover(COMPONENT, POOL)
        except GraphMemError as exc:
            job.error = exc
            if rt is None:  # removed since it was queued (a dropped worktree's rescan): nothing failed
                logger.info("%s job on %s skipped: %s", job.kind, job.repo_id, exc)
            else:
                logger.error("%s job on %s failed: %s", job.kind, job.repo_id, exc)
                self.failed_jobs += 1
                self._health.note_error(str(exc))
                rt.error = str(exc)
        except Exception as exc:
            self.failed_jobs += 1
            job.error = GraphMemError(f"{job.kind} job on {job.repo_id} failed unexpectedly: {describe(exc)}")
            if rt is not None and rt.state in (IndexState.INDEXING, IndexState.WARMING):
                rt.state = IndexState.READY if rt.indexed_commit or rt.n_files else IndexState.PENDING
            raise  # the supervisor logs it with its traceback and shows the indexer degraded
        finally:
            if rt is not None:
                rt.busy, rt.activity, self._live.running = False, IDLE, None
            job.done.set()
            _notify(self.job_done)
        if self._jobs.empty():  # queued jobs first (a load is followed by its index pass)
            for each in self._registry.all():
                self._hand_over(each, idle=True)
        return True

    def _hand_over(self, rt: RepoRuntime, idle: bool = False) -> None:
        """Finish a warm restart before anything is resolved (``restore.hand_over``); when
        ``idle``, only after the index pass that follows the load, and until the daemon stops."""
        rt.ensure_facts()  # (the resolver resolves here: with the facts)
        if rt.unhanded and not (idle and rt.state is IndexState.WARMING):
            with _doing(rt, Doing.HANDING_OVER), no_cyclic_gc():
                stop = self._closing.is_set if idle else None
                damaged = hand_over(rt, self._state, self._store, self._writer, self._sink.parses, stop)
            malloc.trim()
            if damaged:  # (their size and mtime are forgotten: the pass parses them)
                self.submit(Job("index", rt.id, paths=tuple(damaged)))

    def _run(self, rt: RepoRuntime, job: Job) -> None:
        if job.kind in ("index", "changes"):  # (may resolve, or derive from a sibling's resolver)
            for each in self._registry.all():
                each.ensure_facts()
        if job.kind == "load":
            with no_cyclic_gc():
                restore(self._store, self._sink.parses, self._snapshots, self._state, rt, self.knowledge)
            malloc.trim()
            self._memory.views.refresh(rt.id)  # its siblings' notes on its code now, not after a pass
        elif job.kind == "index":
            rt.rescan_queued = False
            self._index(rt, full=job.full, only=job.paths, waited=time.monotonic() - job.queued_at)
        elif job.kind == "changes":
            # a bulk batch (checkout, pull, formatter run) is built like a pass; the editing of
            # a few files keeps the normal collector (what requests leave in cycles meanwhile
            # must stay collectable: freezing after every save grew the soak's memory 11 %)
            with no_cyclic_gc() if len(rt.pending) >= BULK_BATCH_FILES else contextlib.nullcontext():
                self._changes(rt)
        elif job.kind == "remove":
            forget_checkout(rt, self._state, self._registry, self._sink)
        elif job.kind == "docs":
            self.knowledge.sync_paths(rt, job.paths)

    def freshness(self, repos: Iterable[RepoRuntime]) -> Freshness:
        """How current the index of each repository is (``freshness_of``)."""
        return freshness_of(repos, self.submit)

    # ------------------------------------------------------------------ full passes

    def _index(self, rt: RepoRuntime, *, full: bool, only: Sequence[str] = (), waited: float = 0.0) -> None:
        """Walk, parse what changed (all of a first pass), diff, store, re-evaluate (``waited``: queued, logged)."""
        started = time.time()
        if _root_missing(rt):
            return
        rt.state, rt.error = IndexState.INDEXING, ""
        with no_cyclic_gc():
            self._index_pass(rt, full=full, only=only, started=started, waited=waited)
        malloc.trim()

    def _index_pass(
        self, rt: RepoRuntime, *, full: bool, only: Sequence[str], started: float, waited: float = 0.0
    ) -> None:
        steps = Steps(cpu_clock=time.thread_time)
        head_before = head_commit(rt.root)
        head_moved = bool(rt.indexed_commit) and head_before != rt.indexed_commit
        self.knowledge.load_selection(rt)
        docs: list[WalkedDoc] = []
        rt.activity = Activity(Doing.WALKING)
        walked, skipped, todo = scan_tree(rt, only, full, self.cfg.max_file_size, docs)
        steps.mark("walk")
        rt.files_total, rt.files_done = len(walked), len(walked) - len(todo)
        rt.activity = Activity(Doing.PARSING)
        rt.pass_symbols = 0
        _publish_progress(self._bus, rt, started)
        with self._state.reading() as graph:  # only this thread changes the graph: still true after parsing
            known = {n.path for n in graph.repo_files(rt.id)}
        plan = self._deriver.plan(rt, todo, fresh=not (known or full or only))
        if plan:
            steps.mark("plan")
        own_facts(rt, walked, skipped, self._hand_over, derives=plan is not None, limited=bool(only))
        # (the rest parsed while the plan's files are derived)
        outcomes = self._shared.outcomes(rt, plan.rest, self.pool, plan.hashed) if plan else None
        derived, todo = (self._deriver.take(rt, plan), plan.rest) if plan else (None, todo)
        if plan:
            steps.mark("derive")
        units, prepared = self._parse_pass(rt, todo, skipped, started, outcomes)
        steps.mark("parse")
        removed = set() if only else known - ({w.path for w in walked} - set(skipped))
        for p in removed:
            rt.stats.pop(p, None)
        rt.skipped = skipped
        t_parsed = time.time()
        for path, reason in skipped.items():
            logger.info("skipped %s/%s: %s", rt.id, path, reason)
        rebase, rt.rebase = rt.rebase, False

        ready: list[float] = []  # (when ``settle`` made it READY: logged)

        def settle(delta: GraphDelta | None) -> None:  # the graph is current: READY before its store writes are queued
            self._deriver.settle(rt, delta)  # (a derived checkout: its files not parsed, its edges, its store rows)
            rt.indexed_commit, rt.last_indexed_at = head_before, time.time()
            rt.state = IndexState.READY
            ready.append(time.time())

        # a walk sees the layout as it is (``src/``, packages): the facts follow it
        refacts = not only and new_facts(rt, {w.path for w in walked} - set(skipped), lambda: self._hand_over(rt))
        steps.mark("facts")
        rt.activity = Activity(Doing.APPLYING)
        cold = not known and derived is None
        delta = self._apply(rt, units, removed, full=full or rebase, rebase=rebase, prepared=prepared, cold=cold,
                            settle=settle, steps=steps)  # fmt: skip
        self._deriver.finish(rt)  # (after the pass's own store writes; the apply marked delta … publish)
        steps.mark("apply")
        if refacts:
            reresolve(rt, self._state, self._store, self._writer)
        settled(rt, self._state)
        if not only:  # the knowledge files, once the code they name is in the graph
            self.knowledge.full_pass(rt, docs, head_moved, delta or derived)
        steps.mark("knowledge")
        if head_moved:  # changes seen before they were committed: name their commit
            self._memory.name_commits(rt.id, lambda paths: _committed(rt.root, paths), head_before)
        if delta is None:  # nothing changed: the graph already answers for this pass
            self._sink.queryable(rt)
            self._memory.views.refresh(rt.id)  # (a delta refreshed them) after a restart, a branch switch
        store, commit, at = self._store, rt.indexed_commit, rt.last_indexed_at or time.time()
        self._writer.submit(lambda: store.upsert_repo(rt.id, str(rt.root), commit, at))
        self._sink.mark(rt, EventKind.INDEX_DURABLE)
        _publish_progress(self._bus, rt, started)
        steps.mark("finish")
        _log_pass(rt, len(skipped), steps, (started, t_parsed, ready[0] if ready else time.time()), waited)

    def _parse_pass(
        self, rt: RepoRuntime, todo: Todo, skipped: dict[str, str], started: float, outcomes: Outcomes | None = None
    ) -> tuple[dict[str, ParsedUnit], dict[str, list[SymbolInfo]]]:
        """Parse ``todo`` (``outcomes``: its parse, if started), overlapping the daemon's per-file work (resolver
        input, symbol ids) with the workers' parsing; its cached parses queued meanwhile (``DeltaSink.cache_early``)."""
        units: dict[str, ParsedUnit] = {}
        prepared: dict[str, list[SymbolInfo]] = {}
        if todo:
            self._hand_over(rt)
        last = time.monotonic()
        donors = _donors(self._registry, rt)
        for out, parsed_here in self._shared.outcomes(rt, todo, self.pool) if outcomes is None else outcomes:
            rt.files_done += 1
            if out.parsed is not None:
                rt.files_parsed += parsed_here
                rt.pass_symbols += len(out.parsed.symbols)
                unit = _take(rt, self._state, out, out.parsed, prepared, donors)
                units[out.path] = self._sink.cache_early(rt, out.path, unit)
            elif out.skipped is not None:
                skipped[out.path] = out.skipped.reason
            if self._live.waiting():  # another checkout's edit goes first (``LiveRunner``)
                self._live.run()
            if time.monotonic() - last > 0.25:
                last = time.monotonic()
                _publish_progress(self._bus, rt, started)
        self._sink.flush_cache(rt)
        return units, prepared

    # ------------------------------------------------------------------ live changes

    def on_batch(self, rt: RepoRuntime, paths: set[Path]) -> None:
        """The watcher saw ``paths`` change: queue them (one job per burst)."""
        self._faults.check("watcher")
        with rt.lock:
            rt.pending.update(paths)
            if rt.queued:
                return
            rt.queued = True
        self.submit(Job("changes", rt.id))

    def _changes(self, rt: RepoRuntime) -> None:
        """Apply the file changes the watcher reported (stat each path for its final state)."""
        with rt.lock:
            paths, rt.pending = rt.pending, set()
            rt.queued = False
        if not paths:
            return
        rt.activity = Activity(Doing.EDIT_BATCH, total=len(paths))
        timing = BatchTiming()
        if _root_missing(rt):  # the whole root went away
            return
        with self._state.reading() as graph:
            known = {n.path for n in graph.repo_files(rt.id)}
        docs = DocChanges()
        todo, removed, rescan = classify_batch(rt, paths, known, self.cfg.max_file_size, docs)
        if docs.config and self.knowledge.load_selection(rt):
            rescan = True  # other files may be knowledge files now
        if rescan or _head_moved(rt):
            rt.rescan_queued = True
            self.submit(Job("index", rt.id))
        units: dict[str, ParsedUnit] = {}
        prepared: dict[str, list[SymbolInfo]] = {}
        manifest = any(is_fact_file(rel) for rel in filter(None, map(rt.rel, paths)))
        layout = bool(removed) or any(p not in known for p in todo)  # files added or gone: roots may move
        refacts = (manifest or layout) and new_facts(rt, (known - removed) | set(todo), lambda: self._hand_over(rt))
        if todo:
            self._hand_over(rt)  # before the resolver takes a new parse (as ``_parse_pass``)
        timing.parsing(todo.values(), lambda: self.pool().started_workers)
        donors = _donors(self._registry, rt)
        for out, parsed_here in self._shared.outcomes(rt, sorted(todo.items()), self.pool):
            timing.took(out.worker_ms, out.incremental)
            if out.parsed is not None:
                rt.files_parsed += parsed_here
                units[out.path] = self._sink.cache_early(
                    rt, out.path, _take(rt, self._state, out, out.parsed, prepared, donors, compare_later=True)
                )
                rt.skipped.pop(out.path, None)
            else:
                if out.skipped is not None:
                    rt.skipped[out.path] = out.skipped.reason
                if out.path in known:
                    removed.add(out.path)
        self._sink.flush_cache(rt)
        timing.steps.mark("parse")
        now = time.time()
        delta = self._apply(rt, units, removed - set(units), full=False, cold=not known, prepared=prepared,
                            steps=timing.steps, defer=not refacts, now=now)  # fmt: skip
        if refacts:
            reresolve(rt, self._state, self._store, self._writer)
        later = delta if delta is not None and (delta.unresolved or delta.deferred) else None
        if later is not None and self.knowledge.reads(rt, docs, later):  # (it reads the graph's imports, bases)
            _dependents(self._state, self._sink, rt, later, units, now)
            later = None
        self.knowledge.batch(rt, docs, delta)
        _applied(rt, paths, self.job_done)  # (a post-edit hook answers now: its notes are settled)
        timing.steps.mark("knowledge")
        if later is not None:
            _dependents(self._state, self._sink, rt, later, units, now)
        timing.steps.mark("dependents")
        if delta is not None or refacts:
            self._sink.mark(rt, EventKind.INDEX_DURABLE)
        timing.steps.mark("durable")
        if units or removed:
            rt.dirty = working_tree_dirty(rt.root)
        timing.steps.mark("dirty")
        timing.log(rt.id, len(paths), len(units), len(removed))

    # ------------------------------------------------------------------ applying a delta

    def _apply(
        self,
        rt: RepoRuntime,
        units: dict[str, ParsedUnit],
        removed: set[str],
        *,
        full: bool,
        cold: bool,
        rebase: bool = False,
        prepared: dict[str, list[SymbolInfo]] | None = None,
        settle: Callable[[GraphDelta | None], None] | None = None,
        steps: Steps | None = None,
        defer: bool = False,
        now: float | None = None,
    ) -> GraphDelta | None:
        """The one place the code graph changes: delta, swap, memory, ``settle``, store, then
        events (``steps`` marks them); None (nothing written) when nothing changed. Only this
        thread mutates the graph and the resolver: the delta is computed without the lock.
        ``defer``: edges are left to ``_dependents`` (``GraphDelta.unresolved``, ``deferred``)."""
        now, steps = time.time() if now is None else now, steps or Steps()
        if units or removed:
            self._hand_over(rt)
        old = old_files(self._state.graph, rt.id, (*units, *removed))
        delta = build_delta(rt.id, old, units, removed, rt.resolver, cold=cold, full=full, rebase=rebase,
                            prepared=prepared, dependents=not defer, recent=rt.recent, now=now)  # fmt: skip
        if delta.empty:
            if settle is not None:
                settle(None)
            return None
        if not delta.cold and not delta.rebase and self.cfg.suspect_hops > 0:
            # who depends on what was re-signed or removed, read before those edges go away
            delta = replace(delta, impacts=impacts_of(self._state.graph, delta, self.cfg.suspect_hops, rt.resolver))
        steps.mark("delta")
        with self._state.writing() as graph:
            apply_delta(graph, delta)
            rt.n_files, rt.n_symbols = graph.counts(rt.id)
        steps.mark("swap")
        before = rt.indexed_commit  # (``settle`` moves it on) the commit the notes were judged against until now
        self._memory.apply(delta, self._state, head_commit(rt.root), lambda paths: uncommitted_paths(rt.root, paths),
                           lambda queries: measure_bodies(rt.root, queries, before))  # fmt: skip
        steps.mark("memory")
        if settle is not None:
            settle(delta)
            steps.mark("settle")
        if not delta.unresolved and not delta.deferred:
            self._sink.write(rt, delta, units, now)
        for event in file_events(delta, now):
            self._bus.publish(event)
        self._sink.queryable(rt)
        steps.mark("publish")
        return delta


def _dependents(
    state: GraphState, sink: DeltaSink, rt: RepoRuntime, delta: GraphDelta, units: dict[str, ParsedUnit], now: float
) -> None:
    """Resolve a watcher batch's files and the files depending on them (``delta.unresolved``,
    or only those depending on them: ``delta.deferred``; see ``Indexer._apply``'s ``defer``),
    once the batch's notes are settled and its waiters answered; then store the whole delta.
    On the indexer's thread, before its next job: the next batch's delta and impacts read a
    complete graph."""
    full, edges, paths = with_dependents(delta, rt.resolver)
    with state.writing() as graph:
        set_outgoing_edges(graph, delta.repo_id, paths, edges)
    sink.write(rt, full, units, now)


def _log_pass(rt: RepoRuntime, skipped: int, steps: Steps, times: tuple[float, float, float], waited: float) -> None:
    """The log line of an index pass: ``times`` = (started, parsed, READY)."""
    started, parsed, ready = times
    now = time.time()
    logger.info(
        "indexed %s: %d files, %d symbols, %d skipped in %.2fs (walk+parse %.2fs, apply %.2fs): %s; %.2f CPU-s; "
        "READY after %.3fs, queued %.3fs before",
        rt.id, rt.n_files, rt.n_symbols, skipped, now - started, parsed - started, now - parsed, steps, steps.cpu,
        ready - started, waited,
    )  # fmt: skip


def _holds(state: GraphState, checkout_id: str, path: str, digest: str) -> bool:
    """Whether checkout ``checkout_id``'s graph has the content ``digest`` at ``path`` (read
    on the indexer's thread, the graph's only writer: ``SharedParses``)."""
    node = state.graph.files.get(file_id(checkout_id, path))
    return node is not None and node.content_hash == digest


@contextmanager
def _doing(rt: RepoRuntime, what: Doing) -> Iterator[None]:
    """``rt``'s activity is ``what`` for the block (``status``'s "now:"), then what it was."""
    before, rt.activity = rt.activity, Activity(what)
    try:
        yield
    finally:
        rt.activity = before


def _root_missing(rt: RepoRuntime) -> bool:
    """Whether the root is gone (unmounted, moved away): then reported, and NOT taken as every
    file deleted (that would mark every observation stale). The watcher's rescans retry."""
    if rt.root.is_dir():
        return False
    rt.state, rt.error = IndexState.ERROR, f"repository root {rt.root} is missing"
    logger.error("%s: %s", rt.id, rt.error)
    return True


def _relative(rt: RepoRuntime, paths: Sequence[str]) -> tuple[str, ...]:
    """``paths`` (absolute, or relative to ``rt``'s root) relative to ``rt``'s root."""
    rels: list[str] = []
    for p in paths:
        pp = Path(p)
        rel = rt.rel(pp.resolve()) if pp.is_absolute() else pp.as_posix()
        if rel is None:
            raise InvalidArgument(f"{p} is not inside {rt.root}")
        rels.append(rel)
    return tuple(rels)


def _head_moved(rt: RepoRuntime) -> bool:
    """Whether HEAD moved (checkout, pull) with no rescan queued: the rescan that follows confirms
    the whole tree and sets the indexed commit; files a batch parsed are not parsed again (same stat)."""
    head = head_commit(rt.root)
    return bool(head) and head != rt.indexed_commit and not rt.rescan_queued


def _notify(done: threading.Condition) -> None:
    """Wake whoever waits for the index to take files in (``Indexer.job_done``)."""
    with done:
        done.notify_all()


def _applied(rt: RepoRuntime, paths: Iterable[Path], done: threading.Condition) -> None:
    """A batch applied its ``paths`` (graph, notes, knowledge), the ones it parsed and the ones
    the graph already held as they are: an edit's call-outs are answerable now, before the
    batch's job ends (its ``git status``: ``app/settle.py``), and before the rest of a pass the
    batch went first in (``_take_live``: that pass applied the files it parsed already)."""
    rels = (rel for p in paths if (rel := rt.rel(p)) is not None)
    rt.applied = {rel: key for rel in rels if (key := rt.stats.get(rel)) is not None}
    _notify(done)


def forget_checkout(rt: RepoRuntime, state: GraphState, registry: RepoRegistry, sink: DeltaSink) -> None:
    """Forget a repository's code graph (its observations stay: see ``Core.remove_repo``)."""
    with state.writing() as graph:
        graph.drop_repo(rt.id)
    registry.unregister(rt.id)
    sink.forget(rt.id).result(120)


def settled(rt: RepoRuntime, state: GraphState) -> None:
    """What ``status`` says of a checkout besides its graph, once a pass made the graph current
    (READY, as a watcher batch sets ``dirty`` after its apply; the job still runs, so
    ``freshness`` does not call it current yet): whether its tracked files differ from HEAD (a
    ``git status``: on a new worktree it hashes every file again, git's index being racily
    clean) and its edge count, counted again only when the graph was written since the last
    count (not after a restart that changed nothing: the snapshot held the count)."""
    rt.dirty = working_tree_dirty(rt.root)
    with state.reading() as graph:
        if rt.edges_at != state.version:
            rt.n_edges, rt.edges_at = graph.edge_count(rt.id), state.version


def reresolve(rt: RepoRuntime, state: GraphState, store: Store, writer: StoreWriter) -> None:
    """The facts changed: every file of the repository is resolved again."""
    replace_all_edges(rt, rt.resolver.all_edges(), state, store, writer)
    logger.info("%s: repository facts changed; every file re-resolved", rt.id)


def _take(
    rt: RepoRuntime,
    state: GraphState,
    out: ParseOutcome,
    parsed: ParsedFile,
    prepared: dict[str, list[SymbolInfo]],
    donors: Sequence[RepoRuntime] = (),
    *,
    compare_later: bool = False,
) -> ParsedUnit:
    """Hand a new parse to the resolver while the workers parse the rest, and derive its
    symbols (into ``prepared``, which ``build_delta`` then does not set or derive again);
    ``compare_later``: a watcher batch's, compared with its previous version name by name
    when its dependents are resolved (``RepoResolver.set_file``), after the answer. The
    unit keeps the resolver's slim copy (calls and typed names planned and dropped) unless
    its cached text still has to be encoded from it.

    Held until the pass or batch is resolved, beside the graph's previous symbols: the parse
    takes the graph's strings and unchanged symbol records where equal (``sharing.py``), and
    the resolver keeps the file in its compact form (``FileIndex.freeze``). At 0.9 M lines, a
    checkout that changes every file peaked ~45 MB lower for the compact form.

    A file this checkout has no symbols of yet (a new worktree, a new file) takes, from the
    first of ``donors`` (sibling checkouts) that has it, the records of its kept parse that
    are equal (symbols, imports, inheritances), else the strings of its symbols
    (``sharing.share_parse``): a worktree equal to another holds those once."""
    with state.reading() as graph:  # (only this thread changes the graph)
        old = graph.file_symbols(rt.id, out.path)
        donor = None if old else next((d for d in donors if d.resolver.files.get(out.path) is not None), None)
        infos = graph.file_symbols(donor.id, out.path) if donor is not None else old
    if donor is not None:
        parsed = share_parse(parsed, donor.resolver.files[out.path].parsed, infos)
    else:
        parsed = share_strings(parsed, old)
    rt.resolver.set_file(parsed, frozen=True, compare_later=compare_later)
    prepared[out.path] = reuse_unchanged(symbols_of(rt.id, parsed), old)
    kept = rt.resolver.held(parsed) if out.cache is not None else parsed
    return ParsedUnit(kept, out.content_hash or "", out.size, out.cache)


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Run a job that builds the graph with the cyclic GC off, and freeze what it built.

    A job allocates 10^3-10^6 acyclic objects (parses, symbols, edges, new index dicts);
    collections passing over them are pure overhead (~15 % of a pass) and hold the GIL for
    0.1-0.4 s each at a few million lines, which every RPC waits for (measured: 2.7 s of
    such pauses during one 5,000-file checkout). At the end they are frozen without a
    collection; reference counting still frees them. What the job leaves in a cycle (none
    measured on a stdlib pass) stays frozen."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def own_facts(
    rt: RepoRuntime,
    walked: Iterable[WalkedFile],
    skipped: Collection[str],
    hand_over: Callable[[RepoRuntime], None],
    *,
    derives: bool,
    limited: bool,
) -> None:
    """In the first full pass of a checkout whose facts are a sibling's (``RepoRuntime.facts_borrowed``),
    after its walk (``walked`` less ``skipped``): its own facts, read before anything is parsed and
    resolved; when the pass ``derives`` from a sibling, nothing (the derivation takes that one's
    facts, then they are compared with the walk's as in every pass). A pass ``limited`` to some
    paths leaves them borrowed."""
    if not rt.facts_borrowed or limited:
        return
    rt.facts_borrowed = ""
    if not derives:
        new_facts(rt, {w.path for w in walked} - set(skipped), lambda: hand_over(rt))


def new_facts(rt: RepoRuntime, paths: Iterable[str], hand_over: Callable[[], None]) -> bool:
    """Read the repository facts again for the files ``paths`` (a manifest changed — go.mod,
    Cargo.toml, tsconfig.json, package.json, pyproject.toml, … — or files were added or
    removed: a ``src/`` layout or a package directory may have appeared or gone). True when
    they differ: they are set (before a delta, so that its own files resolve with them) and
    the caller re-resolves every file once the delta is applied. ``hand_over`` runs first then."""
    facts = facts_from_files(rt.root, paths)
    if facts == rt.resolver.facts:
        return False  # (and a warm restart's hand-over stays deferred)
    hand_over()
    return rt.resolver.update_facts(facts)


def _committed(root: Path, paths: Collection[str]) -> dict[str, str]:
    """Of ``paths``, those no longer different from HEAD, with the last commit that touched each."""
    clean = set(paths) - uncommitted_paths(root, paths)
    return last_commits(root, clean)


def _donors(registry: RepoRegistry, rt: RepoRuntime) -> tuple[RepoRuntime, ...]:
    """The sibling checkouts whose parses and graph a new parse of ``rt`` takes its equal
    records and strings from where ``rt`` has no symbols of that file yet (``_take``)."""
    return tuple(s for s in registry.siblings(rt.id) if s.n_files and not s.unhanded)


def _publish_progress(bus: EventBus, rt: RepoRuntime, started: float) -> None:
    bus.publish(Event(EventKind.INDEX_PROGRESS, time.time(), rt.id, progress=rt.progress(started)))
