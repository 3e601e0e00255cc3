#!/usr/bin/env python3
"""Hook latency benchmark: ``graphmem hook session-start|post-edit`` as a client runs them.

A real daemon indexes the stdlib corpus; 2,000 observations (``--observations``) are anchored
across it (a fifth of them constraints or decisions). Then each hook command is run as a new
process, the client's JSON payload on stdin, and timed from spawn to exit, back to back with
its floor in the same run:

- ``floor_python``: ``python -c pass`` (the interpreter's own start);
- ``floor_hook``: the hook with no daemon behind its home (start, imports, payload, exit);
- ``session_start``: the repository's brief (the hook's default budget, 400 tokens);
- ``post_edit``: a file with notes that this session's edit did not change (each run a new
  session; earlier runs' sessions may have edited the file): nothing to say, and the hook, which
  judges the file against its state before the edit (``agents/before.py``), does not even ask the
  daemon (``rpc_edit`` below is the daemon's answer for such a file);
- ``post_edit_changed``: right after a real edit that changes a noted function's signature
  (the daemon takes the file in, re-indexes it, and the call-outs are computed);
- ``post_edit_paced``: the same at an agent's pace (``--paced-runs``, default 20): each edit
  ``--pace-s`` (1.5 s) after the previous one, when the parse workers have gone idle (they
  stop after 1 s): the edits the runs above make back to back find them running;
- ``rpc_edit_paced``: the daemon's share at that pace: from the write to EditContext's answer
  from this process's warm client (``wait_ms`` 5000), no hook process;
- ``rpc_brief`` / ``rpc_edit``: the daemon's share alone, the same calls from this process's
  warm client (SessionBrief with no files; EditContext on an unchanged file).

For each ``post_edit_changed`` and ``post_edit_paced`` run, ``--json`` also records
(``post_edit_changed_runs``, ``post_edit_paced_runs``) what the
hook waited for, read from the daemon's log lines of that run: how long after the write the
call arrived, how the file stood then (in the index already, its batch being applied, queued
by the watcher, or handed over by the call), how long the call waited for the index and then
took to answer, and each watcher or hand-over batch of the run (how long after the write it
began, its steps: classify, parse, delta, swap, memory, publish, durable, knowledge, dirty; and
the parse worker's own wall and CPU milliseconds on the file: the parse step less that is the
daemon's share and the wait for a CPU). Each run also records the edited file and its size.

Then, on each real history in ``/work/shared/corpora`` (click, attrs, marshmallow: cloned into a
temporary directory, their docs indexed, no notes at first; ``--corpora`` picks, ``--corpora ""``
skips): the session brief's size (bytes, tokens) and latency (``--corpus-runs`` runs), the
post-edit hook on an unchanged file (its size must be 0) and the post-edit callout's size for an
edit under 1, 3 and 10 notes (a note on each of k top-level functions of a file; one edit adds
a required parameter to each).

``--keep-log PATH`` keeps the daemon's log of the stdlib run (every batch's line, with its time).
``--runs`` per kind (default 60). Prints p50/p95/p99 and the 1-minute load average before and
after; ``--json`` prints one JSON object. Target: p95 <= 150 ms for each hook.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import DaemonProc, load_average, percentile, short_home, stdlib_corpus
from graphmem.paths import resolve_paths
from graphmem.types import Category

GRAPHMEM = Path(sys.executable).with_name("graphmem")
WORDS = ["cache", "thread", "lock", "encoding", "socket", "timeout", "parser", "buffer", "retry", "path"]
DEF = re.compile(r"^def (\w+)\(([^)\n]*)\)( -> [^:\n]+)?:", re.M)


CPU: dict[str, list[float]] = {}


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], payload: str, env: dict[str, str], cwd: Path, kind: str = "") -> tuple[float, str]:
    """Milliseconds from spawn to exit, and what the command printed; the process's CPU time
    (user + system, less sensitive to a busy machine than the wall time) goes to ``CPU[kind]``."""
    cpu = _children_cpu()
    t = time.perf_counter()
    out = subprocess.run(cmd, input=payload, capture_output=True, text=True, env=env, cwd=cwd, timeout=60)
    ms = (time.perf_counter() - t) * 1000
    if kind:
        CPU.setdefault(kind, []).append((_children_cpu() - cpu) * 1000)
    if out.returncode != 0:
        raise RuntimeError(f"{cmd} exited {out.returncode}: {out.stderr}")
    return ms, out.stdout


def stats(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 50), 1), "p95_ms": round(percentile(values, 95), 1),
            "p99_ms": round(percentile(values, 99), 1), "max_ms": round(max(values), 1)}


EDIT_LINE = re.compile(
    r"edit context: (\d+) files? written ([\d.]+) ms before the call \((.*)\), (taken in|NOT taken in \(deadline\)) "
    r"after ([\d.]+) ms; answered ([\d.]+) ms later"
)
CHANGES_LINE = re.compile(r"changes \S+: (\d+) of (\d+) paths parsed, \d+ removed in ([\d.]+) ms"
                          r"(?: \(begun ([\d.]+) ms after the newest write\))?"
                          r"(?:, (\d+) parse workers started for it)?: (.*); ([\d.]+) CPU-ms"
                          r"(?:; parse workers ([\d.]+) ms \(([\d.]+) CPU\) on \d+"
                          r"(?:, (\d+) re-parsed incrementally)?)?")
STEP = re.compile(r"(\w+) ([\d.]+) \(([\d.]+) CPU\)")


class DaemonLog:
    """The daemon's log lines written since the last ``take`` (a wait's and a batch's timings)."""

    def __init__(self, home: Path) -> None:
        self.path = resolve_paths(home, {}).log
        self.offset = self.path.stat().st_size if self.path.exists() else 0

    def take(self) -> dict[str, object]:
        """What the lines since the last call say of one edit: the call's wait, its batches."""
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return {}
        self.offset += len(data)
        out: dict[str, object] = {"batches": []}
        for line in data.decode("utf-8", "replace").splitlines():
            if m := EDIT_LINE.search(line):
                out.update(arrived_ms=float(m.group(2)), arrival=m.group(3), indexed=m.group(4) == "taken in",
                           waited_ms=float(m.group(5)), answered_ms=float(m.group(6)))  # fmt: skip
            elif m := CHANGES_LINE.search(line):
                found = STEP.findall(m.group(6))
                steps = {name: round(float(sec) * 1000, 1) for name, sec, _ in found}
                batch = {"parsed": int(m.group(1)), "paths": int(m.group(2)), "ms": float(m.group(3)),
                         "begun_after_write_ms": float(m.group(4)) if m.group(4) else None,
                         "workers_started": int(m.group(5) or 0), "steps_ms": steps,
                         "steps_cpu_ms": {name: round(float(cpu) * 1000, 1) for name, _, cpu in found},
                         "cpu_ms": float(m.group(7)),
                         "worker_ms": float(m.group(8)) if m.group(8) else None,
                         "worker_cpu_ms": float(m.group(9)) if m.group(9) else None,
                         "incremental": int(m.group(10) or 0)}  # fmt: skip
                out["batches"].append(batch)  # type: ignore[attr-defined]
        return out


def seed(d: DaemonProc, n: int, rng: random.Random) -> list[str]:
    """``n`` observations; returns the files whose top-level functions carry notes."""
    with d.client() as c:
        symbols = c.find_symbols("*", limit=1000) + c.find_symbols("*_*", limit=1000)
        symbols = list({s.id: s for s in symbols}.values())
        files = sorted({s.path for s in symbols})
        top = [s for s in symbols if s.kind == "function" and "." not in s.qualname]
        others = [x for x in Category if x not in (Category.CONSTRAINT, Category.DECISION)]
        for i in range(n):
            anchor = rng.choice(files) if i % 5 == 0 else (rng.choice(top) if i % 3 == 0 else rng.choice(symbols)).ref
            cat = rng.choice([Category.CONSTRAINT, Category.DECISION]) if i % 5 == 1 else rng.choice(others)
            c.observe(f"note {i}: {' '.join(rng.sample(WORDS, 3))} matters here", anchors=[anchor], category=cat,
                      source="bench")
        return sorted({s.path for s in top})


def compile_bytecode() -> None:
    """Compile graphmem's modules, as installing a wheel (and ``scripts/setup.sh``) does: where
    ``PYTHONDONTWRITEBYTECODE`` is set, a module edited since its last compile (a merge, a
    checkout) is compiled again by every hook process, which no installed hook pays."""
    import compileall

    import graphmem
    import graphmemd

    for package in (graphmem, graphmemd):
        compileall.compile_dir(str(Path(package.__file__).parent), quiet=2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--observations", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--corpora", default="click,attrs,marshmallow", help="comma-separated bundles ('' skips)")
    ap.add_argument("--corpus-runs", type=int, default=30)
    ap.add_argument("--skip-stdlib", action="store_true", help="only the corpora")
    ap.add_argument("--paced-runs", type=int, default=20, help="post-edits at an agent's pace (0 skips)")
    ap.add_argument("--pace-s", type=float, default=1.5, help="seconds between paced edits (the workers idle out at 1)")
    ap.add_argument("--keep-log", type=Path, help="copy the stdlib run's daemon log here before its home goes")
    args = ap.parse_args()
    compile_bytecode()
    histories = [corpus_sizes(name, args.corpus_runs) for name in args.corpora.split(",") if name.strip()]
    if args.skip_stdlib:
        return report_corpora(histories, args.json)
    rng = random.Random(30)
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    home, empty = short_home(), short_home()
    corpus = stdlib_corpus(tmp)
    env = dict(os.environ, GRAPHMEM_HOME=str(home))
    env.pop("GRAPHMEM_ADDRESS", None)
    lat: dict[str, list[float]] = {k: [] for k in
                                   ("floor_python", "floor_hook", "rpc_brief", "rpc_edit", "session_start", "post_edit",
                                    "post_edit_changed", "post_edit_paced", "rpc_edit_paced")}
    said = {"session_start": 0, "post_edit": 0, "post_edit_changed": 0, "callouts": 0, "paced_callouts": 0,
            "rpc_paced_indexed": 0}
    runs: list[dict[str, object]] = []  # each post_edit_changed run: what the hook waited for
    paced: list[dict[str, object]] = []  # the same for post_edit_paced
    d = DaemonProc(home, [corpus])
    try:
        d.wait_queryable()
        noted = seed(d, args.observations, rng)
        d.wait_idle()
        load_before = load_average()
        hook = [str(GRAPHMEM), "hook"]
        with d.client() as c:
            for _ in range(args.runs):
                t = time.perf_counter()
                c.brief(repo=str(corpus), budget=400)
                lat["rpc_brief"].append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                c.edit_context([str(corpus / rng.choice(noted))], repo=str(corpus), wait_ms=500)
                lat["rpc_edit"].append((time.perf_counter() - t) * 1000)
        start = json.dumps({"session_id": "b", "cwd": str(corpus), "hook_event_name": "SessionStart",
                            "source": "startup"})
        log = DaemonLog(home)
        for i in range(args.runs):
            lat["floor_python"].append(timed([sys.executable, "-c", "pass"], "", env, corpus, "floor_python")[0])
            lat["floor_hook"].append(
                timed([*hook, "session-start", "--home", str(empty)], start, env, corpus, "floor_hook")[0])
            ms, out = timed([*hook, "session-start"], start, env, corpus, "session_start")
            lat["session_start"].append(ms)
            said["session_start"] += bool(out)
            path = corpus / rng.choice(noted)
            edit = {"session_id": f"e{i}", "cwd": str(corpus), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                    "tool_input": {"file_path": str(path)}}
            ms, out = timed([*hook, "post-edit"], json.dumps(edit), env, corpus, "post_edit")
            lat["post_edit"].append(ms)
            said["post_edit"] += bool(out)
            lines = log.take()  # the previous edit's, its late batches included
            if runs:
                merge(runs[-1], lines)
            if not edit_signature(path, i):
                continue
            ms, out = timed([*hook, "post-edit"], json.dumps({**edit, "session_id": f"c{i}"}), env, corpus,
                            "post_edit_changed")
            lat["post_edit_changed"].append(ms)
            said["post_edit_changed"] += bool(out)
            said["callouts"] += "changed code under" in out
            runs.append({"ms": round(ms, 1), "cpu_ms": round(CPU["post_edit_changed"][-1], 1),
                         "callout": "changed code under" in out, **_file(corpus, path)})  # fmt: skip
        if runs:
            wait_until_logged(log, runs[-1])
        for i in range(args.paced_runs):  # an agent's pace: each edit after the parse workers went idle
            path = corpus / rng.choice(noted)
            time.sleep(args.pace_s)
            lines = log.take()  # (after the pause: the previous edit's batch logs its line after its answer)
            if paced:
                merge(paced[-1], lines)
            if not edit_signature(path, 1000 + i):
                continue
            edit = {"session_id": f"p{i}", "cwd": str(corpus), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                    "tool_input": {"file_path": str(path)}}
            ms, out = timed([*hook, "post-edit"], json.dumps(edit), env, corpus, "post_edit_paced")
            lat["post_edit_paced"].append(ms)
            said["paced_callouts"] += "changed code under" in out
            paced.append({"ms": round(ms, 1), "cpu_ms": round(CPU["post_edit_paced"][-1], 1),
                          "callout": "changed code under" in out, **_file(corpus, path)})  # fmt: skip
        if paced:
            wait_until_logged(log, paced[-1])
        with d.client() as c:  # the daemon's share at that pace: from the write to the answer, no hook process
            for i in range(args.paced_runs):
                path = corpus / rng.choice(noted)
                time.sleep(args.pace_s)
                t = time.perf_counter()
                if edit_signature(path, 2000 + i):
                    got = c.edit_context([str(path)], repo=str(corpus), wait_ms=5000)
                    lat["rpc_edit_paced"].append((time.perf_counter() - t) * 1000)
                    said["rpc_paced_indexed"] += got.indexed
        load_after = load_average()
    finally:
        d.stop()
        if args.keep_log is not None:
            with contextlib.suppress(OSError):
                shutil.copyfile(resolve_paths(home, {}).log, args.keep_log)
        for p in (tmp, home, empty):
            shutil.rmtree(p, ignore_errors=True)
    result = {
        "observations": args.observations,
        "runs": args.runs,
        **{k: stats(v) for k, v in lat.items() if v},
        "cpu_ms_p50": {k: round(percentile(v, 50), 1) for k, v in CPU.items()},
        "edits_timed": len(lat["post_edit_changed"]),
        "post_edit_changed_runs": runs,
        "post_edit_changed_slowest": slowest(runs),
        "pace_s": args.pace_s,
        "post_edit_paced_runs": paced,
        "post_edit_paced_slowest": slowest(paced),
        "indexer_cpu_ms": indexer_cpu([*runs, *paced]),
        "paced_repeats": repeats(runs, paced),
        "answers_with_text": said,
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(load_after, 2),
        "target_p95_ms": 150,
    }
    result["corpora"] = histories
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"hooks over the stdlib corpus with {args.observations} observations, {args.runs} runs each "
          f"(load average 1 min: {load_before:.2f} before, {load_after:.2f} after)")
    for k in lat:
        if lat[k]:
            s = result[k]
            print(f"  {k:<18} p50 {s['p50_ms']:>6} ms  p95 {s['p95_ms']:>6} ms  p99 {s['p99_ms']:>6} ms  "
                  f"max {s['max_ms']:>6} ms")
    print("  the hook process's CPU time, p50: " + ", ".join(f"{k} {v} ms" for k, v in result["cpu_ms_p50"].items()))
    print(f"  answers with text: {said} (target: hooks p95 <= 150 ms)")
    print("  the slowest post_edit_changed runs (hook ms: call arrived after the write, how the file stood, "
          "waited, answered; batches):")
    for r in result["post_edit_changed_slowest"]:
        print(f"    {r}")
    print(f"  the slowest post_edit_paced runs (each edit {args.pace_s} s after the previous one):")
    for r in result["post_edit_paced_slowest"]:
        print(f"    {r}")
    rep = repeats(runs, paced)
    print(f"  paced edits of a file edited before in this run: {rep['repeated']} of {rep['edits']}; "
          f"parsed incrementally: {rep['incremental']}")
    cpu = result["indexer_cpu_ms"]
    print("  the indexer thread's CPU per edited file (ms, p50 / p95 / max): "
          + ", ".join(f"{k} {v['p50']} / {v['p95']} / {v['max']}" for k, v in cpu.items()))  # type: ignore[union-attr]
    report_corpora(histories, False)
    return 0


def edit_signature(path: Path, i: int) -> bool:
    """Add an optional parameter to the first top-level function of ``path`` (False: it has none)."""
    text = path.read_text(encoding="utf-8")
    m = DEF.search(text)
    if m is None:
        return False
    params = m.group(2).strip()
    new_params = f"{params}, _bench{i}=None" if params and not params.endswith(("*", "/")) else "_bench=None"
    path.write_text(text[: m.start(2)] + new_params + text[m.end(2) :], encoding="utf-8")
    return True


def _file(corpus: Path, path: Path) -> dict[str, object]:
    """The edited file of a run: its path in the corpus and its size after the edit."""
    return {"file": path.relative_to(corpus).as_posix(), "bytes": path.stat().st_size}


def merge(run: dict[str, object], lines: dict[str, object]) -> None:
    """Add what the daemon's lines say (``DaemonLog.take``) to one run's record."""
    batches = [*run.get("batches", []), *lines.pop("batches", [])]  # type: ignore[misc]
    run.update(lines, batches=batches)


def wait_until_logged(log: DaemonLog, run: dict[str, object], timeout: float = 5.0) -> None:
    """Read the last edit's lines once its batch is logged (it may end after the hook)."""
    deadline = time.monotonic() + timeout
    while True:
        merge(run, log.take())
        if run["batches"] or time.monotonic() > deadline:
            return
        time.sleep(0.05)


#: the steps of a batch before its post-edit waiters are answered (then: ``dependents``, ...)
BEFORE_ANSWER = ("classify", "parse", "delta", "swap", "memory", "publish", "knowledge")


def indexer_cpu(runs: list[dict[str, object]]) -> dict[str, dict[str, float]]:
    """The indexer thread's CPU for each one-file batch of ``runs`` (its log's CPU per step):
    before the waiting call is answered, in its delta step, and in the dependents resolved after."""
    batches = [b for r in runs for b in r.get("batches", []) if b["parsed"] == 1]  # type: ignore[attr-defined]
    got: dict[str, list[float]] = {"before_answer": [], "delta": [], "dependents": []}
    for b in batches:
        cpu = b.get("steps_cpu_ms", {})
        got["before_answer"].append(sum(v for k, v in cpu.items() if k in BEFORE_ANSWER))
        got["delta"].append(cpu.get("delta", 0.0))
        got["dependents"].append(cpu.get("dependents", 0.0))
    return {k: {"p50": round(percentile(v, 50), 1), "p95": round(percentile(v, 95), 1), "max": round(max(v), 1),
                "batches": len(v)} for k, v in got.items() if v}  # fmt: skip


def repeats(runs: list[dict[str, object]], paced: list[dict[str, object]]) -> dict[str, int]:
    """How many paced edits were of a file edited before in the run (a parse worker may keep its
    tree, ``LiveTrees``), and how many batches of paced edits a worker re-parsed incrementally."""
    seen = {r.get("file") for r in runs}
    repeated = 0
    for r in paced:
        repeated += int(r.get("file") in seen)
        seen.add(r.get("file"))
    batches: list[dict[str, object]] = [b for r in paced for b in r.get("batches", [])]  # type: ignore[attr-defined]
    incremental = sum(int(b.get("incremental") or 0) for b in batches)  # type: ignore[call-overload]
    return {"edits": len(paced), "repeated": repeated, "incremental": incremental}


def slowest(runs: list[dict[str, object]], n: int = 5) -> list[str]:
    """The ``n`` slowest edits, one line each: where their time went."""
    lines = []
    for r in sorted(runs, key=lambda r: -float(r["ms"]))[:n]:  # type: ignore[arg-type]
        batches = "; ".join(
            f"batch of {b['paths']} begun {b['begun_after_write_ms']} ms after the write, {b['ms']} ms"
            + (f" ({b['workers_started']} workers started)" if b["workers_started"] else "")
            + ": "
            + ", ".join(f"{k} {v}" for k, v in b["steps_ms"].items() if v >= 1)
            + (f" [parse worker {b['worker_ms']} ms, {b['worker_cpu_ms']} CPU"
               + (", incremental" if b.get("incremental") else "") + "]" if b.get("worker_ms") else "")
            for b in r.get("batches", [])  # type: ignore[attr-defined]
        )
        lines.append(f"{r['ms']} ms (CPU {r['cpu_ms']}), {r.get('file')} ({r.get('bytes')} bytes): "
                     f"arrived {r.get('arrived_ms')} ms after the write, "
                     f"{r.get('arrival')}, waited {r.get('waited_ms')}, answered {r.get('answered_ms')}; {batches}")
    return lines


CORPORA = Path("/work/shared/corpora")
NOTE_ID = re.compile(r", id ([0-9a-f]+)\]")


def _context(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""
TOP_DEF = re.compile(r"^def (\w+)\(([^)\n]*)\)", re.M)


def _size(text: str) -> dict[str, int]:
    """The agent's context text in bytes and in tokens (the daemon's estimate: 4 bytes a token)."""
    return {"bytes": len(text.encode()), "tokens": -(-len(text.encode()) // 4)}


def _files_by_functions(root: Path) -> list[tuple[Path, list[re.Match[str]]]]:
    """Python files (not tests) with their top-level functions, most functions first."""
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(("tests/", "test/", "docs/")) or "/tests/" in rel:
            continue
        found = [m for m in TOP_DEF.finditer(p.read_text(encoding="utf-8")) if "*" not in m.group(2)]
        if found:
            out.append((p, found))
    return sorted(out, key=lambda x: (-len(x[1]), str(x[0])))


def _fresh_defs(path: Path) -> list[re.Match[str]]:
    """The top-level functions of ``path`` as it is now that no earlier round edited."""
    text = path.read_text(encoding="utf-8")
    return [m for m in TOP_DEF.finditer(text) if "*" not in m.group(2) and "bench_arg" not in m.group(2)]


def corpus_sizes(name: str, runs: int) -> dict[str, object]:
    """The hooks' sizes and latencies on one real history (module docstring)."""
    tmp = Path(tempfile.mkdtemp(prefix="gmhist"))
    home = short_home()
    repo = tmp / name
    subprocess.run(["git", "clone", "-q", str(CORPORA / f"{name}.bundle"), str(repo)], check=True)
    env = dict(os.environ, GRAPHMEM_HOME=str(home))
    env.pop("GRAPHMEM_ADDRESS", None)
    hook = [str(GRAPHMEM), "hook"]
    out: dict[str, object] = {"corpus": name}
    d = DaemonProc(home, [repo])
    try:
        d.wait_queryable()
        d.wait_idle()
        with d.client() as c:
            units = [o for o in c.list(repo=str(repo), limit=0) if o.knowledge is not None]
        out["doc_units"] = len(units)
        out["doc_units_not_fresh"] = sum(o.status.value != "fresh" for o in units)
        load_before = load_average()
        start = json.dumps(
            {"session_id": "s", "cwd": str(repo), "hook_event_name": "SessionStart", "source": "startup"}
        )
        lat: list[float] = []
        text = ""
        for _ in range(runs):
            ms, text = timed([*hook, "session-start"], start, env, repo)
            lat.append(ms)
        out["session_start"] = {**stats(lat), **_size(_context(text)), "output_bytes": len(text.encode())}
        files = _files_by_functions(repo)
        unchanged = files[0][0]
        lat, sizes = [], []
        for i in range(runs):
            edit = {"session_id": f"u{i}", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                    "tool_input": {"file_path": str(unchanged)}}
            ms, said = timed([*hook, "post-edit"], json.dumps(edit), env, repo)
            lat.append(ms)
            sizes.append(len(said.encode()))
        out["post_edit_unchanged"] = {**stats(lat), "max_bytes": max(sizes)}
        callouts: dict[str, object] = {}
        for k in (1, 3, 10):  # each time functions not edited yet (the file's current text)
            path, defs = next((p, d) for p, d in ((p, _fresh_defs(p)) for p, _ in files) if len(d) >= k)
            rel = path.relative_to(repo).as_posix()
            with d.client() as c:
                for m in defs[:k]:
                    c.observe(f"{m.group(1)} is called by the command line; keep its arguments",
                              category=Category.DECISION, anchors=[f"{rel}::{m.group(1)}"], source="bench")
            src = path.read_text(encoding="utf-8")
            for m in reversed(defs[:k]):  # from the end, so the earlier offsets stay valid
                params = m.group(2).strip()
                new = f"{params}, bench_arg" if params else "bench_arg"
                src = src[: m.start(2)] + new + src[m.end(2) :]
            path.write_text(src, encoding="utf-8")
            edit = {"session_id": f"k{k}", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                    "tool_input": {"file_path": str(path)}}
            ms, said = timed([*hook, "post-edit", "--wait-ms", "5000"], json.dumps(edit), env, repo)
            again_ms, again = timed([*hook, "post-edit"], json.dumps(edit), env, repo)
            first, second = _context(said), _context(again)
            affected = re.search(r"changed code under (\d+) note", first)
            ids_first, ids_again = set(NOTE_ID.findall(first)), set(NOTE_ID.findall(second))
            callouts[str(k)] = {
                "ms": round(ms, 1), **_size(first), "notes_saved": k,
                "notes_affected": int(affected.group(1)) if affected else 0,  # docs units naming them too
                "notes_shown": len(ids_first), "again_ms": round(again_ms, 1),
                "again_shown": len(ids_again),  # the rest the budget left out, if any
                "again_repeated": len(ids_first & ids_again), "file": rel,
            }  # fmt: skip
            if k == 3:
                out["callout_example"] = first
        out["post_edit_callout"] = callouts
        out["session_brief_text"] = _context(text)
        out["load_1min_before"] = round(load_before, 2)
        out["load_1min_after"] = round(load_average(), 2)
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return out


def report_corpora(histories: list[dict[str, object]], as_json: bool) -> int:
    """Print the corpora's figures (``--json``: one JSON object when only they were run)."""
    if as_json:
        if histories and not any("floor_python" in h for h in histories):
            print(json.dumps({"corpora": histories}))
        return 0
    for h in histories:
        s, u = h["session_start"], h["post_edit_unchanged"]
        assert isinstance(s, dict)
        assert isinstance(u, dict)
        print(f"{h['corpus']}: {h['doc_units']} doc units ({h['doc_units_not_fresh']} not fresh), no notes at first "
              f"(load average 1 min: {h['load_1min_before']} before, {h['load_1min_after']} after)")
        print(f"  session_start        {s['bytes']:>5} bytes {s['tokens']:>4} tokens  p50 {s['p50_ms']} ms  "
              f"p95 {s['p95_ms']} ms")
        print(f"  post_edit unchanged  max {u['max_bytes']} bytes  p50 {u['p50_ms']} ms  p95 {u['p95_ms']} ms")
        calls = h["post_edit_callout"]
        assert isinstance(calls, dict)
        for k, c in calls.items():
            print(f"  post_edit, {k:>2} notes saved ({c['notes_affected']} affected with the docs)  "
                  f"{c['bytes']:>5} bytes {c['tokens']:>4} tokens, {c['notes_shown']} shown  {c['ms']} ms; run again: "
                  f"{c['again_shown']} shown ({c['again_repeated']} repeated)  [{c['file']}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
