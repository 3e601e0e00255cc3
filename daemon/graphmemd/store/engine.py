"""The embedded graph store: the schema and every Cypher statement.

It runs on Kùzu or LadybugDB (``engines.py``; each engine's binding module is the only
importer of its package), which speak the same Cypher. Everything else speaks the
dataclasses of ``graphmemd.graph.model`` and ``graphmem.types``.

Concurrency: the engine allows one read-write process per database; inside it we use ONE shared
connection guarded by a lock (one connection per thread made most concurrent writes fail).
Callers serialise writes through the daemon's single writer; reads take the same lock.

Bulk loads use ``COPY ... FROM <arrow table>`` (about 30× faster than per-row MERGE);
``UNWIND ... MATCH ... CREATE`` for edges is pathologically slow in 0.11.3 and is never used.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq
from graphmem.errors import DaemonAlreadyRunning, StoreError

from graphmemd.graph.model import (
    Confidence,
    FileRecord,
    GraphEdges,
    InheritKind,
    Language,
    ParsedFile,
    ResolvedEdges,
    SymbolInfo,
    SymbolKind,
    file_id,
    symbols_of,
)
from graphmemd.runtime import malloc
from graphmemd.store import engines
from graphmemd.store.literals import inline
from graphmemd.store.tables import StagedRows, node_tables, rel_tables, unresolved_of

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

SCHEMA_VERSION = 5
#: The structural edge tables schema 5 dropped (``_migrate_v4``): a symbol's file and parent
#: are its ``file`` and ``parent`` columns, so those rows said nothing twice (~30 % of a cold
#: pass's bulk-load CPU, every symbol's row copied once more with two primary-key lookups).
_STRUCTURAL_TABLES = ("DEFINES", "CONTAINS")
#: Resolved edge tables; schema 2 added their ``confidence`` column (see ``_migrate_v1``).
_CONFIDENCE_TABLES = ("IMPORTS", "CALLS", "FILE_CALLS", "INHERITS")
#: Symbol columns schema 3 dropped (``_migrate_v2``): never read (byte offsets, unresolved
#: base texts), or the symbol's file's (path, language).
_DROPPED_SYMBOL_COLUMNS = ("path", "language", "start_byte", "end_byte", "unresolved_bases")
#: Kùzu's worker threads. One: a bulk load with Kùzu's default (a thread per core) took
#: ~12-19 MB more peak memory on the bench_index corpus and was no faster; the parse
#: workers have the other cores.
STORE_THREADS = 1
#: Observation writes of more rows than this use one COPY instead of a CREATE per row.
COPY_ROWS = 24
#: The WAL is checkpointed into the database once it grows past this (keeps it bounded).
CHECKPOINT_THRESHOLD_MB = 32
#: the store closes and reopens its database after this many queries (``recycle_if_due``)
RECYCLE_QUERIES = 500
#: how many queries one COPY counts as towards ``RECYCLE_QUERIES``, plus one per
#: ``COPY_ROWS_PER_QUERY`` rows: after a bulk load Kùzu holds ~100 MB per 100k rows
#: (stdlib corpus) until the database is closed, so a large load makes the store due at once
COPY_WEIGHT = 20
COPY_ROWS_PER_QUERY = 100
#: failures after which Kùzu cannot be used again in the process (see ``_note_failure``)
_POISON = ("rollback", "No space left", "IO exception")
#: a bulk load copies at most this many rows at a time (Kùzu's working memory for one COPY
#: grows with its rows)
COPY_CHUNK_ROWS = 20_000
#: a bulk load builds and copies the node rows of this many files at a time: the rows of a
#: whole 4.7 M-line first pass, built at once, were ~0.7 GB at the daemon's peak
LOAD_CHUNK_FILES = 500
#: ... and of at most about this many symbols (a chunk ends after the file that reaches it).
#: Kùzu keeps what a COPY allocated (~40 MB, plus ~1 KB per row) until the database closes,
#: so a load of several chunks reopens it between them (``_load``). At 0.9 M lines a checkout
#: of every file peaked ~15-30 MB lower with 8,000 than with 16,000, for ~5 more reopens
#: (~0.05 s each)
LOAD_CHUNK_SYMBOLS = 8_000
#: large results are fetched as Arrow batches of this many rows (``_columns``)
FETCH_ROWS = 10_000
#: a bulk read of a repository's symbols asks for the symbols of this many files at a time:
#: the engine holds a query's whole result in its buffer pool until it is fetched, and the
#: 387,352 symbols of a 4.7 M-line tree read at once did not fit a 256 MB pool
READ_PAGE_FILES = 1_000

_SCHEMA = (
    "CREATE NODE TABLE IF NOT EXISTS Meta(key STRING, value STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE IF NOT EXISTS Repo(id STRING, root STRING, indexed_commit STRING,"
    " last_indexed_at DOUBLE, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS File(id STRING, repo STRING, path STRING, language STRING,"
    " hash STRING, size INT64, lines INT64, indexed_at DOUBLE, syntax_errors INT64,"
    " unresolved_calls STRING[], PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS Symbol(id STRING, repo STRING, file STRING, name STRING,"
    " qualname STRING, kind STRING, parent STRING, start_line INT64, end_line INT64,"
    " signature STRING, sig_hash STRING, body_hash STRING, unresolved_calls STRING[],"
    " PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS External(id STRING, name STRING, PRIMARY KEY(id))",
    "CREATE NODE TABLE IF NOT EXISTS Observation(id STRING, repo STRING, text STRING, tags STRING,"
    " category STRING, status STRING, created_at DOUBLE, updated_at DOUBLE, doc STRING,"
    " idem_key STRING, PRIMARY KEY(id))",
    "CREATE REL TABLE IF NOT EXISTS IMPORTS(FROM File TO File, confidence STRING)",
    "CREATE REL TABLE IF NOT EXISTS IMPORTS_EXT(FROM File TO External)",
    "CREATE REL TABLE IF NOT EXISTS CALLS(FROM Symbol TO Symbol, confidence STRING)",
    "CREATE REL TABLE IF NOT EXISTS FILE_CALLS(FROM File TO Symbol, confidence STRING)",
    "CREATE REL TABLE IF NOT EXISTS INHERITS(FROM Symbol TO Symbol, kind STRING, confidence STRING)",
)

#: The full-text indexes of stores written before text search moved into memory
#: (``text_index.py``): dropped at open, with Symbol's ``words`` column. An fts index costs
#: ~60 MB of RSS by existing and ~67 KB per deleted row in Kùzu 0.11.3.
_OLD_FTS = (("Observation", "observation_fts"), ("Symbol", "symbol_fts"))


@dataclass(frozen=True, slots=True)
class StoredObservation:
    """An observation row as the store holds it: its id and JSON document."""

    id: str
    doc: str  # the observation as JSON (graphmemd.memory.observations owns its format)
    #: the idempotency key of the create that made it ("" when none): a retry after the
    #: journal was lost still finds it
    key: str = ""


class StoreConnection:
    """An open Kùzu database: its one connection behind one lock, the schema, bulk loads and
    upkeep (WAL, checkpoints, sizes). ``Store`` adds the graph's and observations' queries."""

    def __init__(
        self,
        path: Path,
        *,
        engine: str = engines.DEFAULT_ENGINE,
        workarounds: frozenset[str] | None = None,
        buffer_pool_mb: int = 512,
        max_db_size_gb: int = 64,
        checkpoint_threshold_mb: int = CHECKPOINT_THRESHOLD_MB,
    ) -> None:
        self.path = path
        #: the engine binding (``engines.py``) and the workarounds applied on it
        self.engine = engines.load(engine, workarounds)
        path.parent.mkdir(parents=True, exist_ok=True)
        self._sizes = (buffer_pool_mb, max_db_size_gb, checkpoint_threshold_mb)
        self._db, self._conn = self._connect()
        self._lock = threading.RLock()
        self._closed = False
        #: queries since the database was (re)opened: see ``recycle_if_due``
        self.queries = 0
        #: why Kùzu can no longer be used in this process ("" while it can): ``_note_failure``
        self.poisoned = ""
        self._ends: dict[str, tuple[str, str, str, str] | None] = {}
        #: a bulk read asked for a reopen (``reopen_soon``)
        self._reopen_asked = False
        #: the Repo rows as this process last read or wrote them (``repos``): registering a
        #: checkout reads them, and must not wait for a bulk write holding the lock
        self._repo_rows: dict[str, tuple[str, str, float]] | None = None
        #: called between the chunks of a bulk load: the store writer runs the urgent writes
        #: (observation copies an acknowledgement waits for) there (``StoreWriter.between_steps``)
        self.pause_point: Callable[[], None] = _nothing
        try:
            self._init_schema()
        except StoreError:
            self.close()
            raise
        except Exception as exc:  # any binding failure while replaying/reading: the store is damaged
            self.close()
            raise StoreError(f"cannot open the store {path}: {type(exc).__name__}: {exc}") from exc

    def _connect(self) -> tuple[Any, Any]:
        pool_mb, max_gb, checkpoint_mb = self._sizes
        try:
            db, conn = self.engine.connect(
                self.path,
                buffer_pool_bytes=pool_mb * 1024 * 1024,
                max_db_bytes=max_gb * 1024 * 1024 * 1024,
                checkpoint_bytes=checkpoint_mb * 1024 * 1024,
                threads=STORE_THREADS,
            )
            return db, conn
        except Exception as exc:  # the binding raises RuntimeError, IndexError, UnicodeDecodeError, ...
            if "lock" in str(exc).lower():
                raise DaemonAlreadyRunning(f"the store {self.path} is open in another process: {exc}") from exc
            raise StoreError(f"cannot open the store {self.path}: {type(exc).__name__}: {exc}") from exc

    def recycle_if_due(self, every: int = RECYCLE_QUERIES) -> bool:
        """Close and reopen the database once ``every`` queries ran on it (workaround
        ``recycle``) or a bulk read asked for it (``reopen_soon``); True if it did.

        Kùzu 0.11.3 never returns some memory while a database is open: ≈67 KB for each row
        deleted from a full-text-indexed table, ≈5-60 KB for each query run with parameters
        (``cypher_literals`` avoids most of those). Closing the database returns all of it;
        reopening an idle store takes ~0.1 s, during which queries wait for the lock."""
        with self._lock:
            periodic = "recycle" in self.engine.workarounds and self.queries >= every
            if self._closed or self.poisoned or not (periodic or self._reopen_asked):
                return False
            return self._reopen()

    def _reopen_for(self, workaround: str) -> None:
        """Reopen the database now when ``workaround`` is applied on this engine."""
        if workaround in self.engine.workarounds:
            with self._lock:
                if not self._closed and not self.poisoned:
                    self._reopen()

    def _reopen(self) -> bool:
        """Checkpoint, close and reopen the database (the lock is held)."""
        # a statement runs without the GIL, closing does not: left with nothing to
        # checkpoint, the close is short (health checks wait through it)
        self._run("CHECKPOINT")
        self._conn.close()
        self._db.close()
        malloc.trim()
        try:
            self._db, self._conn = self._connect()
            for statement in self.engine.at_connect:
                self._conn.execute(statement)
        except Exception as exc:  # reopening what was open a moment ago: report, never hide
            self._closed = True
            raise StoreError(f"cannot reopen the store {self.path}: {type(exc).__name__}: {exc}") from exc
        self.queries = 0
        self._reopen_asked = False
        return True

    def reopen_soon(self) -> None:
        """Have the next ``recycle_if_due`` (the store writer's, after its next job) reopen the
        database, not this caller: a bulk read at start-up is not slowed down by it
        (workaround ``bulk-read``)."""
        if "bulk-read" in self.engine.workarounds:
            with self._lock:
                self._reopen_asked = True

    # ------------------------------------------------------------------ plumbing

    def _query(self, query: str, params: Mapping[str, Any] | None, take: Callable[[Any], _T]) -> _T:
        """Run ``query`` and ``take`` what it needs from the result, under the lock, with
        Kùzu's failures mapped to ``StoreError`` (and noted: ``_note_failure``)."""
        with self._lock:
            self._check_usable()
            try:
                # Parameters are written into the query as literals where that is exact: Kùzu
                # 0.11.3 leaks 5-60 KB per query executed with parameters (cypher_literals.py).
                # (Reused prepared statements instead crashed the process: SIGSEGV.)
                self.queries += 1
                literals = params and "literals" in self.engine.workarounds
                text = inline(query, params) if literals and params else (None if params else query)
                result = self._conn.execute(text) if text is not None else self._conn.execute(query, dict(params or {}))
                assert not isinstance(result, list)
                return take(result)
            except (RuntimeError, ValueError, IndexError) as exc:  # damaged pages decode badly too
                self._note_failure(exc)
                raise StoreError(f"store query failed: {type(exc).__name__}: {exc}") from exc

    def _run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        return self._query(query, params, _rows)

    def _columns(
        self, query: str, params: Mapping[str, Any], width: int, interned: frozenset[int] | None = None
    ) -> list[list[Any]]:
        """A large result as ``width`` Python lists, one per column: fetched as Arrow in
        batches of ``FETCH_ROWS`` rows (~2.5x faster than row by row, and no batch holds the
        GIL for more than a few milliseconds), with string columns interned (ids: the graph
        holds each once); ``interned``: only the columns at these indexes."""
        table = self._query(query, params, lambda result: result.get_as_arrow(FETCH_ROWS))
        cols: list[list[Any]] = [[] for _ in range(width)]
        for batch in table.to_batches():
            for i in range(width):
                values = batch.column(i).to_pylist()
                intern = pa.types.is_string(batch.schema.field(i).type) and (interned is None or i in interned)
                cols[i].extend(map(_intern, values) if intern else values)
        return cols

    def _check_usable(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")
        if self.poisoned:
            raise StoreError(f"the store needs a daemon restart: {self.poisoned}")

    def _note_failure(self, exc: Exception) -> None:
        """A write that ran out of space leaves Kùzu 0.11.3 unable to roll back: the next
        statement can crash the process (SIGSEGV), and closing the database aborts it (an
        uncaught TransactionManagerException). Such a store is never touched again in this
        process: every statement fails with a clear error until the daemon restarts (the
        probe then checks the store; the journal holds every acknowledged observation)."""
        text = str(exc)
        if any(marker in text for marker in _POISON):
            self.poisoned = text.strip().splitlines()[0][:200] if text.strip() else type(exc).__name__
            logger.critical("store unusable until the daemon restarts: %s", self.poisoned)

    def _copy(self, table: str, rows: pa.Table, *, pause: bool = False) -> None:
        """COPY ``rows`` into ``table`` a slice at a time; with ``pause``, the urgent writes
        queued meanwhile run between the slices (``pause_point``: a graph load's edges)."""
        with self._lock:
            self._check_usable()
            started, cpu = time.monotonic(), time.thread_time()
            for start in range(0, rows.num_rows, COPY_CHUNK_ROWS):
                data = rows.slice(start, COPY_CHUNK_ROWS)
                try:
                    # a COPY keeps ~300 KB and its pages, a literal query next to nothing
                    self.queries += COPY_WEIGHT + data.num_rows // COPY_ROWS_PER_QUERY
                    # Kùzu resolves the name `data` to the local arrow table (scan replacement).
                    # Not retried when Kùzu's buffer pool is full: such a COPY can raise after it
                    # committed part of the slice, and a store where that slice was deleted and
                    # copied again crashed the next start. The job fails; the next pass re-writes
                    # its files (their hashes differ).
                    if self.engine.copy_from_file:
                        self._copy_file(table, data)
                    else:
                        self._conn.execute(f"COPY {table} FROM data")
                except (RuntimeError, ValueError, IndexError) as exc:
                    self._note_failure(exc)
                    raise StoreError(f"bulk load into {table} failed: {exc}") from exc
                if pause:
                    self.pause_point()
            logger.debug(
                "copied %d rows into %s in %.3fs (%.3f CPU-s)",
                rows.num_rows,
                table,
                time.monotonic() - started,
                time.thread_time() - cpu,
            )

    def _copy_file(self, table: str, data: pa.Table) -> None:
        """COPY ``data`` into ``table`` through a Parquet file beside the store (removed after)."""
        staged = self.path.with_name(f".{self.path.name}.copy.parquet")
        try:
            pq.write_table(data, staged, compression="none")
            self._conn.execute(f"COPY {table} FROM '{_cypher_path(staged)}'")
        finally:
            staged.unlink(missing_ok=True)

    def _init_schema(self) -> None:
        for statement in self.engine.at_connect:
            self._run(statement)
        for stmt in _SCHEMA:
            self._run(stmt)
        rows = self._run("MATCH (m:Meta {key: 'schema'}) RETURN m.value")
        version = rows[0][0] if rows else str(SCHEMA_VERSION)
        if not rows:
            self._run("CREATE (:Meta {key: 'schema', value: $v})", {"v": version})
        if version == "1":
            self._migrate_v1()
            version = "2"
        if version == "2":
            self._migrate_v2()
            version = "3"
        if version == "3":
            self._migrate_v3()
            version = "4"
        if version == "4":
            self._migrate_v4()
        elif version != str(SCHEMA_VERSION):
            raise StoreError(f"store schema {version} is not {SCHEMA_VERSION}; remove {self.path} to rebuild")
        existing = {r[0] for r in self._run("CALL SHOW_INDEXES() RETURN index_name")} if self.engine.had_fts else set()
        for table, index in _OLD_FTS:
            if index in existing:
                self._run(f"CALL DROP_FTS_INDEX('{table}', '{index}')")
                self._run(f"MATCH (m:Meta {{key: '{index}'}}) DELETE m")  # its build marker, if any
        if any(r[0] == "words" for r in self._run("CALL TABLE_INFO('Symbol') RETURN name")):
            self._run("ALTER TABLE Symbol DROP words")
        # cached parses moved to their own files (parse_pack.py): an older store's table goes
        self._run("DROP TABLE IF EXISTS Parse")

    def _migrate_v1(self) -> None:
        """Schema 1 -> 2: add the edges' ``confidence`` column. Old edges read as
        ``unknown`` (never shown as certain), and every file's hash is cleared so the next
        scan re-parses and re-resolves it, replacing them with real confidences."""
        for table in _CONFIDENCE_TABLES:
            self._run(f"ALTER TABLE {table} ADD IF NOT EXISTS confidence STRING DEFAULT 'unknown'")
        self._run("MATCH (f:File) SET f.hash = ''")
        self._run("MATCH (m:Meta {key: 'schema'}) SET m.value = '2'")
        logger.info("store %s migrated from schema 1 to 2", self.path)

    def _migrate_v2(self) -> None:
        """Schema 2 -> 3: drop the Symbol columns nothing reads (``_DROPPED_SYMBOL_COLUMNS``);
        every row keeps its other values, so nothing is re-indexed."""
        present = {r[0] for r in self._run("CALL TABLE_INFO('Symbol') RETURN name")}
        for column in _DROPPED_SYMBOL_COLUMNS:
            if column in present:
                self._run(f"ALTER TABLE Symbol DROP {column}")
        self._run("MATCH (m:Meta {key: 'schema'}) SET m.value = '3'")
        logger.info("store %s migrated from schema 2 to 3", self.path)

    def _migrate_v3(self) -> None:
        """Schema 3 -> 4: observation copies keep the idempotency key of their create (the
        journal is no longer its only holder); older rows get theirs from the journal at the
        next reconciliation."""
        present = {r[0] for r in self._run("CALL TABLE_INFO('Observation') RETURN name")}
        if "idem_key" not in present:
            self._run("ALTER TABLE Observation ADD idem_key STRING DEFAULT ''")
        self._run("MATCH (m:Meta {key: 'schema'}) SET m.value = '4'")
        logger.info("store %s migrated from schema 3 to 4", self.path)

    def _migrate_v4(self) -> None:
        """Schema 4 -> 5: drop the DEFINES and CONTAINS tables (``_STRUCTURAL_TABLES``): what
        they held is every symbol's ``file`` and ``parent``, read from the Symbol rows now."""
        for table in _STRUCTURAL_TABLES:
            self._run(f"DROP TABLE IF EXISTS {table}")
        self._run("MATCH (m:Meta {key: 'schema'}) SET m.value = $v", {"v": str(SCHEMA_VERSION)})
        logger.info("store %s migrated from schema 4 to %d", self.path, SCHEMA_VERSION)

    def close(self) -> None:
        """Close the connection and the database (idempotent). A poisoned store is left as it
        is (closing it would abort the process); the next start probes it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self.poisoned:
                logger.warning("store not closed (unusable since: %s); the next start checks it", self.poisoned)
                return
            self._conn.close()
            self._db.close()

    @property
    def wal_path(self) -> Path:
        """The store's write-ahead log file."""
        return Path(str(self.path) + ".wal")

    def wal_bytes(self) -> int:
        """The WAL's size in bytes (0 when there is none)."""
        try:
            return self.wal_path.stat().st_size
        except OSError:
            return 0

    def checkpoint(self) -> None:
        """Fold the WAL into the database file (done right after an unclean stop, and
        whenever the WAL grows past ``CHECKPOINT_THRESHOLD_MB``)."""
        with self._lock:
            self._run("CHECKPOINT")

    def export_to(self, directory: Path) -> None:
        """Write the whole database to ``directory`` as Parquet files with the Cypher that
        recreates it (``EXPORT DATABASE``; ``migration.py`` imports it into another engine)."""
        with self._lock:
            self._run("CHECKPOINT")
            self._run(f"EXPORT DATABASE '{_cypher_path(directory)}' (format='parquet')")

    def counts(self) -> dict[str, int]:
        """Rows per node table (reads every table once: used to verify a store at open)."""
        out: dict[str, int] = {}
        for table in ("Meta", "Repo", "File", "Symbol", "External", "Observation"):
            rows = self._run(f"MATCH (n:{table}) RETURN count(n)")
            out[table] = int(rows[0][0]) if rows else 0
        return out

    def size_bytes(self) -> int:
        """The store's size on disk, its WAL included."""
        total = 0
        for p in (self.path, Path(str(self.path) + ".wal")):
            try:
                total += p.stat().st_size if p.is_file() else sum(f.stat().st_size for f in p.rglob("*"))
            except OSError:
                continue
        return total


class Store(StoreConnection):
    """The graph store: repositories, files, symbols, edges and observation copies (the
    cached parses are in ``parse_pack.py``). Thread-safe: one connection behind one lock."""

    # ------------------------------------------------------------------ repositories

    def upsert_repo(self, repo_id: str, root: str, indexed_commit: str, last_indexed_at: float) -> None:
        """Create or update a repository's row."""
        with self._lock:
            self._run(
                "MERGE (r:Repo {id: $id}) SET r.root = $root, r.indexed_commit = $c, r.last_indexed_at = $t",
                {"id": repo_id, "root": root, "c": indexed_commit, "t": last_indexed_at},
            )
            if self._repo_rows is not None:
                self._repo_rows = {**self._repo_rows, repo_id: (root, indexed_commit, last_indexed_at)}

    def repos(self) -> list[tuple[str, str, str, float]]:
        """Every repository row as (id, root, indexed commit, last indexed at), by id.

        Read from the store once; after that from what this process wrote (``upsert_repo``,
        ``delete_repo`` keep it), so a caller never waits for a bulk write holding the lock:
        the store has one writer, this process."""
        self._check_usable()  # reads no lock: a closed or poisoned store still says so
        known = self._repo_rows
        if known is None:
            with self._lock:
                rows = self._run("MATCH (r:Repo) RETURN r.id, r.root, r.indexed_commit, r.last_indexed_at")
                known = self._repo_rows = {r[0]: (r[1], r[2] or "", float(r[3] or 0.0)) for r in rows}
        return [(rid, *known[rid]) for rid in sorted(known)]

    def delete_repo(self, repo_id: str) -> None:
        """Remove a repository's code graph (observations are kept: the journal decides)."""
        with self._lock:
            self._run("MATCH (s:Symbol) WHERE s.repo = $r DETACH DELETE s", {"r": repo_id})
            self._run("MATCH (f:File) WHERE f.repo = $r DETACH DELETE f", {"r": repo_id})
            self._run("MATCH (r:Repo {id: $r}) DELETE r", {"r": repo_id})
            if self._repo_rows is not None:
                self._repo_rows = {rid: row for rid, row in self._repo_rows.items() if rid != repo_id}

    # ------------------------------------------------------------------ code graph writes

    def replace_files(
        self,
        repo_id: str,
        files: Sequence[tuple[FileRecord, ParsedFile]],
        removed_paths: Iterable[str],
        edges: ResolvedEdges,
        edge_sources: Iterable[str] = (),
        infos: Mapping[str, Sequence[SymbolInfo]] | None = None,
    ) -> None:
        """Replace the rows of ``files`` (and delete ``removed_paths``) in bulk.

        ``edges`` are the outgoing edges of ``files`` and of ``edge_sources`` (other files whose
        outgoing edges were re-resolved, e.g. dependents of the changed files); the old
        outgoing edges of all of those are deleted first, so no edge is duplicated. ``infos``:
        the files' symbols by path as the graph already holds them (derived again if absent).

        A file written again keeps the edges other files (not among those re-resolved) have
        into it and into its symbols that keep their id (a narrowed change re-resolves only
        the files that read a name of it that changed: ``RepoResolver.dependents_of``); the
        edges into its symbols that went away go with them.

        Only the files stored now are deleted and have their incoming edges read: those
        queries filter every checkout's symbols and edges, so their cost grows with the store
        (a derived worktree's differing files, none of them stored yet, took 1.7 s to 5.9 s of
        the writer for 300 files as checkouts were added).
        """
        paths = [rec.path for rec, _ in files]
        chunks = load_chunks(files)
        gone = sorted(set(removed_paths) | set(paths))
        sources = sorted(set(edge_sources) - set(gone))
        with self._lock:
            stored = self._stored_files(repo_id, gone) if gone else frozenset[str]()
            if stored:
                ids = [file_id(repo_id, p) for p in gone if p in stored]
                if paths and (again := [p for p in paths if p in stored]):
                    skip = [*(file_id(repo_id, p) for p in gone), *(file_id(repo_id, p) for p in sources)]
                    kept = self._edges_into(repo_id, again, skip=skip)
                    edges = _with_kept(edges, kept, _ids_of(repo_id, files, infos))
                self._run("MATCH (s:Symbol) WHERE s.file IN $ids DETACH DELETE s", {"ids": ids})
                self._run("MATCH (f:File) WHERE f.id IN $ids DETACH DELETE f", {"ids": ids})
                if len(chunks) > 1:  # a bulk delete before a bulk load: see _load
                    self._reopen_for("chunks")
            if sources:
                ids = [file_id(repo_id, p) for p in sources]
                self._run("MATCH (s:Symbol)-[e:CALLS|INHERITS]->() WHERE s.file IN $ids DELETE e", {"ids": ids})
                self._run(
                    "MATCH (f:File)-[e:IMPORTS|IMPORTS_EXT|FILE_CALLS]->() WHERE f.id IN $ids DELETE e",
                    {"ids": ids},
                )
            self._load(repo_id, chunks, edges, infos)

    def _edges_into(self, repo_id: str, paths: Sequence[str], skip: Sequence[str]) -> ResolvedEdges:
        """The edges into the files ``paths`` and their symbols from files not in ``skip``
        (file ids), as stored now."""
        p = {"ids": [file_id(repo_id, x) for x in paths], "skip": list(skip)}
        imports = self._triples_q(
            "MATCH (a:File)-[e:IMPORTS]->(b:File) WHERE b.id IN $ids AND NOT a.id IN $skip"
            " RETURN a.id, b.id, e.confidence",
            p,
        )
        calls = self._triples_q(
            "MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE b.file IN $ids AND NOT a.file IN $skip"
            " RETURN a.id, b.id, e.confidence",
            p,
        )
        calls += self._triples_q(
            "MATCH (a:File)-[e:FILE_CALLS]->(b:Symbol) WHERE b.file IN $ids AND NOT a.id IN $skip"
            " RETURN a.id, b.id, e.confidence",
            p,
        )
        a, b, kinds, conf = self._columns(
            "MATCH (a:Symbol)-[e:INHERITS]->(b:Symbol) WHERE b.file IN $ids AND NOT a.file IN $skip"
            " RETURN a.id, b.id, e.kind, e.confidence",
            p,
            4,
        )
        inherits = tuple(zip(a, b, map(InheritKind, kinds), map(_confidence, conf), strict=True))
        return ResolvedEdges(imports=imports, calls=calls, inherits=inherits)

    def file_hashes(self, repo_id: str) -> dict[str, str]:
        """Each stored file of a repository and its content hash."""
        return {r[0]: r[1] for r in self._run("MATCH (f:File) WHERE f.repo = $r RETURN f.path, f.hash", {"r": repo_id})}

    def _stored_files(self, repo_id: str, paths: Sequence[str]) -> frozenset[str]:
        """Which of ``paths`` have a stored file row in ``repo_id`` (a file's symbols and
        edges are written with it and deleted before it). One query, whose answer holds only
        the rows asked for (a live edit's one; none for a new checkout's files)."""
        ids = [file_id(repo_id, p) for p in paths]
        rows = self._run("MATCH (f:File) WHERE f.id IN $ids RETURN f.path", {"ids": ids})
        return frozenset(r[0] for r in rows)

    def _load(
        self,
        repo_id: str,
        chunks: Sequence[Sequence[tuple[FileRecord, ParsedFile]]],
        edges: ResolvedEdges,
        infos: Mapping[str, Sequence[SymbolInfo]] | None,
    ) -> None:
        """Build the rows of the files a chunk at a time (``load_chunks``), COPY them in slices
        of ``COPY_CHUNK_ROWS`` (``StagedRows``: fewer, larger COPYs), then the edges. When
        there are several chunks, the database is reopened after each COPY of node rows: what
        Kùzu allocated for it is returned then instead of adding up to the next COPY's (at 0.9 M
        lines, a 1,861-file checkout's write peaked ~60 MB lower; a reopen costs ~0.05 s)."""
        unresolved = unresolved_of(edges)
        staged = StagedRows(COPY_CHUNK_ROWS)
        for i, chunk in enumerate(chunks):
            staged.add(node_tables(repo_id, chunk, unresolved, infos))
            ready = staged.take(final=i == len(chunks) - 1)
            for table, data in ready:
                self._copy(table, data, pause=True)
            if ready and len(chunks) > 1:
                self._reopen_for("chunks")
            self.pause_point()
        externals = sorted({name for _, name in edges.external_imports})
        if externals:
            known = {r[0] for r in self._run("MATCH (e:External) WHERE e.id IN $ids RETURN e.id", {"ids": externals})}
            new = [n for n in externals if n not in known]
            self._copy("External", pa.table({"id": new, "name": new}))
        for table, data in rel_tables(repo_id, edges):
            self._copy(table, data, pause=True)

    # ------------------------------------------------------------------ code graph reads

    def load_repo_graph(self, repo_id: str) -> tuple[list[FileRecord], list[SymbolInfo], GraphEdges]:
        """Everything about one repository, to rebuild the daemon's in-memory graph at start."""
        files = [
            FileRecord(repo_id, r[0], Language(r[1]), r[2], int(r[3]), float(r[4]), int(r[5]))
            for r in self._run(
                "MATCH (f:File) WHERE f.repo = $r RETURN f.path, f.language, f.hash, f.size, f.indexed_at,"
                " f.syntax_errors",
                {"r": repo_id},
            )
        ]
        # a symbol's path and language are its file's (its ``file`` is ``file_id(repo, path)``)
        languages = {f.path: f.language for f in files}
        prefix = len(file_id(repo_id, ""))
        symbols: list[SymbolInfo] = []
        defines: list[tuple[str, str]] = []
        contains: list[tuple[str, str]] = []
        for lo, hi in _pages(sorted(file_id(repo_id, f.path) for f in files), READ_PAGE_FILES):
            columns = self._columns(
                "MATCH (s:Symbol) WHERE s.repo = $r AND s.file >= $lo AND s.file <= $hi RETURN s.id, s.file,"
                " s.name, s.qualname, s.kind, s.parent, s.start_line, s.end_line, s.signature, s.sig_hash,"
                " s.body_hash",
                {"r": repo_id, "lo": lo, "hi": hi},
                11,
                _SYMBOL_IDS,
            )
            for sid, fid, name, qualname, kind, parent, start, end, *text in zip(*columns, strict=True):
                path = fid[prefix:]
                language = languages.get(path)
                if language is None:  # (never written: a file's symbols are deleted before it)
                    continue
                of = (SymbolKind(kind), language, parent or None, int(start), int(end))
                symbols.append(SymbolInfo(sid, repo_id, path, name, qualname, *of, *text))
                # the structural edges are the symbol's own columns (schema 5: no DEFINES/CONTAINS rows)
                defines.append((fid, sid))
                if parent:
                    contains.append((parent, sid))
        # the pages the symbols touched are given back before the edges are read (at 4.7 M
        # lines the two reads together did not fit a 256 MB buffer pool)
        self._reopen_for("bulk-read")
        edges = self._resolved_edges(repo_id)
        self.reopen_soon()  # a bulk read: see load_resolved_edges
        return files, symbols, GraphEdges(defines=tuple(defines), contains=tuple(contains), edges=edges)

    def load_resolved_edges(self, repo_id: str) -> ResolvedEdges:
        """A repository's resolved edges as last written (calls, imports, inheritance, and
        what stayed unresolved), for a warm restart that does not resolve before it answers.

        The database is reopened soon after this bulk read (``reopen_soon``): Kùzu keeps the
        pages it touched until it closes (~60 MB at 0.9 M lines), and a warm restart's
        hand-over reads the edges right before its first parse, whose peak they would add to."""
        edges = self._resolved_edges(repo_id)
        self.reopen_soon()
        return edges

    def _resolved_edges(self, repo_id: str) -> ResolvedEdges:
        p = {"r": repo_id}
        imports = self._triples_q(
            "MATCH (a:File)-[e:IMPORTS]->(b:File) WHERE a.repo = $r RETURN a.id, b.id, e.confidence", p
        )
        ext = self._pairs_q("MATCH (a:File)-[:IMPORTS_EXT]->(b:External) WHERE a.repo = $r RETURN a.id, b.id", p)
        calls = self._triples_q(
            "MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE a.repo = $r RETURN a.id, b.id, e.confidence", p
        )
        calls += self._triples_q(
            "MATCH (a:File)-[e:FILE_CALLS]->(b:Symbol) WHERE a.repo = $r RETURN a.id, b.id, e.confidence", p
        )
        a, b, kinds, conf = self._columns(
            "MATCH (a:Symbol)-[e:INHERITS]->(b:Symbol) WHERE a.repo = $r RETURN a.id, b.id, e.kind, e.confidence", p, 4
        )
        inherits = tuple(zip(a, b, map(InheritKind, kinds), map(_confidence, conf), strict=True))
        unresolved: list[tuple[str, str]] = []
        for table in ("Symbol", "File"):
            ids, texts = self._columns(
                f"MATCH (n:{table}) WHERE n.repo = $r AND size(n.unresolved_calls) > 0 RETURN n.id, n.unresolved_calls",
                p,
                2,
            )
            for node, node_texts in zip(ids, texts, strict=True):
                unresolved.extend((node, sys.intern(t)) for t in node_texts)
        return ResolvedEdges(
            imports=imports,
            external_imports=ext,
            calls=calls,
            unresolved_calls=tuple(unresolved),
            inherits=inherits,
        )

    def _pairs_q(self, query: str, params: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
        return tuple(zip(*self._columns(query, params, 2), strict=True))

    def _triples_q(self, query: str, params: Mapping[str, Any]) -> tuple[tuple[str, str, Confidence], ...]:
        a, b, conf = self._columns(query, params, 3)
        return tuple(zip(a, b, map(_confidence, conf), strict=True))

    # ------------------------------------------------------------------ observations

    def upsert_observations(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Write observations (id, repo, text, tags, category, status, created_at, updated_at, doc,
        idem_key)."""
        if not rows:
            return
        rows = list({r["id"]: r for r in rows}.values())  # one row per id: the last one wins
        with self._lock:
            ids = [r["id"] for r in rows]
            self._run("MATCH (o:Observation) WHERE o.id IN $ids DELETE o", {"ids": ids})
            cols = ("id", "repo", "text", "tags", "category", "status", "created_at", "updated_at", "doc", "idem_key")
            # One COPY for a large batch, a CREATE per row for a small one (a COPY has a fixed
            # cost, and keeps ~300 KB until the database is reopened: see recycle_if_due).
            if len(rows) > COPY_ROWS:
                self._copy("Observation", pa.table({c: [r[c] for r in rows] for c in cols}))
                return
            for r in rows:
                self._run(
                    "CREATE (:Observation {id: $id, repo: $repo, text: $text, tags: $tags, category: $category,"
                    " status: $status, created_at: $created_at, updated_at: $updated_at, doc: $doc,"
                    " idem_key: $idem_key})",
                    {c: r[c] for c in cols},
                )

    def delete_observation(self, obs_id: str) -> None:
        """Delete an observation's row."""
        with self._lock:
            self._run("MATCH (o:Observation {id: $id}) DELETE o", {"id": obs_id})

    def observations(self) -> Iterator[StoredObservation]:
        """Every stored observation, by id."""
        for r in self._run("MATCH (o:Observation) RETURN o.id, o.doc, o.idem_key ORDER BY o.id"):
            yield StoredObservation(r[0], r[1], r[2] or "")


_CONFIDENCES: dict[object, Confidence] = {c.value: c for c in Confidence}


def load_chunks(files: Sequence[tuple[FileRecord, ParsedFile]]) -> list[Sequence[tuple[FileRecord, ParsedFile]]]:
    """``files`` cut into the chunks a bulk load copies at a time: ``LOAD_CHUNK_FILES`` files
    at most, and a chunk ends after the file that brings it to ``LOAD_CHUNK_SYMBOLS`` symbols."""
    chunks: list[Sequence[tuple[FileRecord, ParsedFile]]] = []
    start = symbols = 0
    for i, (_rec, parsed) in enumerate(files):
        symbols += len(parsed.symbols)
        if i + 1 - start >= LOAD_CHUNK_FILES or symbols >= LOAD_CHUNK_SYMBOLS:
            chunks.append(files[start : i + 1])
            start, symbols = i + 1, 0
    if start < len(files):
        chunks.append(files[start:])
    return chunks


def _cypher_path(path: Path) -> str:
    """``path`` for a single-quoted Cypher string."""
    return str(path).replace("\\", "\\\\").replace("'", "\\'")


def _nothing() -> None:
    return None


def _confidence(value: object) -> Confidence:
    return _CONFIDENCES.get(value, Confidence.UNKNOWN)


#: the columns of the symbol read held once in the graph (id, file, parent), as before
_SYMBOL_IDS = frozenset({0, 1, 5})


def _pages(keys: Sequence[str], size: int) -> list[tuple[str, str]]:
    """The sorted ``keys`` as inclusive ranges (first, last) of at most ``size`` keys each."""
    return [(keys[i], keys[min(i + size, len(keys)) - 1]) for i in range(0, len(keys), size)]


def _rows(result: Any) -> list[list[Any]]:
    rows: list[list[Any]] = []
    while result.has_next():
        row = result.get_next()
        rows.append(row if isinstance(row, list) else list(row.values()))
    return rows


def _intern(value: Any) -> Any:
    return sys.intern(value) if type(value) is str else value


def observation_row(doc: Mapping[str, Any], key: str = "") -> dict[str, Any]:
    """The stored columns of an observation document (see ``graphmemd.memory.observations``)
    and the idempotency key of its create."""
    return {
        "id": doc["id"],
        "repo": doc.get("repo_id", ""),
        "text": doc.get("text", ""),
        "tags": " ".join(doc.get("tags", ())),
        "category": doc.get("category", "other"),
        "status": doc.get("status", "fresh"),
        "created_at": float(doc.get("created_at", 0.0)),
        "updated_at": float(doc.get("updated_at", 0.0)),
        "doc": json.dumps(doc, sort_keys=True),
        "idem_key": key,
    }


def _ids_of(
    repo_id: str, files: Sequence[tuple[FileRecord, ParsedFile]], infos: Mapping[str, Sequence[SymbolInfo]] | None
) -> set[str]:
    """The node ids ``files`` are written with: each file's and its symbols'."""
    out: set[str] = set()
    for rec, parsed in files:
        out.add(file_id(repo_id, rec.path))
        known = infos.get(rec.path) if infos is not None else None
        out.update(i.id for i in (known if known is not None else symbols_of(repo_id, parsed)))
    return out


def _with_kept(edges: ResolvedEdges, kept: ResolvedEdges, there: set[str]) -> ResolvedEdges:
    """``edges`` and those of ``kept`` (edges into files written again, ``_edges_into``)
    whose target is among ``there`` (the ids written): written in the same bulk load."""
    if not (kept.imports or kept.calls or kept.inherits):
        return edges
    return replace(
        edges,
        imports=(*edges.imports, *(e for e in kept.imports if e[1] in there)),
        calls=(*edges.calls, *(e for e in kept.calls if e[1] in there)),
        inherits=(*edges.inherits, *(e for e in kept.inherits if e[1] in there)),
    )
