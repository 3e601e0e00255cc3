"""Precision and recall of CALLS and IMPORTS on the resolution fixture repositories.

Each ``fixtures/repos/res_*`` holds a hand-written ``expected_edges.txt``. The edges come from
the real parser and resolver (and, for one fixture, from a real daemon's symbol detail API).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, wait_for
from graphmem.client import GraphMem
from graphmemd.graph.model import Confidence
from graphmemd.graph.resolution import RepoResolver, facts_from_files, is_fact_file
from graphmemd.ingest import parsecache
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.parsing.parser import parse_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"
NAMES = ("res_py_src", "res_py_flow", "res_go_pkgs", "res_ts_paths", "res_rust_ws", "res_java_overloads")
R = "fx"

Edge = tuple[str, str, str]  # (kind, from ref, to ref)


def expected(name: str) -> set[Edge]:
    out: set[Edge] = set()
    for line in (FIXTURES / name / "expected_edges.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        kind, rest = line.split(" ", 1)
        a, b = (x.strip() for x in rest.split("->"))
        out.add((kind, a, b))
    return out


def ref(node_id: str) -> str:
    """``fx:path::qual#kind`` -> ``path::qual``; ``fx:path`` -> ``path``."""
    return node_id.removeprefix(f"{R}:").split("#", 1)[0]


def resolve(name: str) -> tuple[RepoResolver, set[Edge], dict[Edge, Confidence]]:
    root = FIXTURES / name
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and language_for_path(p.name))
    r = RepoResolver(R, facts_from_files(root, paths))
    for p in paths:
        r.set_file(parse_source(p, (root / p).read_bytes()))
    e = r.all_edges()
    conf: dict[Edge, Confidence] = {}
    for a, b, c in e.calls:
        conf[("CALLS", ref(a), ref(b))] = c
    for a, b, c in e.imports:
        conf[("IMPORTS", ref(a), ref(b))] = c
    return r, set(conf), conf


def score(got: set[Edge], want: set[Edge], kind: str) -> tuple[float, float, set[Edge], set[Edge]]:
    g = {e for e in got if e[0] == kind}
    w = {e for e in want if e[0] == kind}
    tp = len(g & w)
    precision = tp / len(g) if g else 1.0
    recall = tp / len(w) if w else 1.0
    return precision, recall, g - w, w - g


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["CALLS", "IMPORTS"])
def test_precision_and_recall(name: str, kind: str) -> None:
    _, got, _ = resolve(name)
    want = expected(name)
    assert any(e[0] == kind for e in want)
    precision, recall, false_pos, missed = score(got, want, kind)
    assert precision >= 0.95, f"false edges: {sorted(false_pos)}"
    assert recall >= 0.95, f"missed edges: {sorted(missed)}"


@pytest.mark.parametrize("name", NAMES)
def test_no_name_only_guess_in_the_fixtures(name: str) -> None:
    """Every fixture edge is found by a certain rule, never by a unique-name guess."""
    _, _, conf = resolve(name)
    guessed = sorted(e for e, c in conf.items() if not c.certain)
    assert not guessed


def test_stats_count_every_call_site() -> None:
    r, _, _ = resolve("res_go_pkgs")
    (go,) = r.stats()
    assert go.language == "go"
    assert go.call_sites == go.resolved + go.unresolved
    assert dict(go.resolved_by)[Confidence.RECEIVER_TYPE] >= 5
    assert dict(go.resolved_by)[Confidence.IMPORT] >= 4


def test_fact_files() -> None:
    assert is_fact_file("go.mod")
    assert is_fact_file("crates/app/Cargo.toml")
    assert is_fact_file("pyproject.toml")
    assert is_fact_file("web/tsconfig.json")
    assert is_fact_file("packages/ui/package.json")
    assert not is_fact_file("src/main.go")
    assert not is_fact_file("go.sum")


def test_go_fixture_through_the_daemon(daemon_factory: Callable[..., Daemon]) -> None:
    """The real daemon indexes the Go fixture (facts read at registration: go.mod); the
    symbol detail API, status and why-paths show the edges and how they were resolved."""
    repo = copy_fixture("res_go_pkgs")
    try:
        d = daemon_factory([repo])
        want = expected("res_go_pkgs")
        symbols = sorted({ref for kind, a, b in want if kind == "CALLS" for ref in (a, b)})
        extra = ["store/store.go::Store", "billing/billing.go::Invoice", "api/api.go::Handler", "billing/fee.go::rate"]
        got: set[Edge] = set()
        with d.client() as c:
            for s in sorted(set(symbols) | set(extra)):
                detail = c.symbol(s, repo=str(repo))
                got |= {("CALLS", s, x.ref) for x in detail.callees}
                path = s.split("::", 1)[0]
                got |= {("IMPORTS", path, f) for f in detail.file_imports if "/" in f and f.endswith(".go")}
            for kind in ("CALLS", "IMPORTS"):
                precision, recall, false_pos, missed = score(got, want, kind)
                assert precision >= 0.95, f"{kind} false: {false_pos}"
                assert recall >= 0.95, f"{kind} missed: {missed}"

            (r,) = c.status().repositories
            (go,) = r.resolution
            assert go.language == "go"
            assert go.call_sites == go.resolved + go.unresolved
            assert dict(go.resolved_by)[Confidence.RECEIVER_TYPE] >= 5

            c.observe("the fee is doubled on purpose", anchors=["billing/fee.go::fee"], repo=str(repo))
            res = c.recall(symbols=["api/api.go::Handler.Serve"], repo=str(repo), hops=3)
            (hit,) = [h for h in res.results if "fee" in h.observation.text]
            assert [(h.edge.value, h.confidence) for h in hit.path] == [
                ("CALLS", Confidence.RECEIVER_TYPE),  # h.inv.Total(): a typed field
                ("CALLS", Confidence.SAME_PACKAGE),  # fee(): another file of the package
            ]

        # the CLI shows the figures and the how of each hop
        status = subprocess.run(
            [sys.executable, "-m", "graphmem", "status"], env=d.env, capture_output=True, text=True, timeout=60
        )
        line = next(x for x in status.stdout.splitlines() if "calls go:" in x)
        assert f"{go.call_sites} sites" in line
        assert "receiver_type" in line
        assert f"{go.unresolved} unresolved" in line
        recall = subprocess.run(
            [sys.executable, "-m", "graphmem", "recall", "--symbol", "api/api.go::Handler.Serve", "--hops", "3"],
            env=d.env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=repo,
        )
        why = "why: api/api.go::Handler.Serve -CALLS-> billing/billing.go::Invoice.Total -CALLS-> billing/fee.go::fee"
        assert why in recall.stdout, recall.stdout + recall.stderr
    finally:
        shutil.rmtree(repo.parent, ignore_errors=True)


def test_a_changed_file_re_resolves_its_dependents() -> None:
    """Renaming a method re-resolves the callers that reached it through a typed receiver."""
    r, got, _ = resolve("res_py_src")
    edge = ("CALLS", "src/shop/cart.py::Cart.add", "src/shop/store.py::Backend.save")
    assert edge in got
    root = FIXTURES / "res_py_src"
    source = (root / "src/shop/store.py").read_bytes().replace(b"def save(", b"def save_item(")
    r.set_file(parse_source("src/shop/store.py", source))
    dependents = r.dependents_of({"src/shop/store.py"})
    assert "src/shop/cart.py" in dependents
    assert "src/shop/pricing.py" not in dependents  # it does not look into store.py
    e = r.edges_for(dependents | {"src/shop/store.py"})
    assert edge not in {("CALLS", ref(a), ref(b)) for a, b, _ in e.calls}
    assert ("src/shop/cart.py::Cart.add", "self.backend.save") in {(ref(a), t) for a, t in e.unresolved_calls}


def test_receiver_patterns_say_how_they_were_resolved() -> None:
    """Chained calls and attributes bound to methods are typed receivers; a mixin's call
    reaches its subclasses' base through inheritance; `cls = type(obj)` is not the class."""
    r, got, conf = resolve("res_py_flow")
    assert conf[("CALLS", "app/chains.py::use", "app/chains.py::Foo.bar")] is Confidence.RECEIVER_TYPE
    assert conf[("CALLS", "app/widgets.py::Pickler.save", "app/widgets.py::Framer.write")] is Confidence.RECEIVER_TYPE
    assert conf[("CALLS", "app/widgets.py::Mixin.run", "app/widgets.py::Base.helper")] is Confidence.INHERITANCE
    assert ("CALLS", "app/chains.py::use", "app/chains.py::bar") not in got  # Foo().bar() is not bar()
    unresolved = {(ref(a), t) for a, t in r.all_edges().unresolved_calls}
    assert ("app/widgets.py::Stack.enter", "cls.helper") in unresolved


def test_a_new_subclass_re_resolves_the_mixin_calling_it() -> None:
    """`self.helper()` in a mixin resolves once a subclass brings a base defining it: the
    mixin's file is a dependent of the new subclass's file."""
    files = {
        "mixin.py": b"class Mixin:\n    def run(self):\n        return self.helper()\n",
        "base.py": b"class Base:\n    def helper(self):\n        return 1\n",
    }
    r = RepoResolver(R, facts_from_files(FIXTURES, ()))
    for p, src in files.items():
        r.set_file(parse_source(p, src))
    edge = ("mixin.py::Mixin.run", "base.py::Base.helper")
    assert edge not in {(ref(a), ref(b)) for a, b, _ in r.all_edges().calls}
    src = b"from base import Base\nfrom mixin import Mixin\n\nclass Concrete(Mixin, Base):\n    pass\n"
    r.set_file(parse_source("concrete.py", src))
    dependents = r.dependents_of({"concrete.py"})
    assert "mixin.py" in dependents
    e = r.edges_for(dependents | {"concrete.py"})
    assert edge in {(ref(a), ref(b)) for a, b, _ in e.calls}


@pytest.mark.parametrize("name", NAMES)
def test_the_parse_cache_keeps_what_resolution_needs(name: str) -> None:
    """A restart resolves from cached parses: typed names, arities, exports, local import
    scopes and call arities survive the store's codec."""
    root = FIXTURES / name
    for p in sorted(root.rglob("*")):
        if p.is_file() and language_for_path(p.name):
            parsed = parse_source(p.relative_to(root).as_posix(), p.read_bytes())
            assert parsecache.decode(parsecache.encode(parsed)) == parsed


def test_a_changed_manifest_re_resolves_the_repository(daemon_factory: Callable[..., Daemon]) -> None:
    """tsconfig.json loses its path aliases while the daemon watches: the imports through them
    no longer resolve; put back, they do again (facts are re-read when a manifest changes)."""
    repo = copy_fixture("res_ts_paths")
    d = daemon_factory([repo])
    tsconfig = repo / "tsconfig.json"
    original = tsconfig.read_text()

    def imports_of_service(c: GraphMem) -> list[str]:
        """The imports of src/core/service.ts, as the detail of one of its symbols reports them."""
        sym = next(s for s in c.find_symbols("*", repo=str(repo), limit=200) if s.path == "src/core/service.ts")
        return list(c.symbol(f"{sym.path}::{sym.qualname}").file_imports)

    with d.client() as c:
        assert "src/util/index.ts" in imports_of_service(c)
        tsconfig.write_text('{ "compilerOptions": { "baseUrl": "." } }\n')
        wait_for(lambda: "src/util/index.ts" not in imports_of_service(c), 30)
        tsconfig.write_text(original)
        wait_for(lambda: "src/util/index.ts" in imports_of_service(c), 30)
