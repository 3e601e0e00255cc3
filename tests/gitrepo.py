"""A fixture repository under git for tests that need real commits (the review page, the code
change behind a stale note): copied from ``fixtures/repos``, committed once."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import copy_fixture


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (an identity and no signing given), returning its stdout."""
    cmd = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args]
    out = subprocess.run(cmd, cwd=root, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def committed_fixture(name: str = "python") -> Path:
    """A copy of ``fixtures/repos/<name>`` as a git repository with one commit."""
    root = copy_fixture(name)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def replace_in(path: Path, old: str, new: str) -> None:
    """Edit a file on disk: ``old`` (which must be there) becomes ``new``."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))
