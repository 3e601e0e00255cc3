"""What git's history says about files, for knowledge staleness: who last changed each line
(``blame``), which commits touched a file (``commits``), what changed since a commit
(``changed_since``), a file's bytes at a commit (``blobs``). Read-only, always through
``gitinfo.run_git`` (``--no-optional-locks``); answers are cached per HEAD.

Every method returns empty answers outside git, or when git fails (the caller then treats
the working tree as the only version: the file's modification time stands in for the commit).

Paths in and out are relative to the registered directory, which may be a folder inside the
working tree (``GitPlace.prefix``): git runs in that folder (a pathspec is relative to it),
prints paths from it (``--relative``, which also leaves out the files beside it) and is asked
for ``<commit>:<prefix><path>`` where it names a file at a commit.
"""

from __future__ import annotations

import hashlib
import logging
import re
import subprocess
from collections.abc import Iterable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from graphmemd.ingest.gitinfo import git_place, head_commit, run_git
from graphmemd.ingest.gitparse import (
    BlameLine,
    LoggedCommit,
    ancestors,
    changes_since,
    parse_blame,
    parse_log_names,
    parse_name_status,
)

logger = logging.getLogger(__name__)

_TIMEOUT = 30.0
#: ``git blame`` processes run at once by ``blame_all``
BLAME_AT_ONCE = 2
#: a full commit id (SHA-1 or SHA-256), or its first parent: a name that never moves
_FIXED = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})\^?$")


def fixed_commit(commit: str) -> bool:
    """Whether ``commit`` names the same commit for ever (a full id, not ``HEAD`` or a branch)."""
    return _FIXED.match(commit) is not None


class GitHistory:
    """One repository's history, queried lazily and cached until HEAD moves. ``ids`` and
    ``blames``: where answers that never change are kept beyond this instance (see the
    module doc); each instance keeps its own otherwise."""

    def __init__(
        self,
        root: Path,
        *,
        ids: MutableMapping[tuple[str, str], str | None] | None = None,
        blames: MutableMapping[tuple[str, str, str], dict[int, BlameLine]] | None = None,
    ) -> None:
        self.root = root
        self._kept_ids = ids
        self._kept_blames = blames
        place = git_place(root)
        self.head = head_commit(root)
        self._prefix = place.prefix if place is not None else ""
        self._blame: dict[str, dict[int, BlameLine]] = {}
        self._log: dict[str, list[tuple[str, int]]] = {}
        self._timeline: list[LoggedCommit] | None = None
        self._position: dict[str, int] = {}
        self._since: dict[str, list[tuple[str, str, str]]] = {}
        self._dirty: set[str] | None = None
        #: git processes started (for the log)
        self.calls = 0
        self._ids: dict[tuple[str, str], str | None] = {}
        self._contents: dict[str, bytes] = {}

    @property
    def enabled(self) -> bool:
        """Whether the repository is a git repository with a commit."""
        return bool(self.head)

    def _run(self, *args: str) -> str | None:
        self.calls += 1
        return self._text(*args)

    def _text(self, *args: str) -> str | None:
        """What git prints for ``args`` (None: it failed); counts no call (a thread may run it)."""
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
            self.blame_all([path])
            got = self._blame[path]
        return got

    def blame_all(self, paths: Iterable[str]) -> None:
        """Blame the files ``paths`` not blamed yet (``blame`` then answers from them), up to
        ``BLAME_AT_ONCE`` git processes at a time: a knowledge pass needs the blame of each
        file its units are in and of each code file they name, each a git process of its own
        (0.05-0.3 s each on click, one after the other before)."""
        if not self.enabled:
            return
        todo: list[tuple[str, tuple[str, str, str] | None]] = []
        for path in dict.fromkeys(paths):
            if path in self._blame:
                continue
            key, got = None, None
            if self._kept_blames is not None and (digest := self._digest(path)) is not None:
                key = (self.head, path, digest)
                got = self._kept_blames.get(key)
            if got is not None:
                self._blame[path] = got
            else:
                todo.append((path, key))
        if not todo:
            return
        self.calls += len(todo)
        args = [("blame", "--porcelain", "-w", "--", path) for path, _ in todo]
        if len(todo) == 1:
            texts = [self._text(*args[0])]
        else:  # (threads only wait for their git: the answers are kept on this thread)
            with ThreadPoolExecutor(max_workers=BLAME_AT_ONCE, thread_name_prefix="gm-blame") as pool:
                texts = list(pool.map(lambda a: self._text(*a), args))
        for (path, key), text in zip(todo, texts, strict=True):
            got = self._blame[path] = parse_blame(text) if text else {}
            if self._kept_blames is not None and key is not None and self._digest(path) == key[2]:
                self._kept_blames[key] = got  # (the file did not change while git read it)

    def _digest(self, path: str) -> str | None:
        """The digest of the working file ``path`` (None: unreadable)."""
        try:
            return hashlib.blake2b((self.root / path).read_bytes(), digest_size=16).hexdigest()
        except OSError:
            return None

    def timeline(self) -> list[LoggedCommit]:
        """Every commit reachable from HEAD with the files it changed, newest first (one
        ``git log`` per pass: per-file logs and changes since a commit are read from it)."""
        if self._timeline is None:
            fmt = "--format=%x00%H%x09%ct%x09%P"
            text = self._run(
                "-c", "core.quotePath=false", "log", "--topo-order", fmt, "--name-status", "-M", "--relative"
            )  # fmt: skip
            self._timeline = parse_log_names(text) if text else []
            self._position = {c.commit: i for i, c in enumerate(self._timeline)}
            for c in self._timeline:
                for _, old, new in c.changes:
                    for p in {old, new}:
                        self._log.setdefault(p, []).append((c.commit, c.time))
        return self._timeline

    def commits(self, path: str) -> list[tuple[str, int]]:
        """(commit, committer time) of the commits that touched ``path``, newest first."""
        if not self.enabled:
            return []
        self.timeline()
        return self._log.get(path, [])

    def recent_commits(self, path: str, limit: int) -> list[str]:
        """The newest ``limit`` commits that touched ``path``, newest first (one ``git log``
        limited to the file, for a caller that needs no whole-history timeline)."""
        if not self.enabled or limit <= 0:
            return []
        text = self._run("log", f"-n{limit}", "--format=%H", "--", path)
        return [line for line in (text or "").split("\n") if line]

    def dirty(self) -> set[str]:
        """Tracked files whose working-tree content differs from HEAD."""
        if self._dirty is None:
            text = self._run("diff", "--relative", "--name-only", "-z", "HEAD") if self.enabled else None
            self._dirty = {p for p in (text or "").split("\0") if p}
        return self._dirty

    def changed_since(self, commit: str) -> list[tuple[str, str, str]]:
        """(status, old path, new path) of every file that differs between ``commit`` and
        the working tree (renames paired): the commits since, then what is not committed."""
        got = self._since.get(commit)
        if got is None:
            timeline = self.timeline() if self.enabled else []
            if commit in self._position:
                got = changes_since(timeline, ancestors(timeline, self._position, commit))
            else:  # not on HEAD's history (a rebased-away commit): ask git
                args = ("diff", "--relative", "--name-status", "-z", "-M", commit, "HEAD")
                text = self._run(*args) if self.enabled else None
                got = parse_name_status(text) if text else []
            seen = {old for _, old, _ in got} | {new for _, _, new in got}
            got += [("M", p, p) for p in sorted(self.dirty() - seen)]
            self._since[commit] = got
        return got

    def blob_ids(self, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """The blob id of ``path`` at ``commit`` for each (commit, path) (None: not there):
        many commits share a version, which is then read and parsed once."""
        wanted = list(dict.fromkeys(wanted))
        todo = [w for w in wanted if w not in self._ids]
        kept = self._kept_ids
        if kept is not None and todo:
            for w in todo:
                if w in kept:
                    self._ids[w] = kept[w]
            todo = [w for w in todo if w not in self._ids]
        if todo and self.enabled:
            out = self._cat_file("--batch-check", [f"{c}:{self._prefix}{p}" for c, p in todo])
            lines = out.decode("utf-8", "replace").split("\n") if out is not None else []
            for key, line in zip(todo, lines, strict=False):
                head = line.split(" ")
                self._ids[key] = head[0] if len(head) == 3 and head[1] == "blob" else None
                if kept is not None and fixed_commit(key[0]):
                    kept[key] = self._ids[key]
        return {w: self._ids.get(w) for w in wanted}

    def contents(self, ids: Iterable[str]) -> dict[str, bytes]:
        """The bytes of each blob id (ids git does not have are left out)."""
        ids = list(dict.fromkeys(ids))
        todo = [i for i in ids if i not in self._contents]
        if todo and self.enabled:
            out = self._cat_file("--batch", todo) or b""
            pos = 0
            for blob in todo:
                end = out.find(b"\n", pos)
                if end < 0:
                    break
                header = out[pos:end].split(b" ")
                pos = end + 1
                if len(header) == 3 and header[1] == b"blob":
                    size = int(header[2])
                    self._contents[blob] = out[pos : pos + size]
                    pos += size + 1
        return {i: self._contents[i] for i in ids if i in self._contents}

    def blobs(self, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], bytes | None]:
        """The bytes of ``path`` at ``commit`` for each (commit, path) (None: not there)."""
        ids = self.blob_ids(wanted)
        got = self.contents(i for i in ids.values() if i is not None)
        return {k: got.get(i) if i is not None else None for k, i in ids.items()}

    def _cat_file(self, mode: str, names: list[str]) -> bytes | None:
        self.calls += 1
        try:
            asked = "".join(f"{n}\n" for n in names).encode()
            proc = run_git(self.root, "cat-file", mode, timeout=_TIMEOUT, stdin=asked)
        except (OSError, subprocess.TimeoutExpired) as exc:
            logger.warning("git cat-file failed in %s: %s", self.root, exc)
            return None
        return proc.stdout
