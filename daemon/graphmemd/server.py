"""Daemon lifecycle: one daemon per store (flock), socket and pid files, gRPC server,
health and reflection, graceful shutdown."""

from __future__ import annotations

import fcntl
import logging
import os
import signal
import threading
from concurrent import futures
from pathlib import Path
from types import FrameType
from typing import IO

import grpc
from graphmem.errors import DaemonAlreadyRunning, InvalidArgument
from graphmem.paths import MAX_UNIX_SOCKET_PATH
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from graphmemd.app.core import Core
from graphmemd.runtime.config import DaemonConfig
from graphmemd.runtime.health import Health
from graphmemd.runtime.outlive import exit_with
from graphmemd.runtime.scratch import use_private_tempdir
from graphmemd.runtime.supervisor import install_excepthook
from graphmemd.runtime.tcp import Listen, ensure_token, resolve_listen
from graphmemd.runtime.timing import process_age
from graphmemd.service.guard import Guard
from graphmemd.service.servicers import add_services

logger = logging.getLogger(__name__)

MAX_MESSAGE = 64 * 1024 * 1024
_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.max_send_message_length", MAX_MESSAGE),
    ("grpc.so_reuseport", 0),
]


class StoreLock:
    """An exclusive flock on the store's lock file, held for the daemon's lifetime.

    Taken BEFORE binding the socket: a second server binding the same Unix socket path
    would silently steal it."""

    def __init__(self, path: Path, pid_path: Path, socket_path: Path) -> None:
        self.path = path
        self.pid_path = pid_path
        self.socket_path = socket_path
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        """Take the store's exclusive lock (DaemonAlreadyRunning when another daemon holds it), clear what a
        dead daemon left behind and write the pid file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the process lifetime
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            fh.close()
            pid = self._read_pid()
            raise DaemonAlreadyRunning(
                f"another graphmem daemon (pid {pid or 'unknown'}, socket {self.socket_path}) already owns the "
                f"store in {self.path.parent}; stop it with `graphmem daemon stop` or use another GRAPHMEM_HOME"
            ) from exc
        self._fh = fh
        # We hold the lock, so any socket/pid left behind belongs to a daemon that died.
        for stale in (self.socket_path, self.pid_path):
            if stale.exists() or stale.is_symlink():
                logger.warning("removing stale %s left by a previous daemon", stale)
                stale.unlink(missing_ok=True)
        tmp = self.pid_path.with_suffix(".tmp")
        tmp.write_text(f"{os.getpid()}\n", encoding="utf-8")
        os.replace(tmp, self.pid_path)

    def _read_pid(self) -> int | None:
        try:
            return int(self.pid_path.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        """Remove the socket and pid files and release the lock."""
        for p in (self.socket_path, self.pid_path):
            p.unlink(missing_ok=True)
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def serve(config: DaemonConfig) -> int:
    """Run the daemon in the foreground until SIGTERM/SIGINT or a Shutdown call."""
    paths = config.paths
    paths.ensure()
    socket_path = paths.socket
    if len(str(socket_path).encode()) > MAX_UNIX_SOCKET_PATH:
        raise InvalidArgument(
            f"socket path too long ({len(str(socket_path))} bytes): {socket_path}; "
            "set GRAPHMEM_HOME or XDG_RUNTIME_DIR to a shorter directory"
        )
    listen = resolve_listen(config.tcp, remote=config.tcp_remote, tls_cert=config.tls_cert, tls_key=config.tls_key)
    lock = StoreLock(paths.lock, paths.pid, socket_path)
    lock.acquire()
    use_private_tempdir(paths.runtime_dir)
    shutdown = threading.Event()
    daemon_health = Health()
    install_excepthook(daemon_health)
    core = Core(config, daemon_health)
    token = ensure_token(paths.token) if listen is not None else ""

    def state() -> str:
        if shutdown.is_set():
            return "shutting down"
        return "" if core.ready.is_set() else "starting up"

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="graphmem-rpc"),
        options=_OPTIONS,
        interceptors=[Guard(state, token)],
    )
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = add_services(server, core, str(socket_path), listen.address if listen else "", shutdown)
    reflection.enable_server_reflection([*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    for name in ("", *names):
        health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    old_umask = os.umask(0o177)
    try:
        server.add_insecure_port(f"unix:{socket_path}")
    finally:
        os.umask(old_umask)
    os.chmod(socket_path, 0o600)
    if listen is not None:
        _add_tcp_port(server, listen, config)

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        logger.info("signal %d: shutting down", signum)
        shutdown.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if config.exit_with > 0:
        exit_with(config.exit_with, shutdown.set, core.health, shutdown)
    server.start()
    logger.info(
        "graphmemd pid %d listening on %s%s%s",
        os.getpid(),
        socket_path,
        f" and {listen.address} (token {paths.token})" if listen else "",
        _since_start(),
    )
    try:
        core.open()
        for name in ("", *names):
            health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        logger.info("serving; store %s (%s)%s", config.store_path, config.store_engine, _since_start())
        shutdown.wait()
    finally:
        shutdown.set()  # new calls answer UNAVAILABLE "shutting down" from here on
        for name in ("", *names):
            health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        core.bus.close()  # end the event streams now, or they hold the graceful stop for its whole grace
        server.stop(grace=5).wait(10)
        core.close()
        lock.release()
        logger.info("stopped cleanly")
    return 0


def _since_start() -> str:
    """ " N.NNs after the process started" for the log (start-up timings), or ""."""
    age = process_age()
    return f" {age:.2f}s after the process started" if age is not None else ""


def _add_tcp_port(server: grpc.Server, listen: Listen, config: DaemonConfig) -> None:
    """Bind the checked TCP address: plaintext on loopback, TLS when remote."""
    if not listen.remote:
        bound = server.add_insecure_port(listen.address)
    else:
        try:
            key = Path(config.tls_key).read_bytes()
            cert = Path(config.tls_cert).read_bytes()
        except OSError as exc:
            raise InvalidArgument(f"cannot read the TLS certificate or key: {exc}") from exc
        bound = server.add_secure_port(listen.address, grpc.ssl_server_credentials([(key, cert)]))
    if not bound:
        raise InvalidArgument(f"cannot listen on {listen.address} (in use?)")
