#!/usr/bin/env python3
"""Scale benchmark: one daemon on large trees built from the standard library *with* its tests,
copied under distinct package names until each size is reached (about 0.9, 2.3 and 4.7 M
lines with ``--sizes 0.9,2.3,4.7``; 0.9 alone by default, the larger ones take minutes).

For each size it reports: cold time to queryable and to durable; whole-process-tree peak RSS
(daemon, forkserver, resource tracker, parse workers; sampled every 50 ms: the most the tree
held at once) of the cold pass and of the restart and checkout, each read once the daemon is
idle (its store writes done), with every process's own peak added up beside it (an upper
bound: parse workers exit when idle, so they need not peak with the daemon); a restart with nothing
changed on disk until the index is current again, and how many files that restart parsed; a
git checkout that changes 5,000 files until the index is current again; and the p99 latency
of health checks and of a retrieve made continuously while the cold index and the checkout run. The 1-minute load
average is printed before each size, with a loud warning when the machine is busy.
``--json`` prints one JSON object.
Targets (issue 16) at 4.7 M lines: durable <= 30 s, RSS <= 2 GB, restart -> current <= 5 s,
health p99 <= 50 ms throughout; at 0.9 M lines restart -> current <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchlib import DaemonProc, check_quiet, percentile, short_home
from graphmem.errors import GraphMemError

CHECKOUT_FILES = 5000


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "--no-optional-locks", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def build_tree(dest: Path, million_lines: float) -> tuple[Path, int, int]:
    """Copies of the stdlib's .py files (tests included) as pkgN/..., file by file until the
    size is reached (the last copy is partial: one copy is ~0.86 M lines with Python 3.11)."""
    src = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in src.rglob("*.py") if "site-packages" not in p.parts)
    root = dest / f"tree-{million_lines}"
    lines = n_files = copy = 0
    while lines < million_lines * 1_000_000:
        for p in files:
            if lines >= million_lines * 1_000_000:
                break
            target = root / f"pkg{copy}" / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            data = p.read_bytes()
            target.write_bytes(data)
            lines += data.count(b"\n")
            n_files += 1
        copy += 1
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root, n_files, lines


def prepare_checkout(root: Path) -> None:
    """A branch that changes CHECKOUT_FILES files (a function appended to each), left unchecked-out."""
    git(root, "checkout", "-qb", "wide-change")
    changed = sorted(root.rglob("*.py"))[:CHECKOUT_FILES]
    for i, p in enumerate(changed):
        with p.open("a", encoding="utf-8") as f:
            f.write(f"\n\ndef wide_change_marker_{i}():\n    return {i}\n")
    git(root, "commit", "-qam", "wide change")
    git(root, "checkout", "-q", "main")


class Prober:
    """Health checks and retrieves in a loop on their own threads, recording latencies."""

    def __init__(self, d: DaemonProc, probe_file: str) -> None:
        self.d = d
        self.probe_file = probe_file
        self.stop = threading.Event()
        self.health: list[float] = []
        self.retrieve: list[float] = []
        self.errors = 0
        self.threads = [threading.Thread(target=self._health), threading.Thread(target=self._retrieve)]

    def __enter__(self) -> Prober:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()

    def _loop(self, call: Any, out: list[float]) -> None:
        with self.d.client(10) as c:
            while not self.stop.is_set():
                t = time.perf_counter()
                try:
                    call(c)
                except GraphMemError:
                    self.errors += 1
                out.append(time.perf_counter() - t)
                self.stop.wait(0.02)

    def _health(self) -> None:
        self._loop(lambda c: c.health(), self.health)

    def _retrieve(self) -> None:
        self._loop(lambda c: c.recall(files=[self.probe_file], limit=5), self.retrieve)


def wait_current(d: DaemonProc, probe: str, timeout: float = 1800) -> None:
    deadline = time.monotonic() + timeout
    with d.client() as c:
        while time.monotonic() < deadline:
            try:
                if c.recall(files=[probe]).freshness.current:
                    return
            except GraphMemError:
                pass
            time.sleep(0.05)
    raise RuntimeError("the index did not become current")


def measure(root: Path, workers: int) -> dict[str, Any]:
    home = short_home()
    probe = str(root / "pkg0" / "os.py")
    d = DaemonProc(home, workers=workers)
    out: dict[str, Any] = {}
    try:
        with Prober(d, probe) as cold_probe, d.client(600) as c:
            t = time.perf_counter()
            c.add_repo(root)
            d.wait_queryable(3600)
            out["queryable_s"] = time.perf_counter() - t
            d.wait_durable(3600)
            out["durable_s"] = time.perf_counter() - t
        d.wait_idle()
        peaks = d.peak_rss_mb()
        out["cold_rss_mb"], out["cold_sum_of_peaks_mb"] = peaks["tree"], peaks["sum_of_peaks"]
        d.stop()
        t = time.perf_counter()
        d = DaemonProc(home, workers=workers)
        wait_current(d, probe)
        out["restart_s"] = time.perf_counter() - t
        with d.client() as c:
            out["restart_files_parsed"] = c.list_repos()[0].files_parsed
        with Prober(d, probe) as co_probe:
            t = time.perf_counter()
            git(root, "checkout", "-q", "wide-change")
            wait_current(d, probe)
            out["checkout_s"] = time.perf_counter() - t
        with d.client() as c:
            out["checkout_files_parsed"] = c.list_repos()[0].files_parsed - out["restart_files_parsed"]
        # the checkout's store writes go on after it is current: its peak is read once they are done
        d.wait_idle()
        peaks = d.peak_rss_mb()
        out["checkout_rss_mb"], out["checkout_sum_of_peaks_mb"] = peaks["tree"], peaks["sum_of_peaks"]
        out["rss_mb"] = max(out["cold_rss_mb"], out["checkout_rss_mb"])
        health = cold_probe.health + co_probe.health
        retrieve = cold_probe.retrieve + co_probe.retrieve
        out["health_p99_ms"] = percentile(health, 99) * 1000
        out["retrieve_p99_ms"] = percentile(retrieve, 99) * 1000
        out["probes"] = len(health) + len(retrieve)
        out["probe_errors"] = cold_probe.errors + co_probe.errors
        return out
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="0.9", help="million lines, comma separated (e.g. 0.9,2.3,4.7)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--strict", action="store_true", help="refuse to measure on a busy machine")
    args = ap.parse_args()
    results: list[dict[str, Any]] = []
    tmp = Path(tempfile.mkdtemp(prefix="gmscale"))
    try:
        for size in (float(s) for s in args.sizes.split(",")):
            root, files, lines = build_tree(tmp, size)
            prepare_checkout(root)
            load = check_quiet(f"{size} M lines", strict=args.strict)
            res = {"million_lines": size, "files": files, "lines": lines, "load_average": round(load, 2)}
            res.update({k: round(v, 3) if isinstance(v, float) else v for k, v in measure(root, args.workers).items()})
            results.append(res)
            if not args.json:
                print(
                    f"{lines:,} lines, {files:,} files (load {res['load_average']}): queryable {res['queryable_s']} s, "
                    f"durable {res['durable_s']} s, peak RSS (whole tree) {res['rss_mb']} MB "
                    f"(cold {res['cold_rss_mb']}, restart + checkout {res['checkout_rss_mb']}; every process's own "
                    f"peak added up: {res['cold_sum_of_peaks_mb']} / {res['checkout_sum_of_peaks_mb']}); "
                    f"restart -> current {res['restart_s']} s ({res['restart_files_parsed']} files parsed); "
                    f"checkout of {CHECKOUT_FILES} files -> current {res['checkout_s']} s "
                    f"({res['checkout_files_parsed']} files parsed); while indexing: health p99 "
                    f"{res['health_p99_ms']} ms, retrieve p99 {res['retrieve_p99_ms']} ms, {res['probe_errors']} errors"
                )
                sys.stdout.flush()
            shutil.rmtree(root, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps({"sizes": results, "workers": args.workers}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
