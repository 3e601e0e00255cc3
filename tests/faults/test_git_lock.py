"""Issue #15, failure 12: the daemon never takes git's index lock, so the user's own
``git commit`` never fails with "Unable to create '.git/index.lock'" while it runs."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture
from graphmemd.ingest.gitinfo import git_command

GIT = shutil.which("git")


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=False, timeout=60
    )


def test_every_git_call_of_the_daemon_skips_optional_locks() -> None:
    assert git_command(Path("/r"), "status")[:2] == ["git", "--no-optional-locks"]


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_12_git_commit_loop_while_the_daemon_watches(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    assert _git(repo, "init", "-q").returncode == 0
    assert _git(repo, "add", "-A").returncode == 0
    assert _git(repo, "commit", "-qm", "initial").returncode == 0
    d = daemon_factory([repo])
    target = repo / "app" / "auth" / "crypto.py"
    original = target.read_text()
    failures: list[str] = []
    for i in range(60):
        target.write_text(original + f"\n\ndef added_{i}():\n    return {i}\n")
        (repo / "app" / f"new_{i % 5}.py").write_text(f"VALUE = {i}\n")
        for args in (("add", "-A"), ("commit", "-qm", f"change {i}")):
            done = _git(repo, *args)
            if done.returncode != 0:
                failures.append(f"git {' '.join(args)}: {done.stderr.strip()}")
    assert not failures, failures[:5]
    assert not (repo / ".git" / "index.lock").exists()
    with d.client() as c:
        assert c.status().serving
