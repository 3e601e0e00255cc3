"""Issue #15, failure 10: during start-up (and shutdown) the daemon answers UNAVAILABLE with
a retry hint, never FAILED_PRECONDITION or INVALID_ARGUMENT, and the client retries inside
its deadline."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from conftest import Daemon, copy_fixture, wait_for
from faultlib import ANCHOR, assert_all_present, observe_many
from graphmem.errors import DaemonNotRunning, Unavailable
from graphmem.v1 import service_pb2, service_pb2_grpc


def test_10_calls_during_start_up_are_retried(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo])
    with d.client() as c:
        acked = observe_many(c, 30)
    assert d.stop() == 0
    d2 = daemon_factory([repo], home=d.home, wait=False)
    sock = d.home / "run" / "graphmemd.sock"
    wait_for(sock.exists, 30, 0.005)
    codes: list[grpc.StatusCode] = []
    with grpc.insecure_channel(f"unix:{sock}") as ch:
        stub = service_pb2_grpc.ObservationServiceStub(ch)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                stub.ListObservations(service_pb2.ListObservationsRequest(limit=1), timeout=5)
                break
            except grpc.RpcError as err:
                codes.append(err.code())
                if err.code() == grpc.StatusCode.UNAVAILABLE and "starting up" in (err.details() or ""):
                    pushback = dict(err.trailing_metadata() or ()).get("grpc-retry-pushback-ms")
                    assert pushback is not None
                time.sleep(0.01)
    assert set(codes) <= {grpc.StatusCode.UNAVAILABLE}, codes
    d2.proc.kill()
    d2.proc.wait(10)
    d3 = daemon_factory([repo], home=d.home, wait=False)
    pid_file = d.home / "run" / "graphmemd.pid"
    # the stale socket of the killed daemon is still there; its successor announces itself
    wait_for(lambda: _read_or_empty(pid_file) == str(d3.proc.pid), 30, 0.005)
    with d3.client(timeout=60) as c:  # the client library retries UNAVAILABLE until it serves
        assert_all_present(c, acked)
        o = c.observe("saved right after start", anchors=[ANCHOR])
        assert c.get(o.id).text == "saved right after start"


def test_10_shutdown_answers_unavailable(daemon_factory: Callable[..., Daemon], py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        c.shutdown()
        with pytest.raises((Unavailable, DaemonNotRunning)):
            c.list()
    assert d.proc.wait(30) == 0


def _read_or_empty(path: Path) -> str:
    """The file's text, stripped; "" while it is not there (a starting daemon removes the old
    pid file before it writes its own: a test of exists() then a read races with that)."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return ""
