"""The shape the architecture promises (docs/architecture.md), checked on the source: no class
over 400 lines or function over 80 in the daemon, and a docstring on every public class and
function. Import rules (layers, the one engine module, pure cores, the read side) are
import-linter contracts in pyproject.toml (see test_layers.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DAEMON = ROOT / "daemon" / "graphmemd"
CLIENTS = ROOT / "clients" / "graphmem"


def sources(*bases: Path) -> Iterator[tuple[Path, ast.Module]]:
    for base in bases:
        for p in sorted(base.rglob("*.py")):
            if "v1" not in p.relative_to(base).parts:
                yield p, ast.parse(p.read_text(encoding="utf-8"))


def test_no_long_class_or_function_in_the_daemon() -> None:
    long = []
    for p, tree in sources(DAEMON):
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > (400 if isinstance(node, ast.ClassDef) else 80):
                    long.append(f"{p.relative_to(ROOT)}:{node.lineno} {node.name} ({size} lines)")
    assert long == []


def undocumented(tree: ast.Module) -> Iterator[str]:
    def visit(node: ast.AST, prefix: str) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                if child.name.startswith("_"):
                    continue
                if ast.get_docstring(child) is None:
                    yield f"{prefix}{child.name}:{child.lineno}"
                if isinstance(child, ast.ClassDef):
                    yield from visit(child, f"{prefix}{child.name}.")

    yield from visit(tree, "")


def test_every_public_class_and_function_has_a_docstring() -> None:
    missing = [f"{p.relative_to(ROOT)}::{name}" for p, tree in sources(DAEMON, CLIENTS) for name in undocumented(tree)]
    assert missing == []
