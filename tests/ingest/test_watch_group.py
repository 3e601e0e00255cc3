"""Many roots, one watch (``watcher.RepoWatcher`` with ``group_after_s``, ``watch_groups.py``):
real watches of real directories. Once no root was added for a while, the healthy roots share
one watch on one thread (an idle daemon's CPU no longer grows with its checkouts); changes are
reported for the right root and as soon as before; a root that goes away, a root removed and a
group whose watch fails each end up watched as before."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graphmemd.ingest import watcher as watcher_mod
from graphmemd.ingest.watch_groups import Alone, regroup, root_of
from graphmemd.ingest.watcher import RepoWatcher
from test_watcher import DEADLINE_S, Recorder, make_watcher

GROUP_AFTER_S = 0.3


def watch_threads() -> list[str]:
    """The watch threads alive (a root's own: ``graphmem-watch:<root>``; a group's)."""
    return sorted(t.name for t in threading.enumerate() if t.name.startswith("graphmem-watch"))


def wait(predicate: Any, timeout: float = DEADLINE_S) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture
def roots(tmp_path: Path) -> list[Path]:
    out = [tmp_path / f"wt{i}" for i in range(4)]
    for r in out:
        (r / "pkg").mkdir(parents=True)
    return out


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every watch started: (its paths, its options); each runs as watchfiles runs it."""
    seen: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    real = watcher_mod._watch

    def spy(*paths: Any, **kwargs: Any) -> Iterator[Any]:
        seen.append((tuple(str(p) for p in paths), kwargs))
        return real(*paths, **kwargs)

    monkeypatch.setattr(watcher_mod, "_watch", spy)
    return seen


def grouped(w: RepoWatcher, roots: list[Path], rec: Recorder) -> None:
    """Start ``w`` on ``roots`` and wait until one group watches them all, alone."""
    for r in roots:
        w.add_root(r)
    w.start()
    for r in roots:
        assert w.wait_live(r, DEADLINE_S)
    wait(lambda: watch_threads() == ["graphmem-watch-group"])


def test_regroup_waits_for_a_quiet_moment_and_healthy_roots() -> None:
    a, b, c = Path("/a"), Path("/b"), Path("/c")
    healthy = [Alone(a, 0.0), Alone(b, 0.0)]
    assert regroup([], healthy, now=5.0, last_added=4.0, quiet_s=2.0) is None  # a root was just added
    assert regroup([], healthy, now=5.0, last_added=1.0, quiet_s=2.0) == (a, b)
    assert regroup([], [Alone(a, 0.0)], now=5.0, last_added=1.0, quiet_s=2.0) is None  # one root: no group
    assert regroup([a, b], [Alone(c, 4.0)], now=5.0, last_added=1.0, quiet_s=2.0) is None  # live only 1 s
    assert regroup([a, b], [Alone(c, 1.0)], now=5.0, last_added=1.0, quiet_s=2.0) == (a, b, c)
    assert regroup([a, b], [Alone(c, None)], now=5.0, last_added=1.0, quiet_s=2.0) is None  # degraded
    assert regroup([a, b], [], now=5.0, last_added=1.0, quiet_s=2.0) is None  # nothing new


def test_root_of_takes_the_deepest_root() -> None:
    roots = [Path("/r/a"), Path("/r/a/b"), Path("/r/ab")]
    assert root_of("/r/a/x.py", roots) == Path("/r/a")
    assert root_of("/r/a/b/x.py", roots) == Path("/r/a/b")
    assert root_of("/r/ab/x.py", roots) == Path("/r/ab")
    assert root_of("/r/abc/x.py", roots) is None


def test_quiet_roots_share_one_watch_with_the_same_latency(
    roots: list[Path], calls: list[tuple[tuple[str, ...], dict[str, Any]]]
) -> None:
    rec = Recorder()
    w = make_watcher(rec, group_after_s=GROUP_AFTER_S)
    try:
        grouped(w, roots, rec)
        own = next(kw for paths, kw in calls if len(paths) == 1)
        group = [kw for paths, kw in calls if sorted(paths) == sorted(map(str, roots))]
        assert group, calls
        # a batch as soon as before: the group's watch wakes as often and debounces as long
        assert (group[-1]["step"], group[-1]["debounce"]) == (own["step"], own["debounce"]) == (20, 50)
        assert all(w.state(r).live and w.state(r).running for r in roots)
        for r in roots:
            f = r / "pkg" / "mod.py"
            f.write_text("x = 1\n")
            took = rec.wait_path(f)
            assert took < DEADLINE_S
            assert (r, {f}) in rec.batches or any(root == r and f in ps for root, ps in rec.batches)
            assert all(root == r for root, ps in rec.batches if f in ps)  # reported for its own root
        # a root added later is watched on its own at once, then joins the group
        late = roots[0].parent / "late"
        (late / "pkg").mkdir(parents=True)
        w.add_root(late)
        assert w.wait_live(late, DEADLINE_S)
        g = late / "pkg" / "new.py"
        g.write_text("y = 2\n")
        rec.wait_path(g)
        wait(lambda: watch_threads() == ["graphmem-watch-group"])
        h = late / "pkg" / "again.py"
        h.write_text("z = 3\n")
        rec.wait_path(h)
    finally:
        w.stop()
    assert not watch_threads()
    assert not any(w.state(r).running for r in roots)


def test_a_root_gone_from_the_group_is_reported_and_the_others_go_on(roots: list[Path]) -> None:
    rec = Recorder()
    w = make_watcher(rec, group_after_s=GROUP_AFTER_S)
    try:
        grouped(w, roots, rec)
        shutil.rmtree(roots[1])
        assert rec.wait_for(lambda: any(r == roots[1] for r, _ in rec.degraded)), rec.degraded
        assert not any(r != roots[1] for r, _ in rec.degraded)
        for r in (roots[0], roots[2]):
            f = r / "pkg" / "after.py"
            f.write_text("x = 1\n")
            rec.wait_path(f)
        roots[1].mkdir()  # back: watched again (on its own, then in the group)
        assert rec.wait_for(lambda: w.state(roots[1]).live and w.state(roots[1]).mode == "watching")
        f = roots[1] / "back.py"
        f.write_text("x = 1\n")
        rec.wait_path(f)
    finally:
        w.stop()


def test_a_root_removed_from_the_group_is_no_longer_reported(roots: list[Path]) -> None:
    rec = Recorder()
    w = make_watcher(rec, group_after_s=GROUP_AFTER_S)
    try:
        grouped(w, roots, rec)
        w.remove_root(roots[0])
        (roots[0] / "pkg" / "gone.py").write_text("x = 1\n")
        f = roots[1] / "pkg" / "kept.py"
        f.write_text("x = 1\n")
        rec.wait_path(f)
        time.sleep(0.2)  # (the removed root's change would have come with it or just after)
        assert not any(r == roots[0] for r, _ in rec.batches), rec.batches
        wait(lambda: watch_threads() == ["graphmem-watch-group"])
    finally:
        w.stop()


def test_a_failed_group_hands_each_root_back_to_its_own_watch(
    roots: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = watcher_mod._watch
    failed = threading.Event()

    def failing_once(*paths: Any, **kwargs: Any) -> Iterator[Any]:
        for changes in real(*paths, **kwargs):
            if len(paths) > 1 and not failed.is_set():
                failed.set()
                raise RuntimeError("the group's watch broke")
            yield changes

    monkeypatch.setattr(watcher_mod, "_watch", failing_once)
    rec = Recorder()
    w = make_watcher(rec, group_after_s=GROUP_AFTER_S)
    try:
        for r in roots:
            w.add_root(r)
        w.start()
        assert rec.wait_for(lambda: {r for r, _ in rec.degraded} == set(roots)), rec.degraded
        assert all("the group's watch broke" in why for _, why in rec.degraded)
        for r in roots:
            f = r / "pkg" / "after.py"
            f.write_text("x = 1\n")
            rec.wait_path(f)
        wait(lambda: watch_threads() == ["graphmem-watch-group"])  # grouped again once quiet
    finally:
        w.stop()


def test_without_group_after_each_root_keeps_its_own_watch(roots: list[Path]) -> None:
    rec = Recorder()
    w = make_watcher(rec, group_after_s=None)
    try:
        for r in roots:
            w.add_root(r)
        w.start()
        for r in roots:
            assert w.wait_live(r, DEADLINE_S)
        time.sleep(3 * GROUP_AFTER_S)
        assert len(watch_threads()) == len(roots)
    finally:
        w.stop()
