"""``RepoRegistry.adding``: whether a worktree is being added beside an indexed checkout (its
first pass runs), which the store writer's bulk writes of other checkouts give way to."""

from __future__ import annotations

from conftest import short_tmp
from gitrepo import git, initial_commit
from graphmemd.ingest.registry import RepoRegistry


def test_a_first_pass_beside_an_indexed_sibling_is_one_and_a_lone_cold_pass_is_not() -> None:
    tmp = short_tmp("gma").resolve()
    root, lone = tmp / "r", tmp / "lone"
    for d in (root, lone):
        d.mkdir()
        (d / "a.py").write_text("x = 1\n")
        initial_commit(d, "a")
    git(root, "worktree", "add", "-q", "-b", "wt", str(tmp / "wt"))
    registry = RepoRegistry(tmp / "repos.json")
    first, _ = registry.register(root)
    other, _ = registry.register(lone)
    assert not registry.adding(other.id)

    other.busy = True  # a lone repository's cold pass: nothing gives way to it
    assert not registry.adding(first.id)
    other.busy = False

    first.busy = True  # the first checkout's own cold pass (no sibling indexed yet)
    second, _ = registry.register(tmp / "wt")
    assert not registry.adding(other.id)
    first.busy, first.n_files, first.last_indexed_at = False, 1, 1.0

    second.busy = True  # the worktree's first pass, beside the indexed first checkout
    assert registry.adding(first.id)
    assert registry.adding(other.id)
    assert not registry.adding(second.id)  # (its own writes do not wait for it)
    second.last_indexed_at = 2.0  # current: its later passes are ordinary
    assert not registry.adding(first.id)
