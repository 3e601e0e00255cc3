#!/usr/bin/env python3
"""A changed default on a real project: which callers become suspect (issue 41).

The history is a git bundle (default ``../shared/corpora/click.bundle``), cloned into a temp
dir; a real daemon indexes its HEAD. The ``--functions`` Python functions with a default
parameter that have the most callers in the graph are taken one at a time: a note is put on
each of their callers, the function's last default (``--first``: its first) is changed on disk
to ``...``, and once
the daemon has indexed the edit the callers' notes are counted: suspect (a call site of
theirs leaves that parameter out, or may pass it through ``*``/``**``) or fresh (every site
passes it, by position or keyword). Before issue 41's item 2 every caller was suspect. The
file is then restored and the notes deleted.

Printed: per function its callers, suspect and fresh; totals; up to ``--lines`` of the
suspect reasons as the one-line renderer writes them; the 1-min load average. ``--json``
prints one object.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import CORPORA, DaemonProc, short_home
from graphmem.changes import change_line
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.types import ObservationStatus, Symbol

BUNDLE = CORPORA / "click.bundle"


def _defaults(tree: ast.AST, first: bool, scope: str = "") -> list[tuple[str, ast.expr]]:
    """(qualname, first or last default) of each function under ``tree`` that has a default."""
    out: list[tuple[str, ast.expr]] = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.ClassDef):
            out.extend(_defaults(child, first, f"{scope}{child.name}."))
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = [x for x in (*child.args.defaults, *child.args.kw_defaults) if x is not None]
            if found:
                out.append((f"{scope}{child.name}", found[0] if first else found[-1]))
            out.extend(_defaults(child, first, f"{scope}{child.name}."))
    return out


def candidates(root: Path, first: bool) -> list[tuple[str, str, int, int]]:
    """(ref, path, start, end) of each function's first or last default (byte offsets in its
    file); of a name defined several times in one scope (``typing.overload``) the last."""
    out: dict[str, tuple[str, str, int, int]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(("tests/", "docs/", "examples/")):
            continue
        data = path.read_bytes()
        try:
            tree = ast.parse(data)
        except SyntaxError:
            continue
        starts = [0]
        for line in data.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for qual, d in _defaults(tree, first):
            if d.end_lineno is not None and d.end_col_offset is not None:
                # (ast columns are UTF-8 byte offsets)
                span = (starts[d.lineno - 1] + d.col_offset, starts[d.end_lineno - 1] + d.end_col_offset)
                out[f"{rel}::{qual}"] = (f"{rel}::{qual}", rel, *span)
    return list(out.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--bundle", type=Path, default=BUNDLE)
    ap.add_argument("--functions", type=int, default=10, help="functions whose default is changed")
    ap.add_argument("--lines", type=int, default=20, help="suspect reasons printed")
    ap.add_argument("--first", action="store_true", help="change each function's first default, not its last")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for an edit to be indexed")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="gmdef"))
    work = tmp / "repo"
    subprocess.run(["git", "clone", "-q", str(args.bundle), str(work)], check=True)
    rows: list[dict[str, object]] = []
    lines: list[str] = []
    d = DaemonProc(short_home(), [work])
    try:
        d.wait_ready()
        with d.client(60) as c:
            ranked = []
            for ref, rel, start, end in candidates(work, args.first):
                try:
                    detail = c.symbol(ref)
                except GraphMemError:  # (an overload, a name the daemon qualifies otherwise)
                    continue
                callers = detail.callers
                if callers and "=..." not in detail.symbol.signature:
                    ranked.append((len(callers), ref, rel, start, end, callers))
            ranked.sort(key=lambda r: (-r[0], r[1]))
            for _n, ref, rel, start, end, callers in ranked[: args.functions]:
                rows.append(judge(c, d, work, ref, rel, start, end, callers, args.timeout, lines))
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(d.home, ignore_errors=True)
    result = {
        "bundle": str(args.bundle),
        "changed": "first default" if args.first else "last default",
        "functions": rows,
        "callers": sum(int(str(r["callers"])) for r in rows),
        "suspect": sum(int(str(r["suspect"])) for r in rows),
        "fresh": sum(int(str(r["fresh"])) for r in rows),
        "lines": lines[: args.lines],
        "load_avg_1m_start": round(load, 2),
        "load_avg_1m_end": round(os.getloadavg()[0], 2),
    }
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        for r in rows:
            sys.stdout.write(
                f"{r['function']:60} callers {r['callers']:3}  suspect {r['suspect']:3}  fresh {r['fresh']:3}\n"
            )
        for key in ("callers", "suspect", "fresh", "load_avg_1m_start", "load_avg_1m_end"):
            sys.stdout.write(f"{key:20} {result[key]}\n")
        sys.stdout.write("\n".join(result["lines"]) + "\n")  # type: ignore[arg-type]
    return 0


def judge(
    c: GraphMem,
    d: DaemonProc,
    work: Path,
    ref: str,
    rel: str,
    start: int,
    end: int,
    callers: tuple[Symbol, ...],
    timeout: float,
    lines: list[str],
) -> dict[str, object]:
    """Change ``ref``'s last default to ``...``; count its callers' notes by status; restore."""
    notes = {}
    for s in callers:
        anchor = f"{s.path}::{s.qualname}"
        notes[anchor] = c.observe(f"bench: {anchor} calls {ref}", anchors=[anchor]).id
    path = work / rel
    data = path.read_bytes()
    path.write_bytes(data[:start] + b"..." + data[end:])
    deadline = time.monotonic() + timeout
    while "=..." not in c.symbol(ref).symbol.signature and time.monotonic() < deadline:
        time.sleep(0.05)
    d.wait_ready()
    suspect = fresh = 0
    for oid in notes.values():
        o = c.get(oid)
        if o.status is ObservationStatus.SUSPECT:
            suspect += 1
            lines.extend(change_line(r) for r in o.stale_reasons)
        elif o.status is ObservationStatus.FRESH:
            fresh += 1
    path.write_bytes(data)
    while "=..." in c.symbol(ref).symbol.signature and time.monotonic() < deadline + timeout:
        time.sleep(0.05)
    d.wait_ready()
    for oid in notes.values():
        c.delete(oid)
    return {"function": ref, "callers": len(notes), "suspect": suspect, "fresh": fresh}


if __name__ == "__main__":
    raise SystemExit(main())
