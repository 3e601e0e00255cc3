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
