"""A fixture repository under git for tests that need real commits (the review page, the code
change behind a stale note): copied from ``fixtures/repos``, committed once."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from conftest import copy_fixture


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (an identity and no signing given), returning its stdout."""
    cmd = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args]
    out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def initial_commit(root: Path, message: str = "initial") -> Path:
    """``root``, its files as they are, as a git repository on ``main`` with one commit."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return root


def committed_fixture(name: str = "python") -> Path:
    """A copy of ``fixtures/repos/<name>`` as a git repository with one commit."""
    return initial_commit(copy_fixture(name))


def worktree(repo: Path, branch: str = "feature", name: str = "wt-b") -> Path:
    """``git worktree add`` of a new ``branch`` of ``repo`` beside it (``name``); its path."""
    path = repo.parent / name
    git(repo, "worktree", "add", "-q", "-b", branch, str(path))
    return path


def replace_in(path: Path, old: str, new: str) -> None:
    """Edit a file on disk: ``old`` (which must be there) becomes ``new``."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def slow_git(directory: Path, gate: Path, words: str, seconds: int = 20) -> dict[str, str]:
    """The environment of a daemon whose ``git`` sleeps ``seconds`` before each command whose
    arguments contain ``words`` while ``gate`` exists (a wrapper in ``directory``/bin, first on
    PATH): a slow git made on purpose, switched on and off by the test."""
    real_git = shutil.which("git")
    assert real_git is not None
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(
        f'#!/bin/sh\nif [ -e "{gate}" ]; then case " $* " in *" {words} "*) sleep {seconds};; esac; fi\n'
        f'exec "{real_git}" "$@"\n'
    )
    (bin_dir / "git").chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
