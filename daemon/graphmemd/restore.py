"""Warm restart: a known repository read back from the store instead of parsed again.

The graph (files, symbols, edges) and the last parse of every file (``parsecache.py``) with
the size and mtime it was parsed at go back into memory, so the index pass that follows
parses only files changed on disk since. Files whose cached parse is missing, unreadable or
made by another parser are parsed again, and that pass re-anchors observations instead of
marking them stale (``RepoRuntime.rebase``).
"""

from __future__ import annotations

import logging
import time

from graphmem.types import IndexState

from graphmemd import parsecache
from graphmemd.codegraph import FileNode
from graphmemd.graphstate import GraphState
from graphmemd.model import SymbolInfo, file_id
from graphmemd.registry import RepoRuntime
from graphmemd.store import Store

logger = logging.getLogger(__name__)


def restore(store: Store, state: GraphState, rt: RepoRuntime) -> None:
    """Read ``rt`` back: its graph into ``state``, its cached parses into its resolver."""
    started = time.time()
    rt.state = IndexState.INDEXING
    load_graph(store, state, rt)
    with state.reading() as graph:
        known = {n.path for n in graph.repo_files(rt.id)}
    valid = 0
    for path, size, mtime, version, data in store.load_parses(rt.id):
        if version != parsecache.PARSER_VERSION or path not in known:
            continue
        try:
            parsed = parsecache.decode(data)
        except ValueError as exc:
            logger.warning("cached parse of %s/%s unreadable (%s): parsing it again", rt.id, path, exc)
            continue
        rt.resolver.set_file(parsed)
        rt.stats[path] = (size, mtime)
        valid += 1
    rt.rebase = valid < len(known)
    logger.info(
        "warmed %s in %.2fs: %d of %d files from their cached parse", rt.id, time.time() - started, valid, len(known)
    )


def load_graph(store: Store, state: GraphState, rt: RepoRuntime) -> None:
    """Read a known repository's graph back from the store into ``state``."""
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
