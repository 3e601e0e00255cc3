#!/usr/bin/env python3
"""Acknowledgement latency: how long a create takes now that it returns only once the
journal line is fsynced AND the store has committed its copy.

A real daemon indexes a small repository (the python fixture) and the stdlib corpus; then
``--creates`` observations (default 300) are created one after another from this process and
each call is timed end to end (gRPC, anchor resolution, journal fsync, store commit).
``--during-index`` also times creates on the small repository while the stdlib corpus is
being indexed cold (the store writer is busy with its bulk load: the copies are urgent and
run between its chunks). Prints the load average; ``--json`` prints one JSON object.
Target: p95 <= 20 ms (idle).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from benchlib import ROOT, DaemonProc, check_quiet, load_average, percentile, short_home, stdlib_corpus
from graphmem.client import GraphMem

ANCHOR = "app/auth/crypto.py::hash_password"


def _timed_creates(c: GraphMem, repo: Path, n: int, label: str, until: float | None = None) -> list[float]:
    """Create up to ``n`` observations (stop early at ``until``, a monotonic time); the
    latency of each in milliseconds."""
    out: list[float] = []
    for i in range(n):
        if until is not None and time.monotonic() >= until:
            break
        t0 = time.perf_counter()
        c.observe(f"{label} note {i}: tokens must stay constant-time", anchors=[ANCHOR], repo=str(repo), tags=["bench"])
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _summary(ms: list[float]) -> dict[str, float]:
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "max_ms": round(max(ms, default=0.0), 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--creates", type=int, default=300)
    ap.add_argument("--during-index", action="store_true", help="also time creates during a cold stdlib index")
    ap.add_argument("--engine", default="", help="GRAPHMEM_STORE_ENGINE for the daemon (default: the daemon's)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    home = short_home()
    small = tmp / "python"
    shutil.copytree(ROOT / "fixtures" / "repos" / "python", small)
    env = {"GRAPHMEM_STORE_ENGINE": args.engine} if args.engine else None
    result: dict[str, object] = {"load_before": check_quiet("bench_ack")}
    d = DaemonProc(home, [small], env=env)
    try:
        d.wait_ready()
        d.wait_durable()
        with d.client() as c:
            _timed_creates(c, small, 10, "warm-up")
            result["idle"] = _summary(_timed_creates(c, small, args.creates, "idle"))
            if args.during_index:
                corpus = stdlib_corpus(tmp)
                c.add_repo(corpus)
                started = time.monotonic()
                during = _timed_creates(c, small, args.creates, "indexing", until=started + 120)
                result["during_index"] = _summary(during)
                result["during_index_s"] = round(time.monotonic() - started, 2)
        result["load_after"] = round(load_average(), 2)
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
