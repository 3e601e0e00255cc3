"""An edit's dependents, resolved after its post-edit answer (``Indexer._dependents``): the
files calling into an edited file get their edges again before the next batch and in the
store, so what the graph says after the edit, and after a restart, is what one step gave."""

from __future__ import annotations

from collections.abc import Callable

from conftest import Daemon, copy_fixture, wait_for
from graphmem.types import ObservationStatus

LOGIN = "app/auth/service.py::AuthService.login"


def test_an_edit_answers_then_its_callers_edges_follow_and_are_stored(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo])
    crypto = repo / "app" / "auth" / "crypto.py"
    text = crypto.read_text()
    gone = text.replace("def hash_password(password: str) -> str:\n    return digest(password, salt=SALT)",
                        "def hash_secret(secret: str) -> str:\n    return digest(secret[::-1], salt=SALT)")  # fmt: skip
    assert gone != text
    with d.client() as c:
        o = c.observe("login compares hashes, never passwords", anchors=[LOGIN], repo=str(repo))
        assert "hash_password" in {s.name for s in c.symbol(LOGIN, repo=str(repo)).callees}
        crypto.write_text(gone)
        got = c.edit_context([str(crypto)], repo=str(repo), wait_ms=5000)
        assert got.indexed
        # the note's state is settled when the call answers (login's callee was removed)
        assert c.get(o.id).status is ObservationStatus.SUSPECT
        # and login's own edges follow before the next batch: its call is unresolved now
        wait_for(lambda: "hash_password" in c.symbol(LOGIN, repo=str(repo)).unresolved_calls, 20)
        assert "hash_password" not in {s.name for s in c.symbol(LOGIN, repo=str(repo)).callees}
        crypto.write_text(text)
        assert c.edit_context([str(crypto)], repo=str(repo), wait_ms=5000).indexed
        wait_for(lambda: "hash_password" in {s.name for s in c.symbol(LOGIN, repo=str(repo)).callees}, 20)
        crypto.write_text(gone)
        assert c.edit_context([str(crypto)], repo=str(repo), wait_ms=5000).indexed
        d.wait_idle()
        live = c.symbol(LOGIN, repo=str(repo))
    assert d.stop() == 0
    again = daemon_factory([repo], home=d.home)
    with again.client() as c:
        stored = c.symbol(LOGIN, repo=str(repo))
    assert "hash_password" in live.unresolved_calls
    assert sorted(s.name for s in stored.callees) == sorted(s.name for s in live.callees)
    assert sorted(stored.unresolved_calls) == sorted(live.unresolved_calls)
