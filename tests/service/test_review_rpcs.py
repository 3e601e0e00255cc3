"""The review page's two reads (issue 44) through a real daemon and client: the code change
under a stale or suspect note (``GetObservationChange``: the anchored symbol before, read from
git and parsed in the workers, and after) and the code around a note (``GetNeighbourhood``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, wait_for
from gitrepo import committed_fixture, git, replace_in
from graphmem.errors import InvalidArgument, NotFound
from graphmem.types import ChangeKind, EdgeKind, ObservationStatus

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

LOGIN = "app/auth/service.py::AuthService.login"


@pytest.fixture
def repo_daemon(daemon_factory: Callable[..., Daemon]) -> tuple[Path, Daemon]:
    root = committed_fixture()
    return root, daemon_factory([root])


def _status(d: Daemon, obs_id: str, status: ObservationStatus) -> bool:
    with d.client() as c:
        return c.get(obs_id).status is status


def _login_gains_a_required_parameter(root: Path, d: Daemon, suspect: str) -> None:
    """``AuthService.login`` gains ``remember`` on disk; waits for ``suspect`` to be suspect."""
    replace_in(
        root / "app/auth/service.py",
        "def login(self, email: str, password: str) -> str:",
        "def login(self, email: str, password: str, remember: bool) -> str:",
    )
    wait_for(lambda: _status(d, suspect, ObservationStatus.SUSPECT), 20)


def test_change_of_a_stale_note_before_and_after(repo_daemon: tuple[Path, Daemon]) -> None:
    root, d = repo_daemon
    with d.client() as c:
        note = c.observe("login compares hashes in constant time", anchors=[LOGIN], repo=str(root))
        assert c.change(note.id).changes == ()  # fresh: nothing changed
        replace_in(root / "app/auth/service.py", "raise AuthError(email)", "raise AuthError(email.lower())")
        wait_for(lambda: _status(d, note.id, ObservationStatus.STALE), 20)
        (change,) = c.change(note.id).changes
        assert change.change is ChangeKind.BODY_CHANGED
        assert change.anchor_ref == LOGIN
        assert change.before.exact
        assert change.before.commit == git(root, "rev-parse", "HEAD")
        assert "raise AuthError(email)\n" in change.before.text + "\n"
        assert change.before.text.startswith("    def login(self, email: str, password: str) -> str:")
        assert "email.lower()" in change.after.text
        assert change.after.commit == ""
        assert change.after.start_line == change.before.start_line

        # committed: the anchored version is now HEAD~1's
        git(root, "commit", "-qam", "lower-case the error")
        again = c.change(note.id).changes[0]
        assert again.before.exact
        assert again.before.commit == git(root, "rev-parse", "HEAD~1")
        assert "email.lower()" not in again.before.text


def test_change_of_a_suspect_note_names_the_dependency(repo_daemon: tuple[Path, Daemon]) -> None:
    root, d = repo_daemon
    with d.client() as c:
        note = c.observe("create_user logs the user in", anchors=["app/api/routes.py::create_user"], repo=str(root))
        _login_gains_a_required_parameter(root, d, note.id)
        (change,) = c.change(note.id).changes
        assert change.change is ChangeKind.DEPENDENCY_CHANGED
        assert change.dependency_ref == LOGIN
        assert [(h.from_ref, h.edge, h.to_ref) for h in change.path] == [
            ("app/api/routes.py::create_user", EdgeKind.CALLS, LOGIN)
        ]
        assert "remember" not in change.before.signature
        assert change.before.exact
        assert "remember: bool" in change.after.text
        assert "remember" not in change.before.text


def test_change_of_a_removed_symbol_and_bad_input(repo_daemon: tuple[Path, Daemon]) -> None:
    root, d = repo_daemon
    with d.client() as c:
        note = c.observe("health answers ok", anchors=["app/api/routes.py::health"], repo=str(root))
        replace_in(root / "app/api/routes.py", 'def health() -> str:\n    return encoding.b64(b"ok")\n', "")
        wait_for(lambda: _status(d, note.id, ObservationStatus.STALE), 20)
        (change,) = c.change(note.id).changes
        assert change.change is ChangeKind.REMOVED
        assert change.before.present
        assert "encoding.b64" in change.before.text
        assert not change.after.present
        with pytest.raises(NotFound):
            c.change("no-such-note")
        with pytest.raises(InvalidArgument, match="max_commits"):
            c.change(note.id, max_commits=10_000)


def test_neighbourhood_of_a_method(repo_daemon: tuple[Path, Daemon]) -> None:
    root, d = repo_daemon
    with d.client() as c:
        note = c.observe("routes call login", anchors=["app/api/routes.py::create_user"], repo=str(root))
        n = c.neighbourhood([LOGIN], repo=str(root))
        by_ref = {x.ref: x for x in n.nodes}
        assert by_ref[LOGIN].distance == 0
        assert n.nodes[0].ref == LOGIN
        assert by_ref["app/api/routes.py::create_user"].distance == 1  # caller
        assert by_ref["app/auth/crypto.py::hash_password"].distance == 1  # callee
        assert by_ref["app/auth/service.py::AuthService"].distance == 1  # container
        assert by_ref["app/auth/service.py"].kind == "file"
        assert by_ref["app/auth/service.py"].distance == 2
        assert [o.id for o in by_ref["app/api/routes.py::create_user"].observations] == [note.id]
        ids = {x.ref: x.id for x in n.nodes}
        edges = {(e.source, e.target, e.kind) for e in n.edges}
        assert (ids["app/api/routes.py::create_user"], ids[LOGIN], EdgeKind.CALLS) in edges
        assert (ids["app/auth/service.py::AuthService"], ids[LOGIN], EdgeKind.CONTAINS) in edges
        assert not n.truncated
        small = c.neighbourhood([LOGIN], repo=str(root), max_nodes=3)
        assert small.truncated
        assert len(small.nodes) == 3
        assert len(c.neighbourhood([LOGIN], repo=str(root), hops=1).nodes) < len(n.nodes)
        with pytest.raises(InvalidArgument):
            c.neighbourhood(["app/nowhere.py::nothing"], repo=str(root))
        with pytest.raises(InvalidArgument, match="hops"):
            c.neighbourhood([LOGIN], repo=str(root), hops=9)


def test_change_of_a_dependency_two_calls_away_claims_no_edge(daemon_factory: Callable[..., Daemon]) -> None:
    """A dependency two calls away: the change names it and says nothing of a path (the one
    edge "anchor calls dependency" would be false; the reason's ``dependency_hops`` is 2)."""
    root = committed_fixture()
    with (root / "app/api/routes.py").open("a") as fh:
        fh.write("\n\ndef sign_up(email: str) -> str:\n    return create_user(email, 'secret')\n")
    git(root, "commit", "-qam", "a caller of create_user")
    d = daemon_factory([root], env={"GRAPHMEM_SUSPECT_HOPS": "2"})
    with d.client() as c:
        note = c.observe("sign_up logs the user in", anchors=["app/api/routes.py::sign_up"], repo=str(root))
        _login_gains_a_required_parameter(root, d, note.id)
        (reason,) = c.get(note.id).stale_reasons
        assert (reason.dependency_ref, reason.dependency_hops) == (LOGIN, 2)
        (change,) = c.change(note.id).changes
        assert change.change is ChangeKind.DEPENDENCY_CHANGED
        assert change.dependency_ref == LOGIN
        assert change.path == ()
        assert "remember: bool" in change.after.text
