"""What git's history says about files (blame, per-file log, changes since a commit, old
versions), on a real repository with real commits; and the parsers of git's output."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.gitinfo import _PATHSPEC_MAX, last_commits, uncommitted_paths, working_tree_dirty
from graphmemd.ingest.gitparse import UNCOMMITTED, parse_name_status


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    run_env = {**os.environ, **(env or {})}
    out = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=run_env)
    return out.stdout.strip()


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    (root / "a.md").write_text("one\ntwo\n")
    (root / "x.py").write_text("def f():\n    return 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first", env={"GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"})
    first = git(root, "rev-parse", "HEAD")
    (root / "a.md").write_text("one\nTWO\n")
    git(root, "mv", "x.py", "y.py")
    git(root, "commit", "-qam", "second")
    return root, first, git(root, "rev-parse", "HEAD")


def test_blame_log_changes_and_old_versions(tmp_path: Path) -> None:
    root, first, second = _repo(tmp_path)
    (root / "a.md").write_text("one\nTWO\nthree\n")  # a line not committed yet
    h = GitHistory(root)
    assert h.enabled
    assert h.head == second
    blame = h.blame("a.md")
    assert blame[1].commit == first
    assert blame[2].commit == second
    assert blame[3].commit == UNCOMMITTED
    assert not blame[3].committed
    assert blame[1].time < blame[2].time
    assert [c for c, _ in h.commits("a.md")] == [second, first]
    assert h.dirty() == {"a.md"}
    changes = h.changed_since(first)
    assert ("R", "x.py", "y.py") in changes
    assert ("M", "a.md", "a.md") in changes
    got = h.blobs([(first, "x.py"), (second, "x.py"), (first, "a.md")])
    assert got[(first, "x.py")] == b"def f():\n    return 1\n"
    assert got[(second, "x.py")] is None
    assert got[(first, "a.md")] == b"one\ntwo\n"


def test_outside_git_every_answer_is_empty(tmp_path: Path) -> None:
    h = GitHistory(tmp_path)
    assert not h.enabled
    assert h.blame("a.md") == {}
    assert h.commits("a.md") == []
    assert h.changed_since("HEAD") == []
    assert h.blobs([("HEAD", "a.md")]) == {("HEAD", "a.md"): None}


def test_name_status_parser() -> None:
    text = "M\0a.md\0R087\0old.py\0new.py\0D\0gone.go\0"
    assert parse_name_status(text) == [("M", "a.md", "a.md"), ("R", "old.py", "new.py"), ("D", "gone.go", "gone.go")]


def test_a_folder_inside_a_repository_sees_its_own_files_by_its_own_paths(tmp_path: Path) -> None:
    """A registered folder of a working tree (no ``.git`` of its own): every answer is in
    paths relative to the folder, and the files beside it are not part of it."""
    outer = tmp_path / "outer"
    folder = outer / "fixtures" / "py"
    (folder / "pkg").mkdir(parents=True)
    git(outer, "init", "-q", "-b", "main")
    git(outer, "config", "user.email", "t@example.com")
    git(outer, "config", "user.name", "T")
    (folder / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    (folder / "n.py").write_text("x = 1\n")
    (outer / "beside.py").write_text("y = 1\n")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "first")
    first = git(outer, "rev-parse", "HEAD")
    (outer / "beside.py").write_text("y = 2\n")  # a commit touching only the file beside
    git(outer, "commit", "-qam", "beside")
    git(folder, "mv", "n.py", "o.py")
    git(outer, "commit", "-qm", "rename")
    third = git(outer, "rev-parse", "HEAD")
    (folder / "pkg" / "m.py").write_text("def f():\n    return 2\n")
    (outer / "beside.py").write_text("y = 3\n")  # not committed, beside the folder
    (folder / "new.py").write_text("z = 1\n")  # untracked, in the folder

    h = GitHistory(folder)
    assert h.enabled
    assert h.head == third
    assert [c for c, _ in h.commits("pkg/m.py")] == [first]
    assert h.dirty() == {"pkg/m.py"}
    assert ("R", "n.py", "o.py") in h.changed_since(first)
    assert all("beside" not in p for _, old, new in h.changed_since(first) for p in (old, new))
    assert h.blame("pkg/m.py")[1].commit == first
    assert not h.blame("pkg/m.py")[2].committed
    got = h.blobs([(first, "pkg/m.py"), (third, "o.py"), (third, "beside.py")])
    assert got[(first, "pkg/m.py")] == b"def f():\n    return 1\n"
    assert got[(third, "o.py")] == b"x = 1\n"
    assert got[(third, "beside.py")] is None  # beside the folder: not one of its files

    assert uncommitted_paths(folder, ["pkg/m.py", "o.py", "new.py"]) == {"pkg/m.py", "new.py"}
    many = [f"x{i}.py" for i in range(_PATHSPEC_MAX)] + ["pkg/m.py", "o.py"]  # one status of the folder
    assert uncommitted_paths(folder, many) == {"pkg/m.py"}
    assert last_commits(folder, ["o.py", "pkg/m.py"]) == {"o.py": third, "pkg/m.py": first}
    git(folder, "checkout", "-q", "--", "pkg/m.py")
    assert not working_tree_dirty(folder)  # beside.py is changed, but not in the folder
    assert working_tree_dirty(outer)


def test_answers_that_never_change_are_kept_for_the_next_instance_and_a_worktree(tmp_path: Path) -> None:
    """Blob ids asked by a full commit id, and blames by HEAD and the working file's bytes, are
    kept in the maps given (a repository's checkouts share them); ``HEAD`` moves, and a file
    edited since is blamed again."""
    root, first, _second = _repo(tmp_path)
    ids: dict[tuple[str, str], str | None] = {}
    blames: dict[tuple[str, str, str], dict[int, object]] = {}
    h = GitHistory(root, ids=ids, blames=blames)  # type: ignore[arg-type]
    h.blame("a.md")
    h.blob_ids([(first, "x.py"), ("HEAD", "a.md")])
    assert (first, "x.py") in ids
    assert ("HEAD", "a.md") not in ids  # (HEAD names another commit tomorrow)
    assert len(blames) == 1
    runs = h.calls

    # a worktree at the same HEAD: the same answers without a git run
    tree = tmp_path / "wt"
    git(root, "worktree", "add", "-q", "-b", "side", str(tree))
    w = GitHistory(tree, ids=ids, blames=blames)  # type: ignore[arg-type]
    assert w.blame("a.md") == h.blame("a.md")
    assert w.blob_ids([(first, "x.py")]) == {(first, "x.py"): ids[(first, "x.py")]}
    assert w.calls == 0
    assert h.calls == runs

    # the worktree's file edited: blamed again, its new line not committed
    (tree / "a.md").write_text("one\nTWO\nthree\n")
    w2 = GitHistory(tree, ids=ids, blames=blames)  # type: ignore[arg-type]
    assert not w2.blame("a.md")[3].committed
    assert w2.calls == 1
    assert len(blames) == 2


def test_files_blamed_at_once_answer_as_one_by_one(tmp_path: Path) -> None:
    """``blame_all`` runs several ``git blame`` at once; ``blame`` then answers from them, as it
    would have one file at a time."""
    root, _first, _second = _repo(tmp_path)
    (root / "a.md").write_text("one\nTWO\nthree\n")  # (a line not committed: blamed as such)
    together = GitHistory(root)
    together.blame_all(["a.md", "y.py", "missing.py", "a.md"])
    assert together.calls == 3
    alone = GitHistory(root)
    for path in ("a.md", "y.py", "missing.py"):
        assert together.blame(path) == alone.blame(path)
    assert together.calls == 3  # (answered from what blame_all read)
    assert together.blame("missing.py") == {}
    assert not together.blame("a.md")[3].committed
