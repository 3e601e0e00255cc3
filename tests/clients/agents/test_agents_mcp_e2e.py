"""End to end: ``graphmem setup CLIENT`` writes the MCP configuration; this test reads it back
from the file as the client would (its format, its key), launches the server command exactly as
written (command, args, env over the client's environment, in the project directory) and calls
the tools with the official ``mcp`` client SDK."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO, cast

import anyio
from agentlib import agent_env, run
from conftest import Daemon, copy_fixture
from graphmem.types import Category
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, TextContent

NOTE = "hash_password must stay constant-time: the login timing test depends on it"


def server_entry(client: str, repo: Path) -> dict[str, Any]:
    """The graphmem server entry as the client reads it from the file setup wrote."""
    if client == "codex":
        return cast(dict[str, Any], tomllib.loads((repo / ".codex/config.toml").read_text())["mcp_servers"]["graphmem"])
    path, key = {"claude-code": (".mcp.json", "mcpServers"), "cursor": (".cursor/mcp.json", "mcpServers"),
                 "vscode": (".vscode/mcp.json", "servers"), "gemini": (".gemini/settings.json", "mcpServers")}[client]
    text = re.sub(r",(\s*[}\]])", r"\1", re.sub(r"^\s*//.*$", "", (repo / path).read_text(), flags=re.M))
    return cast(dict[str, Any], json.loads(text)[key]["graphmem"])


def text_of(result: CallToolResult) -> str:
    assert not result.is_error, result
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def talk(entry: dict[str, Any], base_env: dict[str, str], repo: Path, errlog: TextIO) -> None:
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env={**base_env, **entry.get("env", {})}, cwd=repo)
    async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30.0, cache=None) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"session_brief", "recall", "save_observation"} <= names
        brief = await client.call_tool("session_brief", {})  # no files: the repository's brief
        assert NOTE in text_of(brief)
        assert "Constraints and decisions" in text_of(brief)
        assert brief.structured_content is not None
        assert brief.structured_content["left_out"] == 0
        recall = await client.call_tool("recall", {"files": ["app/api/routes.py"]})
        assert NOTE in text_of(recall)


def test_setup_then_the_client_launches_the_server_and_calls_tools(
    daemon_factory: Callable[..., Daemon], tmp_path: Path
) -> None:
    repo = copy_fixture("python")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    d = daemon_factory([repo])
    with d.client() as c:
        c.observe(NOTE, anchors=["app/auth/crypto.py::hash_password"], category=Category.CONSTRAINT)
    env = agent_env(tmp_path, d.home)
    client_env = {k: v for k, v in env.items() if k != "GRAPHMEM_HOME"}  # the entry must carry what it needs
    for client in ("claude-code", "codex", "vscode", "gemini"):
        done = run(["setup", client, "--no-instructions", "--home", str(d.home)], repo, env)  # written: a flag
        assert done.returncode == 0, done.stderr
        entry = server_entry(client, repo)
        with (tmp_path / f"{client}.err").open("w") as errlog:
            anyio.run(talk, entry, client_env, repo, errlog)
