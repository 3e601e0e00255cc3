#!/usr/bin/env python3
"""Language-server latency benchmark: ``graphmem lsp`` driven over stdio by pygls's LSP client.

A real daemon indexes the stdlib corpus; 2,000 observations (``--observations``) are anchored to
symbols and files across it (as in ``bench_retrieve.py``). The server runs as an editor starts
it; the files with the most notes are opened. Timed end to end from this process:

- floor: a hover on a file outside every repository (the LSP round trip; no daemon call);
- hover on a symbol with notes, and code lens of a whole file, on the open documents;
- code lens right after an unsaved edit (the buffer changed: every symbol placed again);
- diagnostics delay after a save: a function body under a note changes on disk (then back),
  until the server publishes the stale (then fresh) diagnostic.

``--json`` prints one JSON object. Targets: hover and code-lens p99 <= 50 ms; diagnostics
after a save p95 <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchlib import ROOT, DaemonProc, load_average, percentile, short_home, stdlib_corpus
from graphmem.errors import GraphMemError
from graphmem.types import Category, EventKind, Symbol
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

WORDS = ["cache", "thread", "lock", "encoding", "socket", "timeout", "parser", "buffer", "retry", "pool"]


def add_notes(d: DaemonProc, n: int, rng: random.Random) -> tuple[list[str], list[Symbol]]:
    """``n`` notes over the corpus; returns the files with the most notes and the functions
    that carry a note, for the save measurements."""
    with d.client() as c:
        symbols = c.find_symbols("*", limit=1000) + c.find_symbols("*_*", limit=1000)
        symbols = list({s.id: s for s in symbols}.values())
        files = sorted({s.path for s in symbols})
        per_file: Counter[str] = Counter()
        anchored: list[Symbol] = []
        for i in range(n):
            if i % 5 == 0:
                anchor = rng.choice(files)
                per_file[anchor] += 1
            else:
                s = rng.choice(symbols)
                anchor = s.ref
                per_file[s.path] += 1
                if s.kind == "function" and s.end_line - s.start_line >= 2:
                    anchored.append(s)
            words = " ".join(rng.sample(WORDS, 3))
            c.observe(
                f"note {i}: {words} matters here", anchors=[anchor], category=rng.choice(list(Category)), source="bench"
            )
    return [f for f, _ in per_file.most_common()], anchored


class Client:
    """pygls's LSP client on ``graphmem lsp``, recording every publishDiagnostics."""

    def __init__(self) -> None:
        self.lc = LanguageClient("bench-lsp", "1")
        self.published: dict[str, tuple[float, list[lsp.Diagnostic]]] = {}
        self.changed = asyncio.Event()

        @self.lc.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _diagnostics(ls: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = (time.perf_counter(), list(params.diagnostics))
            self.changed.set()

        @self.lc.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
        def _refresh(ls: LanguageClient, params: None) -> None:
            return None

        @self.lc.feature("graphmem/status")
        def _status(ls: LanguageClient, params: Any) -> None:
            return None

        @self.lc.feature(lsp.WINDOW_LOG_MESSAGE)
        def _log(ls: LanguageClient, params: Any) -> None:
            return None

    async def start(self, home: Path) -> None:
        env = dict(os.environ, GRAPHMEM_HOME=str(home))
        env.pop("GRAPHMEM_ADDRESS", None)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon")])
        await self.lc.start_io(sys.executable, "-m", "graphmem", "lsp", env=env)
        caps = lsp.ClientCapabilities(
            workspace=lsp.WorkspaceClientCapabilities(
                code_lens=lsp.CodeLensWorkspaceClientCapabilities(refresh_support=True)
            )
        )
        await self.lc.initialize_async(lsp.InitializeParams(capabilities=caps, process_id=os.getpid()))
        self.lc.initialized(lsp.InitializedParams())

    async def stop(self) -> None:
        await self.lc.shutdown_async(None)
        self.lc.exit(None)
        await self.lc.stop()

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.resolve().as_uri()
        item = lsp.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=path.read_text() if text is None else text
        )
        self.lc.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
        return uri

    async def wait(self, pred: Any, timeout: float = 30.0) -> float:
        """Until ``pred()`` holds after some publishDiagnostics; the time of the last one."""
        deadline = time.perf_counter() + timeout
        while not pred():
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise RuntimeError("timed out waiting for diagnostics")
            await asyncio.wait_for(self.changed.wait(), left)
        return max(t for t, _ in self.published.values())

    async def hover(self, uri: str, pos: lsp.Position) -> lsp.Hover | None:
        return await self.lc.text_document_hover_async(
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)
        )

    async def lenses(self, uri: str) -> list[lsp.CodeLens]:
        got = await self.lc.text_document_code_lens_async(
            lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        )
        return list(got or [])


async def timed(n: int, make: Any) -> list[float]:
    out = []
    for i in range(n):
        t = time.perf_counter()
        await make(i)
        out.append((time.perf_counter() - t) * 1000)
    return out


async def measure(
    d: DaemonProc, corpus: Path, files: list[str], anchored: list[Symbol], args: argparse.Namespace
) -> dict[str, Any]:
    rng = random.Random(7)
    client = Client()
    await client.start(d.home)
    outside = Path(tempfile.mkdtemp(prefix="gmlspout")) / "outside.py"
    outside.write_text("def f():\n    return 1\n")
    try:
        uris = [client.open(corpus / f) for f in files[: args.files]]
        await client.wait(lambda: all(u in client.published for u in uris), 120)
        targets: list[tuple[str, lsp.Position]] = []
        for uri in uris:
            targets += [(uri, c.range.start) for c in await client.lenses(uri)]
        out_uri = client.open(outside)
        floor = await timed(args.requests, lambda i: client.hover(out_uri, lsp.Position(0, 4)))
        hover = await timed(args.requests, lambda i: client.hover(*targets[i % len(targets)]))
        lens = await timed(args.requests, lambda i: client.lenses(uris[i % len(uris)]))
        versions = dict.fromkeys(uris, 1)

        async def edit_then_lens(i: int) -> None:
            uri = uris[i % len(uris)]
            versions[uri] += 1
            change = lsp.TextDocumentContentChangePartial(
                range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), text="# edited\n"
            )
            client.lc.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(version=versions[uri], uri=uri), [change]
                )
            )
            await client.lenses(uri)

        edited = await timed(args.requests, edit_then_lens)
        saves, daemon_side = await save_delays(d, client, corpus, anchored, args.saves, rng)
    finally:
        await client.stop()
        shutil.rmtree(outside.parent, ignore_errors=True)
    return {
        "hover_targets": len(targets),
        "floor": floor,
        "hover": hover,
        "lens": lens,
        "lens_after_edit": edited,
        "save": saves,
        "save_daemon": daemon_side,
        "open_files": len(uris),
        "lines_open": sum(len((corpus / f).read_text().splitlines()) for f in files[: args.files]),
    }


class DaemonEvents:
    """The daemon's observation events with the time each arrived, on a thread of their own
    (the floor of the save measurement: what the daemon takes before the server hears of it)."""

    def __init__(self, d: DaemonProc) -> None:
        self.arrived: list[tuple[float, frozenset[str]]] = []
        kinds = [EventKind.OBSERVATION_STALE, EventKind.OBSERVATION_FRESH]
        self._stream = d.client().events(kinds=kinds)
        self._stream.wait_ready()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        try:
            for e in self._stream:
                refs = frozenset(a.ref for a in e.observation.anchors) if e.observation else frozenset()
                self.arrived.append((time.perf_counter(), refs))
        except GraphMemError:
            return

    def first_after(self, started: float, ref: str) -> float:
        return min(t for t, refs in self.arrived if t >= started and ref in refs)

    def close(self) -> None:
        self._stream.cancel()


async def save_delays(
    d: DaemonProc, client: Client, corpus: Path, anchored: list[Symbol], n: int, rng: random.Random
) -> tuple[list[float], list[float]]:
    """Seconds from a body change written to disk (a ``pass`` before a ``return`` of a function
    with a note) until the diagnostics say it is stale, then from the change undone until they
    say it is fresh again; and, for each, until the daemon's own event arrived."""
    unique = sorted({s.id: s for s in anchored}.values(), key=lambda s: s.id)
    delays: list[float] = []
    daemon_side: list[float] = []
    events = DaemonEvents(d)
    for s in rng.sample(unique, len(unique)):
        if len(delays) >= n:
            break
        path = corpus / s.path
        original = path.read_text()
        lines = original.splitlines(keepends=True)
        body = [i for i in range(s.start_line, min(s.end_line, len(lines))) if lines[i].lstrip().startswith("return")]
        if not body:
            continue
        at = body[-1]
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        changed = "".join([*lines[:at], f"{indent}pass\n", *lines[at:]])
        uri = client.open(path, original)
        await client.wait(lambda u=uri: u in client.published, 30)
        for text, want in ((changed, True), (original, False)):

            def shown(u: str = uri, ref: str = s.ref, w: bool = want) -> bool:
                found = client.published.get(u, (0.0, []))[1]
                return any(isinstance(d.data, dict) and d.data.get("ref") == ref for d in found) is w

            started = time.perf_counter()
            path.write_text(text)
            await client.wait(shown, 30)
            delays.append(client.published[uri][0] - started)
            daemon_side.append(events.first_after(started, s.ref) - started)
            await asyncio.sleep(0.3)  # let the watcher settle between saves
    events.close()
    return delays, daemon_side


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 50), 2),
        "p95": round(percentile(values, 95), 2),
        "p99": round(percentile(values, 99), 2),
        "n": len(values),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--observations", type=int, default=2000)
    ap.add_argument("--files", type=int, default=40, help="documents opened (those with the most notes)")
    ap.add_argument("--requests", type=int, default=500, help="hover / code-lens requests per measurement")
    ap.add_argument("--saves", type=int, default=40, help="saves timed (half make a note stale, half fresh again)")
    args = ap.parse_args()
    load_start = load_average()
    rng = random.Random(11)
    tmp = Path(tempfile.mkdtemp(prefix="gmbench"))
    home = short_home()
    corpus = stdlib_corpus(tmp)
    d = DaemonProc(home, [corpus])
    try:
        d.wait_ready()
        files, anchored = add_notes(d, args.observations, rng)
        d.wait_ready()
        got = asyncio.run(measure(d, corpus, files, anchored, args))
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    out = {
        "observations": args.observations,
        "open_files": got["open_files"],
        "open_lines": got["lines_open"],
        "hover_targets": got["hover_targets"],
        "floor_ms": summary(got["floor"]),
        "hover_ms": summary(got["hover"]),
        "code_lens_ms": summary(got["lens"]),
        "code_lens_after_edit_ms": summary(got["lens_after_edit"]),
        "diagnostics_after_save_s": summary(got["save"]),
        "daemon_event_after_save_s": summary(got["save_daemon"]),
        "server_share_after_save_s": summary([a - b for a, b in zip(got["save"], got["save_daemon"], strict=True)]),
        "load_1min_start": round(load_start, 2),
        "load_1min_end": round(load_average(), 2),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"{out['observations']} notes; {out['open_files']} files open ({out['open_lines']} lines), "
        f"{out['hover_targets']} symbols with notes"
    )
    labels = {
        "floor_ms": "floor (hover outside every repository)",
        "hover_ms": "hover on a symbol with notes",
        "code_lens_ms": "code lens of a file",
        "code_lens_after_edit_ms": "code lens after an unsaved edit",
    }
    for key, label in labels.items():
        v = out[key]
        print(f"{label}: p50 {v['p50']} ms, p95 {v['p95']} ms, p99 {v['p99']} ms ({v['n']} requests)")
    s = out["diagnostics_after_save_s"]
    print(
        f"diagnostics after a save: p50 {s['p50']} s, p95 {s['p95']} s, p99 {s['p99']} s "
        f"({s['n']} saves; target p95 <= 1 s)"
    )
    e, v = out["daemon_event_after_save_s"], out["server_share_after_save_s"]
    print(
        f"  of which the daemon (save -> its stale/fresh event): p50 {e['p50']} s, p95 {e['p95']} s; "
        f"the server (event -> diagnostics published): p50 {v['p50']} s, p95 {v['p95']} s"
    )
    print(
        "targets: hover and code lens p99 <= 50 ms; load average (1 min): "
        f"{out['load_1min_start']} at start, {out['load_1min_end']} at end"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
