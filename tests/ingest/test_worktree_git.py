"""What git says about worktrees, read from a real repository: where a directory sits (the
common directory, the top of its working tree, and the folder below it), the working trees a
repository lists, and the branch at HEAD."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import short_tmp
from graphmemd.ingest.gitinfo import (
    entry_stamp,
    git_place,
    head_branch,
    head_commit,
    head_info,
    worktree_entries,
    worktree_roots,
)


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


def test_worktrees_share_the_common_directory_and_a_folder_is_in_its_working_tree() -> None:
    root = repo()
    wt = root.parent / "wt"
    git(root, "worktree", "add", "-q", "-b", "feature", str(wt))
    main, linked, sub = git_place(root), git_place(wt), git_place(wt / "sub")
    assert main is not None
    assert linked is not None
    assert sub is not None
    assert (main.top, main.git_dir, main.common_dir, main.prefix) == (root, root / ".git", root / ".git", "")
    assert (linked.top, linked.common_dir, linked.prefix) == (wt, root / ".git", "")
    assert linked.git_dir == root / ".git" / "worktrees" / "wt"
    assert (sub.top, sub.git_dir, sub.common_dir, sub.prefix) == (wt, linked.git_dir, root / ".git", "sub/")
    assert sub.from_top("sub/a.py") == "a.py"
    assert sub.from_top("b.py") is None
    assert head_commit(wt / "sub") == head_commit(wt) != ""  # a folder's HEAD is its working tree's
    assert git_place(root.parent) is None  # not in git
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


def test_a_worktree_moved_keeps_its_entry_and_one_added_anew_does_not() -> None:
    root = repo()
    wt, moved = root.parent / "wt", root.parent / "elsewhere" / "wt"
    git(root, "worktree", "add", "-q", "-b", "feature", str(wt))
    entry = root / ".git" / "worktrees" / "wt"
    assert worktree_entries(root / ".git") == [(root, None), (wt, entry)]
    stamp = entry_stamp(entry)
    assert stamp is not None
    moved.parent.mkdir()
    git(root, "worktree", "move", str(wt), str(moved))
    assert worktree_entries(root / ".git") == [(root, None), (moved, entry)]
    assert entry_stamp(entry) == stamp  # the same worktree
    git(root, "worktree", "remove", "--force", str(moved))
    git(root, "worktree", "add", "-q", "-b", "other", str(wt))
    assert worktree_entries(root / ".git") == [(root, None), (wt, entry)]  # the same name again
    assert entry_stamp(entry) not in (None, stamp)  # another worktree
    assert entry_stamp(root / ".git" / "worktrees" / "none") is None


def rev(root: Path, what: str = "HEAD") -> str:
    out = subprocess.run(["git", "rev-parse", what], cwd=root, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def test_head_read_again_as_soon_as_git_moves_it() -> None:
    """HEAD as git moves it, read from the files (``head_commit``, ``head_branch`` and a status's
    ``head_info``): a commit, an update of the ref, a pack of the refs, a branch switch and a
    detached HEAD — each within the same second as the read before it — are seen at once, in
    the main checkout and in a worktree."""
    root = repo()
    wt = root.parent / "wt"
    git(root, "worktree", "add", "-q", "-b", "feature", str(wt))
    for here in (root, wt):
        first = head_commit(here)
        assert first == rev(here)
        (here / "sub" / "a.py").write_text(f"x = {here.name}\n")
        git(here, "commit", "-qam", "b")
        assert head_commit(here) == rev(here) != first
        git(here, "update-ref", "HEAD", first)
        assert head_commit(here) == first
        git(here, "pack-refs", "--all")
        assert head_commit(here) == first
        git(here, "checkout", "-q", "-b", f"other-{here.name}")
        assert (head_branch(here), head_commit(here)) == (f"other-{here.name}", first)
        git(here, "checkout", "-q", "--detach")
        assert (head_branch(here), head_commit(here)) == ("", first)
        assert head_info(here) == ("", first)
    assert head_branch(root) == ""
    assert head_commit(wt) == rev(wt)
