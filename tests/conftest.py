"""Shared fixtures: a REAL daemon process on a short temp GRAPHMEM_HOME, real fixture repos
copied to temp dirs, and the real client. Nothing here is mocked."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmemd.store import engines

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "repos"


_CREATED: list[Path] = []

#: the store engine the tests run on: ``GRAPHMEM_STORE_ENGINE`` (CI's second pass runs the
#: store, fault and daemon durability tests on the other engine) or the default. One pytest
#: process only ever loads one engine (the two cannot share a process: ``store/engines.py``).
STORE_ENGINE = engines.parse_engine(os.environ.get("GRAPHMEM_STORE_ENGINE") or engines.DEFAULT_ENGINE)


def store_file(home: Path) -> Path:
    """The store database file of a daemon home on ``STORE_ENGINE``."""
    return engines.store_path(home / "data", STORE_ENGINE)


def short_tmp(prefix: str = "gm") -> Path:
    """A directory in ``$TMPDIR``, or in /tmp when ``$TMPDIR`` is too long for the Unix socket
    paths made under it (at most 107 bytes).

    Every directory made here is removed at the end of the session (``_remove_temp_dirs``)."""
    base = tempfile.gettempdir()
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=base if len(base) <= 40 else "/tmp"))
    _CREATED.append(path)
    return path


@pytest.fixture(scope="session", autouse=True)
def _remove_temp_dirs() -> Iterator[None]:
    """Leave no homes or repository copies behind (each test's daemons are stopped by then)."""
    yield
    while _CREATED:
        shutil.rmtree(_CREATED.pop(), ignore_errors=True)


def copy_fixture(name: str) -> Path:
    dest = short_tmp("gmr") / name
    shutil.copytree(FIXTURES / name, dest)
    return dest


def wait_for(pred: Callable[[], object], timeout: float = 10.0, interval: float = 0.02) -> object:
    """Poll ``pred`` until it returns something truthy (returned) or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s (last value: {last!r})")


@dataclass
class Daemon:
    home: Path
    repos: list[Path]
    proc: subprocess.Popen[bytes]
    extra: list[str] = field(default_factory=list)
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def env(self) -> dict[str, str]:
        return daemon_env(self.home, self.extra_env)

    def client(self, timeout: float = 10.0) -> GraphMem:
        return GraphMem(home=str(self.home), timeout=timeout)

    def wait_idle(self, repo_hint: str = "", timeout: float = 30.0) -> None:
        """Until every repository is READY with no pending changes (the index is current)."""
        with self.client() as c:

            def idle() -> bool:
                st = c.status()
                return bool(st.repositories) and all(
                    r.state.value == "ready" and r.pending_changes == 0 for r in st.repositories
                )

            wait_for(idle, timeout)
            # a freshness check through retrieval makes sure no job is still running
            wait_for(lambda: c.recall("zzzz-no-such-term-zzzz").freshness.current, timeout)

    def stop(self) -> int:
        if self.proc.poll() is None:
            try:
                with self.client(timeout=5) as c:
                    c.shutdown()
            except GraphMemError:
                self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                return self.proc.wait(10)
        return self.proc.returncode

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def daemon_env(home: Path, extra_env: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["GRAPHMEM_HOME"] = str(home)
    env.pop("GRAPHMEM_ADDRESS", None)
    env.setdefault("GRAPHMEM_PARSE_WORKERS", "2")
    env.update(extra_env or {})
    return env


def spawn_daemon(
    home: Path,
    repos: list[Path],
    extra: list[str] | None = None,
    wait: bool = True,
    env: dict[str, str] | None = None,
) -> Daemon:
    args = [sys.executable, "-m", "graphmemd", "run"]
    for r in repos:
        args += ["--repo", str(r)]
    args += extra or []
    proc = subprocess.Popen(
        args,
        env=daemon_env(home, env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    d = Daemon(home, repos, proc, extra or [], dict(env or {}))
    if wait:

        def healthy() -> bool:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise AssertionError(f"daemon exited with {proc.returncode}: {err}")
            try:
                with d.client(timeout=1) as c:
                    return c.health()
            except GraphMemError:
                return False

        try:
            wait_for(healthy, 30, 0.05)
            if repos:
                d.wait_idle()
        except BaseException:  # a daemon that never got ready is not left running
            proc.kill()
            proc.wait(10)
            raise
    return d


@pytest.fixture
def daemon_factory() -> Iterator[Callable[..., Daemon]]:
    started: list[Daemon] = []

    def start(
        repos: list[Path],
        home: Path | None = None,
        extra: list[str] | None = None,
        wait: bool = True,
        env: dict[str, str] | None = None,
    ) -> Daemon:
        d = spawn_daemon(home or short_tmp(), repos, extra, wait, env)
        started.append(d)
        return d

    yield start
    for d in started:
        if d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait(10)


@pytest.fixture
def py_repo() -> Path:
    return copy_fixture("python")


@pytest.fixture
def py_daemon(daemon_factory: Callable[..., Daemon], py_repo: Path) -> Daemon:
    return daemon_factory([py_repo])
