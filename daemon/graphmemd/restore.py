"""Warm restart: a known repository read back from the store instead of parsed again.

Every file's last parse is cached in the store with the size, mtime and content hash it was
parsed at (``parsecache.py``). When the cache covers every stored file, from this parser
version and with the stored content hash, the graph is rebuilt from it in memory (the same
pure core as a first index: ``delta.build_delta``), which is faster than reading the graph's
rows back. Otherwise the graph's rows are read back and the cached parses that are still
good go to the resolver. Either way the index pass that follows parses only files whose
size or mtime changed on disk since; files whose cached parse was missing, unreadable or
made by another parser are parsed again, and that pass re-anchors observations instead of
marking them stale (``RepoRuntime.rebase``).
"""

from __future__ import annotations

import logging
import time

from graphmem.types import IndexState

from graphmemd import parsecache
from graphmemd.codegraph import FileNode
from graphmemd.delta import ParsedUnit, apply_delta, build_delta
from graphmemd.graphstate import GraphState
from graphmemd.model import ParsedFile, SymbolInfo, file_id
from graphmemd.registry import RepoRuntime
from graphmemd.store import CachedParse, Store

logger = logging.getLogger(__name__)


def restore(store: Store, state: GraphState, rt: RepoRuntime) -> None:
    """Read ``rt`` back into ``state`` and its resolver (see the module docstring)."""
    started = time.time()
    rt.state = IndexState.WARMING
    stored = store.file_hashes(rt.id)
    cached: dict[str, tuple[CachedParse, ParsedFile]] = {}
    for row in store.load_parses(rt.id):
        if row.version != parsecache.PARSER_VERSION or stored.get(row.path) != row.content_hash:
            continue
        try:
            cached[row.path] = (row, parsecache.decode(row.data))
        except ValueError as exc:
            logger.warning("cached parse of %s/%s unreadable (%s): parsing it again", rt.id, row.path, exc)
    if stored and len(cached) == len(stored):
        units = {p: ParsedUnit(parsed, row.content_hash, row.size) for p, (row, parsed) in cached.items()}
        delta = build_delta(rt.id, {}, units, (), rt.resolver, cold=True)
        with state.writing() as graph:
            apply_delta(graph, delta)
            rt.n_files, rt.n_symbols = graph.counts(rt.id)
        how = "rebuilt from its cached parses"
    else:
        load_graph(store, state, rt)
        for _row, parsed in cached.values():
            rt.resolver.set_file(parsed)
        how = f"read back; {len(cached)} of {len(stored)} files from their cached parse"
    for path, (row, _parsed) in cached.items():
        rt.stats[path] = (row.size, row.mtime_ns)
    rt.rebase = len(cached) < len(stored)
    logger.info("warmed %s in %.2fs: %s", rt.id, time.time() - started, how)


def load_graph(store: Store, state: GraphState, rt: RepoRuntime) -> None:
    """Read a known repository's graph rows back from the store into ``state``."""
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
