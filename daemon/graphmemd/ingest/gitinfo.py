"""What git says about a repository: where it sits (``git_place``: the working tree around a
registered directory, which may be a folder inside it), HEAD commit and branch (read from
``.git`` directly), dirtiness, uncommitted paths, last commits and worktrees; paths in and out
are relative to the registered directory.

git runs only through ``run_git``, which always passes ``--no-optional-locks`` (and sets
``GIT_OPTIONAL_LOCKS=0``): without it ``git status`` refreshes the index under
``.git/index.lock`` and a user's own ``git commit`` or ``checkout`` fails at random with
"Unable to create '.git/index.lock': File exists" while the daemon runs."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import subprocess
from collections.abc import Collection
from pathlib import Path

from graphmemd.ingest.gitparse import GitPlace, WorktreeEntry, gitfile_target, parse_status

logger = logging.getLogger(__name__)


#: registered directory -> (its place, the ``.git`` it was read from, that entry's inode and
#: mtime): a ``.git`` file (a linked worktree's) and its ``commondir`` are read once
_places: dict[Path, tuple[GitPlace, Path, tuple[int, int]]] = {}


def git_place(root: Path) -> GitPlace | None:
    """Where ``root`` sits in git (None: not in a git working tree). Found as git finds it:
    the nearest ``.git`` at ``root`` or above it (a directory holding ``HEAD``, or a file
    naming one), so a folder inside a repository is in that repository. One ``stat`` per
    level between ``root`` and its top per call (the watcher and every index pass ask):
    what was read from a ``.git`` is kept while that entry does not change."""
    for level in (root, *root.parents):
        dot = level / ".git"
        try:
            st = dot.stat()
        except OSError:
            continue
        key = (st.st_ino, st.st_mtime_ns)
        cached = _places.get(root)
        if cached is not None and cached[1] == dot and cached[2] == key:
            return cached[0]
        git_dir = _read_dot_git(dot, is_dir=stat.S_ISDIR(st.st_mode))
        if git_dir is None:
            if stat.S_ISDIR(st.st_mode):
                continue  # not a git directory (git goes on looking above too)
            return None  # a ``.git`` file naming nothing: git stops there with an error
        rel = root.relative_to(level).as_posix()
        place = GitPlace(level, git_dir, _common_dir(git_dir), "" if rel == "." else rel + "/")
        _places[root] = (place, dot, key)
        return place
    return None


def working_tree_common_dir(directory: Path) -> Path | None:
    """The common git directory of the working tree whose top is ``directory`` (a ``.git``
    directory or file in it), resolved; None when ``directory`` holds no ``.git``. Costs one
    failed ``stat`` for the usual directory that holds none."""
    dot = directory / ".git"
    try:
        st = dot.stat()
    except OSError:
        return None
    git_dir = _read_dot_git(dot, is_dir=stat.S_ISDIR(st.st_mode))
    return _common_dir(git_dir).resolve() if git_dir is not None else None


def _read_dot_git(dot: Path, *, is_dir: bool) -> Path | None:
    """The git directory a ``.git`` entry is or names (None: neither)."""
    if is_dir:
        return dot if (dot / "HEAD").is_file() else None
    try:
        target = gitfile_target(dot.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    if target is None:
        return None
    p = Path(target)
    return p if p.is_absolute() else (dot.parent / p).resolve()


def _head(root: Path) -> tuple[Path, str] | None:
    """(git directory, what its HEAD file says), or None outside git."""
    place = git_place(root)
    if place is None:
        return None
    try:
        return place.git_dir, (place.git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def head_commit(root: Path) -> str:
    """The commit HEAD points to, or "" when ``root`` is not a git repository."""
    return _commit(_head(root))


def head_info(root: Path) -> tuple[str, str]:
    """(``head_branch``, ``head_commit``) of ``root``, HEAD read once."""
    found = _head(root)
    return _branch(found[1] if found is not None else ""), _commit(found)


def _commit(found: tuple[Path, str] | None) -> str:
    """The commit a HEAD read by ``_head`` points to ("" for none)."""
    if found is None:
        return ""
    gd, head = found
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
    """True when tracked files under ``root`` differ from HEAD (``git status --porcelain -uno
    -- .``: a folder inside a repository is not dirty by the files beside it)."""
    if git_place(root) is None or shutil.which("git") is None:
        return False
    try:
        out = run_git(root, "status", "--porcelain", "-uno", "--", ".", timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git status failed in %s: %s", root, exc)
        return False
    return out.returncode == 0 and bool(out.stdout.strip())


def git_command(root: Path, *args: str) -> list[str]:
    """The argv of a git command in ``root``: never takes git's optional locks."""
    return ["git", "--no-optional-locks", "-C", str(root), *args]


def run_git(
    root: Path, *args: str, timeout: float = 5.0, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git read-only in ``root`` (``--no-optional-locks``, ``GIT_OPTIONAL_LOCKS=0``),
    ``stdin`` written to it (none: it reads nothing)."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(
        git_command(root, *args),
        capture_output=True,
        timeout=timeout,
        check=False,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        env=env,
    )


def head_branch(root: Path) -> str:
    """The branch checked out at ``root`` ("" when detached or not a git repository)."""
    return _branch((_head(root) or (root, ""))[1])


def _branch(head: str) -> str:
    """The branch a HEAD file's text names ("" when detached)."""
    return head.removeprefix("ref:").strip().removeprefix("refs/heads/") if head.startswith("ref:") else ""


def is_ancestor(root: Path, commit: str, head: str) -> bool:
    """Whether ``commit`` is an ancestor of (or equal to) ``head`` in ``root``'s repository
    (``git merge-base --is-ancestor``); False when git cannot tell (an unknown commit)."""
    if not commit or not head:
        return False
    if commit == head:
        return True
    try:
        out = run_git(root, "merge-base", "--is-ancestor", commit, head)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git merge-base failed in %s: %s", root, exc)
        return False
    return out.returncode == 0


def refs_signature(common_dir: Path) -> tuple[str, ...]:
    """What changes when a branch, tag or remote-tracking ref is made or deleted (not when one
    moves: a commit does not change it): the name of each loose ref under ``refs/heads``,
    ``refs/remotes`` and ``refs/tags``, and the mtime and size of ``packed-refs`` (git
    rewrites it to delete a packed ref). Read from the filesystem: no git process."""
    out: list[str] = []
    with contextlib.suppress(OSError):
        st = os.stat(common_dir / "packed-refs")
        out.append(f"packed-refs {st.st_mtime_ns} {st.st_size}")
    for top in ("heads", "remotes", "tags"):
        for base, _dirs, files in os.walk(common_dir / "refs" / top):
            out.extend(os.path.join(base, f) for f in files if not f.endswith(".lock"))
    return tuple(sorted(out))


def on_some_ref(root: Path, commit: str) -> bool:
    """Whether a branch, a remote-tracking branch or a tag of ``root``'s repository holds
    ``commit`` (``git for-each-ref --contains``); False when none does (its branch deleted
    unmerged) or git does not know the commit; True when git cannot be asked."""
    try:
        out = run_git(root, "for-each-ref", f"--contains={commit}", "--count=1", "--format=%(refname)",
                      "refs/heads", "refs/remotes", "refs/tags")  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git for-each-ref failed in %s: %s", root, exc)
        return True
    return out.returncode == 0 and bool(out.stdout.strip())


def _initializing(entry: Path) -> bool:
    """Whether ``git worktree add`` is still creating this worktree: it holds a ``locked``
    file saying "initializing" until its files are checked out (a lock the user put, with
    its own reason or none, does not say that)."""
    try:
        return (entry / "locked").read_text(encoding="utf-8", errors="replace").strip() == "initializing"
    except OSError:
        return False


def worktree_roots(common_dir: Path) -> list[Path]:
    """The working trees of the repository whose common git directory is ``common_dir``: the
    main one (when the repository is not bare) and every linked one whose ``gitdir`` file
    still names a ``.git`` file that exists (what ``git worktree list`` reads) and that
    ``git worktree add`` has finished checking out."""
    return [root for root, _entry in worktree_entries(common_dir)]


def worktree_entries(common_dir: Path) -> list[tuple[Path, Path | None]]:
    """``worktree_roots`` with each one's entry in ``common_dir``'s ``worktrees/`` folder (its
    own git directory; None for the main working tree)."""
    roots: list[tuple[Path, Path | None]] = []
    if common_dir.name == ".git" and common_dir.parent.is_dir():
        roots.append((common_dir.parent, None))
    try:
        entries = sorted((common_dir / "worktrees").iterdir())
    except OSError:
        entries = []
    for entry in entries:
        try:
            dot_git = Path((entry / "gitdir").read_text(encoding="utf-8", errors="replace").strip())
        except OSError:
            continue
        if _initializing(entry):
            continue  # ``git worktree add`` is still checking its files out
        if dot_git.is_absolute() and dot_git.is_file():
            roots.append((dot_git.parent, entry))
    return roots


def entry_stamp(entry: Path) -> tuple[int, int] | None:
    """What tells one linked worktree's entry (its own git directory in the common one's
    ``worktrees/``) from another of the same name: the inode and mtime of its ``commondir``
    file, which ``git worktree add`` writes once and ``git worktree move`` keeps (the move
    rewrites ``gitdir`` only). None when unreadable."""
    try:
        st = (entry / "commondir").stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def worktree_entry(entry: Path) -> WorktreeEntry | None:
    """A linked worktree's entry (its own git directory), resolved, with its ``entry_stamp``;
    None when its stamp cannot be read."""
    stamp = entry_stamp(entry)
    if stamp is None:
        return None
    try:
        return entry.resolve(), stamp
    except OSError:
        return entry, stamp


#: More paths than this are asked about with one status of the whole tree.
_PATHSPEC_MAX = 200


def uncommitted_paths(root: Path, paths: Collection[str], timeout: float = 5.0) -> frozenset[str]:
    """Which of ``paths`` (relative to ``root``) differ from HEAD in the working tree: modified,
    added, deleted, renamed or untracked. Outside a git repository nothing is committed: all
    of them. When git fails, none (the change is then told as committed at HEAD)."""
    if not paths:
        return frozenset()
    place = git_place(root)
    if place is None or shutil.which("git") is None:
        return frozenset(paths)
    spec = sorted(paths) if len(paths) <= _PATHSPEC_MAX else ["."]
    try:
        out = run_git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *spec, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git status failed in %s: %s", root, exc)
        return frozenset()
    if out.returncode != 0:
        return frozenset()
    # (git prints them from the top of the working tree, whatever folder it runs in)
    tops = parse_status(out.stdout.decode("utf-8", "surrogateescape"))
    dirty = {p for p in map(place.from_top, tops) if p is not None}
    return frozenset(p for p in paths if p in dirty)


def last_commits(root: Path, paths: Collection[str], timeout: float = 5.0) -> dict[str, str]:
    """For each of ``paths``, the last commit (at HEAD) that touched it; a path git knows no
    commit of is left out."""
    out: dict[str, str] = {}
    if git_place(root) is None or shutil.which("git") is None:
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
