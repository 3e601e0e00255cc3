"""Packaging: ``python -m build`` makes a wheel and an sdist without deprecation warnings; a
fresh virtual environment with ``pip install <wheel>`` holds the runtime dependencies only
(no test or lint tools); ``graphmem --version`` works; the daemon starts from a directory that
holds a folder named ``graphmem``, for a regular and for an editable install.

Needs the package index (or the local wheel mirror pip is configured with) for the runtime
dependencies; about 20-40 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, short_tmp, wait_for
from graphmem import __version__

DEV_ONLY = (
    "pytest",
    "mypy",
    "ruff",
    "grpcio-tools",
    "build",
    "types-protobuf",
    "grpc-stubs",
    "pytest-timeout",
    "pytest-asyncio",
    "pytest-lsp",
)


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "GRAPHMEM_", "VIRTUAL_ENV"))}
    env["GRAPHMEM_HOME"] = str(home)
    env["GRAPHMEM_PARSE_WORKERS"] = "1"
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 300) -> str:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    tmp = short_tmp("gmi")
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def source(work: Path) -> Path:
    """A copy of what the sdist is built from (the worktree is left untouched)."""
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("clients", "daemon"):
        ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "node_modules", "*.vsix")
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    return src


@pytest.fixture(scope="module")
def dists(work: Path, source: Path) -> Path:
    out = work / "dist"
    log = _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], _clean_env(work / "h"))
    assert "Deprecat" not in log, log[-4000:]
    return out


@pytest.fixture(scope="module")
def venv(work: Path, dists: Path) -> Path:
    target = work / "venv"
    env = _clean_env(work / "h")
    _run([sys.executable, "-m", "venv", str(target)], env)
    wheel = next(dists.glob("graphmem-*.whl"))
    _run([str(target / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], env)
    return target


def test_build_makes_wheel_and_sdist(dists: Path) -> None:
    names = sorted(p.name for p in dists.iterdir())
    assert names == [f"graphmem-{__version__}-py3-none-any.whl", f"graphmem-{__version__}.tar.gz"]


def test_fresh_install_has_runtime_dependencies_only(venv: Path, work: Path) -> None:
    listing = _run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"], _clean_env(work / "h"))
    installed = {line.split("==")[0].lower() for line in listing.splitlines() if "==" in line}
    assert "graphmem" in installed
    assert "kuzu" in installed
    assert "grpcio" in installed
    assert not installed & set(DEV_ONLY), installed & set(DEV_ONLY)
    for tool in ("pytest", "mypy", "ruff"):
        assert not (venv / "bin" / tool).exists(), tool


def _daemon_runs_from_shadowing_dir(venv: Path, work: Path, tag: str) -> None:
    """``graphmem daemon run`` (foreground) from a directory holding a ``graphmem`` folder."""
    home = short_tmp("gmh")
    env = _clean_env(home)
    cwd = work / f"cwd-{tag}"
    (cwd / "graphmem").mkdir(parents=True)
    (cwd / "graphmem" / "notes.txt").write_text("a project folder that happens to be called graphmem\n")
    repo = cwd / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    graphmem = str(venv / "bin" / "graphmem")
    proc = subprocess.Popen(
        [graphmem, "daemon", "run", "--repo", "repo"],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:

        def serving() -> bool:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise AssertionError(f"daemon exited {proc.returncode}: {err[-2000:]}")
            return subprocess.run([graphmem, "status"], cwd=cwd, env=env, capture_output=True).returncode == 0

        wait_for(serving, timeout=60, interval=0.2)
        _run([graphmem, "daemon", "stop"], env, cwd=cwd, timeout=60)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(home, ignore_errors=True)


def test_version_and_daemon_from_a_directory_holding_graphmem(venv: Path, work: Path) -> None:
    env = _clean_env(work / "h")
    out = _run([str(venv / "bin" / "graphmem"), "--version"], env, cwd=work)
    assert out.strip() == f"graphmem {__version__}"
    _daemon_runs_from_shadowing_dir(venv, work, "wheel")


def test_editable_install_daemon_from_a_directory_holding_graphmem(venv: Path, work: Path, source: Path) -> None:
    """The editable install is where the shadowing happened (its finder runs after the path finder)."""
    env = _clean_env(work / "h")
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(source)], env)
    _daemon_runs_from_shadowing_dir(venv, work, "editable")
