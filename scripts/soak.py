"""Soak test of the real daemon: memory under a long mixed load, and durability under SIGKILL.

Phase 1 (load): 16 client threads send 100,000 mixed RPCs (creates, edits, deletes, gets,
lists, text and file recalls, symbol searches, briefs, status) while a thread edits source
files of the watched repository. The resident memory of the daemon's whole process tree
(daemon, forkserver, parse workers) is read after a warm-up (the first 10 % of the calls) and
at the end; growth must stay within 5 %, with 0 errors. Each client keeps at most 40 of its own
observations alive (the oldest is deleted), so the live set is bounded and growth is a leak.

Phase 2 (kills): 100 rounds of: start the daemon, write from 4 threads, SIGKILL it at a
random moment. After every restart each acknowledged observation must be present exactly
once with its text, and every unacknowledged create, retried with its idempotency key, must
end up exactly once. The daemon must come back every time.

    python scripts/soak.py [--calls 100000] [--kills 100] [--json]

Prints the 1-minute load average before and after each phase (and warns when the machine is
busy: the figures are then pessimistic).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import ROOT, DaemonProc, _descendants, short_home
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.types import ObservationStatus

ANCHORS = ["app/auth/crypto.py::make_token", "app/auth/service.py", "app/models.py"]
FILES = ["app/auth/crypto.py", "app/api/routes.py", "app/models.py"]
WORDS = ["token", "expire", "retry", "session", "cache", "login", "password", "hash", "salt", "user", "route", "model"]
ALL = list(ObservationStatus)


def load_avg() -> float:
    return os.getloadavg()[0]


def warn_if_busy(label: str) -> float:
    la = load_avg()
    cores = os.cpu_count() or 1
    print(f"[{label}] 1-min load average {la:.2f} on {cores} cores", flush=True)
    if la > cores * 0.75:
        print(f"WARNING: the machine is busy (load {la:.2f}); figures are pessimistic", flush=True)
    return la


def tree_rss_mb(pid: int) -> float:
    """Current resident memory (VmRSS) of ``pid`` and all its descendants, in MB."""
    total = 0.0
    for p in [pid, *_descendants(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += float(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return float(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def copy_repo(dest: Path) -> Path:
    repo = dest / "python"
    shutil.copytree(ROOT / "fixtures" / "repos" / "python", repo)
    return repo


# ---------------------------------------------------------------------------- phase 1


@dataclass
class Counters:
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: int = 0
    errors: list[str] = field(default_factory=list)
    by_op: dict[str, int] = field(default_factory=dict)

    def count(self, op: str) -> int:
        with self.lock:
            self.done += 1
            self.by_op[op] = self.by_op.get(op, 0) + 1
            return self.done


def _client_loop(c: GraphMem, n: int, seed: int, counters: Counters, warm: threading.Event, warm_at: int) -> None:
    rnd = random.Random(seed)
    mine: list[str] = []
    ops = ["create", "update", "delete", "get", "list", "recall_text", "recall_files", "find", "brief", "status"]
    weights = [9, 9, 3, 14, 9, 22, 14, 10, 5, 5]
    for _ in range(n):
        op = rnd.choices(ops, weights)[0]
        if op in ("update", "delete", "get") and not mine:
            op = "create"
        try:
            if op == "create":
                text = " ".join(rnd.choices(WORDS, k=8)) + f" {uuid.uuid4().hex[:8]}"
                mine.append(c.observe(text, anchors=[rnd.choice(ANCHORS)], tags=["soak"]).id)
                if len(mine) > 40:
                    c.delete(mine.pop(0))
            elif op == "update":
                c.update(rnd.choice(mine), text=" ".join(rnd.choices(WORDS, k=6)) + " edited")
            elif op == "delete":
                c.delete(mine.pop(rnd.randrange(len(mine))))
            elif op == "get":
                c.get(rnd.choice(mine))
            elif op == "list":
                c.list(limit=50)
            elif op == "recall_text":
                c.recall(" ".join(rnd.choices(WORDS, k=3)))
            elif op == "recall_files":
                c.recall(files=[rnd.choice(FILES)])
            elif op == "find":
                c.find_symbols(rnd.choice(["make_*", "*Service*", "hash*", "route*"]))
            elif op == "brief":
                c.brief(files=[rnd.choice(FILES)], budget=500)
            else:
                c.status()
        except GraphMemError as exc:
            with counters.lock:
                counters.errors.append(f"{op}: {type(exc).__name__}: {exc}")
        if counters.count(op) >= warm_at:
            warm.set()


def _editor(repo: Path, stop: threading.Event) -> int:
    target = repo / "app" / "util" / "soak_edit.py"
    n = 0
    while not stop.wait(0.25):
        n += 1
        target.write_text(f"def soak_{n % 7}(x):\n    return x + {n}\n\n\nclass Soak{n % 3}:\n    pass\n")
    return n


def phase_load(calls: int, clients: int) -> dict[str, Any]:
    la_before = warn_if_busy("load phase, before")
    base = short_home()
    repo = copy_repo(base)
    d = DaemonProc(base / "home", [repo])
    try:
        d.wait_ready()
        counters = Counters()
        warm = threading.Event()
        stop = threading.Event()
        editor = threading.Thread(target=_editor, args=(repo, stop), daemon=True)
        editor.start()
        per = calls // clients
        gms = [d.client(60) for _ in range(clients)]
        threads = [
            threading.Thread(target=_client_loop, args=(gms[i], per, i, counters, warm, calls // 10))
            for i in range(clients)
        ]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        samples: list[tuple[int, float, float]] = []

        def sample() -> None:
            while not stop.wait(5.0):
                samples.append((counters.done, round(tree_rss_mb(d.proc.pid), 1), round(_rss_mb(d.proc.pid), 1)))
                if os.environ.get("SOAK_VERBOSE"):
                    print("sample", samples[-1], flush=True)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        warm.wait()
        rss_warm = tree_rss_mb(d.proc.pid)
        t_warm = time.monotonic()
        print(f"warm-up done after {counters.done} calls: tree RSS {rss_warm:.1f} MB", flush=True)
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        stop.set()
        editor.join()
        for g in gms:
            g.close()
        d.wait_durable()
        rss_end = tree_rss_mb(d.proc.pid)
        growth = (rss_end - rss_warm) / rss_warm * 100 if rss_warm else 0.0
        result = {
            "calls": counters.done,
            "clients": clients,
            "errors": len(counters.errors),
            "error_samples": counters.errors[:10],
            "by_op": counters.by_op,
            "seconds": round(elapsed, 1),
            "calls_per_second": round(counters.done / elapsed, 1),
            "rss_after_warmup_mb": round(rss_warm, 1),
            "rss_end_mb": round(rss_end, 1),
            "rss_growth_percent": round(growth, 2),
            "seconds_after_warmup": round(time.monotonic() - t_warm, 1),
            "rss_samples_calls_tree_daemon_mb": samples[:: max(1, len(samples) // 40)],
            "load_before": round(la_before, 2),
            "load_after": round(warn_if_busy("load phase, after"), 2),
            "pass": growth <= 5.0 and not counters.errors,
        }
    finally:
        d.stop()
        shutil.rmtree(base, ignore_errors=True)
    return result


# ---------------------------------------------------------------------------- phase 2


def _writer(c: GraphMem, tag: str, acked: dict[str, tuple[str, str]], inflight: dict[str, str], stop: threading.Event,
            lock: threading.Lock) -> None:
    n = 0
    while not stop.is_set():
        n += 1
        key = f"{tag}-{n}-{uuid.uuid4().hex[:6]}"
        text = f"kill soak {key} " + " ".join(random.choices(WORDS, k=4))
        with lock:
            inflight[key] = text
        try:
            o = c.observe(text, anchors=[random.choice(ANCHORS)], idempotency_key=key)
        except GraphMemError:
            return  # the daemon died under us: this one stays in flight
        with lock:
            inflight.pop(key, None)
            acked[key] = (o.id, text)


def _check(c: GraphMem, acked: dict[str, tuple[str, str]]) -> tuple[int, int]:
    listed = c.list(statuses=ALL, limit=0)
    by_text: dict[str, int] = {}
    ids: dict[str, str] = {}
    for o in listed:
        by_text[o.text] = by_text.get(o.text, 0) + 1
        ids[o.id] = o.text
    lost = sum(1 for oid, text in acked.values() if ids.get(oid) != text)
    dupes = sum(n - 1 for n in by_text.values() if n > 1)
    return lost, dupes


def phase_kills(kills: int) -> dict[str, Any]:
    la_before = warn_if_busy("kill phase, before")
    base = short_home()
    repo = copy_repo(base)
    home = base / "home"
    acked: dict[str, tuple[str, str]] = {}
    lost_total = dupes_total = restarts = retried = 0
    starts: list[float] = []
    rnd = random.Random(7)
    d: DaemonProc | None = None
    try:
        for round_ in range(kills):
            t = time.monotonic()
            d = DaemonProc(home, [repo])
            starts.append(time.monotonic() - t)
            restarts += 1
            inflight: dict[str, str] = {}
            lock = threading.Lock()
            with d.client(30) as c:
                # every unacknowledged create of the previous round, retried with its key
                for key, text in sorted(getattr(phase_kills, "_pending", {}).items()):
                    o = c.observe(text, anchors=[ANCHORS[0]], idempotency_key=key)
                    acked[key] = (o.id, text)
                    retried += 1
                lost, dupes = _check(c, acked)
            lost_total += lost
            dupes_total += dupes
            if lost or dupes:
                print(f"round {round_}: {lost} lost, {dupes} duplicated", flush=True)
            stop = threading.Event()
            gms = [d.client(10) for _ in range(4)]
            threads = [
                threading.Thread(target=_writer, args=(gms[i], f"r{round_}w{i}", acked, inflight, stop, lock))
                for i in range(4)
            ]
            for th in threads:
                th.start()
            time.sleep(rnd.uniform(0.1, 1.0))
            d.proc.send_signal(signal.SIGKILL)
            d.proc.wait(30)
            stop.set()
            for th in threads:
                th.join(30)
            for g in gms:
                g.close()
            phase_kills._pending = dict(inflight)  # type: ignore[attr-defined]
            if (round_ + 1) % 10 == 0:
                print(f"{round_ + 1} kills, {len(acked)} acknowledged so far", flush=True)
        d = DaemonProc(home, [repo])
        with d.client(30) as c:
            for key, text in sorted(getattr(phase_kills, "_pending", {}).items()):
                o = c.observe(text, anchors=[ANCHORS[0]], idempotency_key=key)
                acked[key] = (o.id, text)
                retried += 1
            lost, dupes = _check(c, acked)
            lost_total += lost
            dupes_total += dupes
        d.stop()
    finally:
        if d is not None and d.proc.poll() is None:  # an error mid-round: never leave it running
            d.proc.kill()
            d.proc.wait(30)
        shutil.rmtree(base, ignore_errors=True)
    return {
        "kills": kills,
        "restarts": restarts,
        "acknowledged": len(acked),
        "retried_in_flight": retried,
        "lost": lost_total,
        "duplicated": dupes_total,
        "start_seconds_median": round(sorted(starts)[len(starts) // 2], 2) if starts else 0,
        "start_seconds_max": round(max(starts), 2) if starts else 0,
        "load_before": round(la_before, 2),
        "load_after": round(warn_if_busy("kill phase, after"), 2),
        "pass": lost_total == 0 and dupes_total == 0 and restarts == kills,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=100_000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--skip-kills", action="store_true")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object at the end")
    args = ap.parse_args()
    out: dict[str, Any] = {}
    if not args.skip_load:
        out["load"] = phase_load(args.calls, args.clients)
        print(json.dumps(out["load"], indent=2), flush=True)
    if not args.skip_kills:
        out["kills"] = phase_kills(args.kills)
        print(json.dumps(out["kills"], indent=2), flush=True)
    if args.json:
        print(json.dumps(out))
    return 0 if all(v.get("pass") for v in out.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
