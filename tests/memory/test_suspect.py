"""Suspect: observations on code that depends on a symbol whose signature changed, or that was
removed, become SUSPECT with the path; they return to FRESH when the dependency is back as it
was, or when confirmed; stale always wins. Through a running daemon, in Python and in Go."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, wait_for
from graphmem.client import EventStream, GraphMem
from graphmem.errors import FailedPrecondition
from graphmem.types import ChangeKind, Event, EventKind, Observation, ObservationStatus

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 20.0


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found exactly once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def becomes(c: GraphMem, oid: str, status: ObservationStatus) -> Observation:
    def check() -> Observation | None:
        o = c.get(oid)
        return o if o.status is status else None

    found = wait_for(check, TIMEOUT)
    assert isinstance(found, Observation)
    return found


def listen(c: GraphMem, oid: str) -> tuple[list[Event], EventStream]:
    """Events about ``oid`` collected on a thread, once the subscription is known to be live."""
    stream = c.events()
    seen: list[Event] = []
    live = threading.Event()

    def collect() -> None:
        for e in stream:
            if e.observation is not None and e.observation.id == oid:
                if e.kind is EventKind.OBSERVATION_CHANGED:
                    live.set()
                else:
                    seen.append(e)

    threading.Thread(target=collect, daemon=True).start()
    wait_for(lambda: (c.update(oid, tags=["probe"]), live.wait(0.2))[1], TIMEOUT)
    return seen, stream


def test_python_signature_change_makes_callers_suspect_and_revert_clears_it(
    daemon_factory: DaemonFactory, py_repo: Path
) -> None:
    d = daemon_factory([py_repo])
    service = py_repo / "app/auth/service.py"
    with d.client() as c:
        caller = c.observe("create_user must return the session token", anchors=["app/api/routes.py::create_user"])
        events, stream = listen(c, caller.id)
        edit(
            service,
            "def login(self, email: str, password: str) -> str:",
            "def login(self, email: str, password: str, otp: str) -> str:",
        )
        o = becomes(c, caller.id, ObservationStatus.SUSPECT)
        (r,) = o.stale_reasons
        assert r.change is ChangeKind.DEPENDENCY_CHANGED
        assert r.dependency_ref == "app/auth/service.py::AuthService.login"
        assert r.via == "CALLS"
        assert "calls app/auth/service.py::AuthService.login, whose signature changed" in r.detail
        wait_for(lambda: EventKind.OBSERVATION_SUSPECT in [e.kind for e in events], TIMEOUT)
        stream.cancel()
        st = c.status()
        assert st.suspect_observations == 1
        assert st.repositories[0].suspect_observations == 1
        (hit,) = [x for x in c.recall(files=["app/api/routes.py"]).results if x.observation.id == caller.id]
        assert hit.observation.status is ObservationStatus.SUSPECT
        assert "[SUSPECT: `app/api/routes.py::create_user`: calls" in c.brief(files=["app/api/routes.py"]).text
        assert caller.id in [x.id for x in c.list()]

        # the dependency is back with its old signature: fresh again
        edit(
            service,
            "def login(self, email: str, password: str, otp: str) -> str:",
            "def login(self, email: str, password: str) -> str:",
        )
        assert becomes(c, caller.id, ObservationStatus.FRESH).stale_reasons == ()


def test_python_removal_stale_wins_and_confirm_clears(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    crypto = py_repo / "app/auth/crypto.py"
    service = py_repo / "app/auth/service.py"
    with d.client() as c:
        on_login = c.observe("login hashes with the same salt", anchors=["app/auth/service.py::AuthService.login"])
        on_register = c.observe("register keeps ids dense", anchors=["app/auth/service.py::AuthService.register"])
        text = crypto.read_text()
        start = text.index("def hash_password(")
        end = text.find("\ndef ", start + 1)
        crypto.write_text(text[:start] + (text[end + 1 :] if end != -1 else ""))
        o = becomes(c, on_login.id, ObservationStatus.SUSPECT)
        assert "which was removed" in o.stale_reasons[0].detail
        becomes(c, on_register.id, ObservationStatus.SUSPECT)

        # its own code changes too: stale wins over suspect
        edit(service, "raise AuthError(email)", "raise AuthError(email.lower())")
        o = becomes(c, on_login.id, ObservationStatus.STALE)
        assert [r.change for r in o.stale_reasons] == [ChangeKind.BODY_CHANGED]

        # confirming says "still true": fresh, reasons cleared
        assert c.confirm(on_register.id, confirmed_by="test").status is ObservationStatus.FRESH
        assert c.get(on_register.id).stale_reasons == ()
        c.archive(on_register.id)
        with pytest.raises(FailedPrecondition, match="archived"):
            c.confirm(on_register.id, confirmed_by="test")


def test_go_signature_change_makes_callers_suspect(daemon_factory: DaemonFactory) -> None:
    repo = copy_fixture("go")
    d = daemon_factory([repo])
    crypto = repo / "auth/crypto.go"
    with d.client() as c:
        callers = c.symbol("auth/crypto.go::HashPassword").callers
        assert any(s.qualname == "Service.Login" for s in callers), callers
        on_login = c.observe("Login compares hashes", anchors=["auth/service.go::Service.Login"])
        old, new = "func HashPassword(password string) string", "func HashPassword(password, salt string) string"
        edit(crypto, old, new)
        o = becomes(c, on_login.id, ObservationStatus.SUSPECT)
        assert o.stale_reasons[0].dependency_ref == "auth/crypto.go::HashPassword"
        edit(crypto, new, old)
        becomes(c, on_login.id, ObservationStatus.FRESH)


def test_a_file_note_follows_only_what_its_file_imports(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    """A note on a file is suspect when a name the file imports changes its signature, not when
    another function of an imported file does (seen on jinja2: a note on ``utils.py``, which
    imports ``get_spontaneous_environment`` from ``environment.py``, went suspect when
    ``Environment.from_string`` gained a parameter)."""
    crypto = py_repo / "app/auth/crypto.py"
    crypto.write_text(
        crypto.read_text(encoding="utf-8") + "\n\ndef spare(a: int) -> int:\n    return a\n", encoding="utf-8"
    )
    d = daemon_factory([py_repo])
    with d.client() as c:
        wait_for(lambda: c.symbol("app/auth/crypto.py::spare").symbol.signature, TIMEOUT)
        note = c.observe("service.py hashes with crypto's helpers only", anchors=["app/auth/service.py"])
        edit(crypto, "def spare(a: int) -> int:", "def spare(a: int, b: int) -> int:")
        wait_for(lambda: "b:int" in c.symbol("app/auth/crypto.py::spare").symbol.signature, TIMEOUT)
        assert c.get(note.id).status is ObservationStatus.FRESH  # service.py does not import spare
        edit(
            crypto, "def hash_password(password: str) -> str:", "def hash_password(password: str, pepper: str) -> str:"
        )
        (r,) = becomes(c, note.id, ObservationStatus.SUSPECT).stale_reasons
        assert (r.via, r.dependency_ref) == ("IMPORTS", "app/auth/crypto.py::hash_password")
