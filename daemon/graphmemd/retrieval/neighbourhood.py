"""The code around some symbols or files as a graph (issue 44: the review page's picture).

A breadth-first walk from the centre over CALLS (both ways), INHERITS (both ways), IMPORTS
between files (both ways) and containment (each node's container: its class, or its file for
a top-level definition; a centre node's members too), nearest first, up to a node limit.
Edges are returned in their own direction, between the nodes returned, with the notes
anchored to each node. ``walk`` reads a ``GraphReader`` only (no lock, no I/O).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from graphmem.errors import InvalidArgument
from graphmem.types import EdgeKind, NeighbourEdge, Neighbourhood, NeighbourNode, ObservationStatus

from graphmemd.graph.model import file_id
from graphmemd.retrieval.readview import GraphReader, ReadView
from graphmemd.retrieval.symbols import resolve_ref

__all__ = ["DEFAULT_HOPS", "MAX_HOPS", "MAX_NODES", "neighbourhood", "walk"]

DEFAULT_HOPS = 2
MAX_HOPS = 4
DEFAULT_NODES = 300
MAX_NODES = 2000
#: the edge kinds drawn, in their own direction
_KINDS = (EdgeKind.CALLS, EdgeKind.INHERITS, EdgeKind.IMPORTS, EdgeKind.CONTAINS)
#: the notes a node shows: what a reviewer should see
_SHOWN = frozenset({ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT})


def _container(g: GraphReader, node: str) -> str | None:
    s = g.symbols.get(node)
    if s is None:
        return None
    if s.parent_id and s.parent_id in g.symbols:
        return s.parent_id
    return file_id(s.repo_id, s.path)


def _members(g: GraphReader, node: str) -> list[str]:
    s = g.symbols.get(node)
    if s is not None:
        return sorted(g.out(node, EdgeKind.CONTAINS))
    f = g.files.get(node)
    if f is None:
        return []
    return sorted(x.id for x in g.file_symbols(f.repo_id, f.path) if not x.parent_id)


def _adjacent(g: GraphReader, node: str, centre: bool) -> list[str]:
    """The neighbours of ``node`` the walk follows (sorted, so the walk is deterministic)."""
    out: set[str] = set()
    if node in g.symbols:
        for kind in (EdgeKind.CALLS, EdgeKind.INHERITS):
            out |= g.out(node, kind) | g.into(node, kind)
        parent = _container(g, node)
        if parent is not None:
            out.add(parent)
    elif node in g.files:
        out |= g.out(node, EdgeKind.IMPORTS) | g.into(node, EdgeKind.IMPORTS)
    if centre:
        out.update(_members(g, node))
    return sorted(n for n in out if n in g.symbols or n in g.files)


def walk(g: GraphReader, seeds: Sequence[str], hops: int, max_nodes: int) -> tuple[dict[str, int], bool]:
    """Node id → distance for every node within ``hops`` of ``seeds`` (nearest first, in
    insertion order), and whether ``max_nodes`` cut the walk."""
    dist: dict[str, int] = {}
    for s in seeds:
        dist.setdefault(s, 0)
    frontier = list(dist)
    for d in range(1, hops + 1):
        nxt: list[str] = []
        for n in frontier:
            for m in _adjacent(g, n, centre=d == 1):
                if m in dist:
                    continue
                if len(dist) >= max_nodes:
                    return dist, True
                dist[m] = d
                nxt.append(m)
        frontier = nxt
    return dist, False


def _edges(g: GraphReader, nodes: Iterable[str]) -> list[NeighbourEdge]:
    inside = set(nodes)
    edges: list[NeighbourEdge] = []
    for a in inside:
        for kind in _KINDS:
            for b in g.out(a, kind):
                if b in inside and b != a:
                    edges.append(NeighbourEdge(a, b, kind, g.confidence(a, kind, b)))
        s = g.symbols.get(a)
        if s is not None and not (s.parent_id and s.parent_id in g.symbols):
            f = file_id(s.repo_id, s.path)
            if f in inside:
                edges.append(NeighbourEdge(f, a, EdgeKind.CONTAINS))
    return sorted(set(edges), key=lambda e: (e.source, e.target, e.kind.value))


def neighbourhood(
    view: ReadView, refs: Sequence[str], *, repo: str = "", hops: int = 0, max_nodes: int = 0
) -> Neighbourhood:
    """The code within ``hops`` (0: 2) of ``refs`` (symbol refs or ids, file paths) as nodes
    and edges, at most ``max_nodes`` (0: 300) nodes, with the notes anchored to each."""
    if not refs:
        raise InvalidArgument("refs is required: the symbols or files at the centre")
    if hops > MAX_HOPS:
        raise InvalidArgument(f"hops must be at most {MAX_HOPS}, not {hops}")
    if max_nodes > MAX_NODES:
        raise InvalidArgument(f"max_nodes must be at most {MAX_NODES}, not {max_nodes}")
    with view.reading() as g:
        seeds = [resolve_ref(view, g, r, repo) for r in refs]
        dist, truncated = walk(g, seeds, hops or DEFAULT_HOPS, max_nodes or DEFAULT_NODES)
        edges = _edges(g, dist)
        rows: list[tuple[str, str, str, str, int, int, str]] = []
        for n in dist:
            s = g.symbols.get(n)
            if s is not None:
                rows.append((n, s.ref, s.kind.value, s.path, s.start_line, s.end_line, s.signature))
            else:
                f = g.files[n]
                rows.append((n, f.path, "file", f.path, 0, 0, ""))
    notes = view.anchored_in(dist)
    nodes = tuple(
        NeighbourNode(
            id=n,
            ref=ref,
            kind=kind,
            path=path,
            start_line=start,
            end_line=end,
            signature=sig,
            distance=dist[n],
            observations=tuple(sorted((o for o in notes.get(n, ()) if o.status in _SHOWN), key=lambda o: o.id)),
        )
        for n, ref, kind, path, start, end, sig in rows
    )
    return Neighbourhood(nodes=nodes, edges=tuple(edges), truncated=truncated)
