"""A bulk store write gives way to another checkout's first index pass (``StoreWriter.yield_point``):
it waits while ``yield_to`` says such a pass runs, at each of its steps, with urgent writes
running meanwhile, and never longer than its cap; writes that did not ask wait for nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from conftest import wait_for
from graphmemd.runtime.health import Health
from graphmemd.store.writer import StoreWriter


@pytest.fixture
def writer() -> Iterator[StoreWriter]:
    w = StoreWriter(Health(), lambda: None)
    yield w
    assert w.close(10)


def test_a_bulk_write_waits_for_the_pass_and_urgent_writes_run_meanwhile(writer: StoreWriter) -> None:
    passing = threading.Event()
    passing.set()
    asked: list[str] = []

    def busy(owner: str) -> bool:
        asked.append(owner)
        return passing.is_set()

    writer.yield_to = busy
    order: list[str] = []

    def bulk() -> float:
        order.append("bulk began")
        waited = writer.yield_point("wt2")
        order.append("bulk wrote")
        return waited

    done = writer.submit(bulk)
    wait_for(lambda: "bulk began" in order, 5)
    writer.submit(lambda: order.append("urgent"), urgent=True).result(5)  # (runs inside the wait)
    time.sleep(0.3)
    assert order == ["bulk began", "urgent"]  # still giving way
    passing.clear()
    assert done.result(5) >= 0.3
    assert order == ["bulk began", "urgent", "bulk wrote"]
    assert set(asked) == {"wt2"}


def test_its_later_steps_give_way_too_and_other_writes_do_not(writer: StoreWriter) -> None:
    passing = threading.Event()
    writer.yield_to = lambda owner: passing.is_set()
    order: list[str] = []

    def bulk() -> None:
        writer.yield_point("wt2")  # (nothing runs now: no wait)
        order.append("first chunk")
        passing.set()
        threading.Timer(0.3, passing.clear).start()
        writer.between_steps()  # (the store calls this between the chunks of a bulk load)
        order.append("second chunk")

    started = time.monotonic()
    writer.submit(bulk).result(5)
    assert time.monotonic() - started >= 0.25, "the chunk after the first did not give way"
    assert order == ["first chunk", "second chunk"]

    passing.set()

    def plain() -> None:  # a write that never called yield_point (an edit's, an observation's)
        writer.between_steps()
        order.append("plain")

    started = time.monotonic()
    writer.submit(plain).result(5)
    assert time.monotonic() - started < 0.2
    passing.clear()


def test_the_wait_is_capped(writer: StoreWriter) -> None:
    writer.yield_to = lambda owner: True  # (a pass that never ends)
    started = time.monotonic()
    waited = writer.submit(lambda: writer.yield_point("wt2", most_s=0.3)).result(5)
    assert 0.25 <= waited <= time.monotonic() - started < 2.0


def test_off_the_writer_thread_nothing_waits(writer: StoreWriter) -> None:
    writer.yield_to = lambda owner: True
    started = time.monotonic()
    assert writer.yield_point("wt2") == 0.0
    assert time.monotonic() - started < 0.1
