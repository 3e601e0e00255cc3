"""Committed configuration works for everyone (issue 43): ``graphmem setup`` for each client in
project scope, then every file it wrote is read as a teammate's machine would: another ``HOME``,
graphmem installed in another virtualenv, that one on ``PATH``. Every command in the files
resolves there (``shutil.which`` with that ``PATH``) and answers ``--version`` through it; no
file names the first machine's virtualenv, home or graphmem home; new files are 0644."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import site
import stat
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentlib import GRAPHMEM, agent_env, snapshot
from conftest import short_tmp
from graphmem import __version__
from graphmem.agents.table import CLIENTS

SYSTEM_PATH = "/usr/bin:/bin"


def other_virtualenv(where: Path) -> Path:
    """A second virtualenv with graphmem importable and its own ``bin/graphmem``: a real venv
    (``python -m venv``) whose site-packages adds this one's (``site.addsitedir`` in a .pth, so
    the editable install's own .pth files are processed too)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    ask = "import sysconfig; print(sysconfig.get_path('purelib'))"
    purelib = subprocess.run([str(where / "bin/python"), "-c", ask], check=True, capture_output=True, text=True,
                             timeout=60).stdout.strip()
    lines = "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages())
    Path(purelib, "graphmem_here.pth").write_text(lines)
    script = where / "bin/graphmem"
    script.write_text(f"#!{where}/bin/python\nimport sys\nfrom graphmem.launcher import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return script


def commands(value: Any) -> Iterator[list[str]]:
    """Every command a client would run from a parsed configuration: an MCP entry's
    ``command`` + ``args``, a hook handler's shell line."""
    if isinstance(value, dict):
        if isinstance(value.get("command"), str):
            args = value.get("args")
            yield [value["command"], *args] if isinstance(args, list) else shlex.split(value["command"])
        for v in value.values():
            yield from commands(v)
    elif isinstance(value, list):
        for v in value:
            yield from commands(v)


def parsed(path: Path) -> Any:
    text = path.read_text()
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", re.sub(r"^\s*//.*$", "", text, flags=re.M)))


def test_project_files_work_from_another_home_and_virtualenv(tmp_path: Path) -> None:
    gm_home = short_tmp("gmh")
    home1 = tmp_path / "home1"
    (home1 / ".codeium/windsurf").mkdir(parents=True)  # Windsurf's server is the user's: its folder exists
    env1 = agent_env(home1, gm_home)  # this machine: its graphmem on PATH, a GRAPHMEM_HOME exported
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "app.py").write_text("def main() -> None:\n    pass\n")

    for name in CLIENTS:
        done = subprocess.run(["sh", "-c", 'umask 022 && exec "$@"', "sh", *GRAPHMEM, "setup", name,
                               "--no-register", "--instructions"],
                              cwd=repo, env=env1, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "note:" not in done.stdout  # `graphmem` on this PATH is the one running setup

    written = {rel: data for rel, data in snapshot(repo).items() if not rel.endswith(".md") and rel != "app.py"}
    assert set(written) == {".mcp.json", ".claude/settings.json", ".codex/config.toml", ".codex/hooks.json",
                            ".cursor/mcp.json", ".cursor/hooks.json", ".vscode/mcp.json",
                            ".github/hooks/graphmem.json", ".gemini/settings.json"}
    first_machine = [str(home1), str(gm_home), sys.prefix, str(Path(GRAPHMEM[0]).parent)]
    for rel, data in written.items():
        assert stat.S_IMODE((repo / rel).stat().st_mode) == 0o644, rel
        text = data.decode()
        assert "GRAPHMEM_HOME" not in text, rel  # exported, not passed with --home: not written
        for where in first_machine:
            assert where not in text, (rel, where)

    home2 = tmp_path / "home2"
    home2.mkdir()
    script = other_virtualenv(tmp_path / "other-venv")
    path2 = f"{script.parent}{os.pathsep}{SYSTEM_PATH}"
    env2 = {"HOME": str(home2), "PATH": path2, "LANG": "C.UTF-8"}

    ran: dict[str, int] = {}
    for rel in written:
        for argv in commands(parsed(repo / rel)):
            found = shutil.which(argv[0], path=path2)
            assert found == str(script), (rel, argv)
            assert argv[1:2] in (["mcp"], ["hook"]), argv
            done = subprocess.run([found, "--version"], env=env2, cwd=repo, capture_output=True, text=True,
                                  timeout=60, stdin=subprocess.DEVNULL)
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip() == f"graphmem {__version__}"
            ran[rel] = ran.get(rel, 0) + 1
    # every client's server and both of its hooks were resolved and run (Windsurf: user scope only)
    assert ran == {".mcp.json": 1, ".claude/settings.json": 2, ".codex/config.toml": 1, ".codex/hooks.json": 2,
                   ".cursor/mcp.json": 1, ".cursor/hooks.json": 2, ".vscode/mcp.json": 1,
                   ".github/hooks/graphmem.json": 2, ".gemini/settings.json": 3}
