"""The optional TCP listener: where it may bind, and the per-user token it requires.

TCP is off by default (the Unix socket, private to the user, is the normal way in). When
enabled it binds loopback only: the host must be an IP literal that is a loopback address,
or ``localhost`` whose resolved addresses (from the local resolver) are all loopback; the
listener binds the resolved literal, never the name. Any other host name is refused without
resolving it (``127.0.0.1.nip.io`` would resolve to loopback today and anything tomorrow).
Binding elsewhere needs ``remote=True`` together with a TLS certificate and key.

Every TCP call must carry the per-user token, a random secret created 0600 in the config
directory on first use (``token_path``); clients read it from there.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import InvalidArgument

__all__ = ["Listen", "ensure_token", "read_token", "resolve_listen", "split_host_port"]


@dataclass(frozen=True, slots=True)
class Listen:
    """A checked TCP address to bind (``host`` is an IP literal)."""

    host: str
    port: int
    remote: bool

    @property
    def address(self) -> str:
        """``host:port`` as gRPC takes it (IPv6 hosts in brackets)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def split_host_port(value: str) -> tuple[str, int]:
    """``host:port`` or ``[v6]:port`` -> (host, port)."""
    value = value.strip()
    if value.startswith("["):
        host, sep, rest = value[1:].partition("]")
        if not sep or not rest.startswith(":"):
            raise InvalidArgument(f"--tcp takes HOST:PORT or [IPv6]:PORT, not {value!r}")
        port_s = rest[1:]
    else:
        host, sep, port_s = value.rpartition(":")
        if not sep or not host:
            raise InvalidArgument(f"--tcp takes HOST:PORT, not {value!r}")
    try:
        port = int(port_s)
    except ValueError:
        raise InvalidArgument(f"the TCP port must be a number, not {port_s!r}") from None
    if not 0 <= port <= 65535:
        raise InvalidArgument(f"the TCP port must be between 0 and 65535, not {port}")
    return host, port


def _loopback_literal(host: str, port: int) -> str:
    if host.lower() == "localhost":
        try:
            infos = socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise InvalidArgument(f"localhost does not resolve: {exc}") from exc
        addrs = sorted({str(info[4][0]) for info in infos})
        bad = [a for a in addrs if not ipaddress.ip_address(a.split("%")[0]).is_loopback]
        if not addrs or bad:
            raise InvalidArgument(f"localhost resolves to non-loopback addresses {bad}; give 127.0.0.1 instead")
        return "127.0.0.1" if "127.0.0.1" in addrs else addrs[0]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise InvalidArgument(
            f"TCP binds loopback only: give 127.0.0.1, [::1] or localhost, not the host name {host!r}"
        ) from None
    if not ip.is_loopback:
        raise InvalidArgument(
            f"TCP binds loopback only, and {host} is not a loopback address; to accept remote "
            "connections pass --tcp-remote with a TLS certificate and key"
        )
    return str(ip)


def resolve_listen(value: str, *, remote: bool = False, tls_cert: str = "", tls_key: str = "") -> Listen | None:
    """The checked listener for ``--tcp VALUE`` (None when TCP is off)."""
    if not value:
        return None
    host, port = split_host_port(value)
    if remote:
        if not (tls_cert and tls_key):
            raise InvalidArgument("remote TCP access needs TLS: set GRAPHMEM_TLS_CERT and GRAPHMEM_TLS_KEY")
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            raise InvalidArgument(f"give the IP address to bind, not the host name {host!r}") from None
        return Listen(str(ip), port, remote=True)
    return Listen(_loopback_literal(host, port), port, remote=False)


def read_token(path: Path) -> str:
    """The token in ``path`` ("" when there is none)."""
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def ensure_token(path: Path) -> str:
    """The per-user token, created (0600, in a 0700 directory) when missing; an existing
    file readable by others is tightened to 0600."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    existing = read_token(path)
    if existing:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        return existing
    token = secrets.token_urlsafe(32)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, token.encode("ascii") + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return token
