"""One test in a real editor: headless Neovim (Debian's ``neovim`` package; ``.ci/run`` installs
it) attaches ``graphmem lsp`` to a fixture file with its built-in LSP client and reads back the
diagnostics, the hover text and the code lenses. Skipped, saying so, when ``nvim`` is absent."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import Daemon
from graphmem.types import ObservationStatus
from lsplib import server_env

SCRIPT = Path(__file__).with_name("nvim_attach.lua")


def test_neovim_shows_the_hover_and_the_diagnostics(py_daemon: Daemon, tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim is not installed: the real-editor test needs Neovim (apt-get install neovim)")
    repo = py_daemon.repos[0]
    crypto = repo / "app/auth/crypto.py"
    with py_daemon.client() as gm:
        fresh = gm.observe("hash_password must stay constant-time", anchors=["app/auth/crypto.py::hash_password"])
        stale = gm.observe("tokens are base64 of the user id", anchors=["app/auth/crypto.py::make_token"])
        crypto.write_text(crypto.read_text().replace("return b64(payload())", "return b64(payload()) or ''"))
        deadline = time.monotonic() + 10
        while gm.get(stale.id).status is not ObservationStatus.STALE:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    out = tmp_path / "nvim.txt"
    env = server_env(py_daemon.home)
    env.update(
        GM_SERVER_CMD=f"{sys.executable} -m graphmem lsp",
        GM_FILE=str(crypto),
        GM_LINE="7",
        GM_CHAR="8",
        GM_OUT=str(out),
        HOME=str(tmp_path),  # no user configuration, no shada, no swap files elsewhere
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    lines = out.read_text().splitlines() if out.exists() else []
    report = f"{lines}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert done.returncode == 0, report
    assert lines[-1:] == ["OK"], report
    diags = [ln for ln in lines if ln.startswith("DIAG ")]
    assert len(diags) == 1
    assert diags[0].startswith(
        "DIAG 11:4 [graphmem] graphmem other note is stale: `app/auth/crypto.py::make_token`: body changed"
    )
    assert diags[0].endswith("| tokens are base64 of the user id")
    hover = next(ln for ln in lines if ln.startswith("HOVER "))
    assert "1 note on `hash_password`" in hover
    assert "hash_password must stay constant-time" in hover
    assert f"`{fresh.id}`" in hover
    assert [ln for ln in lines if ln.startswith("LENS ")] == ["LENS 7: 1 note", "LENS 11: 1 note · 1 stale"]
