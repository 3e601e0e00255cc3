"""Opening the store: the child-process probe runs unless the daemon itself closed the store
cleanly last time and nothing touched the file since (``store_open.mark_clean``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import STORE_ENGINE
from graphmemd.store import opening as store_open
from graphmemd.store.engine import Store
from graphmemd.store.opening import mark_clean, open_store


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every probe open_store runs (the real probe is exercised by tests/faults)."""
    calls: list[Path] = []

    def probe(path: Path, *, buffer_pool_mb: int, engine: str = "", timeout_s: float = 0) -> str:
        calls.append(path)
        return ""

    monkeypatch.setattr(store_open, "probe_store", probe)
    return calls


def _open_close(path: Path, *, clean: bool) -> None:
    opened = open_store(path, engine=STORE_ENGINE, buffer_pool_mb=64, max_db_size_gb=1)
    opened.store.upsert_repo("r", "/tmp/r", "", 1.0)
    opened.store.close()
    if clean:
        mark_clean(path)


def test_a_clean_close_skips_the_next_probe_once(tmp_path: Path, probes: list[Path]) -> None:
    path = tmp_path / "graph.kuzu"
    _open_close(path, clean=True)
    assert len(probes) == 1
    assert Path(str(path) + ".clean").exists()
    _open_close(path, clean=False)  # trusted: not probed; the marker is consumed at open
    assert len(probes) == 1
    assert not Path(str(path) + ".clean").exists()
    _open_close(path, clean=True)  # the last close was not marked (a crash): probed
    assert len(probes) == 2


def test_a_file_changed_after_the_clean_close_is_probed(tmp_path: Path, probes: list[Path]) -> None:
    path = tmp_path / "graph.kuzu"
    _open_close(path, clean=True)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    _open_close(path, clean=True)
    assert len(probes) == 2


def test_a_wal_left_beside_a_marked_store_is_not_trusted(tmp_path: Path, probes: list[Path]) -> None:
    path = tmp_path / "graph.kuzu"
    _open_close(path, clean=True)
    Path(str(path) + ".wal").write_bytes(b"\0" * 64)
    assert not store_open._closed_cleanly(path)
    assert not Path(str(path) + ".clean").exists()  # consumed: the next open probes as well


def test_the_probe_runs_the_reads_of_a_warm_restart(tmp_path: Path) -> None:
    """A store whose node counts read fine but whose resolved edges cannot be read back fails
    the probe (the daemon would fail in its restore), and is moved aside instead of trusted."""
    path = tmp_path / "graph.kuzu"
    store = open_store(path, engine=STORE_ENGINE, buffer_pool_mb=64, max_db_size_gb=1).store
    store.upsert_repo("r", "/tmp/r", "", 1.0)
    store.close()
    assert store_open.probe_store(path, engine=STORE_ENGINE, buffer_pool_mb=64) == ""
    store = Store(path, buffer_pool_mb=64, engine=STORE_ENGINE)
    store._run("ALTER TABLE Symbol DROP unresolved_calls")  # what restore reads; counts() does not
    store.close()
    problem = store_open.probe_store(path, engine=STORE_ENGINE, buffer_pool_mb=64)
    assert "unresolved_calls" in problem
    opened = open_store(path, engine=STORE_ENGINE, buffer_pool_mb=64, max_db_size_gb=1)
    try:
        assert opened.moved_to
        assert "unresolved_calls" in opened.recovered
    finally:
        opened.store.close()


def test_a_probe_that_runs_out_of_its_buffer_pool_is_tried_again_not_trusted_damaged(tmp_path: Path) -> None:
    """Running out of the buffer pool is not damage: a sound store whose warm-restart reads do
    not fit the daemon's pool is probed again with a larger one and opened as it is, not moved
    aside and rebuilt (a sound 4.7 M-line store was, after an unclean stop)."""
    from test_store_chunks import _wide_store

    path = tmp_path / "graph.kuzu"
    _wide_store(path)
    assert "buffer pool is full" in store_open.probe_store(path, engine=STORE_ENGINE, buffer_pool_mb=12)
    opened = open_store(path, engine=STORE_ENGINE, buffer_pool_mb=12, max_db_size_gb=1)
    try:
        assert not opened.moved_to
        assert not opened.recovered
        assert opened.store.counts()["Symbol"] == 300 * 50
    finally:
        opened.store.close()
    assert not list(tmp_path.glob("*.broken-*"))
