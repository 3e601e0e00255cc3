#!/usr/bin/env python3
"""Review page benchmark (``graphmem ui``, issue 44): server time of the queue and a note's
pages with 2,000 stale notes on the standard library corpus, and the picture's draw time in
headless chromium.

A real daemon indexes a copy of the standard library (committed to git, so the code before a
change comes from history); 2,000 notes (``--observations``) are anchored to 2,000 functions
across it, then every one of those functions gets a statement added at its end (a real edit
on disk, uncommitted), so all 2,000 notes are stale and in the queue. ``graphmem ui`` runs as
a user starts it; every figure is read from its ``Server-Timing`` header (the time from the
request's arrival to the response head: the daemon calls, the view model and the template),
with the round trip from this process beside it:

- queue, cold: the review queue page (2,000 items, filtered and counted, the first 200 drawn):
  the first load, made as soon as the page printed its URL (``queue_first_ms``; the page reads
  the queue as it starts, so this load waits for that read or finds it done: how it had the
  queue is ``queue_first_how``), then each load right after a
  confirm made on the page (19 notes confirmed on the way; the page patches the queue it
  kept with the notes that changed);
- queue, whole: each load after a knowledge file (``AGENTS.md``) changed, which makes the page
  read every note and finding from the daemon again (the Server-Timing ``queue;desc`` says
  how the page had the queue; the load that read it whole is the one counted);
- queue, warm: the same page loaded again with nothing changed in between (the page keeps the
  queue it read until the daemon reports any event);
- note page: a note's page (the note, its related notes, its neighbourhood within two hops);
- change: the code change under a note (the anchored version found in git, parsed in the
  daemon's workers, highlighted);
- graph: the picture's elements (``graph.json``);
- picture draw: in chromium (``/usr/bin/chromium`` through Playwright), from the request for
  the elements to the end of the layout, for the notes whose neighbourhood is nearest 200 nodes.

``--json`` prints one JSON object. Targets: queue p95 <= 200 ms; a 200-node picture <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchlib import ROOT, DaemonProc, TreeSampler, check_quiet, load_average, percentile, short_home, stdlib_corpus
from browserlib import CHROMIUM, launch_chromium, playwright_missing
from graphmem.types import Category, ObservationStatus, Symbol

AUTHORS = ["claude-code", "cursor", "cli", "copilot", "codex"]
WORDS = ["cache", "thread", "lock", "encoding", "socket", "timeout", "parser", "buffer", "retry", "pool"]


def git(root: Path, *args: str) -> None:
    cmd = ["git", "-c", "user.email=b@b", "-c", "user.name=bench", "-c", "commit.gpgsign=false", *args]
    subprocess.run(cmd, cwd=root, check=True, capture_output=True)


def pick_functions(d: DaemonProc, root: Path, n: int, rng: random.Random) -> list[tuple[Symbol, str]]:
    """``n`` functions whose file still compiles with a statement added at their end, with
    that edit: (symbol, the file's new text) applied later, bottom-up per file."""
    with d.client() as c:
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
        rng.shuffle(files)
        chosen: list[tuple[Symbol, str]] = []
        for rel in files:
            if len(chosen) >= n:
                break
            outline = c.file_outline(str(root / rel))
            funcs = [s for s in outline.symbols if s.kind in ("function", "method") and s.end_line - s.start_line >= 2]
            rng.shuffle(funcs)
            lines = (root / rel).read_text(encoding="utf-8", errors="replace").split("\n")
            picked: list[Symbol] = []
            for s in sorted(funcs[:8], key=lambda s: -s.start_line):
                head = lines[s.start_line - 1]
                indent = len(head) - len(head.lstrip())
                trial = [*lines[: s.end_line], " " * (indent + 4) + "_gm_bench_edit = None", *lines[s.end_line :]]
                try:
                    compile("\n".join(trial), rel, "exec")
                except (SyntaxError, ValueError):
                    continue
                lines = trial
                picked.append(s)
            text = "\n".join(lines)
            chosen += [(s, text) for s in picked][: n - len(chosen)]
        return chosen


class Ui:
    """``graphmem ui --no-open`` on the corpus; requests with its token."""

    def __init__(self, home: Path, root: Path) -> None:
        env = dict(os.environ, GRAPHMEM_HOME=str(home))
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon")])
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "ui", "--no-open"], cwd=root, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        m = re.search(r"(http://\S+)/queue\?token=(\S+)", line)
        if not m:
            raise RuntimeError(f"graphmem ui printed {line!r}")
        self.base, self.token = m.group(1), m.group(2)
        self.port = int(self.base.rsplit(":", 1)[1])
        self.sampler = TreeSampler(self.proc.pid)
        threading.Thread(target=lambda: [None for _ in self.proc.stdout or ()], daemon=True).start()

    def get(self, path: str) -> tuple[float, float, int]:
        """(server ms from Server-Timing, round-trip ms, body bytes) of one GET."""
        return self.get_read(path)[:3]  # type: ignore[return-value]

    def get_read(self, path: str) -> tuple[float, float, int, str]:
        """``get`` and, for the queue, how the page had it (``kept``, ``patched``, ``whole``:
        its ``queue;desc=`` Server-Timing metric)."""
        req = urllib.request.Request(self.base + path, headers={"Cookie": f"graphmem_ui_{self.port}={self.token}"})
        t0 = time.perf_counter()
        with urllib.request.urlopen(req, timeout=60) as resp:
            body = resp.read()
            timing = ", ".join(resp.headers.get_all("server-timing") or ())
        wall = (time.perf_counter() - t0) * 1000
        m = re.search(r"app;dur=([\d.]+)", timing)
        how = re.search(r'queue;desc="(\w+)"', timing)
        return (float(m.group(1)) if m else float("nan")), wall, len(body), how.group(1) if how else ""

    def post(self, path: str) -> int:
        """POST ``path`` with the token (cookie and header); its status."""
        req = urllib.request.Request(
            self.base + path,
            method="POST",
            data=b"",
            headers={"Cookie": f"graphmem_ui_{self.port}={self.token}", "X-Graphmem-Token": self.token},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            return int(resp.status)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.sampler.close()


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 1), "p95": round(percentile(values, 95), 1),
            "max": round(max(values), 1) if values else 0.0, "n": len(values)}  # fmt: skip


def draw_pictures(ui: Ui, ids: list[str]) -> list[tuple[int, float]]:
    """(nodes drawn, ms) for each note's picture in headless chromium; [] without chromium."""
    if CHROMIUM is None or playwright_missing():
        return []
    out: list[tuple[int, float]] = []
    with launch_chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{ui.base}/queue?token={ui.token}")
        for obs_id in ids:
            page.goto(f"{ui.base}/note/{obs_id}")
            try:
                page.locator("#graph[data-ms]").wait_for(timeout=60_000, state="attached")
            except Exception as exc:  # reported with what the page said
                toast = page.locator("#toast").inner_text() if page.locator("#toast").count() else ""
                raise RuntimeError(f"picture of {obs_id} not drawn: {errors} {toast!r}") from exc
            got = page.evaluate("() => [Number(graph.dataset.rendered), Number(graph.dataset.ms)]")
            out.append((int(got[0]), float(got[1])))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--observations", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=20, help="queue page requests")
    ap.add_argument("--notes", type=int, default=50, help="notes whose pages are requested")
    ap.add_argument("--pictures", type=int, default=10, help="pictures drawn in chromium")
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="gm-bench-ui-"))
    home = short_home()
    out: dict[str, Any] = {"observations": args.observations, "load_before": round(load_average(), 2)}
    d: DaemonProc | None = None
    ui: Ui | None = None
    try:
        root = stdlib_corpus(tmp)
        agents = root / "AGENTS.md"  # a knowledge file: changing it makes the page read everything again
        agents.write_text("# Notes for agents\n\nJoin paths with `os.path.join`.\n", encoding="utf-8")
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "stdlib")
        d = DaemonProc(home, [root])
        d.wait_queryable()
        chosen = pick_functions(d, root, args.observations, rng)
        out["notes"] = len(chosen)
        t0 = time.perf_counter()
        with d.client() as c:
            ids = [
                c.observe(
                    f"{s.qualname}: {' '.join(rng.sample(WORDS, 3))} matters here", anchors=[s.ref],
                    repo=str(root), category=rng.choice(list(Category)), source=rng.choice(AUTHORS),
                ).id
                for s, _ in chosen
            ]  # fmt: skip
        out["save_s"] = round(time.perf_counter() - t0, 1)
        texts = {s.path: text for s, text in chosen}
        for rel, text in texts.items():
            (root / rel).write_text(text, encoding="utf-8")
        t0 = time.perf_counter()
        with d.client() as c:
            deadline = time.monotonic() + 600
            while sum(1 for o in c.list(repo=str(root), statuses=[ObservationStatus.STALE], limit=0)) < len(ids):
                if time.monotonic() > deadline:
                    raise RuntimeError("the notes did not all go stale")
                time.sleep(0.5)
        out["stale_after_s"] = round(time.perf_counter() - t0, 1)
        d.wait_idle()
        ui = Ui(home, root)
        check_quiet("the queue")
        # cold: the first load (read whole from the daemon), then each load right after a
        # confirm made on the page, as a reviewer works through the queue
        server, wall, size, hows = [], [], 0, []
        for i in range(args.runs):
            if i:
                ui.post(f"/note/{ids[-i]}/confirm")
            s_ms, w_ms, size, how = ui.get_read("/queue")
            server.append(s_ms)
            wall.append(w_ms)
            hows.append(how)
        out["queue_cold"] = {"server_ms": summary(server), "round_trip_ms": summary(wall), "bytes": size}
        out["queue_first_ms"] = server[0]
        out["queue_first_how"] = hows[0]
        # warm: nothing happened since the last load (the queue read is reused; filters, paging, reloads)
        server, wall = [], []
        for _ in range(args.runs):
            s_ms, w_ms, size = ui.get("/queue")
            server.append(s_ms)
            wall.append(w_ms)
        out["queue"] = {"server_ms": summary(server), "round_trip_ms": summary(wall), "bytes": size}
        # whole: each load after a knowledge file changed (its findings may have changed: the
        # page reads every note and finding from the daemon again), the load that did so
        server, wall, hows = [], [], []
        for i in range(args.runs):
            with agents.open("a", encoding="utf-8") as f:
                f.write(f"\nRun {i}: paths are joined with `os.path.join`.\n")
            deadline = time.monotonic() + 120
            while True:
                s_ms, w_ms, size, how = ui.get_read("/queue")
                hows.append(how)
                if how == "whole":
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the page did not read the queue again after AGENTS.md changed: {hows[-5:]}")
                time.sleep(0.1)
            server.append(s_ms)
            wall.append(w_ms)
        out["queue_whole"] = {"server_ms": summary(server), "round_trip_ms": summary(wall), "bytes": size}
        check_quiet("the note pages")
        sample = rng.sample(ids[: -args.runs], min(args.notes, len(ids) - args.runs))
        for name, path in (("note_page", "/note/{}"), ("change", "/note/{}/change"), ("graph", "/note/{}/graph.json")):
            server, wall = [], []
            for obs_id in sample:
                s_ms, w_ms, _ = ui.get(path.format(obs_id))
                server.append(s_ms)
                wall.append(w_ms)
            out[name] = {"server_ms": summary(server), "round_trip_ms": summary(wall)}
        with d.client() as c:
            sizes = []
            for obs_id in rng.sample(ids[: -args.runs], min(300, len(ids) - args.runs)):
                n = len(c.neighbourhood([c.get(obs_id).anchors[0].symbol_id], repo=str(root)).nodes)
                sizes.append((abs(n - 200), n, obs_id))
        near = sorted(sizes)[: args.pictures]
        out["picture_nodes_asked"] = [n for _, n, _ in near]
        check_quiet("the pictures")
        print(json.dumps(out), file=sys.stderr)  # the figures so far, should the drawing fail
        drawn = draw_pictures(ui, [i for _, _, i in near])
        if drawn:
            out["picture"] = {"nodes": [n for n, _ in drawn], "draw_ms": summary([ms for _, ms in drawn])}
        out["rss_mb"] = {"daemon_tree": round(d.peak_rss_mb()["tree"], 1), "ui": round(ui.sampler.peaks()["tree"], 1)}
        out["load_after"] = round(load_average(), 2)
    finally:
        if ui is not None:
            ui.stop()
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{out['notes']} stale notes on the standard library (load {out['load_before']} -> {out['load_after']})")
        for name in ("queue_cold", "queue_whole", "queue", "note_page", "change", "graph"):
            s, w = out[name]["server_ms"], out[name]["round_trip_ms"]
            print(f"  {name:<10} server p50 {s['p50']:>7} ms  p95 {s['p95']:>7} ms   round trip p50 {w['p50']} ms")
        if "picture" in out:
            p = out["picture"]
            print(f"  picture    nodes {p['nodes']}: draw p50 {p['draw_ms']['p50']} ms  p95 {p['draw_ms']['p95']} ms")
        else:
            print("  picture    not drawn: chromium or playwright is absent")
        print(f"  peak RSS: daemon tree {out['rss_mb']['daemon_tree']} MB, ui {out['rss_mb']['ui']} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
