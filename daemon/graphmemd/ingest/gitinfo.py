"""What git says about a repository: HEAD commit (read from .git directly) and dirtiness.

git runs only through ``run_git``, which always passes ``--no-optional-locks`` (and sets
``GIT_OPTIONAL_LOCKS=0``): without it ``git status`` refreshes the index under
``.git/index.lock`` and a user's own ``git commit`` or ``checkout`` fails at random with
"Unable to create '.git/index.lock': File exists" while the daemon runs."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Collection
from pathlib import Path

logger = logging.getLogger(__name__)


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():  # worktree / submodule: "gitdir: <path>"
        try:
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            p = Path(text.split(":", 1)[1].strip())
            return p if p.is_absolute() else (root / p).resolve()
    return None


def head_commit(root: Path) -> str:
    """The commit HEAD points to, or "" when ``root`` is not a git repository."""
    gd = _git_dir(root)
    if gd is None:
        return ""
    try:
        head = (gd / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    if not head.startswith("ref:"):
        return head
    ref = head.split(":", 1)[1].strip()
    for base in (gd, _common_dir(gd)):
        try:
            return (base / ref).read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            pass
        try:
            for line in (base / "packed-refs").read_text(encoding="utf-8", errors="replace").splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1] == ref:
                    return parts[0]
        except OSError:
            pass
    return ""


def _common_dir(gd: Path) -> Path:
    try:
        text = (gd / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return gd
    p = Path(text)
    return p if p.is_absolute() else (gd / p).resolve()


def working_tree_dirty(root: Path, timeout: float = 5.0) -> bool:
    """True when tracked files differ from HEAD (``git status --porcelain -uno``)."""
    if _git_dir(root) is None or shutil.which("git") is None:
        return False
    try:
        out = run_git(root, "status", "--porcelain", "-uno", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git status failed in %s: %s", root, exc)
        return False
    return out.returncode == 0 and bool(out.stdout.strip())


def git_command(root: Path, *args: str) -> list[str]:
    """The argv of a git command in ``root``: never takes git's optional locks."""
    return ["git", "--no-optional-locks", "-C", str(root), *args]


def run_git(root: Path, *args: str, timeout: float = 5.0) -> subprocess.CompletedProcess[bytes]:
    """Run git read-only in ``root`` (``--no-optional-locks``, ``GIT_OPTIONAL_LOCKS=0``)."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(
        git_command(root, *args),
        capture_output=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        env=env,
    )


#: More paths than this are asked about with one status of the whole tree.
_PATHSPEC_MAX = 200


def uncommitted_paths(root: Path, paths: Collection[str], timeout: float = 5.0) -> frozenset[str]:
    """Which of ``paths`` (repository-relative) differ from HEAD in the working tree: modified,
    added, deleted, renamed or untracked. Outside a git repository nothing is committed: all
    of them. When git fails, none (the change is then told as committed at HEAD)."""
    if not paths:
        return frozenset()
    if _git_dir(root) is None or shutil.which("git") is None:
        return frozenset(paths)
    spec = sorted(paths) if len(paths) <= _PATHSPEC_MAX else []
    try:
        out = run_git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *spec, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git status failed in %s: %s", root, exc)
        return frozenset()
    if out.returncode != 0:
        return frozenset()
    dirty: set[str] = set()
    fields = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        dirty.add(entry[3:])
        if entry[0] in "RC":  # a rename or copy: the next field is where it came from
            dirty.add(fields[i])
            i += 1
    return frozenset(p for p in paths if p in dirty)


def last_commits(root: Path, paths: Collection[str], timeout: float = 5.0) -> dict[str, str]:
    """For each of ``paths``, the last commit (at HEAD) that touched it; a path git knows no
    commit of is left out."""
    out: dict[str, str] = {}
    if _git_dir(root) is None or shutil.which("git") is None:
        return out
    for p in sorted(paths):
        try:
            got = run_git(root, "log", "-1", "--format=%H", "--", p, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            logger.warning("git log failed in %s: %s", root, exc)
            continue
        sha = got.stdout.decode("ascii", "replace").strip()
        if got.returncode == 0 and sha:
            out[p] = sha
    return out
