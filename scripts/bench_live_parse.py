"""Benchmark: the parse worker's CPU for a live edit's re-parse vs a cold parse of the same file.

Usage: ``python scripts/bench_live_parse.py [--files _pydecimal.py typing.py] [--edits 7] [--json]``.
A real ``ParsePool`` with one worker (as the daemon starts it, live jobs of one file: the
watcher's edit). First, for each stdlib file, *cold* parses (copies under names the worker
never parsed); then, for each, the file and its *live* re-parses (the edited file again after
a one-line signature edit: a parameter added to its first top-level function, as
``bench_hooks.py`` edits; a worker keeps only a few files' trees, so the copies come first). The
figure is the worker's own CPU on the file (``ParseOutcome.worker_ms``: reading, parsing and
encoding the result), load-independent where wall times are not; medians and each value are
printed, with the load average and the worker's peak RSS growth (what ``STANDBY_KEEP_MB``
bounds). Each live result is checked equal to an in-process cold ``parse_source``. Run it with
another code tree's ``daemon`` first on ``PYTHONPATH`` (a copy of this script in its
``scripts/``) to compare codes.

``--instructions`` measures the same in instructions instead (valgrind's callgrind, as
``parse_instructions.py``: load-independent, where CPU times on a loaded 2-core machine vary by
a third): a child process makes ``--edits`` signature-edited versions of each file, parses the
first (with a ``LiveTrees``), then, inside the one span collected, parses the rest either cold
(``parse_source`` alone: what every live re-parse cost before) or live (with the ``LiveTrees``).
Only ``parse_source`` is counted (the worker's read, hash and encode are the same either way).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "daemon"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import load_average
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.parsing import parse_source

#: per file, how many of its parses the worker did incrementally
INCREMENTAL: dict[str, int] = {}
DEF = re.compile(r"(?m)^def (\w+)\(([^)]*)\)")


def signature_edited(text: str, i: int) -> str:
    """``text`` with an optional parameter added to its first top-level function."""
    m = DEF.search(text)
    if m is None:
        raise SystemExit("no top-level function")
    params = m.group(2).strip()
    new_params = f"{params}, _live{i}=None" if params and not params.endswith(("*", "/")) else f"_live{i}=None"
    return text[: m.start(2)] + new_params + text[m.end(2) :]


def edit_signature(path: Path, i: int) -> None:
    """Add an optional parameter to the first top-level function of ``path``."""
    path.write_text(signature_edited(path.read_text(encoding="utf-8"), i), encoding="utf-8")


def copy(path: Path, i: int) -> Path:
    """A copy of ``path`` under a name the worker has not parsed."""
    dest = path.with_name(f"cold{i}_{path.name}")
    shutil.copyfile(path, dest)
    return dest


def cpu_ms(pool: ParsePool, rel: str, path: Path) -> float:
    outcome = pool.parse_one(rel, path)
    if outcome.parsed is None or outcome.worker_ms is None:
        raise SystemExit(f"{rel}: not parsed by a worker ({outcome.skipped})")
    if outcome.parsed != parse_source(rel, path.read_bytes()):
        raise SystemExit(f"{rel}: the worker's result differs from a cold parse_source")
    INCREMENTAL[rel] = INCREMENTAL.get(rel, 0) + int(getattr(outcome, "incremental", False))  # (older codes: no flag)
    return outcome.worker_ms[1]


def _child(mode: str, name: str, edits: int) -> None:
    """Runs under callgrind: the versions' parses inside ``eval``, the only span collected."""
    from graphmemd.ingest.parsing import LiveTrees

    text = (Path(sysconfig.get_paths()["stdlib"]) / name).read_text(encoding="utf-8")
    versions = []
    for i in range(edits + 1):
        text = signature_edited(text, i)
        versions.append(text.encode())
    trees = LiveTrees(8, 64 << 20)
    parse_source(name, versions[0], trees=trees)

    def cold() -> None:
        for data in versions[1:]:
            parse_source(name, data)

    def live() -> None:
        for data in versions[1:]:
            parse_source(name, data, trees=trees)

    eval(mode + "()", {"cold": cold, "live": live})  # (the span callgrind collects)
    if mode == "live" and trees.reused != edits:
        raise SystemExit(f"only {trees.reused} of {edits} parses were incremental")


def _instructions(mode: str, name: str, edits: int) -> int:
    with tempfile.TemporaryDirectory(prefix="live-parse-") as scratch:
        out = Path(scratch) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=builtin_eval",
             f"--callgrind-out-file={out}", sys.executable, __file__, "--child", mode, "--files", name,
             "--edits", str(edits)],
            check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        )  # fmt: skip
        found = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
        if found is None:
            raise RuntimeError("callgrind wrote no summary")
        return int(found.group(1))


def instructions(files: list[str], edits: int, as_json: bool) -> int:
    """``--instructions``: per file, M instructions per re-parse, cold and live."""
    print(f"load average: {load_average():.2f} (instruction counts do not depend on it)")
    result: dict[str, dict[str, float]] = {}
    for name in files:
        cold, live = (_instructions(mode, name, edits) / edits / 1e6 for mode in ("cold", "live"))
        result[name] = {"cold_m": round(cold, 1), "live_m": round(live, 1), "ratio": round(live / cold, 3)}
        print(f"{name}: M instructions per re-parse after a signature edit: cold {cold:,.1f}, live {live:,.1f}"
              f" ({live / cold:.2f}x)")  # fmt: skip
    if as_json:
        print(json.dumps({"edits": edits, "files": result}))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", nargs="+", default=["_pydecimal.py", "typing.py"], help="stdlib files")
    ap.add_argument("--edits", type=int, default=7, help="live edits (and cold parses) per file")
    ap.add_argument("--instructions", action="store_true", help="count instructions (callgrind) instead")
    ap.add_argument("--child", choices=("cold", "live"), help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.files[0], args.edits)
        return 0
    if args.instructions:
        return instructions(args.files, args.edits, args.json)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    load_before = load_average()
    result: dict[str, object] = {"load_before": load_before, "files": {}}
    tmp = Path(tempfile.mkdtemp(prefix="live_parse_"))
    cold: dict[str, list[float]] = {}
    live: dict[str, list[float]] = {name: [] for name in args.files}
    try:
        with ParsePool(1) as pool:
            for name in args.files:  # cold: copies under names the worker never parsed
                shutil.copyfile(stdlib / name, tmp / name)
                cold[name] = [cpu_ms(pool, f"cold{i}_{name}", copy(tmp / name, i)) for i in range(args.edits)]
            for name in args.files:  # live: the file, then its edits
                path = tmp / name
                cpu_ms(pool, name, path)
                for i in range(args.edits):
                    edit_signature(path, i)
                    live[name].append(cpu_ms(pool, name, path))
            grown = [w.grown_kb for w in pool._slots if w is not None]  # (the pool's own record)
        for name in args.files:
            result["files"][name] = {  # type: ignore[index]
                "bytes": (tmp / name).stat().st_size,
                "cold_cpu_ms": [round(v, 1) for v in cold[name]],
                "live_cpu_ms": [round(v, 1) for v in live[name]],
                "cold_p50": round(statistics.median(cold[name]), 1),
                "live_p50": round(statistics.median(live[name]), 1),
                "live_incremental": INCREMENTAL.get(name, 0),
            }
        result["worker_peak_growth_kb"] = grown
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["load_after"] = load_average()
    print(f"load average {load_before:.2f} -> {result['load_after']:.2f}")
    for name, r in result["files"].items():  # type: ignore[attr-defined]
        print(
            f"{name} ({r['bytes']} bytes): worker CPU ms, cold p50 {r['cold_p50']}, live re-parse p50 {r['live_p50']}"
            f" (ratio {r['live_p50'] / r['cold_p50']:.2f}); cold {r['cold_cpu_ms']}, live {r['live_cpu_ms']}"
            f" ({r['live_incremental']} of them incremental)"
        )
    print(f"the worker's peak RSS growth since its first file: {result['worker_peak_growth_kb']} KB")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
