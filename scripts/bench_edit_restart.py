#!/usr/bin/env python3
"""An edit made right after a (re)start, or early in a cold index: how long until the index
took it in, and what it waited behind.

*Restart*: a clone of a real history (``--corpus``, ``../shared/corpora``: code and docs, so its
knowledge files are indexed) is indexed cold by a daemon on its own home, ``--notes`` notes are
saved on its functions, and the daemon is stopped cleanly. Then ``--restarts`` times: the daemon
is started, and as soon as it answers ``status`` a function's body is edited and ``EditContext``
is called (``wait_ms`` 5,000, the most it allows, again until the daemon's log says the file was
taken in), as the agent's post-edit hook does. ``--upgrade``: each restart reads every knowledge
file again, as the first start of a new version does. *Cold* (``--cold``): ``AddRepo`` of the standard
library copy (~0.9 M lines), an edit ``--cold-after`` seconds later, the same calls.

Each run prints the seconds from the edit to the answer that had it taken in, how ``status``
described the checkout meanwhile (sampled every 0.5 s), and the daemon's log lines of its jobs
between the start and the answer (index passes, knowledge passes, batches, the edit context).
``--against DIR`` runs a second code tree (``git archive <commit> daemon clients scripts
fixtures``) on its own home, alternating with this checkout's. ``--json`` prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchlib import CORPORA, DaemonProc, check_quiet, code_trees, log_lines, log_size, short_home, stdlib_corpus

#: the daemon's log lines that say what its jobs did
JOB_LINES = re.compile(
    r"indexer: indexed |knowledge files read|batch of |restore: (warmed|loaded)|edit context: |"
    r"handed over|yielded|live batch|PHASES"
)
TAKEN = re.compile(r"edit context: .*taken in after")
NOT_TAKEN = re.compile(r"edit context: .*NOT taken in")
_DEF = re.compile(r"^def \w+\(.*\):\s*$")


def functions(corpus: Path, limit: int) -> list[tuple[Path, int, str]]:
    """Top-level one-line ``def`` lines followed by an indented body: (file, line index, name)."""
    out: list[tuple[Path, int, str]] = []
    for path in sorted(corpus.rglob("*.py")):
        if "test" in path.as_posix():
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for i, line in enumerate(lines[:-1]):
            nxt = lines[i + 1]
            if _DEF.match(line) and nxt.startswith("    ") and nxt.strip():
                out.append((path, i, line.split("(")[0][4:]))
                break
        if len(out) >= limit:
            break
    return out


def edit_body(path: Path, line: int, n: int) -> None:
    """Put (or change) a statement as the first line of the function at ``line``'s body."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    marker = "    _graphmem_bench_edit = "
    if lines[line + 1].startswith(marker):
        lines[line + 1] = f"{marker}{n}\n"
    else:
        lines.insert(line + 1, f"{marker}{n}\n")
    path.write_text("".join(lines), encoding="utf-8")


def wait_taken(d: DaemonProc, home: Path, since: int, path: Path, budget_s: float) -> tuple[float, int]:
    """Call ``EditContext`` on ``path`` (5 s each) until the log says it was taken in: seconds, calls."""
    t = time.perf_counter()
    calls = 0
    with d.client(60) as c:
        while time.perf_counter() - t < budget_s:
            c.edit_context([str(path)], wait_ms=5000)
            calls += 1
            if any(TAKEN.search(x) for x in log_lines(home, since)):
                return time.perf_counter() - t, calls
    return float("nan"), calls


def sample_status(d: DaemonProc, stop: threading.Event, out: list[str]) -> None:
    """What ``status`` said of the checkout, every 0.5 s (what changed only)."""
    with d.client(10) as c:
        while not stop.is_set():
            try:
                st = c.status()
                for r in st.repositories:
                    said = f"{r.state.value} {r.files_done}/{r.files_total}"
                    said += f" {getattr(r, 'activity', '')}".rstrip()
                    if not out or out[-1] != said:
                        out.append(said)
            except Exception as exc:  # noqa: BLE001 (a benchmark's sampler: say it, keep going)
                out.append(f"status failed: {exc}")
            stop.wait(0.5)


def index_with_notes(code: Path, home: Path, corpus: Path, n_notes: int) -> None:
    d = DaemonProc(home, workers=2, code=code)
    try:
        with d.client(3600) as c:
            c.add_repo(corpus)
            d.wait_queryable(3600)
            d.wait_durable(3600)
            for path, _, name in functions(corpus, n_notes):
                rel = path.relative_to(corpus).as_posix()
                c.observe(f"bench note on {name}: keep its contract", anchors=[f"{rel}::{name}"], repo=str(corpus))
        d.wait_idle()
    finally:
        d.stop()


def restart_edit(code: Path, home: Path, target: tuple[Path, int, str], n: int, upgrade: bool) -> dict[str, Any]:
    since = log_size(home)
    t0 = time.perf_counter()
    # an upgrade's restart reads every knowledge file again (``code_fingerprint``); the size
    # limit is part of that fingerprint: one byte more or less changes no file's fate
    env = {"GRAPHMEM_MAX_FILE_SIZE": str(2 * 1024 * 1024 + n % 2)} if upgrade else {}
    d = DaemonProc(home, workers=2, code=code, env=env)
    try:
        with d.client(30) as c:
            c.status()
        answered = time.perf_counter() - t0
        edit_body(target[0], target[1], n)
        edited = time.perf_counter() - t0
        stop, said = threading.Event(), []
        sampler = threading.Thread(target=sample_status, args=(d, stop, said), daemon=True)
        sampler.start()
        waited, calls = wait_taken(d, home, since, target[0], 300)
        stop.set()
        sampler.join()
        d.wait_idle()
    finally:
        d.stop()
    lines = log_lines(home, since)
    return {
        "status_answered_s": round(answered, 3),
        "edit_after_status_ms": round((edited - answered) * 1000, 1),
        "edit_waited_s": round(waited, 3),
        "calls": calls,
        "status_said": said,
        "jobs": [x[11:] for x in lines if JOB_LINES.search(x)],
    }


def cold_edit(code: Path, tmp: Path, after: float) -> dict[str, Any]:
    home = short_home()
    corpus = stdlib_corpus(tmp / f"cold-{code.name}-{time.monotonic_ns()}")
    target = functions(corpus, 1)[0]
    d = DaemonProc(home, workers=2, code=code)
    try:
        with d.client(60) as c:
            c.add_repo(corpus)
        time.sleep(after)
        edit_body(target[0], target[1], 1)
        stop, said = threading.Event(), []
        sampler = threading.Thread(target=sample_status, args=(d, stop, said), daemon=True)
        sampler.start()
        waited, calls = wait_taken(d, home, 0, target[0], 600)
        stop.set()
        sampler.join()
        d.wait_ready(600)
        d.wait_idle()
    finally:
        d.stop()
        lines = log_lines(home, 0)
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(corpus.parent, ignore_errors=True)
    return {
        "edit_waited_s": round(waited, 3),
        "calls": calls,
        "status_said": said,
        "jobs": [x[11:] for x in lines if JOB_LINES.search(x)],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=("click", "attrs", "marshmallow"), default="attrs")
    ap.add_argument("--restarts", type=int, default=2, help="restarts of each code (alternating)")
    ap.add_argument("--notes", type=int, default=3)
    ap.add_argument("--upgrade", action="store_true", help="each restart as an upgrade's: every knowledge file read")
    ap.add_argument("--cold", action="store_true", help="the cold case instead (stdlib copy)")
    ap.add_argument("--cold-after", type=float, default=2.0)
    ap.add_argument("--against", type=Path, help="a second code tree to alternate with")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    codes = code_trees(args.against)
    tmp = Path(tempfile.mkdtemp(prefix="gmedit"))
    runs: dict[str, list[dict[str, Any]]] = {str(code): [] for code in codes}
    homes = {code: short_home() for code in codes}
    try:
        if args.cold:
            for i in range(args.restarts):
                for code in codes:
                    load = check_quiet(f"cold edit {i + 1} of {code}")
                    runs[str(code)].append(cold_edit(code, tmp, args.cold_after) | {"load": round(load, 2)})
                    report(str(code), runs[str(code)][-1])
        else:
            corpora = {}
            for code in codes:
                corpora[code] = tmp / f"{args.corpus}-{len(corpora)}"
                bundle = CORPORA / f"{args.corpus}.bundle"
                subprocess.run(["git", "clone", "-q", str(bundle), str(corpora[code])], check=True)
                check_quiet(f"the cold index of {code}")
                index_with_notes(code, homes[code], corpora[code], args.notes)
            for i in range(args.restarts):
                for code in codes:
                    target = functions(corpora[code], 1)[0]
                    load = check_quiet(f"restart {i + 1} of {code}")
                    got = restart_edit(code, homes[code], target, i + 1, args.upgrade)
                    runs[str(code)].append(got | {"load": round(load, 2)})
                    report(str(code), runs[str(code)][-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        for home in homes.values():
            shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps({"corpus": "stdlib" if args.cold else args.corpus, "runs": runs}, indent=1))
    return 0


def report(code: str, r: dict[str, Any]) -> None:
    print(f"{code}: edit waited {r['edit_waited_s']} s ({r['calls']} calls), load {r['load']}", file=sys.stderr)
    for s in r["status_said"]:
        print(f"   status: {s}", file=sys.stderr)
    for j in r["jobs"]:
        print(f"   log: {j[:220]}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
