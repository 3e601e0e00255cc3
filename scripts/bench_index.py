#!/usr/bin/env python3
"""Cold-index benchmark: a real daemon indexes the stdlib (without tests) and the mixed fixtures.

Prints files, lines, symbols, edges; seconds until the index is *queryable* (every query
kind answers completely: the repository is ready, retrieval reports the index current and
text search no longer reports its symbol index as rebuilding) and until it is *durable*
(every store write and index done); the bare-parse floor (same files, same number of worker
processes, same IPC, no extraction/resolution/DB) measured right before each index, and both
ratios (median of ``--repeat`` back-to-back pairs); the restart: a second daemon on the same
store, with nothing changed on disk, until the index is current again, and how many files it
parsed; peak RSS of the whole process tree (sampled every 50 ms: the most it held at once), of
the daemon, of its parse workers (each one's own peak, added up, workers that exited when idle
included) and every process's own peak added up (an upper bound). The
CPU seconds (robust on a shared machine): the floor's workers, and the daemon and its other
processes (parse workers, git) to each mark, with the median CPU ratios. The
1-minute load average is printed before every measurement, with a loud warning when the
machine is busy (``--strict``: refuse). ``--json`` prints one JSON object.
Targets (issue 16): queryable <= 2.5x and durable <= 3.0x the floor; whole-tree RSS <= 450 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import DaemonProc, check_quiet, mixed_corpus, short_home, stdlib_corpus, tree_cpu_seconds
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.walker import WalkedFile, walk_repo

#: CPU seconds the workers of the last ``floor_seconds`` used for the timed bare parse
FLOOR_CPU: list[float] = [0.0]


def floor_seconds(root: Path, workers: int) -> tuple[float, int, int]:
    files = [w for w in walk_repo(root) if isinstance(w, WalkedFile)]
    lines = sum(w.abs_path.read_bytes().count(b"\n") for w in files)
    with ParsePool(workers) as pool:
        list(pool.parse_many([(w.path, w.abs_path) for w in files[:20]], bare=True))  # warm the workers
        cpu = tree_cpu_seconds(os.getpid())[1]
        t = time.perf_counter()
        list(pool.parse_many([(w.path, w.abs_path) for w in files], bare=True))
        wall = time.perf_counter() - t
        FLOOR_CPU[0] = tree_cpu_seconds(os.getpid())[1] - cpu
        return wall, len(files), lines


def cold_index(root: Path, workers: int, restart: bool = False) -> dict[str, Any]:
    home = short_home()
    d = DaemonProc(home, workers=workers)
    try:
        with d.client(600) as c:
            cpu0 = tree_cpu_seconds(d.proc.pid)
            t = time.perf_counter()
            c.add_repo(root)
            d.wait_queryable()
            wall = time.perf_counter() - t
            cpu1 = tree_cpu_seconds(d.proc.pid)
            d.wait_durable()
            durable = time.perf_counter() - t
            cpu2 = tree_cpu_seconds(d.proc.pid)
            repo = c.list_repos()[0]
        out: dict[str, Any] = {
            "wall_s": wall,
            "durable_s": durable,
            # CPU seconds (daemon, its other processes: parse workers, git) to each mark
            "cpu_queryable": (cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]),
            "cpu_durable": (cpu2[0] - cpu0[0], cpu2[1] - cpu0[1]),
            "symbols": repo.symbols,
            "edges": repo.edges,
            "indexed_files": repo.files,
            "peak_rss_mb": d.peak_rss_mb(),
        }
        if restart:
            d.stop()
            t = time.perf_counter()
            d = DaemonProc(home, workers=workers)
            d.wait_queryable()
            out["restart_s"] = time.perf_counter() - t
            with d.client() as c:
                out["restart_files_parsed"] = c.list_repos()[0].files_parsed
        return out
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--repeat", type=int, default=3, help="floor/index pairs measured back to back (median)")
    ap.add_argument("--strict", action="store_true", help="refuse to measure on a busy machine")
    args = ap.parse_args()
    loads: list[float] = []
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    runs: list[tuple[float, dict[str, Any]]] = []
    try:
        stdlib = stdlib_corpus(tmp)
        mixed = mixed_corpus(tmp)
        for i in range(args.repeat):  # adjacent pairs share the machine's momentary load
            loads.append(check_quiet(f"floor {i + 1}", strict=args.strict))
            floor, files, lines = floor_seconds(stdlib, args.workers)
            loads.append(check_quiet(f"index {i + 1}", strict=args.strict))
            floor_cpu = FLOOR_CPU[0]
            runs.append((floor, cold_index(stdlib, args.workers, restart=i == 0) | {"floor_cpu_s": floor_cpu}))
        mixed_res = cold_index(mixed, args.workers)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ratios = [r["wall_s"] / f for f, r in runs]
    durable_ratios = [r["durable_s"] / f for f, r in runs]
    mid = sorted(range(len(runs)), key=lambda i: ratios[i])[len(runs) // 2]  # the median pair
    floor, res = runs[mid]
    rss = max((r["peak_rss_mb"] for _, r in runs), key=lambda m: m["tree"])
    restart = runs[0][1]
    out = {
        "corpus": "stdlib",
        "workers": args.workers,
        "files": files,
        "lines": lines,
        "symbols": res["symbols"],
        "edges": res["edges"],
        "wall_s": round(res["wall_s"], 3),
        "durable_s": round(res["durable_s"], 3),
        "floor_s": round(floor, 3),
        "ratio": round(ratios[mid], 2),
        "ratios": [round(x, 2) for x in ratios],
        "durable_ratio": round(sorted(durable_ratios)[len(runs) // 2], 2),
        "durable_ratios": [round(x, 2) for x in durable_ratios],
        "restart_s": round(restart["restart_s"], 3),
        "restart_files_parsed": restart["restart_files_parsed"],
        "load_averages": [round(x, 2) for x in loads],
        # CPU seconds of each pair: the floor's workers; daemon + its other processes to each mark
        "floor_cpu_s": [round(r["floor_cpu_s"], 2) for _, r in runs],
        "cpu_queryable_s": [[round(x, 2) for x in r["cpu_queryable"]] for _, r in runs],
        "cpu_durable_s": [[round(x, 2) for x in r["cpu_durable"]] for _, r in runs],
        "cpu_ratio": round(statistics.median(sum(r["cpu_queryable"]) / r["floor_cpu_s"] for _, r in runs), 2),
        "cpu_durable_ratio": round(statistics.median(sum(r["cpu_durable"]) / r["floor_cpu_s"] for _, r in runs), 2),
        "lines_per_s": round(lines / res["wall_s"]),
        "peak_rss_mb": round(rss["daemon"], 1),
        "workers_peak_rss_mb": round(rss["workers"], 1),
        "tree_peak_rss_mb": round(rss["tree"], 1),
        "sum_of_peaks_mb": round(rss["sum_of_peaks"], 1),
        "mixed": {
            "files": mixed_res["indexed_files"],
            "symbols": mixed_res["symbols"],
            "wall_s": round(mixed_res["wall_s"], 3),
        },
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"stdlib: {files} files, {lines} lines, {out['symbols']} symbols, {out['edges']} edges")
        print(f"load averages before each measurement: {out['load_averages']}")
        print(
            f"queryable after {out['wall_s']} s ({out['lines_per_s']} lines/s); bare parse floor {out['floor_s']} s "
            f"with {args.workers} workers; ratio {out['ratio']} (median of {out['ratios']}; target <= 2.5)"
        )
        print(
            f"durable after {out['durable_s']} s; ratio {out['durable_ratio']} "
            f"(median of {out['durable_ratios']}; target <= 3.0)"
        )
        print(
            f"CPU seconds, floor (workers): {out['floor_cpu_s']}; to queryable (daemon, other processes): "
            f"{out['cpu_queryable_s']}; to durable: {out['cpu_durable_s']}; median CPU ratio "
            f"{out['cpu_ratio']} queryable, {out['cpu_durable_ratio']} durable"
        )
        print(
            f"restart with nothing changed: current again after {out['restart_s']} s, "
            f"{out['restart_files_parsed']} files parsed"
        )
        print(
            f"peak RSS: whole process tree {out['tree_peak_rss_mb']} MB (target <= 450); "
            f"daemon {out['peak_rss_mb']} MB; parse workers {out['workers_peak_rss_mb']} MB; every process's "
            f"own peak added up {out['sum_of_peaks_mb']} MB"
        )
        m = out["mixed"]
        print(f"mixed fixtures: {m['files']} files, {m['symbols']} symbols in {m['wall_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
