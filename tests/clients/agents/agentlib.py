"""Helpers of the agent tests: the real ``graphmem`` executable in a subprocess, with ``HOME``
(and so every user-scope client file) in a temporary directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("graphmem")
GRAPHMEM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "graphmem"]


def agent_env(home: Path, gm_home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user whose home is ``home``, whose graphmem home is ``gm_home`` and
    who has this graphmem on ``PATH`` (as an installed one is: project files name it so)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "CODEX_", "XDG_CONFIG"))}
    path = os.pathsep.join([str(_SCRIPT.parent), env.get("PATH", os.defpath)])
    env.update(HOME=str(home), GRAPHMEM_HOME=str(gm_home), GRAPHMEM_PARSE_WORKERS="2", PATH=path, **extra)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``graphmem ARGS`` in ``cwd``."""
    return subprocess.run([*GRAPHMEM, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path -> bytes), ``.git`` left out."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def dirs(root: Path) -> set[str]:
    """Every directory under ``root``."""
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir()}
