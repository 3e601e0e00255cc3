"""A worktree inside a registered checkout of its own repository (Claude Code's
``.claude/worktrees/<name>``) registers as a checkout of that repository; another repository
inside a checkout is still refused. Worktrees declined before a decline kept its reason were,
when nested, all refused as nested: they are no longer held back; the user's removals are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import short_tmp
from gitrepo import git, initial_commit
from graphmem.errors import InvalidArgument
from graphmemd.ingest.registry import RepoRegistry


def with_inner_worktree(prefix: str) -> tuple[Path, Path, Path]:
    """(a temporary directory, a repository in it with one commit, its worktree inside it at
    ``.claude/worktrees/agent``, Claude Code's place)."""
    tmp = short_tmp(prefix).resolve()
    root = tmp / "r"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    initial_commit(root, "a")
    inner = root / ".claude" / "worktrees" / "agent"
    git(root, "worktree", "add", "-q", "-b", "agent", str(inner))
    return tmp, root, inner


def test_a_worktree_inside_its_repository_registers_and_another_repository_inside_does_not() -> None:
    tmp, root, inner = with_inner_worktree("gmn")
    clone = root / "third"
    clone.mkdir()
    (clone / "b.py").write_text("y = 2\n")
    initial_commit(clone, "b")
    registry = RepoRegistry(tmp / "repos.json")
    outer, _ = registry.register(root)
    nested, new = registry.register(inner)
    assert new
    assert nested.repository == outer.repository
    assert registry.of_path(inner / "a.py") is nested
    with pytest.raises(InvalidArgument, match="nested"):
        registry.register(clone)


def test_a_nested_worktree_declined_before_reasons_were_kept_is_no_longer_declined() -> None:
    tmp, root, inner = with_inner_worktree("gmd")
    beside = tmp / "wt"
    git(root, "worktree", "add", "-q", "-b", "beside", str(beside))
    (tmp / "repos.json").write_text(json.dumps({"declined": {str(inner): "", str(beside): ""}}))
    registry = RepoRegistry(tmp / "repos.json")
    assert registry.declined() == {inner, beside}  # (nothing registered yet: nothing to be inside)
    registry.register(root)
    assert registry.declined() == {beside}  # the user's removal of a worktree beside it holds
    registry.decline(inner)  # removed by the user now: that holds too
    assert registry.declined() == {inner, beside}
    assert RepoRegistry(tmp / "repos.json").declined() == {inner, beside}
