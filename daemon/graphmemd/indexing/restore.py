"""Warm restart: a known repository read back from the store instead of parsed again.

A repository the daemon held when it last stopped cleanly comes back from its snapshot
(``graph_snapshot.py``): its share of the graph as it was, put back whole once every file's
content hash matches the store's, with the repository facts its edges were resolved with
(registering it walked no tree for them: ``RepoRuntime.facts_pending``; without a snapshot
the first job that may resolve reads them, ``ensure_facts``). Without one: every file's last parse is cached with the
size, mtime and content hash it was parsed at (``parse_pack.py``, ``parsecache.py``). When
the cache covers every stored file, from this parser version and with the stored content
hash, the files and symbols are rebuilt from it in memory (faster than reading their rows
back) and the edges are read from the store as last resolved. Otherwise the graph's rows are
read back. Either way nothing is resolved before the daemon answers: the cached parses that
are still good wait in ``RepoRuntime.unhanded`` until the indexer is next idle, which hands
them to the resolver, re-resolves every file and corrects the graph and the store where the
edges differ (``hand_over``; e.g. after an upgrade that resolves better). The index pass
that follows a restore parses only files whose size or mtime changed on disk since; files
whose cached parse was missing, unreadable or made by another parser are parsed again, and
that pass re-anchors observations instead of marking them stale (``RepoRuntime.rebase``).
A cached parse of other bytes than the store's (parses are cached while a pass or batch is
parsed, before its store write, so a crash can leave the cache ahead) is parsed again and
diffed like any change: it was made by this parser, so nothing is re-anchored.
"""

from __future__ import annotations

import logging
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from graphmem.types import IndexState

from graphmemd.graph.codegraph import FileNode, GraphPart
from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.model import ParsedFile, ResolvedEdges, SymbolInfo, file_id, symbols_of
from graphmemd.graph.sharing import shared_symbol
from graphmemd.indexing.knowledge import KnowledgeKeeper, take_back
from graphmemd.ingest import parsecache
from graphmemd.ingest.activity import Activity, Doing
from graphmemd.ingest.parse_pack import CachedHead, CachedParse, ParsePack
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.runtime.timing import Steps
from graphmemd.store.engine import Store
from graphmemd.store.graph_snapshot import Snapshots
from graphmemd.store.writer import StoreWriter

logger = logging.getLogger(__name__)

#: ``hand_over`` asks whether to stop after this many files
HAND_SLICE = 64


def restore(
    store: Store,
    parses: ParsePack,
    snapshots: Snapshots,
    state: GraphState,
    rt: RepoRuntime,
    knowledge: KnowledgeKeeper | None = None,
) -> None:
    """Read ``rt`` back into ``state`` and its resolver (see the module docstring), and into
    ``knowledge`` what its knowledge files were (``knowledge.take_back``)."""
    steps = Steps(cpu_clock=time.thread_time)
    rt.state, rt.activity = IndexState.WARMING, Activity(Doing.LOADING)
    taken = snapshots.take(rt.id)
    steps.mark("snapshot read")
    stored = store.file_hashes(rt.id)
    steps.mark("stored hashes")
    edges: ResolvedEdges | None = None
    unhanded: dict[str, str | CachedHead]
    if taken is not None and _matches(taken[0], stored):
        snapshot, facts = taken
        # the graph comes whole from the snapshot: only the files' size, mtime and hash are
        # needed now; the texts are read when the resolver gets them (``hand_over``)
        heads, unknown = _usable(parses.heads(rt.id), stored)
        steps.mark("parse heads")
        with state.writing() as graph:
            graph.import_repo(snapshot)
            rt.n_files, rt.n_symbols = graph.counts(rt.id)
            rt.n_edges, rt.edges_at = snapshot.edges, state.version
        # the facts the graph's edges were resolved with (no walk of the tree for them): the
        # pass's walk reads them again, and a change of them is then handled as any is
        rt.set_facts(facts)
        steps.mark("graph")
        unhanded = dict(heads)
        stats = {path: (head.size, head.mtime_ns) for path, head in heads.items()}
        how = "put back from its snapshot"
    else:
        rows, unknown = _usable(parses.load(rt.id), stored)
        outlines = _outlines(rt, rows)
        unknown += len(rows) - len(outlines)  # unreadable: nothing says which parser made them
        rows = {path: rows[path] for path in outlines}
        if stored and len(outlines) == len(stored):
            edges = store.load_resolved_edges(rt.id)
            with state.writing() as graph:
                graph.load_files(
                    (FileNode(rt.id, path, parsed.language, rows[path].content_hash), symbols_of(rt.id, parsed))
                    for path, parsed in sorted(outlines.items())
                )
                graph.set_edges([file_id(rt.id, p) for p in sorted(outlines)], edges)
                rt.n_files, rt.n_symbols = graph.counts(rt.id)
            how = "rebuilt from its cached parses and stored edges"
        else:
            edges = load_graph(store, state, rt)
            how = f"read back; {len(outlines)} of {len(stored)} files from their cached parse"
        unhanded = {path: row.data for path, row in rows.items()}
        stats = {path: (row.size, row.mtime_ns) for path, row in rows.items()}
    # the resolver gets the parses (and re-resolves) when the indexer is next idle: hand_over
    rt.unhanded = unhanded
    rt.stored_edges = edges  # None: hand_over reads them from the store
    rt.stats.update(stats)
    rt.rebase = unknown > 0
    if knowledge is not None:  # (the first pass then reads only the files that changed meanwhile)
        why = take_back(knowledge, rt, snapshots.take_knowledge(rt.id))
        logger.info("%s: knowledge files %s", rt.id, f"read again ({why})" if why else "as left")
    steps.mark("finish")
    logger.info("warmed %s in %.2fs: %s (%s; %.2f CPU-s)", rt.id, steps.total, how, steps, steps.cpu)


_Cached = TypeVar("_Cached", CachedParse, CachedHead)


def _usable(cached: list[_Cached], stored: dict[str, str]) -> tuple[dict[str, _Cached], int]:
    """The cached parses made by this parser of the bytes the store has, by path; and how
    many stored files have none made by this parser. A parse of other bytes than the
    store's (cached ahead of a store write a crash cut short, or behind one) is not used,
    but was made by this parser: that file is parsed again and diffed like any change; only
    a parse that is missing or from another parser makes the pass re-anchor (``rebase``)."""
    ours = {row.path: row for row in cached if row.version == parsecache.PARSER_VERSION}
    unknown = sum(1 for path in stored if path not in ours)
    return {path: row for path, row in ours.items() if stored.get(path) == row.content_hash}, unknown


def _matches(snapshot: GraphPart, stored: dict[str, str]) -> bool:
    """Whether a snapshot holds exactly the files the store has, at the same content."""
    held = {n.path: n.content_hash for n in snapshot.files.values()}
    if held == stored:
        return True
    logger.warning("snapshot of %s not used: it differs from the store", snapshot.repo_id)
    return False


def _outlines(rt: RepoRuntime, rows: dict[str, CachedParse]) -> dict[str, ParsedFile]:
    """The symbols of each cached parse (``parsecache.decode(outline=True)``), without the
    ones that cannot be decoded (those files are parsed again)."""
    out: dict[str, ParsedFile] = {}
    for path, row in rows.items():
        try:
            out[path] = parsecache.decode(row.data, outline=True)
        except ValueError as exc:
            logger.warning("cached parse of %s/%s unreadable (%s): parsing it again", rt.id, path, exc)
    return out


def load_graph(store: Store, state: GraphState, rt: RepoRuntime) -> ResolvedEdges:
    """Read a known repository's graph rows back from the store into ``state``; returns its
    resolved edges."""
    files, symbols, stored = store.load_repo_graph(rt.id)
    by_path: dict[str, list[SymbolInfo]] = {}
    for s in symbols:
        by_path.setdefault(s.path, []).append(s)
    with state.writing() as graph:
        for f in files:
            graph.put_file(FileNode(rt.id, f.path, f.language, f.content_hash), by_path.get(f.path, []))
        graph.set_edges([file_id(rt.id, f.path) for f in files], stored.edges)
        rt.n_files, rt.n_symbols = graph.counts(rt.id)
    logger.info("loaded %s from the store: %d files, %d symbols", rt.id, len(files), len(symbols))
    return stored.edges


def same_edges(a: ResolvedEdges, b: ResolvedEdges) -> bool:
    """Whether two resolutions give the graph the same edges (as multisets, any order)."""
    return all(Counter(getattr(a, name)) == Counter(getattr(b, name)) for name in _GRAPH_EDGE_FIELDS)


_GRAPH_EDGE_FIELDS = ("imports", "external_imports", "calls", "unresolved_calls", "inherits")


def hand_over(
    rt: RepoRuntime,
    state: GraphState,
    store: Store,
    writer: StoreWriter,
    parses: ParsePack,
    stop: Callable[[], bool] | None = None,
) -> list[str]:
    """The second half of a warm restart, on the indexer thread before anything is resolved:
    give the resolver the parses ``restore`` read back (reading their texts from ``parses``
    now where it read only their heads), re-resolve every file it holds, and where the edges
    differ from the stored ones (a resolver that changed with an upgrade), put the new ones
    into the graph and the store. ``stop`` is asked every ``HAND_SLICE`` files: when it says
    so (the daemon is stopping), the parses not handed yet wait in ``rt.unhanded`` for the
    next call. Returns the files whose cached parse turned out damaged: they are to be
    parsed again (their size and mtime are forgotten)."""
    started, handed = time.time(), 0
    damaged: list[str] = []
    for path in list(rt.unhanded):
        if stop is not None and handed % HAND_SLICE == 0 and stop():
            return damaged
        item = rt.unhanded.pop(path)
        handed += 1
        try:
            text = item if isinstance(item, str) else parses.text(rt.id, item)
            if text is None:  # parsed again or removed since the restore: the pass that did it has it
                continue
            with state.reading() as graph:
                infos = graph.file_symbols(rt.id, path)
            rt.resolver.set_file(decode_sharing(text, infos), frozen=True)
        except ValueError as exc:
            logger.error("cached parse of %s/%s unreadable (%s): parsing it again", rt.id, path, exc)
            rt.stats.pop(path, None)
            damaged.append(path)
    if not handed:
        return damaged
    if damaged:  # the resolver misses those files: its edges would lack theirs and their callers'
        logger.info("%s: edges kept as stored until the damaged cached parses are parsed again", rt.id)
        rt.stored_edges = None
        return damaged
    stored, rt.stored_edges = rt.stored_edges, None
    if stored is None:  # put back from a snapshot: compare with what the store has
        stored = store.load_resolved_edges(rt.id)
        writer.submit(store.recycle_if_due)  # the reopen that bulk read asked for, now
    edges = rt.resolver.all_edges()
    same = same_edges(edges, stored)
    if not same:
        replace_all_edges(rt, edges, state, store, writer)
    logger.info(
        "%s: the last %d cached parses handed to the resolver in %.2fs; %s",
        rt.id,
        handed,
        time.time() - started,
        "edges as stored" if same else "edges differed from the stored ones and were replaced",
    )
    return damaged


def decode_sharing(text: str, infos: Sequence[SymbolInfo]) -> ParsedFile:
    """The parse encoded in ``text`` (``parsecache.decode``), holding the graph's own string
    objects where they equal those of ``infos`` (the graph's symbols of the same file).

    After a restart the graph's strings come from its snapshot and the parse's from its
    cached text: equal but separate copies, and the resolver keeps the parse for as long as
    the graph keeps the symbols (~35 MB at 0.9 M lines). Names, qualified names and the
    ids the resolver derives are interned: ``infos``' are interned first, so that decoding
    returns those; signatures and hashes are swapped in after."""
    for i in infos:
        sys.intern(i.id)
        sys.intern(i.name)
        sys.intern(i.qualname)
    parsed = parsecache.decode(text)
    symbols = parsed.symbols
    if len(symbols) != len(infos) or any(s.qualname != i.qualname for s, i in zip(symbols, infos, strict=True)):
        return parsed  # not the parse the graph was built from
    shared = tuple(shared_symbol(s, i) for s, i in zip(symbols, infos, strict=True))
    return replace(parsed, symbols=shared)


def replace_all_edges(
    rt: RepoRuntime, edges: ResolvedEdges, state: GraphState, store: Store, writer: StoreWriter
) -> None:
    """Put ``edges`` (a re-resolution of every file the resolver holds) into the graph, and
    queue the same for the store."""
    paths = sorted(rt.resolver.paths())
    with state.writing() as graph:
        graph.set_edges([file_id(rt.id, p) for p in paths], edges)
        rt.n_edges, rt.edges_at = graph.edge_count(rt.id), state.version
    rid = rt.id
    writer.submit(lambda: store.replace_files(rid, [], (), edges, edge_sources=paths))
