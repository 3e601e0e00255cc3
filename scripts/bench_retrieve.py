#!/usr/bin/env python3
"""Retrieval latency benchmark: Retrieve over gRPC from a separate client process.

A real daemon indexes the stdlib corpus; 2,000 observations (``--observations``) are anchored
to symbols and files across it; then 500 varied queries (``--queries``: files, symbols, text,
mixes; hops 1-3; some with budgets and include_stale) are timed end to end from this process.
``--json`` prints one JSON object. Targets: p50 < 10 ms, p99 < 50 ms. Also printed: the
daemon's CPU time per query (user + system over the timed queries, all its threads), which a
busy machine inflates less than the latencies.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import DaemonProc, _cpu_seconds, percentile, short_home, stdlib_corpus
from graphmem.types import Category

WORDS = [
    "cache",
    "thread",
    "lock",
    "encoding",
    "socket",
    "timeout",
    "parser",
    "buffer",
    "unicode",
    "retry",
    "pool",
    "signal",
    "deadlock",
    "overflow",
    "locale",
    "path",
    "escape",
    "header",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--observations", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument(
        "--worktrees",
        type=int,
        default=0,
        help="make the corpus a git repository and also register this many worktrees of it: the "
        "queries still read the first checkout, which now shows nothing extra but the daemon holds more",
    )
    ap.add_argument(
        "--git",
        action="store_true",
        help="make the corpus a git repository (one commit) without worktrees: the run to compare "
        "a --worktrees run with (that one is a git repository too)",
    )
    args = ap.parse_args()
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) * 0.7 and not args.json:
        print(f"warning: the machine is busy (1-min load {load:.2f}); latencies are affected", file=sys.stderr)
    rng = random.Random(11)
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    home = short_home()
    corpus = stdlib_corpus(tmp)
    worktrees = [tmp / f"wt{k}" for k in range(1, args.worktrees + 1)]
    if worktrees or args.git:
        git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "-C", str(corpus)]
        for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "corpus"]):
            subprocess.run([*git, *cmd], check=True, capture_output=True)
        for k, wt in enumerate(worktrees, 1):
            subprocess.run([*git, "worktree", "add", "-q", "-b", f"wt{k}", str(wt)], check=True, capture_output=True)
    d = DaemonProc(home, [corpus, *worktrees])
    try:
        d.wait_ready()
        with d.client() as c:
            symbols = c.find_symbols("*", repo=str(corpus), limit=1000)
            symbols += c.find_symbols("*_*", repo=str(corpus), limit=1000)
            symbols = list({s.id: s for s in symbols}.values())
            files = sorted({s.path for s in symbols})
            cats = list(Category)
            for i in range(args.observations):
                anchor = rng.choice(files) if i % 5 == 0 else rng.choice(symbols).ref
                words = " ".join(rng.sample(WORDS, 3))
                c.observe(
                    f"note {i}: {words} matters here",
                    anchors=[anchor],
                    category=rng.choice(cats),
                    tags=[rng.choice(WORDS)],
                    source="bench",
                    repo=str(corpus),
                )
            queries = []
            for i in range(args.queries):
                kind = i % 5
                q: dict[str, object] = {"hops": rng.choice([1, 2, 2, 3])}
                if kind == 0:
                    q["files"] = [rng.choice(files)]
                elif kind == 1:
                    q["symbols"] = [rng.choice(symbols).ref]
                elif kind == 2:
                    q["text"] = " ".join(rng.sample(WORDS, 2))
                elif kind == 3:
                    q["files"] = rng.sample(files, 2)
                    q["text"] = rng.choice(WORDS)
                else:
                    q["symbols"] = [rng.choice(symbols).ref]
                    q["budget"] = 500
                    q["include_stale"] = True
                q["repo"] = str(corpus)
                queries.append(q)
            for q in queries[:20]:  # warm up
                c.recall(**q)  # type: ignore[arg-type]
            lat: list[float] = []
            by_kind: dict[str, list[float]] = {}
            results = 0
            cpu0 = _cpu_seconds([d.proc.pid])
            for q in queries:
                t = time.perf_counter()
                r = c.recall(**q)  # type: ignore[arg-type]
                ms = (time.perf_counter() - t) * 1000
                lat.append(ms)
                by_kind.setdefault("+".join(k for k in ("files", "symbols", "text") if k in q), []).append(ms)
                results += len(r.results)
            cpu_ms = (_cpu_seconds([d.proc.pid]) - cpu0) * 1000 / max(1, len(queries))
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    out = {
        "queries": len(lat),
        "observations": args.observations,
        "p50_ms": round(percentile(lat, 50), 2),
        "p95_ms": round(percentile(lat, 95), 2),
        "p99_ms": round(percentile(lat, 99), 2),
        "mean_results": round(results / max(1, len(lat)), 1),
        "daemon_cpu_ms_per_query": round(cpu_ms, 2),
        "p50_ms_by_seed": {k: round(percentile(v, 50), 2) for k, v in sorted(by_kind.items())},
        "p99_ms_by_seed": {k: round(percentile(v, 99), 2) for k, v in sorted(by_kind.items())},
        "load_1min": round(load, 2),
        "worktrees": args.worktrees,
        "git": bool(args.worktrees or args.git),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{out['queries']} queries over {out['observations']} observations: p50 {out['p50_ms']} ms, "
            f"p95 {out['p95_ms']} ms, p99 {out['p99_ms']} ms (targets: p50 < 10, p99 < 50); "
            f"{out['mean_results']} results per query"
        )
        print("p50 by seed kind: " + ", ".join(f"{k} {v} ms" for k, v in out["p50_ms_by_seed"].items()))
        print(f"daemon CPU per query (user + system, all its threads): {out['daemon_cpu_ms_per_query']} ms "
              "(less sensitive to the machine's load than the latencies)")
        print(f"load average (1 min) at start: {load:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
