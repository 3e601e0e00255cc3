#!/usr/bin/env python3
"""Where the seconds of a cold index go, on each store engine: a table.

For each size (``--sizes``, million lines; trees built as ``bench_scale.py`` builds them) and
each engine (``--engines``), back to back: the bare-parse floor (the same worker count
parsing every file with tree-sitter and nothing else), then a daemon on a fresh home indexing
the tree cold, with its log at DEBUG. From the daemon's events: queryable and durable; from
its log: the indexer's walk + parse (the workers' full parse, overlapped with the daemon's
per-file work: resolver hand-over, symbol ids, cached-parse queueing), its apply (delta,
resolution, swap, staleness), and the store writer's busy time (graph rows: the bulk COPYs;
cached parses). The CPU seconds the daemon and its parse workers used up to each mark (the
workers are kept alive for it: ``GRAPHMEM_PARSE_IDLE_S``) bound the wall time from below on
this machine's cores. Then a restart with nothing changed, until current. Prints the load average
before each measurement; ``--json`` prints one JSON object.

``--against DIR`` measures a second code tree too (e.g. ``git archive 98fff7e daemon clients
scripts fixtures | tar -x -C DIR``; its bytecode compiled first, as ``scripts/setup.sh`` compiles
this checkout's), on the same tree with the same benchmark, ``--repeat`` times each, alternating
which code goes first: on this shared machine the CPU seconds of the two codes side by side are
the figure to compare, not wall times from another day.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_index import floor_seconds
from bench_scale import build_tree, wait_current
from benchlib import ROOT, DaemonProc, _cpu_seconds, _descendants, check_quiet, code_trees, short_home

_INDEXED = re.compile(
    r"indexed \S+: (\d+) files, (\d+) symbols, \d+ skipped in ([\d.]+)s \(walk\+parse ([\d.]+)s, apply ([\d.]+)s\)"
)
_APPLIED = re.compile(r"applied \d+ changed, \d+ removed: memory\+resolve ([\d.]+)s, staleness ([\d.]+)s")
_STORED = re.compile(r"stored \S+: (\d+) files, \d+ removed in ([\d.]+)s")
_CACHE = re.compile(r"parse cache: (\d+) files written in ([\d.]+)s")


def _phases(log: str) -> dict[str, float]:
    """The indexer's and the store writer's timings of the first (cold) pass in a daemon log."""
    out: dict[str, float] = {}
    m = _INDEXED.search(log)
    if m:
        out["files"], out["symbols"] = float(m.group(1)), float(m.group(2))
        out["indexer_total_s"], out["walk_parse_s"], out["apply_s"] = map(float, m.group(3, 4, 5))
    m = _APPLIED.search(log)
    if m:
        out["delta_resolve_s"], out["staleness_s"] = float(m.group(1)), float(m.group(2))
    out["store_rows_s"] = sum(float(s) for _, s in _STORED.findall(log))
    out["parse_cache_s"] = sum(float(s) for _, s in _CACHE.findall(log))
    return out


def measure(root: Path, engine: str, workers: int, code: Path = ROOT, logs: Path | None = None) -> dict[str, Any]:
    """One cold index of ``root`` on ``engine`` by the daemon of the checkout ``code``, and a restart;
    the daemon's log is copied into the directory ``logs`` if given."""
    home = short_home()
    env = {"GRAPHMEM_STORE_ENGINE": engine, "GRAPHMEM_LOG_LEVEL": "DEBUG", "GRAPHMEM_PARSE_IDLE_S": "3600"}
    d = DaemonProc(home, workers=workers, env=env, code=code)
    out: dict[str, Any] = {"engine": engine}
    try:

        def cpu() -> tuple[float, float]:
            return _cpu_seconds([d.proc.pid]), _cpu_seconds(_descendants(d.proc.pid))

        with d.client(600) as c:
            daemon0, workers0 = cpu()
            t = time.perf_counter()
            c.add_repo(root)
            d.wait_queryable(3600)
            out["queryable_s"] = time.perf_counter() - t
            daemon1, workers1 = cpu()
            d.wait_durable(3600)
            out["durable_s"] = time.perf_counter() - t
            daemon2, workers2 = cpu()
        out["cpu_daemon_queryable_s"], out["cpu_workers_queryable_s"] = daemon1 - daemon0, workers1 - workers0
        out["cpu_daemon_durable_s"], out["cpu_workers_durable_s"] = daemon2 - daemon0, workers2 - workers0
        out["cpu_durable_s"] = out["cpu_daemon_durable_s"] + out["cpu_workers_durable_s"]
        d.wait_idle()
        out["tree_peak_rss_mb"] = d.peak_rss_mb()["tree"]
        d.stop()
        out.update(_phases((home / "state" / "graphmemd.log").read_text(encoding="utf-8")))
        t = time.perf_counter()
        d = DaemonProc(home, workers=workers, env=env, code=code)
        wait_current(d, str(root / "pkg0" / "os.py"))
        out["restart_s"] = time.perf_counter() - t
        if logs:
            logs.mkdir(parents=True, exist_ok=True)
            kept = logs / f"{engine}-{code.name or 'this'}-{time.strftime('%H%M%S')}.log"
            shutil.copyfile(home / "state" / "graphmemd.log", kept)
            out["log"] = str(kept)
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="0.9")
    ap.add_argument("--engines", default="kuzu,ladybug")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--against", type=Path, help="a second code tree (daemon/, clients/) to measure alternately")
    ap.add_argument("--repeat", type=int, default=1, help="cold indexes of each code per size and engine")
    ap.add_argument("--logs", type=Path, help="keep each daemon's log (DEBUG) in this directory")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    codes = code_trees(args.against)
    tmp = Path(tempfile.mkdtemp(prefix="gmphase"))
    results: list[dict[str, Any]] = []
    try:
        for size in (float(s) for s in args.sizes.split(",")):
            root, files, lines = build_tree(tmp, size)
            load = check_quiet(f"floor at {size} M lines")
            floor, _, _ = floor_seconds(root, args.workers)
            for engine in args.engines.split(","):
                for i in range(args.repeat):
                    for code in codes if i % 2 == 0 else codes[::-1]:
                        res = {"million_lines": size, "files": files, "lines": lines, "floor_s": round(floor, 3)}
                        res["code"] = "this" if code == ROOT else str(code)
                        res["load_floor"] = round(load, 2)
                        res["load_index"] = round(check_quiet(f"{engine} at {size} M lines, {res['code']}"), 2)
                        res.update(measure(root, engine, args.workers, code, args.logs))
                        results.append(res)
            shutil.rmtree(root, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = [
        ("bare-parse floor", "floor_s"),
        ("walk + parse (workers' full parse, per-file hand-over)", "walk_parse_s"),
        ("apply: delta + resolution", "delta_resolve_s"),
        ("apply: staleness", "staleness_s"),
        ("apply total (delta, resolution, swap, staleness)", "apply_s"),
        ("**queryable** (INDEX_QUERYABLE)", "queryable_s"),
        ("store writer: graph rows (bulk COPY)", "store_rows_s"),
        ("store writer: cached parses", "parse_cache_s"),
        ("**durable** (INDEX_DURABLE)", "durable_s"),
        ("CPU s to queryable: daemon", "cpu_daemon_queryable_s"),
        ("CPU s to queryable: parse workers", "cpu_workers_queryable_s"),
        ("CPU s to durable: daemon", "cpu_daemon_durable_s"),
        ("CPU s to durable: parse workers", "cpu_workers_durable_s"),
        ("CPU s to durable: daemon + parse workers", "cpu_durable_s"),
        ("restart with nothing changed -> current", "restart_s"),
        ("whole-tree peak RSS (MB)", "tree_peak_rss_mb"),
    ]
    heads = [f"{r['engine']} {r['million_lines']} M {r['code']} (load {r['load_index']})" for r in results]
    print("| seconds | " + " | ".join(heads) + " |")
    print("|---|" + "---:|" * len(results))
    for label, key in rows:
        print(f"| {label} | " + " | ".join(str(r.get(key, "")) for r in results) + " |")
    if args.json:
        print(json.dumps({"runs": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
