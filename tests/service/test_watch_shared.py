"""The checkouts of a repository share one file watch once no checkout was added for a while
(``ingest/watch_groups.py``): through the real daemon, with real ``git worktree``. An idle
daemon then has one watch thread, not one per checkout, and an edit in any checkout is still
seen on its own (the edit reaches the graph of that checkout, and of no other)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, wait_for
from gitrepo import committed_fixture, git
from test_worktrees import ready

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0


def watch_threads(d: Daemon) -> list[str]:
    """The daemon's watch threads by their OS names: a checkout's own (``gm-w:<folder>``) and the
    shared one (``gm-watch-group``)."""
    out = []
    for task in Path(f"/proc/{d.proc.pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
        except OSError:
            continue  # (a thread that just ended)
        if name.startswith(("gm-w:", "gm-watch-group")):
            out.append(name)
    return sorted(out)


def test_checkouts_share_one_watch_and_each_edit_is_still_seen(daemon_factory: DaemonFactory) -> None:
    a = committed_fixture()
    b, c_ = a.parent / "wt-b", a.parent / "wt-c"
    d = daemon_factory([a], env={"GRAPHMEM_WATCH_GROUP_AFTER_S": "0.5"})
    with d.client() as c:
        for wt in (b, c_):
            git(a, "worktree", "add", "-q", "-b", wt.name, str(wt))
        for root in (a, b, c_):
            wait_for(lambda root=root: ready(c, root), TIMEOUT)  # type: ignore[misc]
        wait_for(lambda: watch_threads(d) == ["gm-watch-group"], TIMEOUT)
        for root in (b, a, c_):
            name = f"probe_{root.name.replace('-', '_')}"
            path = root / "app" / "api" / "routes.py"
            path.write_text(path.read_text() + f"\n\ndef {name}() -> str:\n    return 'ok'\n")
            wait_for(lambda name=name, root=root: c.find_symbols(name, repo=str(root)), TIMEOUT)  # type: ignore[misc]
            others = [r for r in (a, b, c_) if r != root]
            assert not any(c.find_symbols(name, repo=str(r)) for r in others)
        # a worktree added later is watched on its own at once (its edits seen), then joins
        e = a.parent / "wt-e"
        git(a, "worktree", "add", "-q", "-b", "wt-e", str(e))
        wait_for(lambda: ready(c, e), TIMEOUT)
        wait_for(lambda: watch_threads(d) == ["gm-watch-group"], TIMEOUT)
        path = e / "app" / "api" / "routes.py"
        path.write_text(path.read_text() + "\n\ndef probe_late() -> str:\n    return 'ok'\n")
        wait_for(lambda: c.find_symbols("probe_late", repo=str(e)), TIMEOUT)
    assert d.stop() == 0
