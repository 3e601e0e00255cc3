#!/usr/bin/env python3
"""Semantic staleness benchmark: replay real history under a running daemon and judge every
stale mark against an independent oracle.

The history is ``../shared/corpora/click.bundle`` (cloned into a temp dir at run time). The
last ``--commits`` first-parent commits (default 400) are checked out one after the other
in a working tree a real daemon watches. Every function and method carries one observation
(observations are created for functions as they appear). After each commit, once the daemon
has indexed every changed ``.py`` file and reports the index current, each observation's
status is compared with the oracle:

* The oracle is Python's own ``ast`` (a code path separate from the daemon's tree-sitter
  fingerprints): a function changed when ``ast.dump`` of its definition (decorators,
  signature, body, nested code), with every docstring removed, differs from the dump when
  the observation was last anchored; it was removed when its qualified name is gone; it was
  renamed/moved when it is gone and a new function with the same dump (name aside) appeared.
  A change of the signature's annotations only (the dumps differ, the dumps with every
  parameter and return annotation removed do not) is graded "annotations": such a function's
  note is expected suspect or fresh, not stale (the daemon grades annotation edits apart,
  and equivalent spellings alike), so it counts neither as changed nor as unchanged; a stale
  mark on it is a false stale ("annotations").
* A stale observation is then confirmed (re-anchored to the new code), one whose function
  is gone is deleted, and new functions get an observation: every commit is judged alone.

Printed: precision and recall of STALE against the oracle's "changed or removed", false
stale marks per reason (body, signature, removed, renamed, annotations) and those on format-only commits
(every changed file has the same ``ast`` with docstrings removed), rename/move carry-over
(the observation's anchor follows the function), late marks (a status that changed after
the index was reported current), the 1-min load average. ``--json`` prints one object.
Targets: precision and recall >= 0.99, no false stale on format-only commits.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from benchlib import CORPORA, DaemonProc, short_home
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.types import EventKind, Observation, ObservationStatus

BUNDLE = CORPORA / "click.bundle"
NO_MATCH = "zzzz-no-such-term-zzzz"

# ----------------------------------------------------------------------------- oracle (ast)

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _strip_docstrings(tree: ast.AST) -> None:
    """Remove the leading docstring of every function and class (iteratively)."""
    for node in ast.walk(tree):
        if isinstance(node, _DEFS) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = node.body[1:]


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "overload":
            return True
    return False


@dataclass(frozen=True, slots=True)
class Func:
    """One function as the oracle sees it: full dump, the dump with its name blanked, and the
    dump with its signature's annotations removed."""

    dump: str
    shape: str
    plain: str


def _without_annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """``ast.dump`` of a function with its parameters' and return annotations removed (those
    of its body stay: there they are code)."""
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
    kept = [a.annotation for a in every]
    returns = node.returns
    for a in every:
        a.annotation = None
    node.returns = None
    try:
        return ast.dump(node)
    finally:
        for a, annotation in zip(every, kept, strict=True):
            a.annotation = annotation
        node.returns = returns


def oracle_functions(source: bytes) -> dict[str, Func] | None:
    """qualname -> Func for every function/method of a module (None: Python cannot parse it).

    Qualnames follow the daemon's documented rules: dotted through classes and functions;
    duplicates of one (qualname, kind) get ``~2``, ``~3`` in source order; ``@overload``
    stubs get ``~overload1``, ``~overload2`` ... and leave the plain name to the
    implementation."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    _strip_docstrings(tree)
    out: dict[str, Func] = {}
    seen: Counter[tuple[str, str]] = Counter()
    stubs: Counter[tuple[str, str]] = Counter()
    # (node, prefix, parent is a class); a stack instead of recursion
    todo: list[tuple[ast.AST, str, bool]] = [(n, "", False) for n in reversed(tree.body)]
    while todo:
        node, prefix, in_class = todo.pop()
        if isinstance(node, _DEFS):
            base = f"{prefix}.{node.name}" if prefix else node.name
            is_func = not isinstance(node, ast.ClassDef)
            kind = ("method" if in_class else "function") if is_func else "class"
            key = (base, kind)
            if is_func and _is_overload(node):  # type: ignore[arg-type]
                stubs[key] += 1
                qual = f"{base}~overload{stubs[key]}"
            else:
                seen[key] += 1
                qual = base if seen[key] == 1 else f"{base}~{seen[key]}"
            if is_func:
                dump = ast.dump(node)
                name = node.name
                node.name = "_"
                out[qual] = Func(dump, ast.dump(node), _without_annotations(node))  # type: ignore[arg-type]
                node.name = name
            children = list(ast.iter_child_nodes(node))
            todo.extend((c, qual, not is_func) for c in reversed(children))
        else:
            todo.extend((c, prefix, False) for c in reversed(list(ast.iter_child_nodes(node))))
    return out


def module_dump(source: bytes) -> str | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    _strip_docstrings(tree)
    return ast.dump(tree)


# ----------------------------------------------------------------------------- git


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--no-optional-locks", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def changed_py(repo: Path, old: str, new: str) -> list[tuple[str, str]]:
    """(status letter, path) of the .py files that differ between two commits (renames split)."""
    out: list[tuple[str, str]] = []
    for line in git(repo, "diff", "--no-renames", "--name-status", old, new).splitlines():
        status, _, path = line.partition("\t")
        if path.endswith(".py"):
            out.append((status[:1], path))
    return out


# ----------------------------------------------------------------------------- bookkeeping


@dataclass
class Tally:
    commits: int = 0
    format_only_commits: int = 0
    evaluations: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    #: annotation-only changes (oracle): by the note's status then
    annotations: Counter[str] = field(default_factory=Counter)
    false_stale: Counter[str] = field(default_factory=Counter)
    false_stale_format_only: int = 0
    missed: Counter[str] = field(default_factory=Counter)
    renames: int = 0
    renames_carried: int = 0
    late_marks: int = 0
    index_wait_timeouts: int = 0
    unparsable_files: int = 0
    unanchorable: int = 0
    examples: list[str] = field(default_factory=list)


def parse_symbol_id(symbol_id: str) -> tuple[str, str]:
    """``repo:path::qualname#kind`` -> (path, qualname)."""
    rest = symbol_id.split(":", 1)[1]
    path, _, tail = rest.partition("::")
    return path, tail.rsplit("#", 1)[0]


class Indexed:
    """FILE_INDEXED paths, collected from a live event subscription."""

    def __init__(self, client: GraphMem, repo: str) -> None:
        self.seen: Counter[str] = Counter()
        self.cond = threading.Condition()
        self.stream = client.events(repo=repo, kinds=[EventKind.FILE_INDEXED])
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for ev in self.stream:
                with self.cond:
                    self.seen[ev.path] += 1
                    self.cond.notify_all()
        except GraphMemError:
            return

    def mark(self) -> Counter[str]:
        with self.cond:
            return Counter(self.seen)

    def wait(self, before: Counter[str], paths: list[str], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.cond:
            while any(self.seen[p] <= before[p] for p in paths):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(min(left, 0.1))
        return True


class Replay:
    """The replay loop: one daemon, one working tree, the oracle's view of every file."""

    def __init__(self, work: Path, client: GraphMem, repo: str, indexed: Indexed, tally: Tally) -> None:
        self.work = work
        self.c = client
        self.repo = repo
        self.indexed = indexed
        self.t = tally
        self.funcs: dict[str, dict[str, Func]] = {}  # path -> qualname -> Func (parsable files)
        self.modules: dict[str, str | None] = {}  # path -> module dump (None: unparsable)
        self.baseline: dict[str, Func] = {}  # observation id -> the function when anchored
        self.key_of: dict[str, tuple[str, str]] = {}  # observation id -> (path, qualname)

    def load_all(self) -> None:
        for path in git(self.work, "ls-files", "*.py").splitlines():
            self._load(path)

    def _load(self, path: str) -> None:
        data = (self.work / path).read_bytes()
        self.modules[path] = module_dump(data)
        funcs = oracle_functions(data)
        if funcs is None:
            self.t.unparsable_files += 1
            self.funcs.pop(path, None)
        else:
            self.funcs[path] = funcs

    def func(self, key: tuple[str, str]) -> Func | None:
        return self.funcs.get(key[0], {}).get(key[1])

    def observe_new(self) -> None:
        observed = set(self.key_of.values())
        for path, funcs in sorted(self.funcs.items()):
            for qual, fn in funcs.items():
                if (path, qual) in observed:
                    continue
                try:
                    o = self.c.observe(f"note on {qual}", anchors=[f"{path}::{qual}"], repo=self.repo)
                except GraphMemError:
                    self.t.unanchorable += 1
                    continue
                self.baseline[o.id] = fn
                self.key_of[o.id] = (path, qual)

    def step(self, prev: str, cur: str, timeout: float) -> None:
        changes = changed_py(self.work, prev, cur)
        before_keys = {(p, q) for p, fs in self.funcs.items() for q in fs}
        old_modules = {p: self.modules.get(p) for _s, p in changes}
        mark = self.indexed.mark()
        git(self.work, "checkout", "-q", "--detach", cur)
        for status, path in changes:
            if status == "D":
                self.funcs.pop(path, None)
                self.modules.pop(path, None)
            else:
                self._load(path)
        format_only = bool(changes) and all(
            s == "M" and old_modules[p] is not None and old_modules[p] == self.modules.get(p) for s, p in changes
        )
        self.t.commits += 1
        self.t.format_only_commits += format_only
        if changes and not self.indexed.wait(mark, [p for _s, p in changes], timeout):
            self.t.index_wait_timeouts += 1
        deadline = time.monotonic() + timeout
        while not self.c.recall(NO_MATCH, repo=self.repo).freshness.current and time.monotonic() < deadline:
            time.sleep(0.01)
        first = {o.id: o for o in self.c.list(repo=self.repo, limit=0)}
        time.sleep(0.2)
        later = {o.id: o for o in self.c.list(repo=self.repo, limit=0)}
        self.t.late_marks += sum(1 for i, o in first.items() if i in later and later[i].status is not o.status)
        added = {(p, q) for p, fs in self.funcs.items() for q in fs} - before_keys
        self._judge(first, added, format_only, cur)
        self._reset(later)

    def _judge(
        self, observations: dict[str, Observation], added: set[tuple[str, str]], format_only: bool, cur: str
    ) -> None:
        t = self.t
        shapes: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)
        for key in added:
            fn = self.func(key)
            if fn is not None:
                shapes[fn.shape].append(key)
        for oid, base in self.baseline.items():
            o = observations.get(oid)
            key = self.key_of[oid]
            if o is None or (key[0] not in self.funcs and key[0] in self.modules):
                continue  # gone from the daemon, or its file is unparsable now
            stale = o.status is ObservationStatus.STALE
            now = self.func(key)
            if now is None:
                targets = shapes.get(base.shape, [])
                if len(targets) == 1:  # oracle: renamed or moved
                    t.renames += 1
                    anchor = parse_symbol_id(o.anchors[0].symbol_id) if o.anchors and o.anchors[0].symbol_id else None
                    t.renames_carried += anchor == targets[0]
                    continue
                changed = True
            else:
                changed = now.dump != base.dump
                if changed and now.plain == base.plain:  # oracle: annotations only
                    t.annotations[o.status.value] += 1
                    if stale:
                        t.fp += 1
                        t.false_stale["annotations"] += 1
                        if len(t.examples) < 20:
                            t.examples.append(f"false annotations {cur[:8]} {key[0]}::{key[1]}")
                    continue
            t.evaluations += 1
            reason = o.stale_reasons[0].change.value if o.stale_reasons else "none"
            if changed and stale:
                t.tp += 1
            elif changed:
                t.fn += 1
                t.missed["removed" if now is None else "changed"] += 1
                if len(t.examples) < 20:
                    t.examples.append(f"missed {cur[:8]} {key[0]}::{key[1]}")
            elif stale:
                t.fp += 1
                t.false_stale[reason] += 1
                t.false_stale_format_only += format_only
                if len(t.examples) < 20:
                    t.examples.append(f"false {reason} {cur[:8]} {key[0]}::{key[1]}")
            else:
                t.tn += 1

    def _reset(self, observations: dict[str, Observation]) -> None:
        for oid in list(self.baseline):
            o = observations.get(oid)
            if o is None:
                self._forget(oid)
                continue
            anchor = parse_symbol_id(o.anchors[0].symbol_id) if o.anchors and o.anchors[0].symbol_id else None
            fn = self.func(anchor) if anchor else None
            if fn is None or anchor is None:
                with contextlib.suppress(GraphMemError):
                    self.c.delete(oid)
                self._forget(oid)
                continue
            if o.status is ObservationStatus.STALE or o.needs_review:
                self.c.confirm(oid, confirmed_by="bench")
            self.baseline[oid] = fn
            self.key_of[oid] = anchor
        self.observe_new()

    def _forget(self, oid: str) -> None:
        self.baseline.pop(oid, None)
        self.key_of.pop(oid, None)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--bundle", type=Path, default=BUNDLE)
    ap.add_argument("--commits", type=int, default=400, help="first-parent commits to replay (the newest N)")
    ap.add_argument("--skip-newest", type=int, default=0, help="end the window this many commits before HEAD")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the index per commit")
    ap.add_argument(
        "--worktrees",
        type=int,
        default=0,
        help="also register this many worktrees of the replayed repository (left at the first commit): "
        "the notes are then judged in each of them too",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) * 0.7:
        sys.stderr.write(f"warning: the machine is busy (1-min load {load:.2f}); timings are not comparable\n")
    tmp = Path(tempfile.mkdtemp(prefix="gmsem"))
    work = tmp / "click"
    subprocess.run(["git", "clone", "-q", str(args.bundle), str(work)], check=True, capture_output=True)
    history = git(work, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    end = len(history) - max(args.skip_newest, 0)
    window = history[max(end - args.commits - 1, 0) : end]
    git(work, "checkout", "-q", "--detach", window[0])
    worktrees = [tmp / f"wt{k}" for k in range(1, args.worktrees + 1)]
    for wt in worktrees:
        git(work, "worktree", "add", "-q", "--detach", str(wt), window[0])
    tally = Tally()
    started = time.monotonic()
    d = DaemonProc(short_home(), [work, *worktrees])
    try:
        d.wait_ready()
        with d.client(60) as c:
            repo = next(r.id for r in c.list_repos() if r.root == str(work.resolve()))
            indexed = Indexed(d.client(60), repo)
            replay = Replay(work, c, repo, indexed, tally)
            replay.load_all()
            replay.observe_new()
            observed_at_start = len(replay.baseline)
            for prev, cur in itertools.pairwise(window):
                replay.step(prev, cur, args.timeout)
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.home, ignore_errors=True)
    elapsed = time.monotonic() - started
    result = {
        "bundle": str(args.bundle),
        "commits": tally.commits,
        "format_only_commits": tally.format_only_commits,
        "observations_at_start": observed_at_start,
        "evaluations": tally.evaluations,
        "true_stale": tally.tp,
        "false_stale": tally.fp,
        "missed": tally.fn,
        "precision": _ratio(tally.tp, tally.tp + tally.fp),
        "recall": _ratio(tally.tp, tally.tp + tally.fn),
        "false_stale_by_reason": dict(tally.false_stale),
        "false_stale_on_format_only_commits": tally.false_stale_format_only,
        "missed_by_kind": dict(tally.missed),
        "annotation_only_changes_by_status": dict(tally.annotations),
        "renames": tally.renames,
        "renames_carried": tally.renames_carried,
        "rename_carry_over": _ratio(tally.renames_carried, tally.renames),
        "late_marks": tally.late_marks,
        "index_wait_timeouts": tally.index_wait_timeouts,
        "unparsable_files": tally.unparsable_files,
        "unanchorable": tally.unanchorable,
        "worktrees": args.worktrees,
        "seconds": round(elapsed, 1),
        "load_avg_1m_start": round(load, 2),
        "load_avg_1m_end": round(os.getloadavg()[0], 2),
        "examples": tally.examples,
    }
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        for key, value in result.items():
            sys.stdout.write(f"{key:36} {value}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
