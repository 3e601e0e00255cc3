"""Repository walking: which files of a repository get indexed.

Two pieces:

* :class:`RepoFilter` answers "is this path ignored?" with git semantics for nested
  ``.gitignore`` files, ``.git/info/exclude`` and ``.graphmemignore`` files, plus a set of
  built-in skipped directories. The watcher calls it for every event path, so it caches
  compiled per-directory pattern lists and per-directory verdicts.
* :func:`walk_repo` walks a repository iteratively, in a deterministic order, and yields a
  :class:`WalkedFile` for every file of a known language and a :class:`SkippedFile` for
  every file (or directory) it cannot index, with the reason. It never raises for a bad
  entry inside the tree.

Precedence (highest first), as in git: the ``.gitignore``/``.graphmemignore`` of the
deepest directory containing the path, then those of its parents up to the root, then --
for a registered folder inside a git working tree -- those of the directories above it up
to the top (each pattern relative to its own file's directory, as git reads them), then the
repository's ``info/exclude`` (the common git directory's: a linked worktree shares it),
then the built-in directories. Inside one directory the
``.graphmemignore`` patterns come after the ``.gitignore`` ones, so they win (a
``!build/`` line in a ``.graphmemignore`` re-includes a built-in or git-ignored
directory). Inside one file the last matching pattern wins. As in git, nothing inside an
ignored directory can be re-included. VCS directories (``.git``, ``.hg``, ``.svn``) are
always ignored, and so is a directory below the root that is another working tree of the same
repository (a linked worktree, or the main one: its ``.git`` names the same common git
directory). Those are checkouts of their own: Claude Code, for one, puts its worktrees in
``.claude/worktrees/`` inside the repository. Another repository nested in the tree (a clone,
a submodule) is walked as before. The user's global git excludes file (``core.excludesFile``) is not read.

Binary files (a NUL byte in the first 8 KiB) are *not* detected here: that needs the
file's bytes, which the parse worker reads anyway, so the check is done there
(``graphmemd.ingest.parse_pool``) and costs no extra ``open``/``read`` per file.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import InvalidArgument
from pathspec.patterns.gitignore.base import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from graphmemd.graph.model import Language, SkippedFile
from graphmemd.ingest.gitinfo import git_place, working_tree_common_dir
from graphmemd.ingest.parsing import language_for_path

__all__ = [
    "BUILTIN_IGNORED_DIRS",
    "DEFAULT_MAX_FILE_SIZE",
    "IGNORE_FILE_NAMES",
    "RepoFilter",
    "WalkedDoc",
    "WalkedFile",
    "walk_repo",
]

logger = logging.getLogger(__name__)

DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024

#: Per-directory ignore files, in increasing precedence.
IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".graphmemignore")

#: Directories never indexed unless re-included by a negated pattern (``!build/``).
BUILTIN_IGNORED_DIRS: tuple[str, ...] = (
    "node_modules",
    "vendor",
    "third_party",
    "bower_components",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "dist",
    "build",
    "target",
    "out",
    ".next",
    ".idea",
    ".vscode",
    "*.egg-info",
    ".gradle",
)

#: Version-control directories: always ignored, cannot be re-included.
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})

_INFO_EXCLUDE = ".git/info/exclude"

# pathspec compiles a gitignore pattern to a regex that also matches every path *below* a
# matching directory, marking the directory's slash with this named group. RepoFilter
# checks each path component on its own (a path under an ignored directory is ignored by
# the ancestor check), so it needs "this exact path matches": the marker must be the
# path's final slash, i.e. the path is a directory and the pattern matched it.
_DIR_MARK_GROUP = "(?P<ps_d>/)"
_EXACT_DIR_MARK = "/\\Z"

_MAX_DIR_CACHE = 200_000

#: errno values meaning "there is no such ignore file" (not worth a warning).
_NO_SUCH_FILE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP})


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    include: bool  # True: the pattern ignores; False: a negated pattern re-includes


#: Rules applying inside a directory: (length of the directory's path, its rules), deepest first.
_Chain = tuple[tuple[int, tuple[_Rule, ...]], ...]


@dataclass(frozen=True, slots=True)
class _Outer:
    """The ignore rules from outside the registered directory: when it is a folder inside a git
    working tree, the ignore files of the directories above it up to the top (``chain``, its
    lengths relative to the top, deepest first) and the repository's ``info/exclude``;
    ``prefix`` is the folder relative to the top ("" or ending in ``/``), what a path relative
    to the folder is prefixed with to be matched against them."""

    prefix: str
    chain: _Chain
    exclude: tuple[_Rule, ...]


def _compile_rule(line: str) -> _Rule | None:
    """One gitignore line to a rule matching exact paths (dirs with a trailing ``/``)."""
    try:
        pattern = GitIgnoreSpecPattern(line)
    except GitIgnorePatternError as exc:
        logger.debug("ignoring invalid ignore pattern %r: %s", line, exc)
        return None
    if pattern.include is None or pattern.regex is None:
        return None  # blank line or comment
    source = pattern.regex.pattern
    assert isinstance(source, str)
    return _Rule(re.compile(source.replace(_DIR_MARK_GROUP, _EXACT_DIR_MARK)), pattern.include)


def _compile_lines(lines: list[str]) -> tuple[_Rule, ...]:
    rules = (_compile_rule(line) for line in lines)
    return tuple(rule for rule in rules if rule is not None)


def _match(rules: tuple[_Rule, ...], path: str) -> bool | None:
    """Last matching rule wins: True = ignored, False = re-included, None = no match."""
    for rule in reversed(rules):
        if rule.regex.search(path) is not None:
            return rule.include
    return None


_BUILTIN_RULES = _compile_lines([f"{name}/" for name in BUILTIN_IGNORED_DIRS])


def _read_ignore_file(path: str) -> list[str]:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        if exc.errno in _NO_SUCH_FILE:
            return []
        logger.warning("cannot read ignore file %s: %s", path, exc)
        return []
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="surrogateescape").splitlines()


def _normalize_rel(rel_path: str) -> str | None:
    """POSIX path relative to the root without ``./`` or trailing ``/``; None if it escapes."""
    parts = [p for p in rel_path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    return "/".join(parts)


class RepoFilter:
    """Decides which paths of one repository are ignored. Thread-safe.

    Compiled ignore files are cached per directory and verdicts per directory; call
    :meth:`invalidate` (or :meth:`maybe_invalidate` with any changed path) when an ignore
    file changes, or :meth:`reload` to drop everything.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(os.path.abspath(root))
        self._root_str = str(self.root)
        self._lock = threading.RLock()
        self._rules: dict[str, tuple[_Rule, ...]] = {}
        self._dir_ignored: dict[str, bool] = {}
        self._chains: dict[str, _Chain] = {}
        self._outer: _Outer | None = None
        #: the common git directory of the repository the root is in (None: not in git), once read
        self._common: Path | None = None
        self._common_read = False

    # ------------------------------------------------------------------ cache control

    def reload(self) -> None:
        """Forget every cached ignore file and verdict."""
        with self._lock:
            self._rules.clear()
            self._chains.clear()
            self._dir_ignored.clear()
            self._outer = None
            self._common_read = False

    def invalidate(self, rel_dir: str) -> None:
        """An ignore file in ``rel_dir`` ("" for the root) changed: re-read it on next use."""
        norm = _normalize_rel(rel_dir)
        with self._lock:
            if norm is not None:
                self._rules.pop(norm, None)
            # Chains and verdicts of the whole subtree may change; they are cheap to rebuild.
            self._chains.clear()
            self._dir_ignored.clear()

    @staticmethod
    def is_ignore_file(rel_path: str) -> bool:
        """Whether ``rel_path`` is a file whose change alters what is ignored."""
        norm = _normalize_rel(rel_path)
        if norm is None:
            return False
        return norm == _INFO_EXCLUDE or norm.rpartition("/")[2] in IGNORE_FILE_NAMES

    def maybe_invalidate(self, rel_path: str) -> bool:
        """Invalidate the caches if ``rel_path`` is an ignore file; returns whether it was.

        The watcher calls this for every changed path; on True the caller should rescan the
        directory's subtree (files may have become indexed or ignored).
        """
        if not self.is_ignore_file(rel_path):
            return False
        norm = _normalize_rel(rel_path)
        assert norm is not None
        if norm == _INFO_EXCLUDE:
            with self._lock:
                self._outer = None
                self._dir_ignored.clear()
        else:
            self.invalidate(norm.rpartition("/")[0])
        return True

    # ------------------------------------------------------------------ queries

    def is_ignored(self, rel_path: str, is_dir: bool = False) -> bool:
        """Whether ``rel_path`` (POSIX, relative to the root) is ignored.

        A path inside an ignored directory is ignored. The root itself is never ignored;
        a path escaping the root (``..``) always is.
        """
        norm = _normalize_rel(rel_path)
        if norm is None:
            return True
        if not norm:
            return False
        parent, _, _ = norm.rpartition("/")
        with self._lock:
            if parent and self._dir_is_ignored(parent):
                return True
            return self._leaf_ignored(norm, is_dir)

    def _dir_is_ignored(self, rel_dir: str) -> bool:
        """Verdict for a directory, including its ancestors (cached). Caller holds the lock."""
        cached = self._dir_ignored.get(rel_dir)
        if cached is not None:
            return cached
        # Find the deepest ancestor with a cached verdict, then decide downwards (iterative:
        # directory trees can be deeper than the recursion limit).
        pending = [rel_dir]
        verdict = False
        current = rel_dir.rpartition("/")[0]
        while current:
            cached = self._dir_ignored.get(current)
            if cached is not None:
                verdict = cached
                break
            pending.append(current)
            current = current.rpartition("/")[0]
        if len(self._dir_ignored) + len(pending) > _MAX_DIR_CACHE:
            self._dir_ignored.clear()
        for directory in reversed(pending):
            verdict = verdict or self._leaf_ignored(directory, True)
            self._dir_ignored[directory] = verdict
        return verdict

    def _leaf_ignored(self, rel_path: str, is_dir: bool) -> bool:
        """Verdict for ``rel_path`` assuming none of its ancestor directories is ignored."""
        parent, _, name = rel_path.rpartition("/")
        if is_dir and (name in _VCS_DIRS or self._other_checkout(rel_path)):
            return True
        probe = rel_path + "/" if is_dir else rel_path
        with self._lock:
            verdict = _chain_match(self._chain(parent), probe)
            if verdict is None:
                outer = self._outer_rules()
                full = outer.prefix + probe
                verdict = _chain_match(outer.chain, full)
                if verdict is None:
                    verdict = _match(outer.exclude, full)
        if verdict is not None:
            return verdict
        if is_dir:
            # Built-in patterns are single-component, unanchored: the name alone decides.
            return _match(_BUILTIN_RULES, name + "/") is True
        return False

    def _other_checkout(self, rel_dir: str) -> bool:
        """Whether the directory ``rel_dir`` is the top of another working tree of the root's
        repository (a worktree checked out inside this one)."""
        if not rel_dir:
            return False
        if not self._common_read:
            place = git_place(self.root)
            self._common, self._common_read = (place.common_dir.resolve() if place is not None else None), True
        if self._common is None:
            return False
        return working_tree_common_dir(Path(self._root_str, rel_dir)) == self._common

    def _chain(self, rel_dir: str) -> _Chain:
        """The rules applying inside ``rel_dir``, deepest directory first (cached).

        Each item is (length of the directory's path, its rules); only directories with an
        ignore file appear. Caller holds the lock.
        """
        chain = self._chains.get(rel_dir)
        if chain is not None:
            return chain
        pending = [rel_dir]
        chain = ()
        current = rel_dir
        while current:
            current = current.rpartition("/")[0]
            cached = self._chains.get(current)
            if cached is not None:
                chain = cached
                break
            pending.append(current)
        if len(self._chains) + len(pending) > _MAX_DIR_CACHE:
            self._chains.clear()
        for directory in reversed(pending):
            rules = self._rules_for(directory)
            if rules:
                chain = ((len(directory), rules), *chain)
            self._chains[directory] = chain
        return chain

    def _rules_for(self, rel_dir: str) -> tuple[_Rule, ...]:
        rules = self._rules.get(rel_dir)
        if rules is None:
            rules = _dir_rules(os.path.join(self._root_str, rel_dir) if rel_dir else self._root_str)
            self._rules[rel_dir] = rules
        return rules

    def _outer_rules(self) -> _Outer:
        """The rules from outside the root (``_Outer``), read once until ``reload`` or a change
        of ``.git/info/exclude``. Outside git: the root's own ``.git/info/exclude``, if any."""
        if self._outer is None:
            place = git_place(self.root)
            if place is None:
                exclude = _read_ignore_file(os.path.join(self._root_str, *_INFO_EXCLUDE.split("/")))
                self._outer = _Outer("", (), _compile_lines(exclude))
            else:
                above = _dirs_above(place.prefix)[:-1]  # (the last is the root itself)
                chain = tuple(
                    (len(d), rules)
                    for d in reversed(above)
                    if (rules := _dir_rules(str(place.top / d) if d else str(place.top)))
                )
                exclude = _read_ignore_file(str(place.common_dir / "info" / "exclude"))
                self._outer = _Outer(place.prefix, chain, _compile_lines(exclude))
        return self._outer


def _dir_rules(directory: str) -> tuple[_Rule, ...]:
    """The compiled rules of the ignore files (``IGNORE_FILE_NAMES``, in order) in ``directory``."""
    lines: list[str] = []
    for name in IGNORE_FILE_NAMES:
        lines.extend(_read_ignore_file(os.path.join(directory, name)))
    return _compile_lines(lines)


def _dirs_above(prefix: str) -> list[str]:
    """The top ("") and each directory of ``prefix`` down to it (``a/b/``: "", "a", "a/b")."""
    parts = [p for p in prefix.split("/") if p]
    return ["/".join(parts[:i]) for i in range(len(parts) + 1)]


def _chain_match(chain: _Chain, probe: str) -> bool | None:
    """The verdict of the deepest directory of ``chain`` whose rules match ``probe`` (a path
    relative to the directory the chain's lengths count from), None when none does."""
    for prefix_len, rules in chain:
        verdict = _match(rules, probe[prefix_len + 1 :] if prefix_len else probe)
        if verdict is not None:
            return verdict
    return None


# --------------------------------------------------------------------------- walking


@dataclass(frozen=True, slots=True)
class WalkedFile:
    """A file to index: ``path`` is POSIX and relative to the walked root."""

    path: str
    abs_path: Path
    language: Language
    size: int


@dataclass(frozen=True, slots=True)
class WalkedDoc:
    """A knowledge file (the ``documents`` predicate of ``walk_repo`` chose it)."""

    path: str
    abs_path: Path
    size: int


def _decodable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _printable(name: str) -> str:
    """A file name that failed to decode, with its undecodable bytes shown as ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", errors="backslashreplace")


def _inside(real_path: str, real_root: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def walk_repo(
    root: Path,
    *,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    filter: RepoFilter | None = None,
    under: str = "",
    documents: Callable[[str], object] | None = None,
) -> Iterator[WalkedFile | WalkedDoc | SkippedFile]:
    """Yield the indexable files under ``root`` and the entries that had to be skipped.

    Order: depth first, entries of each directory sorted by name, the files of a
    directory before its subdirectories; directories reached through a symlink are walked
    after the whole real tree (so a link to an already walked directory is recognised as
    a revisit, whatever the names). Only files whose language is known are yielded; other
    files are silently left out. ``SkippedFile`` is yielded for: files over
    ``max_file_size``, unreadable files and directories, broken symlinks, symlinks
    resolving outside the root, symlinked directories that would revisit a directory
    already walked (loops), non-regular files with a known extension, and file or
    directory names that are not valid UTF-8.

    ``under`` (POSIX, relative to ``root``) restricts the walk to that subtree, with the
    same ignore rules and paths still relative to ``root`` (for a directory that appeared
    after the last walk); nothing is yielded if it is ignored, missing or not a directory.

    ``documents`` (a predicate on the relative path) also yields a ``WalkedDoc`` for each
    file of no known language it accepts (knowledge files), with the same ignore rules.

    Raises ``InvalidArgument`` (at the call, not at the first ``next``) if ``root`` is not a
    directory, ``under`` escapes it or ``filter`` belongs to another root.
    """
    root_abs = Path(os.path.abspath(root))
    root_str = str(root_abs)
    try:
        root_stat = os.stat(root_str)
    except OSError as exc:
        raise InvalidArgument(f"cannot walk {root}: {exc.strerror or exc}") from exc
    if not stat.S_ISDIR(root_stat.st_mode):
        raise InvalidArgument(f"cannot walk {root}: not a directory")
    real_root = os.path.realpath(root_str)
    flt = filter if filter is not None else RepoFilter(root_abs)
    if os.path.realpath(flt.root) != real_root:
        raise InvalidArgument(f"filter is for {flt.root}, not for {root}")

    start = _normalize_rel(under)
    if start is None:
        raise InvalidArgument(f"{under!r} is outside the repository")
    return _walk(root_str, real_root, (root_stat.st_dev, root_stat.st_ino), start, flt, max_file_size, documents)


def _walk(
    root_str: str,
    real_root: str,
    root_key: tuple[int, int],
    start: str,
    flt: RepoFilter,
    max_file_size: int,
    documents: Callable[[str], object] | None = None,
) -> Iterator[WalkedFile | WalkedDoc | SkippedFile]:
    seen: set[tuple[int, int]] = {root_key}
    if start:
        if flt.is_ignored(start, is_dir=True):
            return
        # The subtree's ancestors count as walked, so a link back up is seen as a loop.
        parts = start.split("/")
        for depth in range(1, len(parts) + 1):
            try:
                st = os.stat(os.path.join(root_str, *parts[:depth]))
            except OSError:
                return
            if not stat.S_ISDIR(st.st_mode):
                return
            seen.add((st.st_dev, st.st_ino))
        if not _inside(os.path.realpath(os.path.join(root_str, start)), real_root):
            yield SkippedFile(start, "symlink points outside the repository")
            return
    stack: list[str] = [start]
    linked_dirs: deque[str] = deque()

    while stack or linked_dirs:
        if not stack:
            rel_link = linked_dirs.popleft()
            skipped = _check_linked_dir(root_str, rel_link, real_root, seen)
            if skipped is not None:
                yield skipped
                continue
            stack.append(rel_link)
        rel_dir = stack.pop()
        abs_dir = os.path.join(root_str, rel_dir) if rel_dir else root_str
        try:
            with os.scandir(abs_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield SkippedFile(rel_dir or ".", f"cannot read directory: {exc.strerror or exc}")
            continue

        subdirs: list[str] = []
        for entry in entries:
            item = _visit(entry, rel_dir, real_root, flt, max_file_size, seen, subdirs, linked_dirs, documents)
            if item is not None:
                yield item
        stack.extend(reversed(subdirs))


def _check_linked_dir(root_str: str, rel_link: str, real_root: str, seen: set[tuple[int, int]]) -> SkippedFile | None:
    abs_link = os.path.join(root_str, rel_link)
    real = os.path.realpath(abs_link)
    if not _inside(real, real_root):
        return SkippedFile(rel_link, "symlink points outside the repository")
    try:
        st = os.stat(abs_link)
    except OSError as exc:
        return SkippedFile(rel_link, f"cannot stat symlinked directory: {exc.strerror or exc}")
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return SkippedFile(rel_link, "symlinked directory revisits a directory already walked (loop)")
    seen.add(key)
    return None


def _visit(
    entry: os.DirEntry[str],
    rel_dir: str,
    real_root: str,
    flt: RepoFilter,
    max_file_size: int,
    seen: set[tuple[int, int]],
    subdirs: list[str],
    linked_dirs: deque[str],
    documents: Callable[[str], object] | None = None,
) -> WalkedFile | WalkedDoc | SkippedFile | None:
    """Handle one directory entry; directories are appended to ``subdirs``/``linked_dirs``."""
    name = entry.name
    try:
        is_link = entry.is_symlink()
        is_dir = entry.is_dir()  # follows symlinks; False for a broken one
    except OSError as exc:
        return SkippedFile(_join(rel_dir, _printable(name)), f"cannot stat: {exc.strerror or exc}")

    language = None
    if not is_dir:
        language = language_for_path(name)
        if language is None and (documents is None or not documents(_join(rel_dir, name))):
            return None  # not a file we index: no need to look at ignore rules

    if not _decodable(name):
        shown = _join(rel_dir, _printable(name))
        if flt._leaf_ignored(shown, is_dir):
            return None
        return SkippedFile(shown, "name is not valid UTF-8")

    rel = _join(rel_dir, name)
    if flt._leaf_ignored(rel, is_dir):
        return None

    if is_dir:
        if is_link:
            linked_dirs.append(rel)
            return None
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            return SkippedFile(rel, f"cannot stat directory: {exc.strerror or exc}")
        key = (st.st_dev, st.st_ino)
        if key in seen:
            return SkippedFile(rel, "directory already walked (bind mount loop)")
        seen.add(key)
        subdirs.append(rel)
        return None

    abs_path = entry.path
    if is_link:
        real = os.path.realpath(abs_path)
        if not os.path.exists(real):
            return SkippedFile(rel, "broken symlink")
        if not _inside(real, real_root):
            return SkippedFile(rel, "symlink points outside the repository")
    try:
        st = entry.stat()  # follows symlinks
    except OSError as exc:
        return SkippedFile(rel, f"cannot stat: {exc.strerror or exc}")
    if not stat.S_ISREG(st.st_mode):
        return SkippedFile(rel, "not a regular file")
    if st.st_size > max_file_size:
        return SkippedFile(rel, f"file is {st.st_size} bytes, over the {max_file_size}-byte limit")
    if not os.access(abs_path, os.R_OK):
        return SkippedFile(rel, "permission denied")
    if language is None:
        return WalkedDoc(rel, Path(abs_path), st.st_size)
    return WalkedFile(rel, Path(abs_path), language, st.st_size)


def _join(rel_dir: str, name: str) -> str:
    return f"{rel_dir}/{name}" if rel_dir else name
