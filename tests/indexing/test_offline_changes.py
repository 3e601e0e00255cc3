"""Code that changes while the daemon is down: the next start finds the changes and marks
the anchored observations stale with the right reasons; formatting-only changes do not."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon
from graphmem.types import ChangeKind, Observation, ObservationStatus

DaemonFactory = Callable[..., Daemon]

BODY = "app/util/encoding.py::digest"
SIGNATURE = "app/auth/crypto.py::hash_password"
REMOVED = "app/api/routes.py::health"
UNTOUCHED_SAME_FILE = "app/util/encoding.py::to_bytes"
UNTOUCHED_OTHER_FILE = "app/auth/service.py::AuthService.login"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found exactly once in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def _observe(d: Daemon, refs: list[str]) -> dict[str, Observation]:
    with d.client() as c:
        out = {ref: c.observe(f"note on {ref}", anchors=[ref]) for ref in refs}
    assert all(o.status is ObservationStatus.FRESH for o in out.values())
    return out


def test_offline_body_signature_and_removal(
        daemon_factory: DaemonFactory, py_daemon: Daemon, py_repo: Path) -> None:
    saved = _observe(py_daemon, [BODY, SIGNATURE, REMOVED, UNTOUCHED_SAME_FILE, UNTOUCHED_OTHER_FILE])
    with py_daemon.client() as c:
        old_sig = c.symbol(SIGNATURE).symbol.signature
    assert py_daemon.stop() == 0

    # (a) body of digest(): same signature, different computation
    _edit(py_repo / "app/util/encoding.py", "return hashlib.sha256(raw).hexdigest()",
          "return hashlib.sha512(raw).hexdigest()")
    # (b) parameters of hash_password()
    _edit(py_repo / "app/auth/crypto.py", "def hash_password(password: str) -> str:",
          "def hash_password(password: str, pepper: str) -> str:")  # (required: callers notice)
    # (c) delete health()
    _edit(py_repo / "app/api/routes.py", '\n\ndef health() -> str:\n    return encoding.b64(b"ok")\n', "\n")

    d2 = daemon_factory([py_repo], home=py_daemon.home)  # returns after wait_idle
    d2.wait_idle()
    with d2.client() as c:
        now = {ref: c.get(o.id) for ref, o in saved.items()}

        def reasons(ref: str) -> list[ChangeKind]:
            return [r.change for r in now[ref].stale_reasons]

        assert now[BODY].status is ObservationStatus.STALE
        assert reasons(BODY) == [ChangeKind.BODY_CHANGED]

        assert now[SIGNATURE].status is ObservationStatus.STALE
        assert reasons(SIGNATURE) == [ChangeKind.SIGNATURE_CHANGED]
        sig_reason = now[SIGNATURE].stale_reasons[0]
        assert sig_reason.anchor_ref == SIGNATURE
        assert sig_reason.old_signature == old_sig
        assert "pepper" not in sig_reason.old_signature
        assert "password" in sig_reason.old_signature
        assert "pepper" in sig_reason.new_signature
        assert sig_reason.new_signature == c.symbol(SIGNATURE).symbol.signature

        assert now[REMOVED].status is ObservationStatus.STALE
        assert reasons(REMOVED) == [ChangeKind.REMOVED]
        assert now[REMOVED].stale_reasons[0].anchor_ref == REMOVED

        assert now[UNTOUCHED_SAME_FILE].status is ObservationStatus.FRESH, now[UNTOUCHED_SAME_FILE].stale_reasons
        assert now[UNTOUCHED_SAME_FILE].stale_reasons == ()
        # login's own code did not change, but it calls hash_password, whose signature did
        login = now[UNTOUCHED_OTHER_FILE]
        assert login.status is ObservationStatus.SUSPECT, login.stale_reasons
        assert [(r.change, r.dependency_ref) for r in login.stale_reasons] == [
            (ChangeKind.DEPENDENCY_CHANGED, SIGNATURE)
        ]

        st = c.status()
        assert st.stale_observations == 3
        assert st.repositories[0].stale_observations == 3
        stale_ids = {o.id for o in c.list(statuses=[ObservationStatus.STALE])}
        assert stale_ids == {saved[r].id for r in (BODY, SIGNATURE, REMOVED)}


def _reindent(text: str, old: int = 4, new: int = 2) -> str:
    def fix(m: re.Match[str]) -> str:
        assert len(m.group(0)) % old == 0
        return " " * (len(m.group(0)) // old * new)

    return re.sub(r"^ +", fix, text, flags=re.MULTILINE)


def test_offline_reindent_marks_nothing_stale(
        daemon_factory: DaemonFactory, py_daemon: Daemon, py_repo: Path) -> None:
    refs = ["app/models.py::User", "app/models.py::User.display_name", "app/models.py::User.Meta",
            "app/models.py::Admin.display_name", "app/auth/service.py::AuthService",
            "app/auth/service.py::AuthService.login", "app/auth/crypto.py::make_token.payload",
            "app/auth/crypto.py::make_token"]
    saved = _observe(py_daemon, refs)
    with py_daemon.client() as c:
        file_obs = c.observe("the whole models module", anchors=["app/models.py"])

    with py_daemon.client() as c:
        user_line = c.symbol("app/models.py::User").symbol.start_line
    assert py_daemon.stop() == 0

    for rel in ("app/models.py", "app/auth/service.py", "app/auth/crypto.py"):
        p = py_repo / rel
        before = p.read_text(encoding="utf-8")
        # 4 -> 2 spaces everywhere, plus a comment line on top: formatting only, but the
        # shifted line numbers show the daemon did re-parse the files
        after = "# re-indented to 2 spaces\n" + _reindent(before)
        assert after != before
        assert "\n  def " in after
        assert "\n    def " not in after
        compile(after, rel, "exec")  # still valid Python
        p.write_text(after, encoding="utf-8")

    d2 = daemon_factory([py_repo], home=py_daemon.home)
    d2.wait_idle()
    with d2.client() as c:
        for ref, o in saved.items():
            got = c.get(o.id)
            assert got.status is ObservationStatus.FRESH, (ref, got.stale_reasons)
        assert c.get(file_obs.id).status is ObservationStatus.FRESH
        assert c.status().stale_observations == 0
        assert c.symbol("app/models.py::User").symbol.start_line == user_line + 1
