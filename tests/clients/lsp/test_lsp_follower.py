"""The language server's shell without an editor: the gateway fails fast and says so once while
the daemon is down; the supervised event follower survives a failing step, resumes after the
last event it saw, and reconnects when the daemon comes back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, short_tmp, wait_for
from graphmem.client import GraphMem
from graphmem.errors import DaemonNotRunning
from graphmem.lsp.follower import Follower
from graphmem.lsp.gateway import Gateway
from graphmem.types import Event, EventKind


def test_the_gateway_fails_fast_and_reports_the_daemon_down_once() -> None:
    home = short_tmp()
    links: list[tuple[bool, str]] = []
    with GraphMem(home=str(home), timeout=2.0) as client:
        gateway = Gateway(client, lambda up, why: links.append((up, why)))
        with pytest.raises(DaemonNotRunning):
            gateway.roots()
        assert gateway.calls == 1
        began = time.monotonic()
        for _ in range(20):
            with pytest.raises(DaemonNotRunning):
                gateway.outline(str(home / "a.py"), str(home))
        assert time.monotonic() - began < 0.5  # no call goes out while it is known to be down
        assert gateway.calls == 1
        assert len(links) == 1
        assert links[0][0] is False
        assert "not running" in links[0][1]
        gateway.mark_up()
        gateway.mark_up()
        assert links[1:] == [(True, "")]


def test_the_follower_survives_a_failing_step_and_resumes_after_the_last_event(py_daemon: Daemon) -> None:
    seen: list[Event] = []
    crashes: list[str] = []
    connects = threading.Semaphore(0)
    boom = threading.Event()

    def deliver(event: Event) -> None:
        if event.kind is EventKind.OBSERVATION_CHANGED and not boom.is_set():
            boom.set()
            raise RuntimeError("a handler bug")
        seen.append(event)

    with py_daemon.client(timeout=2.0) as client, py_daemon.client() as gm:
        gateway = Gateway(client, lambda up, why: None)
        follower = Follower(client, gateway, deliver, connects.release, crashes.append)
        follower.start()
        try:
            assert connects.acquire(timeout=10)
            first = gm.observe("one", anchors=["app/auth/crypto.py::hash_password"])
            wait_for(lambda: crashes, 10)
            assert crashes == ["RuntimeError: a handler bug"]
            assert connects.acquire(timeout=10)  # it subscribed again
            second = gm.observe("two", anchors=["app/auth/crypto.py::hash_password"])
            wait_for(lambda: any(e.observation_id == second.id for e in seen), 10)
            assert follower.is_alive()
            assert gateway.up
            ids = [e.observation_id for e in seen if e.kind is EventKind.OBSERVATION_CHANGED]
            assert ids == [second.id]  # the failed event is not delivered twice, nothing after it is lost
            assert first.id not in ids
        finally:
            follower.stop()
        assert not follower.is_alive()


def test_the_follower_reconnects_when_the_daemon_comes_back(
    daemon_factory: Callable[..., Daemon], py_repo: Path
) -> None:
    home = short_tmp()
    links: list[bool] = []
    delivered: list[Event] = []
    with GraphMem(home=str(home), timeout=2.0) as client:
        gateway = Gateway(client, lambda up, why: links.append(up))
        follower = Follower(client, gateway, delivered.append, lambda: None, lambda why: None)
        follower.start()
        try:
            wait_for(lambda: links == [False], 10)
            d = daemon_factory([py_repo], home=home)
            wait_for(lambda: links == [False, True], 20)
            with d.client() as gm:
                o = gm.observe("hello", anchors=["app/auth/crypto.py::hash_password"])
            wait_for(lambda: any(e.observation_id == o.id for e in delivered), 10)
            d.stop()
            wait_for(lambda: links == [False, True, False], 20)
        finally:
            follower.stop()
