"""The idle parse pool's standby: which worker it keeps (pure, no processes) and, with real
workers, that at an agent's pace every edit is parsed by the same warm worker."""

from __future__ import annotations

import logging
import time
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from graphmemd.graph.model import Language
from graphmemd.indexing.batch_timing import BatchTiming
from graphmemd.ingest import parse_pool
from graphmemd.ingest.parse_pool import LIVE_FILES, STANDBY_KEEP_MB, ParsePool
from test_parse_pool import generated_python, gone, wait_for

SMALL_PY = b"import os\n\nclass A(Base):\n    def run(self):\n        return os.getcwd()\n"


def worker(slot: int, conn: Connection | None = None, **state: object) -> parse_pool._Worker:
    """A worker record with no process behind it (the pool's decisions read only its state)."""
    w = parse_pool._Worker(slot, cast(BaseProcess, SimpleNamespace(pid=1000 + slot)), cast(Connection, conn))
    for name, value in state.items():
        setattr(w, name, value)
    return w


def handed(w: parse_pool._Worker, files: int, rel: str = "a.py") -> set[Language]:
    """Hand ``w`` one file of a job of ``files`` files; the pool's languages after it."""
    job = parse_pool._Job(pending=parse_pool.deque(), total=files, outstanding=files)
    languages: set[Language] = set()
    parse_pool._handed(w, parse_pool._Task(job, rel, "/x/" + rel, parse_pool._Mode.PARSE), languages)
    return languages


def test_an_idle_pool_keeps_a_worker_that_parsed_only_live_edits() -> None:
    live = worker(0)
    assert handed(live, LIVE_FILES) == {Language.PYTHON}
    assert (live.fresh, live.bulk, live.parsed) == (False, False, {Language.PYTHON})
    bulk = worker(1)
    handed(bulk, LIVE_FILES + 1)
    assert bulk.bulk
    fresh, fresh2 = worker(2), worker(3)

    assert parse_pool._to_stop([live, None, fresh]) == [fresh]  # the warm one stays, not a new one
    assert parse_pool._to_stop([fresh, live]) == [fresh]
    assert parse_pool._to_stop([bulk, fresh, fresh2]) == [bulk, fresh2]  # as before: one fresh stays
    assert parse_pool._to_stop([bulk]) == [bulk]
    assert parse_pool._to_stop([live]) == []
    live.grown_kb = STANDBY_KEEP_MB * 1024
    assert parse_pool._to_stop([live]) == []
    live.grown_kb += 1  # it parsed something large: its memory goes, a fresh standby comes
    assert parse_pool._to_stop([live, fresh]) == [live]
    assert parse_pool._to_stop([live]) == [live]


def test_the_standby_is_the_idle_pools_one_worker_with_what_it_compiled() -> None:
    fresh = worker(0, warmed=(Language.RUST,))
    assert parse_pool._standby([fresh, None]) == (1000, (Language.RUST,))
    live = worker(1, warmed=(Language.RUST,))
    handed(live, 1)
    assert parse_pool._standby([None, live]) == (1001, tuple(sorted({Language.RUST, Language.PYTHON})))
    assert parse_pool._standby([fresh, live]) is None  # two workers: not idle yet
    handed(live, LIVE_FILES + 1)
    assert parse_pool._standby([None, live]) is None  # an idle pool stops it


def test_a_kept_worker_compiles_the_languages_it_lacks() -> None:
    ours, theirs = Pipe()
    try:
        kept = worker(0, ours)
        handed(kept, 1)
        parked: set[int] = {1}
        respawn: dict[int, float] = {}
        parse_pool._standby_due([kept, None], parked, respawn, 0.0, {Language.PYTHON, Language.GO, Language.RUST})
        assert (parked, respawn) == ({1}, {})  # no fresh worker: it stays the standby
        assert theirs.poll(5)
        assert theirs.recv() == (parse_pool._MSG_WARM, tuple(sorted({Language.GO, Language.RUST})))
        parse_pool._standby_due([kept, None], parked, respawn, 0.0, {Language.PYTHON})
        assert not theirs.poll(0)  # nothing it lacks: nothing to do
        parse_pool._standby_due([None, None], parked, respawn, 5.0, {Language.PYTHON})
        assert (parked, respawn) == (set(), {1: 5.0})  # none left: a fresh one is due
    finally:
        ours.close()
        theirs.close()


def test_at_an_agents_pace_the_same_warm_worker_parses_every_edit(tmp_path: Path) -> None:
    """Edits spaced wider than ``idle_s`` are all parsed by one worker, which stays (no new
    process is started for them); one that made it grow past ``STANDBY_KEEP_MB`` is replaced
    by a fresh standby; a bulk job's workers are replaced as before."""
    idle_s = 0.2
    with ParsePool(2, timeout_s=60.0, idle_s=idle_s) as p:
        wait_for("the idle pool's standby", lambda: len(p.worker_pids()) == 1 and p.standby() is not None)
        (pid,) = p.worker_pids()
        seen: set[int] = set()
        for i in range(3):
            path = tmp_path / f"e{i}.py"
            path.write_bytes(SMALL_PY + f"def f{i}(x=None):\n    pass\n".encode())
            assert p.parse_one(path.name, path).parsed is not None
            until = time.monotonic() + 3 * idle_s  # idle well past idle_s: the old pool replaced it here
            while time.monotonic() < until:
                seen |= set(p.worker_pids())
                time.sleep(0.02)
        assert seen == {pid}
        assert p.started_workers == 0
        assert p.standby() == (pid, (Language.PYTHON,))

        big = tmp_path / "big.py"
        big.write_bytes(generated_python(1_500_000))  # grows a worker ~36 MB
        assert p.parse_one("big.py", big).parsed is not None
        wait_for("the grown worker to exit", lambda: gone(pid))
        wait_for("a fresh standby", lambda: p.started_workers == 1 and len(p.worker_pids()) == 1)
        (fresh,) = p.worker_pids()
        wait_for("it to compile Python's queries", lambda: p.standby() == (fresh, (Language.PYTHON,)))


def test_a_batch_line_says_the_parse_workers_own_time(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Each outcome a worker parsed carries its (wall, CPU) milliseconds; a watcher batch's log
    line sums them (the parse step less that is the daemon's share and the wait for a CPU)."""
    path = tmp_path / "a.py"
    path.write_bytes(SMALL_PY)
    with ParsePool(1, timeout_s=60.0) as p:
        out = p.parse_one("a.py", path)
    assert out.parsed is not None
    assert out.worker_ms is not None
    wall, cpu = out.worker_ms
    assert wall > 0
    assert cpu > 0
    timing = BatchTiming()
    timing.parsing([path], lambda: 0)
    timing.took(out.worker_ms)
    timing.took(None)  # a sibling checkout's parse: no worker's
    timing.steps.mark("parse")
    with caplog.at_level(logging.INFO, logger="graphmemd.indexing.batch_timing"):
        timing.log("repo", 1, 1, 0)
    assert f"; parse workers {wall:.1f} ms ({cpu:.1f} CPU) on 1" in caplog.text
    quiet = BatchTiming()
    with caplog.at_level(logging.INFO, logger="graphmemd.indexing.batch_timing"):
        caplog.clear()
        quiet.log("repo", 1, 0, 1)
    assert "changes repo" in caplog.text
    assert "parse workers" not in caplog.text
