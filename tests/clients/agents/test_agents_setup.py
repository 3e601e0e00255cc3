"""``graphmem setup CLIENT`` per client, run as the real executable: the files it writes parse
and have the shape the client documents (docs/agents.md quotes the examples); a second run
changes nothing; ``--undo`` gives back every file byte for byte; other entries survive.

Every run has ``HOME`` in a temporary directory, so user-scope files are the test's own."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from agentlib import GRAPHMEM, agent_env, dirs, run, snapshot
from conftest import short_tmp
from gitrepo import git, initial_commit
from graphmem.agents.instructions import BEGIN

#: What the repository holds before setup: the user's own entries, with comments where the
#: client's format allows them (JSONC: VS Code and Gemini CLI settings).
SEEDS: dict[str, dict[str, str]] = {
    "claude-code": {
        ".mcp.json": '{\n  "mcpServers": {\n    "github": {"command": "gh-mcp", "args": []}\n  }\n}\n',
        ".claude/settings.json": (
            '{\n  "permissions": {"allow": ["Bash(make test)"]},\n  "hooks": {\n    "PostToolUse": [\n'
            '      {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}\n'
            "    ]\n  }\n}\n"
        ),
        "CLAUDE.md": "# Project\n\nUse make.\n",
    },
    "codex": {
        ".codex/config.toml": '# team settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
        "AGENTS.md": "# Agents\n\nRun the tests with make.\n",
    },
    "cursor": {
        ".cursor/mcp.json": '{\n  "mcpServers": {\n    "db": {"command": "db-mcp", "env": {"URL": "x"}}\n  }\n}\n',
    },
    "vscode": {
        ".vscode/mcp.json": (
            '{\n\t// our servers\n\t"inputs": [],\n\t"servers": {\n\t\t"pg": {"type": "stdio", "command": "pg",},\n'
            "\t},\n}\n"
        ),
    },
    "gemini": {
        ".gemini/settings.json": '{\n  // mine\n  "theme": "GitHub",\n  "mcpServers": {}\n}\n',
        "GEMINI.md": "Be brief.\n",
    },
    "windsurf": {},
}


def strip_comments(text: str) -> Any:
    """A JSONC text read the way its client does: comments and trailing commas dropped."""
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))


def executable(command: str) -> None:
    """A project file names graphmem as every machine finds it: on PATH."""
    assert command == "graphmem", command


def absolute_executable(command: str) -> None:
    """A user file names this machine's graphmem by its path."""
    assert os.path.isabs(command), command
    assert os.access(command, os.X_OK), command


def check_hook_command(line: str, kind: str, client: str) -> None:
    words = shlex.split(line)
    executable(words[0])
    assert words[1:] == ["hook", kind, "--client", client], words  # no --home: only a --home flag writes one


def claude_shape(repo: Path, home: Path) -> None:
    mcp = json.loads((repo / ".mcp.json").read_text())
    entry = mcp["mcpServers"]["graphmem"]
    assert entry["type"] == "stdio"
    assert entry["args"] == ["mcp"]
    executable(entry["command"])
    assert mcp["mcpServers"]["github"] == {"command": "gh-mcp", "args": []}
    settings = json.loads((repo / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(make test)"]}
    start = settings["hooks"]["SessionStart"]
    assert [g["matcher"] for g in start] == ["startup|resume|clear|compact"]
    post = settings["hooks"]["PostToolUse"]
    assert post[0] == {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}
    assert post[1]["matcher"] == "Edit|MultiEdit|Write|NotebookEdit"
    for group, kind in ((start[0], "session-start"), (post[1], "post-edit")):
        (handler,) = group["hooks"]
        assert handler["type"] == "command"
        assert isinstance(handler["timeout"], int)
        assert handler["timeout"] <= 15
        check_hook_command(handler["command"], kind, "claude-code")
    assert (repo / "CLAUDE.md").read_text().startswith("# Project\n\nUse make.\n")


def codex_shape(repo: Path, home: Path) -> None:
    config = tomllib.loads((repo / ".codex/config.toml").read_text())
    assert config["model"] == "o3"
    assert config["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    entry = config["mcp_servers"]["graphmem"]
    executable(entry["command"])
    assert entry["args"] == ["mcp"]
    assert config["features"]["codex_hooks"] is True
    hooks = json.loads((repo / ".codex/hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert hooks["PostToolUse"][0]["matcher"] == "apply_patch|Edit|Write"
    check_hook_command(hooks["PostToolUse"][0]["hooks"][0]["command"], "post-edit", "codex")
    assert (repo / "AGENTS.md").read_text().startswith("# Agents\n")


def cursor_shape(repo: Path, home: Path) -> None:
    mcp = json.loads((repo / ".cursor/mcp.json").read_text())
    entry = mcp["mcpServers"]["graphmem"]
    assert "type" not in entry
    assert entry["args"] == ["mcp"]
    executable(entry["command"])
    assert mcp["mcpServers"]["db"] == {"command": "db-mcp", "env": {"URL": "x"}}
    hooks = json.loads((repo / ".cursor/hooks.json").read_text())
    assert hooks["version"] == 1
    (start,) = hooks["hooks"]["sessionStart"]
    (post,) = hooks["hooks"]["postToolUse"]
    assert set(start) == {"command", "timeout"}
    assert set(post) == {"command", "timeout"}
    check_hook_command(start["command"], "session-start", "cursor")
    check_hook_command(post["command"], "post-edit", "cursor")


def vscode_shape(repo: Path, home: Path) -> None:
    text = (repo / ".vscode/mcp.json").read_text()
    assert "// our servers" in text
    mcp = strip_comments(text)
    assert mcp["inputs"] == []
    assert mcp["servers"]["pg"] == {"type": "stdio", "command": "pg"}
    entry = mcp["servers"]["graphmem"]
    assert entry["type"] == "stdio"
    assert entry["args"] == ["mcp"]
    executable(entry["command"])
    assert '\t\t"graphmem": {\n\t\t\t"type": "stdio",' in text  # the file's tab indentation
    hooks = json.loads((repo / ".github/hooks/graphmem.json").read_text())["hooks"]
    (start,) = hooks["SessionStart"]
    (post,) = hooks["PostToolUse"]
    assert start["type"] == "command"
    assert post["type"] == "command"
    assert "matcher" not in post
    check_hook_command(start["command"], "session-start", "vscode")


def gemini_shape(repo: Path, home: Path) -> None:
    settings = strip_comments((repo / ".gemini/settings.json").read_text())
    assert settings["theme"] == "GitHub"
    entry = settings["mcpServers"]["graphmem"]
    assert entry["args"] == ["mcp"]
    assert "type" not in entry
    executable(entry["command"])
    (start,) = settings["hooks"]["SessionStart"]
    (after,) = settings["hooks"]["AfterTool"]
    assert "matcher" not in start
    assert after["matcher"] == "write_file|replace"
    for group, kind in ((start, "session-start"), (after, "post-edit")):
        (handler,) = group["hooks"]
        assert handler["name"] == f"graphmem-{kind}"
        assert handler["type"] == "command"
        assert handler["timeout"] >= 1000  # milliseconds
        check_hook_command(handler["command"], kind, "gemini")


def windsurf_shape(repo: Path, home: Path) -> None:
    mcp = json.loads((home / ".codeium/windsurf/mcp_config.json").read_text())
    entry = mcp["mcpServers"]["graphmem"]
    assert entry["args"] == ["mcp"]
    absolute_executable(entry["command"])  # Windsurf keeps servers for the user only: the user's own file
    assert not (repo / ".windsurf").exists()


SHAPES = {"claude-code": claude_shape, "codex": codex_shape, "cursor": cursor_shape, "vscode": vscode_shape,
          "gemini": gemini_shape, "windsurf": windsurf_shape}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "main.py").write_text("def main() -> None:\n    pass\n")
    home = tmp_path / "home"
    home.mkdir()
    return repo, home, agent_env(home, short_tmp("gmh"))


@pytest.mark.parametrize("name", list(SHAPES))
def test_setup_writes_the_documented_shape_twice_is_a_no_op_and_undo_restores(
    name: str, world: tuple[Path, Path, dict[str, str]]
) -> None:
    repo, home, env = world
    if name == "windsurf":
        (home / ".codeium/windsurf").mkdir(parents=True)  # Windsurf makes it on its first start
    for rel, text in SEEDS[name].items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    before, before_home, before_dirs = snapshot(repo), snapshot(home), dirs(repo) | dirs(home)

    dry = run(["setup", name, "--dry-run", "--no-register", "--instructions"], repo, env)
    assert dry.returncode == 0, dry.stderr
    assert "+++ " in dry.stdout
    assert "graphmem" in dry.stdout
    assert snapshot(repo) == before
    assert snapshot(home) == before_home

    first = run(["setup", name, "--no-register", "--instructions"], repo, env)
    assert first.returncode == 0, first.stderr
    assert "wrote" in first.stdout
    SHAPES[name](repo, home)
    instructions = {"claude-code": "CLAUDE.md", "gemini": "GEMINI.md"}.get(name, "AGENTS.md")
    assert (repo / instructions).read_text().count(BEGIN) == 1

    after = (snapshot(repo), snapshot(home))
    second = run(["setup", name, "--no-register", "--instructions"], repo, env)
    assert second.returncode == 0, second.stderr
    assert "wrote" not in second.stdout
    assert "unchanged" in second.stdout
    assert (snapshot(repo), snapshot(home)) == after  # twice: no change at all

    undo = run(["setup", name, "--undo"], repo, env)
    assert undo.returncode == 0, undo.stderr
    assert snapshot(repo) == before
    assert snapshot(home) == before_home
    assert dirs(repo) | dirs(home) == before_dirs  # the directories it made are gone too
    again = run(["setup", name, "--undo"], repo, env)
    assert again.returncode == 0
    assert "nothing to undo" in again.stdout


def test_undo_after_the_user_edited_the_file_takes_out_only_graphmem(
    world: tuple[Path, Path, dict[str, str]]
) -> None:
    repo, _, env = world
    assert run(["setup", "cursor", "--no-register", "--no-instructions"], repo, env).returncode == 0
    path = repo / ".cursor/mcp.json"
    data = json.loads(path.read_text())
    data["mcpServers"]["later"] = {"command": "added-after-setup"}
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert run(["setup", "cursor", "--undo"], repo, env).returncode == 0
    assert json.loads(path.read_text()) == {"mcpServers": {"later": {"command": "added-after-setup"}}}
    assert not (repo / ".cursor/hooks.json").exists()


def test_no_hooks_turns_them_off_and_keeps_the_server(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _, env = world
    (repo / ".claude").mkdir()
    (repo / ".claude/settings.json").write_text(SEEDS["claude-code"][".claude/settings.json"])
    assert run(["setup", "claude-code", "--no-register", "--no-instructions"], repo, env).returncode == 0
    off = run(["setup", "claude-code", "--no-register", "--no-instructions", "--no-hooks"], repo, env)
    assert off.returncode == 0, off.stderr
    assert (repo / ".claude/settings.json").read_text() == SEEDS["claude-code"][".claude/settings.json"]
    assert "graphmem" in json.loads((repo / ".mcp.json").read_text())["mcpServers"]


def test_shared_instruction_file_stays_while_another_client_wants_it(
    world: tuple[Path, Path, dict[str, str]]
) -> None:
    repo, _, env = world
    (repo / "AGENTS.md").write_text("# Agents\n")
    for name in ("codex", "cursor"):
        assert run(["setup", name, "--no-register", "--instructions"], repo, env).returncode == 0
    assert (repo / "AGENTS.md").read_text().count(BEGIN) == 1
    assert run(["setup", "codex", "--undo"], repo, env).returncode == 0
    assert BEGIN in (repo / "AGENTS.md").read_text()  # cursor's setup still wants it
    assert run(["setup", "cursor", "--undo"], repo, env).returncode == 0
    assert (repo / "AGENTS.md").read_text() == "# Agents\n"


def test_user_scope(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, home, env = world
    claude_json = home / ".claude.json"
    claude_json.write_text('{"numStartups": 7, "projects": {"/x": {"mcpServers": {}}}}')
    (home / ".claude").mkdir()
    done = run(["setup", "claude-code", "--user", "--no-register", "--no-instructions"], repo, env)
    assert done.returncode == 0, done.stderr
    data = json.loads(claude_json.read_text())
    assert data["numStartups"] == 7
    assert data["projects"] == {"/x": {"mcpServers": {}}}
    assert data["mcpServers"]["graphmem"]["args"] == ["mcp"]
    absolute_executable(data["mcpServers"]["graphmem"]["command"])
    assert data["mcpServers"]["graphmem"]["env"] == {"GRAPHMEM_HOME": env["GRAPHMEM_HOME"]}  # the one in effect
    hook = json.loads((home / ".claude/settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    words = shlex.split(hook["command"])
    absolute_executable(words[0])
    assert words[1:] == ["hook", "session-start", "--client", "claude-code", "--home", env["GRAPHMEM_HOME"]]
    assert not (repo / ".mcp.json").exists()

    codex_home = home / "codex-home"
    codex_home.mkdir()
    done = run(["setup", "codex", "--user", "--no-register", "--no-instructions"], repo,
               {**env, "CODEX_HOME": str(codex_home)})
    assert done.returncode == 0, done.stderr
    assert tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]["graphmem"]["args"] == ["mcp"]
    assert "graphmem" in (codex_home / "hooks.json").read_text()

    # VS Code's profile folder does not exist: nothing is written (not the hooks without the
    # server), and the error names the folder and the one command that adds the server alone
    vs = run(["setup", "vscode", "--user", "--no-register", "--no-instructions"], repo, env)
    assert vs.returncode == 69, vs.stdout + vs.stderr
    assert f"{home}/.config/Code/User does not exist" in vs.stderr
    assert "code --add-mcp" in vs.stderr
    assert vs.stderr.count("does not exist") == 1
    assert not (home / ".copilot").exists()
    assert not (home / ".config").exists()
    (home / ".config/Code/User").mkdir(parents=True)
    vs = run(["setup", "vscode", "--user", "--no-register", "--no-instructions"], repo, env)
    assert json.loads((home / ".config/Code/User/mcp.json").read_text())["servers"]["graphmem"]["type"] == "stdio"
    assert (home / ".copilot/hooks/graphmem.json").exists()

    for name, extra in (("claude-code", {}), ("codex", {"CODEX_HOME": str(codex_home)}), ("vscode", {})):
        assert run(["setup", name, "--user", "--undo"], repo, {**env, **extra}).returncode == 0
    assert json.loads(claude_json.read_text()) == {"numStartups": 7, "projects": {"/x": {"mcpServers": {}}}}
    assert claude_json.read_text() == '{"numStartups": 7, "projects": {"/x": {"mcpServers": {}}}}'
    assert not (codex_home / "config.toml").exists()


def test_a_client_not_started_yet_gets_none_of_its_files(world: tuple[Path, Path, dict[str, str]]) -> None:
    """``setup codex --user`` without ``~/.codex`` used to write the hooks and not the server."""
    repo, home, env = world
    before = snapshot(home), dirs(home)
    done = run(["setup", "codex", "--user", "--no-register", "--no-instructions"], repo, env)
    assert done.returncode == 69, done.stdout + done.stderr
    assert f"{home}/.codex does not exist: Codex CLI has not been started as this user yet" in done.stderr
    assert "codex mcp add graphmem -- " in done.stderr
    assert "Traceback" not in done.stderr
    assert (snapshot(home), dirs(home)) == before
    dry = run(["setup", "windsurf", "--dry-run", "--no-register", "--instructions"], repo, env)
    assert dry.returncode == 69  # Windsurf's server is the user's even at project scope
    assert ".codeium/windsurf does not exist" in dry.stderr


def test_new_files_are_readable_by_all_and_existing_ones_keep_their_mode(
    world: tuple[Path, Path, dict[str, str]]
) -> None:
    repo, _, env = world
    (repo / ".cursor").mkdir()
    (repo / ".cursor/mcp.json").write_text(SEEDS["cursor"][".cursor/mcp.json"])
    (repo / ".cursor/mcp.json").chmod(0o640)
    done = subprocess.run(["sh", "-c", 'umask 022 && exec "$@"', "sh", *GRAPHMEM, "setup", "cursor", "--no-register",
                           "--no-instructions"], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((repo / ".cursor/mcp.json").stat().st_mode) == 0o640
    assert stat.S_IMODE((repo / ".cursor/hooks.json").stat().st_mode) == 0o644


def test_command_names_the_launcher_and_home_flag_is_written(world: tuple[Path, Path, dict[str, str]]) -> None:
    """``--command`` names a launcher the user chose; a ``--home`` flag (not an exported
    GRAPHMEM_HOME) is written into project files; setup twice changes nothing; undo finds the hooks."""
    repo, _, env = world
    shared = env["GRAPHMEM_HOME"]  # the home setup keeps its manifest in, named by the flag this time
    args = ["setup", "cursor", "--no-register", "--no-instructions", "--command", "/opt/tools/gm launch",
            "--home", shared]
    done = run(args, repo, env)
    assert done.returncode == 0, done.stderr
    entry = json.loads((repo / ".cursor/mcp.json").read_text())["mcpServers"]["graphmem"]
    assert entry == {"command": "/opt/tools/gm", "args": ["launch", "mcp"], "env": {"GRAPHMEM_HOME": shared}}
    (post,) = json.loads((repo / ".cursor/hooks.json").read_text())["hooks"]["postToolUse"]
    assert shlex.split(post["command"]) == ["/opt/tools/gm", "launch", "hook", "post-edit", "--client", "cursor",
                                            "--home", shared]
    again = run(args, repo, env)
    assert "wrote" not in again.stdout, again.stdout
    assert run(["setup", "cursor", "--undo"], repo, env).returncode == 0
    assert not (repo / ".cursor").exists()


def test_graphmem_missing_from_path_is_said_at_setup(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _, env = world
    done = run(["setup", "cursor", "--no-register", "--no-instructions"], repo, {**env, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "note: `graphmem` is not on this shell's PATH" in done.stdout
    assert "--command PATH" in done.stdout
    (world[1] / ".codeium/windsurf").mkdir(parents=True)
    windsurf = run(["setup", "windsurf", "--no-register", "--no-instructions"], repo, {**env, "PATH": "/usr/bin:/bin"})
    assert windsurf.returncode == 0, windsurf.stderr
    assert "note:" not in windsurf.stdout  # no project file names it: Windsurf's server is the user's, by path


def test_bad_client_file_is_reported_not_overwritten(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _, env = world
    (repo / ".mcp.json").write_text('{"mcpServers": ')
    done = run(["setup", "claude-code", "--no-register", "--no-instructions"], repo, env)
    assert done.returncode == 69, done.stderr  # failed precondition, with the file and where
    assert ".mcp.json cannot be read" in done.stderr
    assert "line 1" in done.stderr
    assert "Traceback" not in done.stderr
    assert (repo / ".mcp.json").read_text() == '{"mcpServers": '


def test_outside_a_git_work_tree_nothing_is_registered(tmp_path: Path) -> None:
    plain = tmp_path / "notes"
    plain.mkdir()
    gm_home = short_tmp("gmh")
    done = run(["setup", "cursor", "--no-instructions"], plain, agent_env(tmp_path, gm_home))
    assert done.returncode == 0, done.stderr
    assert "is not a git work tree: not registered" in done.stdout
    assert not (gm_home / "run").exists()  # no daemon was started for it
    assert (plain / ".cursor/mcp.json").exists()


def test_login_service_is_installed_for_the_repository(world: tuple[Path, Path, dict[str, str]]) -> None:
    """``--login-service``: ``graphmem daemon install`` for the repository; ``systemctl`` is a
    recording stand-in so the real user's systemd is never touched."""
    repo, home, env = world
    bin_dir = home / "bin"
    bin_dir.mkdir()
    (bin_dir / "systemctl").write_text(f'#!/bin/sh\necho "$*" >> "{home}/systemctl.calls"\n')
    (bin_dir / "systemctl").chmod(0o755)
    env = {**env, "PATH": f"{bin_dir}:{env['PATH']}", "XDG_CONFIG_HOME": str(home / "config")}
    done = run(["setup", "cursor", "--no-instructions", "--login-service"], repo, env)
    assert done.returncode == 0, done.stderr
    unit = (home / "config/systemd/user/graphmemd.service").read_text()
    assert f"--repo {repo}" in unit
    assert "enable --now graphmemd.service" in (home / "systemctl.calls").read_text()
    assert "installed the login service" in done.stdout


def test_setup_says_which_project_files_to_commit(tmp_path: Path) -> None:
    """A worktree (an agent's, from ``claude --worktree``) and a teammate's clone hold only
    committed files: setup names the project files git does not track yet, and says nothing
    once they are committed."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "main.py").write_text("def main() -> None:\n    pass\n")
    initial_commit(repo)
    home = tmp_path / "home"
    home.mkdir()
    env = agent_env(home, short_tmp("gmh"))
    done = run(["setup", "claude-code", "--no-register", "--no-instructions"], repo, env)
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("commit: ")]
    assert set(line.split(" (")[0].split()[3:]) == {".mcp.json", ".claude/settings.json"}, line
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "graphmem for the team")
    again = run(["setup", "claude-code", "--no-register", "--no-instructions"], repo, env)
    assert again.returncode == 0, again.stderr
    assert "commit:" not in again.stdout, again.stdout
