"""The hooks in a ``git worktree`` (the real ``graphmem hook`` processes, a real daemon, real
git): a note saved in the main checkout and made stale only in the worktree by an agent's edit
there cannot be confirmed from the worktree (``app/confirming``), so neither the post-edit
call-out nor the session brief there tells the agent to confirm it: each says in one line why
not and what to do instead (``graphmem.render.refusal_line``)."""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Callable
from pathlib import Path

from agentlib import GRAPHMEM, agent_env
from conftest import Daemon, wait_for
from gitrepo import committed_fixture, replace_in, worktree
from graphmem.types import ObservationStatus

HASH = "app/auth/crypto.py::hash_password"


def _hook(kind: str, payload: dict[str, object], env: dict[str, str], cwd: Path) -> str:
    """A hook's additional context ("" when it printed nothing), run as a client runs it."""
    out = subprocess.run([*GRAPHMEM, "hook", kind, "--wait-ms", "3000"], input=json.dumps(payload),
                         capture_output=True, text=True, env=env, cwd=cwd, timeout=30)
    assert out.returncode == 0, out.stderr
    return str(json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]) if out.stdout else ""


def test_the_hooks_in_a_worktree_do_not_offer_to_confirm_a_note_stale_only_there(
    daemon_factory: Callable[..., Daemon], tmp_path: Path
) -> None:
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    env = agent_env(tmp_path, d.home)
    with d.client() as c:
        wait_for(lambda: any(r.root == str(b) and r.state.value == "ready" for r in c.status().repositories), 30)
        note = c.observe("hash_password must stay constant-time", anchors=[HASH], repo=str(a))

    # the agent's edit in the worktree makes the note stale there, not at home
    crypto = b / "app/auth/crypto.py"
    replace_in(crypto, "salt=SALT)", "salt=SALT + password[:1])")
    edit = {"session_id": "s-1", "cwd": str(b), "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": str(crypto)}}
    text = _hook("post-edit", edit, env, b)
    with d.client() as c:
        assert c.get(note.id, repo=str(b)).status is ObservationStatus.STALE
        assert c.get(note.id, repo=str(a)).status is ObservationStatus.FRESH
    assert f"[STALE other, id {note.id}] {note.text}" in text, text
    said = f"  not confirmable here: it is stale only in this checkout: it was saved in {a} (branch main), where it is "
    said += "fresh. "
    assert said in text, text
    assert "Update the note or fix the code; confirming is for its home checkout" in text, text
    assert "confirm_observation" not in text, text
    assert "graphmem confirm" not in text, text
    assert text.endswith("save the corrected knowledge with supersedes=[ID], or fix the code."), text

    # a new session in the worktree: its brief lists the note in "Needs a look", saying the same
    start = {"session_id": "s-2", "cwd": str(b), "hook_event_name": "SessionStart", "source": "startup"}
    brief = _hook("session-start", start, env, b)
    assert math.ceil(len(brief.encode()) / 4) <= 400, brief  # within the hook's budget
    assert "## Needs a look (stale or suspect: verify, then supersede or fix the code)" in brief, brief
    (line,) = [x for x in brief.splitlines() if note.text in x]
    assert "[not confirmable here: it is stale only in this checkout: " in line, line
    assert "confirming is for its home checkout]" in line, line
    assert "confirm or supersede" not in brief, brief

    # at home the note is fresh: its brief there offers nothing to confirm or refuse
    home = _hook("session-start", {**start, "session_id": "s-3", "cwd": str(a)}, env, a)
    assert note.text in home, home
    assert "not confirmable" not in home, home
