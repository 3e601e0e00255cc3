"""A resolver derived from a sibling checkout's (``RepoResolver.derive``, ``FileIndex.renamed``)
is the resolver a checkout of those files would have built on its own: on the resolution
fixtures of six languages, with the file most others depend on left out (as a branch
worktree that deleted it), its edges — the sibling's, renamed, for the files the removal
does not reach, and a resolution of the ones it does — are a lone resolver's; what a later
change reaches (``dependents_of``) is the same; its statistics are the same; and nothing
done to it changes the sibling's answers. Pure: real parses, no threads, no files written."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphmemd.graph.model import ResolvedEdges
from graphmemd.graph.resolution import RepoResolver, facts_from_files
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.parsing.parser import parse_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"
NAMES = ("res_py_src", "res_py_flow", "res_go_pkgs", "res_ts_paths", "res_rust_ws", "res_java_overloads", "python")

Edges = dict[str, set[tuple[object, ...]]]


def built(name: str, rid: str, leave_out: frozenset[str] = frozenset()) -> tuple[RepoResolver, ResolvedEdges]:
    """A resolver of the fixture ``name`` as checkout ``rid``, every file resolved."""
    root = FIXTURES / name
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and language_for_path(p.name))
    r = RepoResolver(rid, facts_from_files(root, paths))
    for p in paths:
        if p not in leave_out:
            r.set_file(parse_source(p, (root / p).read_bytes()))
    return r, r.all_edges()


def as_sets(edges: ResolvedEdges) -> Edges:
    return {f: set(getattr(edges, f)) for f in ResolvedEdges.__dataclass_fields__}


def source_path(rid: str, node: object) -> str:
    return str(node).removeprefix(f"{rid}:").split("::", 1)[0]


def renamed(edges: ResolvedEdges, frm: str, to: str, sources: set[str]) -> Edges:
    """``edges`` of the files ``sources``, every id moved from checkout ``frm`` to ``to``."""

    def rn(x: object) -> object:
        return f"{to}:{x[len(frm) + 1 :]}" if isinstance(x, str) and x.startswith(f"{frm}:") else x

    return {
        f: {tuple(rn(x) for x in t) for t in ts if source_path(frm, t[0]) in sources}
        for f, ts in as_sets(edges).items()
    }


@pytest.mark.parametrize("name", NAMES)
def test_a_derived_resolver_is_the_one_built_alone(name: str) -> None:
    a, a_edges = built(name, "fx")
    a_stats = a.stats()
    reach = {p: len(a.dependents_of({p})) for p in sorted(a.files)}
    gone, then = sorted(reach, key=lambda p: (-reach[p], p))[:2]
    assert reach[gone] > 0, name  # the fixture's files depend on each other

    b = RepoResolver("wt", a.facts)
    kept = set(a.files) - {gone}
    dependents = b.derive(a, kept)
    assert dependents, name
    b_dep_edges = as_sets(b.edges_for(dependents))
    alone, alone_edges = built(name, "wt", frozenset({gone}))

    # the graph's edges: the sibling's renamed for the files the removal does not reach, plus the resolution of the rest
    got = renamed(a_edges, "fx", "wt", kept - dependents)
    for f, ts in b_dep_edges.items():
        got[f] |= ts
    assert got == as_sets(alone_edges), name
    assert b.stats() == alone.stats()
    assert set(b.files) == set(alone.files)
    assert all(b.files[p].sids == alone.files[p].sids for p in b.files)

    # a later change reaches the same files; re-resolving every file gives the same edges
    assert b.dependents_of({then}) == alone.dependents_of({then}), name
    b.remove_file(then)
    alone.remove_file(then)
    assert b.dependents_of({then}) == alone.dependents_of({then}), name
    assert as_sets(b.all_edges()) == as_sets(alone.all_edges())

    # the sibling: untouched by all of it
    assert as_sets(a.all_edges()) == as_sets(a_edges)
    assert a.stats() == a_stats
    assert gone in a.files
    assert then in a.files
    assert all(fi.fid.startswith("fx:") for fi in a.files.values())


def test_a_resolver_that_holds_files_is_not_derived() -> None:
    a, _ = built("res_py_src", "fx")
    b, _ = built("res_py_src", "wt")
    with pytest.raises(ValueError, match="holds files"):
        b.derive(a, a.files)


def test_a_derived_copy_of_a_derived_copy_renames_from_the_original() -> None:
    """A worktree derived from a derived worktree (its compact calls still the first
    checkout's bytes) names its own ids."""
    a, _ = built("res_py_src", "fx")
    b = RepoResolver("wt", a.facts)
    b.derive(a, a.files)
    c = RepoResolver("wt2", a.facts)
    c.derive(b, b.files)
    edges = as_sets(c.all_edges())
    ids = {x for ts in edges.values() for t in ts for x in t if isinstance(x, str) and ":" in x and "::" in x}
    assert ids
    assert all(x.startswith("wt2:") for x in ids)
    _alone, alone_edges = built("res_py_src", "wt2")
    assert edges == as_sets(alone_edges)


@pytest.mark.parametrize("name", NAMES)
def test_a_file_set_again_right_after_reaches_its_dependents_then(name: str) -> None:
    """``later``: a differing file removed by the derivation and set again by the pass that
    follows; its dependents are resolved then (``dependents_of`` still finds them), not twice.
    (Not narrowed here: set again with the same content, no name of it changed, so a narrowed
    ``dependents_of`` rightly finds none; the narrowed case is in ``test_dependents_narrowed``.)"""
    a, a_edges = built(name, "fx")
    reach = {p: len(a.dependents_of({p})) for p in sorted(a.files)}
    back = min(reach, key=lambda p: (-reach[p], p))
    b = RepoResolver("wt", a.facts)
    b.narrow = False
    assert b.derive(a, set(a.files) - {back}, later={back}) == set()
    root = FIXTURES / name
    b.set_file(parse_source(back, (root / back).read_bytes()))
    again = b.dependents_of({back}) - {back}
    assert again, name
    got = renamed(a_edges, "fx", "wt", set(a.files) - again - {back})
    for f, ts in as_sets(b.edges_for(again | {back})).items():
        got[f] |= ts
    assert got == renamed(a_edges, "fx", "wt", set(a.files)), name
