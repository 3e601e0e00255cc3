"""What git says about worktrees, read from a real repository: the common directory of a
working tree's top (and none for a subdirectory), the working trees a repository lists,
and the branch at HEAD."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import short_tmp
from graphmemd.ingest.gitinfo import git_common_dir, head_branch, worktree_roots


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root, check=True, capture_output=True
    )


def repo() -> Path:
    root = (short_tmp("gmg") / "r").resolve()
    root.mkdir()
    (root / "sub").mkdir()
    (root / "sub" / "a.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a")
    return root


def test_worktrees_share_the_common_directory_and_a_subdirectory_is_on_its_own() -> None:
    root = repo()
    wt = root.parent / "wt"
    git(root, "worktree", "add", "-q", "-b", "feature", str(wt))
    assert git_common_dir(root) == root / ".git"
    assert git_common_dir(wt) == root / ".git"
    assert git_common_dir(root / "sub") is None  # not the top of a working tree
    assert git_common_dir(root.parent) is None  # not in git
    assert worktree_roots(root / ".git") == [root, wt]
    assert (head_branch(root), head_branch(wt)) == ("main", "feature")


def test_a_worktree_being_created_or_removed_is_not_listed() -> None:
    root = repo()
    wt = root.parent / "wt"
    git(root, "worktree", "add", "-q", "--detach", str(wt))
    entry = next((root / ".git" / "worktrees").iterdir())
    (entry / "locked").write_text("initializing")  # what git worktree add holds while it checks out
    assert worktree_roots(root / ".git") == [root]
    (entry / "locked").write_text("kept for a reason")  # a user's lock: still a worktree
    assert worktree_roots(root / ".git") == [root, wt]
    assert head_branch(wt) == ""  # detached
    (entry / "locked").unlink()
    git(root, "worktree", "remove", "--force", str(wt))
    assert worktree_roots(root / ".git") == [root]
