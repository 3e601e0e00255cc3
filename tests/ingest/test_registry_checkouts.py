"""The registry's checkouts as memory sees them (``ingest/checkouts.py``), on a real repository:
whether a note's origin commit is abandoned — held by no ref and by no checkout's HEAD — with
the refs read again at once when the caller says they changed."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import short_tmp
from gitrepo import git, initial_commit
from graphmemd.ingest.checkouts import RegistryCheckouts
from graphmemd.ingest.registry import RepoRegistry, load_entries, save_registry


def test_a_commit_is_abandoned_once_no_ref_and_no_checkout_holds_it() -> None:
    tmp = short_tmp("gmc").resolve()
    root = tmp / "r"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    initial_commit(root, "a")
    git(root, "checkout", "-q", "-b", "feature")
    (root / "b.py").write_text("y = 2\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "b")
    commit = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "main")
    registry = RepoRegistry(tmp / "repos.json")
    rt, _ = registry.register(root)
    common = rt.common_dir
    assert isinstance(common, Path)
    checkouts = RegistryCheckouts(registry)
    assert not checkouts.abandoned(rt.id, commit)  # the branch holds it
    git(root, "branch", "-q", "-D", "feature")
    checkouts.refs_now(common)  # (what the common directory's watch calls: no waiting for the refs to be read again)
    assert checkouts.abandoned(rt.id, commit)
    detached = tmp / "wt"
    git(root, "worktree", "add", "-q", "--detach", str(detached), commit)
    registry.register(detached)
    assert not checkouts.abandoned(rt.id, commit)  # a checkout's detached HEAD holds it


def test_a_worktrees_entry_is_kept_in_the_repository_list_and_a_malformed_one_is_ignored() -> None:
    tmp = short_tmp("gme").resolve()
    repos = tmp / "repos.json"
    entry = (tmp / "r" / ".git" / "worktrees" / "wt", (7, 100))
    save_registry(repos, [], entries={"wt-1": entry})
    assert load_entries(repos) == {"wt-1": entry}
    data = json.loads(repos.read_text())
    data["entries"]["bad"] = {"entry": 3, "stamp": [1]}
    data["entries"]["worse"] = "x"
    repos.write_text(json.dumps(data))
    assert load_entries(repos) == {"wt-1": entry}
    repos.write_text("{")
    assert load_entries(repos) == {}
