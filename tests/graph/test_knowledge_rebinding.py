"""A name a package binds twice (attrs: ``from attr import (asdict, ...)``, then ``from
attr._next_gen import asdict``) means what the later binding says, as Python runs it, and
resolves the same in every process: the reference resolution of a knowledge file must not
follow the string hash seed (it flipped between two targets at every daemon restart)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from graphmemd.graph.knowledge_refs import RefIndex
from graphmemd.graph.model import symbols_of
from graphmemd.graph.resolution import RepoFacts, RepoResolver
from graphmemd.ingest.parsing.parser import parse_source

SOURCES = {
    "src/attr/__init__.py": "from ._funcs import asdict, astuple\nfrom ._next_gen import define\n",
    "src/attr/_funcs.py": "def asdict(inst):\n    return {}\n\n\ndef astuple(inst):\n    return ()\n",
    "src/attr/_next_gen.py": (
        "from . import _funcs\n\n\ndef asdict(inst, *, recurse=True):\n    return _funcs.asdict(inst)\n\n\n"
        "def astuple(inst, *, recurse=True):\n    return _funcs.astuple(inst)\n\n\ndef define(cls):\n    return cls\n"
    ),
    "src/attrs/__init__.py": (
        "from attr import (\n    asdict,\n    astuple,\n    define,\n)\nfrom attr._next_gen import asdict, astuple\n"
    ),
    "src/attrs/helpers.py": "from attr import asdict\nfrom attrs import define\n",
}
NEXT_GEN = {"asdict": "src/attr/_next_gen.py::asdict", "astuple": "src/attr/_next_gen.py::astuple"}


def _parsed() -> dict[str, object]:
    return {p: parse_source(p, text.encode()) for p, text in SOURCES.items()}


def _index(with_resolution: bool) -> RefIndex:
    """The index a knowledge pass builds: over the code's resolution (``exports``), or as before
    a warm restart handed its parses to the resolver: the files' imports only, from a set (the
    graph's import edges)."""
    r = RepoResolver("r", RepoFacts(python_roots=("", "src")))
    parsed = _parsed()
    for pf in parsed.values():
        r.set_file(pf)  # type: ignore[arg-type]
    symbols = [s for pf in parsed.values() for s in symbols_of("r", pf)]  # type: ignore[arg-type]
    edges = r.all_edges()
    imported: dict[str, set[str]] = {}
    for a, b, *_ in edges.imports:
        imported.setdefault(a.split(":", 1)[1], set()).add(b.split(":", 1)[1])
    if with_resolution:
        return RefIndex(symbols, SOURCES, exports=r.exports())
    return RefIndex(symbols, SOURCES, lambda p: list(imported.get(p, ())))


def _ref(index: RefIndex, name: str) -> str | None:
    got = index.resolve_name(name)
    return got.ref if got is not None else None


def test_the_later_binding_wins_as_python_runs_it() -> None:
    index = _index(with_resolution=True)
    assert {n: _ref(index, f"attrs.{n}") for n in NEXT_GEN} == NEXT_GEN
    assert _ref(index, "attr.asdict") == "src/attr/_funcs.py::asdict"  # (the other package binds the older one)
    assert _ref(index, "attrs.define") == "src/attr/_next_gen.py::define"


_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from graph.test_knowledge_rebinding import _index, _ref
out = {{}}
for resolution in (True, False):
    index = _index(with_resolution=resolution)
    out[str(resolution)] = {{n: _ref(index, "attrs." + n) for n in ("asdict", "astuple")}}
print(json.dumps(out, sort_keys=True))
"""


def test_every_hash_seed_resolves_alike() -> None:
    """The same names resolve to the same code under every string hash seed, with the code's
    resolution and without it (seeds 0..5: the old code answered ``_funcs`` under some and
    ``_next_gen`` under others without the resolution)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = _SCRIPT.format(tests=tests)
    seen: dict[str, str] = {}
    for seed in range(6):
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120, check=True
        )
        seen[str(seed)] = out.stdout.strip()
    assert len(set(seen.values())) == 1, seen
    got = json.loads(next(iter(seen.values())))
    assert got["True"] == NEXT_GEN
    assert None not in got["False"].values()
