"""The daemon's composition root: builds the parts, wires them, opens and closes them.

    watcher --paths--> indexer --GraphDelta--> graph (swap) + memory (staleness) + store writer
                                                      \\--> events
    gRPC service --> ReadView (graph, observations, text indexes, freshness) / Core operations

Each part is its own module; this one only connects them and holds the few operations that
span several parts (registering a repository, saving or confirming an observation, status).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from graphmem.errors import FailedPrecondition, GraphMemError, InvalidArgument, Unavailable
from graphmem.types import (
    Anchor,
    Event,
    EventKind,
    IndexState,
    Observation,
    Repository,
    Status,
    WatcherStatus,
)

from graphmemd.app import transfer
from graphmemd.app.checkouts import (
    CheckoutOps,
    adopt_orphan,
    current_anchors,
    leave_out_of_outer,
    origin_of,
    symbol_lines,
)
from graphmemd.app.confirming import confirm_refusal
from graphmemd.app.knowledge import KnowledgeOps
from graphmemd.app.status import daemon_status
from graphmemd.graph.codegraph import CodeGraph
from graphmemd.graph.graphstate import GraphState
from graphmemd.indexing.indexer import Indexer, Job
from graphmemd.indexing.knowledge import export_kept
from graphmemd.ingest.gitinfo import head_commit
from graphmemd.ingest.parse_pack import ParsePack
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.ingest.watcher import RepoWatcher
from graphmemd.memory.memory import Memory, NewObservation
from graphmemd.retrieval.cochange_git import CoChangeKeeper
from graphmemd.retrieval.readview import ReadView
from graphmemd.runtime.config import DaemonConfig
from graphmemd.runtime.events import EventBus
from graphmemd.runtime.faults import Faults
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread, describe
from graphmemd.runtime.timing import Steps
from graphmemd.store.engine import Store
from graphmemd.store.graph_snapshot import Snapshots
from graphmemd.store.opening import OpenedStore, mark_clean, open_store
from graphmemd.store.writer import COMPONENT as WRITER
from graphmemd.store.writer import StoreWriter

logger = logging.getLogger(__name__)

#: The writer checkpoints the store when its WAL is larger than this while idle.
WAL_CHECKPOINT_BYTES = 64 * 1024 * 1024
#: Store writes wait while less than this is free on the store's file system (a bulk COPY
#: writes tens of MB; Kùzu must never run out of space mid-write: see writer.py)
STORE_MIN_FREE = 64 * 1024 * 1024


class Core:
    """The running daemon's parts and the operations that span them."""

    def __init__(self, config: DaemonConfig, health: Health | None = None) -> None:
        self.cfg = config
        self.health = health or Health()
        self.faults = Faults.parse(config.inject_faults)
        self.bus = EventBus()
        self.state = GraphState()
        self.registry = RepoRegistry(config.paths.repos_file)
        self.started_at = time.time()
        self.ready = threading.Event()
        self._store: Store | None = None
        #: the parse cache a warm restart reads (``parse_pack.py``)
        self.parses = ParsePack(config.paths.parse_cache)
        #: the graph snapshots a clean stop leaves for the next start (``graph_snapshot.py``)
        self.snapshots = Snapshots(config.paths.snapshots)
        self._writer: StoreWriter | None = None
        self._memory: Memory | None = None
        self._indexer: Indexer | None = None
        self._view: ReadView | None = None
        self._knowledge: KnowledgeOps | None = None
        self._watcher: RepoWatcher | None = None
        #: What start-up recovery did (store moved aside, journal repaired): shown in status.
        self.recovered: list[str] = []
        #: Each repository's git co-change, mined off the request path once it is indexed.
        self.cochange = CoChangeKeeper(config.paths.data_dir)
        self._mining = SupervisedThread("cochange", lambda: self.cochange.step(self.registry.all), self.health)
        parts = lambda: (self.memory, self.indexer, self._watcher)  # noqa: E731
        self.checkouts = CheckoutOps(self.registry, parts, self.add_repo, self.cochange, self.health)

    # ------------------------------------------------------------------ parts

    @property
    def store(self) -> Store:
        """The open store (FailedPrecondition before ``open``)."""
        if self._store is None:
            raise FailedPrecondition("the store is not open yet")
        return self._store

    @property
    def memory(self) -> Memory:
        """Observations (FailedPrecondition before ``open``)."""
        if self._memory is None:
            raise FailedPrecondition("observations are not loaded yet")
        return self._memory

    @property
    def indexer(self) -> Indexer:
        """The indexer (FailedPrecondition before ``open``)."""
        if self._indexer is None:
            raise FailedPrecondition("the indexer is not started yet")
        return self._indexer

    @property
    def view(self) -> ReadView:
        """The read side's view (FailedPrecondition before ``open``)."""
        if self._view is None:
            raise FailedPrecondition("the daemon is starting")
        return self._view

    @property
    def knowledge(self) -> KnowledgeOps:
        """Knowledge-file operations: check, shared notes (FailedPrecondition before ``open``)."""
        if self._knowledge is None:
            raise FailedPrecondition("the daemon is starting")
        return self._knowledge

    @property
    def writer(self) -> StoreWriter:
        """The store writer (FailedPrecondition before ``open``)."""
        if self._writer is None:
            raise FailedPrecondition("the store is not open yet")
        return self._writer

    # ------------------------------------------------------------------ lifecycle

    def open(self) -> None:
        """Open the store and the journal, start the loops, register the known repositories."""
        steps = Steps(cpu_clock=time.thread_time)
        self.cfg.paths.ensure()
        store = self._store = self._open_store()
        steps.mark("store")
        space = partial(store_space_problem, self.cfg.store_path.parent)  # why writes must wait for space, or ""
        writer = self._writer = StoreWriter(
            self.health, self._store_idle, self.faults, after_each=self._store_recycle, space_check=space
        )
        store.pause_point = writer.between_steps  # observation copies between a bulk load's chunks
        writer.yield_to = self.registry.adding  # a worktree's pass before another checkout's bulk write
        memory = self._memory = Memory(self.cfg.paths.journal, store, writer, self.bus, self.faults)
        self.checkouts.attach(memory, self.state)
        report = memory.open()
        if report:
            self.recovered.append(report)
            self.health.note_error(report)
        steps.mark("journal")
        parts = (self.registry, self.state, store, self.parses, self.snapshots, writer, memory, self.bus)
        indexer = self._indexer = Indexer(self.cfg, *parts, self.health, self.faults)
        indexer.start()
        self._view = ReadView(self.state, self.registry, memory.book, indexer.freshness, memory.views.projections)
        self._knowledge = KnowledgeOps(self.registry, memory, self.state, indexer, lambda: self.view)
        stored = {rid: (commit, at) for rid, _root, commit, at in store.repos()}
        for pack in self.parses.prune(stored):
            logger.info("removed the parse cache of a repository the store does not hold: %s", pack)
        known = self._register_known(stored)  # their loads run while the workers and watcher start
        steps.mark("registered")
        indexer.start_pool()
        steps.mark("parse workers started")
        if self.cfg.watch:
            self._watcher = _watcher(self.cfg, self)
            self._watcher.start()
            self.checkouts.start()
        self._mining.start()
        steps.mark("watcher")
        for rt in known:
            self._watch_and_index(rt, Steps())
        steps.mark("watched")
        self.ready.set()
        logger.info("opened in %.2fs: %s; %.2f CPU-s", steps.total, steps, steps.cpu)

    def _register_known(self, stored: dict[str, tuple[str, float]]) -> list[RepoRuntime]:
        """Register the last run's and the configured repositories (their loads queued); returns the new ones."""
        known: list[RepoRuntime] = []
        for root in self.registry.roots_to_register(self.cfg.repos):
            try:
                rt, new = self._register(root, stored)
            except GraphMemError as exc:
                logger.error("cannot register %s: %s", root, exc)
                self.health.note_error(f"cannot register {root}: {exc}")
                continue
            if new:
                known.append(rt)
        return known

    def _open_store(self) -> Store:
        """Open the store, probed first in a child process (``store_open``); a damaged one
        is moved aside and replaced, and ``status`` says so. Nothing is lost by that:
        observations come back from the journal and the code graph from the repositories."""
        opened = open_configured(self.cfg)
        if opened.recovered:
            self.recovered.append(opened.recovered)
            self.health.note_error(opened.recovered)
        if not opened.clean:  # the snapshots may be older than the store: none is read
            self.snapshots.clear()
        return opened.store

    def close(self) -> None:
        """Stop watching, finish the current job and every queued write, close the files."""
        self.ready.clear()
        self.cochange.stop()
        self.checkouts.stop()
        if self._watcher is not None:
            self._watcher.stop()
        settled = self._indexer.close() if self._indexer is not None else True
        self.bus.close()
        if self._writer is not None:
            settled = self._writer.close() and settled
        if self._memory is not None:
            self._memory.close()
        if self._store is not None:
            self._store.close()
            if not self._store.poisoned:
                self.snapshots.clear()
                if settled:  # the graph is what the store now holds (``graph_snapshot.py``)
                    ready = [rt for rt in self.registry.all() if rt.state is IndexState.READY]
                    _save_snapshots(self.snapshots, self.state.graph, ready, self._indexer)
                mark_clean(self.cfg.store_path)

    def _store_idle(self) -> None:
        """On the writer thread whenever its queue drained: repair store copies that failed
        to write (e.g. while the disk was full), keep the WAL bounded."""
        if self._memory is not None and self._memory.resync_store_if_behind():
            self.health.recover(WRITER)  # it wrote the repaired copies: the writer works again
        store = self._store
        if store is not None and store.wal_bytes() > WAL_CHECKPOINT_BYTES:
            started = time.monotonic()
            store.checkpoint()
            logger.debug("store checkpointed in %.0f ms", (time.monotonic() - started) * 1000)

    def _store_recycle(self) -> None:
        """On the writer thread after every write, busy or not: reopen the store when due
        (``StoreConnection.recycle_if_due``: Kùzu keeps memory until its database closes)."""
        store = self._store
        if store is not None and store.recycle_if_due():
            logger.debug("store reopened to return the memory Kùzu keeps")

    # ------------------------------------------------------------------ repositories

    def add_repo(self, path: Path | str) -> RepoRuntime:
        """Register (if new), watch and index a repository (a new one's steps and their times
        logged: "registered ... in", with the sibling checkout whose facts it took)."""
        steps = Steps()
        stored = {rid: (commit, at) for rid, _root, commit, at in self.store.repos()}
        steps.mark("store")
        rt, new = self._register(path, stored)
        steps.mark("registry")
        if new:
            facts = f"; the facts of {rt.facts_borrowed}" if rt.facts_borrowed else ""  # (before its pass clears it)
            self._watch_and_index(rt, steps)
            leave_out_of_outer(self.registry, rt, self.indexer.submit)
            logger.info("%s: registered in %.3fs (%s%s)", rt.id, steps.total, steps, facts)
            self.cochange.wake()  # (its co-change is mined once its pass is durable, not at the next 30 s round)
        return rt

    def _register(self, path: Path | str, stored: dict[str, tuple[str, float]]) -> tuple[RepoRuntime, bool]:
        """Register ``path`` (if new: former clones' notes moved to it, its load queued when the store holds it,
        then its facts read while that runs, before any index job); returns the record and whether it is new."""
        rt, new = self.registry.register(path, facts=False)
        if not new:
            return rt, False
        for old in self.registry.former_ids(rt):  # the same repository, registered before elsewhere
            moved = self.memory.remap_repo(old, rt.id)
            if moved:
                logger.info("%d observations of %s (a former clone of %s) moved to it", moved, old, rt.id)
        if rt.id in stored:
            rt.indexed_commit, rt.last_indexed_at = stored[rt.id][0], stored[rt.id][1] or None
            # its snapshot holds the facts (no walk); without one the first resolving job reads them (``ensure_facts``)
            rt.facts_pending = True
            self.indexer.submit(Job("load", rt.id))  # while it loads, the daemon already answers
        else:
            self.registry.first_facts(rt)
        return rt, True

    def _watch_and_index(self, rt: RepoRuntime, steps: Steps) -> None:
        """Watch a newly registered repository, then queue its index pass."""
        if self._watcher is not None:
            self._watcher.add_root(rt.root)
            # Scan only once the OS watch is registered, so no change falls in between.
            if not self._watcher.wait_live(rt.root, timeout=5.0):
                logger.warning("watch of %s not live after 5 s; the periodic rescan covers the gap", rt.root)
        steps.mark("watch live")
        self.indexer.submit(Job("index", rt.id))

    def remove_repo(self, hint: str, *, purge: bool = False) -> int:
        """Stop watching and forget a repository's code graph. Its observations stay (they
        come back when it, or a clone of it, is registered again) unless ``purge``, which
        deletes them; returns how many were deleted. ``hint`` must be the id or the exact root."""
        if not hint:
            raise InvalidArgument("repo is required (an id or a path)")
        rt = self.registry.find(hint)
        if hint != rt.id and _resolved(hint) != rt.root:
            raise InvalidArgument(
                f"{hint} is inside repository {rt.id} ({rt.root}), not its root; removing a repository "
                "takes its id or its exact root"
            )
        self.checkouts.removing(rt)
        job = self.indexer.submit(Job("remove", rt.id))
        job.done.wait(60)
        if job.error is not None:
            raise job.error
        self.cochange.forget(rt.id)
        return self.memory.purge_repo(rt.id) if purge else 0

    # ------------------------------------------------------------------ export and import

    def export_lines(self, repo_id: str = "") -> Iterator[str]:
        """Every observation (of ``repo_id`` when given) as a JSON line (``transfer.export_lines``)."""
        return transfer.export_lines(self.registry, self.memory, repo_id)

    def import_lines(self, lines: Sequence[str], repo_hint: str = "") -> tuple[int, int, list[str]]:
        """Import exported lines, judged against the code here (``transfer.import_lines``)."""
        return transfer.import_lines(self.registry, self.memory, self.state, lines, repo_hint)

    # ------------------------------------------------------------------ observations

    def create_observation(self, repo: str, new: NewObservation) -> Observation:
        """Resolve the anchor references on the current code and save the observation."""
        resolved: list[Anchor] = []
        errors: list[InvalidArgument] = []
        for ref in new.anchors:
            try:
                resolved.append(self.view.resolve_anchor(ref, repo))
            except InvalidArgument as exc:
                errors.append(exc)
        if errors:  # every failure in the message; the first one's close matches as details
            self._unavailable_while_loading(repo)
            first = errors[0]
            raise InvalidArgument(
                "; ".join(e.message for e in errors), reference=first.reference, close_matches=first.close_matches
            )
        repo_ids = {a.repo_id for a in resolved}
        repo_id = self.registry.find(repo).id if repo else (next(iter(repo_ids)) if len(repo_ids) == 1 else "")
        if not repo_id and resolved:
            raise InvalidArgument("anchors span several repositories; name the repository with repo=")
        if new.shared:
            rt = self.registry.get(repo_id)
            if rt is None or any(a.repo_id != repo_id for a in resolved):
                raise InvalidArgument("a shared note is written into one repository: anchor it there")
            return self.knowledge.create_shared(rt, new, resolved)
        shared = bool(self.registry.siblings(repo_id)) if repo_id else False
        origin = origin_of(self.registry.get(repo_id), resolved, shared, partial(symbol_lines, self.state))
        return self.memory.create(repo_id, new, resolved, origin)

    def _unavailable_while_loading(self, repo_hint: str) -> None:
        """An anchor that does not resolve while its repository's graph is still being loaded
        or indexed for the first time (right after a restart) is not the caller's mistake:
        ``Unavailable``, which clients retry, instead of ``InvalidArgument``."""
        try:
            scope = self.registry.scope(repo_hint)
        except GraphMemError:
            return
        loading = [
            rt
            for rt in scope
            if rt.state in (IndexState.PENDING, IndexState.WARMING)
            or (rt.state is IndexState.INDEXING and not rt.n_files)
        ]
        if loading:
            names = ", ".join(f"{rt.id} ({rt.state.value})" for rt in loading)
            raise Unavailable(f"graphmemd is loading repository {names}; retry shortly")

    def _commit_of(self, obs_id: str) -> str:
        """The commit HEAD is at in the note's checkout, for its history (read from ``.git``:
        no git process)."""
        rt = self.registry.get(self.memory.book.get(obs_id).repo_id)
        return head_commit(rt.root) if rt is not None else ""

    def update(self, obs_id: str, by: str, **fields: Any) -> Observation:
        """Change a note's text, category, tags or confidence, recording who asked."""
        return self.memory.update(obs_id, by=by, commit=self._commit_of(obs_id), **fields)

    def archive(self, obs_id: str, by: str) -> Observation:
        """Archive a note, recording who asked."""
        return self.memory.archive(obs_id, by=by, commit=self._commit_of(obs_id))

    def delete(self, obs_id: str, by: str) -> None:
        """Delete a note for good; its deletion record says who asked."""
        self.memory.delete(obs_id, by=by)

    def confirm(self, obs_id: str, by: str, checkout: str = "") -> Observation:
        """Re-anchor an observation on the current code (of the checkout it was saved in) and
        mark it fresh; FailedPrecondition saying why when ``confirming.confirm_refusal``
        refuses it from ``checkout`` (archived; stale or suspect only there; its code gone)."""
        o = self.memory.book.get(obs_id)
        if refused := confirm_refusal(self.view, o, checkout):
            raise FailedPrecondition(refused.why)
        o = adopt_orphan(self.view, self.memory, o, checkout)  # (saved in a checkout since removed: moved here)
        anchors, lost = current_anchors(self.view, o)
        if o.knowledge is not None:
            return self.knowledge.confirm(o, anchors, by)
        return self.memory.confirm(obs_id, anchors, lost, by, self._commit_of(obs_id))

    # ------------------------------------------------------------------ watcher callbacks

    def _ignored(self, path: Path) -> bool:
        rt = self.registry.of_path(path)
        if rt is None:
            return True
        rel = rt.rel(path)
        if rel is None or rt.filter.is_ignore_file(rel):
            return False
        return rt.filter.is_ignored(rel)

    def _on_batch(self, root: Path, paths: set[Path]) -> None:
        rt = self.registry.of_path(root)
        if rt is None:
            return
        try:
            self.indexer.on_batch(rt, paths)
            self.health.recover("watcher")
        # Broad on purpose: a failure here would lose the batch silently. Shown as degraded,
        # and a rescan of the repository recovers whatever the batch held.
        except Exception as exc:
            logger.exception("watcher batch for %s failed; rescanning the repository", root)
            self.health.crashed("watcher", describe(exc))
            self.indexer.submit(Job("index", rt.id))

    def _on_degraded(self, root: Path, reason: str) -> None:
        rt = self.registry.of_path(root)
        self.bus.publish(Event(EventKind.WATCHER_DEGRADED, time.time(), rt.id if rt else "", message=reason))
        if rt is not None:
            self.indexer.submit(Job("index", rt.id))

    def _on_rescan(self, root: Path) -> None:
        rt = self.registry.of_path(root)
        if rt is not None:
            self.indexer.submit(Job("index", rt.id))

    def watcher_state(self) -> WatcherStatus:
        """The watcher over every root: mode, health, degraded reason, restarts."""
        return watcher_status(self._watcher)

    def space_problem(self) -> str:
        """Why writes would fail for lack of disk space now, or "" (before ``open``: ""):
        re-checked on each call, so it clears by itself once space returns."""
        journal = self._memory.space_problem() if self._memory is not None else ""
        store = store_space_problem(self.cfg.store_path.parent) if self._store is not None else ""
        return "; ".join(p for p in (journal, store) if p)

    def repository(self, rt: RepoRuntime) -> Repository:
        """A checkout's summary, its repository and every checkout of it (``CheckoutOps.describe``)."""
        return self.checkouts.describe(rt)

    def repositories(self) -> list[Repository]:
        """``repository`` of every registered checkout (``CheckoutOps.describe_all``)."""
        return self.checkouts.describe_all(self.registry.all())

    def status(self, socket_path: str, tcp: str) -> Status:
        """The daemon's health and counters (``graphmem status``; ``status.daemon_status``)."""
        return daemon_status(self, socket_path, tcp)


def open_configured(cfg: DaemonConfig) -> OpenedStore:
    """``open_store`` with the configured engine, workarounds and sizes."""
    return open_store(
        cfg.store_path,
        engine=cfg.store_engine,
        workarounds=cfg.store_workarounds,
        buffer_pool_mb=cfg.buffer_pool_mb,
        max_db_size_gb=cfg.max_db_size_gb,
    )


def _resolved(hint: str) -> Path | None:
    """``hint`` as a resolved path, or None when it is not one."""
    try:
        return Path(hint).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def store_space_problem(store_dir: Path) -> str:
    """Why store writes must wait for space where the store is, or "" (see ``writer.py``)."""
    try:
        st = os.statvfs(store_dir)
    except OSError:
        return ""
    free = st.f_bavail * st.f_frsize
    if free >= STORE_MIN_FREE:
        return ""
    return f"disk full: {free // 1024} KiB free where the store is, {STORE_MIN_FREE // 2**20} MiB needed"


def watcher_status(watcher: RepoWatcher | None) -> WatcherStatus:
    """The state of ``watcher`` over every root: mode, health, degraded reason, restarts."""
    if watcher is None:
        return WatcherStatus(mode="stopped", healthy=True)
    states = watcher.states()
    reasons = [f"{root}: {s.degraded_reason}" for root, s in states.items() if s.degraded_reason]
    mode = "polling" if any(s.mode == "polling" for s in states.values()) else "watching"
    return WatcherStatus(mode, not reasons, "; ".join(reasons), sum(s.restarts for s in states.values()))


def _save_snapshots(
    snapshots: Snapshots, graph: CodeGraph, ready: Sequence[RepoRuntime], indexer: Indexer | None
) -> None:
    """At a clean stop, each ready checkout's graph snapshot and, beside it, what its knowledge
    files were (``knowledge.export_kept``: the next start reads only the ones that changed
    meanwhile). One not written is logged: the next start does that work again."""
    snapshots.save_all(graph, {rt.id: rt.resolver.facts for rt in ready})
    for rt in ready:
        if indexer is None:
            return
        try:
            snapshots.save_knowledge(rt.id, export_kept(indexer.knowledge, rt))
        except OSError as exc:
            logger.warning("cannot write the knowledge state of %s: %s", rt.id, exc)


def _watcher(cfg: DaemonConfig, core: Core) -> RepoWatcher:
    """The file watcher of ``core``'s repositories, as configured."""
    return RepoWatcher(
        core._on_batch,
        ignore=core._ignored,
        on_degraded=core._on_degraded,
        on_rescan=core._on_rescan,
        debounce_ms=cfg.debounce_ms,
        step_ms=cfg.watch_step_ms,
        rescan_interval_s=cfg.rescan_interval_s,
        group_after_s=cfg.watch_group_after_s or None,
    )
