"""The shell around ``cochange.py``: runs git, persists each repository's co-change, keeps it current.

* ``CoChangeMiner.mine(root, head)`` / ``.extend(co, root, head)`` run ``git log`` (always with
  ``--no-optional-locks``) and return a new ``CoChange``; a tree that is not a git repository
  (or has no commits) gives None. A repository registered as a folder inside a working tree
  is mined from the commits that touched that folder, with paths relative to it.
* ``CoChangeFiles`` saves one JSON file per repository under ``<data dir>/cochange/`` (written
  to a temp file, fsynced, renamed over: atomic) and loads it back at start.
* ``CoChangeKeeper`` holds the current ``CoChange`` of each repository for retrieval
  (``get(repo_id)``, never blocks on git) and brings it up to date (``refresh(repo_id, root)``:
  load, then extend from the last mined commit when HEAD moved, or mine from scratch when the
  old head is no longer an ancestor). A checkout with nothing mined yet starts from another
  checkout's co-change of the same folder (a worktree, a clone): taken as it is when both
  are at the same commit (no git at all), extended when that one's head is an ancestor of
  this HEAD. ``step(list_repos)`` is one round of a supervised background loop: ``refresh``
  for every ready repository while no index pass runs, then a pause; ``stop()`` ends it.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from graphmem.types import IndexState

from graphmemd.ingest.gitinfo import git_place, head_commit
from graphmemd.retrieval.cochange import DEFAULT_WINDOW, CoChange, CommitChange, parse_log

logger = logging.getLogger(__name__)

#: git's built-in function-context patterns per extension, plus one for JS/TS (git has none).
ATTRIBUTES = """\
*.py diff=python
*.pyi diff=python
*.go diff=golang
*.rs diff=rust
*.java diff=java
*.js diff=gmjs
*.jsx diff=gmjs
*.mjs diff=gmjs
*.cjs diff=gmjs
*.ts diff=gmjs
*.tsx diff=gmjs
"""
JS_FUNCNAME = r"^[ \t]*((export[ \t]+)?(default[ \t]+)?(async[ \t]+)?(function|class|interface|enum|type)[ \t].*)$"
#: Seconds one ``git log`` may take before mining gives up (logged; retried on the next HEAD move).
GIT_TIMEOUT = 120.0
#: How many other checkouts' heads (besides an equal one) are asked whether they are an
#: ancestor of a new checkout's HEAD (one ``git merge-base`` each) before it is mined whole.
MAX_ANCESTOR_TRIES = 3
#: Index states during which no mining starts: a pass (a new worktree's derivation, a
#: restart's load) needs the cores, and ``git log -p`` of a large history takes them.
BUSY_STATES = frozenset({IndexState.INDEXING, IndexState.WARMING})
#: ``git log`` runs at this niceness: a pass that starts while it runs (a worktree added
#: meanwhile) gets the cores first
GIT_NICENESS = 19


class CoChangeMiner:
    """Runs ``git log`` over the first-parent history and parses it (``cochange.parse_log``)."""

    def __init__(self, window: int = DEFAULT_WINDOW, scratch: Path | None = None) -> None:
        self.window = window
        self.scratch = scratch

    def _log(self, root: Path, rev: str, limit: int) -> list[CommitChange] | None:
        """The commits of ``git log`` over ``rev``, parsed while git writes them: the patch
        text of a large history (an initial import is every line of the tree) never sits in
        memory whole. None when git is missing, fails or times out."""
        if shutil.which("git") is None:
            return None
        place = git_place(root)
        # a folder inside a working tree: its commits only, its paths relative to it
        inside = ["--relative", "--", "."] if place is not None and place.prefix else ["--"]
        with tempfile.TemporaryDirectory(prefix="gm-cochange-", dir=self.scratch) as tmp:
            attrs = Path(tmp) / "attributes"
            attrs.write_text(ATTRIBUTES, encoding="utf-8")
            cmd = [
                "git", "--no-optional-locks", "-C", str(root),
                "-c", "core.quotePath=false", "-c", f"core.attributesFile={attrs}",
                "-c", f"diff.gmjs.xfuncname={JS_FUNCNAME}",
                "log", "--first-parent", "--diff-merges=first-parent", "-M", "-p", "-U0",
                "--no-color", "--no-ext-diff", "--no-textconv", "--format=%x00%H %ct",
                f"-n{limit}", rev, *inside,
            ]  # fmt: skip
            with open(Path(tmp) / "stderr", "w+b") as err:
                try:
                    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
                except OSError as exc:
                    logger.warning("co-change: git log failed in %s: %s", root, exc)
                    return None
                with contextlib.suppress(OSError):  # (it may have ended already)
                    os.setpriority(os.PRIO_PROCESS, proc.pid, GIT_NICENESS)
                timer = threading.Timer(GIT_TIMEOUT, proc.kill)
                timer.start()
                try:
                    assert proc.stdout is not None
                    with io.TextIOWrapper(proc.stdout, encoding="utf-8", errors="replace") as lines:
                        commits = parse_log(lines)
                    code = proc.wait()
                finally:
                    timer.cancel()
                    if proc.poll() is None:
                        proc.kill()
                        proc.wait()
                err.seek(0)
                stderr = err.read().decode(errors="replace").strip()
        if code < 0:
            logger.warning("co-change: git log in %s killed after %g s", root, GIT_TIMEOUT)
            return None
        if code != 0:
            logger.info("co-change: no history in %s: %s", root, stderr[:200])
            return None
        return commits

    def mine(self, root: Path, head: str) -> CoChange | None:
        """The co-change of the ``window`` commits up to ``head``; None without git history."""
        if not head:
            return None
        commits = self._log(root, head, self.window)
        if commits is None:
            return None
        return CoChange.build(head, commits, self.window)

    def extend(self, co: CoChange, root: Path, head: str) -> CoChange | None:
        """``co`` brought forward to ``head``: only the new commits are read when ``co.head`` is
        an ancestor of ``head``; otherwise (rebase, branch switch) everything is mined again."""
        if not head:
            return None
        if head == co.head:
            return co
        if not self.is_ancestor(root, co.head, head):
            return self.mine(root, head)
        commits = self._log(root, f"{co.head}..{head}", self.window)
        if commits is None:
            return None
        return co.extend(head, commits)

    @staticmethod
    def is_ancestor(root: Path, old: str, new: str) -> bool:
        """Whether commit ``old`` is an ancestor of ``new`` in ``root``'s repository (False when git cannot tell)."""
        try:
            out = subprocess.run(
                ["git", "--no-optional-locks", "-C", str(root), "merge-base", "--is-ancestor", old, new],
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return out.returncode == 0


_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class CoChangeFiles:
    """One JSON file per repository: ``<dir>/<repo id>.json``."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory

    def path(self, repo_id: str) -> Path:
        """The JSON file holding ``repo_id``'s co-change (the id made safe for a file name)."""
        return self.dir / f"{_SAFE.sub('-', repo_id)}.json"

    def load(self, repo_id: str) -> CoChange | None:
        """The saved co-change, or None (missing or unreadable: mined again)."""
        try:
            data = json.loads(self.path(repo_id).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.warning("co-change file for %s unreadable, mining again: %s", repo_id, exc)
            return None
        return CoChange.from_json(data)

    def save(self, repo_id: str, co: CoChange) -> None:
        """Write atomically: temp file in the same directory, fsync, rename."""
        self.dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".cochange.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(co.to_json(), f, separators=(",", ":"))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path(repo_id))
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            raise


class RepoLike(Protocol):
    """What the keeper needs of a registered repository."""

    @property
    def id(self) -> str:
        """The repository's id."""

    @property
    def root(self) -> Path:
        """The repository's root directory."""

    @property
    def state(self) -> IndexState:
        """The repository's index state."""

    @property
    def unwritten(self) -> int:
        """Index passes and batches whose store writes are not durable yet."""


class CoChangeKeeper:
    """Each repository's current ``CoChange``, kept up to date off the request path."""

    def __init__(
        self, data_dir: Path, window: int = DEFAULT_WINDOW, interval: float = 2.0, idle_interval: float = 30.0
    ) -> None:
        self.files = CoChangeFiles(data_dir / "cochange")
        self.miner = CoChangeMiner(window, scratch=None)
        #: the pause between rounds while a repository waits for its pass (or its writes)
        self.interval = interval
        #: the pause once every repository was brought to its HEAD, unless woken (``wake``)
        self.idle_interval = idle_interval
        self._woken = threading.Event()
        self._current: dict[str, CoChange] = {}
        #: repository id -> the folder its co-change covers (``GitPlace.prefix``: "" for a top)
        self._prefix: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def get(self, repo_id: str) -> CoChange | None:
        """The co-change retrieval uses now (None: not a git repository, or not mined yet)."""
        with self._lock:
            return self._current.get(repo_id)

    def refresh(self, repo_id: str, root: Path) -> CoChange | None:
        """Bring one repository's co-change to its HEAD (load, extend or mine; save when changed)."""
        head = head_commit(root)
        co = self.get(repo_id)
        if co is None:
            co = self.files.load(repo_id)
        if not head:
            return None
        place = git_place(root)
        prefix = place.prefix if place is not None else ""
        twin = self._twin(repo_id, root, prefix, head) if co is None else None
        if twin is not None and twin.head == head:  # another checkout at this commit: nothing to read
            new: CoChange | None = twin
            try:
                self.files.save(repo_id, twin)
            except OSError as exc:
                logger.warning("co-change for %s not saved: %s", repo_id, exc)
            logger.info("co-change for %s: %d commits up to %s, as another checkout's", repo_id, len(twin), head[:10])
        elif co is not None and co.head == head:
            new = co
        else:
            co = co if co is not None else twin
            new = self.miner.extend(co, root, head) if co is not None else self.miner.mine(root, head)
            if new is not None:
                try:
                    self.files.save(repo_id, new)
                except OSError as exc:
                    logger.warning("co-change for %s not saved: %s", repo_id, exc)
                logger.info("co-change for %s: %d commits up to %s", repo_id, len(new), head[:10])
        if new is not None:
            with self._lock:
                self._current[repo_id] = new
                self._prefix[repo_id] = prefix
        return new

    def _twin(self, repo_id: str, root: Path, prefix: str, head: str) -> CoChange | None:
        """Another checkout's co-change of the same folder to start ``repo_id``'s from: one at
        ``head`` itself, else one whose head is an ancestor of ``head`` (``extend`` reads only
        the commits between); None when there is none (mined whole). The same commit has the
        same first-parent history in every checkout and clone."""
        with self._lock:
            others = [co for rid, co in self._current.items() if rid != repo_id and self._prefix.get(rid) == prefix]
        same = next((co for co in others if co.head == head), None)
        if same is not None:
            return same
        heads = {co.head: co for co in others}
        for old in list(heads)[:MAX_ANCESTOR_TRIES]:
            if self.miner.is_ancestor(root, old, head):
                return heads[old]
        return None

    def forget(self, repo_id: str) -> None:
        """Drop ``repo_id``'s co-change from memory (its file stays on disk)."""
        with self._lock:
            self._current.pop(repo_id, None)
            self._prefix.pop(repo_id, None)

    # ------------------------------------------------------------------ background

    def step(self, list_repos: Callable[[], Iterable[RepoLike]]) -> bool:
        """One round for a supervised loop: refresh every repository whose index pass is
        done and durable (so neither the indexing nor the store's bulk write competes with
        mining), none while any repository's pass runs (``BUSY_STATES``: a worktree added
        meanwhile is derived without ``git log`` beside it), then wait ``interval`` seconds
        while one waits for that, else ``idle_interval`` unless woken (``wake``: a git
        directory changed). Returns False once ``stop`` was called."""
        repos = list(list_repos())
        waiting = any(rt.state in BUSY_STATES for rt in repos)
        for rt in [] if waiting else repos:
            if self._stop.is_set():
                return False
            if rt.state is IndexState.READY and not rt.unwritten:
                self.refresh(rt.id, rt.root)
            else:
                waiting = True
        self._woken.wait(self.interval if waiting else self.idle_interval)
        self._woken.clear()
        return not self._stop.is_set()

    def wake(self) -> None:
        """Start the next round now (a commit, checkout or reset may have moved a HEAD)."""
        self._woken.set()

    def stop(self) -> None:
        """End the loop at its next step."""
        self._stop.set()
        self._woken.set()
