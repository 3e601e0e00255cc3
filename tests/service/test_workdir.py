"""The README flow with two repositories: ``graphmem daemon start --repo .`` in each (the second
registers its repository with the running daemon), then every command run inside a repository's
directory acts on that repository (observe, recall, brief, symbols, and the MCP bridge); outside
every repository the error names the candidates and the flag, and the MCP bridge answers with
``isError: true``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from conftest import ROOT, copy_fixture, short_tmp, wait_for
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import TextContent

ANCHOR = "app/auth/service.py::AuthService.login"


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GRAPHMEM_HOME"] = str(home)
    env.pop("GRAPHMEM_ADDRESS", None)
    env.pop("GRAPHMEM_REPO", None)
    env.setdefault("GRAPHMEM_PARSE_WORKERS", "1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon"), env.get("PYTHONPATH", "")])
    return env


def gm(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", *args], env=_env(home), cwd=cwd, capture_output=True, text=True, timeout=90
    )


def gm_ok(home: Path, cwd: Path, *args: str) -> str:
    out = gm(home, cwd, *args)
    assert out.returncode == 0, f"graphmem {' '.join(args)} exited {out.returncode}: {out.stderr}"
    return out.stdout


class Setup:
    def __init__(self, home: Path, a: Path, b: Path, outside: Path) -> None:
        self.home, self.a, self.b, self.outside = home, a, b, outside
        with GraphMem(home=str(home)) as c:
            by_root = {Path(r.root): r.id for r in c.list_repos()}
        self.a_id, self.b_id = by_root[a], by_root[b]


@pytest.fixture(scope="module")
def two() -> Iterator[Setup]:
    home = short_tmp("gmw")
    a = copy_fixture("python")
    b = copy_fixture("python")
    outside = short_tmp("gmo")
    try:
        out = gm_ok(home, a, "daemon", "start", "--repo", ".")
        assert "started" in out
        second = gm(home, b, "daemon", "start", "--repo", ".")
        assert second.returncode == 0, second.stderr
        assert "already running; registered" in second.stdout
        with GraphMem(home=str(home)) as c:

            def ready() -> bool:
                repos = c.list_repos()
                return len(repos) == 2 and all(r.state.value == "ready" for r in repos)

            wait_for(ready, timeout=90, interval=0.1)
        yield Setup(home, a, b, outside)
    finally:
        gm(home, ROOT, "daemon", "stop")
        for d in (home, a.parent, b.parent, outside):
            shutil.rmtree(d, ignore_errors=True)


def test_commands_act_on_the_repository_of_the_working_directory(two: Setup) -> None:
    ids = {}
    for root, rid, word in ((two.a, two.a_id, "alpha"), (two.b, two.b_id, "bravo")):
        obs = json.loads(gm_ok(two.home, root, "observe", f"login note {word}", "--anchor", ANCHOR, "--json"))
        assert obs["repo_id"] == rid
        ids[word] = obs["id"]
    # from a subdirectory of each repository, too
    for root, mine, other in ((two.a, "alpha", "bravo"), (two.b, "bravo", "alpha")):
        sub = root / "app" / "auth"
        recalled = json.loads(gm_ok(two.home, sub, "recall", "login note", "--json"))
        got = {r["observation"]["id"] for r in recalled["results"]}
        assert ids[mine] in got, recalled
        assert ids[other] not in got, recalled
        brief = json.loads(gm_ok(two.home, sub, "brief", "--file", "service.py", "--json"))
        assert ids[mine] in brief["observation_ids"]
        assert ids[other] not in brief["observation_ids"]
        symbols = json.loads(gm_ok(two.home, root, "symbols", "AuthService", "--json"))
        assert symbols
        assert {s["repo_id"] for s in symbols} == {two.a_id if mine == "alpha" else two.b_id}


def test_outside_every_repository_the_error_names_candidates_and_flag(two: Setup) -> None:
    out = gm(two.home, two.outside, "observe", "where does this go?", "--anchor", ANCHOR)
    assert out.returncode == InvalidArgument.exit_code, out.stderr
    assert two.a_id in out.stderr
    assert two.b_id in out.stderr
    assert "--repo" in out.stderr
    # recall outside covers every repository; naming one works from anywhere
    everywhere = json.loads(gm_ok(two.home, two.outside, "recall", "login note", "--json"))
    assert {r["observation"]["repo_id"] for r in everywhere["results"]} == {two.a_id, two.b_id}
    gm_ok(two.home, two.outside, "recall", "login", "--repo", two.a_id)
    gm_ok(two.home, two.outside, "recall", "login", "--repo", str(two.b))


def test_client_library_uses_its_cwd(two: Setup) -> None:
    with GraphMem(home=str(two.home), cwd=two.b / "app") as c:
        obs = c.observe("client cwd note", anchors=[ANCHOR])
        assert obs.repo_id == two.b_id
        assert c.repo_containing(two.b / "app") is not None
    with GraphMem(home=str(two.home), cwd=two.outside) as c, pytest.raises(InvalidArgument, match="--repo"):
        c.observe("no repository here", anchors=[ANCHOR])


def _text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


async def _mcp(two: Setup) -> None:
    def bridge(cwd: Path) -> Client:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "graphmem", "mcp"], env=_env(two.home), cwd=cwd
        )
        return Client(stdio_client(params), read_timeout_seconds=30.0, cache=None)

    async with bridge(two.b) as client:
        saved = await client.call_tool("save_observation", {"text": "mcp note bravo", "anchors": [ANCHOR]})
        assert not saved.is_error, _text(saved)
        structured = cast(dict[str, Any], saved.structured_content)
        assert structured["repo_id"] == two.b_id
        recalled = await client.call_tool("recall", {"text": "mcp note bravo"})
        assert not recalled.is_error
        assert structured["id"] in _text(recalled)
    async with bridge(two.outside) as client:
        for tool, args in (("recall", {"text": "login"}), ("session_brief", {}), ("list_stale", {})):
            result = await client.call_tool(tool, args)
            assert result.is_error, (tool, _text(result))
            assert two.a_id in _text(result)
            assert two.b_id in _text(result)
            assert "repo" in _text(result)
        named = await client.call_tool("recall", {"text": "login", "repo": two.a_id})
        assert not named.is_error, _text(named)


def test_mcp_bridge_uses_its_working_directory(two: Setup) -> None:
    anyio.run(_mcp, two)


def test_brief_says_what_the_budget_left_out(two: Setup) -> None:
    for n in range(3):
        gm_ok(two.home, two.a, "observe", f"budget note {n}: login retries are capped", "--anchor", ANCHOR)
    out = gm(two.home, two.a, "brief", "--file", "app/auth/service.py", "--budget", "50")
    assert out.returncode == 0, out.stderr
    assert "did not fit the budget of 50 tokens" in out.stdout
    assert "graphmem recall --file app/auth/service.py" in out.stdout
    data = json.loads(gm_ok(two.home, two.a, "brief", "--file", "app/auth/service.py", "--budget", "50", "--json"))
    assert data["left_out"] >= 3
    roomy = json.loads(gm_ok(two.home, two.a, "brief", "--file", "app/auth/service.py", "--budget", "5000", "--json"))
    assert roomy["left_out"] == 0
    assert len(roomy["observation_ids"]) >= 3


def test_cli_json_is_the_grpc_json_mapping(two: Setup) -> None:
    """``--json`` prints an object exactly as protobuf's JSON mapping prints the daemon's message."""
    import grpc
    from google.protobuf import json_format
    from graphmem.v1 import service_pb2, service_pb2_grpc

    obs = json.loads(gm_ok(two.home, two.a, "observe", "json shape note", "--anchor", ANCHOR, "--json"))
    shown = json.loads(gm_ok(two.home, two.a, "show", obs["id"], "--json"))
    with grpc.insecure_channel(f"unix:{two.home / 'run' / 'graphmemd.sock'}") as channel:
        stub = service_pb2_grpc.ObservationServiceStub(channel)  # type: ignore[no-untyped-call]
        wire = stub.GetObservation(service_pb2.GetObservationRequest(id=obs["id"]), timeout=10)
        symbols = service_pb2_grpc.SymbolServiceStub(channel)  # type: ignore[no-untyped-call]
        detail = symbols.GetSymbol(service_pb2.GetSymbolRequest(repo=two.a_id, ref=ANCHOR), timeout=10)
    options = {"preserving_proto_field_name": True, "always_print_fields_with_no_presence": True}
    assert shown == json_format.MessageToDict(wire, **options)
    assert shown["status"] == "OBSERVATION_STATUS_FRESH"
    assert shown["created_at"].endswith("Z")  # RFC 3339, as the mapping prints a Timestamp
    cli_detail = json.loads(gm_ok(two.home, two.a, "symbol", ANCHOR, "--json"))
    assert cli_detail == json_format.MessageToDict(detail, **options)


async def _mcp_brief(two: Setup) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "graphmem", "mcp"], env=_env(two.home), cwd=two.a
    )
    async with Client(stdio_client(params), read_timeout_seconds=30.0, cache=None) as client:
        result = await client.call_tool("session_brief", {"files": ["app/auth/service.py"], "budget_tokens": 50})
        assert not result.is_error, _text(result)
        assert "did not fit budget_tokens" in _text(result)
        return cast(dict[str, Any], result.structured_content)


def test_mcp_brief_says_what_the_budget_left_out(two: Setup) -> None:
    for n in range(2):
        gm_ok(two.home, two.a, "observe", f"mcp budget note {n} about login", "--anchor", ANCHOR)
    structured = anyio.run(_mcp_brief, two)
    assert structured["left_out"] >= 2
