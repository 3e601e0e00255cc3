"""The in-memory code graph's adjacency never disagrees with its edges."""

from __future__ import annotations

from graphmem.types import EdgeKind
from graphmemd.graph.codegraph import KIND_ORDER, CodeGraph, FileNode
from graphmemd.graph.model import (
    Confidence,
    Language,
    ResolvedEdges,
    SymbolInfo,
    SymbolKind,
    file_id,
    symbol_id,
    symbols_of,
)

REPO = "r"


IMPORT = Confidence.IMPORT


def _sym(path: str, qualname: str, parent: str | None = None) -> SymbolInfo:
    return SymbolInfo(
        id=symbol_id(REPO, path, qualname, SymbolKind.FUNCTION),
        repo_id=REPO,
        path=path,
        name=qualname.rsplit(".", 1)[-1],
        qualname=qualname,
        kind=SymbolKind.FUNCTION,
        language=Language.PYTHON,
        parent_id=parent,
        start_line=1,
        end_line=2,
        signature=f"def {qualname}()",
        sig_hash="s",
        body_hash="b",
    )


def _put(g: CodeGraph, path: str, *names: str) -> list[SymbolInfo]:
    syms = [_sym(path, n) for n in names]
    g.put_file(FileNode(REPO, path, Language.PYTHON, "h"), syms)
    return syms


def _truth(g: CodeGraph, node: str) -> set[tuple[int, EdgeKind, str]]:
    return {(KIND_ORDER[k], k, o) for k, o in g.neighbors(node)}


def _check(g: CodeGraph) -> None:
    for node in [*g.files, *g.symbols]:
        assert {a[:3] for a in g.adjacency(node)} == _truth(g, node), node
        for _order, kind, other, conf in g.adjacency(node):
            assert conf == g.confidence(node, kind, other), (node, kind, other)


def test_adjacency_follows_every_kind_of_change() -> None:
    g = CodeGraph()
    (a,) = _put(g, "a.py", "f")
    (b,) = _put(g, "b.py", "g")
    fa, fb = file_id(REPO, "a.py"), file_id(REPO, "b.py")
    _check(g)  # fills the cache
    g.set_edges([fa], ResolvedEdges(calls=((a.id, b.id, IMPORT),), imports=((fa, fb, IMPORT),)))
    assert (KIND_ORDER[EdgeKind.CALLED_BY], EdgeKind.CALLED_BY, a.id) in {x[:3] for x in g.adjacency(b.id)}
    _check(g)
    g.set_edges([fa], ResolvedEdges())  # edges replaced: the callee forgets its caller
    assert all(o != a.id for _, _, o, _ in g.adjacency(b.id))
    _check(g)
    g.set_edges([fa], ResolvedEdges(calls=((a.id, b.id, IMPORT),)))
    _check(g)
    g.put_file(FileNode(REPO, "b.py", Language.PYTHON, "h2"), [_sym("b.py", "h")])  # g removed
    assert all(o != b.id for _, _, o, _ in g.adjacency(a.id))
    _check(g)
    g.remove_file(REPO, "a.py")
    assert g.adjacency(a.id) == ()
    _check(g)


def test_degree_counts_what_adjacency_lists() -> None:
    g = CodeGraph()
    syms = _put(g, "a.py", *(f"f{i}" for i in range(10)))
    (other,) = _put(g, "b.py", "g")
    fa = file_id(REPO, "a.py")
    g.set_edges([fa], ResolvedEdges(calls=((syms[0].id, syms[1].id, IMPORT), (syms[0].id, other.id, IMPORT))))
    for node in [*g.files, *g.symbols]:
        assert g.degree(node) == len(g.adjacency(node)), node
        # counted up to a cap (retrieval's centrality needs no more): the degree capped
        for cap in (1, 2, 3, 4, 9, 10, 11, 64):
            assert g.degree(node, cap) == min(g.degree(node), cap), (node, cap)
            # the walk's view: the edges, or None past the cap (a hub it does not go through)
            within = g.adjacency_within(node, cap)
            assert within == (g.adjacency(node) if g.degree(node) <= cap else None), (node, cap)
    assert g.degree(fa) == 10  # DEFINES
    assert g.degree(syms[0].id) == 3  # DEFINED_IN and two CALLS


def test_edges_keep_how_they_were_resolved() -> None:
    g = CodeGraph()
    (a,) = _put(g, "a.py", "f")
    (b,) = _put(g, "b.py", "g")
    fa, fb = file_id(REPO, "a.py"), file_id(REPO, "b.py")
    guess = Confidence.NAME_ONLY
    g.set_edges([fa], ResolvedEdges(calls=((a.id, b.id, guess),), imports=((fa, fb, IMPORT),)))
    assert g.confidence(a.id, EdgeKind.CALLS, b.id) is guess
    assert g.confidence(b.id, EdgeKind.CALLED_BY, a.id) is guess  # walked backwards
    assert g.confidence(fb, EdgeKind.IMPORTED_BY, fa) is IMPORT
    assert g.confidence(fa, EdgeKind.DEFINES, a.id) is None  # structural: no confidence
    assert g.confidence(a.id, EdgeKind.CALLS, fa) is None  # no such edge
    assert not guess.certain


def test_load_files_builds_what_put_file_builds() -> None:
    """The bulk insert of a warm restart and one put_file per file give the same graph."""
    from graphmemd.ingest.parsing.parser import parse_source

    sources = {
        "a.py": b"class A:\n    def f(self):\n        pass\n    def f(self):\n        pass\n\ndef g():\n    pass\n",
        "b.py": b"from a import A\n\nclass B(A):\n    def h(self):\n        return g()\n",
    }
    items = []
    for path, src in sources.items():
        parsed = parse_source(path, src)
        items.append((parsed, symbols_of("r", parsed)))
    one, bulk = CodeGraph(), CodeGraph()
    for parsed, syms in items:
        one.put_file(FileNode("r", parsed.path, parsed.language, "h"), syms)
    bulk.load_files((FileNode("r", p.path, p.language, "h"), syms) for p, syms in items)
    assert bulk.files.keys() == one.files.keys()
    assert bulk.symbols == one.symbols
    for node in [*one.files, *one.symbols]:
        assert bulk.adjacency(node) == one.adjacency(node)
    assert bulk.search_symbols("f", 10) == one.search_symbols("f", 10)


def test_two_kinds_between_one_pair_are_kept_apart() -> None:
    """A method that calls its nested function holds CONTAINS and CALLS to it (one packed
    entry): replacing the calls keeps the containment, and removing the file leaves no
    empty neighbour entries behind."""
    g = CodeGraph()
    outer = _sym("a.py", "f")
    inner = _sym("a.py", "f.g", parent=outer.id)
    g.put_file(FileNode(REPO, "a.py", Language.PYTHON, "h"), [outer, inner])
    fa = file_id(REPO, "a.py")
    guess = Confidence.NAME_ONLY
    g.set_edges([fa], ResolvedEdges(calls=((outer.id, inner.id, guess),)))
    assert g.out(outer.id, EdgeKind.CALLS) == g.out(outer.id, EdgeKind.CONTAINS) == {inner.id}
    assert g.into(inner.id, EdgeKind.CALLS) == g.into(inner.id, EdgeKind.CONTAINS) == {outer.id}
    assert g.confidence(outer.id, EdgeKind.CALLS, inner.id) is guess
    assert g.confidence(inner.id, EdgeKind.CONTAINED_IN, outer.id) is None
    assert g.edge_count(REPO) == 4  # DEFINES x2, CONTAINS, CALLS
    _check(g)
    g.set_edges([fa], ResolvedEdges())
    assert g.out(outer.id, EdgeKind.CALLS) == set()
    assert g.out(outer.id, EdgeKind.CONTAINS) == {inner.id}
    assert g.into(inner.id, EdgeKind.CALLS) == set()
    assert g.edge_count(REPO) == 3
    _check(g)
    g.remove_file(REPO, "a.py")
    assert g.edge_count() == 0
    assert not g._out  # no empty entries kept
    assert not g._in

