#!/usr/bin/env python3
"""Call resolution on real offline code: the Python standard library, and the Go and Rust
standard-library sources of the machine's package manager (Debian: ``golang-src``,
``rust-src``; installed by ``--setup`` / when missing and running as root).

Per language it prints: call sites; the share resolved to a definition in the repository;
the share of the call sites whose callee *name* is defined in the repository (functions,
methods, types: the denominator the targets use); the share by each confidence kind; the
share guessed by name only; and a deterministic sample of resolved edges (with the call's
source line) to check by hand. Files are walked, parsed and resolved exactly as the daemon
does (``walk_repo``, ``parse_source``, ``facts_from_files``, ``RepoResolver.all_edges``).

    python scripts/bench_resolve.py [--json] [--sample 50] [--lang python,go,rust]
"""

from __future__ import annotations

import argparse
import builtins
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "clients"), str(ROOT / "daemon")]

from graphmemd.graph.model import Confidence, ParsedFile, SymbolKind  # noqa: E402
from graphmemd.graph.resolution import RepoResolver, facts_from_files  # noqa: E402
from graphmemd.graph.resolution.python import BUILTIN_METHODS  # noqa: E402
from graphmemd.ingest.parsing.parser import parse_source  # noqa: E402
from graphmemd.ingest.walker import RepoFilter, WalkedFile, walk_repo  # noqa: E402

#: Debian package -> glob of the tree it installs (newest version wins).
PACKAGES = {"go": ("golang-src", "/usr/share/go-*/src"), "rust": ("rust-src", "/usr/src/rustc-*/library")}
SKIP_DIRS = {"test", "tests", "site-packages", "__pycache__", "testdata"}
#: Language builtins: calls of these names never target the repository (Python: builtins
#: and the methods of the built-in types, e.g. ``s.split()``; Go: builtin functions and the
#: conversions to predeclared types, ``uintptr(p)``).
BUILTINS = {
    "python": set(dir(builtins)) | set(BUILTIN_METHODS),
    "go": set(
        [
            "append",
            "cap",
            "clear",
            "close",
            "complex",
            "copy",
            "delete",
            "imag",
            "len",
            "make",
            "max",
            "min",
            "new",
            "panic",
            "print",
            "println",
            "real",
            "recover",
            "bool",
            "byte",
            "complex64",
            "complex128",
            "error",
            "float32",
            "float64",
            "int",
            "int8",
            "int16",
            "int32",
            "int64",
            "rune",
            "string",
            "uint",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
            "uintptr",
            "any",
            "comparable",
        ]
    ),
    "rust": set(),
}


def _tree(pattern: str) -> Path | None:
    found = sorted(Path("/").glob(pattern.lstrip("/")))
    return found[-1] if found else None


def setup(langs: list[str]) -> None:
    """Install the missing source packages (apt-get update once, then install)."""
    missing = [PACKAGES[lang][0] for lang in langs if lang in PACKAGES and _tree(PACKAGES[lang][1]) is None]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SystemExit(f"missing {' '.join(missing)}: install them with apt-get (as root)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env)


def corpus(lang: str) -> Path:
    if lang == "python":
        return Path(sysconfig.get_paths()["stdlib"])
    tree = _tree(PACKAGES[lang][1])
    assert tree is not None
    return tree


def walk(root: Path, lang: str) -> list[str]:
    """Source files of ``lang`` under ``root`` (the daemon's walker, minus test/vendored trees)."""
    suffix = {"python": ".py", "go": ".go", "rust": ".rs"}[lang]
    out = []
    for item in walk_repo(root, filter=RepoFilter(root)):
        keep = isinstance(item, WalkedFile) and item.path.endswith(suffix)
        if keep and not SKIP_DIRS.intersection(item.path.split("/")[:-1]):
            out.append(item.path)
    return out


def _parse(args: tuple[str, str]) -> ParsedFile:
    root, rel = args
    return parse_source(rel, (Path(root) / rel).read_bytes())


def _sample_key(edge: tuple[str, str, Confidence]) -> str:
    return hashlib.blake2b(f"{edge[0]}>{edge[1]}".encode(), digest_size=8).hexdigest()


def measure(lang: str, workers: int, sample: int, misses: int) -> dict[str, Any]:
    root = corpus(lang)
    t0 = time.perf_counter()
    paths = walk(root, lang)
    with ProcessPoolExecutor(workers) as pool:
        parsed = list(pool.map(_parse, [(str(root), p) for p in paths], chunksize=32))
    t_parse = time.perf_counter() - t0
    t1 = time.perf_counter()
    resolver = RepoResolver("b", facts_from_files(root, paths))
    for pf in parsed:
        resolver.set_file(pf)
    edges = resolver.all_edges()
    t_resolve = time.perf_counter() - t1
    (stats,) = [s for s in resolver.stats() if s.language == lang]

    # Denominator of the targets: call sites whose callee name is defined in the repository
    # (as a function, method or type) and is not a language builtin.
    defined = {s.name for pf in parsed for s in pf.symbols if s.kind is not SymbolKind.MODULE}
    defined -= BUILTINS.get(lang, set())
    unresolved = set(edges.unresolved_calls)
    # A resolved site calls a repository definition by construction; an unresolved one is
    # counted as a miss when its callee name is defined in the repository, is not a builtin
    # and (Go) is not an ``unsafe.`` compiler intrinsic (unsafe.go is documentation only).
    named_sites = named_resolved = 0
    for pf in parsed:
        fi = resolver.files[pf.path]
        for c in pf.calls:
            if (fi.info_for(c.caller)[0], c.callee) not in unresolved:
                named_sites += 1
                named_resolved += 1
            elif c.name in defined and not (lang == "go" and c.callee.startswith("unsafe.")):
                named_sites += 1
    by = dict(stats.resolved_by)
    sites = stats.call_sites
    resolved = stats.resolved
    name_only = by.get(Confidence.NAME_ONLY, 0)
    out: dict[str, Any] = {
        "language": lang,
        "root": str(root),
        "files": len(paths),
        "call_sites": sites,
        "resolved": resolved,
        "resolved_share": round(resolved / sites, 4) if sites else 0.0,
        "sites_named_like_a_repo_definition": named_sites,
        "resolved_share_of_repo_named": round(named_resolved / named_sites, 4) if named_sites else 0.0,
        "by_method": {c.value: round(n / sites, 4) for c, n in by.items()},
        "by_method_sites": {c.value: n for c, n in by.items()},
        "name_only_share_of_resolved": round(name_only / resolved, 4) if resolved else 0.0,
        "unresolved": stats.unresolved,
        "parse_s": round(t_parse, 2),
        "resolve_s": round(t_resolve, 2),
        "sample": _sample(parsed, root, edges.calls, sample),
        "misses": _misses(parsed, resolver, root, unresolved, defined, lang, misses),
    }
    return out


def _misses(
    parsed: list[ParsedFile],
    resolver: RepoResolver,
    root: Path,
    unresolved: set[tuple[str, str]],
    defined: set[str],
    lang: str,
    n: int,
) -> list[dict[str, Any]]:
    """``n`` unresolved call sites counted as misses (deterministic sample), to label by hand
    whether each really calls code defined in the repository (the strict share counts all
    of them as misses, although many call C extensions or external objects)."""
    rows = []
    for pf in parsed:
        fi = resolver.files[pf.path]
        for c in pf.calls:
            missed = (fi.info_for(c.caller)[0], c.callee) in unresolved and c.name in defined
            if missed and not (lang == "go" and c.callee.startswith("unsafe.")):
                rows.append((pf.path, c.line, c.callee))
    rows.sort(key=lambda m: hashlib.blake2b(repr(m).encode(), digest_size=8).hexdigest())
    out = []
    for path, line, callee in rows[:n]:
        lines = (root / path).read_text("utf-8", "replace").splitlines()
        out.append({"site": f"{path}:{line}", "call": callee, "source": lines[line - 1].strip()[:100]})
    return out


def _sample(parsed: list[ParsedFile], root: Path, calls: Any, n: int) -> list[dict[str, Any]]:
    """``n`` resolved edges chosen by a hash of their ends (deterministic), each with the
    source line of a call of that name in the caller."""
    chosen = sorted(calls, key=_sample_key)[:n]
    by_path = {pf.path: pf for pf in parsed}
    rows = []
    for caller, callee, conf in chosen:
        c_ref = caller.removeprefix("b:").split("#", 1)[0]
        t_ref = callee.removeprefix("b:").split("#", 1)[0]
        path, _, qual = c_ref.partition("::")
        name = t_ref.rsplit("::", 1)[-1].rsplit(".", 1)[-1].split("~", 1)[0]
        pf = by_path[path]
        site = next((c for c in pf.calls if c.caller == qual and c.name == name), None)
        if site is None:  # a constructor call (`Foo()` -> class) or a renamed import
            site = next((c for c in pf.calls if c.caller == qual), None)
        line = ""
        if site is not None:
            lines = (root / path).read_text("utf-8", "replace").splitlines()
            line = lines[site.line - 1].strip()[:100] if site.line <= len(lines) else ""
        rows.append(
            {
                "caller": c_ref,
                "callee": t_ref,
                "confidence": conf.value,
                "call": site.callee if site else "",
                "line": site.line if site else 0,
                "source": line,
            }
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--misses", type=int, default=0, help="also print this many unresolved sites to label")
    ap.add_argument("--lang", default="python,go,rust")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    langs = [x.strip() for x in args.lang.split(",") if x.strip()]
    setup(langs)
    load = os.getloadavg()[0]
    if load > (os.cpu_count() or 1):
        print(f"warning: machine busy (1-min load {load:.2f})", file=sys.stderr)
    results = [measure(lang, args.workers, args.sample, args.misses) for lang in langs]
    out = {"load_avg_1m": round(load, 2), "load_avg_1m_after": round(os.getloadavg()[0], 2), "languages": results}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"1-min load average: {out['load_avg_1m']} (before) {out['load_avg_1m_after']} (after)")
    for r in results:
        head = f"{r['files']} files; parse {r['parse_s']} s, resolve {r['resolve_s']} s"
        print(f"\n== {r['language']}: {r['root']} ({head})")
        print(f"call sites: {r['call_sites']}; resolved to a repository definition: {r['resolved_share']:.1%}")
        print(
            "calls to repository definitions (resolved + unresolved named like a repository definition): "
            f"{r['sites_named_like_a_repo_definition']}; resolved: {r['resolved_share_of_repo_named']:.1%}"
        )
        for method, share in sorted(r["by_method"].items(), key=lambda x: -x[1]):
            print(f"  by {method:<14} {share:6.1%}  ({r['by_method_sites'][method]} sites)")
        print(f"name-only guesses: {r['name_only_share_of_resolved']:.1%} of the resolved call sites")
        print(f"sample of {len(r['sample'])} resolved edges (check by hand):")
        for i, s in enumerate(r["sample"], 1):
            print(f"  {i:2}. {s['caller']}  -[{s['confidence']}]->  {s['callee']}")
            print(f"      line {s['line']}: {s['source']}")
        if r["misses"]:
            print(f"sample of {len(r['misses'])} unresolved sites counted as misses (label by hand):")
            for i, m in enumerate(r["misses"], 1):
                print(f"  {i:2}. {m['site']}  {m['call']}  |  {m['source']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
