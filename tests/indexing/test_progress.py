"""``graphmem index`` progress: on a terminal (a real pty) one line redrawn in place and cut to the
terminal's width; ``--json`` streams progress objects on stdout, one per line."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import termios
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import ROOT, Daemon, short_tmp

COLUMNS = 64


def _big_repo(files: int = 240, functions: int = 40) -> Path:
    """Enough Python that a full index takes a few progress ticks (the daemon sends one every 0.2 s)."""
    root = short_tmp("gmp") / "big"
    for i in range(files):
        pkg = root / f"pkg{i % 8}"
        pkg.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            f"def f{i}_{j}(x, y=1):\n    z = x + y * {j}\n    return helper{j % 5}(z) if z else f{i}_{max(j - 1, 0)}(z)"
            for j in range(functions)
        )
        (pkg / f"mod{i}.py").write_text(body + "\n")
    return root


@pytest.fixture
def big_daemon(daemon_factory: Callable[..., Daemon]) -> Iterator[Daemon]:
    repo = _big_repo()
    d = daemon_factory([repo], extra=["--workers", "1"])
    yield d
    shutil.rmtree(repo.parent, ignore_errors=True)


def _env(d: Daemon) -> dict[str, str]:
    env = d.env
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon"), env.get("PYTHONPATH", "")])
    env.pop("COLUMNS", None)
    return env


def _run_on_pty(cmd: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``cmd`` with stderr on a pty of COLUMNS columns; (exit code, stdout, what the pty got)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # keep "\n" as written (no "\r\n" translation) so the test sees raw output
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError as exc:  # EIO: the other side is closed
            if exc.errno != errno.EIO:
                raise
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(60), stdout, b"".join(chunks).decode()


def test_progress_is_one_line_redrawn_on_a_terminal(big_daemon: Daemon) -> None:
    repo = big_daemon.repos[0]
    code, stdout, tty = _run_on_pty(
        [sys.executable, "-m", "graphmem", "index", str(repo), "--full"], _env(big_daemon)
    )
    assert code == 0, tty
    assert "\n" not in tty, repr(tty)  # never a new line on the terminal
    frames = [f for f in tty.split("\r\x1b[K") if f]
    assert len(frames) >= 3, repr(tty)  # it updated several times
    assert tty.endswith("\r\x1b[K")  # and cleared itself at the end
    for frame in frames:
        assert len(frame) < COLUMNS, frame  # cut to the terminal: it cannot wrap into a new line
        assert re.search(r"\d+/\d+ files", frame), frame
    done = [int(m.group(1)) for f in frames if (m := re.search(r"(\d+)/\d+ files", f))]
    assert done == sorted(done)
    assert len(set(frames)) >= 2  # the line changes (counts or elapsed time), it does not freeze
    assert ": ready, " in stdout


def test_index_json_streams_progress_objects(big_daemon: Daemon) -> None:
    repo = big_daemon.repos[0]
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "index", str(repo), "--full", "--json"],
        env=_env(big_daemon),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    objects = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(objects) >= 2
    for obj in objects:
        assert set(obj) >= {"repo_id", "state", "files_done", "files_total", "symbols", "elapsed_seconds"}
    assert objects[-1]["state"] == "INDEX_STATE_READY"
    assert objects[-1]["files_done"] == objects[-1]["files_total"] == 240
    done = [o["files_done"] for o in objects]
    assert done == sorted(done)
