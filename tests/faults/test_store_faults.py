"""Issue #15, failures 1-4 and 6: damaged journal and store files on disk, real daemon.

Each test damages real files of a stopped (or SIGKILLed) daemon, starts it again, and checks
that it serves, that every acknowledged observation is there exactly once with its text,
and that ``status`` says what happened."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, short_tmp, store_file, wait_for
from faultlib import assert_all_present, clone_home, data_dir, flip_bits, observe_many, store_files


@pytest.fixture
def tmp_homes() -> Iterator[list[Path]]:
    made: list[Path] = []
    yield made
    for p in made:
        shutil.rmtree(p, ignore_errors=True)


def _home(tmp_homes: list[Path]) -> Path:
    h = short_tmp()
    tmp_homes.append(h)
    return h


def _status_text(d: Daemon) -> str:
    with d.client() as c:
        st = c.status()
    assert st.serving
    return st.last_error + " | " + "; ".join(st.degraded_reasons)


@pytest.mark.parametrize("damage", ["deleted", "emptied"])
def test_1_missing_or_empty_journal_is_rebuilt_from_the_store(
    daemon_factory: Callable[..., Daemon], tmp_homes: list[Path], damage: str
) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo], home=_home(tmp_homes))
    with d.client() as c:
        acked = observe_many(c, 12)
    assert d.stop() == 0
    journal = data_dir(d) / "observations.jsonl"
    if damage == "deleted":
        journal.unlink()
    else:
        journal.write_bytes(b"")
    d2 = daemon_factory([repo], home=d.home)
    with d2.client() as c:
        assert_all_present(c, acked)
    text = _status_text(d2)
    assert "journal" in text
    assert ("missing" if damage == "deleted" else "empty") in text
    # the journal was rebuilt: a third start without the store still has everything
    assert d2.stop() == 0
    db, wal = store_files(d2)
    shutil.rmtree(db, ignore_errors=True) if db.is_dir() else db.unlink()
    wal.unlink(missing_ok=True)
    d3 = daemon_factory([repo], home=d.home)
    with d3.client() as c:
        assert_all_present(c, acked)


def _killed_with_wal(daemon_factory: Callable[..., Daemon], home: Path, repo: Path) -> tuple[Daemon, dict[str, str]]:
    """A daemon SIGKILLed right after writes, leaving a WAL behind a checkpointed database
    (a first daemon indexed and stopped cleanly: without that, a young store's whole history
    is in its WAL, and a WAL replayed onto an empty database is no damage at all)."""
    first = daemon_factory([repo], home=home)
    assert first.stop() == 0
    d = daemon_factory([repo], home=home)
    with d.client() as c:
        acked = observe_many(c, 15)
        c.update(next(iter(acked)), text="edited " + acked[next(iter(acked))])
        acked[next(iter(acked))] = "edited " + acked[next(iter(acked))]
        _db, wal = store_files(d)
        # creates answer once journaled; their store copies follow on the writer
        wait_for(lambda: wal.exists() and wal.stat().st_size > 0, 30.0)
    d.kill9()
    assert wal.exists(), "expected a WAL after SIGKILL"
    assert wal.stat().st_size > 0
    return d, acked


def test_2_wal_bit_flips_never_stop_the_daemon(daemon_factory: Callable[..., Daemon], tmp_homes: list[Path]) -> None:
    repo = copy_fixture("python")
    base, acked = _killed_with_wal(daemon_factory, _home(tmp_homes), repo)
    for seed in range(6):
        home = clone_home(base.home, _home(tmp_homes))
        _db, wal = store_files(Daemon(home, [], base.proc))
        flip_bits(wal, seed, flips=1 + seed % 3)
        d = daemon_factory([repo], home=home)
        with d.client() as c:
            assert_all_present(c, acked)
            assert [r.observation.id for r in c.recall("tokens expire", limit=50).results]
        d.kill9()


@pytest.mark.parametrize("damage", ["zero-byte db with a WAL", "WAL without a db"])
def test_3_zero_byte_db_or_lone_wal_is_moved_aside(
    daemon_factory: Callable[..., Daemon], tmp_homes: list[Path], damage: str
) -> None:
    repo = copy_fixture("python")
    d, acked = _killed_with_wal(daemon_factory, _home(tmp_homes), repo)
    db, _wal = store_files(d)
    if damage.startswith("zero"):
        db.write_bytes(b"")
    else:
        db.unlink()
    d2 = daemon_factory([repo], home=d.home)
    with d2.client() as c:
        assert_all_present(c, acked)
        assert c.status().repositories[0].symbols > 0  # the graph was rebuilt from the tree
    text = _status_text(d2)
    assert "store rebuilt" in text
    assert "broken-" in text
    assert any(p.name.startswith(store_file(d2.home).name) and "broken-" in p.name for p in data_dir(d2).iterdir())


def test_4_crash_loop_keeps_the_wal_bounded(daemon_factory: Callable[..., Daemon], tmp_homes: list[Path]) -> None:
    repo = copy_fixture("python")
    home = _home(tmp_homes)
    acked: dict[str, str] = {}
    wal_sizes: list[int] = []
    for round_ in range(5):
        d = daemon_factory([repo], home=home)
        _db, wal = store_files(d)
        # the start checkpointed what the previous SIGKILL left in the WAL
        wal_sizes.append(wal.stat().st_size if wal.exists() else 0)
        with d.client() as c:
            assert_all_present(c, acked)
            acked.update(observe_many(c, 10, prefix=f"round {round_}"))
        d.kill9()
    assert max(wal_sizes) < 1024 * 1024, wal_sizes
    d = daemon_factory([repo], home=home)
    with d.client() as c:
        assert_all_present(c, acked)


def test_6_damaged_journal_line_is_quarantined_and_the_store_copy_kept(
    daemon_factory: Callable[..., Daemon], tmp_homes: list[Path]
) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo], home=_home(tmp_homes))
    with d.client() as c:
        acked = observe_many(c, 10)
    assert d.stop() == 0
    journal = data_dir(d) / "observations.jsonl"
    lines = journal.read_bytes().split(b"\n")
    victim = json.loads(lines[4])["obs"]["id"]
    lines[4] = lines[4][:20] + b"\xff\xfe garbage" + lines[4][40:]
    journal.write_bytes(b"\n".join(lines))
    d2 = daemon_factory([repo], home=d.home)
    with d2.client() as c:
        assert_all_present(c, acked)
        assert c.get(victim).text == acked[victim]
    text = _status_text(d2)
    assert "line 5" in text or "lines 5" in text
    quarantine = data_dir(d2) / "observations.jsonl.quarantine"
    entry = json.loads(quarantine.read_text().splitlines()[0])
    assert entry["line"] == 5
    # the journal itself is whole again (the store copy was written back into it)
    assert d2.stop() == 0
    assert sum(1 for ln in journal.read_text().splitlines() if victim in ln) == 1
