"""The watch of a few directories themselves (``watcher.watch_dirs``: the common git
directories' watch) sleeps while nothing changes: it neither wakes to ask whether to stop nor
yields before its timeout, and still reports a change within its debounce."""

from __future__ import annotations

import os
import threading
import time

import pytest
from conftest import short_tmp
from graphmemd.ingest import dirwatch
from graphmemd.ingest.watcher import watch_dirs

pytestmark = pytest.mark.skipif(not dirwatch.available(), reason="inotify is Linux's")


class CountingStop(threading.Event):
    """A stop event that counts how often the watch asked it."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def is_set(self) -> bool:
        self.asked += 1
        return super().is_set()


def test_a_quiet_directory_is_not_polled_and_a_change_is_reported_at_once() -> None:
    d = short_tmp("gmd").resolve()
    stop = CountingStop()
    seen: list[tuple[float, bool]] = []

    def run() -> None:
        for changed in watch_dirs([d], stop, 10_000):
            seen.append((time.monotonic(), changed))
            return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    time.sleep(1.0)
    assert seen == []
    assert stop.asked <= 2, f"asked whether to stop {stop.asked} times in 1 s of quiet"
    made = time.monotonic()
    (d / "locked").write_text("x")
    t.join(5)
    assert seen
    assert seen[0][1] is True
    assert seen[0][0] - made < 0.5
    stop.set()


def test_a_timeout_yields_false_and_stop_ends_it() -> None:
    d = short_tmp("gmd").resolve()
    stop = threading.Event()
    it = watch_dirs([d], stop, 100)
    assert next(it) is False
    stop.set()
    assert list(it) == []


def test_a_directory_that_cannot_be_watched_raises() -> None:
    d = short_tmp("gmd").resolve()
    with pytest.raises(OSError, match="cannot watch"):
        dirwatch.DirWatch([d / "gone"])


def test_a_watch_never_iterated_releases_its_inotify_instance() -> None:
    d = short_tmp("gmd").resolve()
    fds = len(os.listdir("/proc/self/fd"))
    for _ in range(50):
        watch_dirs([d], threading.Event(), 100)  # (made, dropped unstarted)
    assert len(os.listdir("/proc/self/fd")) <= fds + 2
