"""Format invariance at the parser level: real formatters rewrite real code, and every
function's and class's ``sig_hash`` and ``body_hash`` stay identical.

Python: a deterministic sample of the standard library (every ``STEP``-th file in sorted
order that Python itself can parse: about 250 files) rewritten by ``ruff format`` and an
``ast.unparse`` round trip, and every other file of it (black is the slow one) by
``black`` and ``black -l 60`` (black and ruff are pinned in the dev extra).
JavaScript/TypeScript: the fixtures rewritten by ``prettier`` (pinned in
``tests/node/package.json``, installed by ``scripts/test.sh`` with ``npm ci``).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
from graphmemd.graph.model import SymbolKind
from graphmemd.ingest.parsing import parse_source

black = pytest.importorskip("black", reason="black (dev extra) is not installed")

ROOT = Path(__file__).resolve().parents[2]
STEP = 3  # every 3rd stdlib file: about 250 files, several thousand definitions
_SKIP_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__", "lib2to3"}
NODE = ROOT / "tests" / "node"
PRETTIER = NODE / "node_modules" / ".bin" / "prettier"

Prints = dict[tuple[str, SymbolKind], tuple[str, str]]


def stdlib_sample() -> list[tuple[str, bytes]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files: list[Path] = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        files.extend(Path(directory) / n for n in sorted(names) if n.endswith(".py"))
    sample: list[tuple[str, bytes]] = []
    for path in files[::STEP]:
        data = path.read_bytes()
        try:
            ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        sample.append((path.relative_to(root).as_posix(), data))
    return sample


def prints(path: str, data: bytes) -> tuple[int, Prints]:
    parsed = parse_source(path, data)
    return parsed.syntax_errors, {(s.qualname, s.kind): (s.sig_hash, s.body_hash) for s in parsed.symbols}


def changed_symbols(originals: list[tuple[str, bytes]], rewritten: dict[str, bytes]) -> tuple[int, list[str]]:
    """(definitions compared, the ones whose hashes changed)."""
    compared = 0
    changed: list[str] = []
    for path, data in originals:
        if path not in rewritten:
            continue
        errors_before, before = prints(path, data)
        errors_after, after = prints(path, rewritten[path])
        if errors_before or errors_after:  # tree-sitter disagrees with Python: not a fingerprint question
            continue
        for key, hashes in before.items():
            compared += 1
            if after.get(key) != hashes:
                changed.append(f"{path}::{key[0]}#{key[1].value}")
    return compared, changed


@pytest.fixture(scope="module")
def sample() -> list[tuple[str, bytes]]:
    files = stdlib_sample()
    assert len(files) >= 100
    return files


def _with_black(line_length: int) -> Callable[[bytes], bytes]:
    mode = black.Mode(line_length=line_length)

    def run(data: bytes) -> bytes:
        return black.format_str(data.decode("utf-8"), mode=mode).encode("utf-8")

    return run


def _unparse(data: bytes) -> bytes:
    return ast.unparse(ast.parse(data)).encode("utf-8")


@pytest.mark.parametrize(
    ("name", "rewrite", "every"),
    [("black", _with_black(88), 2), ("black -l 60", _with_black(60), 2), ("ast.unparse", _unparse, 1)],
)
def test_python_formatters_keep_every_fingerprint(
    sample: list[tuple[str, bytes]], name: str, rewrite: Callable[[bytes], bytes], every: int
) -> None:
    sample = sample[::every]
    rewritten: dict[str, bytes] = {}
    for path, data in sample:
        try:
            rewritten[path] = rewrite(data)
        except (black.InvalidInput, UnicodeDecodeError):  # black cannot handle a few files
            continue
    assert sum(1 for path, data in sample if rewritten.get(path, data) != data) >= len(sample) // 2
    compared, changed = changed_symbols(sample, rewritten)
    assert compared >= 2000
    assert changed == [], f"{name}: {len(changed)} of {compared} definitions changed: {changed[:10]}"


def test_ruff_format_keeps_every_fingerprint(sample: list[tuple[str, bytes]], tmp_path: Path) -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff (dev extra) is not installed")
    for i, (_path, data) in enumerate(sample):
        (tmp_path / f"f{i}.py").write_bytes(data)
    subprocess.run([ruff, "format", "--isolated", "--no-cache", "-q", str(tmp_path)], check=False)
    rewritten = {path: (tmp_path / f"f{i}.py").read_bytes() for i, (path, _data) in enumerate(sample)}
    assert sum(1 for path, data in sample if rewritten[path] != data) >= len(sample) // 2
    compared, changed = changed_symbols(sample, rewritten)
    assert compared >= 2000
    assert changed == [], f"ruff format: {len(changed)} of {compared} definitions changed: {changed[:10]}"


def _js_sources() -> list[Path]:
    found = [*sorted((ROOT / "tests" / "fixtures_fp").glob("styles.*"))]
    for lang in ("javascript", "typescript"):
        found.extend(
            p
            for p in sorted((ROOT / "fixtures" / "repos" / lang).rglob("*"))
            if p.suffix in (".js", ".cjs", ".ts", ".tsx")
        )
    return found


def test_prettier_keeps_every_fingerprint(tmp_path: Path) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm not installed: cannot run prettier")
    if not PRETTIER.exists():  # scripts/test.sh runs `npm ci` in tests/node; do it here otherwise
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=NODE, check=True)
    sources = _js_sources()
    assert len(sources) >= 10
    compared = 0
    changed: list[str] = []
    rewritten_files = 0
    for i, src in enumerate(sources):
        copy = tmp_path / f"f{i}{src.suffix}"
        copy.write_bytes(src.read_bytes())
        subprocess.run([str(PRETTIER), "--write", "--log-level", "warn", str(copy)], check=True)
        after = copy.read_bytes()
        rewritten_files += after != src.read_bytes()
        n, diff = changed_symbols([(src.name, src.read_bytes())], {src.name: after})
        compared += n
        changed.extend(diff)
    assert rewritten_files >= len(sources) // 2
    assert compared >= 50
    assert changed == [], f"prettier: {len(changed)} of {compared} definitions changed: {changed}"
