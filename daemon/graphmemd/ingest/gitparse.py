"""Parsers of git's machine-readable output (pure: text in, records out).

* ``parse_blame``: ``git blame --porcelain`` -> the commit and committer time of every line
  (lines not committed yet have the all-zero commit: ``UNCOMMITTED``);
* ``parse_log``: ``git log --format=%H%x09%ct`` -> (commit, time) pairs;
* ``parse_name_status``: ``git diff --name-status -z -M`` -> (status, old path, new path);
* ``parse_status``: ``git status --porcelain=v1 -z`` -> the paths that differ from HEAD;
* ``gitfile_target``: a ``.git`` file (a linked worktree's, a submodule's) -> the git
  directory it names; ``GitPlace``: where a registered directory sits in its repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

UNCOMMITTED: Final = "0" * 40

#: a linked worktree's entry in its common directory's ``worktrees/`` (its own git directory,
#: resolved) and that entry's stamp (``gitinfo.entry_stamp``): the same for a worktree moved
#: with ``git worktree move``, another for one removed and added again under the same name
WorktreeEntry = tuple[Path, tuple[int, int]]


@dataclass(frozen=True, slots=True)
class BlameLine:
    """The commit that last changed one line, and that commit's committer time."""

    commit: str
    time: int

    @property
    def committed(self) -> bool:
        """Whether the line is committed (not a working-tree change)."""
        return self.commit != UNCOMMITTED


@dataclass(frozen=True, slots=True)
class GitPlace:
    """Where a registered directory sits in git. It may be the top of a working tree or any
    folder inside one (the README's ``fixtures/repos/python`` in a clone of graphmem): git
    answers with paths relative to ``top`` where graphmem's paths are relative to the
    registered directory, ``prefix`` apart."""

    #: the working tree's top directory (the one holding ``.git``)
    top: Path
    #: this working tree's own git directory (its HEAD and index)
    git_dir: Path
    #: the git directory every worktree of the repository shares
    common_dir: Path
    #: the registered directory relative to ``top``: "" at the top, else POSIX ending in "/"
    prefix: str = ""

    def from_top(self, path: str) -> str | None:
        """A path as git prints it from the top, relative to the registered directory
        (None: outside it)."""
        return path[len(self.prefix) :] if path.startswith(self.prefix) else None


def gitfile_target(text: str) -> str | None:
    """The git directory a ``.git`` file names (``gitdir: <path>``; None: not such a file)."""
    first = text.strip()
    return first.split(":", 1)[1].strip() or None if first.startswith("gitdir:") else None


def parse_status(text: str) -> set[str]:
    """Every path of ``git status --porcelain=v1 -z`` (relative to the top): modified,
    added, deleted, untracked, and both sides of a rename or copy."""
    dirty: set[str] = set()
    fields = text.split("\0")
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        dirty.add(entry[3:])
        if entry[0] in "RC" and i < len(fields):  # a rename or copy: the next field is where it came from
            dirty.add(fields[i])
            i += 1
    return dirty


def parse_blame(text: str) -> dict[int, BlameLine]:
    """Each final line number (1-based) of a ``git blame --porcelain`` output, with its commit."""
    times: dict[str, int] = {}
    out: dict[int, BlameLine] = {}
    current = ""
    pending: list[tuple[int, int]] = []  # (first final line, count) of the current header
    for line in text.split("\n"):
        if not line or line.startswith("\t"):
            continue
        head = line.split(" ")
        if len(head[0]) == 40 and all(c in "0123456789abcdef" for c in head[0]) and len(head) >= 3:
            current = head[0]
            count = int(head[3]) if len(head) >= 4 else 1
            pending.append((int(head[2]), count))
            for first, n in pending:
                for k in range(n):
                    out[first + k] = BlameLine(current, times.get(current, 0))
            pending = [(int(head[2]), count)] if current not in times else []
        elif head[0] == "committer-time" and len(head) == 2 and current:
            times[current] = int(head[1])
            for first, n in pending:
                for k in range(n):
                    out[first + k] = BlameLine(current, times[current])
            pending = []
    return out


def parse_log(text: str) -> list[tuple[str, int]]:
    """(commit, committer time) per line of ``git log --format=%H%x09%ct``, newest first."""
    out: list[tuple[str, int]] = []
    for line in text.splitlines():
        sha, _, t = line.partition("\t")
        if len(sha) == 40 and t.strip().isdigit():
            out.append((sha, int(t)))
    return out


def parse_name_status(text: str) -> list[tuple[str, str, str]]:
    """(status letter, old path, new path) per entry of ``git diff --name-status -z -M``;
    the paths are equal except for renames and copies."""
    parts = text.split("\0")
    out: list[tuple[str, str, str]] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][0]
        if status in "RC" and i + 2 < len(parts):
            out.append((status, parts[i + 1], parts[i + 2]))
            i += 3
        elif i + 1 < len(parts):
            out.append((status, parts[i + 1], parts[i + 1]))
            i += 2
        else:
            break
    return out


@dataclass(frozen=True, slots=True)
class LoggedCommit:
    """One commit of ``git log --topo-order --format=%x00%H%x09%ct%x09%P --name-status -M``:
    its time, its parents and the files it changed, as (status letter, old path, new path)."""

    commit: str
    time: int
    changes: tuple[tuple[str, str, str], ...]
    parents: tuple[str, ...] = ()


def parse_log_names(text: str) -> list[LoggedCommit]:
    """The commits of a ``git log --topo-order --format=%x00%H%x09%ct%x09%P --name-status -M``
    output, as listed (children before parents); paths are taken as printed (run git with
    ``core.quotePath=false``)."""
    out: list[LoggedCommit] = []
    for block in text.split("\0")[1:]:
        lines = block.split("\n")
        sha, t, parents = [*lines[0].split("\t"), "", ""][:3]
        if len(sha) != 40 or not t.strip().isdigit():
            continue
        changes: list[tuple[str, str, str]] = []
        for line in lines[1:]:
            parts = line.split("\t")
            if len(parts) == 2 and parts[0]:
                changes.append((parts[0][0], parts[1], parts[1]))
            elif len(parts) == 3 and parts[0][:1] in ("R", "C"):
                changes.append((parts[0][0], parts[1], parts[2]))
        out.append(LoggedCommit(sha, int(t), tuple(changes), tuple(parents.split())))
    return out


def ancestors(timeline: list[LoggedCommit], index: dict[str, int], commit: str) -> set[str]:
    """``commit`` and every commit it descends from."""
    seen = {commit}
    todo = [commit]
    while todo:
        i = index.get(todo.pop())
        if i is None:
            continue
        for p in timeline[i].parents:
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def changes_since(timeline: list[LoggedCommit], before: set[str]) -> list[tuple[str, str, str]]:
    """(status, path then, path now) of every file the commits not in ``before`` (the commit
    and its ancestors) changed, parents first, renames followed: ``D`` deleted (the path now
    is the old one), ``R`` renamed, ``M`` changed in place. Files added since are left out."""
    now_of: dict[str, str | None] = {}  # path at that commit -> path now (None: deleted)
    name_then: dict[str, str] = {}  # path now -> path at that commit ("" added since)
    for c in reversed(timeline):  # parents before children
        if c.commit in before:
            continue
        for status, old, new in c.changes:
            then = name_then.pop(old, old) if status in "RD" else name_then.get(old, old)
            if status == "A" or status == "C":
                name_then[new] = ""
            elif not then:
                if status == "R":
                    name_then[new] = ""
            elif status == "R":
                name_then[new] = then
                now_of[then] = new
            elif status == "D":
                now_of[then] = None
            else:
                now_of.setdefault(then, old)
    out: list[tuple[str, str, str]] = []
    for then, now in sorted(now_of.items()):
        if now is None:
            out.append(("D", then, then))
        else:
            out.append(("R" if now != then else "M", then, now))
    return out
