"""``graphmem doctor``: the whole chain from agent to daemon, checked for the repository at hand.

Checks, each with the command that fixes it: the daemon answers; the repository is registered;
its index is current; daemon and client are the same version; then, for each client (the one
named, else every client graphmem finds configured at project or user scope), its MCP entry is
present and runs a graphmem that answers (``--version``), and its hooks are installed and run an
existing executable. The exit status is 1 when any check fails.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from graphmem import __version__
from graphmem.agents import jsonc, tomledit
from graphmem.agents.state import read_text
from graphmem.agents.table import CLIENTS, SERVER_NAME, ClientSpec, Format, Scope, is_our_hook, resolve_path
from graphmem.errors import GraphMemError
from graphmem.render import gone_words

__all__ = ["Check", "client_checks", "run_doctor"]


@dataclass(frozen=True, slots=True)
class Check:
    """One check: its name, whether it passed, what was found and the fix when it failed."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


def _server_entry(spec: ClientSpec, path: Path) -> dict[str, Any] | None:
    text = read_text(path)
    if text is None:
        return None
    try:
        if spec.mcp.format is Format.TOML:
            value = tomledit.table_value(text, [*spec.mcp.servers_key, SERVER_NAME])
        else:
            node: Any = jsonc.value_of(text)
            for key in (*spec.mcp.servers_key, SERVER_NAME):
                node = node.get(key) if isinstance(node, dict) else None
            value = node
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _mcp_places(spec: ClientSpec, root: Path, env: Mapping[str, str]) -> list[tuple[Scope, Path]]:
    places = [(Scope.USER, resolve_path(spec.mcp.user, env, sys.platform))]
    if spec.mcp.project is not None:
        places.insert(0, (Scope.PROJECT, root / spec.mcp.project))
    return places


def _hook_places(spec: ClientSpec, root: Path, env: Mapping[str, str]) -> list[tuple[Scope, Path]]:
    if spec.hooks is None:
        return []
    return [(Scope.PROJECT, root / spec.hooks.project), (Scope.USER, resolve_path(spec.hooks.user, env, sys.platform))]


def _which(exe: str, env: Mapping[str, str]) -> str | None:
    """``exe`` as the client's process finds it: a path as is, a bare name on ``PATH``."""
    return shutil.which(exe, path=env.get("PATH", os.defpath))


def _missing(exe: str, scope: Scope, setup: str) -> Check:
    """The failed check of a file naming an executable this machine does not have, with why."""
    if os.sep not in exe:
        return Check("", False, f"names `{exe}`, which is not on PATH here (the client looks it up on its PATH)",
                     f"put graphmem on PATH for the client (pipx install graphmem, or "
                     f"activate its virtualenv before starting the client), or name a launcher every machine has: "
                     f"{setup} --command PATH")
    why = (" (a path from another machine? project files should name `graphmem`, found on each machine's PATH)"
           if scope is Scope.PROJECT else "")
    return Check("", False, f"names {exe}, which does not exist or is not executable{why}",
                 f"{setup}   (writes the graphmem on PATH)" if scope is Scope.PROJECT else setup)


def _answers(command: Sequence[str], env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether ``command --version`` runs and names graphmem."""
    try:
        done = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=20,
                              env={**os.environ, **env}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    out = (done.stdout + done.stderr).strip()
    return done.returncode == 0 and out.startswith("graphmem"), out or f"exit {done.returncode}"


def _hook_events(spec: ClientSpec, path: Path) -> tuple[list[str], list[str]]:
    """(events with graphmem's hook, the executables those hooks run) in the hooks file."""
    text = read_text(path)
    if text is None or spec.hooks is None:
        return [], []
    try:
        hooks = jsonc.value_of(text).get("hooks", {})
    except (ValueError, AttributeError):
        return [], []
    events, exes = [], []
    for event in spec.hooks.events:
        items = hooks.get(event.event, []) if isinstance(hooks, dict) else []
        ours = [i for i in items if is_our_hook(i)] if isinstance(items, list) else []
        if ours:
            events.append(event.event)
            for item in ours:
                for h in item.get("hooks", [item]):
                    exes.append(shlex.split(h["command"])[0])
    return events, exes


def client_checks(spec: ClientSpec, root: Path, env: Mapping[str, str], version: str) -> list[Check]:
    """The checks of one client: its MCP entry and its hooks."""
    checks: list[Check] = []
    fix = f"graphmem setup {spec.name}"
    found = [(scope, path, e) for scope, path in _mcp_places(spec, root, env)
             if (e := _server_entry(spec, path)) is not None]
    if not found:
        checks.append(Check(f"{spec.name}: MCP entry", False, "no graphmem server in "
                            + " or ".join(str(p) for _, p in _mcp_places(spec, root, env)), fix))
    for scope, path, entry in found[:1]:
        command = [str(entry.get("command", "")), *[str(a) for a in entry.get("args", [])]]
        if command[-1:] == ["mcp"]:
            command = command[:-1]
        where = fix + (" --user" if scope is Scope.USER else "")
        name = f"{spec.name}: MCP entry ({scope.value}, {path})"
        entry_env = {str(k): str(v) for k, v in (entry.get("env") or {}).items()}
        if _which(command[0], {**env, **entry_env}) is None:
            absent = _missing(command[0], scope, where)
            checks.append(Check(name, False, absent.detail, absent.fix))
            continue
        ok, said = _answers(command, entry_env)
        if ok and version and not said.endswith(version):
            ok, said = False, f"{said}, but the daemon is {version}"
        checks.append(Check(name, ok, f"runs {shlex.join(command)} mcp: {said}", where))
    if spec.hooks is None:
        checks.append(Check(f"{spec.name}: hooks", True, f"none ({spec.no_hooks_reason})"))
        return checks
    wanted = [e.event for e in spec.hooks.events]
    for scope, path in _hook_places(spec, root, env):
        events, exes = _hook_events(spec, path)
        if events:
            missing = [e for e in wanted if e not in events]
            gone = [_missing(x, scope, fix + (" --user" if scope is Scope.USER else ""))
                    for x in dict.fromkeys(exes) if _which(x, env) is None]
            ok = not missing and not gone
            detail = f"{', '.join(events)} in {path}" + (f"; missing {', '.join(missing)}" if missing else "")
            detail += "".join(f"; {g.detail}" for g in gone)
            checks.append(Check(f"{spec.name}: hooks ({scope.value})", ok, detail, gone[0].fix if gone else fix))
            return checks
    checks.append(Check(f"{spec.name}: hooks", False, "graphmem's hooks are not installed", fix))
    return checks


def _configured(root: Path, env: Mapping[str, str]) -> list[ClientSpec]:
    return [s for s in CLIENTS.values() if any(_server_entry(s, p) is not None for _, p in _mcp_places(s, root, env))
            or any(_hook_events(s, p)[0] for _, p in _hook_places(s, root, env))]


def _daemon_checks(root: Path, home: str | None, address: str | None) -> tuple[list[Check], str]:
    from graphmem.client import GraphMem, deepest_repository

    start = f"graphmem daemon start --repo {shlex.quote(str(root))}"
    checks: list[Check] = []
    try:
        with GraphMem(address, home=home, timeout=5.0) as gm:
            status = gm.status()
    except GraphMemError as exc:
        return [Check("daemon", False, str(exc), f"{start}   (or at every login: graphmem daemon install)")], ""
    checks.append(Check("daemon", status.healthy, f"graphmemd {status.version}, pid {status.pid}"
                        + ("" if status.healthy else f", degraded: {'; '.join(status.degraded_reasons)}"),
                        "graphmem status shows why; restart: graphmem daemon stop && " + start))
    same = status.version == __version__
    checks.append(Check("versions", same, f"daemon {status.version}, client {__version__}",
                        "restart the daemon with this graphmem: graphmem daemon stop && " + start))
    repo = deepest_repository(status.repositories, root)
    if repo is None:
        checks.append(Check("repository", False, f"{root} is not registered",
                            f"graphmem repo add {shlex.quote(str(root))}"))
        return checks, status.version
    checks.append(Check("repository", True, f"{repo.id} at {repo.root}"))
    current = repo.state.value == "ready" and not repo.pending_changes
    state = f"{repo.state.value}, {repo.files} files, {repo.pending_changes} pending changes"
    checks.append(Check("index", current, state + (f", error: {repo.error}" if repo.error else ""),
                        f"wait for it to finish (graphmem index {shlex.quote(str(root))} shows progress)"))
    if len(repo.checkouts) > 1:  # worktrees (or linked clones) of one repository
        gone = [f"{c.root} ({gone_words(c)})" for c in repo.checkouts if c.missing]
        checks.append(Check("checkouts", True, f"{len(repo.checkouts)} checkouts of {repo.repository_id}"
                            + (f"; {'; '.join(gone)}" if gone else "")))
    return checks, status.version


def run_doctor(
    root: Path, clients: Sequence[str], home: str | None, address: str | None, out: TextIO,
    env: Mapping[str, str] | None = None,
) -> int:
    """Print every check (with the fix of each failure); 1 when any failed."""
    env = os.environ if env is None else env
    checks, version = _daemon_checks(root, home, address)
    specs = [CLIENTS[c] for c in clients] if clients else _configured(root, env)
    if not specs:
        checks.append(Check("clients", False, "no coding client is connected to graphmem here",
                            "graphmem setup CLIENT  (" + ", ".join(CLIENTS) + ")"))
    for spec in specs:
        checks.extend(client_checks(spec, root, env, version))
    for c in checks:
        out.write(f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}\n")
        if not c.ok and c.fix:
            out.write(f"      fix: {c.fix}\n")
    failed = sum(not c.ok for c in checks)
    out.write(f"{failed} of {len(checks)} checks failed\n" if failed else f"all {len(checks)} checks passed\n")
    return 1 if failed else 0
