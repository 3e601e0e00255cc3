"""A pass someone waits for holds the ordinary store writes (``StoreWriter.hold``): none
starts until it is released, a long one waits at its pauses (``pause_while_held``), urgent
writes still run, a hold lapses after ``HOLD_LIMIT_S`` and ``close`` ignores it. The real
writer thread; the writes are small callables."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from graphmemd.runtime.health import Health
from graphmemd.store import writer as writer_mod
from graphmemd.store.writer import StoreWriter

TIMEOUT = 10.0
#: how long a write that must not run is given to run anyway (a negative needs a wait)
NOT_IN = 0.3


def test_held_writes_wait_for_the_release_and_urgent_ones_do_not() -> None:
    writer = StoreWriter(Health(), lambda: None)
    ran = threading.Event()
    try:
        hold = writer.hold()
        ordinary = writer.submit(ran.set)
        assert writer.submit(lambda: "urgent", urgent=True).result(TIMEOUT) == "urgent"
        assert not ran.wait(NOT_IN)
        assert writer.pending() == 1
        hold.release()
        ordinary.result(TIMEOUT)
        hold.release()  # (a second release releases nothing: the next hold still holds)
        with writer.hold():
            later = threading.Event()
            writer.submit(later.set)
            assert not later.wait(NOT_IN)
        assert later.wait(TIMEOUT)
    finally:
        writer.close()


def test_a_long_write_waits_at_its_pause_and_runs_urgent_writes_there() -> None:
    writer = StoreWriter(Health(), lambda: None)
    order: list[str] = []
    started = threading.Event()
    go_on = threading.Event()
    try:

        def long_write() -> None:
            order.append("step 1")
            started.set()
            go_on.wait(TIMEOUT)
            writer.pause_while_held()
            order.append("step 2")

        done = writer.submit(long_write)
        assert started.wait(TIMEOUT)
        hold = writer.hold()
        go_on.set()
        writer.pause_while_held()  # not the writer thread: returns at once
        writer.submit(lambda: order.append("urgent"), urgent=True).result(TIMEOUT)
        assert not done.done()
        time.sleep(NOT_IN)
        assert order == ["step 1", "urgent"]
        hold.release()
        done.result(TIMEOUT)
        assert order == ["step 1", "urgent", "step 2"]
    finally:
        go_on.set()
        writer.close()


def test_a_hold_lapses_and_close_ignores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer_mod, "HOLD_LIMIT_S", 0.5)
    writer = StoreWriter(Health(), lambda: None)
    try:
        writer.hold()  # never released: a pass that hung
        t0 = time.monotonic()
        writer.submit(lambda: None).result(TIMEOUT)
        assert 0.4 < time.monotonic() - t0 < TIMEOUT
        monkeypatch.setattr(writer_mod, "HOLD_LIMIT_S", 600.0)
        writer.hold()
        ran = threading.Event()
        writer.submit(ran.set)
        assert not ran.wait(NOT_IN)
    finally:
        t0 = time.monotonic()
        assert writer.close(TIMEOUT)
    assert ran.is_set()
    assert time.monotonic() - t0 < TIMEOUT / 2


def _writer_cpu_s(writer: StoreWriter) -> float:
    """The writer thread's CPU seconds so far (Linux: its ``/proc`` task entry)."""
    tid = writer._loop._thread.native_id
    fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="a thread's CPU is read from /proc (Linux)")
def test_a_held_or_lapsed_hold_costs_the_writer_no_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a hold keeps a write waiting, and after a hold that was never released lapsed
    with nothing queued, the writer thread sleeps: a wait that spun would keep a daemon
    from ever being idle (the never-idle benchmark run was looked for here)."""
    monkeypatch.setattr(writer_mod, "HOLD_LIMIT_S", 1.0)
    writer = StoreWriter(Health(), lambda: None)
    try:
        writer.hold()  # never released
        done = writer.submit(lambda: None)
        before = _writer_cpu_s(writer)
        done.result(TIMEOUT)  # held for the lapse, then run
        time.sleep(1.0)  # lapsed, the leaked hold still counted, nothing queued
        assert _writer_cpu_s(writer) - before < 0.05
    finally:
        assert writer.close(TIMEOUT)
