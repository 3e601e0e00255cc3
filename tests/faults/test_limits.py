"""Issue #15, failures 7, 8 and 13: the Retrieve leak, absurd imported values, and the
smaller items (nested repositories, removal by an inner path, anchors per observation,
``import /dev/zero``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, daemon_env
from faultlib import ANCHOR, assert_all_present, observe_many
from graphmem.errors import InvalidArgument


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_7_text_retrieve_does_not_leak(py_daemon: Daemon) -> None:
    with py_daemon.client() as c:
        observe_many(c, 20)
        for i in range(300):  # warm-up: caches, arenas, the offset maps
            c.recall(f"tokens expire use {i % 7}")
        before = _rss(py_daemon.proc.pid)
        for i in range(1500):
            c.recall(f"tokens expire use {i % 7}")
        grown = _rss(py_daemon.proc.pid) - before
    # the leak was ~39 KB per text query: 1,500 queries kept ~58 MB
    assert grown < 20 * 1024 * 1024, f"RSS grew {grown / 1e6:.1f} MB over 1,500 text queries"


def test_8_absurd_imported_values_are_rejected_by_line(py_daemon: Daemon) -> None:
    with py_daemon.client() as c:
        acked = observe_many(c, 3)
        good = json.loads(next(iter(c.export())))
        lines = []
        for i, patch in enumerate(
            [{}, {"confirmed_at": 1e300}, {"confidence": 7}, {"created_at": "yesterday"}, {"tags": "x" * 10}]
        ):
            obs = {**good["obs"], "id": f"imported{i}", **patch}
            lines.append(json.dumps({"op": "put", "obs": obs}))
        lines.append("{not json")
        result = c.import_lines(lines)
        assert result.imported == 1
        assert [e.split(":")[0] for e in result.errors] == ["line 2", "line 3", "line 4", "line 5", "line 6"]
        assert "confirmed_at" in result.errors[0]
        acked["imported0"] = good["obs"]["text"]
        assert_all_present(c, acked)  # list works for everyone
    assert py_daemon.stop() == 0


def test_8_absurd_value_in_the_journal_is_quarantined(daemon_factory: Callable[..., Daemon], py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        acked = observe_many(c, 4)
    assert d.stop() == 0
    journal = d.home / "data" / "observations.jsonl"
    first = json.loads(journal.read_text().splitlines()[0])
    bad = {"op": "put", "seq": 999, "obs": {**first["obs"], "id": "absurd", "confirmed_at": 1e300}}
    with journal.open("a") as f:
        f.write(json.dumps(bad) + "\n")
    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        assert_all_present(c, acked)
        assert "invalid journal records" in c.status().last_error
    quarantined = (d.home / "data" / "observations.jsonl.quarantine").read_text()
    assert "absurd" in quarantined
    assert "confirmed_at" in quarantined


def test_13_nested_repository_and_inner_path_removal_are_refused(
    daemon_factory: Callable[..., Daemon], py_repo: Path
) -> None:
    d = daemon_factory([py_repo])
    inner = py_repo / "app" / "auth"
    with d.client() as c:
        with pytest.raises(InvalidArgument, match="nested"):
            c.add_repo(inner)
        with pytest.raises(InvalidArgument, match="root"):
            c.remove_repo(str(inner))
        assert len(c.list_repos()) == 1
        with pytest.raises(InvalidArgument, match="anchors"):
            c.observe("too many anchors", anchors=[ANCHOR] * 65)
        c.remove_repo(str(py_repo))
        assert c.list_repos() == []


def test_13_cli_import_reads_only_regular_files(py_daemon: Daemon) -> None:
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "graphmem", "import", "/dev/zero"],
        env=daemon_env(py_daemon.home),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < 30
    assert proc.returncode == InvalidArgument.exit_code
    assert b"regular file" in proc.stderr


