"""The store's engine is chosen once, by flag, environment or default: the daemon runs on it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from conftest import Daemon, copy_fixture, daemon_env, short_tmp


def test_the_flag_chooses_the_engine_the_daemon_runs_on(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo], extra=["--store-engine", "ladybug"], env={"GRAPHMEM_STORE_ENGINE": "kuzu"})
    with d.client() as c:
        st = c.status()
        assert st.store_path.endswith("/data/graph.lbug")
        assert c.find_symbols("hash_password")
    assert (d.home / "data" / "graph.lbug").is_file()
    assert not (d.home / "data" / "graph.kuzu").exists()


def test_an_unknown_engine_is_refused_with_exit_64() -> None:
    home = short_tmp()
    done = subprocess.run(
        [sys.executable, "-m", "graphmemd", "run", "--store-engine", "sqlite"],
        env=daemon_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 64
    assert "unknown store engine 'sqlite'; choose one of kuzu, ladybug" in done.stderr
