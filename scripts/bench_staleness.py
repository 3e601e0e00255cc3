#!/usr/bin/env python3
"""Staleness latency benchmark: file write on disk -> OBSERVATION_STALE event at a subscribed client.

A real daemon indexes the stdlib corpus; observations are anchored to functions across it;
a client subscribes to stale events; we then edit anchored function bodies one at a time
(``--edits``, default 200) and time write -> event. Then a batch: ``--batch`` files (default
1,000 — all files if fewer) are rewritten at once (like a branch switch) and we time until
the index is current again. ``--json`` prints one JSON object. Target: p50 < 150 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

from benchlib import DaemonProc, check_quiet, percentile, short_home, stdlib_corpus
from graphmem.types import EventKind, Symbol

FUNC = re.compile(rb"^def ([A-Za-z_]\w*)\(.*\):\s*$", re.M)


def pick_targets(root: Path, symbols: list[Symbol], n: int, seed: int = 7) -> list[tuple[Path, str]]:
    """Top-level functions (one per file) whose `def` line is a single line, as the daemon sees them."""
    rng = random.Random(seed)
    rng.shuffle(symbols)
    out: list[tuple[Path, str]] = []
    seen: set[str] = set()
    for s in symbols:
        if s.kind != "function" or "." in s.qualname or s.path in seen:
            continue
        path = root / s.path
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if s.start_line - 1 < len(lines) and FUNC.match(lines[s.start_line - 1].encode()):
            seen.add(s.path)
            out.append((path, s.qualname))
        if len(out) >= n:
            break
    return out


def edit_body(path: Path, func: str, tag: int) -> None:
    """Insert a statement as the first line of ``func``'s body (a real body change)."""
    text = path.read_text(encoding="utf-8")
    m = re.search(rf"^def {re.escape(func)}\(.*\):[ \t]*\n", text, re.M)
    assert m is not None
    new = text[: m.end()] + f"    _graphmem_bench_{tag} = {tag}\n" + text[m.end() :]
    tmp = path.with_suffix(".py.tmp~")
    tmp.write_text(new, encoding="utf-8")
    tmp.replace(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--strict", action="store_true", help="refuse to measure on a busy machine")
    args = ap.parse_args()
    load = check_quiet("staleness", strict=args.strict)
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    home = short_home()
    corpus = stdlib_corpus(tmp)
    d = DaemonProc(home, [corpus])
    try:
        d.wait_ready()
        stale_at: dict[str, float] = {}
        cond = threading.Condition()
        with d.client() as c:
            targets = pick_targets(
                corpus,
                list(
                    {
                        s.id: s
                        for pat in ("*", "*_*", "*a*", "*e*", "*o*", "*r*")
                        for s in c.find_symbols(pat, kinds=["function"], limit=1000)
                    }.values()
                ),
                args.edits,
            )
            ids: list[str] = []
            for path, func in targets:
                rel = path.relative_to(corpus).as_posix()
                o = c.observe(f"bench note on {func}", anchors=[f"{rel}::{func}"], source="bench")
                ids.append(o.id)
            stream = c.events(kinds=[EventKind.OBSERVATION_STALE])

            def listen() -> None:
                for ev in stream:
                    if ev.observation is not None:
                        with cond:
                            stale_at.setdefault(ev.observation.id, time.perf_counter())
                            cond.notify_all()

            threading.Thread(target=listen, daemon=True).start()
            time.sleep(0.5)
            latencies: list[float] = []
            for i, ((path, func), oid) in enumerate(zip(targets, ids, strict=True)):
                t0 = time.perf_counter()
                edit_body(path, func, i)
                with cond:
                    cond.wait_for(lambda oid=oid: oid in stale_at, timeout=10)
                if oid in stale_at:
                    latencies.append((stale_at[oid] - t0) * 1000)
            stream.cancel()
            d.wait_ready()
            existing = sorted(corpus.rglob("*.py"))
            files = existing[: args.batch]
            extra = args.batch - len(files)  # like a branch switch: rewrite every file, add the rest
            t0 = time.perf_counter()
            for f in files:
                f.write_bytes(f.read_bytes() + b"\n\ndef _graphmem_batch_marker():\n    return 1\n")
            if extra > 0:
                new_dir = corpus / "_graphmem_batch"
                new_dir.mkdir()
                for i in range(extra):
                    src = existing[i % len(existing)]
                    (new_dir / f"mod_{i}.py").write_bytes(src.read_bytes())
            # current again = every rewritten file's marker indexed, and the index reported current
            with d.client(60) as c2:
                while len(c2.find_symbols("_graphmem_batch_marker", limit=5000)) < len(files):
                    time.sleep(0.02)
            d.wait_ready()
            batch_s = time.perf_counter() - t0
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    out = {
        "edits": len(targets),
        "stale_events": len(latencies),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "max_ms": round(max(latencies, default=0.0), 1),
        "batch_files": len(files) + max(0, extra),
        "batch_s": round(batch_s, 3),
        "load_average": round(load, 2),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{out['stale_events']}/{out['edits']} edits produced a stale event: p50 {out['p50_ms']} ms, "
            f"p95 {out['p95_ms']} ms, max {out['max_ms']} ms (target p50 < 150 ms)"
        )
        print(f"batch: {out['batch_files']} files rewritten at once, index current again after {out['batch_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
