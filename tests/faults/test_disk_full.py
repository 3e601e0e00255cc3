"""Issue #15, failure 5: a full disk. Writes fail fast with RESOURCE_EXHAUSTED, nothing is
acknowledged that is not journaled, status says "disk full", and everything recovers without
a restart once space returns (text search complete again)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, short_tmp, wait_for
from faultlib import ANCHOR, assert_all_present, observe_many
from graphmem.client import GraphMem
from graphmem.errors import ResourceExhausted
from graphmem.types import EventKind


def _degraded(c: GraphMem) -> str:
    return "; ".join(c.status().degraded_reasons)


def _searchable(c: GraphMem, acked: dict[str, str]) -> bool:
    found = {r.observation.id for r in c.recall("tokens expire", limit=200).results}
    return set(acked) <= found


def test_5_injected_enospc_at_the_journal_write(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo], env={"GRAPHMEM_INJECT_FAULTS": "journal-enospc:3"})
    with d.client() as c:
        for _ in range(3):
            with pytest.raises(ResourceExhausted, match="disk full"):
                c.observe("never saved: the disk is full", anchors=[ANCHOR], idempotency_key=None)
        assert "disk full" in _degraded(c)
        assert not c.status().healthy
        assert not c.list(limit=0)  # nothing that failed was acknowledged or kept
        acked = observe_many(c, 5)  # space is back: writes go through without a restart
        assert "disk full" not in _degraded(c)
        assert_all_present(c, acked)
        wait_for(lambda: _searchable(c, acked), 10)
    journal = d.home / "data" / "observations.jsonl"
    assert b"never saved" not in journal.read_bytes()
    assert d.stop() == 0


@pytest.fixture
def small_fs() -> Iterator[Path]:
    mnt = short_tmp("gmfs")
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=96m,mode=0700", "tmpfs", str(mnt)], capture_output=True, check=False
        )
    except OSError as exc:
        shutil.rmtree(mnt, ignore_errors=True)
        pytest.skip(f"cannot run mount: {exc}")
    if done.returncode != 0:
        shutil.rmtree(mnt, ignore_errors=True)
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
        shutil.rmtree(mnt, ignore_errors=True)


def _wait_durable(c: GraphMem) -> None:
    """Until the first index pass's store writes are done (``INDEX_DURABLE``, read from the
    start of the event buffer): the disk then fills while the daemon is idle, as this test
    means, not in the middle of the pass's bulk load (which leaves Kùzu unable to roll back:
    ``engine._note_failure``)."""
    stream = c.events(kinds=[EventKind.INDEX_DURABLE], after_seq=0)
    timer = threading.Timer(30, stream.cancel)
    timer.start()
    try:
        assert next(iter(stream)).kind is EventKind.INDEX_DURABLE
    finally:
        timer.cancel()
        stream.cancel()


def _fill(path: Path) -> None:
    """Write zeros until the file system is full."""
    chunk = b"\0" * (1024 * 1024)
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError:
            pass
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass


def test_5_real_small_file_system(daemon_factory: Callable[..., Daemon], small_fs: Path) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo], home=small_fs)
    with d.client() as c:
        _wait_durable(c)  # (a bulk load the disk fills under is another case: the store is unusable until a restart)
        acked = observe_many(c, 5)
        filler = small_fs / "filler"
        _fill(filler)
        for _ in range(3):
            with pytest.raises(ResourceExhausted, match="disk full"):
                c.observe("never saved: the disk is full", anchors=[ANCHOR])
        assert "disk full" in _degraded(c)
        assert_all_present(c, acked)  # reads keep working
        filler.unlink()
        os.sync()
        wait_for(lambda: "disk full" not in _degraded(c), 10)
        acked.update(observe_many(c, 5, prefix="after"))
        assert_all_present(c, acked)
        wait_for(lambda: _searchable(c, acked), 15)
    assert d.stop() == 0
    assert b"never saved" not in (small_fs / "data" / "observations.jsonl").read_bytes()
