"""A checkout derived from a sibling checkout's equal files: the pure half.

Checkouts of one repository (worktrees) mostly hold the same files. A file whose content
equals the one a sibling checkout has indexed has the same parse, the same symbols and — as
long as the files it resolves against are equal too — the same edges; only the ids differ,
since an id begins with its checkout's (``model.symbol_id``). So a new checkout takes those
files from the sibling's graph with the ids renamed (``codegraph.derive_files``) instead of
handing every parse to its resolver and resolving it; the files that differ then go down
the ordinary incremental path (``indexing/derive.py``). Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from graphmemd.graph.delta import FileUpdate, GraphDelta
from graphmemd.graph.model import Language, ResolvedEdges, SymbolInfo

__all__ = ["derived_delta", "held_edges", "renamed_edges"]


def renamed_edges(edges: ResolvedEdges, rename: Mapping[str, str]) -> ResolvedEdges:
    """The edges of ``edges`` whose ends are all in ``rename`` (an edge's source, and its
    target when it is a node), with every node id renamed."""
    r = rename.__getitem__
    return ResolvedEdges(
        imports=tuple((r(a), r(b), c) for a, b, c in edges.imports if a in rename and b in rename),
        external_imports=tuple((r(a), name) for a, name in edges.external_imports if a in rename),
        calls=tuple((r(a), r(b), c) for a, b, c in edges.calls if a in rename and b in rename),
        unresolved_calls=tuple((r(a), text) for a, text in edges.unresolved_calls if a in rename),
        inherits=tuple((r(a), r(b), k, c) for a, b, k, c in edges.inherits if a in rename and b in rename),
        unresolved_inherits=tuple((r(a), text, k) for a, text, k in edges.unresolved_inherits if a in rename),
    )


def held_edges(
    edges: ResolvedEdges, rename: Mapping[str, str], into: Mapping[str, str], keep: Callable[[str, str], bool]
) -> ResolvedEdges:
    """The node-to-node edges of ``edges`` from a node of ``rename`` into a node of ``into`` (a
    file the new checkout holds another content of: ``codegraph.Derived.into``), both ends
    renamed, that ``keep`` (renamed source, renamed target) keeps."""

    def kept(a: str, b: str) -> bool:
        return a in rename and b in into and keep(rename[a], into[b])

    r, t = rename.__getitem__, into.__getitem__
    return ResolvedEdges(
        imports=tuple((r(a), t(b), c) for a, b, c in edges.imports if kept(a, b)),
        calls=tuple((r(a), t(b), c) for a, b, c in edges.calls if kept(a, b)),
        inherits=tuple((r(a), t(b), k, c) for a, b, k, c in edges.inherits if kept(a, b)),
    )


def derived_delta(
    repo_id: str, files: Mapping[str, tuple[Language, str, int, int]], symbols: Mapping[str, Sequence[SymbolInfo]]
) -> GraphDelta:
    """The cold delta that says a new checkout now holds ``files`` (path -> language, content
    hash, size, syntax errors) with ``symbols`` (path -> its symbols in the graph): what memory
    judges the checkout's notes on and the events list. Its edges are empty: the graph got
    them with the files (``codegraph.derive_files``)."""
    updates = tuple(
        FileUpdate(path, language, digest, size, errors, tuple(symbols.get(path, ())))
        for path, (language, digest, size, errors) in sorted(files.items())
    )
    return GraphDelta(repo_id, True, updates, (), (), ResolvedEdges(), ())
