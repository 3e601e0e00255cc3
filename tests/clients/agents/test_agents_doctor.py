"""``graphmem doctor`` against a real daemon: every link of the chain checked, the fix printed
for each failure, exit 1 on any."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from agentlib import agent_env, run
from conftest import Daemon, copy_fixture


def test_doctor_checks_the_chain_and_prints_fixes(daemon_factory: Callable[..., Daemon], tmp_path: Path) -> None:
    repo = copy_fixture("python")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)

    none = run(["doctor"], repo, env)
    assert none.returncode == 1
    assert "FAIL  clients: no coding client is connected" in none.stdout
    assert "fix: graphmem setup CLIENT" in none.stdout

    assert run(["setup", "claude-code", "--no-instructions"], repo, env).returncode == 0
    assert run(["setup", "gemini", "--no-instructions"], repo, env).returncode == 0
    ok = run(["doctor"], repo, env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    for check in ("daemon", "versions", "repository", "index", "claude-code: MCP entry", "claude-code: hooks",
                  "gemini: MCP entry", "gemini: hooks"):
        assert f"ok    {check}" in ok.stdout, ok.stdout
    assert "graphmem 0.1.0" in ok.stdout  # the entry's executable answered

    # a teammate without graphmem on PATH: the committed files name it, and doctor says so
    off_path = run(["doctor", "--client", "claude-code"], repo, {**env, "PATH": "/usr/bin:/bin"})
    assert off_path.returncode == 1
    assert f"FAIL  claude-code: MCP entry (project, {repo}/.mcp.json): names `graphmem`, which is not on PATH " \
        "here" in off_path.stdout, off_path.stdout
    assert "fix: put graphmem on PATH for the client" in off_path.stdout
    assert "graphmem setup claude-code --command PATH" in off_path.stdout
    assert f"FAIL  claude-code: hooks (project): SessionStart, PostToolUse in {repo}/.claude/settings.json; " \
        "names `graphmem`, which is not on PATH here" in off_path.stdout

    # hooks turned off, and an MCP entry pointing at an executable that is gone
    assert run(["setup", "claude-code", "--no-hooks", "--no-instructions"], repo, env).returncode == 0
    settings = repo / ".gemini/settings.json"
    data = json.loads(settings.read_text())
    data["mcpServers"]["graphmem"]["command"] = str(tmp_path / "gone" / "graphmem")
    settings.write_text(json.dumps(data, indent=2))
    bad = run(["doctor"], repo, env)
    assert bad.returncode == 1
    assert "FAIL  claude-code: hooks: graphmem's hooks are not installed" in bad.stdout
    assert f"FAIL  gemini: MCP entry (project, {settings}): names {tmp_path}/gone/graphmem, which does " \
        "not exist or is not executable (a path from another machine?" in bad.stdout, bad.stdout
    assert "fix: graphmem setup gemini   (writes the graphmem on PATH)" in bad.stdout
    assert bad.stdout.count("fix: graphmem setup") >= 2

    assert run(["doctor", "--client", "cursor"], repo, env).returncode == 1

    d.stop()
    down = run(["doctor", "--client", "claude-code"], repo, env)
    assert down.returncode == 1
    assert "FAIL  daemon" in down.stdout
    assert "fix: graphmem daemon start --repo" in down.stdout


def test_doctor_sees_an_unregistered_repository(daemon_factory: Callable[..., Daemon], tmp_path: Path) -> None:
    registered = copy_fixture("python")
    d = daemon_factory([registered])
    other = copy_fixture("python")
    env = agent_env(tmp_path, d.home)
    out = run(["doctor"], other, env)
    assert out.returncode == 1
    assert f"FAIL  repository: {other} is not registered" in out.stdout
    assert f"fix: graphmem repo add {other}" in out.stdout
