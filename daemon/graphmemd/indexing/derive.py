"""A new checkout current from a sibling checkout's equal files, without resolving them.

The first pass of a checkout of a repository that already has an indexed checkout (a
``git worktree add``) reads and hashes its files and compares them with the sibling's graph
(``hashed_files``). When most are equal, the indexer gives the new checkout the sibling's
files, symbols, edges and text documents with the ids renamed (``codegraph.derive_files``,
``graph/derive.py``), and its resolver the sibling's per-file state renamed the same way
(``RepoResolver.derive``: the files' indexes, their import contexts, what each resolution
consulted, the statistics), less the files the checkout does not have, removed as a change
removes them. The files it has another content of (differing) stay in the resolver as the
sibling has them, and the graph's copy holds back the edges into them (``Derived.held``):
memory judges the checkout's notes, then the differing files are parsed and applied like
any watcher batch — a change of the sibling's version, so only the files reading a name
of them that changed are resolved again. ``settle`` then resolves the files that read a
file the checkout does not have and links the held-back edges still valid (their target
there, their source not resolved again). A checkout whose facts (manifests, layout) differ
from the sibling's is resolved whole by the pass, as any change of facts is.

The store side runs on the store writer: the checkout's cached parses and its rows (files,
symbols, edges) are copied from the sibling's (``copy_rows``), which the writer has
finished writing by then (it runs jobs in order), renamed the same way, before the pass's
own writes; the held-back edges and the edges of the files resolved at ``settle`` after
them (``finish``), once the differing files' rows are in.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graphmemd.graph.codegraph import Derived, FileNode, derive_files, link_held
from graphmemd.graph.delta import GraphDelta
from graphmemd.graph.derive import derived_delta, held_edges, renamed_edges
from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.model import FileRecord, ParsedFile, ResolvedEdges, SymbolInfo, file_id
from graphmemd.indexing.file_events import file_events
from graphmemd.ingest.gitinfo import head_commit, uncommitted_paths
from graphmemd.ingest.parse_pack import CachedHead, CachedParse, ParsePack
from graphmemd.ingest.parse_pool import hashed_file
from graphmemd.ingest.parsecache import PARSER_VERSION, decode
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.memory.memory import Memory
from graphmemd.runtime import malloc
from graphmemd.runtime.config import DaemonConfig
from graphmemd.runtime.events import EventBus
from graphmemd.store.delta_sink import DeltaSink
from graphmemd.store.engine import Store
from graphmemd.store.writer import StoreWriter

logger = logging.getLogger(__name__)

#: a checkout is derived from a sibling when at least this share of its files equal the sibling's
MIN_EQUAL_SHARE = 0.5

#: (repository id, path, content hash) -> a parse text queued for the parse cache, or None
Queued = Callable[[str, str, str], str | None]
#: a file's (content hash, size), as read when a derivation is planned
Hashed = tuple[str, int]


def source_of(registry: RepoRegistry, rt: RepoRuntime) -> RepoRuntime | None:
    """The sibling checkout ``rt`` can be derived from: one with files, preferring one that
    resolved its own (whose parse cache is surely written)."""
    found = [s for s in registry.siblings(rt.id) if s.n_files]
    found.sort(key=lambda s: (bool(s.derived_from), s.id))
    return found[0] if found else None


def hashed_files(todo: Iterable[tuple[str, Path]], paths: Collection[str], max_file_size: int) -> dict[str, Hashed]:
    """Of ``todo`` (path, file on disk), the files whose path is in ``paths`` (the sibling's),
    read and hashed: path -> (content hash, size). A file that cannot be read, or is over
    ``max_file_size``, is left out (the parse workers report it)."""
    out: dict[str, Hashed] = {}
    for rel, path in todo:
        if rel in paths and (got := hashed_file(path, max_file_size)) is not None:
            out[rel] = got
    return out


def sibling_text(parses: ParsePack, queued: Queued, sibling: str, head: CachedHead) -> str | None:
    """The parse text ``head`` names, from ``sibling``'s parse cache (or still queued for it);
    None when it has another parse of that path now."""
    return queued(sibling, head.path, head.content_hash) or parses.text(sibling, head)


def copy_rows(
    store: Store,
    parses: ParsePack,
    queued: Queued,
    source: str,
    target: str,
    heads: Sequence[CachedHead],
    rename: Mapping[str, str],
    infos: Mapping[str, Sequence[SymbolInfo]],
    into: Held | None = None,
) -> None:
    """On the store writer: give ``target`` the cached parses and the store rows of the files
    ``heads`` names, as ``source`` has them (its edges renamed by ``rename``). A file whose
    parse ``source`` no longer caches is left out (the next start parses it). ``into``: the
    edges into the files ``target`` holds another content of, picked from the same read of
    ``source``'s edges and kept in it for a write after those files' own (``Held``)."""
    started, now, cpu = time.monotonic(), time.time(), time.thread_time()
    rows: list[CachedParse] = []
    records: list[tuple[FileRecord, ParsedFile]] = []
    missing: list[str] = []
    for head in heads:
        try:
            text = sibling_text(parses, queued, source, head)
            parsed = decode(text, outline=True) if text is not None else None
        except ValueError:
            text = parsed = None
        if text is None or parsed is None:
            missing.append(head.path)
            continue
        rows.append(CachedParse(head.path, head.size, head.mtime_ns, head.content_hash, PARSER_VERSION, text))
        rec = FileRecord(target, head.path, parsed.language, head.content_hash, head.size, now, parsed.syntax_errors,
                         head.mtime_ns)  # fmt: skip
        records.append((rec, parsed))
    keep = dict(rename)
    if missing:
        logger.warning("%s: %d files' parses gone from %s before they were copied", target, len(missing), source)
        gone = {file_id(target, p) for p in missing}
        keep = {a: b for a, b in rename.items() if b not in gone and b.split("::", 1)[0] not in gone}
    parses.put_rows(target, rows)
    stored = store.load_resolved_edges(source)
    edges = renamed_edges(stored, keep)
    if into is not None:
        into.edges = held_edges(stored, keep, into.rename, into.keep)
    del stored
    store.replace_files(target, records, (), edges, infos={r.path: infos[r.path] for r, _ in records})
    n = len(records)
    del rows, records, edges
    malloc.trim()  # (what the bulk read and load allocated on this thread, back to the system)
    logger.info("stored %s from %s: %d files in %.2fs (%.2f CPU-s of the writer's thread)", target, source, n,
                time.monotonic() - started, time.thread_time() - cpu)  # fmt: skip


@dataclass(slots=True)
class Held:
    """The store's side of ``codegraph.Derived.held``: the sibling's edges from the copied files
    into the files the checkout holds another content of, picked by ``copy_rows`` and written
    after those files' own rows (``Deriver.finish``)."""

    #: ``source`` id -> ``target`` id of those files' nodes as the sibling has them
    rename: Mapping[str, str]
    #: (renamed source, renamed target) -> whether the edge stays (its target is still there,
    #: its source not resolved again)
    keep: Callable[[str, str], bool]
    edges: ResolvedEdges = field(default_factory=ResolvedEdges)


@dataclass(slots=True)
class Pending:
    """A derivation taken and not yet settled: what its settling needs."""

    #: the files of the pass not equal to the sibling's (parsed and applied next)
    differing: set[str]
    #: the files resolving against the sibling's files this checkout does not hold
    again: set[str]
    #: what the graph's copy took and held back
    derived: Derived
    #: the store rows' copy (``copy_rows``), queued by ``settle``
    copy: Callable[[Held], None]


#: files to index: (path, file on disk)
Todo = list[tuple[str, Path]]


@dataclass(frozen=True, slots=True)
class Plan:
    """A new checkout's derivation, decided (``Deriver.plan``) and not yet taken."""

    source: RepoRuntime
    #: how many files the pass had to index
    files: int
    #: the files left to parse: those not equal to the sibling's
    rest: Todo
    #: path -> the sibling's file node of it, if any
    nodes: Mapping[str, FileNode | None]
    #: path -> (content hash, size) of the files equal to the sibling's
    equal: Mapping[str, Hashed]
    #: path -> (content hash, size) of the files of ``rest`` read and hashed meanwhile (those
    #: the sibling has another content of): the shared-parse lookup does not read them again
    hashed: Mapping[str, Hashed]
    #: when reading and hashing the files began
    started: float


class Deriver:
    """Derives new checkouts from their siblings (see the module docstring), on the indexer's
    thread (which owns every graph write and every resolver)."""

    def __init__(
        self,
        registry: RepoRegistry,
        state: GraphState,
        memory: Memory,
        bus: EventBus,
        store: Store,
        writer: StoreWriter,
        sink: DeltaSink,
        cfg: DaemonConfig,
        hand_over: Callable[[RepoRuntime], None],
    ) -> None:
        self._registry, self._state, self._memory, self._bus = registry, state, memory, bus
        self._store, self._writer, self._parses, self._queued = store, writer, sink.parses, sink.queued_parse
        self._max = cfg.max_file_size
        #: gives a checkout's resolver every file a warm restart read back (``Indexer._hand_over``)
        self._hand_over = hand_over
        #: checkout id -> its derivation, taken (``take``) until the pass is applied (``settle``)
        self._pending: dict[str, Pending] = {}
        #: checkout id -> its derivation's store writes that follow the pass's own (``finish``)
        self._after: dict[str, Callable[[], None]] = {}

    def plan(self, rt: RepoRuntime, todo: Todo, *, fresh: bool) -> Plan | None:
        """When ``fresh`` (the graph holds nothing of ``rt``, and the pass is neither forced
        nor limited to some paths) and a sibling has most of ``todo`` with the same content:
        the plan to take those files from it (``take``); None otherwise (``todo`` is parsed)."""
        source = source_of(self._registry, rt) if fresh and not rt.unhanded and todo else None
        if source is None:
            return None
        with self._state.reading() as graph:
            nodes = {rel: graph.files.get(file_id(source.id, rel)) for rel, _ in todo}
        started = time.monotonic()
        hashed = hashed_files(todo, {rel for rel, n in nodes.items() if n is not None}, self._max)
        equal = {rel: got for rel, got in hashed.items() if (n := nodes[rel]) is not None and n.content_hash == got[0]}
        if len(equal) < MIN_EQUAL_SHARE * len(todo):
            return None
        rest = [t for t in todo if t[0] not in equal]
        read = {rel: hashed[rel] for rel, _ in rest if rel in hashed}
        return Plan(source, len(todo), rest, nodes, equal, read, started)

    def take(self, rt: RepoRuntime, plan: Plan) -> GraphDelta:
        """Take ``plan``'s equal files from its sibling's graph and resolver (see the module
        docstring); returns the delta that says what was taken. ``plan.rest`` is parsed next
        (the workers may be parsing it already) and applied, then the pass calls ``settle``
        and, once the pass's own store writes are queued, ``finish``."""
        source, equal, nodes, t1 = plan.source, plan.equal, plan.nodes, time.monotonic()
        self._hand_over(source)  # (a warm restart's parses: its resolver must hold every file)
        paths = sorted(equal)
        differing = {rel for rel, _ in plan.rest}
        c0 = time.thread_time()
        again = rt.resolver.derive(source.resolver, paths, later=differing)
        c1 = time.thread_time()
        with self._state.writing() as graph:
            c2 = time.thread_time()
            derived = derive_files(graph, source.id, rt.id, paths, later=sorted(differing))
            c3 = time.thread_time()
            infos = {p: graph.file_symbols(rt.id, p) for p in paths}
            rt.n_files, rt.n_symbols = graph.counts(rt.id)
        errors = {p: fi.parsed.syntax_errors for p in paths if (fi := source.resolver.files.get(p)) is not None}
        files = {p: (n.language, n.content_hash, equal[p][1], errors.get(p, 0)) for p in paths if (n := nodes[p])}
        delta = derived_delta(rt.id, files, infos)
        t2, c4 = time.monotonic(), time.thread_time()
        self._memory.apply(delta, self._state, head_commit(rt.root), lambda ps: uncommitted_paths(rt.root, ps))
        heads = [CachedHead(p, size, rt.stats.get(p, (0, 0))[1], digest, PARSER_VERSION) for p, (digest, size) in
                 sorted(equal.items())]  # fmt: skip
        rt.derived_from = source.id
        store, parses, queued, src, rid = self._store, self._parses, self._queued, source.id, rt.id
        rename = derived.rename

        def copy(held: Held) -> None:
            copy_rows(store, parses, queued, src, rid, heads, rename, infos, held)

        self._pending[rid] = Pending(differing, again, derived, copy)
        for event in file_events(delta, time.time()):
            self._bus.publish(event)
        logger.info(
            "%s: %d of %d files derived from %s in %.2fs (reading and hashing %.2fs, the graph and resolver %.2fs: "
            "CPU resolver %.3f, graph %.3f, the rest %.3f; %d resolved again, %d edges into %d differing files held, "
            "memory %.2fs)",
            rt.id, len(paths), plan.files, source.id, time.monotonic() - plan.started, t1 - plan.started, t2 - t1,
            c1 - c0, c3 - c2, c4 - c3 + c2 - c1, len(again), len(derived.held), len(differing), time.monotonic() - t2,
        )  # fmt: skip
        rt.files_done += len(paths)
        return delta

    def settle(self, rt: RepoRuntime, delta: GraphDelta | None) -> None:
        """When ``rt``'s derived first pass is applied (``delta``: its differing files parsed
        and resolved with the files reading a name of them that changed): forget the sibling's
        version of a differing file that did not get parsed (unreadable, binary, too large: it
        is gone from this checkout), resolve again the files resolving against one the
        checkout does not hold, add the held-back edges into the differing files (those still
        there, from files not resolved again). Then queue the copy of the sibling's store rows,
        before the pass's own writes (which add the differing files); ``finish`` queues the
        rest after them. (Queued only now: on the store writer, they would compete with the
        parse of the differing files for the interpreter.)"""
        pending = self._pending.pop(rt.id, None)
        if pending is None:
            return
        rid, resolver = rt.id, rt.resolver
        put = {f.path for f in delta.changed} if delta is not None else set()
        gone = pending.differing - put
        for p in gone:
            resolver.remove_file(p)  # (the sibling's version, held by ``RepoResolver.derive``)
        resolved = put | set(delta.edge_sources if delta is not None else ())
        again = (pending.again | (resolver.dependents_of(gone) if gone else set())) - gone - resolved
        edges = resolver.edges_for(again)
        skip = {file_id(rid, p) for p in resolved | again}
        with self._state.writing() as graph:
            graph.set_edges([file_id(rid, p) for p in sorted(again)], edges)
            linked = link_held(graph, pending.derived.held, skip)
            into = pending.derived.into
            there = frozenset(b for b in into.values() if b in graph.symbols or b in graph.files)
        if gone:
            logger.info("%s: %d differing files not parsed; %d files resolved again", rid, len(gone), len(again))
        if pending.differing:
            logger.info("%s: %d differing files resolved with %d dependents; %d held edges into them linked", rid,
                        len(put), len(resolved - put), linked)  # fmt: skip
        held = Held(into, lambda a, b: b in there and a.partition("::")[0] not in skip)
        self._writer.submit(lambda: pending.copy(held))
        store, sources = self._store, sorted(again)

        def after() -> None:  # the differing files' rows are in by now: the edges into them
            if sources or held.edges.imports or held.edges.calls or held.edges.inherits:
                store.replace_files(rid, [], (), _merged(edges, held.edges), edge_sources=sources)

        self._after[rid] = after

    def finish(self, rt: RepoRuntime) -> None:
        """Queue the store writes of ``rt``'s derivation that follow its pass's own (``settle``)."""
        after = self._after.pop(rt.id, None)
        if after is not None:
            self._writer.submit(after)


def _merged(a: ResolvedEdges, b: ResolvedEdges) -> ResolvedEdges:
    """Both sets of edges, as one."""
    return ResolvedEdges(
        imports=(*a.imports, *b.imports),
        external_imports=(*a.external_imports, *b.external_imports),
        calls=(*a.calls, *b.calls),
        unresolved_calls=(*a.unresolved_calls, *b.unresolved_calls),
        inherits=(*a.inherits, *b.inherits),
        unresolved_inherits=(*a.unresolved_inherits, *b.unresolved_inherits),
    )
