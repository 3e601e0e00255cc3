"""The editor-plugin example in Node (``tests/node/graphmem_example.mjs``, printed in docs/grpc.md)
runs against a real daemon: socket discovery, headers before events, create, the event that
announces it, and recall. Skipped only when ``node`` is not installed; its npm dependencies
(pinned in tests/node/package-lock.json) are installed with ``npm ci`` when missing."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, Daemon

NODE_DIR = ROOT / "tests" / "node"
EXAMPLE = NODE_DIR / "graphmem_example.mjs"
ANCHOR = "app/auth/service.py::AuthService.login"


def _npm_ci() -> None:
    """``npm ci`` unless node_modules matches the lock file already (stamp of its hash)."""
    lock = NODE_DIR / "package-lock.json"
    stamp = NODE_DIR / "node_modules" / ".graphmem-stamp"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text().strip() == digest:
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("node is installed but npm is not: cannot install tests/node dependencies")
    out = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, f"npm ci failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
    stamp.write_text(digest)


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("node is not installed: the Node example (tests/node) needs it")
    _npm_ci()
    return path


def test_the_docs_show_the_example_verbatim() -> None:
    page = (ROOT / "docs" / "grpc.md").read_text()
    blocks = re.findall(r"```js\n(.*?)```", page, flags=re.S)
    assert EXAMPLE.read_text() in blocks


def test_node_example_against_the_daemon(node: str, py_daemon: Daemon) -> None:
    repo: Path = py_daemon.repos[0]
    out = subprocess.run(
        [node, str(EXAMPLE), ANCHOR], cwd=repo, env=py_daemon.env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stdout + out.stderr
    saved = re.search(r"^saved (\S+) \(OBSERVATION_STATUS_FRESH\)$", out.stdout, flags=re.M)
    assert saved, out.stdout
    obs_id = saved.group(1)
    assert re.search(rf"^event #\d+ EVENT_KIND_OBSERVATION_CHANGED.* {obs_id}$", out.stdout, flags=re.M), out.stdout
    assert f"recalled {obs_id} OBSERVATION_STATUS_FRESH distance 0" in out.stdout
    with py_daemon.client() as c:
        assert c.get(obs_id).source == "node-example"
