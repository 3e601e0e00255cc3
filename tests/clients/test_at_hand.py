"""The repository at hand, everywhere: ``list``, ``events`` and ``export`` inside a registered
repository cover that one (``--all``: every one); ``recall`` and ``brief`` show stale notes by
default and never answer "no observations found" while some exist; ``brief`` with no files is
the repository's brief. The real executable, a real daemon."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, short_tmp, wait_for
from graphmem import client as client_module
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument
from graphmem.types import ObservationStatus, Repository
from test_cli import GRAPHMEM, cli_env, gm

ANCHOR = "app/auth/crypto.py::hash_password"


def test_list_events_export_cover_the_repository_at_hand(daemon_factory: Callable[..., Daemon]) -> None:
    a, b = copy_fixture("python"), copy_fixture("python")
    d = daemon_factory([a, b])
    with d.client() as c:
        in_a = c.observe("note in a", anchors=[ANCHOR], repo=str(a))
        in_b = c.observe("note in b", anchors=[ANCHOR], repo=str(b))

    def ids(out: subprocess.CompletedProcess[str]) -> set[str]:
        assert out.returncode == 0, out.stderr
        return {o["id"] for o in json.loads(out.stdout)}

    assert ids(gm(d.home, "list", "--json", cwd=a)) == {in_a.id}
    assert ids(gm(d.home, "list", "--json", cwd=b / "app")) == {in_b.id}
    assert ids(gm(d.home, "list", "--all", "--json", cwd=a)) == {in_a.id, in_b.id}
    assert ids(gm(d.home, "list", "--json", cwd=short_tmp("gmo"))) == {in_a.id, in_b.id}  # outside: all
    assert ids(gm(d.home, "list", "--repo", str(b), "--json", cwd=a)) == {in_b.id}

    def exported(*args: str, cwd: Path) -> set[str]:
        out = gm(d.home, "export", *args, cwd=cwd)
        assert out.returncode == 0, out.stderr
        return {json.loads(line)["obs"]["id"] for line in out.stdout.splitlines() if line.strip()}

    assert exported(cwd=a) == {in_a.id}
    assert exported("--all", cwd=a) == {in_a.id, in_b.id}

    proc = subprocess.Popen([*GRAPHMEM, "events", "--json", "--after-seq", "0"], cwd=a,
                            env=cli_env(d.home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with d.client() as c:
            later_b = c.observe("later in b", anchors=[ANCHOR], repo=str(b))
            later_a = c.observe("later in a", anchors=[ANCHOR], repo=str(a))
        seen: list[dict[str, str]] = []
        assert proc.stdout is not None
        while not any(e.get("observation_id") == later_a.id for e in seen):
            seen.append(json.loads(proc.stdout.readline()))
        assert {e["repo_id"] for e in seen} == {in_a.repo_id}
        assert later_b.id not in {e.get("observation_id") for e in seen}
    finally:
        proc.terminate()
        proc.wait(10)


def test_stale_is_shown_never_hidden(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = daemon_factory([repo])
    with d.client() as c:
        obs = c.observe("hash_password strips nothing", anchors=[ANCHOR])
        crypto = repo / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("return digest(password, salt=SALT)",
                                                     "return digest(password.strip(), salt=SALT)"))
        wait_for(lambda: c.get(obs.id).status is ObservationStatus.STALE, 10)
    shown = gm(d.home, "recall", "--file", "app/api/routes.py", cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert obs.id in shown.stdout
    assert "[STALE: body changed]" in shown.stdout
    assert "no observations found" not in shown.stdout
    deprecated = gm(d.home, "recall", "--file", "app/api/routes.py", "--include-stale", cwd=repo)
    assert deprecated.returncode == 0
    assert obs.id in deprecated.stdout
    fresh = gm(d.home, "recall", "--file", "app/api/routes.py", "--fresh-only", cwd=repo)
    assert fresh.returncode == 0
    assert "no fresh observations found; 1 stale or suspect one left out by --fresh-only" in fresh.stdout
    brief = gm(d.home, "brief", cwd=repo)
    assert brief.returncode == 0, brief.stderr
    assert "## Needs a look" in brief.stdout
    assert obs.id not in brief.stdout
    assert "hash_password strips" in brief.stdout
    as_json = json.loads(gm(d.home, "brief", "--json", cwd=repo).stdout)
    assert as_json["observation_ids"] == [obs.id]
    assert as_json["left_out"] == 0
    assert "--fresh-only" in gm(d.home, "recall", "--help").stdout
    assert "deprecated" in gm(d.home, "brief", "--help").stdout


def test_outside_every_repository_one_call_not_three(
    daemon_factory: Callable[..., Daemon], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client whose working directory is outside every registered repository learns so once
    (refused for the directory, it lists the repositories); its next calls go out unscoped at
    once. A refusal of an unscoped call, or ``OUTSIDE_MEMO_S`` passing, makes it ask again:
    a repository registered there since scopes the calls."""
    a, b = copy_fixture("python"), copy_fixture("python")
    d = daemon_factory([a, b])
    later = copy_fixture("python")  # the working directory: not registered yet
    with GraphMem(home=str(d.home), cwd=later) as c:
        in_a = c.observe("cache note in a", anchors=[ANCHOR], repo=str(a))
        in_b = c.observe("cache note in b", anchors=[ANCHOR], repo=str(b))
        listed: list[int] = []
        real = c.list_repos

        def counting() -> list[Repository]:
            listed.append(1)
            return real()

        monkeypatch.setattr(c, "list_repos", counting)

        def repos_recalled() -> set[str]:
            return {r.observation.repo_id for r in c.recall("cache", limit=10).results}

        for _ in range(3):
            assert repos_recalled() == {in_a.repo_id, in_b.repo_id}  # outside: every repository
        assert len(listed) == 1
        with pytest.raises(InvalidArgument):  # the anchor is in both: refused unscoped, asked again
            c.observe("which one?", anchors=[ANCHOR])
        assert len(listed) == 2
        added = c.add_repo(later)
        d.wait_idle()
        c.observe("cache note here", anchors=[ANCHOR], repo=str(later))
        assert repos_recalled() == {in_a.repo_id, in_b.repo_id, added.id}  # still known outside: every one
        monkeypatch.setattr(client_module, "OUTSIDE_MEMO_S", 0.0)
        assert repos_recalled() == {added.id}  # asked again: the directory is a repository now


def test_at_hand_is_given_what_it_needs() -> None:
    """``at_hand`` takes ``--repo`` and ``--all`` as parameters: ``show`` (no ``--all``) has no
    ``all`` to fake for it. No daemon: with a repository named or every one asked, it asks none."""
    from graphmem.cli import build_parser
    from graphmem.cli.notes import at_hand

    assert not hasattr(build_parser().parse_args(["show", "abc"]), "all")
    assert build_parser().parse_args(["list", "--all"]).all is True
    with GraphMem(home=str(short_tmp("gmh"))) as c:
        assert at_hand(c, "r1") == "r1"
        assert at_hand(c, "r1", every=True) == ""
        assert at_hand(c, "", every=True) == ""
