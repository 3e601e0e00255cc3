"""What git's history says about files, for knowledge staleness: who last changed each line
(``blame``), which commits touched a file (``commits``), what changed since a commit
(``changed_since``), a file's bytes at a commit (``blobs``). Read-only, always through
``gitinfo.run_git`` (``--no-optional-locks``); answers are cached per HEAD.

Every method returns empty answers outside git, or when git fails (the caller then treats
the working tree as the only version: the file's modification time stands in for the commit).
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from graphmemd.ingest.gitinfo import git_command, head_commit, run_git
from graphmemd.ingest.gitparse import BlameLine, parse_blame, parse_log, parse_name_status

logger = logging.getLogger(__name__)

_TIMEOUT = 30.0


class GitHistory:
    """One repository's history, queried lazily and cached until HEAD moves."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.head = head_commit(root)
        self._blame: dict[str, dict[int, BlameLine]] = {}
        self._log: dict[str, list[tuple[str, int]]] = {}
        self._since: dict[str, list[tuple[str, str, str]]] = {}
        self._dirty: set[str] | None = None
        self._blobs: dict[tuple[str, str], bytes | None] = {}

    @property
    def enabled(self) -> bool:
        """Whether the repository is a git repository with a commit."""
        return bool(self.head)

    def _run(self, *args: str) -> str | None:
        try:
            out = run_git(self.root, *args, timeout=_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            logger.warning("git %s failed in %s: %s", args[0], self.root, exc)
            return None
        if out.returncode != 0:
            return None
        return out.stdout.decode("utf-8", errors="replace")

    def blame(self, path: str) -> dict[int, BlameLine]:
        """The commit of each line of the working-tree file (empty: untracked, or no git)."""
        if not self.enabled:
            return {}
        got = self._blame.get(path)
        if got is None:
            text = self._run("blame", "--porcelain", "-w", "--", path)
            got = self._blame[path] = parse_blame(text) if text else {}
        return got

    def commits(self, path: str) -> list[tuple[str, int]]:
        """(commit, committer time) of the commits that touched ``path``, newest first."""
        if not self.enabled:
            return []
        got = self._log.get(path)
        if got is None:
            text = self._run("log", "--format=%H%x09%ct", "--", path)
            got = self._log[path] = parse_log(text) if text else []
        return got

    def dirty(self) -> set[str]:
        """Tracked files whose working-tree content differs from HEAD."""
        if self._dirty is None:
            text = self._run("diff", "--name-only", "-z", "HEAD") if self.enabled else None
            self._dirty = {p for p in (text or "").split("\0") if p}
        return self._dirty

    def changed_since(self, commit: str) -> list[tuple[str, str, str]]:
        """(status, old path, new path) of every file that differs between ``commit`` and
        the working tree (renames paired)."""
        got = self._since.get(commit)
        if got is None:
            text = self._run("diff", "--name-status", "-z", "-M", commit) if self.enabled else None
            got = self._since[commit] = parse_name_status(text) if text else []
        return got

    def blobs(self, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], bytes | None]:
        """The bytes of ``path`` at ``commit`` for each (commit, path) (None: not there)."""
        wanted = list(dict.fromkeys(wanted))
        todo = [w for w in wanted if w not in self._blobs]
        if todo and self.enabled:
            self._read_blobs(todo)
        return {w: self._blobs.get(w) for w in wanted}

    def _read_blobs(self, todo: list[tuple[str, str]]) -> None:
        request = "".join(f"{c}:{p}\n" for c, p in todo).encode()
        try:
            proc = subprocess.run(
                git_command(self.root, "cat-file", "--batch"),
                input=request,
                capture_output=True,
                timeout=_TIMEOUT,
                check=False,
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            logger.warning("git cat-file failed in %s: %s", self.root, exc)
            return
        out, pos = proc.stdout, 0
        for key in todo:
            end = out.find(b"\n", pos)
            if end < 0:
                break
            header = out[pos:end].split(b" ")
            pos = end + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                self._blobs[key] = out[pos : pos + size]
                pos += size + 1
            else:
                self._blobs[key] = None
