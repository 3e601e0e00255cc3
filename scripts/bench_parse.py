"""Benchmark: bare tree-sitter parse vs full ``parse_source`` over the Python stdlib.

Usage: ``python scripts/bench_parse.py [--root DIR] [--repeat N] [--json]``.
The corpus is every ``.py`` file under the running interpreter's ``Lib/`` except
``test``/``tests``/``idle_test`` directories and ``site-packages``. Each phase runs
``--repeat`` times (after one warm-up pass that also loads the files) and the best time is
reported. Prints ``bare``/``full`` seconds and their ratio, by CPU time of this process
(robust on a loaded machine) and by wall-clock time, and the 1-min load average (with a
warning when the machine is busy). Target: ratio <= 2.5 (extraction, fingerprints
included, costs at most 1.5 bare parses).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "daemon"))

from graphmemd.graph.model import Language
from graphmemd.ingest.parsing import bare_parse, parse_source

_SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def corpus(root: Path) -> list[tuple[str, bytes]]:
    files: list[tuple[str, bytes]] = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(names):
            if name.endswith(".py"):
                path = Path(directory) / name
                files.append((path.relative_to(root).as_posix(), path.read_bytes()))
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) * 0.7:
        sys.stderr.write(f"warning: the machine is busy (1-min load {load:.2f}); figures are not comparable\n")
    files = corpus(args.root)
    for path, data in files:  # warm-up: compile grammars/queries, fault pages in
        parse_source(path, data, Language.PYTHON)

    bare = full = bare_wall = full_wall = float("inf")
    symbols = calls = 0
    for _ in range(max(1, args.repeat)):
        wall, cpu = time.perf_counter(), time.process_time()
        for _path, data in files:
            bare_parse(data, Language.PYTHON)
        bare = min(bare, time.process_time() - cpu)
        bare_wall = min(bare_wall, time.perf_counter() - wall)

        wall, cpu = time.perf_counter(), time.process_time()
        symbols = calls = 0
        for path, data in files:
            parsed = parse_source(path, data, Language.PYTHON)
            symbols += len(parsed.symbols)
            calls += len(parsed.calls)
        full = min(full, time.process_time() - cpu)
        full_wall = min(full_wall, time.perf_counter() - wall)

    result = {
        "root": str(args.root),
        "files": len(files),
        "bytes": sum(len(data) for _path, data in files),
        "lines": sum(data.count(b"\n") for _path, data in files),
        "symbols": symbols,
        "calls": calls,
        "bare_seconds": round(bare, 3),
        "full_seconds": round(full, 3),
        "ratio": round(full / bare, 3) if bare else None,
        "bare_wall_seconds": round(bare_wall, 3),
        "full_wall_seconds": round(full_wall, 3),
        "wall_ratio": round(full_wall / bare_wall, 3) if bare_wall else None,
        "load_avg_1m_start": round(load, 2),
        "load_avg_1m_end": round(os.getloadavg()[0], 2),
    }
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(
            f"{result['files']} files, {result['lines']} lines, {symbols} symbols, {calls} calls\n"
            f"bare parse  : {bare:.3f} s CPU ({bare_wall:.3f} s wall)\n"
            f"parse_source: {full:.3f} s CPU ({full_wall:.3f} s wall)\n"
            f"ratio       : {full / bare:.2f}x CPU ({full_wall / bare_wall:.2f}x wall)\n"
            f"load average: {load:.2f} at start, {result['load_avg_1m_end']} at end\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
