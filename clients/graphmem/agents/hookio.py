"""PURE: a hook's stdin payload in, the client's documented output out.

Each client sends its own JSON on stdin (docs/agents.md): Claude Code, Codex and Gemini CLI
``hook_event_name``/``cwd``/``tool_input``; VS Code camelCase (``hookEventName``, ``sessionId``,
``tool_input.filePath``/``files``); Cursor ``conversation_id``/``workspace_roots``; Windsurf
``agent_action_name``/``tool_info``. Codex edits arrive as ``apply_patch`` text, whose file
headers name the files. VS Code and Cursor also run the hooks in ``.claude/settings.json``, so
the payload, when it clearly comes from one of them, wins over the ``--client`` the command was
installed with. Output: ``hookSpecificOutput.additionalContext`` JSON (Claude Code, Codex,
VS Code, Gemini CLI; the event name echoed), ``additional_context`` (Cursor), nothing for
Windsurf (its hooks cannot add context).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any, NamedTuple

__all__ = ["HookInput", "edited_files", "parse_payload", "render_output", "sniff_client"]

#: Tool names (VS Code, Cursor: their matchers are ignored or absent) that write files.
_EDIT_TOOL = re.compile(r"(?i)edit|write|creat|replace|insert|patch|notebook")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Move to): (.+?)\s*$", re.M)
_DEFAULT_EVENT = {"session-start": "SessionStart", "post-edit": "PostToolUse"}


class HookInput(NamedTuple):
    """What graphmem needs from a payload: the client, the working directory, the session,
    how it started (``source``), the event name to echo and the files an edit wrote.
    (A ``NamedTuple``, not a dataclass: ``dataclasses`` costs a hook process ~40 M instructions to
    import.)"""

    client: str
    cwd: str
    session: str
    source: str
    event: str
    files: tuple[str, ...]


def sniff_client(payload: Mapping[str, Any], installed_for: str) -> str:
    """The client that sent ``payload``: Windsurf, Cursor or VS Code when their own keys show,
    else the one the hook was installed for."""
    if "agent_action_name" in payload or "trajectory_id" in payload:
        return "windsurf"
    if "cursor_version" in payload or ("conversation_id" in payload and "workspace_roots" in payload):
        return "cursor"
    if "hookEventName" in payload or "sessionId" in payload:
        return "vscode"
    return installed_for


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def edited_files(payload: Mapping[str, Any], client: str) -> list[str]:
    """The files an edit tool wrote (empty when the tool was not an edit)."""
    tool_input = payload.get("tool_input")
    info = payload.get("tool_info")
    found: list[str] = []
    if isinstance(info, Mapping):  # Windsurf post_write_code
        found += _strings(info.get("file_path"))
    if isinstance(tool_input, Mapping):
        for key in ("file_path", "notebook_path", "filePath", "path", "files", "filePaths", "target_file"):
            found += _strings(tool_input.get(key))
        command = tool_input.get("command") or tool_input.get("input") or tool_input.get("patch")
        patch = command if isinstance(command, str) else " ".join(_strings(command))
        if "*** Begin Patch" in patch or "*** Update File:" in patch or "*** Add File:" in patch:
            found += _PATCH_FILE.findall(patch)
    found += _strings(payload.get("file_path"))  # Cursor afterFileEdit
    tool = payload.get("tool_name")
    if client in ("vscode", "cursor") and isinstance(tool, str) and not _EDIT_TOOL.search(tool):
        return []
    return list(dict.fromkeys(found))


def _cwd(payload: Mapping[str, Any], env: Mapping[str, str], fallback: str) -> str:
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    roots = _strings(payload.get("workspace_roots"))
    if roots:
        return roots[0]
    for key in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_CWD"):
        if env.get(key):
            return env[key]
    return fallback


def parse_payload(
    raw: str, kind: str, installed_for: str, env: Mapping[str, str], fallback_cwd: str
) -> HookInput:
    """The payload read (an unreadable one counts as empty: the hook still answers)."""
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError:
        data = {}
    payload: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
    client = sniff_client(payload, installed_for)
    cwd = _cwd(payload, env, fallback_cwd)
    files = [f if PurePath(f).is_absolute() else str(PurePath(cwd) / f) for f in edited_files(payload, client)]
    session = payload.get("session_id") or payload.get("sessionId") or payload.get("conversation_id") or ""
    event = payload.get("hook_event_name") or payload.get("hookEventName") or ""
    if not isinstance(event, str) or not event or event[0].islower():  # Cursor's camelCase names are not echoed
        event = "AfterTool" if client == "gemini" and kind == "post-edit" else _DEFAULT_EVENT[kind]
    source = payload.get("source")
    return HookInput(client, cwd, str(session), source if isinstance(source, str) else "", event, tuple(files))


def render_output(client: str, event: str, text: str) -> str:
    """What the hook prints for ``text`` ("" when there is nothing to say, or for Windsurf)."""
    if not text.strip() or client == "windsurf":
        return ""
    if client == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False)
    return json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}, ensure_ascii=False)
