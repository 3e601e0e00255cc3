#!/usr/bin/env python3
"""Knowledge files judged from a real history: a cold check, a daemon's first pass, worktrees.

A knowledge unit is judged from the commit its lines were last changed in (``git blame``): the
code's old versions then are read and parsed, and the commit that changed what the unit names
since is found by binary searches over its file's commits. ``bench_docs.py`` times a cold check
on the newest commit's tree alone (no history to read); this benchmark clones a corpus with its
whole history (``../shared/corpora/<name>.bundle``) and measures, per code tree:

* ``graphmem check --one-shot`` (the CI use: a private daemon indexes and checks), wall seconds;
* a daemon started on the clone: its knowledge pass (the daemon's log line: seconds, git runs,
  old versions parsed, rounds of commit searches), and when its code was current (READY), for
  comparison;
* ``--worktrees N`` worktrees added one after the other with ``git worktree add`` (the daemon
  picks each up): each one's knowledge pass, from the same log line — what a worktree costs
  when its sibling has read the same history;
* the daemon's whole-tree RSS once idle after the last worktree.

``--against DIR`` alternates with a second code tree (``git archive <commit> daemon clients``),
each figure back to back; ``--rounds`` repeats it all. The 1-minute load average is printed
before each measurement. ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent)]
from benchlib import (  # noqa: E402
    DaemonProc,
    check_quiet,
    code_trees,
    corpus_bundle,
    log_lines,
    log_size,
    short_home,
    tree_rss_mb,
)

PASS = re.compile(
    r"INFO graphmemd\.indexing\.knowledge: (\S+): (\d+) knowledge files read, .* in ([\d.]+)s \((\d+) git runs, "
    r"(\d+) old parses(?:, (\d+) rounds of commit searches)?"
)
INDEXED = re.compile(r"indexed (\S+): (\d+) files, .*READY after ([\d.]+)s")


def clone(name: str, dest: Path, where: Path | None) -> Path:
    """A clone of the corpus with its whole history, on a branch ``main`` at its newest commit."""
    subprocess.run(["git", "clone", "-q", str(corpus_bundle(name, where)), str(dest)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-B", "main"], check=True, capture_output=True)
    return dest


def cold_check(code: Path, repo: Path) -> float:
    """Seconds of ``graphmem check --one-shot`` in ``repo`` with the code tree ``code``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(code / "clients"), str(code / "daemon")])
    env.pop("GRAPHMEM_HOME", None)
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "check", "--one-shot", "--fail-on", "never"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"check failed ({out.returncode}): {out.stderr[-2000:]}")
    return time.monotonic() - started


def _pass_of(home: Path, since: int, checkout: str, timeout: float = 600) -> dict[str, Any]:
    """The first knowledge pass logged after byte ``since`` of a checkout whose id starts with
    ``checkout`` (any checkout's: "")."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log_lines(home, since):
            m = PASS.search(line)
            if m and m.group(1).startswith(checkout):
                return {
                    "checkout": m.group(1),
                    "files": int(m.group(2)),
                    "seconds": float(m.group(3)),
                    "git_runs": int(m.group(4)),
                    "old_parses": int(m.group(5)),
                    "rounds": int(m.group(6)) if m.group(6) is not None else None,
                }
        time.sleep(0.1)
    raise RuntimeError(f"no knowledge pass of {checkout or 'any checkout'} logged")


def daemon_run(code: Path, repo: Path, worktrees: int, scratch: Path) -> dict[str, Any]:
    """A daemon on ``repo`` with the code ``code``: its first knowledge pass, then each added worktree's."""
    home = short_home()
    out: dict[str, Any] = {"worktrees": []}
    d = DaemonProc(home, [repo], code=code)
    try:
        out["first"] = _pass_of(home, 0, "")
        indexed = next((m for line in log_lines(home) if (m := INDEXED.search(line))), None)
        out["ready_s"] = float(indexed.group(3)) if indexed else None  # (the code current: before its knowledge)
        for i in range(worktrees):
            since = log_size(home)
            wt = scratch / f"wt{i}"
            subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", "-b", f"agent{i}", str(wt)], check=True,
                           capture_output=True)  # fmt: skip
            out["worktrees"].append(_pass_of(home, since, f"wt{i}-"))
        d.wait_idle()
        out["idle_rss_mb"] = round(tree_rss_mb(d.proc.pid), 1)
        peaks = d.peak_rss_mb()
        out["peak_rss_mb"] = round(peaks["tree"], 1)
        out["peak_daemon_rss_mb"] = round(peaks["daemon"], 1)  # the daemon's own VmHWM
        out["peak_workers_rss_mb"] = round(peaks["workers"], 1)  # every parse worker's own peak, summed
        out["largest_child_mb"] = {k[8:]: round(v, 1) for k, v in peaks.items() if k.startswith("largest ")}
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)
        for i in range(worktrees):
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(scratch / f"wt{i}")],
                           capture_output=True)  # fmt: skip
            subprocess.run(["git", "-C", str(repo), "branch", "-q", "-D", f"agent{i}"], capture_output=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", default="attrs,click", help="comma-separated corpus names (../shared/corpora)")
    ap.add_argument("--worktrees", type=int, default=2, help="worktrees added to the daemon's repository")
    ap.add_argument("--rounds", type=int, default=1, help="times each code is measured (alternating)")
    ap.add_argument("--against", type=Path, help="a second code tree (daemon/, clients/) to alternate with")
    ap.add_argument("--bundles", type=Path, help="the folder of the corpora's git bundles (default ../shared/corpora)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    codes = code_trees(args.against)
    result: dict[str, Any] = {"corpora": {}}
    tmp = Path(tempfile.mkdtemp(prefix="gmkh", dir="/tmp"))
    try:
        for name in [c for c in args.corpora.split(",") if c]:
            repo = clone(name, tmp / name, args.bundles)
            runs: dict[str, list[dict[str, Any]]] = {str(c): [] for c in codes}
            for _ in range(args.rounds):
                for code in codes:
                    load = check_quiet(f"{name}: the cold check of {code}")
                    check_s = cold_check(code, repo)
                    load2 = check_quiet(f"{name}: the daemon of {code}")
                    run = daemon_run(code, repo, args.worktrees, tmp)
                    runs[str(code)].append({"check_s": round(check_s, 2), "load": round(load, 2),
                                            "load_daemon": round(load2, 2), **run})  # fmt: skip
            result["corpora"][name] = runs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    for name, runs in result["corpora"].items():
        print(f"{name} (whole history):")
        for code, rs in runs.items():
            print(f"  {code}")
            for r in rs:
                f = r["first"]
                wts = "; ".join(
                    f"{w['seconds']} s ({w['git_runs']} git, {w['old_parses']} parses)" for w in r["worktrees"]
                )
                print(f"    check --one-shot {r['check_s']} s (load {r['load']})")
                print(
                    f"    daemon (load {r['load_daemon']}): code current {r['ready_s']} s; "
                    f"knowledge pass {f['seconds']} s ({f['git_runs']} git runs, {f['old_parses']} old parses, "
                    f"{f['rounds']} rounds)"
                )
                print(f"    worktrees' knowledge passes: {wts}")
                print(
                    f"    tree RSS idle {r['idle_rss_mb']} MB, peak {r['peak_rss_mb']} MB (own peaks: daemon "
                    f"{r['peak_daemon_rss_mb']} MB, parse workers summed {r['peak_workers_rss_mb']} MB)"
                )
                big = sorted(r["largest_child_mb"].items(), key=lambda kv: -kv[1])[:3]
                print("    largest child of each command: " + ", ".join(f"{c} {mb} MB" for c, mb in big))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
