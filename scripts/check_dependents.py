#!/usr/bin/env python3
"""Is the narrowed re-resolution of a change's dependents sound? (issue 43)

On the Python standard library's non-test modules (the corpus of ``bench_worktrees.py``),
in-process: resolve every file; then, ``--edits`` times, edit one random file (a seeded
choice among edits that change what other files can read of it: a name renamed, added or
turned into another kind, a method added or renamed, a base changed or dropped, an import
added, ``__all__`` changed, a module variable bound to another name; and a body edited) and
apply it the way a watcher batch does (``set_file``, ``dependents_of``, ``edges_for`` of the
file and its dependents) — then compare every file's outgoing edges with a **full re-index**
of the same files (a new resolver, every file set, ``all_edges``). The edits accumulate.
Prints, per edit, the dependents the narrowed apply resolved against those the file-level
record gives, and any file whose edges differ; exits 1 on any difference. ``--json`` adds
the CPU time of each narrowed apply and of resolving what the file-level record gives.

``--branch N`` first applies, as one batch, the change of a branch worktree in
``bench_worktrees.py`` (a function appended to each of N files) and compares the same way.

``--derived K`` then checks a worktree's first pass (``indexing/derive.py``): a branch of K
files each edited once (seeded, the same edits), a second resolver derived from the first
(``RepoResolver.derive`` with the edited files ``later``: the sibling's versions kept until
set again), the edited files set, their narrowed dependents resolved, every other file's
edges taken from the sibling (what the derived graph copies and holds back) — compared with
a full re-index of the branch's files. Run once per seed.

    python scripts/check_dependents.py [--edits 50] [--seed 43] [--branch 300] [--derived 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import sysconfig
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "clients"), str(ROOT / "daemon")]

from graphmemd.graph.model import ParsedFile, ResolvedEdges  # noqa: E402
from graphmemd.graph.resolution import RepoResolver, facts_from_files  # noqa: E402
from graphmemd.ingest.parsing.parser import parse_source  # noqa: E402

EXCLUDED = {"test", "tests", "site-packages", "__pycache__", "idlelib"}
Edges = dict[str, set[tuple[Any, ...]]]


def corpus() -> tuple[Path, dict[str, bytes]]:
    """The standard library's non-test ``.py`` files, by path relative to its root."""
    src = Path(sysconfig.get_paths()["stdlib"])
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED and d != "test")
        for name in sorted(filenames):
            if name.endswith(".py"):
                p = Path(dirpath) / name
                out[p.relative_to(src).as_posix()] = p.read_bytes()
    return src, out


def _parse(item: tuple[str, bytes]) -> ParsedFile:
    return parse_source(item[0], item[1])


def by_source(edges: ResolvedEdges) -> Edges:
    """Every edge, grouped by the file of its source."""
    out: Edges = {}
    for kind, rows in (
        ("import", edges.imports),
        ("ext", edges.external_imports),
        ("call", edges.calls),
        ("unres", edges.unresolved_calls),
        ("inherit", edges.inherits),
        ("unres_inherit", edges.unresolved_inherits),
    ):
        for row in rows:
            src = str(row[0]).split(":", 1)[1].split("::", 1)[0]
            out.setdefault(src, set()).add((kind, *row))
    return out


def full(facts: Any, parsed: dict[str, ParsedFile]) -> Edges:
    r = RepoResolver("s", facts)
    for pf in parsed.values():
        r.set_file(pf)
    return by_source(r.all_edges())


# ----------------------------------------------------------------------------- edits

Edit = Callable[[str, random.Random], str | None]


def _pick(rng: random.Random, pattern: str, text: str) -> re.Match[str] | None:
    found = list(re.finditer(pattern, text, re.M))
    return rng.choice(found) if found else None


def rename_top(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^(def|class) ([A-Za-z]\w*)", text)
    return None if m is None else text[: m.start(2)] + m.group(2) + "_x" + text[m.end(2) :]


def rename_method(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^    def ([A-Za-z]\w*)\(self", text)
    return None if m is None else text[: m.start(1)] + m.group(1) + "_x" + text[m.end(1) :]


def add_top(text: str, rng: random.Random) -> str | None:
    return text + f"\n\ndef added_{rng.randrange(1000)}(x):\n    return x\n"


def shadow_name(text: str, rng: random.Random) -> str | None:
    """A top-level function added under the name another file imports from this one."""
    m = _pick(rng, r"^    def ([A-Za-z]\w*)\(self", text)
    return None if m is None else text + f"\n\ndef {m.group(1)}(*a):\n    return a\n"


def add_method(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^class \w+[^\n]*:\n", text)
    name = rng.choice(["close", "run", "parse", "handle", "visit", "format_help", "getvalue", "feed", "flush"])
    return None if m is None else text[: m.end()] + f"    def {name}(self):\n        return 1\n" + text[m.end() :]


def change_base(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^class (\w+)\(([^)\n]*)\):", text)
    if m is None:
        return None
    others = re.findall(r"^class (\w+)", text, re.M)
    base = rng.choice([*others, "object", "dict", "Exception", ""])
    return text[: m.start(2)] + (base if base != m.group(1) else "") + text[m.end(2) :]


def add_base(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^class (\w+):", text)
    others = re.findall(r"^class (\w+)", text, re.M)
    if m is None or len(others) < 2:
        return None
    base = rng.choice([o for o in others if o != m.group(1)])
    return text[: m.end(1)] + f"({base})" + text[m.end(1) :]


def add_import(text: str, rng: random.Random) -> str | None:
    line = rng.choice(["import json\n", "from os import path as sep\n", "from collections import *\n", "import re\n"])
    return line + text


def change_all(text: str, rng: random.Random) -> str | None:
    m = re.search(r"^__all__ = \[", text, re.M)
    if m is not None:
        return text[: m.end()] + '"added_name", ' + text[m.end() :]
    names = re.findall(r"^def ([a-z]\w*)", text, re.M)
    return None if not names else text + f"\n__all__ = [{rng.choice(names)!r}]\n"


def to_class(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^def (\w+)\([^)\n]*\)[^:\n]*:", text)
    return None if m is None else text[: m.start()] + f"class {m.group(1)}:" + text[m.end() :]


def bind_name(text: str, rng: random.Random) -> str | None:
    names = re.findall(r"^(?:def|class) ([A-Za-z]\w*)", text, re.M)
    if len(names) < 2:
        return None
    a, b = rng.sample(names, 2)
    return text + f"\n{a} = {b}\n"


def edit_body(text: str, rng: random.Random) -> str | None:
    m = _pick(rng, r"^(\s+)return (\w+)$", text)
    return None if m is None else text[: m.start(2)] + f"({m.group(2)})" + text[m.end(2) :]


def drop_def(text: str, rng: random.Random) -> str | None:
    """A top-level function removed (its ``def`` line made a comment: the body stays, nested)."""
    m = _pick(rng, r"^def (\w+)\(", text)
    return None if m is None else text[: m.start()] + "if 0:\n  def _dropped(" + text[m.end() :]


EDITS: tuple[Edit, ...] = (
    rename_top,
    rename_method,
    add_top,
    shadow_name,
    add_method,
    change_base,
    add_base,
    add_import,
    change_all,
    to_class,
    bind_name,
    edit_body,
    drop_def,
)


def apply(
    r: RepoResolver, paths: set[str], held: Edges, facts: Any, parsed: dict[str, ParsedFile]
) -> tuple[dict[str, Any], list[str]]:
    """Apply the files of ``paths`` just set as a watcher batch does (their dependents
    narrowed), update ``held`` with the edges resolved again; compare with a full re-index.
    Returns the figures and the files whose edges differ."""
    pending = {p: r._changed[p] for p in paths if p in r._changed}  # (for the report)
    r.narrow = False
    wide = r.dependents_of(paths) - paths
    r._changed.update(pending)  # (asked again, narrowed)
    r.narrow = True
    t0 = time.process_time()
    deps = r.dependents_of(paths) - paths
    got = by_source(r.edges_for(deps | paths))
    t1 = time.process_time()
    r.edges_for(wide | paths)  # (what the file-level record resolves, after: its contexts warm)
    took, took_wide = t1 - t0, time.process_time() - t1
    for p in deps | paths:
        held.pop(p, None)
    held.update(got)
    want = full(facts, parsed)
    wrong = sorted(p for p in set(held) | set(want) if held.get(p, set()) != want.get(p, set()))
    held.clear()
    held.update(want)  # (go on from the truth: one difference is not counted again)
    changed = sorted({n.replace("\0", "\\0") for names in pending.values() for n in names})
    row = {"changed": changed[:20], "dependents": len(deps), "file_level": len(wide), "cpu_s": round(took, 3),
           "cpu_s_file_level": round(took_wide, 3), "differ": wrong[:10]}  # fmt: skip
    return row, wrong


def _edited(texts: dict[str, bytes], path: str, rng: random.Random) -> bytes | None:
    """``path``'s text after one random edit of ``EDITS`` that changes it (None: none did)."""
    text = texts[path].decode("utf-8", "replace")
    for _ in range(20):
        new = rng.choice(EDITS)(text, rng)
        if new is not None and new != text:
            return new.encode()
    return None


def _as(edges: Edges, repo: str) -> Edges:
    """``edges`` with every id of another checkout (``w:``) written as ``repo``'s."""
    out: Edges = {}
    for src, rows in edges.items():
        out[src] = {tuple(f"{repo}:{x[2:]}" if isinstance(x, str) and x.startswith("w:") else x for x in row)
                    for row in rows}  # fmt: skip
    return out


def derived(
    r: RepoResolver, k: int, rng: random.Random, texts: dict[str, bytes], parsed: dict[str, ParsedFile], facts: Any
) -> tuple[dict[str, Any], list[str]]:
    """A worktree of ``k`` edited files derived from ``r`` (see the module doc): its figures
    and the files whose edges differ from a full re-index of the branch."""
    sibling = by_source(r.all_edges())
    branch_texts, branch = dict(texts), dict(parsed)
    for path in rng.sample(sorted(texts), k):
        new = _edited(branch_texts, path, rng)
        if new is not None:
            branch_texts[path] = new
            branch[path] = parse_source(path, new)
    later = {p for p in texts if branch_texts[p] != texts[p]}
    t0 = time.process_time()
    w = RepoResolver("w", facts)
    again = w.derive(r, sorted(set(texts) - later), later=later)
    for p in sorted(later):
        w.set_file(branch[p])
    pending = {p: w._changed[p] for p in later if p in w._changed}
    w.narrow = False
    wide = w.dependents_of(later) - later
    w._changed.update(pending)
    w.narrow = True
    deps = (w.dependents_of(later) | again) - later
    got = _as(by_source(w.edges_for(deps | later)), "s")
    took = time.process_time() - t0
    held = {p: rows for p, rows in sibling.items() if p not in deps and p not in later}
    held.update(got)
    want = full(facts, branch)
    wrong = sorted(p for p in set(held) | set(want) if held.get(p, set()) != want.get(p, set()))
    row = {"files": len(later), "dependents": len(deps), "file_level": len(wide), "cpu_s": round(took, 3),
           "differ": wrong[:10]}  # fmt: skip
    return row, wrong


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--seed", type=int, default=43)
    ap.add_argument("--branch", type=int, default=0, help="files changed at once first (0: none)")
    ap.add_argument("--derived", type=int, default=0, help="files of a derived worktree's branch (0: none)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    src, texts = corpus()
    with ProcessPoolExecutor(2) as pool:
        parsed = dict(zip(texts, pool.map(_parse, texts.items(), chunksize=32), strict=True))
    facts = facts_from_files(src, sorted(texts))
    r = RepoResolver("s", facts)
    for pf in parsed.values():
        r.set_file(pf)
    held = by_source(r.all_edges())
    paths = sorted(texts)
    rows: list[dict[str, Any]] = []
    bad = 0
    branch: dict[str, Any] = {}
    if args.branch:
        batch = paths[: args.branch]
        for i, path in enumerate(batch):
            texts[path] += f"\n\ndef _bench_0_{i}(x):\n    return x + {i}\n".encode()
            parsed[path] = parse_source(path, texts[path])
            r.set_file(parsed[path])
        branch, wrong = apply(r, set(batch), held, facts, parsed)
        bad += bool(wrong)
        if not args.json:
            print(
                f"branch of {len(batch)} files: dependents {branch['dependents']} (file-level "
                f"{branch['file_level']}), resolved in {branch['cpu_s']:.3f} CPU-s (file-level "
                f"{branch['cpu_s_file_level']:.3f}): "
                f"{'DIFFER ' + ', '.join(wrong[:5]) if wrong else 'equal to a full re-index'}",
                flush=True,
            )
    worktree: dict[str, Any] = {}
    if args.derived:
        worktree, wrong = derived(r, args.derived, rng, texts, parsed, facts)
        bad += bool(wrong)
        if not args.json:
            print(
                f"derived worktree, {worktree['files']} files edited: dependents {worktree['dependents']} (file-level "
                f"{worktree['file_level']}), derived and resolved in {worktree['cpu_s']:.3f} CPU-s: "
                f"{'DIFFER ' + ', '.join(wrong[:5]) if wrong else 'equal to a full re-index'}",
                flush=True,
            )
    while len(rows) < args.edits:
        path = rng.choice(paths)
        edit = rng.choice(EDITS)
        text = texts[path].decode("utf-8", "replace")
        new = edit(text, rng)
        if new is None or new == text:
            continue
        texts[path] = new.encode()
        parsed[path] = parse_source(path, texts[path])
        r.set_file(parsed[path])
        row, wrong = apply(r, {path}, held, facts, parsed)
        bad += bool(wrong)
        rows.append({"file": path, "edit": edit.__name__, **row})
        if not args.json:
            row = rows[-1]
            print(
                f"{len(rows):3d} {row['edit']:14s} {path:48s} dependents {row['dependents']:4d} "
                f"(file-level {row['file_level']:4d})  {'DIFFER ' + ', '.join(wrong[:5]) if wrong else 'equal'}",
                flush=True,
            )
    summary = {
        "branch": branch,
        "derived": worktree,
        "edits": len(rows),
        "differing_edits": bad,
        "dependents": sum(r["dependents"] for r in rows),
        "file_level": sum(r["file_level"] for r in rows),
        "rows": rows,
    }
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(
            f"{len(rows)} edits: {bad} differ from a full re-index; dependents resolved "
            f"{summary['dependents']} (file-level record: {summary['file_level']})"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
