"""The store's repository rows: ``Store.repos`` answers from what this process read or wrote,
so registering a checkout never waits for a bulk write that holds the store's lock."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import STORE_ENGINE
from graphmem.errors import StoreError
from graphmemd.store.engine import Store


def _store(path: Path) -> Store:
    return Store(path, buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE)


def test_repos_are_what_was_written_and_survive_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "graph.db"
    store = _store(path)
    try:
        store.upsert_repo("b", "/src/b", "c1", 2.0)
        store.upsert_repo("a", "/src/a", "", 1.0)
        assert store.repos() == [("a", "/src/a", "", 1.0), ("b", "/src/b", "c1", 2.0)]
        store.upsert_repo("b", "/src/b", "c2", 3.0)
        store.delete_repo("a")
        assert store.repos() == [("b", "/src/b", "c2", 3.0)]
    finally:
        store.close()
    again = _store(path)  # a new process reads the rows the first one wrote
    try:
        assert again.repos() == [("b", "/src/b", "c2", 3.0)]
    finally:
        again.close()


def test_repos_do_not_wait_for_a_write_holding_the_lock(tmp_path: Path) -> None:
    store = _store(tmp_path / "graph.db")
    try:
        store.upsert_repo("a", "/src/a", "c1", 1.0)
        assert store.repos()  # read once from the store
        held, release = threading.Event(), threading.Event()

        def bulk_write() -> None:  # what the store writer does during a checkout's COPY
            with store._lock:
                held.set()
                release.wait(10)

        writer = threading.Thread(target=bulk_write)
        writer.start()
        try:
            assert held.wait(10)
            answer: list[list[tuple[str, str, str, float]]] = []
            reader = threading.Thread(target=lambda: answer.append(store.repos()))
            reader.start()
            reader.join(5)
            assert answer == [[("a", "/src/a", "c1", 1.0)]], "repos() waited for the lock"
        finally:
            release.set()
            writer.join(10)
    finally:
        store.close()
    with pytest.raises(StoreError, match="closed"):
        store.repos()
