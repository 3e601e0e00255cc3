"""End to end: a `black` reformat of watched files leaves every observation fresh, through a
real daemon, real files and the real client; a one-character change after it does not.

The repository is the Python fixture plus a few standard-library modules (real code that
black rewrites heavily); every function, method and class gets an observation.
"""

from __future__ import annotations

import shutil
import sysconfig
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, wait_for
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.types import EventKind, Observation, ObservationStatus

black = pytest.importorskip("black", reason="black (dev extra) is not installed")

STDLIB_MODULES = ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "graphlib.py", "calendar.py")
NO_MATCH = "zzzz-no-such-term-zzzz"


def _indexed_paths(client: GraphMem, repo: str, seen: set[str], ready: threading.Event) -> None:
    stream = client.events(repo=repo, kinds=[EventKind.FILE_INDEXED])
    ready.set()
    try:
        for ev in stream:
            if ev.path:
                seen.add(ev.path)
    except GraphMemError:  # the daemon stopped at the end of the test
        return


def test_black_reformat_keeps_observations_fresh(daemon_factory: Callable[..., Daemon]) -> None:
    root = copy_fixture("python")
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    (root / "app" / "std").mkdir()
    for name in STDLIB_MODULES:
        shutil.copy(stdlib / name, root / "app" / "std" / name)
    d = daemon_factory([root])
    with d.client(timeout=30) as c:
        repo = c.list_repos()[0].id
        symbols = {s.id: s for s in c.find_symbols("*", repo=repo, kinds=["function", "method", "class"], limit=5000)}
        assert len(symbols) >= 100, len(symbols)
        observations: dict[str, Observation] = {
            sid: c.observe(f"note on {s.qualname}", anchors=[f"{s.path}::{s.qualname}"], repo=repo)
            for sid, s in symbols.items()
        }

        seen: set[str] = set()
        ready = threading.Event()
        listener = GraphMem(home=str(d.home), timeout=30)
        thread = threading.Thread(target=_indexed_paths, args=(listener, repo, seen, ready), daemon=True)
        thread.start()
        assert ready.wait(10)
        time.sleep(0.2)  # let the subscription reach the daemon (a missed event only slows the wait)

        rewritten: list[str] = []
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            formatted = black.format_str(text, mode=black.Mode())
            if formatted != text:
                tmp = path.with_name(f".{path.name}.tmp")
                tmp.write_text(formatted, encoding="utf-8")
                tmp.replace(path)
                rewritten.append(path.relative_to(root).as_posix())
        assert len(rewritten) >= 4  # graphlib is already black-formatted
        wait_for(lambda: set(rewritten) <= seen, 60)
        wait_for(lambda: c.recall(NO_MATCH, repo=repo).freshness.current, 30)

        stale = [
            (symbols[sid].qualname, now.stale_reasons)
            for sid, o in observations.items()
            if (now := c.get(o.id)).status is not ObservationStatus.FRESH
        ]
        assert stale == []

        # and a real change is still seen: one character of a string in one method
        target = root / "app" / "std" / "textwrap.py"
        text = target.read_text(encoding="utf-8")
        old = "text = text.expandtabs(self.tabsize)"
        assert text.count(old) == 1
        target.write_text(text.replace(old, "text = text.expandtabs(self.tabsize + 0)"), encoding="utf-8")
        by_name = {s.qualname: observations[sid] for sid, s in symbols.items() if s.path == "app/std/textwrap.py"}

        def status(qualname: str) -> ObservationStatus:
            return c.get(by_name[qualname].id).status

        wait_for(lambda: status("TextWrapper._munge_whitespace") is ObservationStatus.STALE, 30)
        wait_for(lambda: c.recall(NO_MATCH, repo=repo).freshness.current, 30)
        assert status("TextWrapper") is ObservationStatus.STALE  # its class contains the code
        assert status("TextWrapper._split") is ObservationStatus.FRESH  # a sibling does not
        assert status("dedent") is ObservationStatus.FRESH
        listener.close()
