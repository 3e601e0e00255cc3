#!/usr/bin/env python3
"""Cold-index benchmark: a real daemon indexes the stdlib (without tests) and the mixed fixtures.

Prints files, lines, symbols, edges, wall seconds (until the index is queryable, and until it
is written to the store), lines/s, the bare-parse floor (same files, same number of worker
processes, same IPC, no extraction/resolution/DB) and their ratio (median of ``--repeat``
back-to-back pairs), and peak RSS: the daemon process, its parse workers, the whole tree.
``--json`` prints one JSON object.
Targets: ratio <= 3, peak RSS < 500 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import DaemonProc, mixed_corpus, short_home, stdlib_corpus
from graphmemd.parse_pool import ParsePool
from graphmemd.walker import WalkedFile, walk_repo


def floor_seconds(root: Path, workers: int) -> tuple[float, int, int]:
    files = [w for w in walk_repo(root) if isinstance(w, WalkedFile)]
    lines = sum(w.abs_path.read_bytes().count(b"\n") for w in files)
    with ParsePool(workers) as pool:
        list(pool.parse_many([(w.path, w.abs_path) for w in files[:20]], bare=True))  # warm the workers
        t = time.perf_counter()
        list(pool.parse_many([(w.path, w.abs_path) for w in files], bare=True))
        return time.perf_counter() - t, len(files), lines


def cold_index(root: Path, workers: int) -> dict[str, Any]:
    home = short_home()
    d = DaemonProc(home, workers=workers)
    try:
        with d.client(600) as c:
            t = time.perf_counter()
            c.add_repo(root)
            d.wait_ready()
            wall = time.perf_counter() - t
            d.wait_durable()
            durable = time.perf_counter() - t
            repo = c.list_repos()[0]
        return {
            "wall_s": wall,
            "durable_s": durable,
            "symbols": repo.symbols,
            "edges": repo.edges,
            "indexed_files": repo.files,
            "peak_rss_mb": d.peak_rss_mb(),
        }
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--repeat", type=int, default=3, help="floor/index pairs measured back to back (median)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    runs: list[tuple[float, dict[str, Any]]] = []
    try:
        stdlib = stdlib_corpus(tmp)
        mixed = mixed_corpus(tmp)
        for _ in range(args.repeat):  # adjacent pairs share the machine's momentary load
            floor, files, lines = floor_seconds(stdlib, args.workers)
            runs.append((floor, cold_index(stdlib, args.workers)))
        mixed_res = cold_index(mixed, args.workers)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ratios = [r["wall_s"] / f for f, r in runs]
    mid = sorted(range(len(runs)), key=lambda i: ratios[i])[len(runs) // 2]  # the median pair
    floor, res = runs[mid]
    rss = max((r["peak_rss_mb"] for _, r in runs), key=lambda m: m["daemon"])
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
        "lines_per_s": round(lines / res["wall_s"]),
        "peak_rss_mb": round(rss["daemon"], 1),
        "workers_peak_rss_mb": round(rss["workers"], 1),
        "tree_peak_rss_mb": round(rss["tree"], 1),
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
        print(
            f"cold index {out['wall_s']} s ({out['lines_per_s']} lines/s); bare parse floor {out['floor_s']} s "
            f"with {args.workers} workers; ratio {out['ratio']} (median of {out['ratios']}; target <= 3)"
        )
        print(f"queryable after {out['wall_s']} s; written to the store (durable) after {out['durable_s']} s")
        print(
            f"peak RSS: daemon {out['peak_rss_mb']} MB (target < 500); parse workers {out['workers_peak_rss_mb']} MB; "
            f"whole process tree {out['tree_peak_rss_mb']} MB"
        )
        m = out["mixed"]
        print(f"mixed fixtures: {m['files']} files, {m['symbols']} symbols in {m['wall_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
