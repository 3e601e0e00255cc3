"""Benchmark: bare tree-sitter parse vs full ``parse_source``, per language.

Usage: ``python scripts/bench_parse.py [--lang python|go|rust|c|cpp|juce|...] [--root DIR] [--repeat N] [--json]``.
The corpus is ``--root`` or the language's corpus of ``scripts/corpora.py`` (default: every
``.py`` file under the running interpreter's ``Lib/``), without ``test``/``tests``/``idle_test``
directories and ``site-packages``; each file is parsed as its extension says. Each phase runs
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
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "daemon"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import CORPORA, setup, tree
from graphmemd.graph.model import Language
from graphmemd.ingest.parsing import bare_parse, language_for_path, parse_source

_SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__", "testdata"}


def corpus(root: Path, suffixes: tuple[str, ...]) -> list[tuple[str, bytes, Language]]:
    files: list[tuple[str, bytes, Language]] = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(names):
            language = language_for_path(name)
            if name.endswith(suffixes) and language is not None:
                path = Path(directory) / name
                files.append((path.relative_to(root).as_posix(), path.read_bytes(), language))
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="python", choices=sorted(CORPORA))
    parser.add_argument("--root", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1) * 0.7:
        sys.stderr.write(f"warning: the machine is busy (1-min load {load:.2f}); figures are not comparable\n")
    with tempfile.TemporaryDirectory(prefix="bench-parse-") as scratch:
        if args.root is None:
            setup([args.lang])
        root = args.root or tree(args.lang, Path(scratch))
        files = corpus(root, CORPORA[args.lang].suffixes)
    result = measure(files, args.repeat)
    result["root"] = str(root)
    result["lang"] = args.lang
    result["load_avg_1m_start"] = round(load, 2)
    result["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        sys.stdout.write(
            f"{args.lang}: {result['files']} files, {result['lines']} lines, {result['symbols']} symbols, "
            f"{result['calls']} calls\n"
            f"bare parse  : {result['bare_seconds']:.3f} s CPU ({result['bare_wall_seconds']:.3f} s wall)\n"
            f"parse_source: {result['full_seconds']:.3f} s CPU ({result['full_wall_seconds']:.3f} s wall)\n"
            f"ratio       : {result['ratio']:.2f}x CPU ({result['wall_ratio']:.2f}x wall)\n"
            f"load average: {load:.2f} at start, {result['load_avg_1m_end']} at end\n"
        )
    return 0


def measure(files: list[tuple[str, bytes, Language]], repeat: int) -> dict[str, object]:
    """Best-of-``repeat`` CPU and wall seconds of the bare parse and of ``parse_source``."""
    for path, data, language in files:  # warm-up: compile grammars/queries, fault pages in
        parse_source(path, data, language)

    bare = full = bare_wall = full_wall = float("inf")
    symbols = calls = 0
    for _ in range(max(1, repeat)):
        wall, cpu = time.perf_counter(), time.process_time()
        for _path, data, language in files:
            bare_parse(data, language)
        bare = min(bare, time.process_time() - cpu)
        bare_wall = min(bare_wall, time.perf_counter() - wall)

        wall, cpu = time.perf_counter(), time.process_time()
        symbols = calls = 0
        for path, data, language in files:
            parsed = parse_source(path, data, language)
            symbols += len(parsed.symbols)
            calls += len(parsed.calls)
        full = min(full, time.process_time() - cpu)
        full_wall = min(full_wall, time.perf_counter() - wall)

    return {
        "files": len(files),
        "bytes": sum(len(data) for _path, data, _lang in files),
        "lines": sum(data.count(b"\n") for _path, data, _lang in files),
        "symbols": symbols,
        "calls": calls,
        "bare_seconds": round(bare, 3),
        "full_seconds": round(full, 3),
        "ratio": round(full / bare, 3) if bare else None,
        "bare_wall_seconds": round(bare_wall, 3),
        "full_wall_seconds": round(full_wall, 3),
        "wall_ratio": round(full_wall / bare_wall, 3) if bare_wall else None,
    }


if __name__ == "__main__":
    raise SystemExit(main())
