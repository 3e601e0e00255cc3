"""Issue #15, failure 11: fuzzed requests to every RPC never get UNKNOWN or INTERNAL.

Requests are generated from the service descriptors with hypothesis (strings with NUL bytes,
over-long names, odd Unicode; out-of-range numbers and enum values; oversized repeated
fields), plus raw bytes that are not valid protobuf or not valid UTF-8. Each goes to a real
daemon over its socket. Shutdown is left out (it would stop the daemon under test); its
request has no fields.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from conftest import copy_fixture, daemon_env, short_tmp, wait_for
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.v1 import service_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
SKIP = {"Shutdown"}
METHODS: list[MethodDescriptor] = [
    m for s in service_pb2.DESCRIPTOR.services_by_name.values() for m in s.methods if m.name not in SKIP
]

_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=20).map(lambda s: s + "\x00" + s),
    st.integers(min_value=250, max_value=5000).map(lambda n: "a" * n),
    st.sampled_from(["", ".", "..", "/", "app/auth/crypto.py", "app/auth/crypto.py::make_token", "*", "\u2028"]),
    st.builds(lambda a, b: f"{a}/{b}", st.text(max_size=10), st.text(max_size=300)),
)
_FLOAT = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32), st.sampled_from([0.0, 1.0, -1.0, 2.0]))
_INTS = {
    FieldDescriptor.TYPE_UINT32: st.one_of(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 6, 7, 200, 201])),
    FieldDescriptor.TYPE_UINT64: st.integers(0, 2**64 - 1),
    FieldDescriptor.TYPE_INT32: st.integers(-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: st.integers(-(2**63), 2**63 - 1),
}


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    if field.type == FieldDescriptor.TYPE_STRING:
        return _text
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return _FLOAT
    if field.type == FieldDescriptor.TYPE_ENUM:
        return st.integers(-3, 40)
    if field.type in _INTS:
        return _INTS[field.type]
    return st.just(None)


def _message(desc: Descriptor, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for field in desc.fields:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth >= 1:
                continue
            inner = _message(field.message_type, depth + 1)
            parts[field.name] = st.lists(inner, max_size=2) if field.is_repeated else inner
        elif field.is_repeated:
            parts[field.name] = st.one_of(
                st.lists(_scalar(field), max_size=4),
                st.integers(60, 1100).map(lambda n, f=field: [_plain(f)] * n),
            )
        else:
            parts[field.name] = _scalar(field)
    return st.fixed_dictionaries({}, optional=parts)


def _plain(field: FieldDescriptor) -> Any:
    return {FieldDescriptor.TYPE_STRING: "app/auth/crypto.py", FieldDescriptor.TYPE_BOOL: True}.get(field.type, 1)


def _build(desc: Descriptor, values: dict[str, Any]) -> Message:
    msg = GetMessageClass(desc)()
    for name, value in values.items():
        field = desc.fields_by_name[name]
        if value is None:
            continue
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated:
                for v in value:
                    getattr(msg, name).add().CopyFrom(_build(field.message_type, v))
            else:
                getattr(msg, name).CopyFrom(_build(field.message_type, value))
        elif field.is_repeated:
            getattr(msg, name).extend(value)
        else:
            setattr(msg, name, value)
    return msg


@pytest.fixture(scope="module")
def daemon_socket() -> Iterator[str]:
    repo = copy_fixture("python")
    home = short_tmp()
    cwd = short_tmp("gmcwd")  # fuzzed relative paths resolve in this empty directory
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmemd", "run", "--repo", str(repo)],
        env=daemon_env(home),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def healthy() -> bool:
        try:
            with GraphMem(home=str(home), timeout=1) as c:
                return c.health()
        except GraphMemError:
            return False

    try:
        wait_for(healthy, 30, 0.05)
        with GraphMem(home=str(home)) as c:
            c.observe("fuzz target", anchors=["app/auth/crypto.py::make_token"])
        yield f"unix:{home}/run/graphmemd.sock"
    finally:
        proc.kill()
        proc.wait(10)
        for p in (home, cwd, repo.parent):
            shutil.rmtree(p, ignore_errors=True)


def _call(channel: grpc.Channel, method: MethodDescriptor, payload: bytes) -> grpc.StatusCode:
    path = f"/{method.containing_service.full_name}/{method.name}"
    if method.server_streaming:
        call = channel.unary_stream(path, request_serializer=None, response_deserializer=None)
        stream = call(payload, timeout=2)
        try:
            for _ in stream:
                break
        except grpc.RpcError as err:
            return err.code()
        finally:
            stream.cancel()
        return grpc.StatusCode.OK
    unary = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
    try:
        unary(payload, timeout=20)
    except grpc.RpcError as err:
        return err.code()
    return grpc.StatusCode.OK


def _safe_add_repository(method: MethodDescriptor, values: dict[str, Any]) -> dict[str, Any]:
    """Never let the fuzzer register a real directory of this machine (it would index it)."""
    if method.name == "AddRepository" and isinstance(values.get("path"), str):
        values = {**values, "path": "/nonexistent-fuzz/" + values["path"]}
    return values


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_11_fuzzed_requests_never_unknown_or_internal(daemon_socket: str, method: MethodDescriptor) -> None:
    seen: list[tuple[grpc.StatusCode, str]] = []
    with grpc.insecure_channel(daemon_socket) as channel:

        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(values=_message(method.input_type))
        def run(values: dict[str, Any]) -> None:
            values = _safe_add_repository(method, values)
            payload = _build(method.input_type, values).SerializeToString()
            code = _call(channel, method, payload)
            seen.append((code, repr(values)[:200]))
            assert code not in FORBIDDEN, (code, values)

        run()
        for raw in (b"\x0a\x02\xff\xfe", b"\x0a\x05ab\x00\xc3\x28", b"\xff\xff\xff", b"\x12\x7f"):
            code = _call(channel, method, raw)
            assert code not in FORBIDDEN, (code, raw)
    assert seen


def test_11_a_repository_hint_of_a_user_without_home_is_not_found(daemon_socket: str) -> None:
    # found by the fuzzer: pathlib's expanduser raised RuntimeError for "~0" (-> INTERNAL)
    channel = grpc.insecure_channel(daemon_socket)
    try:
        for method in (m for m in METHODS if m.name in ("GetSymbol", "ResolveSymbol")):
            request = GetMessageClass(method.input_type)(repo="~0", ref="0")
            code = _call(channel, method, request.SerializeToString())
            assert code is grpc.StatusCode.NOT_FOUND, (method.name, code)
    finally:
        channel.close()


def test_11_the_daemon_still_serves_after_the_fuzzing(daemon_socket: str) -> None:
    with GraphMem(daemon_socket) as c:
        assert c.status().serving
        assert isinstance(c.list(limit=0), list)


def test_11_no_fuzz_repository_was_registered(daemon_socket: str) -> None:
    with GraphMem(daemon_socket) as c:
        roots = [Path(r.root) for r in c.list_repos()]
    assert all(not str(r).startswith("/nonexistent-fuzz") for r in roots)
