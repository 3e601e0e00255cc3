#!/usr/bin/env python3
"""Call resolution on real offline code: the corpora of ``scripts/corpora.py`` (the Python
standard library, and sources shipped by Debian packages, installed when missing and running
as root: the Go and Rust standard libraries, BlueZ for C, googletest and JUCE for C++).

Per language it prints: call sites; the share resolved to a definition in the repository;
the share of the call sites whose callee *name* is defined in the repository (functions,
methods, types: the denominator the targets use); the share by each confidence kind; the
share guessed by name only; and a deterministic sample of resolved edges (with the call's
source line) to check by hand. Files are walked, parsed and resolved exactly as the daemon
does (``walk_repo``, ``parse_source``, ``facts_from_files``, ``RepoResolver.all_edges``).

    python scripts/bench_resolve.py [--json] [--sample 50] [--lang python,go,rust,c,cpp,juce]
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
import tempfile
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

sys.path.insert(0, str(ROOT / "scripts"))
from corpora import CORPORA, setup, tree  # noqa: E402

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
#: C++: the members of the standard library's containers, strings, streams, smart pointers,
#: atomics and locks (``v.size()``, ``p.reset()``), as the methods of Python's built-in types
#: above; a call written ``std::...`` is the standard library's by construction.
# fmt: off
STD_MEMBERS = {
    "size", "empty", "begin", "end", "cbegin", "cend", "rbegin", "rend", "front", "back", "push_back",
    "push_front", "pop_back", "pop_front", "emplace", "emplace_back", "emplace_front", "insert", "erase",
    "clear", "find", "count", "contains", "at", "data", "c_str", "str", "length", "substr", "append",
    "assign", "resize", "reserve", "capacity", "swap", "get", "reset", "release", "lock", "unlock",
    "try_lock", "load", "store", "exchange", "fetch_add", "fetch_sub", "compare_exchange_weak",
    "compare_exchange_strong", "wait", "notify_one", "notify_all", "join", "detach", "first", "second",
    "value", "has_value", "value_or", "what", "min", "max", "lower_bound", "upper_bound", "equal_range",
    "key_comp", "sort", "unique", "merge", "splice", "remove", "remove_if", "reverse", "fill", "copy",
    "move", "forward", "write", "read", "flush", "put", "good", "fail", "eof", "close", "open", "is_open",
    "seekg", "seekp", "tellg", "tellp", "rdbuf", "setf", "precision", "width",
}
# fmt: on
BUILTINS["c"] = set()

_RUBY_CORE = """
core = Object.constants.map { |c| Object.const_get(c) rescue nil }.select { |m| m.is_a?(Module) }
core = core.select do |m|
  (m.instance_methods(false) + m.singleton_methods(false)).all? do |x|
    loc = (m.instance_method(x).source_location rescue m.method(x).source_location rescue nil)
    loc.nil? || loc[0].start_with?("<internal:")
  end
end
puts core.map(&:name).join(" ")
puts core.flat_map { |m| m.instance_methods + m.singleton_methods + m.private_instance_methods }.uniq.join(" ")
"""


def ruby_core() -> tuple[set[str], set[str]]:
    """(core classes and modules, their method names) of the machine's Ruby: implemented in
    C, never in a Ruby corpus (as Python's builtins for the Python one); empty without ruby."""
    ruby = shutil.which("ruby")
    if ruby is None:
        return set(), set()
    out = subprocess.run([ruby, "-e", _RUBY_CORE], capture_output=True, text=True, check=False, timeout=60)
    lines = out.stdout.splitlines()
    return (set(lines[0].split()), set(lines[1].split())) if len(lines) >= 2 else (set(), set())


RUBY_CORE_CLASSES, RUBY_CORE_METHODS = ruby_core()
BUILTINS["ruby"] = RUBY_CORE_METHODS

_PHP_CORE = (
    'echo implode(" ", get_defined_functions()["internal"]), "\\n";'
    'echo implode(" ", array_merge(get_declared_classes(), get_declared_interfaces())), "\\n";'
    "$m = []; foreach (get_declared_classes() as $c) { foreach (get_class_methods($c) as $x) { $m[$x] = 1; } }"
    'echo implode(" ", array_keys($m)), "\\n";'
)


def php_core() -> tuple[set[str], set[str]]:
    """(built-in classes and interfaces, built-in function and method names) of the machine's
    PHP (as Python's builtins for the Python corpus); empty without php."""
    php = shutil.which("php")
    if php is None:
        return set(), set()
    out = subprocess.run([php, "-r", _PHP_CORE], capture_output=True, text=True, check=False, timeout=60)
    lines = out.stdout.splitlines()
    if len(lines) < 3:
        return set(), set()
    return set(lines[1].split()), set(lines[0].split()) | set(lines[2].split())


PHP_CORE_CLASSES, PHP_CORE_NAMES = php_core()
BUILTINS["php"] = PHP_CORE_NAMES
BUILTINS["cpp"] = BUILTINS["juce"] = STD_MEMBERS


def walk(root: Path, lang: str) -> list[str]:
    """Source files of ``lang`` under ``root`` (the daemon's walker, minus test/vendored trees)."""
    suffix = CORPORA[lang].suffixes
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


def measure(lang: str, workers: int, sample: int, misses: int, scratch: Path) -> dict[str, Any]:
    root = tree(lang, scratch)
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
    (stats,) = [s for s in resolver.stats() if s.language == CORPORA[lang].family]

    # Denominator of the targets: call sites whose callee name is defined in the repository
    # (as a function, method or type) and is not a language builtin.
    every_name = {s.name for pf in parsed for s in pf.symbols if s.kind is not SymbolKind.MODULE}
    defined = every_name - BUILTINS.get(lang, set())
    unresolved = set(edges.unresolved_calls)
    # A resolved site calls a repository definition by construction; an unresolved one is
    # counted as a miss when its callee name is defined in the repository, is not a builtin
    # and (Go) is not an ``unsafe.`` compiler intrinsic (unsafe.go is documentation only).
    named_sites = named_resolved = strict_sites = 0
    for pf in parsed:
        fi = resolver.files[pf.path]
        for c in pf.calls:
            if (fi.info_for(c.caller)[0], c.callee) not in unresolved:
                named_sites += 1
                named_resolved += 1
            elif c.name in defined and not _external(lang, c.callee):
                named_sites += 1
            if c.name in every_name:  # (strict: no builtin or library left out)
                strict_sites += 1
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
        "resolved_share_strict": round(named_resolved / strict_sites, 4) if strict_sites else 0.0,
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


def _external(lang: str, callee: str) -> bool:
    """A call the language's own library answers by construction (Go ``unsafe.``, C++ ``std::``,
    a Ruby core class: ``File.read``, ``Array(x)``)."""
    if lang == "go":
        return callee.startswith("unsafe.")
    if lang in ("ruby", "php"):
        head = callee.lstrip(":").split(".", 1)[0].split("::", 1)[0].split("(", 1)[0]
        return head in (RUBY_CORE_CLASSES if lang == "ruby" else PHP_CORE_CLASSES)
    return lang in ("cpp", "juce") and callee.startswith(("std::", "::std::"))


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
            if missed and not _external(lang, c.callee):
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
        if site is None:  # a constructor call (`Foo.new`, `new Foo`, `Foo()` -> class)
            site = next((c for c in pf.calls if c.caller == qual and name in c.callee), None)
        if site is None:  # a renamed import
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
    with tempfile.TemporaryDirectory(prefix="bench-resolve-") as scratch:
        results = [measure(lang, args.workers, args.sample, args.misses, Path(scratch)) for lang in langs]
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
            f"{r['sites_named_like_a_repo_definition']}; resolved: {r['resolved_share_of_repo_named']:.1%} "
            f"(strict, no builtin left out: {r['resolved_share_strict']:.1%})"
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
