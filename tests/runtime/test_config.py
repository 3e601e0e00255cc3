"""Tests of ``graphmemd.runtime.config.resolve_config``: flag, then environment, then default."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphmem.errors import InvalidArgument
from graphmemd.runtime.config import resolve_config


def test_parse_idle_seconds_default_env_and_bad_values(tmp_path: Path) -> None:
    home = str(tmp_path)
    assert resolve_config(home=home, env={}).parse_idle_s == 1.0
    assert resolve_config(home=home, env={"GRAPHMEM_PARSE_IDLE_S": "0.25"}).parse_idle_s == 0.25
    for bad in ("soon", "-1", "nan"):
        with pytest.raises(InvalidArgument, match="GRAPHMEM_PARSE_IDLE_S"):
            resolve_config(home=home, env={"GRAPHMEM_PARSE_IDLE_S": bad})


def test_flag_beats_environment_beats_default(tmp_path: Path) -> None:
    env = {"GRAPHMEM_PARSE_WORKERS": "3", "GRAPHMEM_LOG_LEVEL": "debug"}
    cfg = resolve_config(home=str(tmp_path), env=env)
    assert (cfg.parse_workers, cfg.log_level) == (3, "DEBUG")
    cfg = resolve_config(home=str(tmp_path), env=env, parse_workers=5, log_level="warning")
    assert (cfg.parse_workers, cfg.log_level) == (5, "WARNING")
    with pytest.raises(InvalidArgument, match="GRAPHMEM_PARSE_WORKERS"):
        resolve_config(home=str(tmp_path), env={"GRAPHMEM_PARSE_WORKERS": "many"})


def test_store_engine_flag_environment_default_and_bad_values(tmp_path: Path) -> None:
    from graphmemd.runtime.config import DEFAULT_STORE_ENGINE

    home = str(tmp_path)
    cfg = resolve_config(home=home, env={})
    assert cfg.store_engine == DEFAULT_STORE_ENGINE
    assert cfg.store_workarounds is None  # the engine's own
    cfg = resolve_config(home=home, env={"GRAPHMEM_STORE_ENGINE": "LadyBug"})
    assert (cfg.store_engine, cfg.store_path.name) == ("ladybug", "graph.lbug")
    cfg = resolve_config(home=home, env={"GRAPHMEM_STORE_ENGINE": "ladybug"}, store_engine="kuzu")
    assert (cfg.store_engine, cfg.store_path.name) == ("kuzu", "graph.kuzu")
    with pytest.raises(InvalidArgument, match="unknown store engine 'neo4j'; choose one of kuzu, ladybug"):
        resolve_config(home=home, env={"GRAPHMEM_STORE_ENGINE": "neo4j"})
    env = {"GRAPHMEM_STORE_WORKAROUNDS": "recycle, literals"}
    assert resolve_config(home=home, env=env).store_workarounds == frozenset({"recycle", "literals"})
    assert resolve_config(home=home, env={"GRAPHMEM_STORE_WORKAROUNDS": "none"}).store_workarounds == frozenset()
    with pytest.raises(InvalidArgument, match="unknown store workaround"):
        resolve_config(home=home, env={"GRAPHMEM_STORE_WORKAROUNDS": "reboot"})
