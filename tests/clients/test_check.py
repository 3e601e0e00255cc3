"""``graphmem check`` end to end: the installed CLI on a real git repository with knowledge
files (the ``knowledge`` fixture: CLAUDE.md, AGENTS.md, a Cursor rule, an ADR, Markdown and
reStructuredText docs naming Python, Go and TypeScript code), real commits, a real daemon.

* Exit codes per ``--fail-on`` as the history moves: nothing, a body change (suspect), a
  signature change (stale), a rename (dangling), through a daemon that follows the commits.
* A run with no daemon (a one-shot private daemon on a temporary home, removed after) and a
  run that reuses the running daemon give the same findings.
* Real SARIF validates against the official schema and each region is the reference's exact
  span in the file; ``--format github`` lines are workflow commands; PATH limits the check;
  usage errors exit 64; the shipped ``.pre-commit-hooks.yaml`` runs under pre-commit itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import copy_fixture, short_tmp, spawn_daemon, wait_for

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
_SCRIPT = Path(sys.executable).with_name("graphmem")
GRAPHMEM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "graphmem"]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}
WAIT = "120"


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def cli_env(home: Path) -> dict[str, str]:
    """The environment of a CLI run on ``home``'s daemon (never one named by the caller's
    ``GRAPHMEM_ADDRESS``)."""
    env = dict(os.environ, GRAPHMEM_HOME=str(home))
    env.pop("GRAPHMEM_ADDRESS", None)
    return env


def check(home: Path, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(home)
    env.setdefault("GRAPHMEM_PARSE_WORKERS", "2")
    return subprocess.run(
        [*GRAPHMEM, "check", "--wait", WAIT, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )


def listed(home: Path, repo: Path, *args: str) -> list[dict[str, Any]]:
    """``graphmem list --json`` of the running daemon, in ``repo``."""
    out = subprocess.run(
        [*GRAPHMEM, "list", "--json", "--kind", "all", *args],
        cwd=repo,
        env=cli_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    got: list[dict[str, Any]] = json.loads(out.stdout)
    return got


def findings(out: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """The references of a ``--format json`` run, without the observation ids (each store
    numbers its own observations)."""
    data = json.loads(out.stdout)
    return [{k: v for k, v in r.items() if k != "observation_id"} for r in data["references"]]


def one_shot_homes() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).iterdir() if p.name.startswith("gmchk-")}


@pytest.fixture(scope="module")
def repo() -> Path:
    path = copy_fixture("knowledge")
    git(path, "init", "-q")
    commit_all(path, "knowledge fixture")
    return path


@pytest.fixture(scope="module")
def followed(repo: Path) -> Iterator[dict[str, Any]]:
    """The history replayed under a daemon that follows it; per step, the exit code of each
    ``--fail-on`` and the findings; then the same check with no daemon (one-shot)."""
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    steps: dict[str, Any] = {}

    def record(step: str) -> None:
        codes = {}
        for fail_on in ("dangling", "stale", "suspect", "never"):
            out = check(home, repo, "--fail-on", fail_on)
            assert "one-shot" not in out.stderr, out.stderr  # the running daemon answered
            codes[fail_on] = out.returncode
        as_json = check(home, repo, "--format", "json", "--fail-on", "never")
        assert as_json.returncode == 0, as_json.stderr
        every = check(home, repo, "--format", "json", "--fail-on", "never", "--level", "all")
        steps[step] = {
            "codes": codes,
            "findings": findings(as_json),
            "all": findings(every),
            "json": json.loads(as_json.stdout),
        }

    try:
        # a call written with an argument by keyword (bound against the signature when it changes)
        edit(
            repo / "docs" / "api.rst",
            "Passwords are hashed by",
            "Call ``hash_password(password=pw)``.\n\nSign in with :meth:`AuthService.login` once.\n\n"
            "Passwords are hashed by",
        )  # (AuthService.login named twice in this file: one finding at two places once it is renamed)
        commit_all(repo, "docs: a call of hash_password")
        record("initial")
        crypto = repo / "app" / "auth" / "crypto.py"
        edit(crypto, "return hash_password(password) == digest", "return digest == hash_password(password)")
        commit_all(repo, "check_password: compare the other way round (body change)")
        record("body")
        # a renamed parameter: calls by keyword break (a new defaulted one would only make
        # passing mentions suspect)
        edit(crypto, "def hash_password(password: str) -> str", "def hash_password(secret: str) -> str")
        edit(crypto, "(SALT + password)", "(SALT + secret)")
        commit_all(repo, "hash_password(secret) (signature change)")
        record("signature")
        service = repo / "app" / "auth" / "service.py"
        edit(service, "def login(", "def sign_in(")
        commit_all(repo, "AuthService.login -> sign_in (rename)")
        record("rename")
        before = one_shot_homes()
        alone = check(short_tmp(), repo, "--format", "json", "--fail-on", "never")  # an empty home: no daemon
        steps["one_shot"] = {"out": alone, "leftover_homes": one_shot_homes() - before}
        steps["home"] = home
        yield steps
    finally:
        daemon.stop()


# ---------------------------------------------------------------------------- the gate


def test_exit_codes_follow_fail_on_through_the_history(followed: dict[str, Any]) -> None:
    assert followed["initial"]["codes"] == {"dangling": 0, "stale": 0, "suspect": 0, "never": 0}
    assert followed["initial"]["findings"] == []
    assert followed["body"]["codes"] == {"dangling": 0, "stale": 0, "suspect": 0, "never": 0}  # nothing to act on
    assert followed["signature"]["codes"] == {"dangling": 0, "stale": 1, "suspect": 1, "never": 0}
    assert followed["rename"]["codes"] == {"dangling": 1, "stale": 1, "suspect": 1, "never": 0}


def test_findings_name_the_reference_what_happened_and_where(followed: dict[str, Any], repo: Path) -> None:
    assert followed["body"]["findings"] == []  # a body change of a named function: only with --level all
    changed = followed["body"]["all"]
    assert {r["state"] for r in changed} == {"REFERENCE_STATE_CHANGED"}
    assert any("check_password" in r["text"] and r["path"] == "docs/adr/0001-password-hashing.md" for r in changed)
    head = git(repo, "rev-parse", "HEAD~1").strip()
    # the call written with the keyword the function no longer takes: stale
    (stale,) = [r for r in followed["signature"]["findings"] if r["state"] == "REFERENCE_STATE_STALE"]
    assert (stale["path"], stale["text"]) == ("docs/api.rst", "hash_password(password=pw)")
    assert stale["reason"] == (
        f"`hash_password` no longer takes `password`: parameter `password` renamed to `secret` in {head[:7]}"
    )
    assert stale["old_signature"] == "def hash_password(password: str) -> str"
    assert stale["new_signature"] == "def hash_password(secret: str) -> str"
    # the mentions of it: a renamed parameter breaks old callers, suspect
    suspect = [r for r in followed["signature"]["findings"] if r["state"] == "REFERENCE_STATE_SUSPECT"]
    assert {r["path"] for r in suspect if "hash_password" in r["text"]} >= {"CLAUDE.md", "docs/api.rst"}
    assert all(r["commit"] and head.startswith(r["commit"][:7]) for r in suspect if "hash_password" in r["text"])
    dangling = [r for r in followed["rename"]["findings"] if r["state"] == "REFERENCE_STATE_DANGLING"]
    login = [r for r in dangling if "AuthService.login" in r["text"]]
    assert {r["path"] for r in login} == {"CLAUDE.md", "docs/api.rst"}
    for r in login:
        assert r["renamed_to"].endswith("AuthService.sign_in"), r
        assert "sign_in" in r["reason"], r


def test_a_run_without_a_daemon_finds_what_the_running_daemon_finds(followed: dict[str, Any]) -> None:
    alone = followed["one_shot"]["out"]
    assert alone.returncode == 0, alone.stderr
    assert "one-shot daemon" in alone.stderr
    assert findings(alone) == followed["rename"]["findings"]
    data = json.loads(alone.stdout)
    reused = followed["rename"]["json"]
    counts = ("files_checked", "units", "references_checked")
    assert [data[k] for k in counts] == [reused[k] for k in counts]
    assert data["freshness"]["current"] is True
    assert followed["one_shot"]["leftover_homes"] == set()  # the temporary home is gone


# ---------------------------------------------------------------------------- formats from a real run


def test_real_sarif_validates_and_regions_are_the_exact_spans(followed: dict[str, Any], repo: Path) -> None:
    out = check(followed["home"], repo, "--format", "sarif", "--fail-on", "stale")
    assert out.returncode == 1, out.stderr
    log = json.loads(out.stdout)
    validator = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
    assert not [e.message for e in validator.iter_errors(log)]
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == repo.resolve().as_uri() + "/"
    assert run["results"]
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        region = location["region"]
        lines = (repo / location["artifactLocation"]["uri"]).read_text(encoding="utf-8").splitlines()
        if region["startLine"] == region["endLine"]:
            span = lines[region["startLine"] - 1][region["startColumn"] - 1 : region["endColumn"] - 1]
            assert span == result["properties"]["reference"], (result, span)
        assert result["level"] == ("note" if result["ruleId"] == "suspect-reference" else "error")
    # the schema is checked on issue 42's fields too: the new name, both signatures, the
    # close matches and a repeated finding's other places
    props = {k for result in run["results"] for k in result["properties"]}
    assert {"renamedTo", "oldSignature", "newSignature", "closeMatches", "lines"} <= props, props
    assert any(result.get("relatedLocations") for result in run["results"]), run["results"]


_COMMAND = re.compile(
    r"^::(error|warning|notice) (file=[^,:]+,line=\d+,endLine=\d+(?:,col=\d+,endColumn=\d+)?,title=[^,:]+)::(.+)$"
)


def test_real_github_annotations(followed: dict[str, Any], repo: Path) -> None:
    out = check(followed["home"], repo, "--format", "github")
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert lines
    commands = [_COMMAND.match(line) for line in lines]
    assert all(commands), lines
    kinds = {m.group(1) for m in commands if m}
    assert kinds == {"error", "warning", "notice"}  # dangling fails; stale below the threshold; suspect
    for m in commands:
        assert m is not None
        props = dict(p.split("=", 1) for p in m.group(2).split(","))
        assert (repo / props["file"]).is_file()
    assert "dangling" in out.stderr  # the summary goes to stderr, stdout holds only commands


def test_paths_limit_the_check(followed: dict[str, Any], repo: Path) -> None:
    out = check(followed["home"], repo, "--format", "json", "--fail-on", "never", "CLAUDE.md")
    assert out.returncode == 0, out.stderr
    only = findings(out)
    assert only
    assert {r["path"] for r in only} == {"CLAUDE.md"}
    assert only == [r for r in followed["rename"]["findings"] if r["path"] == "CLAUDE.md"]


def test_text_output(followed: dict[str, Any], repo: Path) -> None:
    out = check(followed["home"], repo)
    assert out.returncode == 1
    first = out.stdout.splitlines()[0]
    assert re.match(r"^[^:]+:\d+:\d+: (dangling|stale|suspect): ", first), first
    assert re.search(r"^CLAUDE\.md:\d+:\d+: dangling: .*AuthService\.login", out.stdout, re.M)
    assert "FAILED" in out.stdout.splitlines()[-1]


# ---------------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--format", "xml"), "invalid OutputFormat value"),
        (("--fail-on", "warning"), "invalid FailOn value"),
        (("no-such-file.md",), "no such file or directory"),
        (("/",), "outside the repository"),
        (("--wait", "0"), "--wait must be positive"),
        (("--level", "warning"), "invalid ReportLevel value"),
    ],
)
def test_usage_errors_exit_64(repo: Path, args: tuple[str, ...], message: str) -> None:
    env = dict(os.environ, GRAPHMEM_HOME=str(short_tmp()))
    out = subprocess.run([*GRAPHMEM, "check", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 64, out.stderr
    assert message in out.stderr


def test_outside_git_check_says_so_and_exits_64_unless_no_git() -> None:
    folder = copy_fixture("knowledge")  # the same files, no repository around them
    env = dict(os.environ, GRAPHMEM_HOME=str(short_tmp()))
    env.pop("GRAPHMEM_ADDRESS", None)
    run = [*GRAPHMEM, "check", "--wait", WAIT]
    out = subprocess.run(run, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 64, out.stderr
    assert "is not in a git repository" in out.stderr
    assert "--no-git" in out.stderr
    assert "one-shot" not in out.stderr  # nothing was indexed
    out = subprocess.run([*run, "--no-git"], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr  # no history: every reference is judged from now on
    assert out.stdout.splitlines()[-1].startswith("no findings in 6 files")


# ---------------------------------------------------------------------------- pre-commit


def test_the_pre_commit_hook_runs_under_pre_commit(followed: dict[str, Any], repo: Path, tmp_path: Path) -> None:
    """The manifest is valid for pre-commit, and its hook, run by pre-commit itself in the
    repository (as a local hook: installing graphmem from an index is not a test's job),
    fails the commit on the dangling reference (the running daemon answers)."""
    from pre_commit.clientlib import load_manifest

    (hook,) = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert hook["id"] == "graphmem-check"
    assert hook["pass_filenames"] is False
    local = {k: v for k, v in hook.items() if k in ("id", "name", "entry", "pass_filenames", "require_serial")}
    config = repo / ".pre-commit-config.yaml"
    config.write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [{**local, "language": "system"}]}]}))
    git(repo, "add", ".pre-commit-config.yaml")  # pre-commit wants its configuration staged
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc"), GRAPHMEM_HOME=str(followed["home"]), **GIT_ENV)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("GRAPHMEM_ADDRESS", None)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        git(repo, "rm", "-q", "--cached", ".pre-commit-config.yaml")
        config.unlink()
    assert out.returncode == 1, out.stdout + out.stderr
    assert "graphmem check" in out.stdout
    assert "Failed" in out.stdout
    assert re.search(r"CLAUDE\.md:\d+:\d+: dangling", out.stdout), out.stdout


def test_a_package_move_into_src_changes_nothing_with_or_without_a_daemon() -> None:
    """``git mv pkg src/pkg`` under a running daemon: the references still resolve (``pkg.fields``
    through a relative re-export, ``pub.fields`` through an absolute import that resolves only
    once ``src/`` is an import root), so neither the daemon nor a cold index reports anything;
    the move is no rename of the symbols the text names."""
    repo = short_tmp("gmmv") / "repo"
    for d in ("pkg", "pub", "docs"):
        (repo / d).mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("from .mod import fields\n")
    (repo / "pkg" / "mod.py").write_text("def fields(cls):\n    return cls\n\n\ndef other():\n    return 1\n")
    (repo / "pub" / "__init__.py").write_text("from pkg import fields\n")
    (repo / "docs" / "api.rst").write_text(
        "API\n===\n\nUse :func:`pkg.fields` to list them, or `pkg.other`.\n\nPublic: :func:`pub.fields`.\n"
    )
    git(repo, "init", "-q")
    commit_all(repo, "a package and its docs")
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    try:
        assert findings(check(home, repo, "--format", "json")) == []
        (repo / "src").mkdir()
        git(repo, "mv", "pkg", "src/pkg")
        git(repo, "mv", "pub", "src/pub")
        commit_all(repo, "the packages move into src/")
        alone = check(short_tmp(), repo, "--format", "json")
        assert findings(alone) == []  # a cold index: the references still resolve
        assert findings(check(home, repo, "--format", "json")) == []
        # and a real rename after the move is still reported, with its new name
        edit(repo / "src" / "pkg" / "mod.py", "def other(", "def another(")
        commit_all(repo, "other is renamed")
        (got,) = findings(check(home, repo, "--format", "json"))
        assert (got["text"], got["state"], got["renamed_to"]) == (
            "pkg.other",
            "REFERENCE_STATE_DANGLING",
            "src/pkg/mod.py::another",
        ), got
        assert findings(check(short_tmp(), repo, "--format", "json")) != []
    finally:
        daemon.stop()


def test_an_alias_by_assignment_and_a_star_import_are_followed_with_or_without_a_daemon() -> None:
    """attrs renamed ``attributes`` to ``attrs`` and kept ``attributes = attrs``: the name still
    imports, so a document naming ``pkg.attributes`` is not dangling. ``pub.validators``
    re-exports ``pkg.validators`` with ``import *``: a validator removed there is dangling under
    its re-exported name too — a paragraph written before the removal, with a running daemon
    and with a one-shot check; and so is one found only at the commit the paragraph was
    written (a cold check has nothing before); a name no symbol answers to is not confused with
    one a module it imports defined."""
    repo = short_tmp("gmal") / "repo"
    for d in ("pkg", "pub", "docs"):
        (repo / d).mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("from . import setters\nfrom ._make import attributes, frozen\n")
    (repo / "pkg" / "_make.py").write_text(
        "from functools import partial\n\n\ndef attributes(cls):\n    return cls\n\n\nfrozen = partial(attributes)\n"
    )
    (repo / "pkg" / "setters.py").write_text("def frozen(a):\n    return a\n")
    (repo / "pkg" / "validators.py").write_text(
        '__all__ = ["instance_of", "provides"]\n\n\ndef instance_of(t):\n    return t\n\n\n'
        "def provides(i):\n    return i\n"
    )
    (repo / "pub" / "__init__.py").write_text("")
    (repo / "pub" / "validators.py").write_text("from pkg.validators import *  # noqa\n")
    (repo / "docs" / "api.md").write_text(
        "# API\n\nDecorate with `pkg.attributes`.\n\nCheck with `pub.validators.instance_of`.\n\n"
        "Or `pub.validators.provides`.\n\nFreeze with `pkg.frozen`.\n"
    )
    git(repo, "init", "-q")
    commit_all(repo, "a package and its docs")
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    try:
        assert findings(check(home, repo, "--format", "json")) == []
        edit(repo / "pkg" / "_make.py", "def attributes(cls):", "def attrs(cls):")
        aliased = "attributes = attrs\nfrozen = partial(attrs)\n"
        edit(repo / "pkg" / "_make.py", "frozen = partial(attributes)\n", aliased)
        edit(repo / "pkg" / "__init__.py", "import attributes", "import attributes, attrs")
        commit_all(repo, "attributes is renamed attrs; the old name stays an alias")
        assert findings(check(short_tmp(), repo, "--format", "json")) == []
        assert findings(check(home, repo, "--format", "json")) == []
        edit(repo / "pkg" / "validators.py", "def provides(i):\n    return i\n", "")
        edit(repo / "pkg" / "validators.py", ', "provides"', "")
        # ``pkg.frozen`` (a partial: no symbol) never named ``pkg.setters.frozen``: its rename is no finding
        edit(repo / "pkg" / "setters.py", "def frozen(", "def _frozen(")
        commit_all(repo, "provides is removed, setters.frozen made private")
        for out in (check(home, repo, "--format", "json"), check(short_tmp(), repo, "--format", "json")):
            found = findings(out)
            assert len(found) == 1, found
            (got,) = found
            assert (got["text"], got["state"]) == ("pub.validators.provides", "REFERENCE_STATE_DANGLING"), found
            assert "removed" in got["reason"], got
    finally:
        daemon.stop()


def commit_at(repo: Path, message: str, when: int) -> str:
    """Commit everything with author and committer time ``when`` (seconds); the new commit."""
    date = f"@{when} +0000"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    for args in (["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return git(repo, "rev-parse", "HEAD").strip()


def test_a_suspect_changed_twice_names_the_latest_commit_with_or_without_a_daemon() -> None:
    """A function a paragraph mentions changes its body in two commits (a day apart): the
    change (``--level all``: old uses still fit) names the latest commit (the newest change of
    its lines), through a running daemon that saw the first change as in a cold check."""
    repo = short_tmp("gmtw") / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("def fmt(x):\n    a = x\n    b = a\n    return b\n")
    (repo / "README.md").write_text("# pkg\n\nFormat with `pkg.fmt()`.\n")
    git(repo, "init", "-q")
    day = 1_700_000_000
    commit_at(repo, "a function and its readme", day)
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    try:
        assert findings(check(home, repo, "--format", "json")) == []
        edit(repo / "pkg" / "__init__.py", "a = x\n", "a = x + 1\n")
        first = commit_at(repo, "first body change", day + 86_400)
        (got,) = findings(check(home, repo, "--format", "json", "--fail-on", "stale", "--level", "all"))
        assert (got["state"], got["commit"]) == ("REFERENCE_STATE_CHANGED", first), got
        edit(repo / "pkg" / "__init__.py", "b = a\n", "b = a * 2\n")
        latest = commit_at(repo, "second body change", day + 2 * 86_400)
        for out in (
            check(home, repo, "--format", "json", "--level", "all"),
            check(short_tmp(), repo, "--format", "json", "--level", "all"),
        ):
            (got,) = findings(out)
            assert (got["state"], got["commit"]) == ("REFERENCE_STATE_CHANGED", latest), got
    finally:
        daemon.stop()


def test_code_removed_and_back_in_a_later_batch_is_not_dangling_any_more() -> None:
    """A checkout that moves ``pkg/`` to ``src/pkg/`` may reach the daemon as two batches (the
    files removed, then added): the reference goes dangling in between, and resolves again
    once the code is back."""
    repo = short_tmp("gmbk") / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "pkg" / "__init__.py").write_text("def fields(cls):\n    return cls\n")
    (repo / "docs" / "api.rst").write_text("API\n===\n\nUse :func:`pkg.fields` to list them.\n")
    git(repo, "init", "-q")
    commit_all(repo, "a package and its docs")
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    try:
        assert findings(check(home, repo, "--format", "json")) == []
        aside = repo.parent / "aside"
        (repo / "pkg").rename(aside)
        (gone,) = findings(check(home, repo, "--format", "json"))
        assert gone["state"] == "REFERENCE_STATE_DANGLING", gone
        (repo / "src").mkdir()
        aside.rename(repo / "src" / "pkg")
        assert findings(check(home, repo, "--format", "json")) == []
    finally:
        daemon.stop()


def test_a_daemon_that_followed_the_commits_finds_what_a_cold_check_finds() -> None:
    """A paragraph is judged by the code it names as its lines were last committed, with or
    without a daemon, however the daemon came to see the history: a function a paragraph names
    whose dependency is re-signed is no finding (a cold check sees only what the paragraph
    names); a docstring edited after a body change does not move the commit the suspect names
    (the commit that gave the code its current fingerprints); a name that becomes ambiguous in
    an edited paragraph (a module of the same name appears) names nothing, though the daemon
    had it anchored; a paragraph reflowed in a commit after its code changed, and one edited
    with its code before both were committed together, are fresh once HEAD moves."""
    repo = short_tmp("gmsm") / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("from .core import fmt, greet, hello, helper, thing\n")
    core = repo / "pkg" / "core.py"
    core.write_text(
        "def dep(a):\n    return a\n\n\ndef helper(x):\n    return dep(x)\n\n\n"
        "def thing(x):\n    return x\n\n\ndef hello(name):\n    return name\n\n\n"
        "def greet(name):\n    return name\n\n\n"
        'def fmt(x):\n    """Format x."""\n    a = x\n    return a\n'
    )
    readme = repo / "README.md"
    readme.write_text(
        "# pkg\n\nHelp with `pkg.helper`.\n\nFormat with `pkg.fmt`.\n\nCall `thing` first.\n\n"
        "Say hello with `pkg.hello` now.\n\nGreet with `pkg.greet`.\n"
    )
    git(repo, "init", "-q")
    day = 1_700_000_000
    commit_at(repo, "a package and its readme", day)
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    try:
        assert findings(check(home, repo, "--format", "json", "--level", "all")) == []
        edit(core, "def dep(a):", "def dep(a, b):")  # helper's dependency gains a required parameter
        edit(core, "a = x\n", "a = x + 1\n")
        edit(core, "def thing(x):\n    return x\n", "def thing(x):\n    return x * 2\n")
        edit(core, "def hello(name):", "def hello(name, loud=False):")
        changed = commit_at(repo, "bodies and signatures change", day + 86_400)
        seen = {r["text"]: r for r in findings(check(home, repo, "--format", "json", "--level", "all"))}
        assert {"pkg.fmt", "thing", "pkg.hello"} <= set(seen), seen  # the daemon saw the commit
        assert seen["pkg.fmt"]["commit"] == changed, seen
        assert "pkg.helper" not in seen, seen  # a dependency's change names no reference ...
        # ... but the unit is suspect, as every note is (the dependency's mark is the unit's own,
        # not the check's: polled, as it may land after the check's answer on a busy machine)
        wait_for(lambda: any("`pkg.helper`" in o["text"] for o in listed(home, repo, "--suspect")) or None, 30)
        edit(core, '"""Format x."""', '"""Format x nicely."""')  # the docstring only
        (repo / "thing.py").write_text("X = 1\n")  # `thing` is a module's name too now
        edit(readme, "Call `thing` first.", "Call `thing` first, always.")
        edit(readme, "Say hello with `pkg.hello` now.", "Say hello with\n`pkg.hello` now.")  # reflowed
        edit(readme, "Greet with `pkg.greet`.", "Greet with `pkg.greet`, politely.")
        assert "pkg.greet" not in {r["text"] for r in findings(check(home, repo, "--format", "json", "--level", "all"))}
        edit(core, "def greet(name):\n    return name\n", "def greet(name):\n    return name.title()\n")
        greeted = {r["text"] for r in findings(check(home, repo, "--format", "json", "--level", "all"))}
        assert "pkg.greet" in greeted  # changed after the paragraph was read, before either is committed
        commit_at(repo, "docstring, a module, the readme and greet together", day + 2 * 86_400)
        reused = findings(check(home, repo, "--format", "json", "--fail-on", "never", "--level", "all"))
        alone = findings(check(short_tmp(), repo, "--format", "json", "--fail-on", "never", "--level", "all"))
        assert reused == alone
        assert [(r["text"], r["state"], r["commit"]) for r in alone] == [
            ("pkg.fmt", "REFERENCE_STATE_CHANGED", changed)
        ], alone
    finally:
        daemon.stop()


def test_a_name_its_package_no_longer_imports_is_dangling_with_or_without_a_daemon() -> None:
    """click made ``get_text_stream`` private (``utils._get_text_stream``) and dropped it from
    ``click/__init__.py``: ``click.get_text_stream`` in a document no longer resolves. A
    package's names are what its ``__init__`` exports, so the name is looked for in the imports
    of the ``__init__`` as the paragraph was written: it named ``utils.get_text_stream`` then,
    renamed to ``_get_text_stream`` since — for a cold check as for a daemon that followed the
    commit. Then a module ``__getattr__`` serves the name again, without a warning (a lazy
    import): it works, no finding (click's warns: that is *deprecated*, test_knowledge_deprecated)."""
    repo = short_tmp("gmin") / "repo"
    (repo / "pkg").mkdir(parents=True)
    init = repo / "pkg" / "__init__.py"
    init.write_text("from .utils import echo as echo\nfrom .utils import get_text_stream as get_text_stream\n")
    utils = repo / "pkg" / "utils.py"
    utils.write_text(
        "def echo(message):\n    return message\n\n\n"
        "def get_text_stream(name):\n    stream = open(name)\n    return stream\n"
    )
    (repo / "README.md").write_text("# pkg\n\nUse `pkg.echo` or `pkg.get_text_stream`.\n")
    git(repo, "init", "-q")
    commit_all(repo, "a package and its readme")
    home = short_tmp()
    daemon = spawn_daemon(home, [repo])
    try:
        assert findings(check(home, repo, "--format", "json")) == []
        edit(utils, "def get_text_stream(", "def _get_text_stream(")
        init.write_text("from .utils import echo as echo\n")
        commit_all(repo, "get_text_stream is private now")
        reused = findings(check(home, repo, "--format", "json", "--fail-on", "never"))
        alone = findings(check(short_tmp(), repo, "--format", "json", "--fail-on", "never"))
        assert reused == alone
        (got,) = alone
        assert (got["text"], got["state"]) == ("pkg.get_text_stream", "REFERENCE_STATE_DANGLING"), got
        assert got["renamed_to"] == "pkg/utils.py::_get_text_stream", got
        init.write_text(
            "from .utils import echo as echo\n\n\ndef __getattr__(name):\n"
            '    if name == "get_text_stream":\n        from .utils import _get_text_stream\n\n'
            "        return _get_text_stream\n    raise AttributeError(name)\n"
        )
        commit_all(repo, "get_text_stream served lazily")
        assert findings(check(home, repo, "--format", "json")) == []  # the daemon read the README again
        assert findings(check(short_tmp(), repo, "--format", "json")) == []
    finally:
        daemon.stop()
