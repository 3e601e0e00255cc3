"""A damaged store never loses an acknowledged observation: the daemon moves it aside and
rebuilds it from the journal (observations) and the repositories (code graph)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, short_tmp, store_file, wait_for
from graphmem.types import ObservationStatus


def test_damaged_store_is_rebuilt_from_the_journal(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    home = short_tmp()
    d = daemon_factory([repo], home=home)
    with d.client() as c:
        o = c.observe("tokens are single-use", anchors=["app/auth/crypto.py::make_token"], tags=["auth"])
    assert d.stop() == 0
    store = store_file(home)
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
    assert any(p.name.startswith(store.name + ".broken-") for p in Path(home, "data").iterdir())


def test_journal_is_compacted_at_start_and_keeps_everything(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    home = short_tmp()
    d = daemon_factory([repo], home=home)
    crypto = repo / "app" / "auth" / "crypto.py"
    original = crypto.read_text()
    edited = original.replace("return digest(password, salt=SALT)", "return digest(password, salt=SALT + '1')")
    with d.client() as c:
        ids = [
            c.observe(f"note {i}", anchors=["app/auth/crypto.py::hash_password"], idempotency_key=f"k{i}").id
            for i in range(50)
        ]
        # flip them stale and fresh a few times: each flip journals every observation again
        for _ in range(12):
            crypto.write_text(edited)
            wait_for(lambda: c.get(ids[-1]).status is ObservationStatus.STALE, 10)
            crypto.write_text(original)
            wait_for(lambda: c.get(ids[-1]).status is ObservationStatus.FRESH, 10)
    assert d.stop() == 0
    journal = home / "data" / "observations.jsonl"
    before = len(journal.read_text().splitlines())
    assert before > 1000
    d2 = daemon_factory([repo], home=home)
    after = len(journal.read_text().splitlines())
    assert after == 50
    with d2.client() as c:
        assert sorted(o.id for o in c.list(limit=0)) == sorted(ids)
        # idempotency keys survive compaction
        assert c.observe("note 3", anchors=["app/auth/crypto.py::hash_password"], idempotency_key="k3").id == ids[3]
        assert len(c.list(limit=0)) == 50
