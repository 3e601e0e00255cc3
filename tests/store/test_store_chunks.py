"""Bulk loads in chunks, and the database reopened after bulk work so that Kùzu returns the
memory it keeps while open: the rows all arrive, and the reopens happen where they should
(during a load; after a bulk read, at the store writer's next check)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from conftest import STORE_ENGINE
from graphmem.errors import StoreError
from graphmemd.graph.model import (
    Confidence,
    FileRecord,
    Language,
    ParsedFile,
    ParsedSymbol,
    ResolvedEdges,
    SymbolKind,
    symbol_id,
)
from graphmemd.store import engine as store_module
from graphmemd.store.engine import Store, load_chunks
from graphmemd.store.engines import WORKAROUNDS
from graphmemd.store.tables import StagedRows

R = "r"
ALL = frozenset(WORKAROUNDS)


def _file(i: int, symbols: int, body: str = "b") -> tuple[FileRecord, ParsedFile]:
    syms = tuple(
        ParsedSymbol(f"f{k}", f"f{k}", SymbolKind.FUNCTION, None, k + 1, k + 1, 0, 1, f"def f{k}()", "s", body)
        for k in range(symbols)
    )
    parsed = ParsedFile(f"m{i}.py", Language.PYTHON, symbols=syms)
    return FileRecord(R, parsed.path, Language.PYTHON, f"h{i}-{body}", 10, 1.0), parsed


def _calls(n: int) -> ResolvedEdges:
    """Each file's ``f0`` calls the next file's."""
    fn = SymbolKind.FUNCTION
    return ResolvedEdges(
        calls=tuple(
            (symbol_id(R, f"m{i}.py", "f0", fn), symbol_id(R, f"m{i + 1}.py", "f0", fn), Confidence.IMPORT)
            for i in range(n - 1)
        )
    )


@pytest.fixture
def opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Store, list[int]]]:
    """A real store, and a list that counts how often its database was (re)opened."""
    opens = [0]
    connect = Store._connect

    def counting(self: Store) -> Any:
        opens[0] += 1
        return connect(self)

    monkeypatch.setattr(Store, "_connect", counting)
    # the workarounds' mechanics, on whichever engine runs the tests (LadybugDB runs without them)
    s = Store(tmp_path / "graph.kuzu", buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE, workarounds=ALL)
    try:
        yield s, opens
    finally:
        s.close()


def test_without_the_workarounds_nothing_is_reopened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine that needs none of them (LadybugDB) never closes its database for them."""
    opens = [0]
    connect = Store._connect

    def counting(self: Store) -> Any:
        opens[0] += 1
        return connect(self)

    monkeypatch.setattr(Store, "_connect", counting)
    monkeypatch.setattr(store_module, "LOAD_CHUNK_SYMBOLS", 4)
    s = Store(tmp_path / "graph.db", buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE, workarounds=frozenset())
    try:
        files = [_file(i, 3) for i in range(6)]
        s.replace_files(R, files, (), _calls(6))
        s.replace_files(R, files, (), _calls(6))  # a bulk delete and several chunks again
        s.load_resolved_edges(R)  # a bulk read
        s.queries = 10**6
        assert not s.recycle_if_due()
        assert opens == [1]
        assert sorted(f.path for f in s.load_repo_graph(R)[0]) == sorted(f.path for f, _ in files)
    finally:
        s.close()


def test_chunks_end_at_the_file_or_symbol_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "LOAD_CHUNK_FILES", 3)
    monkeypatch.setattr(store_module, "LOAD_CHUNK_SYMBOLS", 10)
    files = [_file(i, n) for i, n in enumerate([1, 1, 1, 1, 12, 2, 4, 4, 0])]
    chunks = load_chunks(files)
    # 3 files; then the file that reaches 10 symbols ends its chunk; then 2 + 4 + 4 = 10
    assert [len(c) for c in chunks] == [3, 2, 3, 1]
    assert [f for c in chunks for f in c] == files
    assert load_chunks([]) == []


def test_a_load_of_several_chunks_writes_every_row_and_reopens_between_them(
    opened: tuple[Store, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    s, opens = opened
    monkeypatch.setattr(store_module, "LOAD_CHUNK_SYMBOLS", 4)
    monkeypatch.setattr(store_module, "COPY_CHUNK_ROWS", 4)  # each chunk's 4 Symbol rows: a full slice
    first = [_file(i, 2) for i in range(6)]  # 3 chunks of 2 files
    assert len(load_chunks(first)) == 3
    before = opens[0]
    s.replace_files(R, first, (), _calls(6))
    assert opens[0] - before == 3  # after each chunk's COPY (the edges follow the last one)

    # replacing them all: the bulk delete is followed by a reopen too
    second = [_file(i, 2, body="c") for i in range(6)]
    before = opens[0]
    s.replace_files(R, second, (), _calls(6))
    assert opens[0] - before == 4
    files, symbols, graph = s.load_repo_graph(R)
    assert sorted(f.content_hash for f in files) == sorted(rec.content_hash for rec, _ in second)
    assert len(symbols) == 12
    assert {x.body_hash for x in symbols} == {"c"}
    assert set(graph.edges.calls) == set(_calls(6).calls)
    assert not graph.contains
    assert len(graph.defines) == 12


def test_small_chunks_are_copied_together(opened: tuple[Store, list[int]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks far below a COPY slice are held and copied in one COPY per table, with one reopen."""
    s, opens = opened
    monkeypatch.setattr(store_module, "LOAD_CHUNK_SYMBOLS", 4)
    copies: list[tuple[str, int]] = []
    copy = Store._copy

    def counting(self: Store, table: str, rows: Any, **kw: Any) -> None:
        copies.append((table, rows.num_rows))
        copy(self, table, rows, **kw)

    monkeypatch.setattr(Store, "_copy", counting)
    files = [_file(i, 2) for i in range(6)]  # 3 chunks
    before = opens[0]
    s.replace_files(R, files, (), _calls(6))
    assert [c for c in copies if c[0] in ("File", "Symbol")] == [("File", 6), ("Symbol", 12)]
    assert opens[0] - before == 1
    assert len(s.load_repo_graph(R)[1]) == 12


def test_staged_rows_give_whole_slices_and_keep_the_rest() -> None:
    staged = StagedRows(4)
    staged.add([("A", pa.table({"x": [1, 2, 3]})), ("B", pa.table({"x": [9]})), ("C", pa.table({"x": []}))])
    assert staged.take() == []
    staged.add([("A", pa.table({"x": [4, 5, 6, 7, 8, 9, 10]}))])
    [(table, data)] = staged.take()
    assert (table, data.column("x").to_pylist()) == ("A", [1, 2, 3, 4, 5, 6, 7, 8])
    rest = staged.take(final=True)
    assert [(t, d.column("x").to_pylist()) for t, d in rest] == [("A", [9, 10]), ("B", [9])]
    assert staged.take(final=True) == []


def test_a_one_chunk_write_does_not_reopen(opened: tuple[Store, list[int]]) -> None:
    s, opens = opened
    s.replace_files(R, [_file(0, 2)], (), ResolvedEdges())
    before = opens[0]
    s.replace_files(R, [_file(0, 2, body="c")], (), ResolvedEdges())
    assert opens[0] == before


def test_reading_every_edge_back_has_the_database_reopened_at_the_next_check(
    opened: tuple[Store, list[int]],
) -> None:
    s, opens = opened
    s.replace_files(R, [_file(i, 1) for i in range(3)], (), _calls(3))
    s.recycle_if_due(every=0)
    before = opens[0]
    edges = s.load_resolved_edges(R)
    assert set(edges.calls) == set(_calls(3).calls)
    assert opens[0] == before  # not by the reader
    assert s.recycle_if_due()  # the store writer's check after its next job
    assert opens[0] == before + 1
    assert s.file_hashes(R) == {f"m{i}.py": f"h{i}-b" for i in range(3)}  # still answers
    assert not s.recycle_if_due()
    s.load_repo_graph(R)
    assert s.recycle_if_due()


def _wide_store(path: Path, files: int = 300, width: int = 500) -> None:
    """A store whose symbols (50 per file, each signature ``width`` bytes long) hold more than
    a 12 MB buffer pool can give one query's result."""
    s = Store(path, buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE)
    try:
        s.upsert_repo(R, "/tmp/r", "", 1.0)
        rows = []
        for i in range(files):
            syms = tuple(
                ParsedSymbol(f"f{k}", f"f{k}", SymbolKind.FUNCTION, None, k + 1, k + 1, 0, 1, "x" * width, "s", "b")
                for k in range(50)
            )
            parsed = ParsedFile(f"m{i:03d}.py", Language.PYTHON, symbols=syms)
            rows.append((FileRecord(R, parsed.path, Language.PYTHON, f"h{i}", 10, 1.0), parsed))
        s.replace_files(R, rows, (), _calls(0))
    finally:
        s.close()


def test_a_bulk_read_larger_than_the_buffer_pool_is_read_in_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading a repository back (a start without a snapshot, and the store probe) asks for its
    symbols a page of files at a time: a result the buffer pool cannot hold at once is read
    whole, every symbol of every page."""
    path = tmp_path / "graph.kuzu"
    _wide_store(path)
    monkeypatch.setattr(store_module, "READ_PAGE_FILES", 10**9)  # one page: the whole result at once
    s = Store(path, buffer_pool_mb=12, max_db_size_gb=1, engine=STORE_ENGINE)
    try:
        with pytest.raises(StoreError, match="buffer pool is full"):
            s.load_repo_graph(R)
    finally:
        s.close()
    monkeypatch.setattr(store_module, "READ_PAGE_FILES", 20)
    s = Store(path, buffer_pool_mb=12, max_db_size_gb=1, engine=STORE_ENGINE)
    try:
        files, symbols, edges = s.load_repo_graph(R)
    finally:
        s.close()
    assert len(files) == 300
    assert len(symbols) == 300 * 50
    assert {(x.path, x.qualname) for x in symbols} == {(f"m{i:03d}.py", f"f{k}") for i in range(300) for k in range(50)}
    assert all(len(x.signature) == 500 and x.parent_id is None for x in symbols)
    assert len(edges.defines) == len(symbols)
