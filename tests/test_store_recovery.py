"""A damaged store never loses an acknowledged observation: the daemon moves it aside and
rebuilds it from the journal (observations) and the repositories (code graph)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, short_tmp
from graphmem.types import ObservationStatus


def test_damaged_store_is_rebuilt_from_the_journal(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    home = short_tmp()
    d = daemon_factory([repo], home=home)
    with d.client() as c:
        o = c.observe("tokens are single-use", anchors=["app/auth/crypto.py::make_token"], tags=["auth"])
    assert d.stop() == 0
    store = home / "data" / "graph.kuzu"
    assert store.exists()
    store.write_bytes(b"\x00garbage, not a kuzu database\xff" * 1000)

    d2 = daemon_factory([repo], home=home)
    with d2.client() as c:
        got = c.get(o.id)
        assert got.text == "tokens are single-use"
        assert got.status is ObservationStatus.FRESH
        # the code graph was re-derived and the text index rebuilt from the journal
        assert c.status().repositories[0].symbols == 21
        assert [r.observation.id for r in c.recall("single-use tokens").results] == [o.id]
        assert "rebuilt" in c.status().last_error
    assert any(p.name.startswith("graph.kuzu.broken-") for p in Path(home, "data").iterdir())
