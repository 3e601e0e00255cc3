"""A registered folder inside a git working tree reads the ignore files git reads for it: the
``.gitignore`` files of the directories above it up to the top (each pattern relative to its
own file's directory) and the repository's ``info/exclude`` — a real git repository, checked
against ``git check-ignore``, then a real daemon registering the folder."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, short_tmp, wait_for
from graphmemd.ingest.walker import RepoFilter, WalkedFile, walk_repo

DaemonFactory = Callable[..., Daemon]

#: the folder's files: indexed (True) or ignored (False), and by what
FILES = {
    "main.py": True,
    "x_gen.py": False,  # top .gitignore: *_gen.py
    "keep_gen.py": True,  # a/.gitignore re-includes it: the deeper file wins
    "secret.py": False,  # top .gitignore, anchored at the top: /a/pkg/secret.py
    "build_out/y.py": False,  # a/.gitignore, relative to a: pkg/build_out/
    "local_z.py": False,  # .git/info/exclude: local_*.py
    "sub/local_note.py": False,  # info/exclude, unanchored: any depth
    "sub/ok.py": True,
    "pkg/secret.py": True,  # /a/pkg/secret.py is anchored: not this one
}


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=60)


def _repository() -> tuple[Path, Path]:
    """A git working tree (one commit of its ignore files) and its folder ``a/pkg``."""
    top = short_tmp("gmi") / "top"
    folder = top / "a" / "pkg"
    (folder / "build_out").mkdir(parents=True)
    (folder / "sub").mkdir()
    (folder / "pkg").mkdir()
    assert _git(top, "init", "-q", "-b", "main").returncode == 0
    (top / ".gitignore").write_text("*_gen.py\n/a/pkg/secret.py\n", encoding="utf-8")
    (top / "a" / ".gitignore").write_text("!keep_gen.py\npkg/build_out/\n", encoding="utf-8")
    (top / ".git" / "info").mkdir(exist_ok=True)
    (top / ".git" / "info" / "exclude").write_text("local_*.py\n", encoding="utf-8")
    for i, rel in enumerate(FILES):
        (folder / rel).write_text(f"def f{i}():\n    return {i}\n", encoding="utf-8")
    _git(top, "add", ".gitignore", "a/.gitignore")
    commit = _git(top, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "commit", "-qm", "i")
    assert commit.returncode == 0, commit.stderr
    return top, folder


def test_a_folder_reads_the_ignore_files_above_it_as_git_does() -> None:
    top, folder = _repository()
    for rel, indexed in FILES.items():  # git's own verdict, from the folder
        assert (_git(folder, "check-ignore", "-q", rel).returncode != 0) is indexed, rel
    walked = {i.path for i in walk_repo(folder) if isinstance(i, WalkedFile)}
    assert walked == {rel for rel, indexed in FILES.items() if indexed}
    flt = RepoFilter(folder)
    assert flt.is_ignored("build_out", is_dir=True)
    assert not flt.is_ignored("sub", is_dir=True)
    # the top registered: the same verdicts for the same files
    from_top = {i.path for i in walk_repo(top) if isinstance(i, WalkedFile)}
    assert {p.removeprefix("a/pkg/") for p in from_top} == walked


def test_a_linked_worktree_reads_the_shared_info_exclude() -> None:
    """``info/exclude`` is the common git directory's: a linked worktree (whose ``.git`` is a
    file) and a folder of it read it too."""
    top, _ = _repository()
    wt = top.parent / "wt"
    assert _git(top, "worktree", "add", "-q", str(wt)).returncode == 0
    (wt / "a" / "pkg").mkdir()
    (wt / "a" / "pkg" / "local_z.py").write_text("x = 1\n", encoding="utf-8")
    (wt / "a" / "pkg" / "main.py").write_text("x = 1\n", encoding="utf-8")
    assert _git(wt / "a" / "pkg", "check-ignore", "-q", "local_z.py").returncode == 0
    assert RepoFilter(wt).is_ignored("a/pkg/local_z.py")
    assert RepoFilter(wt / "a" / "pkg").is_ignored("local_z.py")
    assert not RepoFilter(wt / "a" / "pkg").is_ignored("main.py")


def test_the_daemon_does_not_index_what_git_ignores_above_a_registered_folder(daemon_factory: DaemonFactory) -> None:
    _, folder = _repository()
    d = daemon_factory([folder])
    d.wait_idle()
    with d.client() as c:
        (repo,) = c.list_repos()
        found = {s.path for s in c.find_symbols("f*", repo=repo.id, limit=100)}
        assert found == {rel for rel, indexed in FILES.items() if indexed}
        # a file the watcher sees appear is judged the same way
        (folder / "late_gen.py").write_text("def late():\n    return 0\n", encoding="utf-8")
        (folder / "late.py").write_text("def flate():\n    return 0\n", encoding="utf-8")
        wait_for(lambda: "late.py" in {s.path for s in c.find_symbols("f*", repo=repo.id, limit=100)}, 20)
        d.wait_idle()
        assert "late_gen.py" not in {s.path for s in c.find_symbols("*late", repo=repo.id)}
