"""A one-shot check killed before its end leaves no daemon running (``runtime/outlive.py``).

``graphmem check --one-shot`` starts a private daemon, detached, and stops it when the check
is done. Killed before that (a CI job cancelled, ``timeout``), it left the daemon running for
good (three of them, ~300 MB each, found an hour later). Real processes: a real daemon told
the process to exit with, a real check frozen once its daemon is up, then killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Daemon, wait_for
from gitrepo import committed_fixture

DaemonFactory = Callable[..., Daemon]
_SCRIPT = Path(sys.executable).with_name("graphmem")
GRAPHMEM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "graphmem"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_daemon_told_to_exit_with_a_process_stops_cleanly_when_it_exits(daemon_factory: DaemonFactory) -> None:
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        d = daemon_factory([committed_fixture("python")], env={"GRAPHMEM_EXIT_WITH": str(sleeper.pid)})
        with d.client() as c:
            assert c.health()
        time.sleep(0.3)  # (alive while that process is)
        assert d.proc.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()
    wait_for(lambda: d.proc.poll() is not None, 20)
    assert d.proc.returncode == 0
    log = (d.home / "state" / "graphmemd.log").read_text()
    assert f"process {sleeper.pid} (GRAPHMEM_EXIT_WITH) has exited: shutting down" in log
    assert "stopped cleanly" in log


def _homes() -> set[Path]:
    return {p for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith("gmchk-")}


@pytest.fixture
def frozen_check() -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    """A ``graphmem check --one-shot`` stopped (SIGSTOP) once its private daemon has written
    its pid: (the check, the daemon's pid, its home)."""
    repo = committed_fixture("knowledge")
    env = dict(os.environ, GRAPHMEM_PARSE_WORKERS="1")
    env.pop("GRAPHMEM_ADDRESS", None)
    before = _homes()
    check = subprocess.Popen([*GRAPHMEM, "check", "--one-shot"], cwd=repo, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    pid_file = None
    deadline = time.monotonic() + 60
    while pid_file is None and time.monotonic() < deadline and check.poll() is None:
        pid_file = next((p for h in _homes() - before if (p := h / "run" / "graphmemd.pid").exists()), None)
        time.sleep(0.005)
    assert pid_file is not None, "the check's private daemon never wrote its pid"
    os.kill(check.pid, signal.SIGSTOP)
    home = pid_file.parent.parent
    daemon = int(wait_for(lambda: pid_file.read_text().strip(), 10))  # type: ignore[arg-type]
    try:
        yield check, daemon, home
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
        if _alive(daemon):
            os.kill(daemon, signal.SIGKILL)
        shutil.rmtree(home, ignore_errors=True)


def test_a_one_shot_check_killed_leaves_no_daemon_running(
    frozen_check: tuple[subprocess.Popen[bytes], int, Path],
) -> None:
    check, daemon, _home = frozen_check
    assert _alive(daemon)  # (the check is frozen mid-way: its daemon is up)
    environ = Path(f"/proc/{daemon}/environ").read_bytes().split(b"\0")
    assert f"GRAPHMEM_EXIT_WITH={check.pid}".encode() in environ
    check.kill()  # SIGKILL: no clean-up of its own
    check.wait()
    wait_for(lambda: not _alive(daemon), 20)


def test_a_one_shot_check_terminated_stops_its_daemon_and_removes_its_home(
    frozen_check: tuple[subprocess.Popen[bytes], int, Path],
) -> None:
    check, daemon, home = frozen_check
    os.kill(check.pid, signal.SIGTERM)
    os.kill(check.pid, signal.SIGCONT)
    assert check.wait(60) == 128 + signal.SIGTERM
    assert not _alive(daemon)
    assert not home.exists()
