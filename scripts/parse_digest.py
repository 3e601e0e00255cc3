"""Output-identity check for parser changes: dump a digest of every file's parse, compare two dumps.

Usage::

    python scripts/parse_digest.py dump OUT [--code DIR] [--lang python|c|cpp|juce|go|rust|ruby|php]
                                            [--every N] [--root ROOT ...]
    python scripts/parse_digest.py compare A B
    python scripts/parse_digest.py check --against DIR [--lang python --lang go ...] [--every N]

``dump`` parses every file of the language under each ``--root`` (default: the language's corpus
of ``scripts/corpora.py``; for Python the running interpreter's whole standard library, its
tests included) with the code under ``--code`` (default: this checkout; give an archived
commit's tree, ``git archive C daemon | tar -x -C DIR``, to dump that commit) and writes, per
file, a blake2b digest of ``repr(ParsedFile)``: every symbol with its signature and both
fingerprints, every call with its callee, line and shape, imports, bases, types, arities,
exports, syntax errors and truncation. ``--every N`` keeps every Nth file of a corpus.
``compare`` prints how many files the two dumps hold and which differ; exit status 1 when a
file differs or is missing from one of them. ``check`` does both in one command: for each
``--lang`` (default: ``python`` and ``go``), a dump with this checkout's code and one with the
code under ``--against`` (each in its own process), compared; exit status 1 when any differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _files(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file() and "site-packages" not in p.parts)


def dump(out: Path, code: Path, lang: str, every: int, roots: list[Path]) -> int:
    sys.path.insert(0, str(code / "daemon"))
    sys.path.insert(0, str(_HERE))
    from corpora import CORPORA, setup, tree
    from graphmemd.ingest.parsing import language_for_path, parse_source

    suffixes = CORPORA[lang].suffixes
    digests: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="parse-digest-") as scratch:
        labelled = [(root, str(root)) for root in roots]  # (a corpus unpacked to scratch: by its name)
        if not labelled:
            if lang == "python":
                labelled = [(Path(sysconfig.get_paths()["stdlib"]), "python")]
            else:
                setup([lang])
                labelled = [(tree(lang, Path(scratch)), lang)]
        for root, label in labelled:
            for path in _files(root, suffixes)[::every]:
                language = language_for_path(path.name)
                if language is None:
                    continue
                parsed = parse_source(path.relative_to(root).as_posix(), path.read_bytes(), language)
                digests[f"{label}:{path.relative_to(root).as_posix()}"] = hashlib.blake2b(
                    repr(parsed).encode()
                ).hexdigest()
    out.write_text(json.dumps(digests, sort_keys=True))
    print(f"{len(digests)} files digested into {out}")
    return 0


def compare(a: Path, b: Path) -> int:
    first, second = json.loads(a.read_text()), json.loads(b.read_text())
    missing = sorted(first.keys() ^ second.keys())
    differ = sorted(k for k in first.keys() & second.keys() if first[k] != second[k])
    print(f"{len(first)} / {len(second)} files; {len(differ)} differ; {len(missing)} in one dump only")
    for name in (differ + missing)[:20]:
        print("  ", name)
    return 1 if differ or missing else 0


def check(against: Path, langs: list[str], every: int) -> int:
    """Dump every corpus of ``langs`` with this checkout's code and with ``against``'s, compare."""
    failed = 0
    with tempfile.TemporaryDirectory(prefix="parse-digest-check-") as scratch:
        for lang in langs:
            dumps = []
            for name, code in (("this", _HERE.parent), ("against", against)):
                out = Path(scratch) / f"{lang}-{name}.json"
                command = [sys.executable, __file__, "dump", str(out), "--code", str(code), "--lang", lang]
                subprocess.run([*command, "--every", str(every)], check=True)
                dumps.append(out)
            print(f"{lang}: this checkout against {against}")
            failed |= compare(dumps[0], dumps[1])
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--root", type=Path, action="append", default=[], dest="roots")
    d.add_argument("--code", type=Path, default=_HERE.parent)
    d.add_argument("--lang", default="python")
    d.add_argument("--every", type=int, default=1)
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    k = sub.add_parser("check")
    k.add_argument("--against", type=Path, required=True, help="the other code tree (daemon/ under it)")
    k.add_argument("--lang", action="append", default=[], dest="langs")
    k.add_argument("--every", type=int, default=1)
    args = parser.parse_args()
    if args.command == "check":
        return check(args.against.resolve(), args.langs or ["python", "go"], args.every)
    if args.command == "dump":
        return dump(args.out, args.code.resolve(), args.lang, args.every, args.roots)
    return compare(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
