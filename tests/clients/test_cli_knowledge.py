"""The CLI on knowledge files: ``observe --shared`` writes a note into the repository,
``show`` and ``list`` say where a unit comes from, ``update`` of a unit is refused (edit the
file). A real daemon on a copy of the knowledge fixture, the installed ``graphmem`` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, wait_for

_SCRIPT = Path(sys.executable).with_name("graphmem")
GRAPHMEM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "graphmem"]


def gm(d: Daemon, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRAPHMEM_HOME": str(d.home)}
    env.pop("GRAPHMEM_ADDRESS", None)
    return subprocess.run([*GRAPHMEM, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_shared_note_show_list_and_read_only_units(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("knowledge")
    d = daemon_factory([repo])
    out = gm(d, repo, "observe", "Keep hashing constant-time.", "--anchor", "app/auth/crypto.py::hash_password",
             "--category", "constraint", "--shared")  # fmt: skip
    assert out.returncode == 0, out.stderr
    note_id = out.stdout.strip()
    note = repo / ".graphmem" / "notes" / f"{note_id}.md"
    assert note.is_file()
    assert '"app/auth/crypto.py::hash_password"' in note.read_text()
    shown = gm(d, repo, "show", note_id)
    assert shown.returncode == 0, shown.stderr
    assert f"file:       .graphmem/notes/{note_id}.md:1-" in shown.stdout
    assert "(shared note)" in shown.stdout
    assert "app/auth/crypto.py::hash_password [OK]" in shown.stdout
    data = json.loads(gm(d, repo, "show", note_id, "--json").stdout)
    assert data["knowledge"]["kind"] == "KNOWLEDGE_KIND_SHARED_NOTE"
    assert data["references"][0]["state"] == "REFERENCE_STATE_OK"
    listed = gm(d, repo, "list")  # notes people and agents saved (a shared note is one), not units of files
    assert [row.split()[0] for row in listed.stdout.splitlines()] == [note_id]
    assert "units of knowledge files that match are not listed: --kind docs" in listed.stderr
    rows = gm(d, repo, "list", "--kind", "docs").stdout.splitlines()
    assert rows
    assert note_id not in "".join(rows)
    assert any("[CLAUDE.md:7]" in row and "AuthService.login" in row for row in rows)
    both = [o["id"] for o in json.loads(gm(d, repo, "list", "--kind", "all", "--json").stdout)]
    assert sorted(both) == sorted([note_id, *(row.split()[0] for row in rows)])
    unit = next(row.split()[0] for row in rows if "[CLAUDE.md:7]" in row)
    refused = gm(d, repo, "update", unit, "--text", "x")
    assert refused.returncode == 69, refused.stderr
    assert "edit the file" in refused.stderr


EXAMPLE = "from app.auth.crypto import check_password, hash_password\n\n" + "".join(
    f"digest{i} = hash_password('secret{i}')\n" for i in range(9)
) + "assert check_password('secret0', digest0)\n"


def test_a_code_example_is_shown_as_code_and_left_out_of_the_brief(daemon_factory: Callable[..., Daemon]) -> None:
    """A fenced example is a unit marked as one (over the wire and across a restart); recall
    prints it as code (its lines, at most eight), never as one line of words; the session's
    brief leaves it out (it names the code a paragraph beside it explains)."""
    repo = copy_fixture("knowledge")
    (repo / "docs" / "usage.md").write_text(
        "# Usage\n\nHash with `hash_password` before storing anything.\n\n```python\n" + EXAMPLE + "```\n",
        encoding="utf-8",
    )
    d = daemon_factory([repo])

    def units() -> dict[str, bool]:
        found = json.loads(gm(d, repo, "list", "--kind", "docs", "--limit", "500", "--json").stdout)
        mine = [o for o in found if o["knowledge"]["path"] == "docs/usage.md"]
        return {o["text"].split("\n")[0]: bool(o["knowledge"].get("example")) for o in mine}

    want = {"Hash with `hash_password` before storing anything.": False, EXAMPLE.split("\n")[0]: True}
    wait_for(lambda: units() == want, 30)
    recalled = gm(d, repo, "recall", "--file", "app/auth/crypto.py").stdout
    assert "\n   from app.auth.crypto import check_password, hash_password\n\n   digest0 = hash_password" in recalled
    assert "\n   digest4 = hash_password('secret4')\n   … (5 more lines)\n" in recalled  # 7 of its 12 lines
    brief = gm(d, repo, "brief").stdout
    assert "before storing anything" in brief
    assert "digest0" not in brief
    d.stop()
    d = daemon_factory([repo], home=d.home)
    assert units() == want  # kept by the journal
