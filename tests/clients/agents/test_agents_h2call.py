"""The hooks' gRPC call over HTTP/2 (``graphmem.agents.h2call``) against a real daemon: the same
answers as grpc's, the daemon's status codes, flow control past the first window, deadlines,
and a hook that never loads grpc (nor ``h2``, ``logging``, ``dataclasses``) for a local daemon."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from conftest import Daemon, copy_fixture, short_tmp, wait_for
from graphmem.agents import h2call, wire
from graphmem.paths import resolve_paths
from graphmem.types import ObservationStatus

SERVICE = "/graphmem.v1.RetrievalService/"


@pytest.fixture
def daemon(daemon_factory: Callable[..., Daemon]) -> tuple[Daemon, Path, str]:
    repo = copy_fixture("python")
    d = daemon_factory([repo])
    with d.client() as c:
        note = c.observe("login checks the password hash before the rate limit", anchors=["app/auth/service.py"])
        service = repo / "app/auth/service.py"  # an edit under the note: the post-edit answer calls it out
        service.write_text(service.read_text() + "\n\ndef audit(event: str) -> None:\n    pass\n")
        wait_for(lambda: c.get(note.id).status is ObservationStatus.STALE, 30)
    d.wait_idle()
    return d, repo, str(resolve_paths(str(d.home), {}).socket)


def test_answers_match_grpc_for_both_calls(daemon: tuple[Daemon, Path, str]) -> None:
    _d, repo, sock = daemon
    requests = {
        "SessionBrief": wire.session_brief_request(str(repo), 1200, False),
        "EditContext": wire.edit_context_request(str(repo), [str(repo / "app/auth/service.py")], 600, 0, False, []),
    }
    with grpc.insecure_channel(f"unix:{sock}") as channel:
        for method, request in requests.items():
            over_h2 = h2call.unary(sock, SERVICE + method, request, 5.0)
            over_grpc = channel.unary_unary(SERVICE + method)(request, timeout=5.0)
            assert wire.decode(over_h2) == wire.decode(over_grpc)
            assert "login checks the password hash" in "".join(wire.strings(wire.decode(over_h2), 1))


def test_a_request_larger_than_the_first_window_is_sent_whole(daemon: tuple[Daemon, Path, str]) -> None:
    """HTTP/2 lets a client send 65,535 bytes before the server grants more: a post-edit hook
    late in a long session sends every note id it has shown (up to 2,000)."""
    _, repo, sock = daemon
    shown = [f"{i:064x}" for i in range(2000)]  # ~136 KB
    request = wire.edit_context_request(str(repo), [str(repo / "app/auth/service.py")], 600, 0, False, shown)
    assert len(request) > 2 * 65535
    text = "".join(wire.strings(wire.decode(h2call.unary(sock, SERVICE + "EditContext", request, 5.0)), 1))
    assert "login checks the password hash" in text


def test_the_daemons_status_is_raised(daemon: tuple[Daemon, Path, str]) -> None:
    _, repo, sock = daemon
    with pytest.raises(h2call.CallFailed) as unknown:
        h2call.unary(sock, SERVICE + "NoSuchMethod", b"", 5.0)
    assert unknown.value.status == grpc.StatusCode.UNIMPLEMENTED.value[0]
    bad = wire.edit_context_request(str(repo), [], 600, 0, False, [])  # no files
    with pytest.raises(h2call.CallFailed) as invalid:
        h2call.unary(sock, SERVICE + "EditContext", bad, 5.0)
    assert invalid.value.status == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert str(invalid.value)


def test_no_socket_and_a_silent_peer_fail_within_the_deadline() -> None:
    where = short_tmp("gmh")
    with pytest.raises(h2call.CallFailed) as missing:
        h2call.unary(str(where / "none.sock"), SERVICE + "SessionBrief", b"", 1.0)
    assert missing.value.status == grpc.StatusCode.UNAVAILABLE.value[0]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # accepts, then never answers
    listener.bind(str(where / "silent.sock"))
    listener.listen(1)
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    began = time.monotonic()
    try:
        with pytest.raises(h2call.CallFailed) as silent:
            h2call.unary(str(where / "silent.sock"), SERVICE + "SessionBrief", b"", 0.5)
        assert silent.value.status == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
        assert time.monotonic() - began < 3
    finally:
        for s in (*accepted, listener):
            s.close()


def test_a_local_hook_loads_no_grpc_protobuf_h2_dataclasses_nor_socket(daemon: tuple[Daemon, Path, str]) -> None:
    d, repo, _ = daemon
    payload = {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    script = (
        "import sys\n"
        "from graphmem.agents.hook import main\n"
        "main(['session-start', '--home', sys.argv[1]])\n"
        "heavy = ('grpc', 'google.protobuf', 'h2', 'hpack', 'logging', 'dataclasses', 'socket')\n"
        "print('LOADED', sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(d.home)], input=json.dumps(payload), capture_output=True,
                         text=True, cwd=repo, timeout=30, env=d.env)
    assert out.returncode == 0, out.stderr
    answer, loaded = out.stdout.rsplit("LOADED", 1)
    assert "login checks the password hash" in json.loads(answer)["hookSpecificOutput"]["additionalContext"]
    assert loaded.strip() == "[]"
