#!/usr/bin/env python3
"""Restart benchmark, phase by phase: a daemon indexes a corpus cold once, stops cleanly, and is
restarted ``--restarts`` times with nothing changed on disk; each restart is timed until the
index is queryable again (as ``bench_index.py`` times its restart) and broken down from the
daemon's log, by the time of each line since the process was started: *listening* (the
interpreter and the daemon's imports, the store lock, the gRPC server), *serving* (the store
and journal opened, the known repositories registered: health answers), *restored* (the
graph put back from its snapshot, on the indexer thread), *pass done* (the index pass that
finds nothing changed). The last restart's own timing lines (``opened in``, ``warmed``,
``indexed``) are printed as the daemon wrote them.

``--against DIR`` runs a second code tree (e.g. ``git archive 48a8087 daemon clients scripts
fixtures | tar -x -C DIR``) on its own home, restarts alternating with this checkout's, so
both see the same machine; its bytecode is compiled first, as this checkout's is by
``scripts/setup.sh`` (with ``PYTHONDONTWRITEBYTECODE`` set, every start would compile it).
``--size M`` uses ``bench_scale.py``'s tree of M million lines (the stdlib with its tests)
instead of the stdlib without tests; ``--corpus click|attrs|marshmallow`` a clone of that real
history (``../shared/corpora``: code and docs, so a restart's knowledge files count). Each
restart also says its time to idle (the whole tree under 2 % of a CPU for 1 s), the CPU
seconds the process tree used until then, and the knowledge files it read (the daemon's
"N knowledge files read" lines). Prints the load average before each restart; ``--json``
prints one JSON object. Guards: the stdlib restart as before issue 41 (0.82-0.88 s), <= 3 s
at 4.7 M lines.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench_scale import build_tree
from benchlib import (
    DaemonProc,
    check_quiet,
    code_trees,
    corpus_bundle,
    log_lines,
    log_size,
    short_home,
    stdlib_corpus,
    tree_cpu_seconds,
)

#: the log lines that end each phase (as every version since the tenth session writes them)
PHASES = {
    "listening": re.compile(r"graphmemd\.server: graphmemd pid \d+ listening on "),
    "serving": re.compile(r"graphmemd\.server: serving; "),
    "restored": re.compile(r"graphmemd\.indexing\.restore: (warmed|loaded) "),
    "pass_done": re.compile(r"graphmemd\.indexing\.indexer: indexed "),
}
#: the lines the daemon's own timings are on (this code's: see ``runtime/timing.py``)
OWN = re.compile(r"listening on |app\.core: opened in |restore: warmed |indexer: indexed ")
#: a knowledge pass's line: files read, files gone
KNOWLEDGE_READ = re.compile(r": (\d+) knowledge files read, (\d+) gone")
_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ")


def stamp(line: str) -> float | None:
    """The epoch seconds of a log line's timestamp (local time, milliseconds)."""
    m = _STAMP.match(line)
    return datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp() if m else None


def phases(lines: list[str], started: float) -> dict[str, float]:
    """Seconds from ``started`` to the first line of each phase in ``lines`` (one run's log)."""
    out: dict[str, float] = {}
    for line in lines:
        for name, pattern in PHASES.items():
            at = stamp(line)
            if name not in out and at is not None and pattern.search(line):
                out[name] = round(at - started, 3)
    return out


def cold(code: Path, home: Path, corpus: Path, workers: int) -> float:
    """Index ``corpus`` cold with ``code``'s daemon and stop it cleanly; returns the seconds to durable."""
    d = DaemonProc(home, workers=workers, code=code)
    try:
        with d.client(3600) as c:
            t = time.perf_counter()
            c.add_repo(corpus)
            d.wait_queryable(3600)
            d.wait_durable(3600)
            took = time.perf_counter() - t
        d.wait_idle()
        return took
    finally:
        d.stop()


def restart(code: Path, home: Path, workers: int) -> dict[str, Any]:
    """One restart with nothing changed: seconds to queryable, the phases, the daemon's own lines."""
    since = log_size(home)
    started = time.time()
    t = time.perf_counter()
    d = DaemonProc(home, workers=workers, code=code)
    try:
        d.wait_queryable()
        took = time.perf_counter() - t
        with d.client() as c:
            parsed = c.list_repos()[0].files_parsed
        d.wait_idle()  # (the hand-over of the parses to the resolver: the next start has a snapshot again)
        idle = time.perf_counter() - t
        own, others = tree_cpu_seconds(d.proc.pid)
    finally:
        d.stop()
    lines = log_lines(home, since)
    read = [m for line in lines if (m := KNOWLEDGE_READ.search(line))]
    return {
        "restart_s": round(took, 3),
        "to_idle_s": round(idle, 2),
        "cpu_to_idle_s": round(own + others, 2),
        "knowledge_files_read": sum(int(m.group(1)) for m in read),
        "files_parsed": parsed,
        "phases_s": phases(lines, started),
        "own_lines": [line[11:] for line in lines if OWN.search(line)],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--restarts", type=int, default=4, help="restarts of each code (alternating)")
    ap.add_argument("--against", type=Path, help="a second code tree (daemon/, clients/) to alternate with")
    ap.add_argument("--size", type=float, help="bench_scale's tree of this many million lines (default: the stdlib)")
    ap.add_argument("--corpus", choices=("click", "attrs", "marshmallow"), help="a clone of this real history")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    codes = code_trees(args.against)
    tmp = Path(tempfile.mkdtemp(prefix="gmrestart"))
    homes = {code: short_home() for code in codes}
    runs: dict[Path, list[dict[str, Any]]] = {code: [] for code in codes}
    colds: dict[Path, float] = {}
    try:
        if args.corpus:
            corpus = tmp / args.corpus
            subprocess.run(["git", "clone", "-q", str(corpus_bundle(args.corpus)), str(corpus)], check=True)
        else:
            corpus = build_tree(tmp, args.size)[0] if args.size else stdlib_corpus(tmp)
        for code in codes:
            check_quiet(f"the cold index of {code}")
            colds[code] = cold(code, homes[code], corpus, args.workers)
        for i in range(args.restarts):
            for code in codes:
                load = check_quiet(f"restart {i + 1} of {code}")
                runs[code].append(restart(code, homes[code], args.workers) | {"load": round(load, 2)})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for home in homes.values():
            shutil.rmtree(home, ignore_errors=True)
    name = args.corpus or (f"{args.size} M lines" if args.size else "stdlib")
    out: dict[str, Any] = {"corpus": name, "codes": []}
    for code in codes:
        rs = runs[code]
        names = [n for n in PHASES if all(n in r["phases_s"] for r in rs)]
        out["codes"].append(
            {
                "code": str(code),
                "cold_durable_s": round(colds[code], 2),
                "restart_s": [r["restart_s"] for r in rs],
                "median_restart_s": round(statistics.median(r["restart_s"] for r in rs), 3),
                "median_phases_s": {n: round(statistics.median(r["phases_s"][n] for r in rs), 3) for n in names},
                "files_parsed": [r["files_parsed"] for r in rs],
                "to_idle_s": [r["to_idle_s"] for r in rs],
                "cpu_to_idle_s": [r["cpu_to_idle_s"] for r in rs],
                "knowledge_files_read": [r["knowledge_files_read"] for r in rs],
                "loads": [r["load"] for r in rs],
                "last_own_lines": rs[-1]["own_lines"] if rs else [],
                "runs": rs,
            }
        )
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for c in out["codes"]:
        print(f"{c['code']} ({out['corpus']}; cold to durable {c['cold_durable_s']} s)")
        print(
            f"  restart -> queryable: {c['restart_s']} s (median {c['median_restart_s']}), parsed {c['files_parsed']}"
        )
        print(f"  to idle: {c['to_idle_s']} s, CPU to idle {c['cpu_to_idle_s']} s (the whole tree)")
        print(f"  knowledge files read: {c['knowledge_files_read']}")
        print(f"  loads {c['loads']}")
        print(
            "  median seconds after the process started: "
            + ", ".join(f"{k} {v}" for k, v in c["median_phases_s"].items())
        )
        for line in c["last_own_lines"]:
            print(f"    {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
