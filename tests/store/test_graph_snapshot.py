"""A repository's share of the in-memory graph, lifted out, written, read back and put back
(``graph_snapshot.py``): the graph answers exactly as the one it came from, and a snapshot
that cannot be trusted is not read (and is gone either way)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from graphmem.types import EdgeKind
from graphmemd.graph import edgebits
from graphmemd.graph.codegraph import CodeGraph, FileNode
from graphmemd.graph.model import Confidence, ResolvedEdges, file_id, symbols_of
from graphmemd.graph.resolution import RepoFacts
from graphmemd.ingest import parsecache
from graphmemd.ingest.parsing.parser import parse_source
from graphmemd.store import graph_snapshot
from graphmemd.store.graph_snapshot import Snapshots

SOURCES = {
    "app/models.py": b"class Base:\n    def save(self):\n        pass\n\nclass User(Base):\n    def save(self):\n"
    b"        return super().save()\n    def name(self):\n        pass\n",
    "app/service.py": b"from app.models import User\nimport requests\n\ndef register(name):\n"
    b"    u = User()\n    u.save()\n    return mystery(name)\n",
    "app/empty.py": b"# nothing defined here\n",
}


def _add_repo(g: CodeGraph, repo: str) -> None:
    parsed = {path: parse_source(path, src) for path, src in SOURCES.items()}
    for path, p in parsed.items():
        g.put_file(FileNode(repo, path, p.language, f"hash-{path}"), symbols_of(repo, p))

    def sym(path: str, qualname: str) -> str:
        (s,) = [s.id for s in g.file_symbols(repo, path) if s.qualname == qualname]
        return s

    models, service = file_id(repo, "app/models.py"), file_id(repo, "app/service.py")
    register, save = sym("app/service.py", "register"), sym("app/models.py", "User.save")
    edges = ResolvedEdges(
        imports=((service, models, Confidence.IMPORT),),
        external_imports=((service, "requests"),),
        calls=((register, save, Confidence.NAME_ONLY), (register, sym("app/models.py", "User"), Confidence.IMPORT)),
        unresolved_calls=((register, "mystery"),),
        inherits=((sym("app/models.py", "User"), sym("app/models.py", "Base"), "class", Confidence.IMPORT),),
    )
    g.set_edges([file_id(repo, p) for p in SOURCES], edges)


def _same(a: CodeGraph, b: CodeGraph) -> None:
    assert a.files == b.files
    assert a.symbols == b.symbols
    for node in [*a.files, *a.symbols]:
        assert sorted(a.adjacency(node), key=repr) == sorted(b.adjacency(node), key=repr), node
        assert a.unresolved(node) == b.unresolved(node)
    for name in ("save", "User", "register", "nothing"):
        assert a.by_name(name) == b.by_name(name)
    for query in ("user save", "register", "models base", "app"):
        for repo in ("", "r", "s"):
            assert a.search_symbols(query, 20, repo) == b.search_symbols(query, 20, repo), (query, repo)
    assert sorted(s.id for s in a.find("sav*")) == sorted(s.id for s in b.find("sav*"))
    assert a.edge_count() == b.edge_count()


@pytest.mark.parametrize(("shared", "beside"), [(False, False), (True, False), (True, True)])
def test_a_repository_put_back_from_its_snapshot_is_the_graph_it_was(
    tmp_path: Path, shared: bool, beside: bool
) -> None:
    """Out of a graph that holds it alone (the graph's own storage is written) or with another
    repository; into an empty graph (a restart's first repository) or beside another one."""
    original = CodeGraph()
    _add_repo(original, "r")
    if shared:
        _add_repo(original, "s")
    snaps = Snapshots(tmp_path / "snapshots")
    facts = RepoFacts(go_modules={"": "example.com/r"}, python_roots=("src",))
    assert snaps.save(original.export_repo("r"), facts) > 0

    restored = CodeGraph()
    if beside:
        _add_repo(restored, "s")
    taken = snaps.take("r")
    assert taken is not None
    assert not snaps.path("r").exists()  # read at most once
    part, facts_back = taken
    assert facts_back == facts  # (the facts its edges were resolved with)
    restored.import_repo(part)
    if shared and not beside:
        original.drop_repo("s")
    _same(restored, original)
    for n in [*restored.files, *restored.symbols]:
        assert restored.degree(n) == len(restored.adjacency(n))
    with pytest.raises(ValueError, match="already holds"):
        restored.import_repo(original.export_repo("r"))

    # and it changes like any graph: the edges of a file replaced, a file removed
    restored.set_edges([file_id("r", "app/service.py")], ResolvedEdges())
    original.set_edges([file_id("r", "app/service.py")], ResolvedEdges())
    restored.remove_file("r", "app/models.py")
    original.remove_file("r", "app/models.py")
    _same(restored, original)
    assert not {s for s in restored.by_name("Base") if s.startswith("r:")}
    assert not restored.out(file_id("r", "app/service.py"), EdgeKind.IMPORTS)


def test_a_repository_counts_its_own_edges_alone_or_beside_another() -> None:
    """``edge_count`` tallies the packed values (one repository in the graph: every node's; with
    another: its own nodes'); a part carries its repository's count for ``status``."""
    alone, both = CodeGraph(), CodeGraph()
    _add_repo(alone, "r")
    _add_repo(both, "r")
    _add_repo(both, "s")
    n = sum(len(edgebits.edges(p)) for targets in alone._out.values() for p in targets.values())
    assert n == 13  # DEFINES x6, CONTAINS x3 (the classes' methods), an import, two calls, an inherit
    assert alone.edge_count("r") == alone.edge_count() == both.edge_count("r") == both.edge_count("s") == n
    assert both.edge_count() == 2 * n
    both.set_edges([file_id("s", "app/service.py")], ResolvedEdges())
    assert both.edge_count("r") == n > both.edge_count("s")
    assert alone.export_repo("r").edges == both.export_repo("r").edges == n
    assert both.export_repo("s").edges == both.edge_count("s")


def test_equal_strings_come_back_as_one_object(tmp_path: Path) -> None:
    """A snapshot writes equal strings once (``_payload``): signatures and hashes that recur, a
    symbol's path and its file's, the name index's lowercased names come back shared, with
    the same values as before."""
    g = CodeGraph()
    _add_repo(g, "r")
    base_save, user_save = (
        next(s for s in g.file_symbols("r", "app/models.py") if s.qualname == q) for q in ("Base.save", "User.save")
    )
    assert base_save.signature == user_save.signature
    # (as two parses would give them: equal, separate objects)
    g.symbols[user_save.id] = replace(user_save, signature="".join(list(user_save.signature)))
    assert g.symbols[user_save.id].signature is not base_save.signature
    node = g.files[file_id("r", "app/models.py")]
    g.files[node_id := file_id("r", "app/models.py")] = replace(node, path="".join(list(node.path)))
    snaps = Snapshots(tmp_path / "snapshots")
    snaps.save(g.export_repo("r"), RepoFacts())
    taken = snaps.take("r")
    assert taken is not None
    part = taken[0]
    assert part.symbols == g.symbols
    assert part.files == g.files
    assert part.names == g._by_name
    assert part.symbols[user_save.id].signature is part.symbols[base_save.id].signature
    assert part.symbols[user_save.id].path is part.files[node_id].path
    assert next(n for n in part.names if n == "save") is part.symbols[user_save.id].name


def _saved(tmp_path: Path) -> tuple[Snapshots, Path]:
    g = CodeGraph()
    _add_repo(g, "r")
    snaps = Snapshots(tmp_path / "snapshots")
    snaps.save(g.export_repo("r"), RepoFacts())
    return snaps, snaps.path("r")


def test_a_damaged_or_cut_snapshot_is_not_read(tmp_path: Path) -> None:
    snaps, path = _saved(tmp_path)
    data = path.read_bytes()
    for damaged in (
        data[: len(data) // 2],  # cut short
        data[:-100] + bytes([data[-100] ^ 0x01]) + data[-99:],  # one bit of the payload
        b"GMSNAP01" + b"\xff" * 20,
        b"",
    ):
        path.write_bytes(damaged)
        assert snaps.take("r") is None
        assert not path.exists()
    assert snaps.take("r") is None  # none at all


def test_a_snapshot_of_another_parser_layout_or_repository_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snaps, path = _saved(tmp_path)
    monkeypatch.setattr(parsecache, "PARSER_VERSION", "another-parser")
    assert snaps.take("r") is None
    assert not path.exists()
    monkeypatch.undo()

    snaps, path = _saved(tmp_path)
    monkeypatch.setattr(graph_snapshot, "layout", lambda: "another-layout")
    assert snaps.take("r") is None
    monkeypatch.undo()

    snaps, path = _saved(tmp_path)
    path.rename(snaps.path("elsewhere"))
    assert snaps.take("elsewhere") is None
    assert snaps.take("r") is None


def test_clear_removes_every_snapshot_and_half_written_one(tmp_path: Path) -> None:
    snaps, path = _saved(tmp_path)
    path.with_suffix(".tmp").write_bytes(b"half")
    snaps.clear()
    assert list(snaps.directory.iterdir()) == []
    Snapshots(tmp_path / "never-made").clear()


def test_a_snapshot_that_cannot_be_removed_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left on disk it could be read again by a later start, after the store moved on."""
    snaps, path = _saved(tmp_path)

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)
    assert snaps.take("r") is None
    snaps.clear()  # logged, not raised: the daemon starts anyway
    assert path.exists()
    monkeypatch.undo()
    assert snaps.take("r") is not None
