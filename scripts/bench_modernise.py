#!/usr/bin/env python3
"""Modernisation benchmark: ruff's pyupgrade (``UP``) fixes, committed under a live daemon
with a note on every function, must mark nothing (issue 41).

For each corpus (``../shared/corpora/click.bundle``, ``attrs.bundle`` and ``marshmallow.bundle``, cloned into a
temp dir), each of three release commits and each ``--target-version`` (``py38`` and the
newest, ``py312``), a real ``graphmemd`` watches a working tree checked out at the release;
every function and method gets an observation (Python's own ``ast`` lists them). Then:

1. ``ruff check --isolated --select UP --fix`` (the *safe* fixes) is committed: the target
   is **0 stale, 0 suspect**. Every note that is marked anyway is listed with its reason
   and the ``UP`` rules ruff reported inside the function (``--output-format json``).
2. The marks are confirmed (re-anchored); ``--unsafe-fixes`` are applied and committed:
   reported separately, per rule (what each rule did to the notes in functions it touched).

Printed per run and in total: notes, files changed, stale/suspect after each pass, the
rules ruff fired (``--statistics``), residual cases, and the 1-min load average.
``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench_semantic import NO_MATCH, Indexed, changed_py, git, oracle_functions
from benchlib import CORPORA, DaemonProc, load_average, short_home
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.types import Observation, ObservationStatus

#: corpus -> (label, first-parent commit) of three releases: old (Python 2 era), middle, recent
RELEASES = {
    "click": (("7.0", "a936b99"), ("8.0.0a1", "ebcc7cb"), ("8.2.0", "041aa81")),
    "attrs": (("21.3.0", "dd26edd"), ("22.2.0", "a9960de"), ("25.1.0", "fbff14e")),
    "marshmallow": (("3.0.0b17", "996ae03"), ("3.12.1", "6522565"), ("3.23.0", "5e71a04")),
}
TARGETS = ("py38", "py312")
RUFF = str(Path(sys.executable).with_name("ruff"))


@dataclass
class Pass:
    """One commit of fixes: the notes it marked and why."""

    files: int = 0
    stale: int = 0
    suspect: int = 0
    rules: dict[str, int] = field(default_factory=dict)  # ruff --statistics: rule -> fixes offered
    marked: list[dict[str, object]] = field(default_factory=list)  # one per marked note
    by_rule: dict[str, Counter[str]] = field(default_factory=dict)  # rule -> status -> notes


def ruff(work: Path, target: str, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [RUFF, "check", "--isolated", "--select", "UP", "--target-version", target, "--exit-zero", *extra, "."]
    return subprocess.run(args, cwd=work, capture_output=True, text=True, check=False)


def violations(work: Path, target: str, unsafe: bool) -> list[dict[str, object]]:
    """The fixable UP violations (path, rule, row, applicability) before a pass."""
    extra = ["--output-format", "json"] + (["--unsafe-fixes"] if unsafe else [])
    out = json.loads(ruff(work, target, *extra).stdout or "[]")
    return [
        {
            "path": os.path.relpath(v["filename"], work),
            "rule": v["code"],
            "row": v["location"]["row"],
            "applicability": v["fix"]["applicability"],
        }
        for v in out
        if v.get("fix") and v.get("code")
    ]


def statistics(work: Path, target: str, unsafe: bool) -> dict[str, int]:
    extra = ["--statistics", "--output-format", "json"] + (["--unsafe-fixes"] if unsafe else [])
    data = json.loads(ruff(work, target, *extra).stdout or "[]")
    return {d["code"]: d["count"] for d in data if d.get("fixable") and d.get("code")}


def function_lines(source: bytes) -> dict[str, tuple[int, int]]:
    """qualname (dotted, no ``~n`` suffixes) -> (first line, last line) of each function."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, tuple[int, int]] = {}
    todo: list[tuple[ast.AST, str]] = [(n, "") for n in tree.body]
    while todo:
        node, prefix = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            qual = f"{prefix}.{node.name}" if prefix else node.name
            if not isinstance(node, ast.ClassDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out.setdefault(qual, (first, node.end_lineno or node.lineno))
            todo.extend((c, qual) for c in ast.iter_child_nodes(node))
        else:
            todo.extend((c, prefix) for c in ast.iter_child_nodes(node))
    return out


class Run:
    """One corpus at one release and one target version, under its own daemon."""

    def __init__(self, work: Path, c: GraphMem, repo: str, indexed: Indexed, timeout: float) -> None:
        self.work, self.c, self.repo, self.indexed, self.timeout = work, c, repo, indexed, timeout
        self.notes: dict[str, tuple[str, str]] = {}  # observation id -> (path, qualname)
        self.unanchorable = 0

    def observe_all(self) -> None:
        for path in git(self.work, "ls-files", "*.py").splitlines():
            funcs = oracle_functions((self.work / path).read_bytes()) or {}
            for qual in funcs:
                try:
                    o = self.c.observe(f"note on {qual}", anchors=[f"{path}::{qual}"], repo=self.repo)
                except GraphMemError:
                    self.unanchorable += 1
                    continue
                self.notes[o.id] = (path, qual)

    def commit_pass(self, target: str, unsafe: bool) -> Pass:
        found = Pass(rules=statistics(self.work, target, unsafe))
        before = [v for v in violations(self.work, target, unsafe) if unsafe or v["applicability"] == "safe"]
        lines = {
            p: function_lines((self.work / p).read_bytes())
            for p in {str(v["path"]) for v in before}
            if p.endswith(".py")
        }
        prev = git(self.work, "rev-parse", "HEAD").strip()
        mark = self.indexed.mark()
        ruff(self.work, target, "--fix", *(["--unsafe-fixes"] if unsafe else []))
        git(self.work, "-c", "user.name=bench", "-c", "user.email=b@localhost", "commit", "-qam", "UP", "--allow-empty")
        cur = git(self.work, "rev-parse", "HEAD").strip()
        changes = [p for _s, p in changed_py(self.work, prev, cur)] if cur != prev else []
        found.files = len(changes)
        if changes and not self.indexed.wait(mark, changes, self.timeout):
            sys.stderr.write(f"warning: not every changed file was indexed within {self.timeout} s\n")
        deadline = time.monotonic() + self.timeout
        while not self.c.recall(NO_MATCH, repo=self.repo).freshness.current and time.monotonic() < deadline:
            time.sleep(0.01)
        observations = {o.id: o for o in self.c.list(repo=self.repo, limit=0)}
        by_rule: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for oid, (path, qual) in self.notes.items():
            o = observations.get(oid)
            span = lines.get(path, {}).get(qual.split("~")[0])
            rules = sorted(
                {
                    str(v["rule"])
                    for v in before
                    if v["path"] == path and span and span[0] <= int(str(v["row"])) <= span[1]
                }
            )
            status = o.status if o is not None else ObservationStatus.STALE
            for rule in rules:
                by_rule[rule][status.value] += 1
            if status in (ObservationStatus.STALE, ObservationStatus.SUSPECT):
                found.stale += status is ObservationStatus.STALE
                found.suspect += status is ObservationStatus.SUSPECT
                found.marked.append(_case(o, path, qual, status, rules))
        found.by_rule = dict(by_rule)
        self._reset(observations)
        return found

    def _reset(self, observations: dict[str, Observation]) -> None:
        """Confirm every marked note (re-anchored to the new code) so the next pass starts clean."""
        for oid, o in observations.items():
            if oid in self.notes and (o.status is not ObservationStatus.FRESH or o.needs_review):
                try:
                    self.c.confirm(oid, confirmed_by="bench")
                except GraphMemError:
                    self.notes.pop(oid)


def _case(
    o: Observation | None, path: str, qual: str, status: ObservationStatus, rules: list[str]
) -> dict[str, object]:
    reason = o.stale_reasons[0] if o is not None and o.stale_reasons else None
    return {
        "note": f"{path}::{qual}",
        "status": status.value,
        "change": reason.change.value if reason else "gone",
        "old_signature": reason.old_signature if reason else "",
        "new_signature": reason.new_signature if reason else "",
        "rules": rules,
    }


def run_one(bundle: Path, commit: str, target: str, timeout: float) -> dict[str, object]:
    tmp = Path(tempfile.mkdtemp(prefix="gmmod"))
    work = tmp / "repo"
    d: DaemonProc | None = None
    try:
        subprocess.run(["git", "clone", "-q", str(bundle), str(work)], check=True, capture_output=True)
        git(work, "checkout", "-q", "-b", "bench", commit)
        d = DaemonProc(short_home(), [work])
        d.wait_ready()
        with d.client(60) as c:
            repo = c.list_repos()[0].id
            indexed = Indexed(d.client(60), repo)
            run = Run(work, c, repo, indexed, timeout)
            run.observe_all()
            safe = run.commit_pass(target, unsafe=False)
            unsafe = run.commit_pass(target, unsafe=True)
            return {
                "notes": len(run.notes),
                "unanchorable": run.unanchorable,
                "safe": _pass(safe),
                "unsafe": _pass(unsafe),
            }
    finally:
        if d is not None:
            d.stop()
            shutil.rmtree(d.home, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _pass(p: Pass) -> dict[str, object]:
    return {
        "files": p.files,
        "stale": p.stale,
        "suspect": p.suspect,
        "rules_fired": p.rules,
        "notes_by_rule": {r: dict(c) for r, c in sorted(p.by_rule.items())},
        "marked": p.marked,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--corpus", action="append", choices=sorted(RELEASES), help="default: all")
    ap.add_argument("--target", action="append", choices=TARGETS, help="default: all")
    ap.add_argument("--release", action="append", help="only these release labels")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the index per commit")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load_start = load_average()
    started = time.monotonic()
    runs: list[dict[str, object]] = []
    for corpus in args.corpus or sorted(RELEASES):
        for label, commit in RELEASES[corpus]:
            if args.release and label not in args.release:
                continue
            for target in args.target or TARGETS:
                result = run_one(CORPORA / f"{corpus}.bundle", commit, target, args.timeout)
                runs.append({"corpus": corpus, "release": label, "commit": commit, "target": target, **result})
                if not args.json:
                    _print_run(runs[-1])
    total = {
        key: {k: sum(int(r[key][k]) for r in runs) for k in ("files", "stale", "suspect")}  # type: ignore[index]
        for key in ("safe", "unsafe")
    }
    summary = {
        "runs": runs,
        "notes": sum(int(str(r["notes"])) for r in runs),
        "total": total,
        "seconds": round(time.monotonic() - started, 1),
        "load_avg_1m_start": round(load_start, 2),
        "load_avg_1m_end": round(load_average(), 2),
    }
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        sys.stdout.write(
            f"total: {summary['notes']} notes; safe fixes {total['safe']}; unsafe fixes {total['unsafe']}; "
            f"{summary['seconds']} s; load {summary['load_avg_1m_start']} -> {summary['load_avg_1m_end']}\n"
        )
    return 0


def _print_run(r: dict[str, object]) -> None:
    out = sys.stdout.write
    out(f"\n{r['corpus']} {r['release']} ({r['commit']}) --target-version {r['target']}: {r['notes']} notes\n")
    for key in ("safe", "unsafe"):
        p: dict[str, object] = r[key]  # type: ignore[assignment]
        out(f"  {key:6} fixes: {p['files']} files changed, {p['stale']} stale, {p['suspect']} suspect\n")
        out(f"         rules fired: {p['rules_fired']}\n")
        for rule, statuses in p["notes_by_rule"].items():  # type: ignore[attr-defined]
            out(f"         {rule}: notes in functions it touched {statuses}\n")
        for case in p["marked"]:  # type: ignore[attr-defined]
            out(
                f"         {case['status']:8} {case['change']:20} {case['note']} rules={case['rules']}"
                f" {case['old_signature']!r} -> {case['new_signature']!r}\n"
            )


if __name__ == "__main__":
    raise SystemExit(main())
