"""The review page started for real for the tests: ``graphmem ui --no-open`` as a process
against a test daemon, its URL read from what it prints."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
from browserlib import CHROMIUM, launch_chromium, playwright_missing
from conftest import Daemon
from gitrepo import committed_fixture

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: a module that drives chromium: skipped, saying why, where it or Playwright is absent
NEEDS_BROWSER = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
    pytest.mark.skipif(playwright_missing(), reason="playwright is not installed (pip install -e .[dev])"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One chromium for the module (``browserlib``: a $TMPDIR of its own, removed after it exits)."""
    with launch_chromium() as b:
        yield b


_URL = re.compile(r"(http://\S+/queue\?token=(\S+))")


@dataclass
class UiServer:
    """A running ``graphmem ui``: its URL (with the token), base URL and token."""

    proc: subprocess.Popen[str]
    url: str
    token: str

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def port(self) -> int:
        """The port it listens on."""
        return urlsplit(self.url).port or 0

    def request(
        self,
        path: str,
        *,
        method: str = "GET",
        cookie: bool = True,
        header: bool = True,
        data: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, str, Mapping[str, str]]:
        """(status, body, headers) of one request (no redirects followed)."""
        req = urllib.request.Request(self.base + path, method=method, data=data)
        if cookie:
            req.add_header("Cookie", f"graphmem_ui_{self.port}={self.token}")
        if header and method != "GET":
            req.add_header("X-Graphmem-Token", self.token)
        for k, v in (headers or {}).items():
            req.add_header(k, v)

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: object, **kwargs: object) -> None:
                return None

        opener = urllib.request.build_opener(NoRedirect)
        try:
            with opener.open(req, timeout=20) as resp:
                return resp.status, resp.read().decode(), dict(resp.headers)
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode(), dict(err.headers)


@contextmanager
def ui_server(
    d: Daemon, cwd: Path, extra: list[str] | None = None, env: Mapping[str, str] | None = None
) -> Iterator[UiServer]:
    """``graphmem ui --no-open`` in ``cwd`` against daemon ``d``, until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "ui", "--no-open", *(extra or [])],
        cwd=cwd,
        env={**os.environ, **d.env, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if _URL.search(line):
                found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + 30
        while not found.wait(0.05):
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
                raise AssertionError(f"graphmem ui did not print its URL: {''.join(lines)} {err}")
        m = next(m for m in map(_URL.search, lines) if m)
        yield UiServer(proc, m.group(1), m.group(2))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


LOGIN = "app/auth/service.py::AuthService.login"


@dataclass
class Review:
    """A repository under git, its daemon, a note on ``LOGIN`` and the running page."""

    root: Path
    daemon: Daemon
    note_id: str
    ui: UiServer


@pytest.fixture
def review(daemon_factory: Callable[..., Daemon]) -> Iterator[Review]:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = committed_fixture()
    d = daemon_factory([root])
    with d.client() as c:
        note = c.observe("login raises AuthError with the email as given", anchors=[LOGIN], repo=str(root))
    with ui_server(d, root) as ui:
        yield Review(root, d, note.id, ui)


def cli_show(r: Review) -> dict[str, object]:
    """``graphmem show NOTE --json`` of the review's note, through the CLI as a user would."""
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "show", r.note_id, "--json"],
        env=r.daemon.env,
        capture_output=True,
        text=True,
        check=True,
    )
    shown: dict[str, object] = json.loads(out.stdout)
    return shown
