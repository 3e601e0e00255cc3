"""Annotations are their own grade (issue 41): a real daemon, real files changed on disk.

A change of what a function's annotations say makes the note on it suspect, not stale,
and marks none of its dependents; an equivalent spelling changes nothing; a new optional
parameter makes no caller suspect, a new required one does (tests/memory/test_suspect.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, wait_for
from graphmem.changes import change_words
from graphmem.client import GraphMem
from graphmem.types import ChangeKind, Observation, ObservationStatus
from test_suspect import TIMEOUT, becomes, edit

DaemonFactory = Callable[..., Daemon]
LOGIN = "def login(self, email: str, password: str) -> str:"


def notes(c: GraphMem) -> tuple[Observation, Observation]:
    """A note on ``AuthService.login`` and one on its caller ``create_user``."""
    own = c.observe("login returns the session token", anchors=["app/auth/service.py::AuthService.login"])
    return own, c.observe("create_user must return the session token", anchors=["app/api/routes.py::create_user"])


def test_an_annotation_change_is_suspect_and_marks_no_dependent(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    service = py_repo / "app/auth/service.py"
    with d.client() as c:
        own, caller = notes(c)
        edit(service, LOGIN, "def login(self, email: str, password: bytes) -> str:")
        o = becomes(c, own.id, ObservationStatus.SUSPECT)
        (r,) = o.stale_reasons
        assert r.change is ChangeKind.ANNOTATIONS_CHANGED
        assert r.old_signature == "def login(self,email:str,password:str)->str:"
        assert r.new_signature == "def login(self,email:str,password:bytes)->str:"
        assert c.get(caller.id).status is ObservationStatus.FRESH

        # back to what it said: fresh again
        edit(service, "def login(self, email: str, password: bytes) -> str:", LOGIN)
        assert becomes(c, own.id, ObservationStatus.FRESH).stale_reasons == ()


def test_an_equivalent_spelling_changes_nothing(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    service = py_repo / "app/auth/service.py"
    with d.client() as c:
        own = c.observe("login returns the session token", anchors=["app/auth/service.py::AuthService.login"])
        edit(service, LOGIN, "def login(self, email: 'str', password: typing.Text) -> t.Text:")
        # (the barrier: the symbol's signature text is the new one once the edit is indexed)
        ref = "app/auth/service.py::AuthService.login"
        wait_for(lambda: "typing.Text" in c.symbol(ref).symbol.signature, TIMEOUT)
        o = c.get(own.id)
        assert o.status is ObservationStatus.FRESH
        assert o.stale_reasons == ()


def test_a_new_optional_parameter_makes_no_caller_suspect(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    service = py_repo / "app/auth/service.py"
    with d.client() as c:
        own, caller = notes(c)
        edit(service, LOGIN, 'def login(self, email: str, password: str, otp: str = "") -> str:')
        (r,) = becomes(c, own.id, ObservationStatus.STALE).stale_reasons
        assert r.change is ChangeKind.SIGNATURE_CHANGED
        assert c.get(caller.id).status is ObservationStatus.FRESH

        # a changed default reaches the callers that leave it out
        edit(service, 'otp: str = "")', 'otp: str = "000000")')
        assert becomes(c, caller.id, ObservationStatus.SUSPECT).stale_reasons[0].change is ChangeKind.DEPENDENCY_CHANGED


def test_a_change_after_a_respelling_is_said_without_it(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    """A note made before a modernisation (its annotations respelled: nothing to say), then a
    real change: the reason says the change alone, not the respelling in between."""
    d = daemon_factory([py_repo])
    service = py_repo / "app/auth/service.py"
    respelled = "def login(self, email: 'str', password: typing.Text) -> t.Text:"
    with d.client() as c:
        own = c.observe("login returns the session token", anchors=["app/auth/service.py::AuthService.login"])
        edit(service, LOGIN, respelled)
        ref = "app/auth/service.py::AuthService.login"
        wait_for(lambda: "typing.Text" in c.symbol(ref).symbol.signature, TIMEOUT)
        assert c.get(own.id).status is ObservationStatus.FRESH
        edit(service, respelled, "def login(self, email: 'str', password: typing.Text, otp: str = '') -> t.Text:")
        (r,) = becomes(c, own.id, ObservationStatus.STALE).stale_reasons
        assert change_words(r) == "parameter `otp` added (optional)"
        # the new signature as written; the old one as the new one spells what it meant
        assert r.new_signature == "def login(self,email:'str',password:typing.Text,otp:str='')->t.Text:"
        assert r.old_signature == "def login(self,email:'str',password:typing.Text)->t.Text:"
