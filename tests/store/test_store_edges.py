"""Edge confidences in the store: written, read back, and a store of the schema before
confidences existed (1) still opens, its edges reading as ``unknown`` until re-indexed."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import STORE_ENGINE
from graphmem.errors import StoreError
from graphmemd.graph.model import (
    Confidence,
    FileRecord,
    InheritKind,
    Language,
    ParsedFile,
    ParsedSymbol,
    ResolvedEdges,
    SymbolKind,
    file_id,
    symbol_id,
)
from graphmemd.indexing.restore import same_edges
from graphmemd.store.engine import SCHEMA_VERSION, Store

R = "r"


def _sym(name: str, kind: SymbolKind = SymbolKind.FUNCTION) -> ParsedSymbol:
    return ParsedSymbol(name, name, kind, None, 1, 2, 0, 10, f"def {name}", "s", "b")


def _files() -> list[tuple[FileRecord, ParsedFile]]:
    a = ParsedFile("a.py", Language.PYTHON, symbols=(_sym("f"), _sym("A", SymbolKind.CLASS)))
    b = ParsedFile("b.py", Language.PYTHON, symbols=(_sym("g"), _sym("B", SymbolKind.CLASS)))
    return [(FileRecord(R, p.path, p.language, "h-" + p.path, 10, 1.0), p) for p in (a, b)]


def _edges() -> ResolvedEdges:
    f, g = symbol_id(R, "a.py", "f", SymbolKind.FUNCTION), symbol_id(R, "b.py", "g", SymbolKind.FUNCTION)
    a, b = symbol_id(R, "a.py", "A", SymbolKind.CLASS), symbol_id(R, "b.py", "B", SymbolKind.CLASS)
    return ResolvedEdges(
        imports=((file_id(R, "a.py"), file_id(R, "b.py"), Confidence.IMPORT),),
        calls=((f, g, Confidence.NAME_ONLY), (file_id(R, "a.py"), g, Confidence.IMPORT)),
        inherits=((a, b, InheritKind.INHERITS, Confidence.IMPORT),),
    )


def _open(path: Path) -> Store:
    return Store(path, buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE)


def test_confidences_round_trip(tmp_path: Path) -> None:
    s = _open(tmp_path / "graph.kuzu")
    try:
        s.replace_files(R, _files(), (), _edges())
        _, _, graph = s.load_repo_graph(R)
        want = _edges()
        assert set(graph.edges.calls) == set(want.calls)
        assert set(graph.edges.imports) == set(want.imports)
        assert set(graph.edges.inherits) == set(want.inherits)
    finally:
        s.close()


def test_a_schema_1_store_is_migrated_at_open(tmp_path: Path) -> None:
    path = tmp_path / "graph.kuzu"
    s = _open(path)
    s.replace_files(R, _files(), (), _edges())
    # what a store written before edge confidences looks like
    for table in ("IMPORTS", "CALLS", "FILE_CALLS", "INHERITS"):
        s._run(f"ALTER TABLE {table} DROP confidence")
    s._run("MATCH (m:Meta {key: 'schema'}) SET m.value = '1'")
    s.close()
    s = _open(path)
    try:
        files, _, graph = s.load_repo_graph(R)
        assert len(graph.edges.calls) == 2
        assert {c for _, _, c in graph.edges.calls} == {Confidence.UNKNOWN}
        assert {e[3] for e in graph.edges.inherits} == {Confidence.UNKNOWN}
        assert not Confidence.UNKNOWN.certain
        assert {f.content_hash for f in files} == {""}  # every file is re-indexed at the next scan
        s.replace_files(R, _files(), (), _edges())  # the re-index writes real confidences
        _, _, graph = s.load_repo_graph(R)
        assert set(graph.edges.calls) == set(_edges().calls)
    finally:
        s.close()
    s = _open(path)  # and it stays at the current schema
    try:
        assert s._run("MATCH (m:Meta {key: 'schema'}) RETURN m.value") == [[str(SCHEMA_VERSION)]]
    finally:
        s.close()


def test_a_schema_2_store_drops_the_unread_symbol_columns_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "graph.kuzu"
    s = _open(path)
    s.replace_files(R, _files(), (), _edges())
    want = s.load_repo_graph(R)
    # what a store written before schema 3 looks like: the Symbol columns it dropped
    old = {"path": "STRING", "language": "STRING", "start_byte": "INT64", "end_byte": "INT64",
           "unresolved_bases": "STRING[]"}  # fmt: skip
    for column, kind in old.items():
        s._run(f"ALTER TABLE Symbol ADD {column} {kind}")
    s._run("MATCH (m:Meta {key: 'schema'}) SET m.value = '2'")
    s.close()
    s = _open(path)
    try:
        columns = {r[0] for r in s._run("CALL TABLE_INFO('Symbol') RETURN name")}
        assert not columns & old.keys()
        assert s._run("MATCH (m:Meta {key: 'schema'}) RETURN m.value") == [[str(SCHEMA_VERSION)]]
        files, symbols, graph = s.load_repo_graph(R)
        assert set(files) == set(want[0])
        assert set(symbols) == set(want[1])
        assert set(graph.edges.calls) == set(want[2].edges.calls)
        assert set(graph.contains) == set(want[2].contains)
        assert "" not in {f.content_hash for f in files}  # nothing to re-index
        s.replace_files(R, _files(), (), _edges())  # and new rows copy into the leaner table
        assert set(s.load_repo_graph(R)[1]) == set(want[1])
    finally:
        s.close()


def _nested_files() -> list[tuple[FileRecord, ParsedFile]]:
    """``_files`` with a method under each class (CONTAINS pairs to carry)."""
    out = []
    for rec, parsed in _files():
        cls = next(s for s in parsed.symbols if s.kind is SymbolKind.CLASS)
        method = ParsedSymbol("m", f"{cls.qualname}.m", SymbolKind.METHOD, cls.qualname, 1, 2, 0, 5, "def m", "s", "b")
        out.append((rec, ParsedFile(parsed.path, parsed.language, symbols=(*parsed.symbols, method))))
    return out


def test_structural_edges_come_from_the_symbol_rows(tmp_path: Path) -> None:
    """Schema 5 writes no DEFINES/CONTAINS rows: each symbol's file and parent columns say it."""
    s = _open(tmp_path / "graph.kuzu")
    try:
        s.replace_files(R, _nested_files(), (), _edges())
        _, symbols, graph = s.load_repo_graph(R)
        assert set(graph.defines) == {(file_id(R, x.path), x.id) for x in symbols}
        assert set(graph.contains) == {
            (symbol_id(R, p, "A" if p == "a.py" else "B", SymbolKind.CLASS), symbol_id(R, p, q, SymbolKind.METHOD))
            for p, q in (("a.py", "A.m"), ("b.py", "B.m"))
        }
        s.replace_files(R, [], ["a.py"], ResolvedEdges())  # a removed file takes its pairs along
        _, _, graph = s.load_repo_graph(R)
        assert {f for f, _ in graph.defines} == {file_id(R, "b.py")}
        assert len(graph.contains) == 1
    finally:
        s.close()


def test_a_schema_4_store_drops_its_structural_edge_tables_and_keeps_its_graph(tmp_path: Path) -> None:
    path = tmp_path / "graph.kuzu"
    s = _open(path)
    s.replace_files(R, _nested_files(), (), _edges())
    want = s.load_repo_graph(R)
    # what a store written before schema 5 looks like: DEFINES and CONTAINS tables with rows
    s._run("CREATE REL TABLE DEFINES(FROM File TO Symbol)")
    s._run("CREATE REL TABLE CONTAINS(FROM Symbol TO Symbol)")
    s._run("MATCH (f:File), (x:Symbol) WHERE x.file = f.id CREATE (f)-[:DEFINES]->(x)")
    s._run("MATCH (a:Symbol), (b:Symbol) WHERE b.parent = a.id CREATE (a)-[:CONTAINS]->(b)")
    s._run("MATCH (m:Meta {key: 'schema'}) SET m.value = '4'")
    s.close()
    s = _open(path)
    try:
        tables = {r[0] for r in s._run("CALL SHOW_TABLES() RETURN name")}
        assert not tables & {"DEFINES", "CONTAINS"}
        assert s._run("MATCH (m:Meta {key: 'schema'}) RETURN m.value") == [[str(SCHEMA_VERSION)]]
        files, symbols, graph = s.load_repo_graph(R)
        assert (set(files), set(symbols)) == (set(want[0]), set(want[1]))
        assert (set(graph.defines), set(graph.contains)) == (set(want[2].defines), set(want[2].contains))
        assert len(graph.contains) == 2
        assert "" not in {f.content_hash for f in files}  # nothing to re-index
    finally:
        s.close()


def test_bulk_loads_in_chunks_write_every_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A load larger than ``COPY_CHUNK_ROWS`` is copied slice by slice: nodes, edges and
    what stayed unresolved all arrive, once."""
    from graphmemd.store import engine as store_module

    monkeypatch.setattr(store_module, "COPY_CHUNK_ROWS", 3)
    names = [f"f{i}" for i in range(10)]
    files = []
    for n in names:
        p = ParsedFile(f"{n}.py", Language.PYTHON, symbols=(_sym(n),))
        files.append((FileRecord(R, p.path, p.language, "h", 10, 1.0), p))
    ids = [symbol_id(R, f"{n}.py", n, SymbolKind.FUNCTION) for n in names]
    calls = tuple((ids[i], ids[(i + 1) % 10], Confidence.IMPORT) for i in range(10))
    edges = ResolvedEdges(calls=calls, unresolved_calls=tuple((i, "missing()") for i in ids[:4]))
    s = _open(tmp_path / "graph.kuzu")
    try:
        s.replace_files(R, files, (), edges)
        got_files, got_symbols, graph = s.load_repo_graph(R)
        assert sorted(f.path for f in got_files) == sorted(f"{n}.py" for n in names)
        assert sorted(x.id for x in got_symbols) == sorted(ids)
        assert sorted(graph.edges.calls) == sorted(calls)
        assert sorted(graph.edges.unresolved_calls) == sorted((i, "missing()") for i in ids[:4])
        assert same_edges(s.load_resolved_edges(R), graph.edges)  # in any order
    finally:
        s.close()


def test_a_write_kuzu_cannot_roll_back_leaves_the_store_unused_until_a_restart(tmp_path: Path) -> None:
    """A write that ran out of space leaves Kùzu unable to roll back ("Invalid transaction type
    to rollback"): the next statement can crash the process and closing the database aborts
    it. The store runs no statement on it again (a clear error instead) and does not close it."""

    class Poisoned:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def execute(self, query: str, *args: object) -> object:
            self.calls.append(query)
            raise RuntimeError("Invalid transaction type to rollback.")

        def close(self) -> None:
            self.calls.append("close")

    s = _open(tmp_path / "graph.kuzu")
    real_conn, real_db = s._conn, s._db
    broken = Poisoned()
    s._conn = broken  # type: ignore[assignment]
    with pytest.raises(StoreError, match="rollback"):
        s.replace_files(R, _files(), (), _edges())
    assert "rollback" in s.poisoned
    tried = len(broken.calls)
    with pytest.raises(StoreError, match="needs a daemon restart"):
        s.replace_files(R, _files(), (), _edges())
    assert not s.recycle_if_due(0)
    s.close()
    assert len(broken.calls) == tried  # nothing ran on it, not even close
    real_conn.close()
    real_db.close()


def test_a_changed_file_keeps_the_edges_into_its_symbols_that_keep_their_id(tmp_path: Path) -> None:
    """A file written again without its readers' edges (a narrowed change: the files that
    read it did not read a changed name, so they are not resolved again) keeps the edges
    other files have into its symbols that are still there (their ids are the same), and
    loses those into symbols that went away and into the file only through them."""
    s = _open(tmp_path / "graph.kuzu")
    try:
        s.replace_files(R, _files(), (), _edges())
        # b.py written again: g's body edited, B gone, a new h; a.py not resolved again
        b = ParsedFile("b.py", Language.PYTHON, symbols=(_sym("g"), _sym("h")))
        s.replace_files(R, [(FileRecord(R, "b.py", Language.PYTHON, "h2", 11, 2.0), b)], (), ResolvedEdges())
        _, _, graph = s.load_repo_graph(R)
        f, g = symbol_id(R, "a.py", "f", SymbolKind.FUNCTION), symbol_id(R, "b.py", "g", SymbolKind.FUNCTION)
        assert set(graph.edges.calls) == {(f, g, Confidence.NAME_ONLY), (file_id(R, "a.py"), g, Confidence.IMPORT)}
        assert set(graph.edges.imports) == {(file_id(R, "a.py"), file_id(R, "b.py"), Confidence.IMPORT)}
        assert graph.edges.inherits == ()  # (into B, gone)
        # a file removed takes every edge into it with it
        s.replace_files(R, [], ("b.py",), ResolvedEdges())
        _, _, graph = s.load_repo_graph(R)
        assert graph.edges.calls == graph.edges.imports == ()
    finally:
        s.close()


def test_a_write_of_stored_and_new_files_replaces_the_stored_and_adds_the_new(tmp_path: Path) -> None:
    """One write of a file stored before and of files not stored yet (a derived worktree's
    differing files beside its dependents; a batch adding a file): only the stored file's
    rows are replaced (its kept symbols keep the edges into them, its gone symbol goes), the
    new files are added, a removed path never stored is ignored, and another checkout
    holding the same paths keeps its rows."""
    s = _open(tmp_path / "graph.kuzu")
    try:
        other = "o"
        s.replace_files(other, [(FileRecord(other, p.path, p.language, "h", 10, 1.0), p) for _, p in _files()], (),
                        ResolvedEdges())  # fmt: skip
        s.replace_files(R, _files()[:1], (), ResolvedEdges())  # a.py only: c.py and b.py are new below
        s.replace_files(R, _files()[1:], (), _edges())  # b.py, with a.py's edges into it
        b = ParsedFile("b.py", Language.PYTHON, symbols=(_sym("g"), _sym("h")))
        c = ParsedFile("c.py", Language.PYTHON, symbols=(_sym("k"),))
        h, k = symbol_id(R, "b.py", "h", SymbolKind.FUNCTION), symbol_id(R, "c.py", "k", SymbolKind.FUNCTION)
        written = [(FileRecord(R, "c.py", Language.PYTHON, "h3", 5, 2.0), c),
                   (FileRecord(R, "b.py", Language.PYTHON, "h2", 11, 2.0), b)]  # fmt: skip
        s.replace_files(R, written, ("never.py",), ResolvedEdges(calls=((k, h, Confidence.IMPORT),)))
        files, symbols, graph = s.load_repo_graph(R)
        assert {(f.path, f.content_hash) for f in files} == {("a.py", "h-a.py"), ("b.py", "h2"), ("c.py", "h3")}
        assert {x.qualname for x in symbols if x.path == "b.py"} == {"g", "h"}  # (B gone, h new)
        assert {x.qualname for x in symbols if x.path == "c.py"} == {"k"}
        f, g = symbol_id(R, "a.py", "f", SymbolKind.FUNCTION), symbol_id(R, "b.py", "g", SymbolKind.FUNCTION)
        assert set(graph.edges.calls) == {
            (f, g, Confidence.NAME_ONLY),
            (file_id(R, "a.py"), g, Confidence.IMPORT),
            (k, h, Confidence.IMPORT),
        }
        assert graph.edges.inherits == ()  # (into B, gone)
        kept, kept_symbols, _ = s.load_repo_graph(other)
        assert {f.path for f in kept} == {"a.py", "b.py"}
        assert len(kept_symbols) == 4
    finally:
        s.close()


def test_a_write_of_files_not_stored_yet_deletes_nothing_and_reads_no_edges_into_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checkout's write of files it has no rows of (a derived worktree's differing files,
    written after the sibling's rows were copied for it) neither deletes nor reads the edges
    into them: those queries filter every checkout's symbols and edges (their cost grows with
    the store, 1.7 s to 5.9 s of the writer for 300 files over 16 worktrees)."""
    s = _open(tmp_path / "graph.kuzu")
    try:
        s.replace_files(R, _files()[:1], (), ResolvedEdges())
        queries: list[str] = []
        query = s._query

        def recorded(q: str, *args: object, **kwargs: object) -> object:
            queries.append(q)
            return query(q, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(s, "_query", recorded)
        s.replace_files(R, _files()[1:], ("never.py",), _edges())
        assert not [q for q in queries if "DELETE" in q or "NOT a.id IN $skip" in q or "NOT a.file IN $skip" in q]
        files, _, graph = s.load_repo_graph(R)
        assert {f.path for f in files} == {"a.py", "b.py"}
        assert set(graph.edges.calls) == set(_edges().calls)
    finally:
        s.close()
