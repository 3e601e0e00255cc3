from __future__ import annotations

import errno
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from graphmem.errors import NotFound
from graphmemd.ingest import watcher as watcher_mod
from graphmemd.ingest.watcher import RepoWatcher

DEADLINE_S = 15.0  # generous for loaded CI machines; typical latency is ~50 ms


class Recorder:
    """Collects callback invocations; lets tests wait for a condition with a deadline."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.batches: list[tuple[Path, set[Path]]] = []
        self.degraded: list[tuple[Path, str]] = []
        self.rescans: list[Path] = []

    def on_batch(self, root: Path, paths: set[Path]) -> None:
        with self.cond:
            self.batches.append((root, set(paths)))
            self.cond.notify_all()

    def on_degraded(self, root: Path, reason: str) -> None:
        with self.cond:
            self.degraded.append((root, reason))
            self.cond.notify_all()

    def on_rescan(self, root: Path) -> None:
        with self.cond:
            self.rescans.append(root)
            self.cond.notify_all()

    def seen(self) -> set[Path]:
        with self.cond:
            return {p for _, paths in self.batches for p in paths}

    def wait_for(self, predicate: Callable[[], bool], timeout: float = DEADLINE_S) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.cond.wait(min(remaining, 0.05))  # also re-check state() changes
        return True

    def wait_path(self, path: Path, timeout: float = DEADLINE_S) -> float:
        """Seconds until ``path`` was reported; fails the test on timeout."""
        start = time.monotonic()
        assert self.wait_for(lambda: path in {p for _, ps in self.batches for p in ps}, timeout), (
            f"{path} not reported; got {self.batches}"
        )
        return time.monotonic() - start


def make_watcher(rec: Recorder, **kwargs: Any) -> RepoWatcher:
    opts: dict[str, Any] = {
        "on_degraded": rec.on_degraded,
        "on_rescan": rec.on_rescan,
        "health_check_ms": 100,
        "backoff_initial_s": 0.05,
        "backoff_max_s": 0.2,
        "rescan_interval_s": 0.2,
        "retry_interval_s": 0.2,
        "force_polling": False,
    }
    opts.update(kwargs)
    return RepoWatcher(rec.on_batch, **opts)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    return r


def start_live(w: RepoWatcher, root: Path) -> None:
    w.add_root(root)
    w.start()
    assert w.wait_live(root, DEADLINE_S)


def test_create_modify_delete_rename(root: Path) -> None:
    rec = Recorder()
    w = make_watcher(rec)
    try:
        start_live(w, root)
        f = root / "a.py"
        f.write_text("x = 1\n")
        assert rec.wait_path(f) < 1.0

        rec.batches.clear()
        with open(f, "a") as fh:
            fh.write("y = 2\n")
        assert rec.wait_path(f) < 1.0

        # A file created right after its directory may be reported only through the
        # directory (inotify watches the new directory a moment later): the daemon scans
        # reported directories.
        rec.batches.clear()
        quick = root / "quick" / "q.py"
        quick.parent.mkdir()
        quick.write_text("")
        assert rec.wait_for(lambda: bool({quick, quick.parent} & rec.seen()))

        rec.batches.clear()
        g = root / "sub" / "b.py"
        g.parent.mkdir()
        rec.wait_path(g.parent)
        g.write_text("")
        rec.wait_path(g)
        rec.batches.clear()
        moved = root / "sub" / "c.py"
        os.rename(g, moved)
        rec.wait_path(moved)
        rec.wait_path(g)

        rec.batches.clear()
        f.unlink()
        assert rec.wait_path(f) < 1.0

        # editor-style save: temp file + rename over the original
        rec.batches.clear()
        tmp = root / ".c.py.tmp"
        tmp.write_text("z = 3\n")
        os.replace(tmp, moved)
        rec.wait_path(moved)

        assert all(r == root for r, _ in rec.batches)
        assert w.state(root).degraded_reason is None
        assert w.state(root).restarts == 0
        assert w.state(root).mode == "watching"
    finally:
        w.stop()
    assert not w.state(root).running


def test_ignore_callback_respected(root: Path) -> None:
    rec = Recorder()
    asked: list[Path] = []

    def ignore(p: Path) -> bool:
        asked.append(p)
        return "node_modules" in p.parts or p.suffix == ".log"

    w = make_watcher(rec, ignore=ignore)
    try:
        start_live(w, root)
        (root / "node_modules").mkdir()
        (root / "node_modules" / "x.js").write_text("")
        (root / "debug.log").write_text("")
        marker = root / "keep.py"
        marker.write_text("")
        rec.wait_path(marker)
        # a second marker, written after the ignored paths were seen: any stray batch for
        # them would have arrived by the time this one does
        deadline = time.monotonic() + 10
        while root / "debug.log" not in asked:
            assert time.monotonic() < deadline, asked
            time.sleep(0.01)
        late = root / "late.py"
        late.write_text("")
        rec.wait_path(late)
        seen = rec.seen()
        assert not any("node_modules" in p.parts or p.suffix == ".log" for p in seen), seen
        assert root / "debug.log" in asked
    finally:
        w.stop()


def test_ignore_callback_exception_keeps_path(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    rec = Recorder()

    def ignore(p: Path) -> bool:
        raise RuntimeError("boom")

    w = make_watcher(rec, ignore=ignore)
    try:
        start_live(w, root)
        with caplog.at_level(logging.ERROR, logger="graphmemd.ingest.watcher"):
            f = root / "a.py"
            f.write_text("")
            rec.wait_path(f)
        assert any("ignore callback raised" in r.getMessage() for r in caplog.records)
        assert w.state(root).restarts == 0
    finally:
        w.stop()


def test_callback_exception_does_not_kill_watcher(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    rec = Recorder()
    calls: list[set[Path]] = []

    def on_batch(r: Path, paths: set[Path]) -> None:
        calls.append(paths)
        if len(calls) == 1:
            raise ValueError("daemon bug")
        rec.on_batch(r, paths)

    w = RepoWatcher(on_batch, health_check_ms=100)
    try:
        with caplog.at_level(logging.ERROR, logger="graphmemd.ingest.watcher"):
            start_live(w, root)
            (root / "first.py").write_text("")
            assert rec.wait_for(lambda: len(calls) >= 1)
            second = root / "second.py"
            second.write_text("")
            rec.wait_path(second)
        assert any(r.exc_info and "on_batch" in r.getMessage() for r in caplog.records)
        assert w.state(root).restarts == 0
    finally:
        w.stop()


def test_non_utf8_file_name_does_not_stop_later_events(root: Path) -> None:
    rec = Recorder()
    w = make_watcher(rec)
    try:
        start_live(w, root)
        fd = os.open(os.fsencode(root) + b"/bad\xff.py", os.O_CREAT | os.O_WRONLY, 0o644)
        os.close(fd)
        # The generator dies on the undecodable name; the supervisor restarts it and tells the
        # daemon to rescan once the new watch is live.
        assert rec.wait_for(lambda: bool(rec.degraded)), "on_degraded not called"
        assert rec.degraded[0][0] == root
        assert "decode" in rec.degraded[0][1].lower()
        state = w.state(root)
        assert state.restarts >= 1
        assert state.last_error is not None
        assert state.mode == "watching"
        assert rec.wait_for(lambda: w.state(root).degraded_reason is None and w.state(root).live)

        later = root / "later.py"
        later.write_text("ok\n")
        rec.wait_path(later)
    finally:
        w.stop()


def test_removing_root_reports_degraded_and_recovers(root: Path) -> None:
    rec = Recorder()
    w = make_watcher(rec)
    try:
        start_live(w, root)
        (root / "a.py").write_text("")
        rec.wait_path(root / "a.py")
        shutil.rmtree(root)
        assert rec.wait_for(lambda: w.state(root).degraded_reason is not None)
        assert rec.wait_for(lambda: bool(rec.degraded))
        assert "root unavailable" in rec.degraded[0][1]
        state = w.state(root)
        assert state.mode == "polling"
        assert state.running
        assert not state.live
        # polling mode: periodic rescans
        n = len(rec.rescans)
        assert rec.wait_for(lambda: len(rec.rescans) >= n + 2)

        # the root comes back: watching is re-established, with one rescan to cover the gap
        root.mkdir()
        assert rec.wait_for(lambda: w.state(root).mode == "watching" and w.state(root).live)
        assert w.state(root).degraded_reason is None
        back = root / "back.py"
        back.write_text("")
        rec.wait_path(back)
    finally:
        w.stop()


def test_replaced_root_is_rewatched(root: Path, tmp_path: Path) -> None:
    rec = Recorder()
    w = make_watcher(rec, retry_interval_s=60.0, rescan_interval_s=60.0)
    try:
        start_live(w, root)
        other = tmp_path / "other"
        other.mkdir()
        shutil.rmtree(root)
        other.rename(root)  # same path, another directory (e.g. rm -rf && git clone)
        assert rec.wait_for(lambda: bool(rec.degraded))
        assert rec.wait_for(lambda: w.state(root).live and w.state(root).degraded_reason is None)
        f = root / "new.py"
        f.write_text("")
        rec.wait_path(f)
    finally:
        w.stop()


def _failing_watch(exc: BaseException) -> Callable[..., Iterator[set[Any]]]:
    def fake(*args: Any, **kwargs: Any) -> Iterator[set[Any]]:
        raise exc
        yield set()  # pragma: no cover - makes this a generator

    return fake


def test_inotify_exhaustion_falls_back_to_polling(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_watch = watcher_mod._watch
    monkeypatch.setattr(
        watcher_mod, "_watch", _failing_watch(OSError(errno.ENOSPC, "inotify watch limit reached"))
    )
    rec = Recorder()
    w = make_watcher(rec)
    try:
        w.add_root(root)
        w.start()
        assert rec.wait_for(lambda: bool(rec.degraded))
        state = w.state(root)
        assert state.mode == "polling"
        assert state.restarts == 1  # straight to polling, no backoff retries
        assert rec.wait_for(lambda: len(rec.rescans) >= 2)
        assert rec.wait_for(lambda: w.state(root).restarts >= 2)  # it keeps retrying

        # limits raised again: the next retry re-establishes watching
        monkeypatch.setattr(watcher_mod, "_watch", real_watch)
        assert rec.wait_for(lambda: w.state(root).mode == "watching" and w.state(root).live)
        n = len(rec.rescans)
        f = root / "a.py"
        f.write_text("")
        rec.wait_path(f)
        assert len(rec.degraded) == 1
        assert len(rec.rescans) >= n
    finally:
        w.stop()


def test_repeated_failures_switch_to_polling(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watcher_mod, "_watch", _failing_watch(RuntimeError("flaky")))
    rec = Recorder()
    w = make_watcher(rec, max_consecutive_failures=3)
    try:
        w.add_root(root)
        w.start()
        assert rec.wait_for(lambda: w.state(root).mode == "polling")
        assert w.state(root).restarts == 3
        assert rec.wait_for(lambda: bool(rec.degraded))
        assert rec.degraded[0][1] == "RuntimeError: flaky"
        assert rec.wait_for(lambda: len(rec.rescans) >= 1)
    finally:
        w.stop()


def test_stop_is_prompt_and_roots_management(tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    rec = Recorder()
    w = make_watcher(rec, health_check_ms=5000)  # stop must not wait for the rust timeout
    start_live(w, a)
    assert w.add_root(a) == a  # idempotent
    w.add_root(str(b))
    assert w.wait_live(b, DEADLINE_S)
    assert w.roots() == [a, b]
    (b / "x.py").write_text("")
    rec.wait_path(b / "x.py")
    assert (b, {b / "x.py"}) in rec.batches or any(r == b for r, _ in rec.batches)

    w.remove_root(a)
    assert w.roots() == [b]
    with pytest.raises(NotFound):
        w.state(a)
    with pytest.raises(NotFound):
        w.remove_root(a)

    t0 = time.monotonic()
    w.stop()
    assert time.monotonic() - t0 < 1.0
    assert not w.states()[b].running
    with pytest.raises(RuntimeError):
        w.start()


def test_state_before_start(root: Path) -> None:
    w = RepoWatcher(lambda r, p: None)
    w.add_root(root)
    s = w.state(root)
    assert (s.running, s.degraded_reason, s.restarts, s.mode, s.live) == (False, None, 0, "watching", False)
    assert not w.wait_live(root, 0.01)
    w.stop()
