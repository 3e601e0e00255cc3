"""Shell completion (``graphmem completion SHELL``, argcomplete): the script a user sources
completes a subcommand and a flag in a real bash (and in zsh and fish where installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("_ARC", "_ARGCOMPLETE", "COMP_"))}
    env["PATH"] = f"{BIN}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


def _script(shell: str) -> str:
    out = subprocess.run(
        [str(BIN / "graphmem"), "completion", shell], capture_output=True, text=True, env=_env(), check=True
    )
    return out.stdout


def _bash_complete(line: str) -> list[str]:
    words = line.split(" ")
    program = f"""
eval "$(graphmem completion bash)"
fn=$(complete -p graphmem | sed -E 's/.* -F ([^ ]+) .*/\\1/')
COMP_WORDS=({" ".join(repr(w) for w in words)})
COMP_CWORD={len(words) - 1}
COMP_LINE={line!r}
COMP_POINT=${{#COMP_LINE}}
"$fn" graphmem {words[-1]!r} {words[-2]!r}
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    out = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, env=_env(), timeout=30)
    assert out.returncode == 0, out.stderr
    return [w.strip() for w in out.stdout.splitlines() if w.strip()]


def test_bash_completes_a_subcommand() -> None:
    assert _bash_complete("graphmem rec") == ["recall"]
    assert "status" in _bash_complete("graphmem st")


def test_bash_completes_a_flag() -> None:
    assert _bash_complete("graphmem recall --inc") == ["--include-stale"]


def test_every_shell_has_a_script() -> None:
    assert "complete -o" in _script("bash")
    assert "graphmem" in _script("bash")
    assert _script("zsh").startswith("#compdef graphmem")
    assert "complete --command graphmem" in _script("fish")


def test_an_unknown_shell_is_a_usage_error() -> None:
    out = subprocess.run([str(BIN / "graphmem"), "completion", "tcsh"], capture_output=True, text=True, env=_env())
    assert out.returncode == 64
    assert "invalid choice" in out.stderr


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_a_subcommand_and_a_flag() -> None:
    program = 'graphmem completion fish | source; complete -C "graphmem rec"; complete -C "graphmem recall --inc"'
    out = subprocess.run(["fish", "--no-config", "-c", program], capture_output=True, text=True, env=_env(), timeout=30)
    assert out.returncode == 0, out.stderr
    words = [line.split("\t")[0] for line in out.stdout.splitlines()]
    assert "recall" in words
    assert "--include-stale" in words
