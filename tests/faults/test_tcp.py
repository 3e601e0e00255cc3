"""Issue #15, failure 9: the TCP listener. Off by default; when on, loopback only (checked on
the resolved address, host names other than localhost refused) and every call needs the
per-user token."""

from __future__ import annotations

import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Callable

import pytest
from conftest import Daemon, daemon_env, short_tmp
from faultlib import ANCHOR
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument, Unauthenticated
from graphmemd.runtime.tcp import resolve_listen


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_tcp_is_off_by_default(py_daemon: Daemon) -> None:
    with py_daemon.client() as c:
        assert c.status().tcp_address == ""
    assert not (py_daemon.home / "config" / "token").exists()


def test_tcp_requires_the_token(daemon_factory: Callable[..., Daemon], py_repo: object) -> None:
    port = _free_port()
    d = daemon_factory([py_repo], extra=["--tcp", f"localhost:{port}"])
    token_file = d.home / "config" / "token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    address = f"127.0.0.1:{port}"
    with GraphMem(address, home=str(d.home), token="") as anon, pytest.raises(Unauthenticated):
        anon.list()
    with GraphMem(address, home=str(d.home), token="wrong") as bad, pytest.raises(Unauthenticated):
        bad.observe("should not be saved", anchors=[ANCHOR])
    with GraphMem(address, home=str(d.home)) as good:  # reads the token file
        o = good.observe("saved over tcp with the token", anchors=[ANCHOR])
        assert good.get(o.id).text == "saved over tcp with the token"
        assert good.status().tcp_address == address
    with d.client() as local:  # the Unix socket needs no token
        assert [x.id for x in local.list(limit=0)] == [o.id]


@pytest.mark.parametrize(
    "address", ["127.0.0.1.nip.io:7777", "x.nip.io:7777", "0.0.0.0:7777", "10.1.2.3:7777", "example.com:1"]
)
def test_non_loopback_addresses_are_refused(address: str) -> None:
    with pytest.raises(InvalidArgument):
        resolve_listen(address)


def test_loopback_literals_pass() -> None:
    assert resolve_listen("127.0.0.1:7000") is not None
    assert resolve_listen("[::1]:7000") is not None
    listen = resolve_listen("localhost:7000")
    assert listen is not None
    assert listen.host in ("127.0.0.1", "::1")


def test_remote_needs_tls() -> None:
    with pytest.raises(InvalidArgument, match="TLS"):
        resolve_listen("0.0.0.0:7000", remote=True)
    listen = resolve_listen("0.0.0.0:7000", remote=True, tls_cert="c.pem", tls_key="k.pem")
    assert listen is not None
    assert listen.remote


def test_daemon_refuses_a_nip_io_host() -> None:
    home = short_tmp()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "graphmemd", "run", "--tcp", "127.0.0.1.nip.io:7777"],
            env=daemon_env(home),
            capture_output=True,
            timeout=60,
            check=False,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert proc.returncode == InvalidArgument.exit_code
    assert b"loopback" in proc.stderr
