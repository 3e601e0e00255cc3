"""How an applied delta reaches the store: its bulk write and the cached parses, on the single
store writer; and the INDEX_QUERYABLE / INDEX_DURABLE marks.

Every query is answered from memory (the graph, its symbol text index, the observations), so
a delta is queryable as soon as it is applied: ``queryable`` publishes at once. ``mark``
publishes from the writer, which runs jobs in order: INDEX_DURABLE then means every write
queued before it is done. If a write fails, the store catches up at the next pass (the
content hashes differ)."""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from graphmem.types import Event, EventKind

from graphmemd.graph.delta import GraphDelta, ParsedUnit
from graphmemd.graph.model import FileRecord, Language
from graphmemd.ingest.parse_pack import ParsePack
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.runtime.events import EventBus
from graphmemd.store.engine import Store
from graphmemd.store.writer import StoreWriter

logger = logging.getLogger(__name__)

#: passes and batches hand their cached parses to the store writer in chunks of this many files
CACHE_CHUNK = 256
#: a write of at least this many files gives way to a new checkout's first pass first
#: (``StoreWriter.yield_point``: a branch worktree's differing files); an edit's does not
YIELD_FILES = 50


class DeltaSink:
    """Queues the store side of each delta, and the marks that say how far it got."""

    def __init__(self, store: Store, parses: ParsePack, writer: StoreWriter, bus: EventBus) -> None:
        self._store = store
        #: the parse cache (a warm restart reads it back: ``restore.py``)
        self.parses = parses
        self._writer = writer
        self._bus = bus
        #: repository id -> path -> unit whose cached parse is not queued yet (``cache_early``)
        self._early: dict[str, dict[str, ParsedUnit]] = {}
        #: (repository id, path) -> (content hash, parse text) queued for the parse cache and
        #: not written yet: another checkout of the repository may take it meanwhile
        self._queued: dict[tuple[str, str], tuple[str, str]] = {}
        self._queued_lock = threading.Lock()

    def cache_early(self, rt: RepoRuntime, path: str, unit: ParsedUnit) -> ParsedUnit:
        """Have ``unit``'s cached parse written before its pass or batch is applied (queued in
        chunks of ``CACHE_CHUNK``; ``flush_cache`` queues the rest), so that the text is not
        kept until then. Returns the unit without its text, so that ``write`` does not store
        it again. A crash between this write and the store's leaves a parse of other bytes
        than the store's: the next start parses that file again (``restore``)."""
        held = self._early.setdefault(rt.id, {})
        held[path] = unit
        if len(held) >= CACHE_CHUNK:
            self.flush_cache(rt)
        return replace(unit, cache=None)

    def flush_cache(self, rt: RepoRuntime) -> None:
        """Queue the cached parses ``cache_early`` holds for ``rt``."""
        units = self._early.pop(rt.id, {})
        if not units:
            return
        now = time.time()
        records = [
            (_record(rt, path, u.parsed.language, u.content_hash, u.size, u.parsed.syntax_errors, now), u.parsed)
            for path, u in units.items()
        ]
        caches = {path: u.cache for path, u in units.items()}
        parses, rid = self.parses, rt.id
        queued = {(rid, path): (u.content_hash, u.cache) for path, u in units.items() if u.cache is not None}
        with self._queued_lock:
            self._queued.update(queued)

        def put() -> None:
            started = time.monotonic()
            try:
                parses.put(rid, records, caches)
            finally:
                with self._queued_lock:
                    for key, value in queued.items():
                        if self._queued.get(key) is value:
                            del self._queued[key]
            logger.debug("parse cache: %d files written in %.3fs", len(records), time.monotonic() - started)

        self._writer.submit(put)

    def queued_parse(self, repo_id: str, path: str, content_hash: str) -> str | None:
        """The parse text of ``path`` with ``content_hash`` queued for ``repo_id``'s parse cache
        and not written yet, or None."""
        with self._queued_lock:
            found = self._queued.get((repo_id, path))
        return found[1] if found is not None and found[0] == content_hash else None

    def write(self, rt: RepoRuntime, delta: GraphDelta, units: dict[str, ParsedUnit], now: float) -> None:
        """Queue ``delta``'s rows, then forget the cached parses of its removed files (the
        units' own were queued while they were parsed: ``cache_early``)."""
        records = [
            (_record(rt, f.path, f.language, f.content_hash, f.size, f.syntax_errors, now), units[f.path].parsed)
            for f in delta.changed
        ]
        store, parses, rid = self._store, self.parses, delta.repo_id
        removed, sources, edges = set(delta.removed), set(delta.edge_sources), delta.edges
        infos = {f.path: f.symbols for f in delta.changed}

        writer = self._writer

        def replace() -> None:
            started = time.monotonic()
            if len(records) >= YIELD_FILES:
                writer.yield_point(rid)
            cpu = time.thread_time()
            store.replace_files(rid, records, removed, edges, edge_sources=sources, infos=infos)
            logger.info(
                "stored %s: %d files, %d removed in %.3fs (%.2f CPU-s of the writer's thread)",
                rid,
                len(records),
                len(removed),
                time.monotonic() - started,
                time.thread_time() - cpu,
            )

        self._writer.submit(replace)
        self._writer.submit(lambda: parses.remove(rid, removed))

    def forget(self, repo_id: str) -> Future[Any]:
        """Queue the removal of a repository's rows and cached parses."""
        store, parses = self._store, self.parses

        def delete() -> None:
            store.delete_repo(repo_id)
            parses.drop(repo_id)

        return self._writer.submit(delete)

    def queryable(self, rt: RepoRuntime) -> None:
        """Publish INDEX_QUERYABLE now: the graph and its text index hold the pass."""
        self._bus.publish(_mark(rt, EventKind.INDEX_QUERYABLE))

    def mark(self, rt: RepoRuntime, kind: EventKind) -> None:
        """Publish ``kind`` once the store writes queued so far are done (INDEX_DURABLE);
        ``rt.unwritten`` counts the marks still queued."""
        bus = self._bus
        rt.unwritten += 1

        def publish() -> None:
            rt.unwritten -= 1
            bus.publish(_mark(rt, kind))

        self._writer.submit(publish)


def _mark(rt: RepoRuntime, kind: EventKind) -> Event:
    return Event(kind, time.time(), rt.id, message=f"{rt.n_files} files, {rt.n_symbols} symbols")


def _record(
    rt: RepoRuntime, path: str, language: Language, content_hash: str, size: int, syntax_errors: int, now: float
) -> FileRecord:
    """The store row of a file parsed now, with the mtime it was parsed at (from the scan)."""
    return FileRecord(rt.id, path, language, content_hash, size, now, syntax_errors, rt.stats.get(path, (0, 0))[1])
