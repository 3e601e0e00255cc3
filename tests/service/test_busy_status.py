""" "Busy, retry" travels as a ``google.rpc.RetryInfo`` detail (``service/status.py``), and the
client retries exactly the calls that carry it, whatever the message says; a daemon of the
previous version (the message's prefix only) is still retried.

A real gRPC server on a Unix socket with the daemon's own guard and error mapping, and the real
client library; only the servicer behind them is a stand-in that answers busy a few times."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from conftest import short_tmp
from google.rpc import error_details_pb2
from graphmem.client import GraphMem
from graphmem.errors import DaemonNotRunning, Unavailable
from graphmem.v1 import service_pb2 as pb
from graphmem.v1 import service_pb2_grpc as pbg
from graphmemd.service.guard import Guard
from graphmemd.service.servicers import _rpc
from graphmemd.service.status import RETRY_PUSHBACK_MS
from grpc_status import rpc_status


class _Repos(pbg.RepositoryServiceServicer):
    """ListRepositories raises ``Unavailable`` ``busy`` times (through the daemon's own
    ``_rpc`` mapping), then answers."""

    def __init__(self, busy: int, message: str = "the store is catching up") -> None:
        self.busy = busy
        self.message = message
        self.calls = 0
        self._lock = threading.Lock()

    def _busy(self) -> bool:
        with self._lock:
            self.calls += 1
            return self.calls <= self.busy

    @_rpc
    def ListRepositories(
        self, request: pb.ListRepositoriesRequest, context: grpc.ServicerContext
    ) -> pb.ListRepositoriesResponse:
        if self._busy():
            raise Unavailable(self.message)
        return pb.ListRepositoriesResponse()


class _OldRepos(_Repos):
    """The same with a plain UNAVAILABLE status and no details (the previous daemon's way)."""

    def ListRepositories(
        self, request: pb.ListRepositoriesRequest, context: grpc.ServicerContext
    ) -> pb.ListRepositoriesResponse:
        if self._busy():
            context.abort(grpc.StatusCode.UNAVAILABLE, self.message)
        return pb.ListRepositoriesResponse()


class _Server:
    def __init__(self, servicer: _Repos, state: str = "") -> None:
        self.state = state
        self.dir = short_tmp("gmb")
        self.address = f"unix:{self.dir / 's.sock'}"
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), interceptors=[Guard(lambda: self.state)])
        pbg.add_RepositoryServiceServicer_to_server(servicer, self.server)
        self.server.add_insecure_port(self.address)
        self.server.start()

    def stop(self) -> None:
        self.server.stop(None).wait(10)


@pytest.fixture
def serve() -> Iterator[list[_Server]]:
    started: list[_Server] = []
    yield started
    for s in started:
        s.stop()


def _start(serve: list[_Server], servicer: _Repos, state: str = "") -> _Server:
    s = _Server(servicer, state)
    serve.append(s)
    return s


def _client(s: _Server, timeout: float = 10.0) -> GraphMem:
    return GraphMem(s.address, home=str(s.dir / "home"), timeout=timeout)


def _retry_delay_ms(err: grpc.RpcError) -> int | None:
    """The delay of the call's ``google.rpc.RetryInfo`` detail (None without one)."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    infos = [d for d in (status.details if status is not None else ()) if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR)]
    if not infos:
        return None
    assert len(infos) == 1
    info = error_details_pb2.RetryInfo()
    infos[0].Unpack(info)
    return int(info.retry_delay.ToMilliseconds())


def _raw_refusal(s: _Server) -> grpc.RpcError:
    with grpc.insecure_channel(s.address) as ch, pytest.raises(grpc.RpcError) as caught:
        pbg.RepositoryServiceStub(ch).ListRepositories(pb.ListRepositoriesRequest(), timeout=5)
    err = caught.value
    assert err.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    assert dict(err.trailing_metadata())["grpc-retry-pushback-ms"] == str(RETRY_PUSHBACK_MS)  # type: ignore[attr-defined]
    return err


def test_unavailable_carries_retry_info_and_the_client_retries_it_whatever_its_words(serve: list[_Server]) -> None:
    servicer = _Repos(busy=2)
    s = _start(serve, servicer)
    assert _retry_delay_ms(_raw_refusal(s)) == RETRY_PUSHBACK_MS
    # the message does not begin "graphmemd is ": the detail alone makes it retryable
    with _client(s) as c:
        assert c.list_repos() == []
    assert servicer.calls == 3  # busy to the raw call, busy once to the client, then the answer


def test_guard_refusal_while_starting_up_is_retryable_by_its_detail(serve: list[_Server]) -> None:
    servicer = _Repos(busy=0)
    s = _start(serve, servicer, state="starting up")
    assert _retry_delay_ms(_raw_refusal(s)) == RETRY_PUSHBACK_MS
    with _client(s, timeout=0.6) as c:
        with pytest.raises(Unavailable, match="starting up"):
            c.list_repos()  # retried until the deadline, then the last refusal
        s.state = ""
        assert c.list_repos() == []
    assert servicer.calls == 1  # the guard refused every call before it


def test_unavailable_without_the_detail_is_not_retried(serve: list[_Server]) -> None:
    servicer = _OldRepos(busy=5, message="the proxy has no backend")
    s = _start(serve, servicer)
    with _client(s) as c, pytest.raises(DaemonNotRunning, match="no backend"):
        c.list_repos()
    assert servicer.calls == 1


def test_a_daemon_of_the_previous_version_is_still_retried_by_its_message(serve: list[_Server]) -> None:
    servicer = _OldRepos(busy=2, message="graphmemd is starting up; retry in 250 ms")
    s = _start(serve, servicer)
    with _client(s) as c:
        assert c.list_repos() == []
    assert servicer.calls == 3
