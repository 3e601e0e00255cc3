#!/usr/bin/env python3
"""Worktrees benchmark (issue 43): one repository, many checkouts.

A git repository of the standard library's non-test modules (one commit) is registered with a
real daemon; then worktrees are added with ``git worktree add`` one after the other (the daemon
picks each up by itself) up to the largest count of ``--counts`` (1, 4 and 16 by default).
Every fourth worktree is on a branch of its own whose commit changes ``--changed`` files (300
by default: a function appended to each), so that checkout has that many files whose content
is new to the repository; the others equal the first checkout.

For each added worktree it reports: seconds from ``git worktree add`` until the daemon has
that checkout READY with nothing pending, and how many of them ``git worktree add`` itself
took (until it returned) — so also the seconds from git's return, when the worktree is
added, until it is current: the measure of the target ("an added worktree ... is current in
<= 1 s"; git's own checkout of the files is before the worktree exists, and varies with the
machine's load, 0.1-0.8 s on an idle one); both are printed; how many files it parsed (the rest came from the
other checkouts' parses); the whole process tree's RSS once the daemon is idle and its peak so
far, and how much it added; the daemon's CPU seconds (its own, and its children's) spent on
it; and, from the daemon's log, when it was registered (after ``git worktree add`` wrote it
and the worktree loop saw it) and when its index pass ended, and the pass's parts: the
derivation from a sibling (the graph and resolver state copied), the walk and parse of the
files that differ, the apply, when it was READY, and the daemon's own steps of registering
it and of its pass (``--keep-log`` keeps the whole log) (their delta: they and the files depending on them resolved) —
so that a branch worktree's time can be read as "the parse of its differing files plus the
rest". At each count of ``--counts`` it prints
a summary line: RSS per worktree over all of them (branch worktrees included), and what a
same-files worktree added on average. The 1-minute load average is printed before the first
index and after the last worktree. ``--json`` prints one JSON object.

Before the first checkout, a daemon with an empty repository is started and measured idle:
the first checkout's RSS above that, per file, is what indexing a file costs here; a branch
worktree's differing files inherently need about that much each (their parses, symbols,
edges, text documents and resolver entries are their own), reported as "inherent".

Waiting between worktrees (``--settle``, the default): each worktree is added once the previous
one is current *and settled* — its own INDEX_DURABLE mark reported (every store write of its
pass done: the copy of the sibling's rows, its own files, its cached parses) and then the
daemon's whole tree under 2 % of a CPU for 1 s — so each worktree's figures are its own, not
the previous worktree's store writes running beside it. ``--no-settle``: the next worktree is
added as soon as the previous one is current (an agent adds worktrees when it likes): each
worktree after a branch worktree then shares the machine with that one's store writes; its
RSS and CPU figures are read when it is current (not settled), and the daemon is settled only
before the idle measurement at the end. The JSON's ``policy`` says which ran.

``--inside``: the worktrees are made in the repository's ``.claude/worktrees/`` (where Claude
Code puts them), not beside it: the main checkout's walk and watch then cover them and must
leave them out (the JSON's ``layout`` says which ran).

At the end, 12 s after the last worktree (its checkouts then share one watch), the idle
daemon's CPU over ``--idle-seconds`` (its whole tree, % of one CPU) and its busiest threads.

Targets: an added worktree whose files equal an indexed checkout's is current in <= 1 s plus
the time to parse its differing files; each such worktree adds <= 10 % of the first
checkout's whole-tree RSS (plus, for a branch worktree, what its differing files inherently
need); an idle daemon with 16 worktrees uses <= 1 % of a CPU.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from bench_scale import git
from benchlib import (
    DaemonProc,
    busy_threads,
    check_quiet,
    load_average,
    short_home,
    stdlib_corpus,
    tree_cpu_seconds,
    tree_rss_mb,
)
from graphmem.paths import resolve_paths

#: what the benchmark reads of each worktree's pass in the daemon's log: (key, label)
STEPS = (
    ("registered_s", "seen by the worktree loop at"),
    ("register_s", "registering"),
    ("queued_s", "queued"),
    ("derive_s", "derivation"),
    ("parse_s", "walk and parse"),
    ("apply_s", "apply"),
    ("ready_s", "READY at"),
    ("indexed_s", "pass ended at"),
)


def pass_times(home: Path, checkout_id: str, root: Path, began: float) -> dict[str, Any]:
    """The index pass of ``checkout_id`` (at ``root``) as its daemon logged it: seconds from
    ``began`` (a wall-clock time) until it was registered and until its pass ended, and the
    seconds of its derivation, of the walk and parse of what was left, of the apply (none
    when not logged)."""
    text = resolve_paths(str(home), {}).log.read_text(encoding="utf-8", errors="replace")
    out: dict[str, Any] = {}
    for key, pattern in (
        ("registered_s", rf"new worktree {re.escape(str(root))}: registered"),
        ("indexed_s", rf"indexed {re.escape(checkout_id)}: "),
    ):
        logged = re.search(rf"^(\S+ \S+),(\d+) INFO \S+: {pattern}", text, re.M)
        if logged is not None:
            at = time.mktime(time.strptime(logged[1], "%Y-%m-%d %H:%M:%S")) + int(logged[2]) / 1000
            out[key] = round(at - began, 2)
    registered = re.search(rf"{re.escape(checkout_id)}: registered in ([\d.]+)s \((.*)\)$", text, re.M)
    if registered is not None:
        out["register_s"] = float(registered[1])
        out["register_steps"] = registered[2]
    ended = re.search(rf"indexed {re.escape(checkout_id)}: .* in ([\d.]+)s \(walk.*: (.*); [\d.]+ CPU-s; READY after "
                      r"([\d.]+)s, queued ([\d.]+)s before$", text, re.M)  # fmt: skip
    if ended is not None and "indexed_s" in out:
        out["ready_s"] = round(out["indexed_s"] - float(ended[1]) + float(ended[3]), 2)
        out["queued_s"] = float(ended[4])
        out["pass_steps"] = ended[2]
    derived = re.search(rf"{re.escape(checkout_id)}: \d+ of \d+ files derived from \S+ in ([\d.]+)s", text)
    indexed = re.search(rf"indexed {re.escape(checkout_id)}: .* \(walk\+parse ([\d.]+)s, apply ([\d.]+)s\)", text)
    if derived is not None:
        out["derive_s"] = float(derived[1])
    if indexed is not None:
        out["parse_s"] = round(float(indexed[1]) - out.get("derive_s", 0.0), 2)
        out["apply_s"] = float(indexed[2])
    return out


def idle_rss_mb(tmp: Path) -> float:
    """The whole-tree RSS of an idle daemon with an empty repository registered."""
    empty = tmp / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "main")
    d = DaemonProc(tmp / "home-empty", [empty])
    try:
        d.wait_ready()
        d.wait_idle()
        return tree_rss_mb(d.proc.pid)
    finally:
        d.stop()


def make_branches(repo: Path, n: int, changed: int) -> list[str]:
    """``n`` branches off main, each changing a different set of ``changed`` files."""
    files = sorted(p for p in repo.rglob("*.py") if ".git" not in p.parts)
    names = []
    for k in range(n):
        name = f"changed-{k}"
        git(repo, "checkout", "-q", "-b", name, "main")
        start = (k * changed) % len(files)
        for i, p in enumerate((files + files)[start : start + min(changed, len(files))]):
            with p.open("a", encoding="utf-8") as f:
                f.write(f"\n\ndef _bench_{k}_{i}(x):\n    return x + {k * 1000 + i}\n")
        git(repo, "commit", "-q", "-am", name)
        names.append(name)
    git(repo, "checkout", "-q", "main")
    return names


def wait_current(d: DaemonProc, root: Path, timeout: float = 600) -> dict[str, Any]:
    """Poll (20 ms) until the checkout at ``root`` is registered, READY, nothing pending."""
    deadline = time.monotonic() + timeout
    with d.client() as c:
        while time.monotonic() < deadline:
            for r in c.status().repositories:
                if r.root == str(root) and r.state.value == "ready" and not r.pending_changes and r.files:
                    return {"id": r.id, "files": r.files, "files_parsed": r.files_parsed, "symbols": r.symbols}
            time.sleep(0.02)
    raise RuntimeError(f"{root} did not become current")


#: what the daemon does before it is measured idle at the end: its checkouts share one watch
#: once none was added for 10 s (``GRAPHMEM_WATCH_GROUP_AFTER_S``)
IDLE_AFTER_S = 12.0


def idle_cpu(d: DaemonProc, wait_s: float, seconds: float) -> dict[str, Any]:
    """The daemon's CPU (its whole tree) over ``seconds`` once ``wait_s`` passed with nothing
    asked of it, in % of one CPU, and its busiest threads meanwhile."""
    time.sleep(wait_s)
    before = sum(tree_cpu_seconds(d.proc.pid))
    threads = busy_threads([d.proc.pid], seconds)
    used = sum(tree_cpu_seconds(d.proc.pid)) - before
    return {"idle_cpu_pct": round(100 * used / seconds, 2), "idle_threads": threads}


def run(
    counts: list[int],
    changed: int,
    quiet: bool,
    keep_log: Path | None = None,
    idle_s: float = 10.0,
    settle: bool = True,
    inside: bool = False,
) -> dict[str, Any]:
    tmp = short_home()
    home = tmp / "home"
    out: dict[str, Any] = {"counts": counts, "changed_files": changed, "policy": "settle" if settle else "no-settle",
                           "layout": "inside" if inside else "beside"}  # fmt: skip
    try:
        repo = stdlib_corpus(tmp)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "stdlib")
        n_files = sum(1 for _ in repo.rglob("*.py"))
        lines = sum(p.read_bytes().count(b"\n") for p in repo.rglob("*.py"))
        top = max(counts)
        branches = make_branches(repo, top // 4, changed)
        out["corpus"] = {"files": n_files, "lines": lines}
        out["load_before"] = check_quiet("bench_worktrees") if not quiet else load_average()
        idle = idle_rss_mb(tmp)
        started = time.monotonic()
        d = DaemonProc(home, [repo])
        try:
            d.wait_ready()
            first = time.monotonic() - started
            d.wait_durable()
            d.wait_idle()
            base_rss = tree_rss_mb(d.proc.pid)
            base_peak = d.peak_rss_mb()["tree"]
            cpu0 = tree_cpu_seconds(d.proc.pid)
            per_file = (base_rss - idle) / n_files
            out["first"] = {"seconds": round(first, 2), "rss_mb": round(base_rss, 1), "peak_mb": round(base_peak, 1),
                            "idle_daemon_mb": round(idle, 1), "per_file_mb": round(per_file, 3)}  # fmt: skip
            if not quiet:
                print(
                    f"policy: {out['policy']} (the next worktree is added once the previous one is current"
                    + (", durable and the daemon idle)" if settle else ")")
                    + f"; worktrees {'inside the repository, in .claude/worktrees/' if inside else 'beside it'}"
                )
                print(
                    f"first checkout: {n_files} files, {lines:,} lines, current in {first:.2f}s; "
                    f"tree RSS {base_rss:.0f} MB (peak {base_peak:.0f} MB); an idle daemon with an empty "
                    f"repository {idle:.0f} MB: {1024 * per_file:.0f} KB per file indexed"
                )
            rows = []
            began_at: dict[int, tuple[Path, float]] = {}  # worktree -> (its root, when git began)
            for i in range(1, top + 1):
                wt = (repo / ".claude" / "worktrees" if inside else tmp) / f"wt{i}"
                on_branch = i % 4 == 0 and branches
                t0, began = time.monotonic(), time.time()
                if on_branch:
                    git(repo, "worktree", "add", "-q", str(wt), branches[i // 4 - 1])
                else:
                    git(repo, "worktree", "add", "-q", "-b", f"wt{i}", str(wt), "main")
                git_s = time.monotonic() - t0
                got = wait_current(d, wt.resolve())
                seconds = time.monotonic() - t0
                settled_s = None
                if settle:  # this checkout's own store writes done, then the whole tree quiet
                    t_settle = time.monotonic()
                    d.wait_durable(repo_id=got["id"])
                    d.wait_idle()
                    settled_s = round(time.monotonic() - t_settle, 2)
                cpu = tree_cpu_seconds(d.proc.pid)
                row = {
                    "worktree": i,
                    "checkout": got["id"],
                    "settled_s": settled_s,
                    "branch": bool(on_branch),
                    "seconds": round(seconds, 2),
                    "git_s": round(git_s, 2),
                    "after_git_s": round(seconds - git_s, 2),
                    "files_parsed": got["files_parsed"],
                    "rss_mb": round(tree_rss_mb(d.proc.pid), 1),
                    "peak_mb": round(d.peak_rss_mb()["tree"], 1),
                    "daemon_cpu_s": round(cpu[0] - cpu0[0], 2),
                    "children_cpu_s": round(cpu[1] - cpu0[1], 2),
                    **pass_times(home, got["id"], wt.resolve(), began),
                }
                cpu0 = cpu
                rows.append(row)
                began_at[i] = (wt.resolve(), began)
                row["rss_added_mb"] = round(row["rss_mb"] - (rows[-2]["rss_mb"] if len(rows) > 1 else base_rss), 1)
                if on_branch:
                    row["inherent_mb"] = round(got["files_parsed"] * per_file, 1)
                    row["seconds_less_parse"] = round(row["seconds"] - row.get("parse_s", 0.0), 2)
                    row["after_git_less_parse"] = round(row["after_git_s"] - row.get("parse_s", 0.0), 2)
                if not quiet:
                    kind = f"branch, {changed} files changed" if on_branch else "same files"
                    steps = ", ".join(f"{label} {row[k]:.2f}s" for k, label in STEPS if k in row)
                    print(
                        f"  worktree {i:2d} ({kind}): current in {row['seconds']:.2f}s (git worktree add "
                        f"{row['git_s']:.2f}s of it; {row['after_git_s']:.2f}s after git returned), "
                        f"{row['files_parsed']} files parsed, tree RSS {row['rss_mb']:.0f} MB "
                        f"(+{row['rss_mb'] - base_rss:.0f} MB over the first, +{row['rss_added_mb']:.0f} MB by it), "
                        f"CPU {row['daemon_cpu_s']:.2f}s daemon + {row['children_cpu_s']:.2f}s workers; "
                        f"from its log: {steps}"
                        + (f"; settled {row['settled_s']:.2f}s after it was current" if settle else "")
                    )
                    if "register_steps" in row or "pass_steps" in row:
                        print(
                            f"      registering: {row.get('register_steps', '?')}; pass: {row.get('pass_steps', '?')}"
                        )
                    if on_branch:
                        print(
                            f"      current in {row['seconds_less_parse']:.2f}s "
                            f"({row['after_git_less_parse']:.2f}s after git returned) plus the walk and parse of its "
                            f"differing files (target <= 1 s plus those); its differing files inherently need "
                            f"~{row['inherent_mb']:.0f} MB (target: <= {0.1 * base_rss:.0f} MB plus that)"
                        )
                if i in counts:
                    same = [r for r in rows if not r["branch"]]
                    per = (row["rss_mb"] - base_rss) / i
                    # what a same-files worktree adds (the RSS after it less the RSS before it),
                    # on average: the target's "each such worktree" (branch worktrees add more)
                    same_added = sum(r["rss_added_mb"] for r in same) / len(same) if same else 0.0
                    summary = {
                        "worktrees": i,
                        "rss_mb": row["rss_mb"],
                        "peak_mb": row["peak_mb"],
                        "rss_per_worktree_mb": round(per, 1),
                        "rss_per_worktree_pct": round(100 * per / base_rss, 1),
                        "same_files_max_seconds": max((r["seconds"] for r in same), default=0.0),
                        "same_files_within_1s": sum(r["seconds"] <= 1.0 for r in same),
                        "same_files_max_after_git": max((r["after_git_s"] for r in same), default=0.0),
                        "same_files_after_git_within_1s": sum(r["after_git_s"] <= 1.0 for r in same),
                        "same_files": len(same),
                        "same_files_rss_added_mb": round(same_added, 1),
                        "same_files_rss_added_pct": round(100 * same_added / base_rss, 1),
                    }
                    out.setdefault("summaries", []).append(summary)
                    if not quiet:
                        print(
                            f"{i} worktrees: tree RSS {row['rss_mb']:.0f} MB (peak {row['peak_mb']:.0f} MB), "
                            f"{per:.0f} MB per worktree = {summary['rss_per_worktree_pct']}% of the first checkout "
                            f"(target <= 10%); a same-files worktree adds {same_added:.0f} MB on average = "
                            f"{summary['same_files_rss_added_pct']}%; slowest same-files worktree current in "
                            f"{summary['same_files_max_seconds']:.2f}s (target <= 1 s), <= 1 s in "
                            f"{summary['same_files_within_1s']} of {len(same)}; counted from git's return: "
                            f"slowest {summary['same_files_max_after_git']:.2f}s, <= 1 s in "
                            f"{summary['same_files_after_git_within_1s']} of {len(same)}"
                        )
            out["worktrees"] = rows
            if not settle:  # the last worktrees' writes are done before the idle measurement
                if rows:
                    d.wait_durable(repo_id=rows[-1]["checkout"])
                d.wait_idle()
                # each pass's log line is written when the pass ends, after it is current: read
                # when it was current, it may not be there yet
                for row in rows:
                    row.update(pass_times(home, row["checkout"], *began_at[row["worktree"]]))
                    if row["branch"]:
                        row["seconds_less_parse"] = round(row["seconds"] - row.get("parse_s", 0.0), 2)
                        row["after_git_less_parse"] = round(row["after_git_s"] - row.get("parse_s", 0.0), 2)
            if idle_s > 0:
                out["idle"] = idle_cpu(d, IDLE_AFTER_S, idle_s)
                if not quiet:
                    print(
                        f"idle with {top + 1} checkouts ({IDLE_AFTER_S:.0f} s after the last): "
                        f"{out['idle']['idle_cpu_pct']:.2f}% of a CPU over {idle_s:.0f} s (target <= 1 %); "
                        f"{out['idle']['idle_threads']}"
                    )
        finally:
            d.stop()
            if keep_log is not None:
                shutil.copyfile(resolve_paths(str(home), {}).log, keep_log)
        out["load_after"] = load_average()
        if not quiet:
            print(f"load average after: {out['load_after']:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--counts", default="1,4,16", help="report after this many worktrees (comma-separated)")
    ap.add_argument("--changed", type=int, default=300, help="files a branch worktree changes")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep-log", type=Path, help="copy the daemon's log here at the end")
    ap.add_argument("--idle-seconds", type=float, default=10.0,
                    help="measure the idle daemon's CPU this long at the end (0: not)")  # fmt: skip
    ap.add_argument("--no-settle", dest="settle", action="store_false",
                    help="add the next worktree as soon as the previous is current, not once it is durable "
                         "and the daemon idle")  # fmt: skip
    ap.add_argument("--inside", action="store_true",
                    help="add the worktrees inside the repository, in .claude/worktrees/ (Claude Code's layout), "
                         "not beside it")  # fmt: skip
    args = ap.parse_args()
    counts = sorted({int(x) for x in args.counts.split(",") if x.strip()})
    result = run(counts, args.changed, args.json, args.keep_log, args.idle_seconds, args.settle, args.inside)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
