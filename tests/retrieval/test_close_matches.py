"""A reference that does not resolve fails with INVALID_ARGUMENT whose google.rpc.Status
carries a ``graphmem.v1.CloseMatches`` detail: structured for programs (the client exposes it
on the exception), and listed by the CLI. Real daemon."""

from __future__ import annotations

import os
import subprocess
import sys

import grpc
import pytest
from conftest import Daemon
from google.rpc import status_pb2
from graphmem.errors import InvalidArgument
from graphmem.paths import unix_target
from graphmem.v1 import service_pb2, service_pb2_grpc, types_pb2


def test_client_exposes_close_matches(py_daemon: Daemon) -> None:
    with py_daemon.client() as c, pytest.raises(InvalidArgument) as info:
        c.observe("typo", anchors=["app/auth/crypto.py::hash_pasword"])
    assert info.value.reference == "app/auth/crypto.py::hash_pasword"
    assert info.value.close_matches[0] == "app/auth/crypto.py::hash_password"


def test_status_details_on_the_wire(py_daemon: Daemon) -> None:
    with grpc.insecure_channel(unix_target(py_daemon.home / "run" / "graphmemd.sock")) as ch:
        stub = service_pb2_grpc.ObservationServiceStub(ch)
        request = service_pb2.CreateObservationRequest(text="typo", anchors=["app/auth/crypto.py::hash_pasword"])
        with pytest.raises(grpc.RpcError) as info:
            stub.CreateObservation(request, timeout=10)
    err = info.value
    assert err.code() is grpc.StatusCode.INVALID_ARGUMENT
    raw = dict(err.trailing_metadata() or ())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(raw)
    matches = types_pb2.CloseMatches()
    assert status.details[0].Unpack(matches)
    assert matches.candidates[0] == "app/auth/crypto.py::hash_password"


def cli(daemon: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GRAPHMEM_HOME=str(daemon.home))
    return subprocess.run([sys.executable, "-m", "graphmem", *args, "--repo", str(daemon.repos[0])], env=env,
                          capture_output=True, text=True, timeout=60)


def test_cli_lists_close_matches_once_with_the_flag_to_pick_one(py_daemon: Daemon) -> None:
    out = cli(py_daemon, "observe", "typo", "--anchor", "app/auth/crypto.py::hash_pasword")
    assert out.returncode == 64, out.stderr
    message, hint = out.stderr.splitlines()  # each said once: no second "did you mean" listing
    assert message.startswith("graphmem: anchor 'app/auth/crypto.py::hash_pasword' does not resolve in repository ")
    assert "; close matches: app/auth/crypto.py::hash_password, " in message
    assert hint == "graphmem: e.g. --anchor app/auth/crypto.py::hash_password"


def test_a_bare_name_naming_one_symbol_is_that_symbol(py_daemon: Daemon) -> None:
    out = cli(py_daemon, "observe", "hashes use a per-user salt", "--anchor", "hash_password")
    assert out.returncode == 0, out.stderr
    obs_id = out.stdout.split()[0]
    with py_daemon.client() as c:
        assert [a.ref for a in c.get(obs_id).anchors] == ["app/auth/crypto.py::hash_password"]
        # the same through the API (the MCP tools and the language server call it)
        o = c.observe("the service logs in by password", anchors=["AuthService.login"])
    assert [a.ref for a in o.anchors] == ["app/auth/service.py::AuthService.login"]


def test_an_ambiguous_name_lists_its_symbols_once(py_daemon: Daemon) -> None:
    out = cli(py_daemon, "observe", "shown in the header", "--anchor", "display_name")
    assert out.returncode == 64, out.stderr
    assert out.stderr.splitlines() == [
        "graphmem: anchor 'display_name' names 2 symbols; give one in full: app/models.py::User.display_name, "
        "app/models.py::Admin.display_name",
        "graphmem: e.g. --anchor app/models.py::User.display_name",
    ]
    with py_daemon.client() as c:
        assert all(o.text != "shown in the header" for o in c.list())  # nothing saved
