"""Load-independent parse cost: instructions of ``parse_source`` vs the bare parse, under callgrind.

Usage: ``python scripts/parse_instructions.py [--code DIR ...] [--every N] [--tests] [--json]``.

For each ``--code`` tree (default: this checkout; an archived commit's tree, ``git archive C
daemon | tar -x -C DIR``, measures that commit) runs valgrind's callgrind on a child process
that parses every Nth file (default 8: 92 files) of the interpreter's standard library
(``bench_parse.py``'s corpus: no tests; ``--tests``: with its tests, the files the
0.9 M-line tree of ``bench_scale.py`` copies, denser in calls) once to load the code and compile the language's
queries, then all of them inside ``eval``, the only span collected
(``--collect-atstart=no --toggle-collect=builtin_eval``): the query compile and the imports
are not counted, and ``PYTHONHASHSEED=0`` keeps the hash-dependent work fixed. Prints the
bare parse's instructions, each code's ``parse_source`` instructions and their ratio. The
figures do not depend on the load (timings do: ``bench_parse.py``); a run takes ~2 minutes per
code. Needs ``valgrind`` (Debian: ``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__", "testdata"}  # as bench_parse.py
#: ``--tests``: only what is no standard-library source
_SKIP_WITH_TESTS = {"site-packages", "__pycache__"}


def _child(code: Path, mode: str, every: int, tests: bool = False) -> None:
    """Runs under callgrind: loads the code, then parses inside ``eval`` (the collected span)."""
    import sysconfig

    sys.path.insert(0, str(code / "daemon"))  # (not bench_parse: it puts this checkout's code first)
    from graphmemd.graph.model import Language
    from graphmemd.ingest.parsing import bare_parse, parse_source

    root = Path(sysconfig.get_paths()["stdlib"])
    files: list[tuple[str, bytes, Language]] = []
    for directory, dirs, names in os.walk(root):  # bench_parse.py's corpus, in its order
        dirs[:] = sorted(d for d in dirs if d not in (_SKIP_WITH_TESTS if tests else _SKIP_DIRS))
        for name in sorted(names):
            if name.endswith(".py"):
                path = Path(directory) / name
                files.append((path.relative_to(root).as_posix(), path.read_bytes(), Language.PYTHON))
    files = files[::every]
    parse_source("x.py", b"x = 1\n", Language.PYTHON)
    bare_parse(b"x = 1\n", Language.PYTHON)

    def full() -> None:
        for path, data, language in files:
            parse_source(path, data, language)

    def bare() -> None:
        for _path, data, language in files:
            bare_parse(data, language)

    eval(mode + "()", {"full": full, "bare": bare})  # (the span callgrind collects)


def _count(code: Path, mode: str, every: int, tests: bool = False) -> int:
    with tempfile.TemporaryDirectory(prefix="parse-instructions-") as scratch:
        out = Path(scratch) / "callgrind.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                "--toggle-collect=builtin_eval",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--child",
                mode,
                "--code",
                str(code),
                "--every",
                str(every),
                *(["--tests"] if tests else []),
            ],
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        found = re.search(r"^summary: (\d+)", out.read_text(), re.MULTILINE)
        if found is None:
            raise RuntimeError("callgrind wrote no summary")
        return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, action="append", default=[])
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tests", action="store_true", help="the standard library with its tests")
    parser.add_argument("--child", choices=("full", "bare"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    codes = [c.resolve() for c in args.code] or [_HERE.parent]
    if args.child:
        _child(codes[0], args.child, args.every, args.tests)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    print(f"load average: {os.getloadavg()[0]:.2f} (instruction counts do not depend on it)")
    bare = _count(codes[0], "bare", args.every, args.tests)
    print(f"bare parse  : {bare / 1e6:,.1f} M instructions")
    measured: dict[str, dict[str, float]] = {}
    for code in codes:
        full = _count(code, "full", args.every, args.tests)
        print(f"parse_source: {full / 1e6:,.1f} M instructions, {full / bare:.3f}x the bare parse  ({code})")
        measured[str(code)] = {"full": full, "ratio": round(full / bare, 4)}
    if args.json:
        print(json.dumps({"every": args.every, "tests": args.tests, "bare": bare, "codes": measured}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
