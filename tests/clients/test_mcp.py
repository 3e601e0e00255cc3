"""The MCP bridge end to end: ``graphmem mcp`` spawned by the official MCP client over stdio.

A real daemon runs on a copy of ``fixtures/repos/python`` under a short ``GRAPHMEM_HOME``; the
test saves an observation through the bridge, edits the code under its anchor, sees it go stale
through ``recall``, confirms it and sees it fresh again. Plus the error paths: an anchor that
does not resolve, and no daemon at all.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any, TextIO, cast, get_args

import anyio
from conftest import Daemon, short_tmp
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument
from graphmem.mcp_bridge import (
    TOOL_DEFINITIONS_BUDGET,
    TOOL_NAMES,
    Backend,
    CategoryName,
    GraphMemTools,
    build_server,
    tool_definitions_size,
)
from graphmem.types import Category
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, TextContent

ROOT = Path(__file__).resolve().parents[2]
TARGET = "app/auth/crypto.py::hash_password"
CALLER = "app/auth/service.py::AuthService.login"
OLD_BODY = "return digest(password, salt=SALT)"
NEW_BODY = "return digest(password.strip(), salt=SALT)"
STALE_DEADLINE = 10.0


def _pythonpath() -> str:
    parts = [str(ROOT / "clients"), str(ROOT / "daemon")]
    if os.environ.get("PYTHONPATH"):
        parts.append(os.environ["PYTHONPATH"])
    return os.pathsep.join(parts)


def _bridge(home: Path, cwd: Path, errlog: TextIO) -> Client:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem", "mcp"],
        env={"GRAPHMEM_HOME": str(home), "PYTHONPATH": _pythonpath(), "GRAPHMEM_LOG_LEVEL": "INFO"},
        cwd=cwd,
    )
    # stdio_client directly (not Client(params)) to send the server's stderr to a file.
    return Client(stdio_client(params, errlog=errlog), read_timeout_seconds=30.0, cache=None)


def _text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def _ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, _text(result)
    assert result.structured_content is not None, _text(result)
    return cast(dict[str, Any], result.structured_content)


def _recalled(structured: dict[str, Any], obs_id: str) -> dict[str, Any] | None:
    for item in structured["results"]:
        if item["observation"]["id"] == obs_id:
            return cast(dict[str, Any], item)
    return None


async def _lifecycle(daemon: Daemon, errlog: TextIO) -> None:
    repo = daemon.repos[0]
    async with _bridge(daemon.home, repo, errlog) as client:
        listed = await client.list_tools()
        by_name = {t.name: t for t in listed.tools}
        assert set(TOOL_NAMES) <= set(by_name)
        for name in TOOL_NAMES:
            assert (by_name[name].description or "").strip(), name
        assert "stale" in (by_name["recall"].description or "")

        detail = _ok(await client.call_tool("lookup_symbol", {"ref": TARGET}))
        assert detail["symbol"]["ref"] == TARGET
        assert CALLER in [c["ref"] for c in detail["callers"]]

        saved = _ok(
            await client.call_tool(
                "save_observation",
                {
                    "text": "hash_password salts with the module constant SALT: changing SALT invalidates "
                    "every stored password hash",
                    "anchors": [TARGET],
                    "category": "constraint",
                    "tags": ["mcp-test"],
                },
            )
        )
        obs_id = saved["id"]
        assert saved["status"] == "fresh"
        assert saved["category"] == "constraint"
        assert saved["anchors"] == [TARGET]
        assert saved["source"].startswith("mcp")

        direct = _ok(await client.call_tool("recall", {"symbols": [TARGET]}))
        hit = _recalled(direct, obs_id)
        assert hit is not None, direct
        assert hit["observation"]["status"] == "fresh"
        assert hit["distance"] == 0

        via_caller = await client.call_tool("recall", {"symbols": [CALLER], "hops": 2})
        hit = _recalled(_ok(via_caller), obs_id)
        assert hit is not None, _text(via_caller)
        assert hit["distance"] >= 1
        assert hit["why"] or hit["path"]
        assert "why:" in _text(via_caller)

        source = repo / "app" / "auth" / "crypto.py"
        code = source.read_text()
        assert OLD_BODY in code
        source.write_text(code.replace(OLD_BODY, NEW_BODY))

        deadline = time.monotonic() + STALE_DEADLINE
        while True:
            result = await client.call_tool("recall", {"symbols": [TARGET]})  # stale ones are included
            hit = _recalled(_ok(result), obs_id)
            if hit is not None and hit["observation"]["status"] == "stale":
                break
            assert time.monotonic() < deadline, f"not stale after {STALE_DEADLINE} s:\n{_text(result)}"
            await anyio.sleep(0.25)
        reasons = hit["observation"]["stale_reasons"]
        assert [r["change"] for r in reasons] == ["body_changed"], reasons
        assert reasons[0]["anchor"] == TARGET
        text = _text(result)
        assert "[STALE]" in text
        assert f"stale: `{TARGET}`: body changed" in text
        assert "confirm_observation" in text

        hidden = _ok(await client.call_tool("recall", {"symbols": [TARGET], "fresh_only": True}))
        assert _recalled(hidden, obs_id) is None
        assert hidden["excluded_stale"] == 1

        stale = await client.call_tool("list_stale", {"file": "app/auth/crypto.py"})
        assert obs_id in [o["id"] for o in _ok(stale)["observations"]]
        assert f"stale: `{TARGET}`: body changed" in _text(stale)

        confirmed = _ok(
            await client.call_tool("confirm_observation", {"id": obs_id, "note": "still salted with SALT"})
        )
        assert confirmed["status"] == "fresh"
        assert confirmed["stale_reasons"] == []

        again = _ok(await client.call_tool("recall", {"symbols": [TARGET]}))
        hit = _recalled(again, obs_id)
        assert hit is not None
        assert hit["observation"]["status"] == "fresh"
        assert obs_id not in [o["id"] for o in _ok(await client.call_tool("list_stale", {}))["observations"]]

        brief = _ok(await client.call_tool("session_brief", {"files": ["app/auth/crypto.py"]}))
        assert obs_id in brief["observation_ids"]

        found = _ok(await client.call_tool("find_symbols", {"pattern": "hash_*"}))
        assert TARGET in [s["ref"] for s in found["symbols"]]

        # An anchor that does not resolve: a tool error naming it, with the close match.
        bad = await client.call_tool(
            "save_observation", {"text": "typo", "anchors": ["app/auth/crypto.py::hash_pasword"]}
        )
        assert bad.is_error
        assert "hash_pasword" in _text(bad)
        assert "hash_password" in _text(bad).replace("hash_pasword", "")

        missing = await client.call_tool("lookup_symbol", {"ref": "app/nope.py::missing"})
        assert missing.is_error
        assert "app/nope.py" in _text(missing)

        # The server is still serving after the errors.
        _ok(await client.call_tool("recall", {"text": "SALT"}))


def test_mcp_bridge_lifecycle(py_daemon: Daemon) -> None:
    errlog_path = py_daemon.home / "mcp.log"
    with errlog_path.open("w") as errlog:
        try:
            anyio.run(_lifecycle, py_daemon, errlog)
        except BaseException:
            errlog.flush()
            sys.stderr.write(f"--- graphmem mcp stderr:\n{errlog_path.read_text(errors='replace')}\n")
            raise


async def _no_daemon(home: Path, errlog: TextIO) -> None:
    async with _bridge(home, home, errlog) as client:
        listed = await client.list_tools()
        assert set(TOOL_NAMES) <= {t.name for t in listed.tools}
        result = await client.call_tool("recall", {"text": "anything"})
        assert result.is_error
        text = _text(result)
        assert "not running" in text
        assert "graphmem daemon start --repo" in text
        again = await client.call_tool("session_brief", {})
        assert again.is_error


def test_mcp_bridge_without_daemon() -> None:
    home = short_tmp()
    try:
        with (home / "mcp.log").open("w") as errlog:
            anyio.run(_no_daemon, home, errlog)
    finally:
        shutil.rmtree(home, ignore_errors=True)


class _FailingClient:
    """Stands in for GraphMem: every call fails, first on purpose, then by accident."""

    def __init__(self) -> None:
        self.calls = 0

    def recall(self, text: str = "", **kwargs: Any) -> None:
        self.calls += 1
        if self.calls == 1:
            raise InvalidArgument("symbol app/x.py::nope does not resolve; close matches: app/x.py::hope")
        raise RuntimeError("a bug")

    def status(self) -> None:
        raise AssertionError("repo is given explicitly")

    def close(self) -> None:
        pass


async def _in_process_errors() -> None:
    fake = _FailingClient()
    backend = Backend(lambda: cast(GraphMem, fake), default_repo="r")
    async with Client(build_server(GraphMemTools(backend)), cache=None) as client:
        first = await client.call_tool("recall", {"symbols": ["app/x.py::nope"]})
        assert first.is_error
        assert "does not resolve; close matches: app/x.py::hope" in _text(first)
        second = await client.call_tool("recall", {"text": "x"})
        assert second.is_error
        assert "a bug" not in _text(second)
        invalid = await client.call_tool(
            "save_observation", {"text": "t", "anchors": ["a"], "category": "nope"}
        )
        assert invalid.is_error
        assert fake.calls == 2


def test_tool_errors_in_process() -> None:
    anyio.run(_in_process_errors)


def test_category_names_match_the_enum() -> None:
    assert set(get_args(CategoryName)) == {c.value for c in Category}


async def _listed_definitions_size() -> tuple[int, list[tuple[str, str]]]:
    """What ``tools/list`` sends, measured on the wire: name, title, description, input schema."""
    import json

    server = build_server(GraphMemTools(Backend(lambda: cast(GraphMem, None))))
    async with Client(server, cache=None) as client:
        tools = (await client.list_tools()).tools
    total = 0
    for t in tools:
        total += len(t.name) + len(t.title or "") + len(t.description or "")
        total += len(json.dumps(t.input_schema, separators=(",", ":")))
    assert total == tool_definitions_size(server)
    return total, [(t.name, t.description or "") for t in tools]


def test_tool_definitions_fit_the_budget() -> None:
    total, descriptions = anyio.run(_listed_definitions_size)
    assert total <= TOOL_DEFINITIONS_BUDGET, f"tool definitions are {total} characters"
    for name, text in descriptions:
        sentences = [s for s in text.replace("e.g.", "eg").split(". ") if s.strip()]
        assert 1 <= len(sentences) <= 2, (name, text)
        assert "\n" not in text, name
