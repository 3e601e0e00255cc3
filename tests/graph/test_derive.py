"""A checkout derived from a sibling's equal files (``codegraph.derive_files``,
``graph/derive.py``) holds exactly what building it on its own would hold, and the sibling
keeps what it had."""

from __future__ import annotations

from graphmemd.graph.codegraph import CodeGraph, FileNode, derive_files
from graphmemd.graph.derive import derived_delta, renamed_edges
from graphmemd.graph.model import (
    Confidence,
    InheritKind,
    Language,
    ResolvedEdges,
    SymbolInfo,
    SymbolKind,
    file_id,
    symbol_id,
)

#: path -> (qualname, kind, parent qualname)
FILES = {
    "pkg/base.py": [("Base", SymbolKind.CLASS, None), ("Base.run", SymbolKind.METHOD, "Base")],
    "pkg/impl.py": [("Impl", SymbolKind.CLASS, None), ("Impl.run", SymbolKind.METHOD, "Impl"),
                    ("helper", SymbolKind.FUNCTION, None)],
    "pkg/only_a.py": [("extra", SymbolKind.FUNCTION, None)],
}  # fmt: skip


def symbols(repo: str, path: str) -> list[SymbolInfo]:
    kinds = {q: k for q, k, _ in FILES[path]}
    return [
        SymbolInfo(symbol_id(repo, path, q, k), repo, path, q.rsplit(".", 1)[-1], q, k, Language.PYTHON,
                   symbol_id(repo, path, parent, kinds[parent]) if parent else None, 1, 3, f"sig {q}", "s", "b")
        for q, k, parent in FILES[path]
    ]  # fmt: skip


def edges(repo: str) -> ResolvedEdges:
    def s(path: str, q: str, k: SymbolKind) -> str:
        return symbol_id(repo, path, q, k)

    base, impl, extra = "pkg/base.py", "pkg/impl.py", "pkg/only_a.py"
    return ResolvedEdges(
        imports=((file_id(repo, impl), file_id(repo, base), Confidence.IMPORT),
                 (file_id(repo, impl), file_id(repo, extra), Confidence.IMPORT)),
        external_imports=((file_id(repo, impl), "os"),),
        calls=((s(impl, "Impl.run", SymbolKind.METHOD), s(impl, "helper", SymbolKind.FUNCTION), Confidence.SAME_MODULE),
               (s(impl, "helper", SymbolKind.FUNCTION), s(base, "Base.run", SymbolKind.METHOD), Confidence.IMPORT),
               (s(impl, "helper", SymbolKind.FUNCTION), s(extra, "extra", SymbolKind.FUNCTION), Confidence.IMPORT)),
        unresolved_calls=((s(impl, "helper", SymbolKind.FUNCTION), "os.getcwd"),),
        inherits=((s(impl, "Impl", SymbolKind.CLASS), s(base, "Base", SymbolKind.CLASS), InheritKind.INHERITS,
                   Confidence.IMPORT),),
        unresolved_inherits=((s(impl, "Impl", SymbolKind.CLASS), "Protocol", InheritKind.INHERITS),),
    )  # fmt: skip


def build(g: CodeGraph, repo: str, paths: list[str], with_edges: ResolvedEdges) -> None:
    for p in paths:
        g.put_file(FileNode(repo, p, Language.PYTHON, f"hash-{p}"), symbols(repo, p))
    g.set_edges([file_id(repo, p) for p in paths], with_edges)


def view(g: CodeGraph, repo: str) -> dict[str, object]:
    """Everything ``repo`` holds in ``g``, comparable between two graphs."""
    part = g.export_repo(repo)  # (of a graph holding one repository: its very dicts, so copied)
    mine = f"{repo}:"
    return {
        "files": {
            k: FileNode(**{f: getattr(n, f) for f in n.__slots__}) for k, n in part.files.items() if k.startswith(mine)
        },
        "symbols": {k: s for k, s in part.symbols.items() if k.startswith(mine)},
        "out": {k: dict(v) for k, v in part.out.items() if k.startswith(mine)},
        "in": {k: dict(v) for k, v in part.inn.items() if k.startswith(mine)},
        "unresolved": {k: list(v) for k, v in part.unresolved.items() if k.startswith(mine)},
        "names": {
            n: {i for i in ({got} if isinstance(got, str) else got) if i.startswith(mine)}
            for n, got in part.names.items()
        },
        # (ids only: BM25 weighs a word by every checkout's documents)
        "search": [sorted(i for i, _ in g.search_symbols(q, 10, repo)) for q in ("run", "impl helper", "base")],
        "edges": g.edge_count(repo),
        "counts": g.counts(repo),
    }


def test_a_derived_checkout_holds_what_building_it_holds() -> None:
    paths = ["pkg/base.py", "pkg/impl.py"]
    alone = CodeGraph()
    b_edges = edges("b")
    kept = ResolvedEdges(
        imports=b_edges.imports[:1],
        external_imports=b_edges.external_imports,
        calls=b_edges.calls[:2],
        unresolved_calls=b_edges.unresolved_calls,
        inherits=b_edges.inherits,
    )  # B has no pkg/only_a.py: nothing points there
    build(alone, "b", paths, kept)

    g = CodeGraph()
    build(g, "a", [*paths, "pkg/only_a.py"], edges("a"))
    before = view(g, "a")
    rename = derive_files(g, "a", "b", paths).rename
    assert view(g, "a") == before
    assert view(g, "b") == view(alone, "b")
    assert set(rename) == {file_id("a", p) for p in paths} | {s.id for p in paths for s in symbols("a", p)}
    assert all(new.startswith("b:") and new[2:] == old[2:] for old, new in rename.items())

    # the sibling's edges renamed: only those between the derived files, as the store gets them
    got = renamed_edges(edges("a"), rename)
    assert got == ResolvedEdges(
        imports=b_edges.imports[:1],
        external_imports=b_edges.external_imports,
        calls=b_edges.calls[:2],
        unresolved_calls=b_edges.unresolved_calls,
        inherits=b_edges.inherits,
        unresolved_inherits=b_edges.unresolved_inherits,
    )

    # then each changes on its own: A's edges re-resolved leave B's (the lists of unresolved
    # calls are shared until then), a file removed from B leaves A whole
    helper = symbol_id("a", "pkg/impl.py", "helper", SymbolKind.FUNCTION)
    b_view = view(g, "b")
    g.set_edges([file_id("a", "pkg/impl.py")], ResolvedEdges(unresolved_calls=((helper, "sys.exit"),)))
    assert g.unresolved(helper) == ["sys.exit"]
    assert view(g, "b") == b_view
    g.set_edges([file_id("a", "pkg/impl.py")], edges("a"))
    assert view(g, "a") == before
    g.remove_file("b", "pkg/base.py")
    assert view(g, "a") == before
    assert not g.file_symbols("b", "pkg/base.py")
    assert g.search_symbols("base", 10, "b") == []
    assert g.search_symbols("base", 10, "a")


def test_derived_delta_lists_the_files_cold() -> None:
    infos = {"pkg/base.py": symbols("b", "pkg/base.py")}
    delta = derived_delta("b", {"pkg/base.py": (Language.PYTHON, "h", 10, 0)}, infos)
    assert delta.cold
    assert delta.repo_id == "b"
    assert not delta.removed
    assert not delta.changes
    (f,) = delta.changed
    assert (f.path, f.content_hash, f.size, f.symbols) == ("pkg/base.py", "h", 10, tuple(infos["pkg/base.py"]))
