"""A new worktree is seen as soon as ``git worktree add`` is done: the common git directory is
watched (``app/worktrees.py``, ``GitDirWatch``), not only looked at now and then. Real git,
real file-system watches; the looks' own interval is set far beyond the test's deadlines, so
only the watch can wake them."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import short_tmp, wait_for
from gitrepo import git
from graphmemd.app.worktrees import GitDirWatch, WorktreeWatch, watched_dirs
from graphmemd.ingest.registry import RepoRuntime


def repo() -> Path:
    root = (short_tmp("gmw") / "r").resolve()
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a")
    return root


class Loops:
    """A ``WorktreeWatch`` whose looks come every 10 minutes unless woken, and a ``GitDirWatch``
    waking it, each on a thread; what the look registered (the checkouts it was given plus
    those it added) and dropped."""

    def __init__(self, root: Path, *, watch: bool = True) -> None:
        self.rts = [RepoRuntime.create(root)]
        self.added: list[Path] = []
        self.looks = 0
        self.worktrees = WorktreeWatch(lambda: list(self.rts), set, self._add, lambda rt: None, interval_s=600)
        self.git_dirs = GitDirWatch(self.worktrees.common_dirs, self.worktrees.wake)
        self._threads = [threading.Thread(target=self._run, args=(self.worktrees.step,), daemon=True)]
        if watch:
            self._threads.append(threading.Thread(target=self._run, args=(self.git_dirs.step,), daemon=True))
        for t in self._threads:
            t.start()

    def _run(self, step: object) -> None:
        while step():  # type: ignore[operator]
            pass

    def _add(self, root: Path) -> None:
        self.added.append(root)
        self.rts.append(RepoRuntime.create(root))

    def stop(self) -> None:
        self.git_dirs.stop()
        self.worktrees.stop()
        for t in self._threads:
            t.join(10)
            assert not t.is_alive()


@pytest.fixture
def loops_of() -> Iterator[list[Loops]]:
    made: list[Loops] = []
    yield made
    for each in made:
        each.stop()


def test_a_new_worktree_is_registered_once_git_is_done_not_at_the_next_look(loops_of: list[Loops]) -> None:
    root = repo()
    loops = Loops(root)
    loops_of.append(loops)
    # (no ``worktrees/`` folder yet: the common directory itself is watched for it)
    assert watched_dirs([root / ".git"]) == (root / ".git", root / ".git/refs/heads")
    first, second = root.parent / "wt1", root.parent / "wt2"
    git(root, "worktree", "add", "-q", "-b", "one", str(first))
    wait_for(lambda: loops.added == [first], 5)
    assert watched_dirs([root / ".git"]) == (
        root / ".git", root / ".git/refs/heads", root / ".git/worktrees", root / ".git/worktrees/wt1"
    )
    git(root, "worktree", "add", "-q", "-b", "two", str(second))  # (the watch of the entries, started anew)
    wait_for(lambda: loops.added == [first, second], 5)


def test_without_the_watch_only_the_looks_see_it(loops_of: list[Loops]) -> None:
    """The control: the same loops without ``GitDirWatch`` register nothing before their next look."""
    root = repo()
    loops = Loops(root, watch=False)
    loops_of.append(loops)
    git(root, "worktree", "add", "-q", "-b", "one", str(root.parent / "wt1"))
    with pytest.raises(AssertionError):
        wait_for(lambda: loops.added, 2)
    loops.worktrees.wake()
    wait_for(lambda: loops.added == [root.parent / "wt1"], 5)


class CountedWatch(WorktreeWatch):
    """A ``WorktreeWatch`` that counts how often it read the worktree folders."""

    reads = 0

    def _worktrees(self, common_dir: Path) -> tuple[Path, ...]:
        self.reads += 1
        return super()._worktrees(common_dir)


def test_while_the_folders_are_watched_an_unwoken_step_reads_them_not_and_a_deleted_directory_is_still_seen() -> None:
    """Unwoken (nothing changed in a git directory), the loop only looks whether each checkout's
    directory is there: it reads no worktree folder once a second, and a checkout whose
    directory was deleted (not by git: nothing wakes it) is dropped at its next step."""
    root = repo()
    wt = root.parent / "wt1"
    git(root, "worktree", "add", "-q", "-b", "one", str(wt))
    rts = [RepoRuntime.create(root), RepoRuntime.create(wt)]
    dropped: list[Path] = []
    watch = CountedWatch(lambda: list(rts), set, lambda p: None, lambda rt: dropped.append(rt.root),
                         interval_s=0.01, watched=lambda: True, full_look_s=600)  # fmt: skip
    watch.wake()
    assert watch.step()  # woken: the folders are read
    assert watch.reads == 1
    for _ in range(20):
        assert watch.step()
    assert watch.reads == 1  # 20 unwoken steps, nothing read
    watch.wake()
    assert watch.step()
    assert watch.reads == 2
    shutil.rmtree(wt)
    assert watch.step()
    assert dropped == [wt]


def test_while_the_folders_are_not_watched_every_step_reads_them() -> None:
    """The control: with the watch of the git directories down, each step reads the folders."""
    root = repo()
    rts = [RepoRuntime.create(root)]
    watch = CountedWatch(lambda: list(rts), set, lambda p: None, lambda rt: None, interval_s=0.01,
                         watched=lambda: False, full_look_s=600)  # fmt: skip
    for _ in range(5):
        assert watch.step()
    assert watch.reads == 5


def test_the_watch_is_live_once_it_watches_and_wakes_on_a_commit(loops_of: list[Loops]) -> None:
    """A commit writes into the watched git directory (``COMMIT_EDITMSG``, the index): the watch
    wakes its listeners (co-change's loop among them: ``CheckoutOps._git_changed``)."""
    root = repo()
    loops = Loops(root)
    loops_of.append(loops)
    wait_for(lambda: loops.git_dirs.live, 5)
    woken: list[int] = []
    loops.git_dirs._wake = lambda: woken.append(1)
    (root / "a.py").write_text("x = 2\n")
    git(root, "commit", "-q", "-am", "b")
    wait_for(lambda: woken, 5)
