#!/usr/bin/env python3
"""Knowledge census: a real daemon indexes a repository cold (code and knowledge files) and
reports how many knowledge units are fresh, suspect and stale, and why (by kind of change,
kind of reference and file), with the time from registration to a current index.

    python scripts/knowledge_census.py                    # attrs and click at their latest commit
    python scripts/knowledge_census.py --repo PATH        # any repository (a git work tree)
    python scripts/knowledge_census.py --json

The bundles come from ``../shared/corpora`` (cloned into a temporary directory, read-only use).
The 1-minute load average is printed before each run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchlib import DaemonProc, short_home
from graphmem.types import ChangeKind, Observation, ObservationStatus, ReferenceState

CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"


def clone(bundle: Path, dest: Path) -> Path:
    """A working clone of a bundle at its latest commit."""
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
    return dest


def _why(o: Observation) -> list[str]:
    kinds = []
    for r in o.stale_reasons:
        kinds.append(r.change.value)
    return sorted(set(kinds))


def census(repo: Path, workers: int) -> dict[str, Any]:
    """Index ``repo`` cold in a fresh daemon; count its knowledge units by status and reason."""
    home = short_home()
    d = DaemonProc(home, workers=workers)
    try:
        with d.client(600) as c:
            t = time.perf_counter()
            c.add_repo(repo)
            check = c.check_knowledge(repo=str(repo), wait_current=True)
            seconds = time.perf_counter() - t
            units = [o for o in c.list(repo=str(repo), limit=100_000) if o.knowledge is not None]
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)
    status = Counter(o.status.value for o in units)
    reasons: Counter[str] = Counter()
    by_file: Counter[str] = Counter()
    dep_only = 0
    for o in units:
        if o.status is ObservationStatus.FRESH or o.knowledge is None:
            continue
        for why in _why(o):
            reasons[f"{o.status.value}:{why}"] += 1
        by_file[o.knowledge.path] += 1
        if all(r.change is ChangeKind.DEPENDENCY_CHANGED for r in o.stale_reasons):
            dep_only += 1
    refs = Counter(r.state.value for r in check.references)
    return {
        "repo": str(repo),
        "seconds_to_current": round(seconds, 2),
        "files": check.files_checked,
        "units": check.units,
        "references": check.references_checked,
        "units_by_status": dict(status),
        "non_ok_references": dict(refs),
        "units_by_reason": dict(reasons.most_common()),
        "suspect_only_through_a_dependency": dep_only,
        "files_with_marks": dict(by_file.most_common(10)),
        "examples": [
            f"{r.path}:{r.line}:{r.column} {r.text} [{r.state.value}] {r.reason}"
            for r in check.references
            if r.state is not ReferenceState.SUSPECT
        ][:15],
    }


def main() -> None:
    """Run the census and print it."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", type=Path, action="append", default=[])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gmcensus", dir="/tmp"))
    try:
        repos = args.repo or [clone(CORPORA / f"{n}.bundle", tmp / n) for n in ("attrs", "click")]
        results = []
        for repo in repos:
            load = os.getloadavg()[0]
            print(f"# {repo.name}: load average {load:.2f}", flush=True)
            results.append({"load_average": load, **census(repo.resolve(), args.workers)})
            if not args.json:
                print(json.dumps(results[-1], indent=2))
        if args.json:
            print(json.dumps(results))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
