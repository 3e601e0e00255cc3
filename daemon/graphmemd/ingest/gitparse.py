"""Parsers of git's machine-readable output (pure: text in, records out).

* ``parse_blame``: ``git blame --porcelain`` -> the commit and committer time of every line
  (lines not committed yet have the all-zero commit: ``UNCOMMITTED``);
* ``parse_log``: ``git log --format=%H%x09%ct`` -> (commit, time) pairs;
* ``parse_name_status``: ``git diff --name-status -z -M`` -> (status, old path, new path).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

UNCOMMITTED: Final = "0" * 40


@dataclass(frozen=True, slots=True)
class BlameLine:
    """The commit that last changed one line, and that commit's committer time."""

    commit: str
    time: int

    @property
    def committed(self) -> bool:
        """Whether the line is committed (not a working-tree change)."""
        return self.commit != UNCOMMITTED


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
