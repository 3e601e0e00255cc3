"""The data set of ``bench_recall.py``: notes and tasks from a real git history, by ``ast``.

Independent of graphmem: which functions a commit changed is computed here with Python's
``ast`` on the file before and after the commit (not graphmem's parser, not line ranges).

* The history is split at a date: the split commit is the last first-parent commit before it;
  "before" is every commit reachable from the split, "after" every commit reachable from HEAD
  but not from the split (``git log --no-merges split..HEAD``).
* Source files: ``.py`` files outside tests, docs, examples and benchmarks (``is_source``).
* A commit's changed functions: every ``def`` (functions and methods, nested ones too) whose
  code differs between the two versions (``ast.dump`` of the definition with its nested
  definitions replaced by their names, so a change inside a nested function is that
  function's change, not its parent's), or that the commit added. Formatting and comments
  are not changes (``ast`` drops them); docstrings and decorators are.
* Notes: the last ``MAX_NOTES`` non-merge commits before the split that changed 1 to
  ``MASS_REFACTOR`` functions in source files (more: a mass refactor, skipped) and at least
  one of them still exists at the split; text = subject + the first ``BODY_LINES`` lines of
  the body (git trailers dropped); anchors = the changed functions that still exist at the
  split, as ``path::qualname`` with paths as they are called at the split.
* Tasks: the non-merge commits after the split that changed at least 2 source files that
  exist at the split; their changed functions, mapped back onto the split's paths.

Qualnames follow graphmem's naming (``Class.method``, ``outer.inner``; definitions under ``if``
or ``try`` keep their enclosing definition's prefix; the n-th repeat of a qualname in a file
is ``name~n``), so a note's anchors can be saved through the client as they are.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

#: Notes: at most this many commits, the most recent before the split.
MAX_NOTES = 800
#: A commit that changed more functions than this is a mass refactor: no note.
MASS_REFACTOR = 20
#: Lines of the commit body that join the subject in a note's text.
BODY_LINES = 3

_EXCLUDED_DIRS = frozenset(
    {"test", "tests", "testing", "typing_tests", "doc", "docs", "example", "examples", "bench", "benchmarks"}
)
_EXCLUDED_FILES = frozenset({"conftest.py", "setup.py", "noxfile.py"})
_TRAILER = re.compile(r"^[A-Za-z][\w-]*(-by|-By)?:\s|^(Closes|Fixes|Refs|See|Co-authored-by)\b", re.IGNORECASE)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def is_source(path: str) -> bool:
    """A library source file: ``.py`` outside tests, docs, examples and benchmarks."""
    p = PurePosixPath(path)
    if p.suffix != ".py" or p.name in _EXCLUDED_FILES:
        return False
    if p.name.startswith("test_") or p.name.endswith("_test.py"):
        return False
    return not any(part in _EXCLUDED_DIRS for part in p.parts[:-1])


def git(repo: Path, *args: str, check: bool = True) -> str:
    """The output of one git command in ``repo`` (decoded leniently)."""
    out = subprocess.run(["git", "--no-optional-locks", "-C", str(repo), *args], capture_output=True, check=check)
    return out.stdout.decode("utf-8", "replace")


# ----------------------------------------------------------------------------- functions by ast


def _shape(node: ast.AST, root: ast.AST | None = None) -> str:
    """``ast.dump`` of a definition, its nested definitions replaced by their names (no line numbers)."""
    if root is None:
        root = node
    if node is not root and isinstance(node, _DEFS):
        return f"<def {node.name}>"
    parts = [type(node).__name__]
    for _name, value in ast.iter_fields(node):
        if isinstance(value, list):
            parts.append("[" + ",".join(_shape(v, root) if isinstance(v, ast.AST) else repr(v) for v in value) + "]")
        elif isinstance(value, ast.AST):
            parts.append(_shape(value, root))
        else:
            parts.append(repr(value))
    return "(" + " ".join(parts) + ")"


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    return any(
        (isinstance(d, ast.Name) and d.id == "overload") or (isinstance(d, ast.Attribute) and d.attr == "overload")
        for d in node.decorator_list
    )


def functions(source: bytes | None) -> dict[str, str]:
    """qualname -> shape of every function/method definition (classes only prefix names)."""
    if not source:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    out: dict[str, str] = {}
    seen: Counter[tuple[str, bool]] = Counter()

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DEFS) and _is_overload(child):
                continue  # graphmem names the stubs name~overloadN and the implementation name
            if isinstance(child, _DEFS):
                q = f"{prefix}{child.name}"
                is_class = isinstance(child, ast.ClassDef)
                seen[(q, is_class)] += 1
                if seen[(q, is_class)] > 1:
                    q = f"{q}~{seen[(q, is_class)]}"
                if not is_class:
                    out[q] = _shape(child)
                visit(child, q + ".")
            elif isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                visit(child, prefix)

    visit(tree, "")
    return out


def changed_functions(before: bytes | None, after: bytes | None) -> set[str]:
    """Qualnames (in ``after``) of the functions that differ from ``before`` or are new."""
    old, new = functions(before), functions(after)
    return {q for q, shape in new.items() if old.get(q) != shape}


# ----------------------------------------------------------------------------- git reading


class Blobs:
    """``git cat-file --batch`` in one process, by object name; function tables cached by blob."""

    def __init__(self, repo: Path) -> None:
        self.p = subprocess.Popen(
            ["git", "--no-optional-locks", "-C", str(repo), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._tables: dict[str, dict[str, str]] = {}

    def get(self, name: str) -> bytes | None:
        """The object's content (``sha`` or ``rev:path``), None when missing."""
        assert self.p.stdin is not None
        assert self.p.stdout is not None
        self.p.stdin.write(f"{name}\n".encode())
        self.p.stdin.flush()
        head = self.p.stdout.readline().split()
        if len(head) < 3 or head[1] == b"missing":
            return None
        return self.p.stdout.read(int(head[2]) + 1)[:-1]

    def functions(self, blob: str) -> dict[str, str]:
        """``functions`` of a blob (empty for the null object)."""
        if not blob or set(blob) == {"0"}:
            return {}
        table = self._tables.get(blob)
        if table is None:
            table = self._tables[blob] = functions(self.get(blob))
            if len(self._tables) > 4096:
                self._tables.clear()
        return table

    def close(self) -> None:
        """End the git process."""
        if self.p.stdin:
            self.p.stdin.close()
        self.p.wait()


@dataclass(frozen=True)
class FileChange:
    """One file of a commit: status letter, old and new path, old and new blob."""

    status: str
    old_path: str
    new_path: str
    old_blob: str
    new_blob: str


@dataclass(frozen=True)
class Commit:
    """A non-merge commit with its file changes (``git log --raw -M``)."""

    sha: str
    time: int
    subject: str
    body: str
    changes: tuple[FileChange, ...]

    def source_changes(self) -> list[FileChange]:
        """The changes to source files (``is_source`` of the new path, or of the old for a deletion)."""
        return [c for c in self.changes if is_source(c.new_path or c.old_path)]


def _raw_line(line: str) -> FileChange | None:
    meta, _, paths = line[1:].partition("\t")
    fields = meta.split()
    if len(fields) < 5:
        return None
    status = fields[4][:1]
    names = paths.split("\t")
    old = names[0]
    new = names[1] if len(names) > 1 else names[0]
    if status == "D":
        new = ""
    if status == "A":
        old = ""
    return FileChange(status, old, new, fields[2], fields[3])


def log(repo: Path, rev_range: str) -> list[Commit]:
    """Non-merge commits of ``rev_range`` (newest first) with their raw file changes."""
    raw = git(repo, "log", "--no-merges", "-M", "--raw", "--no-abbrev", "--format=%x00%H%x1f%ct%x1f%s%x1f%b%x1e",
              rev_range)
    out: list[Commit] = []
    for rec in raw.split("\x00")[1:]:
        head, _, rest = rec.partition("\x1e")
        parts = head.split("\x1f")
        if len(parts) < 4:
            continue
        changes = [fc for line in rest.splitlines() if line.startswith(":") and (fc := _raw_line(line))]
        out.append(Commit(parts[0].strip(), int(parts[1] or 0), parts[2].strip(), parts[3].strip(), tuple(changes)))
    return out


def note_text(c: Commit) -> str:
    """Subject and the first ``BODY_LINES`` lines of the body (trailers dropped)."""
    body = [ln.strip() for ln in c.body.splitlines() if ln.strip() and not _TRAILER.match(ln.strip())]
    return "\n".join([c.subject, *body[:BODY_LINES]])


# ----------------------------------------------------------------------------- the data set


@dataclass
class Note:
    """One note: text and anchors (``path::qualname`` at the split); ``id`` once saved."""

    text: str
    anchors: list[str]
    sha: str
    time: int
    id: str = ""

    @property
    def files(self) -> set[str]:
        """The files its anchors are in."""
        return {a.partition("::")[0] for a in self.anchors}


@dataclass
class Task:
    """A later commit: its subject, the source files it changed (split paths, existing at the
    split) and the functions it changed per file (qualnames, existing at the split)."""

    sha: str
    subject: str
    files: list[str]
    functions: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class DataSet:
    """What one history gives: the split, the notes, the tasks and the past commits."""

    name: str
    split: str
    split_time: int
    notes: list[Note]
    tasks: list[Task]
    past: list[Commit]  # every non-merge commit before the split, newest first
    alias: dict[str, str]  # old path -> path at the split
    skipped_mass: int = 0


def rename_alias(commits: list[Commit]) -> dict[str, str]:
    """old path -> path at the newest commit, from the renames of ``commits`` (newest first)."""
    alias: dict[str, str] = {}
    for c in commits:
        for fc in c.changes:
            if fc.status == "R" and fc.old_path != fc.new_path:
                alias[fc.old_path] = alias.get(fc.new_path, fc.new_path)
    return alias


def _split_functions(repo: Path, blobs: Blobs, split: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", split).splitlines():
        if is_source(path):
            out[path] = set(functions(blobs.get(f"{split}:{path}")))
    return out


def _commit_functions(blobs: Blobs, c: Commit) -> Iterator[tuple[str, set[str]]]:
    for fc in c.source_changes():
        if fc.status == "D":
            continue
        old, new = blobs.functions(fc.old_blob), blobs.functions(fc.new_blob)
        changed = {q for q, shape in new.items() if old.get(q) != shape}
        yield fc.new_path, changed


def build(repo: Path, name: str, split: str, max_notes: int = MAX_NOTES) -> DataSet:
    """Notes and tasks of ``repo`` split at the commit ``split`` (see the module docstring)."""
    past = log(repo, split)
    later = log(repo, f"{split}..HEAD")
    alias = rename_alias(past)
    back: dict[str, str] = {}  # path after the split -> path at the split
    for c in reversed(later):
        for fc in c.changes:
            if fc.status == "R":
                back[fc.new_path] = back.get(fc.old_path, fc.old_path)
    blobs = Blobs(repo)
    try:
        at_split = _split_functions(repo, blobs, split)
        notes: list[Note] = []
        mass = 0
        for c in past:
            if len(notes) >= max_notes:
                break
            per_file = list(_commit_functions(blobs, c))
            n_changed = sum(len(qs) for _p, qs in per_file)
            if n_changed > MASS_REFACTOR:
                mass += 1
                continue
            anchors = sorted(
                f"{alias.get(p, p)}::{q}" for p, qs in per_file for q in qs if q in at_split.get(alias.get(p, p), ())
            )
            if anchors:
                notes.append(Note(note_text(c), anchors, c.sha, c.time))
        tasks: list[Task] = []
        for c in reversed(later):
            files = [back.get(fc.new_path or fc.old_path, fc.new_path or fc.old_path) for fc in c.source_changes()]
            files = sorted({f for f in files if f in at_split})
            if len(files) < 2:
                continue
            funcs: dict[str, set[str]] = {}
            for p, qs in _commit_functions(blobs, c):
                sp = back.get(p, p)
                kept = qs & at_split.get(sp, set())
                if kept:
                    funcs.setdefault(sp, set()).update(kept)
            tasks.append(Task(c.sha, c.subject, files, funcs))
        split_time = int(git(repo, "log", "-1", "--format=%ct", split).strip() or 0)
        return DataSet(name, split, split_time, notes, tasks, past, alias, mass)
    finally:
        blobs.close()


def split_commit(repo: Path, date: str) -> str:
    """The last first-parent commit of HEAD before ``date`` (``YYYY-MM-DD``)."""
    sha = git(repo, "rev-list", "-1", "--first-parent", f"--before={date}", "HEAD").strip()
    if not sha:
        raise SystemExit(f"{repo}: no commit before {date}")
    return sha


def default_split_date(repo: Path, after: int) -> str:
    """The date that leaves ``after`` non-merge commits of HEAD after it (the newest ones)."""
    times = [int(t) for t in git(repo, "log", "--no-merges", "--format=%ct", "HEAD").split()]
    if len(times) <= after:
        raise SystemExit(f"{repo}: only {len(times)} non-merge commits")
    import datetime

    t = times[after - 1]
    return datetime.datetime.fromtimestamp(t, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
