#!/usr/bin/env python3
"""The store's two engines side by side, in one run: Kùzu and LadybugDB.

Each benchmark runs once per engine, back to back (Kùzu, then LadybugDB, then the next
benchmark), as its own process with ``GRAPHMEM_STORE_ENGINE`` set, so both see the machine
in the same state; the 1-minute load average is printed before each run. Benchmarks
(``--only``, comma separated):

* ``index``    bench_index.py: cold index to queryable / durable against the bare-parse floor,
               restart, whole-tree peak RSS (stdlib corpus);
* ``scale``    bench_scale.py at ``--sizes`` million lines: queryable, durable, RSS, restart;
* ``retrieve`` bench_retrieve.py: retrieval latency (its text queries: text-search p99);
* ``ack``      bench_ack.py: create latency (journal fsync + store commit);
* ``soak``     soak.py's load phase (``--soak-calls`` RPCs, no kills): tree RSS growth, with the
               engine's workarounds, then with each of ``--soak-off`` switched off alone, then
               with none (``GRAPHMEM_STORE_WORKAROUNDS``);
* ``scale-off`` bench_scale.py at the first size with each of ``--scale-off`` switched off;
* ``scale-all`` bench_scale.py at the first size with every workaround on.

    python scripts/bench_engines.py --only index,scale,soak [--sizes 0.9] [--soak-calls 20000] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchlib import load_average

HERE = Path(__file__).resolve().parent
ENGINES = ("kuzu", "ladybug")
WORKAROUNDS = ("recycle", "bulk-read", "chunks", "literals")


def _run(script: str, args: list[str], engine: str, workarounds: str | None = None) -> dict[str, Any]:
    """Run one benchmark script with ``--json`` on ``engine``; its JSON object (the last line
    that parses as one), with the load average before it."""
    env = dict(os.environ, GRAPHMEM_STORE_ENGINE=engine)
    if workarounds is not None:
        env["GRAPHMEM_STORE_WORKAROUNDS"] = workarounds
    load = load_average()
    label = f"{script} {' '.join(args)} on {engine}"
    if workarounds is not None:
        label += f" (workarounds: {workarounds})"
    print(f"[load average {load:.2f}] {label}", file=sys.stderr, flush=True)
    proc = subprocess.run(
        [sys.executable, str(HERE / script), *args, "--json"], env=env, capture_output=True, text=True, check=False
    )
    result: dict[str, Any] = {"error": proc.stderr.strip().splitlines()[-3:] if proc.returncode else None}
    for line in reversed(proc.stdout.strip().splitlines()):
        try:
            result.update(json.loads(line))
            break
        except ValueError:
            continue
    result["load_before"] = round(load, 2)
    result["returncode"] = proc.returncode
    print(f"    -> {json.dumps(_brief(script, result))}", file=sys.stderr, flush=True)
    return result


def _brief(script: str, r: dict[str, Any]) -> dict[str, Any]:
    """The figures of a result the table shows."""
    if script == "bench_index.py":
        keys = ("wall_s", "durable_s", "floor_s", "ratio", "durable_ratio", "restart_s", "tree_peak_rss_mb")
        return {k: r.get(k) for k in keys}
    if script == "bench_scale.py":
        sizes = r.get("sizes") or [{}]
        keys = ("million_lines", "queryable_s", "durable_s", "rss_mb", "cold_rss_mb", "restart_s", "checkout_s")
        return {k: sizes[0].get(k) for k in keys}
    if script == "soak.py":
        load = r.get("load") or {}
        keys = ("calls", "errors", "rss_after_warmup_mb", "rss_end_mb", "rss_growth_percent", "seconds")
        return {**{k: load.get(k) for k in keys}, "median_drift_mb": _drift(load)}
    if script == "bench_retrieve.py":
        text = (r.get("p99_ms_by_seed") or {}).get("text")
        return {"p50_ms": r.get("p50_ms"), "p99_ms": r.get("p99_ms"), "text_p99_ms": text}
    return {k: r.get(k) for k in ("idle", "during_index")}


def _drift(load: dict[str, Any]) -> float | None:
    """The soak's whole-tree RSS drift, robust to the swings of the store's reopens: the median
    of the last quarter of its samples minus the median of its second quarter, in MB."""
    tree = [s[1] for s in load.get("rss_samples_calls_tree_daemon_mb") or []]
    if len(tree) < 8:
        return None
    q = len(tree) // 4
    return round(statistics.median(tree[-q:]) - statistics.median(tree[q : 2 * q]), 1)


def _without(off: str) -> str:
    return ",".join(w for w in WORKAROUNDS if w != off) or "none"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="index,scale,retrieve,ack,soak")
    ap.add_argument("--sizes", default="0.9")
    ap.add_argument("--repeat", default="1", help="bench_index floor/index pairs per engine")
    ap.add_argument("--soak-calls", default="20000")
    ap.add_argument("--soak-off", default="recycle,literals", help="workarounds switched off one at a time")
    ap.add_argument("--scale-off", default="bulk-read,chunks")
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    only = set(args.only.split(","))
    out: dict[str, Any] = {"load_start": round(load_average(), 2)}
    plan: list[tuple[str, str, list[str], str | None]] = []
    if "index" in only:
        plan.append(("index", "bench_index.py", ["--repeat", args.repeat], None))
    if "scale" in only:
        plan.append(("scale", "bench_scale.py", ["--sizes", args.sizes], None))
    if "scale-all" in only:  # every workaround on (for an engine that runs without them)
        first = args.sizes.split(",")[0]
        plan.append(("scale with every workaround", "bench_scale.py", ["--sizes", first], ",".join(WORKAROUNDS)))
    if "scale-off" in only:
        first = args.sizes.split(",")[0]
        for off in filter(None, args.scale_off.split(",")):
            plan.append((f"scale without {off}", "bench_scale.py", ["--sizes", first], _without(off)))
    if "retrieve" in only:
        plan.append(("retrieve", "bench_retrieve.py", [], None))
    if "ack" in only:
        plan.append(("ack", "bench_ack.py", ["--during-index"], None))
    if "soak" in only:
        soak = ["--calls", args.soak_calls, "--skip-kills"]
        plan.append(("soak, engine's workarounds", "soak.py", soak, None))
        for off in filter(None, args.soak_off.split(",")):
            plan.append((f"soak without {off}", "soak.py", soak, _without(off)))
        plan.append(("soak without any", "soak.py", soak, "none"))
    for name, script, script_args, workarounds in plan:
        for engine in engines:  # back to back: each pair shares the machine's momentary load
            out.setdefault(name, {})[engine] = _run(script, script_args, engine, workarounds)
    out["load_end"] = round(load_average(), 2)
    print("\n| benchmark | " + " | ".join(engines) + " |")
    print("|---|" + "---|" * len(engines))
    for name, script, _args, _w in plan:
        cells = [json.dumps(_brief(script, out[name][e])) + f" (load {out[name][e]['load_before']})" for e in engines]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
