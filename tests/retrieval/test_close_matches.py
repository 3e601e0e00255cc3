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


def test_cli_lists_close_matches(py_daemon: Daemon) -> None:
    env = dict(os.environ, GRAPHMEM_HOME=str(py_daemon.home))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphmem",
            "observe",
            "typo",
            "--anchor",
            "app/auth/crypto.py::hash_pasword",
            "--repo",
            str(py_daemon.repos[0]),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 64, out.stderr
    assert "did you mean: app/auth/crypto.py::hash_password" in out.stderr
