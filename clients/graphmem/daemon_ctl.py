"""Start and stop the graphmem daemon as a background process.

The daemon is ``python -m graphmemd run`` in its own session (detached from the
terminal), with stdin/stdout on /dev/null and stderr in ``<state>/graphmemd.stderr``
(truncated at each start; the daemon's own log is ``paths.log``). Readiness is the
standard gRPC health check answering SERVING on the daemon's Unix socket.

This module never imports the daemon's code (kuzu, tree_sitter, watchfiles): it only
runs it as a process and talks to it over gRPC.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from graphmem.client import GraphMem
from graphmem.errors import (
    AlreadyExists,
    DaemonAlreadyRunning,
    DaemonNotRunning,
    FailedPrecondition,
    GraphMemError,
    InvalidArgument,
    NotFound,
    StoreError,
    Timeout,
)
from graphmem.paths import Paths, resolve_paths, unix_target

__all__ = ["daemon_command", "read_pid", "start_daemon", "stderr_path", "stop_daemon"]

_POLL_INTERVAL: Final = 0.1

#: The daemon's exit codes that name an error class (2 is also argparse's usage error, so
#: it is not mapped to DaemonNotRunning).
_EXIT_ERRORS: Final[dict[int, type[GraphMemError]]] = {
    cls.exit_code: cls
    for cls in (
        DaemonAlreadyRunning,
        InvalidArgument,
        NotFound,
        AlreadyExists,
        FailedPrecondition,
        StoreError,
        Timeout,
    )
}


def stderr_path(paths: Paths) -> Path:
    """Where a daemon started by ``start_daemon`` writes its stderr."""
    return paths.state_dir / "graphmemd.stderr"


def _home_arg(home: str | os.PathLike[str] | None) -> str | None:
    root = home if home is not None else os.environ.get("GRAPHMEM_HOME")
    return str(Path(root).expanduser().absolute()) if root else None


def daemon_command(
    home: str | os.PathLike[str] | None = None,
    repos: Sequence[str | os.PathLike[str]] = (),
    tcp: str | None = None,
    log_level: str | None = None,
) -> list[str]:
    """``[python, -P, -m, graphmemd, run, ...]`` with absolute paths.

    ``-P`` keeps the working directory off ``sys.path``: with ``python -m`` it would come
    first, and a folder named ``graphmem`` there (a checkout, a project) would shadow the
    installed package as a namespace package whenever the install is editable (setuptools'
    editable finder runs after the path finder), failing the daemon with an ImportError.
    """
    cmd = [sys.executable, "-P", "-m", "graphmemd", "run"]
    home_dir = _home_arg(home)
    if home_dir:
        cmd += ["--home", home_dir]
    for repo in repos:
        cmd += ["--repo", str(Path(repo).expanduser().resolve())]
    if tcp:
        cmd += ["--tcp", tcp]
    if log_level:
        cmd += ["--log-level", log_level]
    return cmd


def read_pid(paths: Paths) -> int | None:
    """The pid in the daemon's pid file, or None when there is none (or it is garbage)."""
    try:
        text = paths.pid.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _pid_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (zombies count as exited)."""
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)  # reap it if it is our own child
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no procfs: trust kill(0)
    return stat.rsplit(")", 1)[-1].split()[:1] != ["Z"]


def _is_graphmemd(pid: int) -> bool:
    """Whether ``pid`` runs graphmemd (guards against signalling a recycled pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no procfs: the pid file is all we have
    return b"graphmemd" in cmdline


def _last_line(path: Path) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines()]
    except OSError:
        return ""
    lines = [ln for ln in lines if ln]
    return lines[-1] if lines else ""


def start_daemon(
    home: str | os.PathLike[str] | None = None,
    repos: Sequence[str | os.PathLike[str]] = (),
    tcp: str | None = None,
    log_level: str | None = None,
    timeout: float = 20.0,
    env: Mapping[str, str] | None = None,
) -> int:
    """Spawn the daemon detached and wait until it answers health checks with SERVING.

    ``env``: variables set for the daemon on top of this process's environment (e.g.
    ``GRAPHMEM_WATCH=0`` for a one-shot daemon).

    Returns its pid. Raises ``DaemonAlreadyRunning`` when a daemon already serves this
    home (or the new one exits with code 3), the error class matching the exit code with
    the daemon's last stderr line when it exits early, and ``Timeout`` when it is not
    ready within ``timeout`` seconds (it is then left running).
    """
    paths = resolve_paths(home)
    address = unix_target(paths.socket)
    with GraphMem(address, timeout=1.0) as probe:
        if probe.health():
            pid = read_pid(paths)
            where = f" (pid {pid})" if pid else ""
            raise DaemonAlreadyRunning(f"graphmemd is already running{where} at {address}")
    paths.ensure()
    err_path = stderr_path(paths)
    cmd = daemon_command(home, repos, tcp, log_level)
    with open(err_path, "wb") as err_file:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err_file,
            start_new_session=True,
            close_fds=True,
            cwd="/",
            env={**os.environ, **env} if env else None,
        )
    deadline = time.monotonic() + timeout
    with GraphMem(address, timeout=1.0) as probe:
        while True:
            rc = proc.poll()
            if rc is not None:
                line = _last_line(err_path) or f"see {err_path} and {paths.log}"
                cls = _EXIT_ERRORS.get(rc, GraphMemError)
                if cls is DaemonAlreadyRunning:
                    raise DaemonAlreadyRunning(line)
                raise cls(f"graphmemd exited with code {rc}: {line}")
            if probe.health():
                return proc.pid
            if time.monotonic() >= deadline:
                raise Timeout(
                    f"graphmemd (pid {proc.pid}) did not become ready within {timeout:g} s; it is still "
                    f"starting: check `graphmem status`, {err_path} and {paths.log}"
                )
            time.sleep(_POLL_INTERVAL)


def stop_daemon(home: str | os.PathLike[str] | None = None, timeout: float = 20.0) -> int:
    """Stop the daemon gracefully and wait until its process has exited.

    Sends the Shutdown RPC; when the daemon does not answer, or has not exited after half
    of ``timeout``, falls back to SIGTERM on the pid from its pid file. Returns the pid
    that was stopped (0 if unknown). Raises ``DaemonNotRunning`` when there is no daemon,
    and ``Timeout`` when the process is still alive after ``timeout`` seconds.
    """
    paths = resolve_paths(home)
    address = unix_target(paths.socket)
    deadline = time.monotonic() + timeout
    pid: int | None = None
    answered = False
    with GraphMem(address, timeout=min(5.0, timeout)) as client:
        try:
            pid = client.status().pid or None
            client.shutdown()
            answered = True
        except GraphMemError:  # no answer, or not to status/shutdown: fall back to the signal
            answered = False
    if pid is None:
        file_pid = read_pid(paths)
        if file_pid is not None and _pid_alive(file_pid) and _is_graphmemd(file_pid):
            pid = file_pid
    if pid is None:
        if answered:  # a daemon we cannot see as a process (e.g. another host): wait for silence
            _wait_unreachable(address, deadline)
            return 0
        raise DaemonNotRunning(f"graphmemd is not running (nothing answers at {address})")
    if answered and _wait_exit(pid, min(deadline, time.monotonic() + max(timeout / 2, 0.5))):
        return pid
    _terminate(pid)
    if _wait_exit(pid, deadline):
        return pid
    raise Timeout(f"graphmemd (pid {pid}) did not exit within {timeout:g} s")


def _terminate(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)


def _wait_exit(pid: int, deadline: float) -> bool:
    while _pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_INTERVAL)
    return True


def _wait_unreachable(address: str, deadline: float) -> None:
    with GraphMem(address, timeout=1.0) as probe:
        while probe.health():
            if time.monotonic() >= deadline:
                raise Timeout(f"graphmemd at {address} still answers after shutdown")
            time.sleep(_POLL_INTERVAL)
