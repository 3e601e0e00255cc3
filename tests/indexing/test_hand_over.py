"""The second half of a warm restart (``restore.hand_over``), which the indexer runs when idle:
the daemon's stop pauses it between files, and a later call goes on where it paused, so
that the resolver ends up with every parse exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import STORE_ENGINE, copy_fixture
from graphmemd.graph.graphstate import GraphState
from graphmemd.indexing import restore
from graphmemd.indexing.restore import hand_over, same_edges
from graphmemd.ingest import parsecache
from graphmemd.ingest.parse_pack import ParsePack
from graphmemd.ingest.parsing.parser import parse_source
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.runtime.health import Health
from graphmemd.store.engine import Store
from graphmemd.store.writer import StoreWriter


def test_a_paused_hand_over_goes_on_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(restore, "HAND_SLICE", 2)
    root = copy_fixture("python")
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
    assert len(files) > 6
    parses = {path: parse_source(path, src) for path, src in files.items()}

    whole = RepoRuntime.create(root)  # every parse at once: what the resolution must be
    for parsed in parses.values():
        whole.resolver.set_file(parsed)
    expected = whole.resolver.all_edges()

    rt = RepoRuntime.create(root)
    rt.unhanded = {path: parsecache.encode(parsed) for path, parsed in parses.items()}
    rt.stored_edges = expected  # as the store has them: nothing is written
    asked: list[int] = []

    def stop() -> bool:
        asked.append(len(rt.unhanded))
        return len(asked) == 3  # the stop arrives before the fifth file

    store = Store(tmp_path / "graph.kuzu", engine=STORE_ENGINE)
    writer = StoreWriter(Health(), lambda: None)
    parses = ParsePack(tmp_path / "parses")  # (the texts are in ``unhanded`` already)
    try:
        assert hand_over(rt, GraphState(), store, writer, parses, stop) == []
        assert asked == [len(files), len(files) - 2, len(files) - 4]
        assert len(rt.unhanded) == len(files) - 4
        assert rt.stored_edges is expected  # kept for the comparison at the end
        assert rt.resolver.paths() | rt.unhanded.keys() == files.keys()  # the scan knows every file

        assert hand_over(rt, GraphState(), store, writer, parses) == []  # before a change: to the end, whatever arrives
        assert rt.unhanded == {}
        assert rt.stored_edges is None
        assert rt.resolver.paths() == files.keys()
        assert same_edges(rt.resolver.all_edges(), expected)
        assert writer.pending() == 0
    finally:
        writer.close()
        store.close()
