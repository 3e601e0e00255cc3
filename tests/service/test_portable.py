"""Knowledge travels with the code: export from one clone and import into a clone at another
path (another machine); ``repo remove`` keeps the notes and registering the repository again
(at the same or another path) restores them; ``--purge`` deletes them. Real daemons, real git
clones."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, short_tmp
from graphmem.errors import InvalidArgument
from graphmem.types import ChangeKind, ObservationStatus

DaemonFactory = Callable[..., Daemon]
HASH = "app/auth/crypto.py::hash_password"
LOGIN = "app/auth/service.py::AuthService.login"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "--no-optional-locks", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def git_repo() -> Path:
    repo = copy_fixture("python")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def test_export_from_one_clone_import_into_another_derives_stale_state_there(
    daemon_factory: DaemonFactory,
) -> None:
    origin = git_repo()
    elsewhere = short_tmp("gmclone") / "checkout"
    git(origin.parent, "clone", "-q", str(origin), str(elsewhere))
    crypto = elsewhere / "app/auth/crypto.py"
    crypto.write_text(crypto.read_text().replace("salt=SALT)", "salt=SALT + 'x')"))  # diverged there

    d1 = daemon_factory([origin])
    with d1.client() as c:
        on_hash = c.observe("hash_password must stay constant-time", anchors=[HASH])
        on_login = c.observe("login raises AuthError, never returns None", anchors=[LOGIN])
        lines = list(c.export())

    d2 = daemon_factory([elsewhere])  # another machine: its own home, the clone at another path
    with d2.client() as c:
        (repo,) = c.list_repos()
        result = c.import_lines(lines)
        assert result.imported == 2
        hashed, login = c.get(on_hash.id), c.get(on_login.id)
        assert hashed.repo_id == login.repo_id == repo.id
        assert hashed.anchors[0].symbol_id.startswith(repo.id + ":")
        assert hashed.status is ObservationStatus.STALE  # the code differs in this clone
        assert [r.change for r in hashed.stale_reasons] == [ChangeKind.BODY_CHANGED]
        assert login.status is ObservationStatus.FRESH
        assert on_login.id in [r.observation.id for r in c.recall(files=["app/auth/service.py"]).results]


def test_remove_keeps_notes_re_adding_restores_them_even_moved(daemon_factory: DaemonFactory) -> None:
    repo = git_repo()
    d = daemon_factory([repo])
    with d.client() as c:
        o = c.observe("login raises AuthError", anchors=[LOGIN])
        with pytest.raises(InvalidArgument, match="root"):
            c.remove_repo(str(repo / "app"))  # an inner path is not the repository
        assert c.remove_repo(str(repo)) == 0
        assert c.list_repos() == []
        assert c.get(o.id).text == "login raises AuthError"  # kept

        moved = repo.parent / "moved-here"
        shutil.move(str(repo), str(moved))
        new = c.add_repo(moved)
        d.wait_idle()
        back = c.get(o.id)
        assert back.repo_id == new.id
        assert back.status is ObservationStatus.FRESH
        assert [r.observation.id for r in c.recall(files=["app/auth/service.py"]).results] == [o.id]

        assert c.remove_repo(new.id, purge=True) == 1
        assert [x.id for x in c.list()] == []


def test_another_folder_of_the_same_git_repository_is_not_a_clone(daemon_factory: DaemonFactory) -> None:
    """Two folders of one git repository share its root commit and origin, not their notes: a
    folder registered after another was removed does not take the removed one's notes (its
    own folder, registered again, does)."""
    first = copy_fixture("python")
    outer = first.parent / "outer"
    (outer / "fx").mkdir(parents=True)
    a = first.rename(outer / "fx" / "python")
    b = outer / "fx" / "copy"
    shutil.copytree(a, b)
    git(outer, "init", "-q", "-b", "main")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "base")
    d = daemon_factory([a])
    with d.client() as c:
        o = c.observe("login raises AuthError", anchors=[LOGIN])
        assert c.remove_repo(str(a)) == 0
        other = c.add_repo(b)
        d.wait_idle()
        assert c.get(o.id).repo_id != other.id  # not the same repository's
        assert c.list_repos()[0].root == str(b)
        assert c.remove_repo(str(b)) == 0
        again = c.add_repo(a)
        d.wait_idle()
        assert c.get(o.id).repo_id == again.id
