"""The ``graphmem`` command line, run as the real executable in a subprocess.

Without a daemon: exit codes and messages (2 + hint when not running, 64 on usage errors).
With a daemon (one per module, started by ``graphmem daemon start`` on a short temp
``GRAPHMEM_HOME``): status, observe, show, list, recall, symbols, brief, update, confirm,
archive, delete, export/import, events, and finally ``daemon stop``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import short_tmp
from graphmem.actor import local_actor
from graphmem.cli import freshness_line, main, marker, to_jsonable
from graphmem.render import reason_lines
from graphmem.types import (
    Category,
    ChangeKind,
    Freshness,
    IndexState,
    KnowledgeReference,
    KnowledgeSource,
    Observation,
    ObservationStatus,
    ReferenceState,
    RepoFreshness,
    StaleReason,
)

ROOT = Path(__file__).resolve().parents[2]
#: The fixture where it lies in a clone of graphmem (a folder of a git repository), as the
#: README's quick start registers it; the module's daemon runs on a fresh clone of that layout
#: (``clone``), not on this checkout, whose other worktrees it would register too.
FIXTURE = Path("fixtures") / "repos" / "python"
ANCHOR = "app/auth/service.py::AuthService.login"
CALLER_FILE = "app/api/routes.py"
NOTE = "login compares password hashes; AuthError carries only the email, never the password"

_SCRIPT = Path(sys.executable).with_name("graphmem")
GRAPHMEM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "graphmem"]


def short_home() -> Path:
    """Unix socket paths are limited to 107 bytes: homes live directly under /tmp (removed
    at the end of the session)."""
    return short_tmp()


def cli_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GRAPHMEM_HOME"] = str(home)
    env.pop("GRAPHMEM_ADDRESS", None)
    env.setdefault("GRAPHMEM_PARSE_WORKERS", "2")
    return env


def gm(home: Path, *args: str, cwd: Path = ROOT, timeout: float = 60,
       stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GRAPHMEM, *args], env=cli_env(home), cwd=cwd, capture_output=True, text=True, timeout=timeout,
        input=stdin,
    )


def gm_json(home: Path, *args: str, cwd: Path = ROOT) -> Any:
    out = gm(home, *args, "--json", cwd=cwd)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def daemon_available() -> str:
    """Empty when ``python -m graphmemd run --help`` works, else why not."""
    try:
        probe = subprocess.run([sys.executable, "-m", "graphmemd", "run", "--help"], capture_output=True,
                               text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "graphmemd run --help timed out"
    if probe.returncode != 0:
        return f"graphmemd is not runnable: {probe.stderr.strip().splitlines()[-1:]}"
    return ""


# ---------------------------------------------------------------------------- formatting (in-process)


def _obs(**changes: Any) -> Observation:
    base = Observation(id="o1", repo_id="py", text="t", category=Category.DECISION, created_at=1.0,
                       updated_at=1.0)
    return replace(base, **changes)


def test_status_markers() -> None:
    reason = StaleReason(anchor_ref="a.py::f", change=ChangeKind.BODY_CHANGED, detected_at=2.0)
    assert marker(_obs()) == "[FRESH]"
    assert marker(_obs(status=ObservationStatus.STALE, stale_reasons=(reason,))) == "[STALE: body changed]"
    worse = replace(reason, change=ChangeKind.SIGNATURE_CHANGED)
    assert marker(_obs(status=ObservationStatus.STALE, stale_reasons=(reason, worse))) == (
        "[STALE: signature changed (+1 more)]")
    said = replace(worse, old_signature="def f(a):", new_signature="def f(a,b=1):", uncommitted=True)
    assert marker(_obs(status=ObservationStatus.STALE, stale_reasons=(said,))) == (
        "[STALE: parameter `b` added (optional)]")
    assert marker(_obs(status=ObservationStatus.SUPERSEDED, superseded_by="o2")) == "[SUPERSEDED by o2]"
    assert marker(_obs(status=ObservationStatus.ARCHIVED)) == "[ARCHIVED]"
    assert "NEEDS REVIEW" in marker(_obs(needs_review=True))
    made = {"origin_commit": "53494716e80b4f", "on_branch": "feature", "origin_branch": "feature"}
    assert marker(_obs(**made)) == "[ON BRANCH feature]"
    detached = {**made, "on_branch": "53494716e80b", "origin_branch": ""}  # (a detached HEAD's commit)
    assert marker(_obs(**detached)) == "[ON COMMIT 53494716e80b]"


def test_a_knowledge_units_marker_names_first_what_asks_for_an_edit_of_its_text() -> None:
    """Tried on click's docs: a paragraph naming `click.echo`, `click.prompt` and the deprecated
    `click.get_text_stream` was listed "[SUSPECT: body changed (+2 more)]" — the body changes of
    functions it merely names, which `check` grades *changed* (no edit asked), before the
    deprecation it reports."""
    echo = StaleReason("src/click/utils.py::echo", ChangeKind.BODY_CHANGED, 2.0, commit="7454647")
    stream = StaleReason("src/click/utils.py::get_text_stream", ChangeKind.DEPRECATED, 2.0,
                         served_by="click.__getattr__")
    refs = (
        KnowledgeReference("`click.echo`", "docs/wincmd.md", 38, 39, 38, 51, target_ref=echo.anchor_ref,
                           state=ReferenceState.CHANGED),
        KnowledgeReference("`click.get_text_stream`", "docs/wincmd.md", 38, 79, 38, 102,
                           target_ref=stream.anchor_ref, state=ReferenceState.SUSPECT, deprecated=True),
    )
    unit = _obs(status=ObservationStatus.SUSPECT, stale_reasons=(echo, stream), references=refs,
                knowledge=KnowledgeSource(path="docs/wincmd.md", start_line=38, end_line=38))
    assert marker(unit) == "[SUSPECT: deprecated: `click.__getattr__` still serves it, with a warning (+1 more)]"
    assert [line.split(": ")[0] for line in reason_lines(unit)] == [
        "`src/click/utils.py::get_text_stream`", "`src/click/utils.py::echo`"]
    note = replace(unit, knowledge=None)  # a note's own anchors: the kind of change decides
    assert marker(note) == "[SUSPECT: body changed (+1 more)]"


def test_freshness_lines() -> None:
    ready = RepoFreshness(repo_id="py", current=True, state=IndexState.READY, head_commit="abc1234def",
                          indexed_commit="abc1234def")
    assert freshness_line(Freshness(current=True, repositories=(ready,))) == "index current (HEAD abc1234)"
    assert freshness_line(Freshness(current=True)) == "index current"
    pending = replace(ready, current=False, pending_changes=3)
    assert freshness_line(Freshness(current=False, repositories=(pending,))) == (
        "index NOT current: 3 pending changes")
    indexing = replace(ready, current=False, state=IndexState.INDEXING)
    assert freshness_line(Freshness(current=False, repositories=(indexing,))) == (
        "index NOT current: py is indexing")


def test_json_rendering() -> None:
    data = to_jsonable(_obs(tags=("a",)))
    assert isinstance(data, dict)
    assert data["category"] == "CATEGORY_DECISION"
    assert data["status"] == "OBSERVATION_STATUS_FRESH"
    assert data["tags"] == ["a"]
    assert json.loads(json.dumps(data)) == data


def test_main_returns_exit_codes_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--limit", "x"]) == 64
    assert "graphmem: list: argument --limit" in capsys.readouterr().err
    assert main(["--version"]) == 0


# ---------------------------------------------------------------------------- no daemon


@pytest.fixture
def empty_home() -> Iterator[Path]:
    home = short_home()
    yield home
    shutil.rmtree(home, ignore_errors=True)


def test_status_without_daemon_exits_2_with_hint(empty_home: Path) -> None:
    started = time.monotonic()
    out = gm(empty_home, "status")
    assert time.monotonic() - started < 10  # interpreter start included; the call itself has a 2 s deadline
    assert out.returncode == 2
    assert out.stdout == ""
    assert "graphmem: graphmemd is not running" in out.stderr
    assert str(empty_home / "run" / "graphmemd.sock") in out.stderr
    assert "start it with: graphmem daemon start --repo PATH" in out.stderr


def test_status_json_without_daemon(empty_home: Path) -> None:
    out = gm(empty_home, "status", "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout)["running"] is False


def test_other_commands_without_daemon_exit_2(empty_home: Path) -> None:
    for args in (["show", "x"], ["list"], ["recall", "--file", "a.py"], ["repo", "list"]):
        out = gm(empty_home, *args)
        assert out.returncode == 2, (args, out.stderr)
        assert "start it with" in out.stderr


def test_daemon_stop_without_daemon_is_quiet_success(empty_home: Path) -> None:
    out = gm(empty_home, "daemon", "stop")
    assert out.returncode == 0
    assert "not running" in out.stderr


def test_daemon_start_with_missing_repo_exits_66(empty_home: Path) -> None:
    out = gm(empty_home, "daemon", "start", "--repo", "/nonexistent/gm-repo")
    assert out.returncode == 66
    assert "not a directory: /nonexistent/gm-repo" in out.stderr
    assert not (empty_home / "run" / "graphmemd.pid").exists()


def test_daemon_start_exits_3_when_the_store_is_locked(empty_home: Path) -> None:
    """The spawned daemon finds the store lock taken, exits 3; the CLI reports its stderr line."""
    reason = daemon_available()
    if reason:
        pytest.skip(reason)
    lock = empty_home / "data" / "daemon.lock"
    lock.parent.mkdir(parents=True)
    with open(lock, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        out = gm(empty_home, "daemon", "start", "--wait", "30")
    assert out.returncode == 3, out.stderr
    assert out.stderr.startswith("graphmem: ")
    assert "already" in out.stderr


@pytest.mark.parametrize("args", [
    [],
    ["frobnicate"],
    ["observe"],
    ["list", "--limit", "-3"],
    ["list", "--status", "bogus"],
    ["observe", "text", "--category", "nope"],
    ["observe", "text", "--confidence", "7"],
    ["daemon"],
    ["repo"],
    ["recall"],
    ["update", "some-id"],
], ids=lambda a: " ".join(a) or "no-args")
def test_usage_errors_exit_64(empty_home: Path, args: list[str]) -> None:
    out = gm(empty_home, *args)
    assert out.returncode == 64, out.stderr
    assert out.stdout == ""
    assert "graphmem: " in out.stderr
    if args not in (["recall"], ["update", "some-id"]):  # checked after parsing: message only
        assert "usage: graphmem" in out.stderr


def test_help_and_version(empty_home: Path) -> None:
    out = gm(empty_home, "--help")
    assert out.returncode == 0
    assert "recall" in out.stdout
    out = gm(empty_home, "--version")
    assert out.returncode == 0
    assert out.stdout.startswith("graphmem ")


def test_address_flag_overrides_home(empty_home: Path) -> None:
    out = gm(empty_home, "status", "--address", "unix:/tmp/gm-no-such-dir/x.sock")
    assert out.returncode == 2
    assert "/tmp/gm-no-such-dir/x.sock" in out.stderr


# ---------------------------------------------------------------------------- with a daemon


@pytest.fixture(scope="module")
def clone() -> Path:
    """A git repository holding the python fixture at ``FIXTURE``, one commit."""
    top = short_tmp("gmc") / "clone"
    shutil.copytree(ROOT / FIXTURE, top / FIXTURE)
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-qm", "the fixture")):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                       cwd=top, check=True, capture_output=True)
    return top


@pytest.fixture(scope="module")
def py_repo(clone: Path) -> Path:
    """The registered repository: the fixture's folder of ``clone``."""
    return clone / FIXTURE


@pytest.fixture(scope="module")
def home(clone: Path) -> Iterator[Path]:
    """One daemon for the module, started (and finally stopped) through the CLI."""
    reason = daemon_available()
    if reason:
        pytest.skip(reason)
    home = short_home()
    out = gm(home, "daemon", "start", "--repo", str(FIXTURE), cwd=clone, timeout=90)
    assert out.returncode == 0, out.stderr
    assert "started (pid" in out.stdout
    try:
        _wait_ready(home)
        yield home
    finally:
        gm(home, "daemon", "stop", timeout=60)
        pid_file = home / "run" / "graphmemd.pid"
        if pid_file.exists():  # the stop did not work: do not leak the process
            pid = int(pid_file.read_text().strip())
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(home, ignore_errors=True)


def _wait_ready(home: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = gm_json(home, "status")
        repos = last.get("repositories", [])
        if repos and all(r["state"] == "INDEX_STATE_READY" and r["pending_changes"] == 0 for r in repos):
            return
        time.sleep(0.2)
    raise AssertionError(f"repository not indexed within {timeout}s: {last}")


@pytest.fixture(scope="module")
def observation_id(home: Path) -> str:
    out = gm(home, "observe", NOTE, "--anchor", ANCHOR, "--category", "bug-cause", "--tag", "auth",
             "security", "--confidence", "0.9")
    assert out.returncode == 0, out.stderr
    obs_id = out.stdout.strip()
    assert obs_id
    assert "\n" not in obs_id
    return obs_id


def test_status_lists_the_repository(home: Path, py_repo: Path) -> None:
    out = gm(home, "status")
    assert out.returncode == 0, out.stdout + out.stderr
    assert str(py_repo) in out.stdout
    assert "healthy" in out.stdout
    assert "ready" in out.stdout
    data = gm_json(home, "status")
    assert data["running"] is True
    assert data["serving"] is True
    [repo] = data["repositories"]
    assert repo["root"] == str(py_repo)
    assert repo["files"] > 0
    assert repo["symbols"] > 0


def test_second_start_exits_3(home: Path) -> None:
    out = gm(home, "daemon", "start")
    assert out.returncode == 3
    assert "already running" in out.stderr


def test_repo_list(home: Path, py_repo: Path) -> None:
    [repo] = gm_json(home, "repo", "list")
    assert repo["root"] == str(py_repo)
    out = gm(home, "repo", "list")
    assert out.returncode == 0
    assert str(py_repo) in out.stdout


def test_observe_then_show_json(home: Path, observation_id: str) -> None:
    obs = gm_json(home, "show", observation_id)
    assert obs["id"] == observation_id
    assert obs["text"] == NOTE
    assert obs["category"] == "CATEGORY_BUG_CAUSE"
    assert obs["status"] == "OBSERVATION_STATUS_FRESH"
    assert sorted(obs["tags"]) == ["auth", "security"]
    assert obs["confidence"] == pytest.approx(0.9)
    assert obs["source"] == "cli"
    assert [a["ref"] for a in obs["anchors"]] == [ANCHOR]
    assert obs["anchors"][0]["kind"] == "ANCHOR_KIND_SYMBOL"
    out = gm(home, "show", observation_id)
    assert out.returncode == 0
    assert "status:     fresh" in out.stdout
    assert ANCHOR in out.stdout


def test_show_spells_the_anchor_as_the_code_does_now(home: Path, py_repo: Path) -> None:
    """A respelling that means the same (quoted annotations) leaves the note fresh; ``show``
    prints the signature as the code now spells it, ``--verbose`` also the anchored one."""
    encoding = py_repo / "app/util/encoding.py"
    original = encoding.read_text()
    out = gm(home, "observe", "b64 output is ASCII", "--anchor", "app/util/encoding.py::b64")
    assert out.returncode == 0, out.stderr
    obs_id = out.stdout.strip()
    try:
        assert original.count("def b64(data: bytes) -> str:") == 1
        encoding.write_text(original.replace("def b64(data: bytes) -> str:", 'def b64(data: "bytes") -> "str":'))
        deadline = time.monotonic() + 30
        while 'b64    def b64(data: "bytes") -> "str"\n' not in (shown := gm(home, "show", obs_id).stdout):
            assert time.monotonic() < deadline, shown
            time.sleep(0.1)
        assert "status:     fresh" in shown
        verbose = gm(home, "show", obs_id, "--verbose").stdout
        assert "anchored as: def b64(data: bytes) -> str\n" in verbose
    finally:
        encoding.write_text(original)
        gm(home, "delete", obs_id)


def test_show_unknown_id_exits_66(home: Path) -> None:
    out = gm(home, "show", "no-such-observation")
    assert out.returncode == 66, out.stderr
    assert out.stderr.startswith("graphmem: ")


def test_an_id_is_taken_by_its_start(home: Path, observation_id: str) -> None:
    """As git takes a commit's abbreviation: ``show``, ``confirm`` and the JSON answer take
    the start of an id (four characters or more) and speak of the whole id."""
    start = observation_id[:6]
    assert gm_json(home, "show", start)["id"] == observation_id
    out = gm(home, "confirm", start)
    assert out.returncode == 0, out.stderr
    assert observation_id in out.stdout
    short = gm(home, "show", observation_id[:3])
    assert short.returncode == 66, short.stderr
    assert short.stderr == f"graphmem: no observation '{observation_id[:3]}'\n"


def test_observe_unresolved_anchor_exits_64(home: Path) -> None:
    out = gm(home, "observe", "x", "--anchor", "app/auth/service.py::AuthService.logn")
    assert out.returncode == 64, out.stderr
    assert "AuthService.logn" in out.stderr


def test_list_json(home: Path, observation_id: str) -> None:
    found = gm_json(home, "list")
    assert observation_id in [o["id"] for o in found]
    by_file = gm_json(home, "list", "--file", "app/auth/service.py")
    assert observation_id in [o["id"] for o in by_file]
    by_tag = gm_json(home, "list", "--tag", "no-such-tag")
    assert by_tag == []
    stale = gm_json(home, "list", "--stale")
    assert observation_id not in [o["id"] for o in stale]
    out = gm(home, "list")
    assert out.returncode == 0
    assert observation_id in out.stdout


def test_recall_by_file_shows_score_marker_why_and_freshness(home: Path, py_repo: Path, observation_id: str) -> None:
    # from the repository root, the repo-relative path exists and is sent absolute
    out = gm(home, "recall", "--file", CALLER_FILE, cwd=py_repo)
    assert out.returncode == 0, out.stderr
    assert observation_id in out.stdout
    assert "[FRESH]" in out.stdout
    assert "why:" in out.stdout
    assert "index current" in out.stdout
    # from elsewhere, the same path is sent repo-relative
    data = gm_json(home, "recall", "--file", CALLER_FILE, cwd=Path("/"))
    hits = [r for r in data["results"] if r["observation"]["id"] == observation_id]
    assert hits, data
    assert hits[0]["score"] > 0
    assert hits[0]["why"]
    assert data["freshness"]["current"] is True


def test_recall_by_text(home: Path, observation_id: str) -> None:
    data = gm_json(home, "recall", "password hashes")
    assert observation_id in [r["observation"]["id"] for r in data["results"]]


def test_symbols_and_symbol(home: Path, observation_id: str) -> None:
    found = gm_json(home, "symbols", "log*", "--kind", "method")
    assert ANCHOR in [s["ref"] for s in found]
    assert {s["kind"] for s in found} == {"SYMBOL_KIND_METHOD"}
    detail = gm_json(home, "symbol", ANCHOR)
    assert detail["symbol"]["ref"] == ANCHOR
    assert "app/api/routes.py::create_user" in [s["ref"] for s in detail["callers"]]
    assert observation_id in [o["id"] for o in detail["observations"]]
    out = gm(home, "symbol", ANCHOR)
    assert out.returncode == 0
    assert "callers" in out.stdout
    out = gm(home, "symbols", "*", "--kind", "lambda")
    assert out.returncode == 64


def test_brief(home: Path, observation_id: str) -> None:
    out = gm(home, "brief", "--file", "app/auth/service.py", "--budget", "500")
    assert out.returncode == 0, out.stderr
    assert "login compares password hashes" in out.stdout
    data = gm_json(home, "brief", "--file", "app/auth/service.py")
    assert observation_id in data["observation_ids"]


def test_index_prints_plain_progress_when_not_a_tty(home: Path, clone: Path) -> None:
    out = gm(home, "index", str(FIXTURE), "--full", cwd=clone)
    assert out.returncode == 0, out.stderr
    assert ": ready, " in out.stdout
    assert "files" in out.stdout
    assert "\x1b" not in out.stderr  # no terminal control codes
    out = gm(home, "index", "no-such-repo")
    assert out.returncode == 66, out.stderr


def test_update_confirm_archive_delete(home: Path) -> None:
    out = gm(home, "observe", "temporary note about hash_password", "--anchor",
             "app/auth/crypto.py::hash_password")
    assert out.returncode == 0, out.stderr
    obs_id = out.stdout.strip()
    updated = gm_json(home, "update", obs_id, "--text", "edited note", "--tag", "x", "y")
    assert updated["text"] == "edited note"
    assert sorted(updated["tags"]) == ["x", "y"]
    confirmed = gm_json(home, "confirm", obs_id, "--by", "tester")
    assert confirmed["confirmed_by"] == "tester"
    archived = gm_json(home, "archive", obs_id, "--by", "alice")
    assert archived["status"] == "OBSERVATION_STATUS_ARCHIVED"
    assert obs_id not in [o["id"] for o in gm_json(home, "list")]
    assert obs_id in [o["id"] for o in gm_json(home, "list", "--status", "archived")]
    # every change is in the note's history, with who: the CLI acts as cli:$USER unless --by says
    me = local_actor("cli")
    assert [(e["kind"], e.get("by")) for e in archived["history"]] == [
        ("HISTORY_KIND_CREATED", "cli"),
        ("HISTORY_KIND_EDITED", me),
        ("HISTORY_KIND_CONFIRMED", "tester"),
        ("HISTORY_KIND_ARCHIVED", "alice"),
    ]
    out = gm(home, "show", obs_id, "--verbose")
    assert out.returncode == 0, out.stderr
    history = out.stdout.split("history:\n", 1)[1].splitlines()[:4]
    assert "created  by cli" in history[0]
    assert f"edited: text, tags  by {me}" in history[1]
    assert "confirmed still true  by tester" in history[2]
    assert "archived  by alice" in history[3]
    out = gm(home, "delete", obs_id)
    assert out.returncode == 0, out.stderr
    out = gm(home, "show", obs_id)
    assert out.returncode == 66
    assert f"was deleted by {me} at " in out.stderr


def test_export_and_import(home: Path, observation_id: str, tmp_path: Path) -> None:
    out = gm(home, "export")
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    assert lines
    for ln in lines:
        json.loads(ln)
    assert observation_id in out.stdout
    (mine,) = [json.loads(ln)["obs"] for ln in lines if json.loads(ln)["obs"]["id"] == observation_id]
    assert mine["history"][0]["kind"] == "created"  # the history travels with the export
    target = tmp_path / "backup.jsonl"
    out = gm(home, "export", str(target))
    assert out.returncode == 0, out.stderr
    assert target.read_text().splitlines() == lines
    result = gm_json(home, "import", str(target))
    assert result["imported"] == 0
    assert result["skipped_duplicates"] > 0
    assert gm(home, "import", str(tmp_path / "missing.jsonl")).returncode == 66


def test_events_follow_until_interrupted(home: Path) -> None:
    env = {**cli_env(home), "PYTHONFAULTHANDLER": "1"}  # a SIGABRT below dumps every thread's stack
    # Ctrl-C as a terminal sends it: SIGINT at its default, whatever this run inherited (a test run
    # started in the background by a non-interactive shell has SIGINT ignored, and so would the CLI)
    proc = subprocess.Popen([*GRAPHMEM, "events", "--json"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        time.sleep(1.0)  # let the subscription establish
        out = gm(home, "observe", "an event-producing note", "--anchor", "app/models.py")
        assert out.returncode == 0, out.stderr
        assert proc.stdout is not None
        line = proc.stdout.readline()
        event = json.loads(line)
        assert event["kind"] == "EVENT_KIND_OBSERVATION_CHANGED"
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(10)
        except subprocess.TimeoutExpired:  # (seen only in the full suite): say where it hangs
            proc.send_signal(signal.SIGABRT)
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"graphmem events did not exit within 10 s of SIGINT; its threads:\n{err}")
        assert code == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_zz_daemon_stop_then_status_exits_2(home: Path) -> None:
    out = gm(home, "daemon", "stop")
    assert out.returncode == 0, out.stderr
    assert "stopped" in out.stdout
    assert not (home / "run" / "graphmemd.pid").exists()
    out = gm(home, "status")
    assert out.returncode == 2
    assert "start it with" in out.stderr
