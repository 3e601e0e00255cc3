"""PURE data: what each coding client documents about MCP servers, hooks and instruction files.

One ``ClientSpec`` per client: where its MCP configuration lives at project and user scope, in
which format, under which key and with which entry shape; where its lifecycle hooks live, their
events, matchers, nesting and timeout unit; which instruction file it reads; what the user must
still do (approval and trust prompts). Sources: docs/agents.md (each client's documentation, as
quoted in the research notes). Nothing here touches the file system; ``resolve_path`` fills in
a place's home-relative template from the environment it is given.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

__all__ = [
    "CLIENTS",
    "SERVER_NAME",
    "ClientSpec",
    "Format",
    "HookEvent",
    "HookKind",
    "HookSpec",
    "McpSpec",
    "Scope",
    "client",
    "hook_command",
    "hook_handler",
    "hook_item",
    "is_our_hook",
    "mcp_entry",
    "resolve_path",
]

#: The name of graphmem's entry in every client's server table.
SERVER_NAME = "graphmem"


class Format(Enum):
    """A configuration file's format."""

    JSON = "json"
    JSONC = "jsonc"  # JSON with comments and trailing commas
    TOML = "toml"


class Scope(Enum):
    """Where ``setup`` writes: the repository's committed files, or the user's own."""

    PROJECT = "project"
    USER = "user"


class HookKind(Enum):
    """graphmem's two hook commands."""

    SESSION_START = "session-start"
    POST_EDIT = "post-edit"


@dataclass(frozen=True, slots=True)
class McpSpec:
    """Where and how a client keeps its MCP servers. Paths: ``project`` relative to the
    repository root (None: the client has no project file), ``user`` a template (``resolve_path``)."""

    format: Format
    project: str | None
    user: str
    servers_key: tuple[str, ...]  # the object (TOML: table) holding the servers by name
    stdio_type: bool  # the entry says "type": "stdio"
    command_line: str  # the client's own command for the same, {exe} the graphmem path


@dataclass(frozen=True, slots=True)
class HookEvent:
    """One event graphmem hooks: the client's event name, graphmem's command and the matcher."""

    event: str
    kind: HookKind
    matcher: str | None


@dataclass(frozen=True, slots=True)
class HookSpec:
    """Where and how a client keeps lifecycle hooks. ``nested``: event -> [{matcher, hooks:
    [handler]}] (Claude-style); else event -> [handler with its matcher]. ``top``: members the
    file must have (Cursor's ``version``). ``timeout`` in the client's unit."""

    project: str
    user: str
    events: tuple[HookEvent, ...]
    nested: bool
    timeout_start: int
    timeout_edit: int
    named: bool = False  # handlers carry a "name" (Gemini)
    typed: bool = True  # handlers carry "type": "command"
    top: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ClientSpec:
    """Everything ``setup``, the hooks and ``doctor`` know about one client."""

    name: str
    title: str
    mcp: McpSpec
    hooks: HookSpec | None
    no_hooks_reason: str
    instructions: str  # the instruction file it reads at the repository root
    user_home: str  # the folder the client makes for its user on first start (a ``resolve_path`` template)
    next_steps: tuple[str, ...] = ()
    hooks_flag: tuple[str, ...] = ()  # TOML key path set to true in the MCP file to enable hooks (Codex)
    hooks_flag_unless: tuple[str, ...] = ()


_KIND_VALUES = frozenset(k.value for k in HookKind)

_CLAUDE_START = HookEvent("SessionStart", HookKind.SESSION_START, "startup|resume|clear|compact")
_CLAUDE_EDIT = HookEvent("PostToolUse", HookKind.POST_EDIT, "Edit|MultiEdit|Write|NotebookEdit")

CLIENTS: Mapping[str, ClientSpec] = {
    c.name: c
    for c in (
        ClientSpec(
            name="claude-code",
            title="Claude Code",
            mcp=McpSpec(Format.JSON, ".mcp.json", "{home}/.claude.json", ("mcpServers",), True,
                        "claude mcp add --transport stdio --scope {scope} graphmem -- {exe} mcp"),
            hooks=HookSpec(".claude/settings.json", "{home}/.claude/settings.json", (_CLAUDE_START, _CLAUDE_EDIT),
                           nested=True, timeout_start=15, timeout_edit=10),
            no_hooks_reason="",
            instructions="CLAUDE.md",
            user_home="{home}/.claude",
            next_steps=("Claude Code asks once to approve the project's .mcp.json servers: accept graphmem.",),
        ),
        ClientSpec(
            name="codex",
            title="Codex CLI",
            mcp=McpSpec(Format.TOML, ".codex/config.toml", "{codex_home}/config.toml", ("mcp_servers",), False,
                        "codex mcp add graphmem -- {exe} mcp"),
            hooks=HookSpec(
                ".codex/hooks.json",
                "{codex_home}/hooks.json",
                (HookEvent("SessionStart", HookKind.SESSION_START, "startup|resume|clear|compact"),
                 HookEvent("PostToolUse", HookKind.POST_EDIT, "apply_patch|Edit|Write")),
                nested=True, timeout_start=15, timeout_edit=10,
            ),
            no_hooks_reason="",
            instructions="AGENTS.md",
            user_home="{codex_home}",
            next_steps=(
                "Codex reads a project's .codex/ only in a trusted project: trust it when asked.",
                "Codex runs new hooks only once trusted: open /hooks in Codex and trust graphmem's two.",
            ),
            hooks_flag=("features", "codex_hooks"),
            hooks_flag_unless=("hooks",),
        ),
        ClientSpec(
            name="cursor",
            title="Cursor",
            mcp=McpSpec(Format.JSON, ".cursor/mcp.json", "{home}/.cursor/mcp.json", ("mcpServers",), False, ""),
            hooks=HookSpec(
                ".cursor/hooks.json",
                "{home}/.cursor/hooks.json",
                (HookEvent("sessionStart", HookKind.SESSION_START, None),
                 HookEvent("postToolUse", HookKind.POST_EDIT, None)),
                nested=False, timeout_start=15, timeout_edit=10, typed=False, top=(("version", 1),),
            ),
            no_hooks_reason="",
            instructions="AGENTS.md",
            user_home="{home}/.cursor",
            next_steps=("Cursor runs project hooks and MCP servers in a trusted workspace: enable graphmem in "
                        "Settings > MCP if it is off.",),
        ),
        ClientSpec(
            name="vscode",
            title="VS Code (Copilot agent mode)",
            mcp=McpSpec(Format.JSONC, ".vscode/mcp.json", "{vscode_user}/mcp.json", ("servers",), True,
                        "code --add-mcp '{{\"name\":\"graphmem\",\"type\":\"stdio\",\"command\":\"{exe}\","
                        "\"args\":[\"mcp\"]}}'"),
            hooks=HookSpec(
                ".github/hooks/graphmem.json",
                "{home}/.copilot/hooks/graphmem.json",
                (HookEvent("SessionStart", HookKind.SESSION_START, None),
                 HookEvent("PostToolUse", HookKind.POST_EDIT, None)),
                nested=False, timeout_start=15, timeout_edit=10,
            ),
            no_hooks_reason="",
            instructions="AGENTS.md",
            user_home="{vscode_user}",
            next_steps=("VS Code agent hooks are a preview: an organisation policy may turn them off.",),
        ),
        ClientSpec(
            name="gemini",
            title="Gemini CLI",
            mcp=McpSpec(Format.JSONC, ".gemini/settings.json", "{home}/.gemini/settings.json", ("mcpServers",), False,
                        "gemini mcp add -s {scope} graphmem {exe} mcp"),
            hooks=HookSpec(
                ".gemini/settings.json",
                "{home}/.gemini/settings.json",
                (HookEvent("SessionStart", HookKind.SESSION_START, None),
                 HookEvent("AfterTool", HookKind.POST_EDIT, "write_file|replace")),
                nested=True, timeout_start=15000, timeout_edit=10000, named=True,
            ),
            no_hooks_reason="",
            instructions="GEMINI.md",
            user_home="{home}/.gemini",
            next_steps=("Gemini CLI warns once before running new project hooks: allow graphmem's.",),
        ),
        ClientSpec(
            name="windsurf",
            title="Windsurf",
            mcp=McpSpec(Format.JSON, None, "{home}/.codeium/windsurf/mcp_config.json", ("mcpServers",), False, ""),
            hooks=None,
            no_hooks_reason="Windsurf's hooks cannot add text to the agent's context, so graphmem installs none; "
            "the instructions block (--instructions) tells Cascade to call session_brief and recall.",
            instructions="AGENTS.md",
            user_home="{home}/.codeium/windsurf",
            next_steps=("Windsurf keeps MCP servers for the user only: press refresh in Cascade's MCP panel.",),
        ),
    )
}


def client(name: str) -> ClientSpec:
    """The spec of ``name`` (KeyError names the known ones)."""
    try:
        return CLIENTS[name]
    except KeyError:
        raise KeyError(f"unknown client {name!r} (choose from {', '.join(CLIENTS)})") from None


def resolve_path(template: str, env: Mapping[str, str], platform: str) -> Path:
    """A user-scope path: ``{home}`` the home directory, ``{codex_home}`` ``$CODEX_HOME`` (else
    ``~/.codex``), ``{vscode_user}`` VS Code's user profile folder on this platform."""
    home = env.get("HOME") or str(Path.home())
    if platform == "darwin":
        vscode = f"{home}/Library/Application Support/Code/User"
    elif platform.startswith("win"):
        vscode = f"{env.get('APPDATA', home)}/Code/User"
    else:
        vscode = f"{env.get('XDG_CONFIG_HOME') or home + '/.config'}/Code/User"
    return Path(template.format(home=home, codex_home=env.get("CODEX_HOME") or f"{home}/.codex", vscode_user=vscode))


def mcp_entry(spec: McpSpec, command: Sequence[str], env: Mapping[str, str]) -> dict[str, Any]:
    """The server entry: ``command`` is the graphmem executable and its arguments (``mcp`` last)."""
    entry: dict[str, Any] = {"type": "stdio"} if spec.stdio_type else {}
    entry["command"] = command[0]
    entry["args"] = list(command[1:])
    if env:
        entry["env"] = dict(env)
    return entry


def hook_command(command: Sequence[str], kind: HookKind, client_name: str, home: str | None) -> str:
    """The shell command line a client runs for graphmem's hook ``kind``."""
    parts = [*command, "hook", kind.value, "--client", client_name]
    if home:
        parts += ["--home", home]
    return shlex.join(parts)


def hook_handler(spec: HookSpec, event: HookEvent, line: str) -> dict[str, Any]:
    """One handler object as the client documents it."""
    handler: dict[str, Any] = {}
    if spec.named:
        handler["name"] = f"graphmem-{event.kind.value}"
    if spec.typed:
        handler["type"] = "command"
    handler["command"] = line
    handler["timeout"] = spec.timeout_start if event.kind is HookKind.SESSION_START else spec.timeout_edit
    return handler


def hook_item(spec: HookSpec, event: HookEvent, line: str) -> dict[str, Any]:
    """The item graphmem adds to the event's array: a matcher group (nested), or the handler."""
    handler = hook_handler(spec, event, line)
    if spec.nested:
        group: dict[str, Any] = {"matcher": event.matcher} if event.matcher else {}
        group["hooks"] = [handler]
        return group
    if event.matcher:
        handler["matcher"] = event.matcher
    return handler


def is_our_hook(item: Any) -> bool:
    """Whether an item of a hook array is graphmem's: its command runs ``graphmem … hook``, or
    any launcher with ``hook KIND … --client`` (a ``--command`` the user chose)."""
    nested = item.get("hooks") if isinstance(item, dict) else None
    handlers: list[Any] = nested if isinstance(nested, list) else [item]
    for h in handlers:
        command = h.get("command") if isinstance(h, dict) else None
        if isinstance(command, str):
            words = shlex.split(command) if command.count("'") % 2 == 0 else command.split()
            for n, word in enumerate(words[:-1]):
                if "graphmem" in Path(word).name and words[n + 1] == "hook":
                    return True
                if word == "hook" and words[n + 1] in _KIND_VALUES and "--client" in words[n + 2:]:
                    return True
    return False
