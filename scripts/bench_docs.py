#!/usr/bin/env python3
"""Knowledge-file benchmark: replay real histories under a running daemon and judge every
dangling reference ``graphmem check`` reports against an independent oracle; then time
``graphmem check`` on a whole tree, cold, against the cold index of the same tree.

Corpora: the attrs history (``docs/`` mixes Markdown/MyST and reStructuredText) and the
click history (reStructuredText docs, Markdown since 2025) in ``../shared/corpora/``, each
cloned into a temporary directory (the bundles are only read).

**Oracle** (``docs_oracle.py``, none of graphmem's code): Python's ``ast`` gives each
commit's importable qualified names; markdown-it-py and docutils, with the oracle's own
extraction, give the references in the knowledge files (graphmem's documented default set).
A reference *stopped resolving* at a commit when its target does not resolve there but did
at an earlier commit at which the same file (followed through git's renames) referenced it.
The oracle runs over every first-parent commit. ``--changelogs`` judges the change logs too
(on both sides: graphmem through a ``.graphmem.toml`` in the clone).

**Replay** (``--mode``, default both): the commits at which the oracle's set of dangling
references changes, each right after its parent, plus evenly spaced commits of the whole
history up to ``--commits``, oldest first, are checked out in one working tree and graphmem
is asked at each: ``daemon`` — one daemon watches the tree and follows the checkouts; once it
reports its index current at the commit, ``CheckKnowledge`` (what ``graphmem check`` asks a
running daemon); ``one-shot`` — the installed ``graphmem check --one-shot --format json``
(what CI runs: a private daemon indexes the tree cold each time). Reports are matched with
the oracle's by file and line and target (then file and target), summed over the replayed
commits: precision and recall of the dangling reports (targets >= 0.95), the misses and false
reports by kind with samples, and the stale/suspect counts at the newest commit.

**Timing** (``--timing-only`` / ``--no-timing``): on the newest commit's tree, back to back
and alternating, ``--rounds`` times each: the cold index (a daemon on an empty home until
its index is current) and ``graphmem check --one-shot`` (a whole cold check: private
daemon, index, check, stop, cleanup). Target: check <= 2x index (medians). The 1-minute load
average is printed before each measurement. ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import ROOT, DaemonProc, check_quiet, load_average, short_home

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docs_oracle as oracle
from google.protobuf import json_format
from graphmem import convert
from graphmem.types import KnowledgeCheck, KnowledgeReference, ReferenceState
from graphmem.v1 import service_pb2

CORPORA = ROOT.parent / "shared" / "corpora"
if not CORPORA.is_dir():
    CORPORA = Path("/work/shared/corpora")
GRAPHMEM = [str(Path(sys.executable).with_name("graphmem"))]


# ---------------------------------------------------------------------------- the oracle over history


@dataclass
class Judged:
    """One reference at one commit, as the oracle judges it."""

    ref: oracle.DocRef
    resolves: bool
    dangling: bool


@dataclass
class History:
    """The oracle's verdicts for every first-parent commit (kept for the replayed ones)."""

    commits: list[str]
    dangling: dict[str, list[Judged]] = field(default_factory=dict)  # commit -> dangling refs
    refs: dict[str, int] = field(default_factory=dict)  # commit -> references judged
    changed: list[int] = field(default_factory=list)  # indexes where the dangling set changed
    events: int = 0  # references that stopped resolving (first commit of each)
    unparsable: int = 0  # package source versions Python 3 cannot parse
    seconds: float = 0.0


def _resolver(names: oracle.CodeNames, files: set[str], dirs: set[str]) -> Any:
    memo: dict[tuple[str, tuple[str, ...], bool], bool] = {}

    def resolves(ref: oracle.DocRef) -> bool:
        key = (ref.target, ref.context, ref.is_path)
        hit = memo.get(key)
        if hit is None:
            if ref.is_path:
                hit = ref.target.rstrip("/") in files or ref.target.rstrip("/") in dirs
            else:
                hit = names.resolves(ref.target, ref.context)
            memo[key] = hit
        return hit

    return resolves


def run_oracle(repo: Path, commits: list[str]) -> History:
    """Judge every reference of every commit; keep each commit's dangling ones."""
    started = time.monotonic()
    blobs = oracle.Blobs(repo)
    binds: dict[tuple[str, str], Any] = {}
    docs: dict[tuple[str, str], list[oracle.DocRef]] = {}
    names_by_code: dict[frozenset[tuple[str, int]], oracle.CodeNames] = {}
    last_good: dict[str, Any] = {}
    history = History(commits)
    seen_resolving: set[tuple[str, str, tuple[str, ...], bool]] = set()
    renames = _renames(repo)
    lineage: dict[str, str] = {}  # a knowledge file's path -> the path it was first seen under
    ever_dangling: set[tuple[str, str, tuple[str, ...]]] = set()
    previous: frozenset[tuple[str, int, str]] = frozenset()
    for i, commit in enumerate(commits):
        for old_path, new_path in renames.get(commit, ()):  # git's rename detection, as blame follows it
            lineage[new_path] = lineage.pop(old_path, old_path)
        files = oracle.tree(repo, commit)
        code = {p: b for p, b in files.items() if oracle.is_package_source(p)}
        current: dict[str, Any] = {}
        for p, b in code.items():
            if (p, b) not in binds:
                binds[(p, b)] = oracle.CodeNames.bindings(p, blobs.text(b))
                history.unparsable += binds[(p, b)] is None
            if binds[(p, b)] is not None:
                last_good[p] = binds[(p, b)]
            # a version Python 3 cannot parse (Python 2 only syntax): its last parsable version
            # stands in, as a parse failure is not a removal
            if p in last_good:
                current[p] = last_good[p]
        key = frozenset((p, id(v)) for p, v in current.items())
        names = names_by_code.get(key)
        if names is None:  # keep only the latest code state: consecutive commits share it
            names_by_code = {key: oracle.CodeNames.parse(current)}
            names = names_by_code[key]
        dirs = {d for p in files for d in _parents(p)}
        resolves = _resolver(names, set(files), dirs)
        judged: list[Judged] = []
        for path, blob in files.items():
            if not oracle.is_knowledge_file(path):
                continue
            refs = docs.get((path, blob))
            if refs is None:
                refs = docs[(path, blob)] = oracle.extract(path, blobs.text(blob))
            for ref in refs:
                ok = resolves(ref)
                k = (lineage.get(ref.path, ref.path), ref.target, ref.context, ref.is_path)
                judged.append(Judged(ref, ok, not ok and k in seen_resolving))
        for j in judged:
            if j.resolves:
                seen_resolving.add((lineage.get(j.ref.path, j.ref.path), j.ref.target, j.ref.context, j.ref.is_path))
        dangling = [j for j in judged if j.dangling]
        history.dangling[commit] = dangling
        history.refs[commit] = len(judged)
        now = frozenset((j.ref.path, j.ref.line, j.ref.target) for j in dangling)
        if now != previous:
            history.changed.append(i)
        for j in dangling:
            event = (lineage.get(j.ref.path, j.ref.path), j.ref.target, j.ref.context)
            if event not in ever_dangling:
                ever_dangling.add(event)
                history.events += 1
        previous = now
    blobs.close()
    history.seconds = time.monotonic() - started
    return history


def _renames(repo: Path) -> dict[str, list[tuple[str, str]]]:
    """Per first-parent commit, the files git sees renamed by it (old path, new path)."""
    out: dict[str, list[tuple[str, str]]] = {}
    commit = ""
    log = git(repo, "log", "--first-parent", "-M", "--diff-merges=first-parent", "--name-status", "--format=@%H")
    for line in log.splitlines():
        if line.startswith("@"):
            commit = line[1:]
        elif line.startswith("R"):
            _, old_path, new_path = line.split("\t")
            out.setdefault(commit, []).append((old_path, new_path))
    return out


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def replay_plan(history: History, budget: int) -> list[int]:
    """Commit indexes to replay, oldest first: each change of the oracle's dangling set with
    its parent, then evenly spaced commits until ``budget``."""
    chosen: set[int] = set()
    for i in history.changed:
        chosen.update({max(i - 1, 0), i})
    n = len(history.commits)
    spare = max(budget - len(chosen), 0)
    if spare:
        step = max(n / spare, 1.0)
        chosen.update(min(int(k * step), n - 1) for k in range(spare))
    chosen.add(n - 1)
    return sorted(chosen)


# ---------------------------------------------------------------------------- matching


def _target_of(text: str) -> str:
    """graphmem's reference as written -> a comparable target (the oracle's normalisation)."""
    s = text.strip()
    if s.startswith("{") and "}`" in s:  # MyST role
        return oracle.role_target(s.split("}`", 1)[1].rstrip("`"))
    if s.startswith(":") and ":`" in s:  # RST role
        return oracle.role_target(s.split(":`", 1)[1].rstrip("`"))
    s = s.strip("`")
    found = oracle.code_target(s)
    return found[0] if found else s


@dataclass
class Score:
    """Matched, missed and false dangling reports, summed over the replayed commits."""

    tp: int = 0
    fn: int = 0
    fp: int = 0
    misses: Counter[str] = field(default_factory=Counter)
    false: Counter[str] = field(default_factory=Counter)
    miss_samples: list[str] = field(default_factory=list)
    false_samples: list[str] = field(default_factory=list)

    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def compare(commit: str, expected: list[Judged], reported: list[Any], score: Score) -> None:
    """Pair oracle and graphmem dangling references of one commit: same file and line and
    target, then same file and target (a span spread over lines)."""
    left = list(expected)
    right = list(reported)
    for exact in (True, False):
        for j in list(left):
            for r in right:
                same_place = r.path == j.ref.path and (r.line == j.ref.line or not exact)
                written = _target_of(r.text)
                bare = j.ref.kind == "example" and written.rsplit(".", 1)[-1] == j.ref.target.rsplit(".", 1)[-1]
                if same_place and (written == j.ref.target or j.ref.target in r.text or bare):
                    left.remove(j)
                    right.remove(r)
                    score.tp += 1
                    break
    for j in left:
        score.fn += 1
        score.misses[j.ref.kind] += 1
        if len(score.miss_samples) < 15:
            score.miss_samples.append(f"{commit[:8]} {j.ref.path}:{j.ref.line} {j.ref.raw} -> {j.ref.target}")
    for r in right:
        score.fp += 1
        score.false[_kind_of(r.text)] += 1
        if len(score.false_samples) < 15:
            score.false_samples.append(f"{commit[:8]} {r.path}:{r.line} {r.text} ({r.reason})")


def _kind_of(text: str) -> str:
    s = text.strip()
    if s.startswith(("{", ":")):
        return "role"
    if s.startswith(".. ") or s.startswith("```"):
        return "directive"
    return "code" if s.startswith("`") else "other"


# ---------------------------------------------------------------------------- replay


def git(repo: Path, *args: str) -> str:
    return oracle.git(repo, *args)


def settle(client: Any, repo_id: str, commit: str, timeout: float) -> KnowledgeCheck:
    """CheckKnowledge once the daemon's index is current at ``commit``."""
    deadline = time.monotonic() + timeout
    while True:
        check = client.check_knowledge(repo=repo_id, wait_current=True)
        fresh = check.freshness
        if fresh is not None and fresh.current and all(r.indexed_commit == commit for r in fresh.repositories):
            return check
        if time.monotonic() >= deadline:
            raise RuntimeError(f"the index did not become current at {commit[:8]}")
        time.sleep(0.05)


@contextlib.contextmanager
def following_daemon(repo: Path, timeout: float) -> Iterator[Callable[[str], KnowledgeCheck]]:
    """The daemon following the checkout: one daemon watches the working tree; at each
    commit, CheckKnowledge once its index is current there."""
    d = DaemonProc(short_home(), [repo])
    try:
        d.wait_ready()
        with d.client(timeout) as c:
            repo_id = c.list_repos()[0].id
            yield lambda commit: settle(c, repo_id, commit, timeout)
    finally:
        d.stop()
        shutil.rmtree(d.home, ignore_errors=True)


@contextlib.contextmanager
def one_shot_checks(repo: Path, timeout: float) -> Iterator[Callable[[str], KnowledgeCheck]]:
    """``graphmem check --one-shot`` (the installed CLI, as CI runs it) at each commit: a
    private daemon indexes the tree cold each time."""

    def check_at(commit: str) -> KnowledgeCheck:
        return cold_check_json(repo, timeout, commit)

    yield check_at


def cold_check_json(repo: Path, timeout: float, commit: str, *extra: str) -> KnowledgeCheck:
    """The answer of ``graphmem check --one-shot --format json --fail-on never`` (``extra``
    arguments added) in ``repo``, with an empty home: no daemon knows it."""
    home = Path(tempfile.mkdtemp(prefix="gmbo", dir="/tmp"))
    env = dict(os.environ, GRAPHMEM_HOME=str(home))
    env.pop("GRAPHMEM_ADDRESS", None)
    try:
        cmd = [*GRAPHMEM, "check", "--one-shot", "--format", "json", "--fail-on", "never", "--wait", str(timeout)]
        proc = subprocess.run([*cmd, *extra], cwd=repo, env=env, capture_output=True, text=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if proc.returncode != 0:
        raise RuntimeError(f"graphmem check failed at {commit[:8]} ({proc.returncode}): {proc.stderr.strip()}")
    data = json.loads(proc.stdout)
    for key in ("fail_on", "failed"):
        data.pop(key, None)
    return convert.knowledge_check_from_proto(json_format.ParseDict(data, service_pb2.CheckKnowledgeResponse()))


def replay(repo: Path, history: History, plan: list[int], mode: str, timeout: float) -> dict[str, Any]:
    """Check out each planned commit, ask graphmem (``mode``: ``daemon`` following the
    checkout, or ``one-shot`` per commit), score its dangling reports."""
    commits = history.commits
    git(repo, "checkout", "-q", "--detach", commits[plan[0]])
    score = Score()
    per_commit_s: list[float] = []
    last: KnowledgeCheck | None = None
    checker = following_daemon(repo, timeout) if mode == "daemon" else one_shot_checks(repo, timeout)
    with checker as check_at:
        for n, i in enumerate(plan):
            commit = commits[i]
            t0 = time.monotonic()
            if n:
                git(repo, "checkout", "-q", "--detach", commit)
            last = check_at(commit)
            per_commit_s.append(time.monotonic() - t0)
            reported = [r for r in last.references if r.state is ReferenceState.DANGLING]
            compare(commit, history.dangling[commit], reported, score)
            if n % 10 == 0 or n == len(plan) - 1:
                print(
                    f"  {mode} {n + 1}/{len(plan)} ({commit[:8]}): tp {score.tp} fn {score.fn} fp {score.fp}, "
                    f"{per_commit_s[-1]:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    states = Counter(r.state.value for r in last.references) if last else Counter()
    return {
        "mode": mode,
        "replayed_commits": len(plan),
        "oracle_dangling": score.tp + score.fn,
        "reported_dangling": score.tp + score.fp,
        "true_positives": score.tp,
        "precision": round(score.precision(), 4),
        "recall": round(score.recall(), 4),
        "misses_by_kind": dict(score.misses),
        "false_by_kind": dict(score.false),
        "miss_samples": score.miss_samples,
        "false_samples": score.false_samples,
        "seconds_per_commit_p50": round(statistics.median(per_commit_s), 3) if per_commit_s else 0.0,
        "newest": {
            "files_checked": last.files_checked if last else 0,
            "units": last.units if last else 0,
            "references_checked": last.references_checked if last else 0,
            "dangling": states.get("dangling", 0),
            "stale": states.get("stale", 0),
            "suspect": states.get("suspect", 0),
        },
    }


# ---------------------------------------------------------------------------- grades at releases (issue 42)

#: A release commit's subject (the bundles carry no tags: the release commits stand in for them)
RELEASE = re.compile(r"^(?:[Rr]elease(?: version)?|Prepare|Version) v?\d+\.\d+")
_DEFAULT_STATES = (ReferenceState.DANGLING, ReferenceState.STALE, ReferenceState.SUSPECT)


def release_commits(repo: Path, n: int) -> list[tuple[str, str]]:
    """The ``n`` newest release commits of the first-parent history before HEAD, oldest first,
    then HEAD: (commit, label)."""
    log = git(repo, "log", "--first-parent", "--format=%H %s", "HEAD").splitlines()
    head = log[0].split()[0]
    out = [(line.split(" ", 1)[0], line.split(" ", 1)[1]) for line in log[1:] if RELEASE.match(line.split(" ", 1)[1])]
    return [*reversed(out[:n]), (head, "latest")]


def code_names(repo: Path, commit: str, blobs: oracle.Blobs) -> oracle.CodeNames:
    """The oracle's importable names of ``commit``'s package sources."""
    files = oracle.tree(repo, commit)
    binds = {p: oracle.CodeNames.bindings(p, blobs.text(b)) for p, b in files.items() if oracle.is_package_source(p)}
    return oracle.CodeNames.parse({p: b for p, b in binds.items() if b is not None})


def _source_at(repo: Path, commit: str, path: str, qualname: str) -> str | None:
    """The source of the module defining ``qualname`` at ``commit``: ``path`` then, else a
    file of the same name that defines it (the package moved: ``click/`` to ``src/click/``)."""
    try:
        return git(repo, "show", f"{commit}:{path}")
    except subprocess.CalledProcessError:
        pass
    base = path.rsplit("/", 1)[-1]
    for other in sorted(oracle.tree(repo, commit)):
        if other.endswith("/" + base) or other == base:
            text = git(repo, "show", f"{commit}:{other}")
            if oracle.signature_in(text, qualname) is not None:
                return text
    return None


def _line_commit(repo: Path, path: str, line: int) -> str:
    out = git(repo, "blame", "--porcelain", "-L", f"{line},{line}", "HEAD", "--", path)
    return out.split(" ", 1)[0]


def _example_of(ref: KnowledgeReference, docs: dict[str, list[oracle.DocRef]]) -> oracle.DocRef | None:
    """The oracle's own reading of a finding in a code example: its example reference on the
    same line with the same last name (a finding's text in an example is the name as written,
    with no backticks, role or directive around it)."""
    if "`" in ref.text or ref.text.startswith(("..", ":", "{", "[")):
        return None
    name = ref.text.strip().rsplit(".", 1)[-1]
    same = [d for d in docs.get(ref.path) or [] if d.kind == "example" and d.line == ref.line]
    return next((d for d in same if d.target.rsplit(".", 1)[-1] == name), None)


def _signature_now(
    repo: Path, ref: KnowledgeReference, names: oracle.CodeNames, written: str, context: tuple[str, ...]
) -> Any:
    """The signature the written name is called through now: a class's constructor by the
    oracle's own rules (``oracle.UNKNOWN`` when the code does not show it), else the function's
    signature in its source; None when the oracle cannot read it."""
    bound = names.binding(written, context) if written else None
    if isinstance(bound, oracle.ClassDef):
        return oracle.constructor_signature(names, bound)
    path, _, qualname = ref.target_ref.rpartition("::")
    if not path or not qualname:
        return None
    try:
        now_text = (repo / path).read_text(encoding="utf-8")
    except OSError:
        return None
    return oracle.signature_in(now_text, qualname)


def judge(repo: Path, ref: KnowledgeReference, names: oracle.CodeNames, docs: dict[str, list[oracle.DocRef]]) -> str:
    """The oracle's verdict on one default-level finding: ``right``, ``wrong`` or
    ``unjudged`` (the oracle cannot read what it needs), with the rule applied. A finding in
    a code example is judged by the oracle's own reading of the example (its import-bound
    target, the call's arguments as ``ast`` reads them)."""
    path, _, qualname = ref.target_ref.rpartition("::")
    example = _example_of(ref, docs)
    target = example.target if example is not None else _target_of(ref.text)
    refs = docs.get(ref.path) or []
    context = next((d.context for d in refs if d.line == ref.line and d.target == target), ())
    if ref.state is ReferenceState.DANGLING:
        if target.startswith((".", "def ", "async def ")) and qualname:
            target = qualname  # a member written relative to its section
        if example is not None:
            return "wrong" if names.resolves(target) else "right"
        contexts = [context, *{d.context for d in refs}] if not context else [context]
        return "wrong" if any(names.resolves(target, c) for c in contexts) else "right"
    if ref.state is ReferenceState.SUSPECT and "is deprecated:" in ref.reason:  # a name served with a warning
        served = [names.binding(target, c) for c in ([context] if context else [(), *{d.context for d in refs}])]
        return "right" if oracle.SERVED in served else "wrong"
    call = example.call if example is not None else oracle.written_call(ref.text)
    now = _signature_now(repo, ref, names, target, context)
    if ref.state is ReferenceState.STALE:
        if call is None or now == oracle.UNKNOWN:
            return "wrong"  # a mention (or a class whose constructor is not known) is never stale
        if now is None:
            return "unjudged"
        return "wrong" if oracle.call_fits(now, call) else "right"
    if call is not None:  # a call with arguments is judged by binding only
        return "wrong"
    if not path or not qualname:
        return "unjudged"
    try:
        now = oracle.signature_in((repo / path).read_text(encoding="utf-8"), qualname)
    except OSError:
        return "unjudged"
    if now is None:
        return "unjudged"
    commit = _line_commit(repo, ref.path, ref.line)
    old_text = _source_at(repo, commit, path, qualname)
    old = oracle.signature_in(old_text, qualname) if old_text is not None else None
    if old is None:
        return "unjudged"
    return "right" if oracle.breaks_callers(old, now) else "wrong"


def grades(repo: Path, history: History | None, n: int, timeout: float) -> dict[str, Any]:
    """At the latest commit and the ``n`` release commits before it: graphmem's findings per
    level, the oracle's verdict on each default-level finding, the recall of the names the
    oracle finds gone, and the text messages' lengths."""
    from graphmem.check.format import describe, grouped

    blobs = oracle.Blobs(repo)
    rows: list[dict[str, Any]] = []
    total: Counter[str] = Counter()
    score = Score()
    lengths: list[int] = []
    samples: list[str] = []
    for commit, label in release_commits(repo, n):
        git(repo, "checkout", "-q", "--detach", commit)
        t0 = time.monotonic()
        load = load_average()
        check = cold_check_json(repo, timeout, commit, "--level", "all")  # the installed CLI, cold, as CI runs it
        seconds = time.monotonic() - t0
        states = Counter(r.state.value for r in check.references)
        names = code_names(repo, commit, blobs)
        docs: dict[str, list[oracle.DocRef]] = {}
        verdicts: Counter[str] = Counter()
        default = [r for r in check.references if r.state in _DEFAULT_STATES]
        for r in default:
            if r.path not in docs:
                docs[r.path] = oracle.extract(r.path, (repo / r.path).read_text(encoding="utf-8", errors="replace"))
            v = judge(repo, r, names, docs)
            verdicts[v] += 1
            verdicts[f"{r.state.value}:{v}"] += 1
            if len(samples) < 60 and (v != "right" or len(samples) < 30):
                samples.append(f"{commit[:8]} [{v}] {r.path}:{r.line}:{r.column}: {r.state.value}: {describe(r)}")
        shown = KnowledgeCheck(tuple(default), check.files_checked, check.units, check.references_checked)
        lengths.extend(len(describe(g.first)) for g in grouped(shown))
        if history is not None and commit in history.dangling:
            dangling = [r for r in check.references if r.state is ReferenceState.DANGLING]
            compare(commit, history.dangling[commit], dangling, score)
        total.update(verdicts)
        total.update({f"state:{k}": v for k, v in states.items()})
        rows.append(
            {
                "commit": commit[:10],
                "release": label,
                "findings": {s: states.get(s, 0) for s in ("dangling", "stale", "suspect", "changed")},
                "printed_by_default": len(grouped(shown)),
                "verdicts": dict(verdicts),
                "seconds": round(seconds, 1),
                "load_average": round(load, 2),
            }
        )
        print(f"  {label[:30]:30} {commit[:8]}: {rows[-1]['findings']} verdicts {dict(verdicts)}", file=sys.stderr)
    blobs.close()
    judged = total["right"] + total["wrong"]
    return {
        "commits": rows,
        "findings_total": {s: total[f"state:{s}"] for s in ("dangling", "stale", "suspect", "changed")},
        "default_level_right": total["right"],
        "default_level_wrong": total["wrong"],
        "default_level_unjudged": total["unjudged"],
        "precision_judged": round(total["right"] / judged, 4) if judged else 1.0,
        "precision_strict": round(total["right"] / (judged + total["unjudged"]), 4) if judged else 1.0,
        "by_state": {k: v for k, v in total.items() if ":" in k and not k.startswith("state:")},
        "recall_gone": round(score.recall(), 4),
        "gone_expected": score.tp + score.fn,
        "gone_found": score.tp,
        "gone_misses": score.miss_samples,
        "message_chars_median": statistics.median(lengths) if lengths else 0,
        "message_chars_max": max(lengths, default=0),
        "samples": samples,
    }


# ---------------------------------------------------------------------------- timing


def cold_index(tree: Path) -> float:
    """Seconds from spawning a daemon on an empty home until its index of ``tree`` is current."""
    home = short_home()
    t0 = time.monotonic()
    d = DaemonProc(home, [tree])
    try:
        d.wait_ready()
        return time.monotonic() - t0
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)


def cold_check(tree: Path) -> tuple[float, int]:
    """Seconds of ``graphmem check --one-shot`` on ``tree`` (no daemon knows it), and its exit code."""
    env = dict(os.environ)
    env["GRAPHMEM_HOME"] = str(Path(tempfile.mkdtemp(prefix="gmbh", dir="/tmp")))  # an empty home: no daemon
    env.pop("GRAPHMEM_ADDRESS", None)
    t0 = time.monotonic()
    proc = subprocess.run(
        [*GRAPHMEM, "check", "--one-shot", "--format", "json", "--fail-on", "never"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    elapsed = time.monotonic() - t0
    shutil.rmtree(env["GRAPHMEM_HOME"], ignore_errors=True)
    if proc.returncode != 0:
        raise RuntimeError(f"graphmem check failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed, proc.returncode


def timing(tree: Path, rounds: int) -> dict[str, Any]:
    """Cold index and cold check of ``tree``, back to back, alternating."""
    index_s: list[float] = []
    check_s: list[float] = []
    loads: list[float] = []
    for _ in range(rounds):
        loads.append(check_quiet("cold index"))
        index_s.append(cold_index(tree))
        loads.append(check_quiet("cold check"))
        check_s.append(cold_check(tree)[0])
    index_med, check_med = statistics.median(index_s), statistics.median(check_s)
    return {
        "cold_index_s": [round(x, 2) for x in index_s],
        "cold_check_s": [round(x, 2) for x in check_s],
        "cold_index_median_s": round(index_med, 2),
        "cold_check_median_s": round(check_med, 2),
        "check_over_index": round(check_med / index_med, 2) if index_med else 0.0,
        "load_average": [round(x, 2) for x in loads],
    }


# ---------------------------------------------------------------------------- main


def run_corpus(name: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    bundle = CORPORA / f"{name}.bundle"
    repo = tmp / name
    subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(bundle), str(repo)], check=True)
    commits = git(repo, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    out: dict[str, Any] = {"corpus": name, "first_parent_commits": len(commits), "load_average_start": load_average()}
    include, exclude = oracle.DEFAULT_KNOWLEDGE_GLOBS, oracle.DEFAULT_KNOWLEDGE_EXCLUDES
    if args.changelogs:  # both sides judge the change logs too: graphmem through .graphmem.toml
        include = (*include, *oracle.CHANGELOG_GLOBS)
        exclude = tuple(e for e in exclude if not e.lower().startswith(("changelog", "changes", "history")))
        (repo / ".graphmem.toml").write_text(_graphmem_toml(include, exclude), encoding="utf-8")
    oracle.use_selection(include, exclude)
    out["knowledge_globs"], out["knowledge_excludes"] = list(include), list(exclude)
    if args.grades:
        history = run_oracle(repo, commits) if not args.no_recall else None
        out["grades"] = grades(repo, history, args.releases, args.timeout)
        out["load_average_end"] = load_average()
        return out
    if not args.timing_only:
        history = run_oracle(repo, commits)
        plan = replay_plan(history, args.commits)
        out["oracle"] = {
            "seconds": round(history.seconds, 1),
            "references_at_newest": history.refs[commits[-1]],
            "dangling_at_newest": len(history.dangling[commits[-1]]),
            "stopped_resolving_events": history.events,
            "unparsable_source_versions": history.unparsable,
            "commits_where_dangling_changed": len(history.changed),
        }
        for mode in ("daemon", "one-shot") if args.mode == "both" else (args.mode,):
            out[f"replay_{mode}"] = replay(repo, history, plan, mode, args.timeout)
    if not args.no_timing:
        git(repo, "checkout", "-q", "--detach", commits[-1])
        out["timing"] = timing(repo, args.rounds)
    out["load_average_end"] = load_average()
    return out


def _graphmem_toml(include: tuple[str, ...], exclude: tuple[str, ...]) -> str:
    """A ``.graphmem.toml`` selecting exactly ``include`` minus ``exclude``."""

    def array(globs: tuple[str, ...]) -> str:
        return "[" + ", ".join(json.dumps(g) for g in globs) + "]"

    return f"[knowledge]\ndefaults = false\ninclude = {array(include)}\nexclude = {array(exclude)}\n"


def _print(result: dict[str, Any]) -> None:
    name = result["corpus"]
    if "oracle" in result:
        o = result["oracle"]
        print(
            f"{name}: oracle over {result['first_parent_commits']} commits in {o['seconds']} s: "
            f"{o['stopped_resolving_events']} references stopped resolving; newest commit "
            f"{o['references_at_newest']} references, {o['dangling_at_newest']} dangling"
        )
    for key in ("replay_daemon", "replay_one-shot"):
        if key not in result:
            continue
        r = result[key]
        print(
            f"{name} [{r['mode']}]: replayed {r['replayed_commits']} commits (p50 {r['seconds_per_commit_p50']} s "
            f"each): dangling precision {r['precision']:.3f}, recall {r['recall']:.3f} ({r['true_positives']} "
            f"matched of {r['oracle_dangling']} expected, {r['reported_dangling']} reported)"
        )
        if r["misses_by_kind"] or r["false_by_kind"]:
            print(f"{name}:   misses by kind {r['misses_by_kind']}, false reports by kind {r['false_by_kind']}")
        for s in r["miss_samples"][:8]:
            print(f"{name}:   missed {s}")
        for s in r["false_samples"][:8]:
            print(f"{name}:   false  {s}")
        nw = r["newest"]
        print(
            f"{name}: newest commit: {nw['files_checked']} files, {nw['units']} units, "
            f"{nw['references_checked']} references: {nw['dangling']} dangling, {nw['stale']} stale, "
            f"{nw['suspect']} suspect"
        )
    if "grades" in result:
        g = result["grades"]
        for row in g["commits"]:
            print(
                f"{name} {row['release'][:28]:28} {row['commit'][:8]}: {row['findings']}, {row['printed_by_default']} "
                f"printed by default, verdicts {row['verdicts']} ({row['seconds']} s, load {row['load_average']})"
            )
        print(
            f"{name}: default level {g['default_level_right']} right, {g['default_level_wrong']} wrong, "
            f"{g['default_level_unjudged']} unjudged: precision {g['precision_judged']:.3f} "
            f"(strict {g['precision_strict']:.3f}); by state {g['by_state']}"
        )
        print(
            f"{name}: names really gone: recall {g['recall_gone']:.3f} ({g['gone_found']} of {g['gone_expected']}); "
            f"text message median {g['message_chars_median']} chars, max {g['message_chars_max']}"
        )
        for m in g["gone_misses"][:8]:
            print(f"{name}:   missed {m}")
        for sample in g["samples"]:
            print(f"{name}:   {sample}")
    if "timing" in result:
        t = result["timing"]
        print(
            f"{name}: cold index {t['cold_index_median_s']} s {t['cold_index_s']}, cold check "
            f"{t['cold_check_median_s']} s {t['cold_check_s']}: check/index {t['check_over_index']}x "
            f"(load {t['load_average']})"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=["attrs", "click", "both"], default="both")
    ap.add_argument("--commits", type=int, default=150, help="replay budget per corpus (default: 150)")
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds (default: 3)")
    ap.add_argument("--timeout", type=float, default=300.0, help="per-commit wait for the index (default: 300)")
    ap.add_argument(
        "--mode",
        choices=["daemon", "one-shot", "both"],
        default="both",
        help="replay through a daemon following the checkout, graphmem check --one-shot per commit, or both",
    )
    ap.add_argument("--timing-only", action="store_true")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument(
        "--changelogs",
        action="store_true",
        help="judge the change logs too (graphmem through .graphmem.toml; left out by default)",
    )
    ap.add_argument(
        "--grades",
        action="store_true",
        help="issue 42: at the latest commit and --releases release commits before it, findings per level, "
        "the oracle's verdict on each default-level finding (precision), recall of the names gone, message lengths",
    )
    ap.add_argument("--releases", type=int, default=10, help="release commits before the latest (default: 10)")
    ap.add_argument("--no-recall", action="store_true", help="--grades without the oracle over the whole history")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    names = ["attrs", "click"] if args.corpus == "both" else [args.corpus]
    tmp = Path(tempfile.mkdtemp(prefix="gmdocs", dir="/tmp"))
    results = []
    try:
        for name in names:
            result = run_corpus(name, args, tmp)
            results.append(result)
            if not args.json:
                _print(result)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"corpora": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
