#!/usr/bin/env python3
"""What the resolver's records of reads cost, per file, on the standard library (issue 43).

In-process, on the corpus of ``bench_worktrees.py`` / ``check_dependents.py`` (the standard
library's non-test modules): resolve every file, then count the bytes of what the resolver
keeps to find a change's dependents — each file's record of what it read of other files and
any index kept over those records — containers counted once each, strings once each (they
are interned: shared by every record and checkout). Then derive a second resolver from it (a
same-files worktree: ``RepoResolver.derive``) and count what that derivation allocated
(``tracemalloc``), whole and in those records alone: what each same-files worktree adds.
Also times ``dependents_of`` of one file (50 files sampled): what reading the records costs
a change.

    python scripts/bench_records.py [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "clients"), str(ROOT / "daemon")]

from check_dependents import _parse, corpus  # noqa: E402
from graphmemd.graph.resolution import RepoResolver, facts_from_files  # noqa: E402

#: every name of a file changed (``names.ALL``; spelled out: the code before it ran this too)
ALL = "\0*"

#: the resolver's attributes that hold records of reads or indexes over them (those present)
RECORDS = ("_consulted", "_consulted_by", "_named", "_read_paths", "_read_by")


def deep_size(obj: object, seen: set[int]) -> int:
    """Bytes of ``obj`` and of what it holds (dicts, sets, tuples, strings), each object once."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (set, frozenset, tuple, list)):
        size += sum(deep_size(x, seen) for x in obj)
    return size


def records_size(r: RepoResolver, seen: set[int]) -> int:
    return sum(deep_size(getattr(r, a), seen) for a in RECORDS if hasattr(r, a))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    src, texts = corpus()
    with ProcessPoolExecutor(2) as pool:
        parsed = list(pool.map(_parse, texts.items(), chunksize=32))
    r = RepoResolver("s", facts_from_files(src, sorted(texts)))
    for pf in parsed:
        r.set_file(pf)
    r.all_edges()
    n = len(r.files)
    # what reading every record costs a change: dependents_of of one file set again as it
    # was (narrowed: no name changed) and as if it were new (every name: file-level)
    sample = sorted(r.files)[:: max(1, n // 50)]
    timed: dict[str, float] = {}
    for how in ("narrowed", "every_name"):
        spent = 0.0
        for path in sample:
            r.set_file(r.files[path].parsed)
            if how == "every_name" and hasattr(r, "_changed"):
                r._changed[path] = frozenset({ALL})
            for fi in r.files.values():  # (the import contexts set_file dropped, rebuilt first)
                r.ctx_of(fi)
            started = time.perf_counter()
            r.dependents_of({path})
            spent += time.perf_counter() - started
        timed[how] = spent / len(sample) * 1000
    seen: set[int] = set()
    first = records_size(r, seen)
    keys = sum(len(v) for v in getattr(r, "_consulted", {}).values())
    gc.collect()
    tracemalloc.start()
    d = RepoResolver("t", r.facts)
    before = tracemalloc.get_traced_memory()[0]
    d.derive(r, sorted(r.files))
    gc.collect()
    derived = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    added = records_size(d, seen)  # (what the first one already holds not counted again)
    out: dict[str, Any] = {
        "files": n,
        "dependents_of_ms": {k: round(v, 2) for k, v in timed.items()},
        "recorded_keys": keys,
        "records_bytes": first,
        "records_bytes_per_file": round(first / n),
        "derive_allocated_bytes": derived,
        "derive_records_bytes": added,
        "derive_records_bytes_per_file": round(added / n),
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(
            f"{n} files, {keys} recorded keys: records {first / 1e6:.2f} MB ({out['records_bytes_per_file']} B/file); "
            f"a same-files derivation allocates {derived / 1e6:.2f} MB, of it the records {added / 1e6:.2f} MB "
            f"({out['derive_records_bytes_per_file']} B/file); dependents_of of one file "
            f"{timed['narrowed']:.2f} ms narrowed, {timed['every_name']:.2f} ms every name"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
