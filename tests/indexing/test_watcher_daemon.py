"""Watcher failures as a user sees them: a repository root that disappears shows as a degraded
status with the reason, loses nothing, and recovers when the root comes back."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, wait_for
from graphmem.types import IndexState, ObservationStatus


def test_missing_root_is_degraded_not_deleted_and_recovers(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo])
    with d.client() as c:
        o = c.observe("login must rate-limit", anchors=["app/auth/service.py::AuthService.login"])
        away = repo.with_name(repo.name + "-away")
        os.rename(repo, away)

        def degraded() -> bool:
            st = c.status()
            return bool(st.degraded_reasons) and any("missing" in r or str(repo) in r for r in st.degraded_reasons)

        wait_for(degraded, 15)
        st = c.status()
        assert not st.healthy
        # Nothing was treated as deleted: the observation is still fresh, the files still indexed.
        assert c.get(o.id).status is ObservationStatus.FRESH
        assert st.repositories[0].files == 9

        os.rename(away, repo)

        def recovered() -> bool:
            s = c.status()
            return s.healthy and s.repositories[0].state is IndexState.READY

        wait_for(recovered, 30)
        assert c.get(o.id).status is ObservationStatus.FRESH

        # Watching works again: an edit makes the observation stale.
        path = Path(repo, "app/auth/service.py")
        path.write_text(path.read_text().replace("raise AuthError(email)", "raise AuthError(email.lower())"))
        wait_for(lambda: c.get(o.id).status is ObservationStatus.STALE, 15)


def test_directory_moved_in_is_indexed_with_the_repo_ignore_rules(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    (repo / ".gitignore").write_text("generated/\n")
    (repo / "generated").mkdir()
    d = daemon_factory([repo])
    outside = repo.parent / "incoming"
    (outside / "pkg").mkdir(parents=True)
    (outside / "pkg" / "billing.py").write_text("def charge(amount: int) -> int:\n    return amount\n")
    ignored_src = repo.parent / "incoming2"
    ignored_src.mkdir()
    (ignored_src / "junk.py").write_text("def junk() -> None:\n    pass\n")
    with d.client() as c:
        os.rename(outside, repo / "app" / "incoming")  # a whole directory appears at once
        os.rename(ignored_src, repo / "generated" / "more")
        wait_for(lambda: [s.ref for s in c.find_symbols("charge")] == ["app/incoming/pkg/billing.py::charge"], 15)
        d.wait_idle()
        assert c.find_symbols("junk") == []
