"""The hook commands against a real daemon on a copy of ``fixtures/repos/python``, run the way
a client runs them: the command line ``graphmem setup`` wrote into the client's hooks file,
through a shell, with the client's JSON payload on stdin."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentlib import GRAPHMEM, agent_env, run
from conftest import Daemon, copy_fixture, short_tmp, wait_for
from gitrepo import slow_git
from graphmem.paths import resolve_paths
from graphmem.types import Category, ObservationStatus

LOGIN = "app/auth/service.py::AuthService.login"
OLD_SIG = "def login(self, email: str, password: str) -> str:"
NEW_SIG = "def login(self, email: str, password: str, otp: str) -> str:"
BUDGET = 400  # the session-start hook's default


@pytest.fixture
def repo() -> Path:
    r = copy_fixture("python")
    subprocess.run(["git", "init", "-q"], cwd=r, check=True)
    return r


def hook_line(repo: Path, kind: str) -> str:
    """The command line setup wrote for ``kind`` in Claude Code's settings."""
    settings = json.loads((repo / ".claude/settings.json").read_text())
    event = "SessionStart" if kind == "session-start" else "PostToolUse"
    (group,) = settings["hooks"][event]
    (handler,) = group["hooks"]
    return str(handler["command"])


def fire(line: str, payload: dict[str, Any], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a hook command as Claude Code does: through the shell, the payload on stdin."""
    return subprocess.run(line, shell=True, input=json.dumps(payload), capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=30)


def context_of(out: subprocess.CompletedProcess[str], event: str) -> str:
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # the only thing on stdout: one JSON object
    assert set(data) == {"hookSpecificOutput"}
    assert data["hookSpecificOutput"]["hookEventName"] == event
    return str(data["hookSpecificOutput"]["additionalContext"])


def test_session_start_and_post_edit_through_the_written_hooks(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        rule = c.observe("create_user must hand back login's token: the web UI signs in right after sign-up",
                         anchors=["app/api/routes.py::create_user"], category=Category.CONSTRAINT)
        other = c.observe("tokens are signed, never encrypted", anchors=["app/auth/crypto.py::make_token"],
                          category=Category.DECISION)
    setup = run(["setup", "claude-code", "--no-instructions"], repo, env)
    assert setup.returncode == 0, setup.stderr
    assert "registered" in setup.stdout

    start = {"session_id": "s-1", "transcript_path": "/t.jsonl", "cwd": str(repo),
             "hook_event_name": "SessionStart", "source": "startup", "model": "m"}
    text = context_of(fire(hook_line(repo, "session-start"), start, env, repo), "SessionStart")
    assert "Constraints and decisions" in text
    assert rule.text in text
    assert other.text in text
    assert math.ceil(len(text.encode()) / 4) <= BUDGET  # within the hook's token budget

    # An edit that changes login's signature: create_user calls it, so its constraint is suspect.
    service = repo / "app/auth/service.py"
    service.write_text(service.read_text().replace(OLD_SIG, NEW_SIG))
    edit = {"session_id": "s-1", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(service), "old_string": OLD_SIG, "new_string": NEW_SIG},
            "tool_response": {"filePath": str(service), "success": True}, "tool_use_id": "toolu_1"}
    text = context_of(fire(hook_line(repo, "post-edit"), edit, env, repo), "PostToolUse")
    assert (
        f"- `app/api/routes.py::create_user`: calls `{LOGIN}`, whose parameter `otp` was added (required), uncommitted"
        in text
    )
    assert f"[SUSPECT constraint, id {rule.id}] {rule.text}" in text
    assert text.count("confirm_observation") == 1  # the instruction once
    assert other.id not in text  # only what the edit changed
    with d.client() as c:
        assert c.get(rule.id).status is ObservationStatus.SUSPECT

    # the same hook run again (no new edit): the session was told, nothing is repeated
    again = fire(hook_line(repo, "post-edit"), edit, env, repo)
    assert (again.returncode, again.stdout) == (0, ""), again.stdout

    # nothing new to say about a file whose notes this session has seen: no output at all
    crypto = {**edit, "tool_input": {"file_path": str(repo / "app/auth/crypto.py")}}
    quiet = fire(hook_line(repo, "post-edit"), crypto, env, repo)
    assert (quiet.returncode, quiet.stdout) == (0, ""), quiet.stdout


def test_nothing_to_say_and_a_stopped_daemon_print_nothing(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    assert run(["setup", "claude-code", "--no-instructions"], repo, env).returncode == 0
    start = {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    edit = {"session_id": "s", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": str(repo / "app/models.py")}}
    for kind, payload in (("session-start", start), ("post-edit", edit)):  # no notes yet
        out = fire(hook_line(repo, kind), payload, env, repo)
        assert (out.returncode, out.stdout) == (0, ""), out.stderr
    elsewhere = short_tmp("gmo")  # a directory in no registered repository
    with d.client() as c:
        c.observe("models are plain dataclasses", anchors=["app/models.py"])
    out = fire(hook_line(repo, "session-start"), {**start, "cwd": str(elsewhere)}, env, elsewhere)
    assert (out.returncode, out.stdout) == (0, "")
    d.stop()
    for kind, payload in (("session-start", start), ("post-edit", edit)):
        began = time.monotonic()
        out = fire(hook_line(repo, kind), payload, env, repo)
        assert (out.returncode, out.stdout) == (0, ""), out.stderr
        assert time.monotonic() - began < 5


def test_each_client_gets_its_documented_output(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        note = c.observe("login compares hashes in constant time", anchors=[LOGIN], category=Category.CONSTRAINT)
    service = repo / "app/auth/service.py"

    def hook(kind: str, client: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        # a bound this test does not measure: a loaded machine may take the edit in later than the default 500 ms
        cmd = [*GRAPHMEM, "hook", kind, "--client", client, "--wait-ms", "5000"]
        return subprocess.run(cmd, input=json.dumps(payload), capture_output=True, text=True, env=env, cwd=repo,
                              timeout=30)

    cursor = hook("session-start", "cursor", {"conversation_id": "c", "hook_event_name": "sessionStart",
                                              "workspace_roots": [str(repo)], "cursor_version": "1.7"})
    assert json.loads(cursor.stdout) == {"additional_context": json.loads(cursor.stdout)["additional_context"]}
    assert note.text in json.loads(cursor.stdout)["additional_context"]
    def edit(n: int) -> None:  # each session's own edit: login gets another parameter
        service.write_text(re.sub(r"(def login\(self, email: str, password: str)(, otp\d+: str)?\)",
                                  rf"\1, otp{n}: str)", service.read_text()))

    edit(1)
    gemini = hook("post-edit", "gemini", {"session_id": "g", "cwd": str(repo), "hook_event_name": "AfterTool",
                                          "tool_name": "replace", "tool_input": {"file_path": str(service)}})
    assert note.text in context_of(gemini, "AfterTool")

    # VS Code runs the hooks of .claude/settings.json: its camelCase payload is answered in its format
    edit(2)
    vscode = hook("post-edit", "claude-code", {"sessionId": "v", "hookEventName": "PostToolUse", "cwd": str(repo),
                                               "tool_name": "replace_string_in_file",
                                               "tool_input": {"filePath": str(service)}})
    assert note.text in context_of(vscode, "PostToolUse")

    patch = f"*** Begin Patch\n*** Update File: {service.relative_to(repo)}\n@@\n-x\n+y\n*** End Patch\n"
    edit(3)
    codex = hook("post-edit", "codex", {"session_id": "x", "cwd": str(repo), "hook_event_name": "PostToolUse",
                                        "turn_id": "t", "tool_name": "apply_patch", "tool_input": {"command": patch}})
    assert note.text in context_of(codex, "PostToolUse")

    windsurf = hook("post-edit", "windsurf", {"agent_action_name": "post_write_code",
                                              "tool_info": {"file_path": str(service)}})
    assert (windsurf.returncode, windsurf.stdout) == (0, "")


def test_post_edit_waits_for_the_index_to_take_the_file_in(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    """The hook runs a moment after the save: the call-out must not depend on the watcher having
    got there first (the daemon takes the file in at once)."""
    d = daemon_factory([repo], env={"GRAPHMEM_DEBOUNCE_MS": "3000"})
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        note = c.observe("login's result is a bearer token", anchors=[LOGIN], category=Category.DECISION)
    service = repo / "app/auth/service.py"
    service.write_text(service.read_text().replace(OLD_SIG, NEW_SIG))
    payload = {"session_id": "w", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
               "tool_input": {"file_path": str(service)}}
    out = subprocess.run([*GRAPHMEM, "hook", "post-edit", "--wait-ms", "2000"], input=json.dumps(payload),
                         capture_output=True, text=True, env=env, cwd=repo, timeout=30)
    text = context_of(out, "PostToolUse")
    assert f"- `{LOGIN}`: parameter `otp` added (required), uncommitted" in text
    assert f"[STALE decision, id {note.id}] {note.text}" in text
    with d.client() as c:
        wait_for(lambda: c.get(note.id).status is ObservationStatus.STALE, 10)


def test_post_edit_is_answered_once_the_edit_is_applied_not_after_the_batchs_git_status(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    """An edit's call-outs are answerable once its batch applied it (graph, notes, knowledge):
    the call does not wait for the rest of that job, the ``git status`` of the whole tree that
    tells ``status`` whether the checkout is dirty (here made to take 20 s; the watcher's
    debounce is a minute, so the call hands the file over itself)."""
    gate = tmp_path / "slow-status"
    env = {**slow_git(tmp_path, gate, "status --porcelain -uno"), "GRAPHMEM_DEBOUNCE_MS": "60000"}
    d = daemon_factory([repo], env=env)
    with d.client(timeout=30) as c:
        note = c.observe("login's result is a bearer token", anchors=[LOGIN], category=Category.DECISION)
        gate.touch()
        service = repo / "app/auth/service.py"
        service.write_text(service.read_text().replace(OLD_SIG, NEW_SIG))
        got = c.edit_context([str(service)], repo=str(repo), wait_ms=5000)
        assert got.indexed, "the call waited out its deadline"
        assert got.callout_ids == (note.id,)
        assert f"- `{LOGIN}`: parameter `otp` added (required), uncommitted" in got.text
        gate.unlink()


def test_a_client_with_its_own_hooks_hears_graphmem_once(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    """Cursor and VS Code also run Claude Code's hooks: once their own graphmem hooks are set up,
    the copy in .claude/settings.json stays silent for them (and still answers Claude Code)."""
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        note = c.observe("login compares hashes in constant time", anchors=[LOGIN], category=Category.CONSTRAINT)
    assert run(["setup", "claude-code", "--no-instructions"], repo, env).returncode == 0
    line = hook_line(repo, "session-start")
    from_cursor = {"conversation_id": "c", "hook_event_name": "sessionStart", "workspace_roots": [str(repo)],
                   "cursor_version": "1.7"}
    before = fire(line, from_cursor, env, repo)
    assert note.text in json.loads(before.stdout)["additional_context"]  # Cursor alone: answered in its format
    assert run(["setup", "cursor", "--no-instructions"], repo, env).returncode == 0
    after = fire(line, from_cursor, env, repo)
    assert (after.returncode, after.stdout) == (0, "")  # Cursor's own hook answers it now
    own = subprocess.run(shlex.split(json.loads((repo / ".cursor/hooks.json").read_text())["hooks"]["sessionStart"][0]
                                     ["command"]), input=json.dumps(from_cursor), capture_output=True, text=True,
                         env=env, cwd=repo, timeout=30)
    assert note.text in json.loads(own.stdout)["additional_context"]
    claude = fire(line, {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart"}, env, repo)
    assert note.text in context_of(claude, "SessionStart")


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def test_post_edit_for_an_unchanged_file_says_nothing_of_docs_gone_stale_in_history(
    daemon_factory: Callable[..., Daemon], tmp_path: Path
) -> None:
    """The docs named code that changed in past commits: that is history, not this edit."""
    repo = copy_fixture("knowledge")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the fixture")
    crypto = repo / "app/auth/crypto.py"
    old, new = "def hash_password(password: str)", "def hash_password(password: str, pepper: str)"
    crypto.write_text(crypto.read_text().replace(old, new))
    service = repo / "app/auth/service.py"
    service.write_text(service.read_text().replace("def login(", "def sign_in("))
    _git(repo, "commit", "-qam", "hashing takes a pepper; login is sign_in")
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        wait_for(lambda: any(o.knowledge is not None and o.status is not ObservationStatus.FRESH
                             for o in c.list(limit=1000)), 30)
    for rel in ("app/auth/crypto.py", "app/auth/service.py"):
        payload = {"session_id": "h", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": str(repo / rel)}}
        out = subprocess.run([*GRAPHMEM, "hook", "post-edit"], input=json.dumps(payload), capture_output=True,
                             text=True, env=env, cwd=repo, timeout=30)
        assert (out.returncode, out.stdout) == (0, ""), out.stdout
    start = {"session_id": "h2", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
    brief = subprocess.run([*GRAPHMEM, "hook", "session-start"], input=json.dumps(start), capture_output=True,
                           text=True, env=env, cwd=repo, timeout=30)
    text = context_of(brief, "SessionStart")
    assert math.ceil(len(text.encode()) / 4) <= BUDGET
    assert "saved 20" not in text  # indexing the docs is not saving them
    assert "changed 20" not in text
    assert "disagree with the code: see graphmem check" in text


def _post_edit(env: dict[str, str], repo: Path, session: str, path: Path) -> str:
    """The post-edit hook's additional context for ``session``'s edit of ``path`` ("" for nothing)."""
    payload = {"session_id": session, "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
               "tool_input": {"file_path": str(path)}}
    out = subprocess.run([*GRAPHMEM, "hook", "post-edit", "--wait-ms", "2000"], input=json.dumps(payload),
                         capture_output=True, text=True, env=env, cwd=repo, timeout=30)
    return context_of(out, "PostToolUse") if out.stdout else ""


def test_a_session_hears_only_of_its_own_edit(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    """Issue 41 item 7: the post-edit callout speaks of what this session's edit changed, never of
    another session's edit nor of a change something else made on disk before it."""
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the fixture")
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        note = c.observe("login's result is a bearer token", anchors=[LOGIN], category=Category.DECISION)
        hashing = c.observe("hash_password is salted per user", anchors=["app/auth/crypto.py::hash_password"],
                            category=Category.CONSTRAINT)
    service = repo / "app/auth/service.py"
    service.write_text(service.read_text().replace(OLD_SIG, NEW_SIG))
    assert f"[STALE decision, id {note.id}]" in _post_edit(env, repo, "one", service)  # session one's own edit

    # session two's first post-edit of the file, which its tool did not change: nothing
    assert _post_edit(env, repo, "two", service) == ""
    service.write_bytes(service.read_bytes())  # saved unchanged: the same bytes, a new modification time
    assert _post_edit(env, repo, "two", service) == ""
    assert _post_edit(env, repo, "three", service) == ""

    # something else (another agent without hooks, a checkout) changed crypto.py a while ago ...
    crypto = repo / "app/auth/crypto.py"
    crypto.write_text(crypto.read_text().replace("def hash_password(password: str", "def hash_password(pw: str"))
    with d.client() as c:
        wait_for(lambda: c.get(hashing.id).status is ObservationStatus.STALE, 20)
    a_while_ago = time.time() - 60
    os.utime(crypto, (a_while_ago, a_while_ago))
    assert _post_edit(env, repo, "four", crypto) == ""  # ... a post-edit without a change is not told of it
    crypto.write_bytes(crypto.read_bytes())
    assert _post_edit(env, repo, "four", crypto) == ""  # nor after saving it unchanged

    # session four's own change of the file is told, and only it
    crypto.write_text(crypto.read_text().replace("def hash_password(pw: str", "def hash_password(pw: bytes"))
    text = _post_edit(env, repo, "four", crypto)
    assert f"[STALE constraint, id {hashing.id}]" in text
    assert note.id not in text


def test_hooks_of_sessions_editing_at_once_lose_no_report(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    """The record of which session last reported each file (``hooks/shared.files.json``) is shared by
    every session's hooks: twelve post-edit hooks of twelve sessions, each of its own real file,
    run at once (their payloads written together once all are started), three times over; every
    one of the reports is there after each round."""
    files = [repo / "app" / f"part_{i}.py" for i in range(12)]
    for i, path in enumerate(files):
        path.write_text(f"def part_{i}() -> int:\n    return {i}\n")
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    shared = resolve_paths(None, env).runtime_dir / "hooks" / "shared.files.json"
    for rnd in range(3):
        hooks = []
        for path in files:
            path.write_text(path.read_text() + f"\n# round {rnd}\n")
            hooks.append(subprocess.Popen([*GRAPHMEM, "hook", "post-edit", "--wait-ms", "0"], stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=repo))
        for i, (hook, path) in enumerate(zip(hooks, files, strict=True)):  # all started: the payloads at once
            payload = {"session_id": f"s{rnd}-{i}", "cwd": str(repo), "hook_event_name": "PostToolUse",
                       "tool_name": "Edit", "tool_input": {"file_path": str(path)}}
            assert hook.stdin is not None
            hook.stdin.write(json.dumps(payload).encode())
            hook.stdin.close()
        for hook in hooks:
            assert hook.wait(timeout=60) == 0
            assert hook.stderr is not None
            assert hook.stderr.read() == b""
            hook.stderr.close()
        reports = json.loads(shared.read_text())["files"]
        for i, path in enumerate(files):
            digest = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
            assert reports.get(str(path), [])[:2] == [digest, f"s{rnd}-{i}"], (rnd, i)


def test_hooks_of_one_session_editing_at_once_lose_nothing_it_remembers(
    daemon_factory: Callable[..., Daemon], repo: Path, tmp_path: Path
) -> None:
    """A session's own record (the notes its hooks showed, each file's digest as it last saw it)
    is read and replaced by each of its hooks; an agent's parallel tool calls run them at once.
    Twelve post-edit hooks of one session, each of its own real file under its own note, run at
    once, twice: after each round the record has every file's digest, and every note the hooks
    showed (each asked the daemon, so the old read-ask-write lost them)."""
    files = [repo / "app" / f"part_{i}.py" for i in range(12)]
    for i, path in enumerate(files):
        path.write_text(f"def part_{i}() -> int:\n    return {i}\n")
    d = daemon_factory([repo])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        notes = [c.observe(f"part {i} is {i}", anchors=[f"app/part_{i}.py::part_{i}"]).id for i in range(12)]
    memory = resolve_paths(None, env).runtime_dir / "hooks" / "one.json"
    for rnd in range(2):
        hooks = []
        for i, path in enumerate(files):
            path.write_text(f"def part_{i}() -> int:\n    return {i} + {rnd + 1}\n")
            hooks.append(subprocess.Popen([*GRAPHMEM, "hook", "post-edit", "--wait-ms", "3000"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=repo))
        for hook, path in zip(hooks, files, strict=True):  # all started: the payloads at once
            payload = {"session_id": "one", "cwd": str(repo), "hook_event_name": "PostToolUse",
                       "tool_name": "Edit", "tool_input": {"file_path": str(path)}}
            assert hook.stdin is not None
            hook.stdin.write(json.dumps(payload).encode())
            hook.stdin.close()
        said = []
        for hook in hooks:
            assert hook.wait(timeout=60) == 0
            assert hook.stdout is not None
            assert hook.stderr is not None
            said.append(hook.stdout.read().decode())
            assert hook.stderr.read() == b""
            hook.stdout.close()
            hook.stderr.close()
        record = json.loads(memory.read_text())
        for i, path in enumerate(files):
            digest = hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()
            assert record["files"].get(str(path)) == digest, (rnd, i)
        shown = {s.partition("@")[0] for s in record["shown"]}
        told = {n for n in notes if any(n in text for text in said)}
        if rnd == 0:
            assert told == set(notes)  # each hook told of its own note ...
        assert told <= shown, (rnd, told - shown)  # ... and the session remembers every one it was told


@pytest.mark.parametrize("session", ["files", "shared.files", "shared", "shared_files", "shared/files"])
def test_no_session_file_is_the_shared_record(session: str, tmp_path: Path) -> None:
    """A session's own memory file (and its lock) is never the record all sessions share (and
    its lock), whatever the session id: a session called ``files`` once wrote over it."""
    from graphmem.agents.hook import _last_reported, _memory_file

    paths = resolve_paths(None, {"GRAPHMEM_HOME": str(tmp_path / "home")})
    own = _memory_file(paths, session)
    shared = _last_reported(paths)
    assert own is not None
    assert {own, own.with_suffix(".lock")}.isdisjoint({shared, shared.with_suffix(".lock")})
