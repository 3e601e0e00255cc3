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
