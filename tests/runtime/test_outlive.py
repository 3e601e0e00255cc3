"""Whether the process a daemon exits with is still running (``runtime/outlive.py``), on real
processes: one running, one exited and reaped, one exited and not reaped (a zombie)."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from graphmemd.runtime.outlive import alive, wait_exit


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]


def test_a_running_process_is_alive_an_exited_one_is_not() -> None:
    p = subprocess.Popen(["sleep", "30"])
    try:
        assert alive(p.pid)
    finally:
        p.kill()
        p.wait()
    assert not alive(p.pid)


def test_a_zombie_is_not_alive() -> None:
    # Its parent (this test) does not reap it until the end: what a detached daemon sees of a
    # check whose shell was stopped. Only /proc tells it from a running process.
    p = subprocess.Popen(["true"])
    try:
        deadline = time.monotonic() + 10
        while _state(p.pid) != "Z":
            assert time.monotonic() < deadline, "the child never exited"
            time.sleep(0.01)
        assert not alive(p.pid)
        assert wait_exit(p.pid, threading.Event())
    finally:
        p.wait()


def test_wait_exit_returns_false_when_stopped() -> None:
    p = subprocess.Popen(["sleep", "30"])
    stop = threading.Event()
    stop.set()
    try:
        assert not wait_exit(p.pid, stop)
    finally:
        p.kill()
        p.wait()
