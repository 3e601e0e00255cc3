"""Identities recorded before folders were (``repos.json`` written by the code before
``RepoIdentity.folder``: no ``folder`` key) are brought forward at open: a folder of a git
repository registered then, and re-registered elsewhere now (another clone, the old one gone),
takes back its notes; another folder of the same repository does not
(``RepoIdentity.same_folder``). A real daemon, real git clones, the old shape written into
``repos.json`` as that code wrote it."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, short_tmp
from graphmem.paths import resolve_paths

DaemonFactory = Callable[..., Daemon]


def _git(cwd: Path, *args: str) -> None:
    cmd = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args]
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, timeout=60)


def _clone_pair() -> tuple[Path, Path]:
    """A git repository with two folders (``sub/pkg`` and ``other/lib``) and a clone of it."""
    base = short_tmp("gmf")
    first = base / "first"
    for folder in ("sub/pkg", "other/lib"):
        (first / folder).mkdir(parents=True)
        (first / folder / "mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    _git(first, "init", "-q", "-b", "main")
    _git(first, "add", "-A")
    _git(first, "commit", "-q", "-m", "init")
    _git(base, "clone", "-q", str(first), "second")
    return first, base / "second"


def _as_before_folders(repos_json: Path) -> int:
    """Rewrite ``repos.json``'s identities as the code before folders wrote them (no
    ``folder``); how many had one."""
    data = json.loads(repos_json.read_text(encoding="utf-8"))
    had = sum(1 for ident in data["identities"].values() if ident.pop("folder", None))
    repos_json.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return had


def test_an_old_folder_identity_is_taken_back_by_that_folder_registered_elsewhere(
    daemon_factory: DaemonFactory,
) -> None:
    first, second = _clone_pair()
    d = daemon_factory([first / "sub" / "pkg"])
    with d.client() as c:
        note = c.observe("f returns one", anchors=["mod.py::f"])
        (old,) = c.list_repos()
    assert d.stop() == 0
    repos_json = resolve_paths(str(d.home), {}).repos_file
    assert _as_before_folders(repos_json) == 1
    shutil.rmtree(first)  # the first clone is gone; its folder comes back in the second

    d2 = daemon_factory([second / "other" / "lib"], home=d.home)
    with d2.client() as c:
        assert c.get(note.id).repo_id == old.id  # another folder does not take it
        new = c.add_repo(second / "sub" / "pkg")
        assert c.get(note.id).repo_id == new.id  # the same folder, elsewhere: its note comes back
    idents = json.loads(repos_json.read_text(encoding="utf-8"))["identities"]
    assert idents[new.id]["folder"] == "sub/pkg/"  # registered now: recorded with its folder
    assert "folder" not in idents[old.id]  # the old one keeps its shape (its folder is not known)


def test_an_identity_without_a_folder_matches_a_top_or_a_folder_of_its_name() -> None:
    from graphmemd.ingest.identity import RepoIdentity

    old = RepoIdentity.from_json({"root_commit": "r", "remote": "", "name": "pkg"})
    assert old is not None
    assert old.folder is None
    assert old.to_json() == {"root_commit": "r", "remote": "", "name": "pkg"}  # kept in its shape
    assert RepoIdentity.from_json(old.to_json()) == old
    for folder, same in (("", True), ("sub/pkg/", True), ("pkg/", True), ("other/lib/", False), ("pkg/x/", False)):
        new = RepoIdentity("r", "", "x", folder)
        assert (old.same_repository(new), new.same_repository(old)) == (same, same), folder
    assert old.same_repository(RepoIdentity("r", "", "other", None))  # both unknown: as before
    assert not old.same_repository(RepoIdentity("q", "", "pkg", "sub/pkg/"))  # another repository
    assert RepoIdentity("r", "", "pkg", "a/").same_repository(RepoIdentity("r", "", "y", "a/"))
    assert not RepoIdentity("r", "", "pkg", "a/").same_repository(RepoIdentity("r", "", "pkg", ""))
