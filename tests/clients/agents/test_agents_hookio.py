"""Hook payloads of each client (the shapes their documentation shows) and the output each
client documents; the hook's own argument parsing."""

from __future__ import annotations

import json

from graphmem.agents.hook import parse_args
from graphmem.agents.hookio import edited_files, parse_payload, render_output, sniff_client

ENV: dict[str, str] = {}
CODEX_PATCH = """*** Begin Patch
*** Update File: src/app.py
@@
-x = 1
+x = 2
*** Add File: src/new.py
+print(1)
*** Delete File: src/old.py
*** End Patch
"""


def test_claude_code_payloads() -> None:
    start = {"session_id": "abc123", "transcript_path": "/t.jsonl", "cwd": "/w/proj",
             "hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-6"}
    h = parse_payload(json.dumps(start), "session-start", "claude-code", ENV, "/elsewhere")
    assert (h.client, h.cwd, h.session, h.source, h.event, h.files) == (
        "claude-code", "/w/proj", "abc123", "startup", "SessionStart", ())
    edit = {"session_id": "abc123", "cwd": "/w/proj", "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": "/w/proj/index.js", "content": "..."},
            "tool_response": {"filePath": "/elsewhere/ignored.js", "success": True}, "tool_use_id": "toolu_01"}
    assert parse_payload(json.dumps(edit), "post-edit", "claude-code", ENV, "/").files == ("/w/proj/index.js",)
    notebook = {**edit, "tool_name": "NotebookEdit", "tool_input": {"notebook_path": "nb.ipynb"}}
    assert parse_payload(json.dumps(notebook), "post-edit", "claude-code", ENV, "/").files == ("/w/proj/nb.ipynb",)


def test_codex_apply_patch_names_the_files() -> None:
    payload = {"session_id": "s", "cwd": "/repo", "hook_event_name": "PostToolUse", "turn_id": "t",
               "tool_name": "apply_patch", "tool_input": {"command": CODEX_PATCH}}
    h = parse_payload(json.dumps(payload), "post-edit", "codex", ENV, "/")
    assert h.client == "codex"
    assert h.files == ("/repo/src/app.py", "/repo/src/new.py")
    shell = {**payload, "tool_name": "Bash", "tool_input": {"command": "ls -l"}}
    assert parse_payload(json.dumps(shell), "post-edit", "codex", ENV, "/").files == ()


def test_vscode_payload_is_recognised_even_from_claude_settings() -> None:
    edit = {"timestamp": "2026-01-01T00:00:00Z", "cwd": "/ws", "sessionId": "v1", "hookEventName": "PostToolUse",
            "tool_name": "editFiles", "tool_input": {"files": ["src/main.ts"]}, "tool_use_id": "tool-123"}
    h = parse_payload(json.dumps(edit), "post-edit", "claude-code", ENV, "/")
    assert (h.client, h.session, h.event, h.files) == ("vscode", "v1", "PostToolUse", ("/ws/src/main.ts",))
    create = {**edit, "tool_name": "create_file", "tool_input": {"filePath": "/ws/a.py"}}
    assert edited_files(create, "vscode") == ["/ws/a.py"]
    read = {**edit, "tool_name": "read_file", "tool_input": {"filePath": "/ws/a.py"}}
    assert edited_files(read, "vscode") == []  # VS Code ignores matchers: graphmem filters itself


def test_cursor_and_gemini_and_windsurf_payloads() -> None:
    cursor = {"conversation_id": "c1", "generation_id": "g", "hook_event_name": "postToolUse",
              "cursor_version": "1.7", "workspace_roots": ["/cw"], "tool_name": "Write",
              "tool_input": {"file_path": "lib/x.py"}}
    h = parse_payload(json.dumps(cursor), "post-edit", "cursor", ENV, "/")
    assert (h.client, h.cwd, h.session, h.event, h.files) == ("cursor", "/cw", "c1", "PostToolUse", ("/cw/lib/x.py",))
    assert sniff_client(cursor, "claude-code") == "cursor"
    gemini = {"session_id": "g1", "cwd": "/gw", "hook_event_name": "AfterTool", "timestamp": "t",
              "tool_name": "replace", "tool_input": {"file_path": "/gw/m.py"}, "tool_response": {}}
    h = parse_payload(json.dumps(gemini), "post-edit", "gemini", ENV, "/")
    assert (h.client, h.event, h.files) == ("gemini", "AfterTool", ("/gw/m.py",))
    windsurf = {"agent_action_name": "post_write_code", "trajectory_id": "t", "execution_id": "e",
                "tool_info": {"file_path": "/ws/f.py", "edits": [{"old_string": "a", "new_string": "b"}]}}
    h = parse_payload(json.dumps(windsurf), "post-edit", "claude-code", ENV, "/")
    assert (h.client, h.files) == ("windsurf", ("/ws/f.py",))


def test_environment_and_garbage() -> None:
    h = parse_payload("not json", "session-start", "gemini", {"GEMINI_PROJECT_DIR": "/g"}, "/fallback")
    assert (h.cwd, h.event, h.files) == ("/g", "SessionStart", ())
    assert parse_payload("", "post-edit", "gemini", ENV, "/here").event == "AfterTool"
    assert parse_payload("[1]", "post-edit", "claude-code", ENV, "/here").cwd == "/here"


def test_output_formats() -> None:
    for client, event in (("claude-code", "SessionStart"), ("codex", "PostToolUse"), ("vscode", "PostToolUse"),
                          ("gemini", "AfterTool")):
        out = json.loads(render_output(client, event, "notes"))
        assert out == {"hookSpecificOutput": {"hookEventName": event, "additionalContext": "notes"}}
    assert json.loads(render_output("cursor", "SessionStart", "notes")) == {"additional_context": "notes"}
    assert render_output("windsurf", "PostToolUse", "notes") == ""
    assert render_output("claude-code", "SessionStart", "  \n") == ""


def test_hook_arguments() -> None:
    a = parse_args(["post-edit", "--client", "codex", "--home", "/h", "--wait-ms", "9000", "--fresh-only"])
    assert a is not None
    assert (a.kind, a.client, a.home, a.wait_ms, a.fresh_only) == ("post-edit", "codex", "/h", 5000, True)
    assert parse_args([]) is None
    assert parse_args(["session-start", "--budget"]) is None
    assert parse_args(["session-start", "--bogus"]) is None
    assert parse_args(["session-start", "--budget", "x"]) is None
