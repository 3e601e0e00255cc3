"""``graphmem status``'s lines about a repository's checkouts (pure: no daemon)."""

from __future__ import annotations

from graphmem.cli.views import checkout_lines
from graphmem.types import Checkout, IndexState, Repository


def _repo(*others: Checkout) -> Repository:
    me = Checkout("app-1", "/src/app", "main", "a" * 40)
    return Repository("app-1", "/src/app", IndexState.READY, repository_id="app-1", checkouts=(me, *others))


def test_a_lone_checkout_says_nothing_of_checkouts() -> None:
    assert checkout_lines(_repo()) == []


def test_the_other_checkout_is_listed_under_a_count_of_all() -> None:
    wt = Checkout("wt-2", "/src/app/.claude/worktrees/fix", "claude/fix", "b" * 40)
    assert checkout_lines(_repo(wt)) == [
        "    repository app-1, 2 checkouts; the other:",
        "      /src/app/.claude/worktrees/fix  (claude/fix HEAD bbbbbbb)",
    ]


def test_several_others_and_a_detached_one() -> None:
    wt = Checkout("wt-2", "/src/wt-2", "feature", "b" * 40)
    det = Checkout("wt-3", "/src/wt-3", "", "c" * 40)
    lines = checkout_lines(_repo(wt, det))
    assert lines[0] == "    repository app-1, 3 checkouts; the others:"
    assert lines[2] == "      /src/wt-3  (detached HEAD ccccccc)"
