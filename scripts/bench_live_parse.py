"""Benchmark: the parse worker's CPU for a live edit's re-parse vs a cold parse of the same file.

Usage: ``python scripts/bench_live_parse.py [--files _pydecimal.py typing.py] [--edits 7] [--json]``.
A real ``ParsePool`` with one worker (as the daemon starts it, live jobs of one file: the
watcher's edit). For each stdlib file, alternately: a *cold* parse (a copy under a name the
worker never parsed) and a *live* re-parse (the edited file again after a one-line signature
edit: a parameter added to its first top-level function, as ``bench_hooks.py`` edits). The
figure is the worker's own CPU on the file (``ParseOutcome.worker_ms``: reading, parsing and
encoding the result), load-independent where wall times are not; medians and each value are
printed, with the load average and the worker's peak RSS growth (what ``STANDBY_KEEP_MB``
bounds). Each live result is checked equal to an in-process cold ``parse_source``. Run it with
another code tree's ``daemon`` first on ``PYTHONPATH`` (a copy of this script in its
``scripts/``) to compare codes.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "daemon"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import load_average
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.parsing import parse_source

DEF = re.compile(r"(?m)^def (\w+)\(([^)]*)\)")


def edit_signature(path: Path, i: int) -> None:
    """Add an optional parameter to the first top-level function of ``path``."""
    text = path.read_text(encoding="utf-8")
    m = DEF.search(text)
    if m is None:
        raise SystemExit(f"{path.name} has no top-level function")
    params = m.group(2).strip()
    new_params = f"{params}, _live{i}=None" if params and not params.endswith(("*", "/")) else f"_live{i}=None"
    path.write_text(text[: m.start(2)] + new_params + text[m.end(2) :], encoding="utf-8")


def cpu_ms(pool: ParsePool, rel: str, path: Path) -> float:
    outcome = pool.parse_one(rel, path)
    if outcome.parsed is None or outcome.worker_ms is None:
        raise SystemExit(f"{rel}: not parsed by a worker ({outcome.skipped})")
    if outcome.parsed != parse_source(rel, path.read_bytes()):
        raise SystemExit(f"{rel}: the worker's result differs from a cold parse_source")
    return outcome.worker_ms[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", nargs="+", default=["_pydecimal.py", "typing.py"], help="stdlib files")
    ap.add_argument("--edits", type=int, default=7, help="live edits (and cold parses) per file")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    load_before = load_average()
    result: dict[str, object] = {"load_before": load_before, "files": {}}
    tmp = Path(tempfile.mkdtemp(prefix="live_parse_"))
    try:
        with ParsePool(1) as pool:
            for name in args.files:
                path = tmp / name
                shutil.copyfile(stdlib / name, path)
                cpu_ms(pool, name, path)  # the first version: the worker's first parse of it
                cold: list[float] = []
                live: list[float] = []
                for i in range(args.edits):
                    copy = tmp / f"cold{i}_{name}"
                    shutil.copyfile(path, copy)
                    cold.append(cpu_ms(pool, copy.name, copy))
                    edit_signature(path, i)
                    live.append(cpu_ms(pool, name, path))
                grown = [w.grown_kb for w in pool._slots if w is not None]  # (the pool's own record)
                result["files"][name] = {  # type: ignore[index]
                    "bytes": path.stat().st_size,
                    "cold_cpu_ms": [round(v, 1) for v in cold],
                    "live_cpu_ms": [round(v, 1) for v in live],
                    "cold_p50": round(statistics.median(cold), 1),
                    "live_p50": round(statistics.median(live), 1),
                    "worker_peak_growth_kb": grown,
                }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["load_after"] = load_average()
    print(f"load average {load_before:.2f} -> {result['load_after']:.2f}")
    for name, r in result["files"].items():  # type: ignore[attr-defined]
        print(
            f"{name} ({r['bytes']} bytes): worker CPU ms, cold p50 {r['cold_p50']}, live re-parse p50 {r['live_p50']}"
            f" (ratio {r['live_p50'] / r['cold_p50']:.2f}); cold {r['cold_cpu_ms']}, live {r['live_cpu_ms']};"
            f" worker peak RSS growth {r['worker_peak_growth_kb']} KB"
        )
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
