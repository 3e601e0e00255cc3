"""Precision and recall of symbols and edges on the fixture repository of each language added
after the first six (``fixtures/repos/<language>``).

Each fixture holds a hand-written ``expected_symbols.txt`` (``path::qualname kind``, every
symbol) and ``expected_edges.txt`` (``KIND from -> to``: every IMPORTS, CALLS and INHERITS
edge into the repository). Symbols come from the real parser, edges from the real parser
and resolver, exactly as the daemon computes them (``facts_from_files``, ``RepoResolver``).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, wait_for
from graphmem.types import ObservationStatus
from graphmemd.graph.model import Confidence
from graphmemd.graph.resolution import RepoResolver, facts_from_files, is_fact_file
from graphmemd.ingest import parsecache
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.parsing.parser import parse_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"
LANGUAGES = ("c", "cpp", "ruby", "php", "csharp", "kotlin", "scala", "swift")
KINDS = ("IMPORTS", "CALLS", "INHERITS")
R = "fx"

Edge = tuple[str, str, str]  # (kind, from ref, to ref)


def _lines(path: Path) -> list[str]:
    return [x.strip() for x in path.read_text().splitlines() if x.strip() and not x.strip().startswith("#")]


def expected_symbols(name: str) -> set[tuple[str, str]]:
    out = set()
    for line in _lines(FIXTURES / name / "expected_symbols.txt"):
        ref, kind = line.rsplit(" ", 1)
        out.add((ref, kind))
    return out


def expected_edges(name: str) -> set[Edge]:
    return set(_edges(name))


def expected_guesses(name: str) -> set[Edge]:
    """The edges the expectations mark ``(name_only)``: guesses by a unique method name."""
    return {e for e, guess in _edges(name).items() if guess}


def _edges(name: str) -> dict[Edge, bool]:
    out: dict[Edge, bool] = {}
    for line in _lines(FIXTURES / name / "expected_edges.txt"):
        guess = line.endswith("(name_only)")
        kind, rest = line.removesuffix("(name_only)").strip().split(" ", 1)
        a, b = (x.strip() for x in rest.split("->"))
        out[(kind, a, b)] = guess
    return out


def ref(node_id: str) -> str:
    """``fx:path::qual#kind`` -> ``path::qual``; ``fx:path`` -> ``path``."""
    return node_id.removeprefix(f"{R}:").split("#", 1)[0]


def source_paths(name: str) -> list[str]:
    root = FIXTURES / name
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and language_for_path(p.name))


def resolve(name: str, *, frozen: bool = False) -> tuple[RepoResolver, dict[Edge, Confidence]]:
    root = FIXTURES / name
    paths = source_paths(name)
    r = RepoResolver(R, facts_from_files(root, paths))
    for p in paths:
        r.set_file(parse_source(p, (root / p).read_bytes()), frozen=frozen)
    e = r.all_edges()
    conf: dict[Edge, Confidence] = {}
    for a, b, c in e.calls:
        conf[("CALLS", ref(a), ref(b))] = c
    for a, b, c in e.imports:
        conf[("IMPORTS", ref(a), ref(b))] = c
    for a, b, _kind, c in e.inherits:
        conf[("INHERITS", ref(a), ref(b))] = c
    return r, conf


def precision_recall(got: set[object], want: set[object]) -> tuple[float, float]:
    tp = len(got & want)
    return (tp / len(got) if got else 1.0), (tp / len(want) if want else 1.0)


@pytest.mark.parametrize("name", LANGUAGES)
def test_symbols(name: str) -> None:
    root = FIXTURES / name
    got: set[tuple[str, str]] = set()
    for p in source_paths(name):
        # (a syntax error is allowed: `extern "C" {` split over two #ifdef blocks is one)
        parsed = parse_source(p, (root / p).read_bytes())
        ids = [(s.qualname, s.kind) for s in parsed.symbols]
        assert len(ids) == len(set(ids)), f"{p}: ids must be unique in a file"
        got |= {(f"{p}::{s.qualname}", s.kind.value) for s in parsed.symbols}
    want = expected_symbols(name)
    precision, recall = precision_recall(got, want)  # type: ignore[arg-type]
    assert precision >= 0.95, f"unexpected symbols: {sorted(got - want)}"
    assert recall >= 0.95, f"missed symbols: {sorted(want - got)}"


@pytest.mark.parametrize("name", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_edges(name: str, kind: str) -> None:
    _, conf = resolve(name)
    got = {e for e in conf if e[0] == kind}
    want = {e for e in expected_edges(name) if e[0] == kind}
    if not want and kind == "INHERITS":
        assert not got, sorted(got)
        return
    assert want, f"the fixture expects no {kind} edge: it tests nothing"
    precision, recall = precision_recall(got, want)  # type: ignore[arg-type]
    assert precision >= 0.95, f"false edges: {sorted(got - want)}"
    assert recall >= 0.95, f"missed edges: {sorted(want - got)}"


@pytest.mark.parametrize("name", LANGUAGES)
def test_no_name_only_guess(name: str) -> None:
    """Every fixture edge is found by a certain rule, never by a unique-name guess, except
    those the expectations mark ``(name_only)`` (a receiver no rule can type)."""
    _, conf = resolve(name)
    assert sorted(e for e, c in conf.items() if not c.certain) == sorted(expected_guesses(name))


@pytest.mark.parametrize("name", LANGUAGES)
def test_frozen_files_resolve_as_live_ones(name: str) -> None:
    """Planned calls kept compact (a warm restart's hand-over) resolve as live ones do."""
    live, conf = resolve(name)
    frozen, frozen_conf = resolve(name, frozen=True)
    assert conf == frozen_conf
    assert live.stats() == frozen.stats()


@pytest.mark.parametrize("name", LANGUAGES)
def test_the_parse_cache_keeps_every_field(name: str) -> None:
    root = FIXTURES / name
    for p in source_paths(name):
        parsed = parse_source(p, (root / p).read_bytes())
        assert parsecache.decode(parsecache.encode(parsed)) == parsed


@pytest.mark.parametrize("name", LANGUAGES)
def test_a_changed_file_re_resolves_what_depends_on_it(name: str) -> None:
    """Every file some edge leads into, once removed, makes the files with edges into it
    dependents."""
    _, conf = resolve(name)
    into: dict[str, set[str]] = {}
    for _kind, a, b in conf:
        src, dst = a.split("::", 1)[0], b.split("::", 1)[0]
        if src != dst:
            into.setdefault(dst, set()).add(src)
    assert into
    for dst, sources in sorted(into.items()):
        r2, _ = resolve(name)
        r2.remove_file(dst)
        assert sources <= r2.dependents_of({dst}), (dst, sources)


def test_cpp_out_of_line_member_through_the_daemon(daemon_factory: Callable[..., Daemon]) -> None:
    """A real daemon on the C++ fixture: recall from a caller reaches the note on an
    out-of-line member through the call that named its declaration; a body change of the
    definition marks that note stale and leaves the note on the header's declaration fresh;
    clang-format over the file marks nothing."""
    repo = copy_fixture("cpp")
    d = daemon_factory([repo])
    d.wait_idle()
    with d.client() as c:
        on_def = c.observe(
            "total sums the rows, never the items", anchors=["src/store.cpp::shop.Store.total"], repo=str(repo)
        )
        on_decl = c.observe(
            "total is part of the API", anchors=["include/shop/store.h::shop.Store.total"], repo=str(repo)
        )
        res = c.recall(symbols=["src/main.cpp::report"], repo=str(repo), hops=1)
        (hit,) = [h for h in res.results if h.observation.id == on_def.id]
        assert [(h.edge.value, h.confidence) for h in hit.path] == [("CALLS", Confidence.RECEIVER_TYPE)]

        store = repo / "src" / "store.cpp"
        text = store.read_text()
        clang = shutil.which("clang-format")
        if clang is not None:
            formatted = subprocess.run(
                [clang, "--style=Google"], input=text, capture_output=True, text=True, check=True
            )
            assert formatted.stdout != text
            store.write_text(formatted.stdout)
            d.wait_idle()
            assert c.get(on_def.id).status is ObservationStatus.FRESH
            text = formatted.stdout
        old = "sum += row.second;"
        assert text.count(old) == 1
        store.write_text(text.replace(old, "sum += 2 * row.second;"))
        wait_for(lambda: c.get(on_def.id).status is ObservationStatus.STALE, 30)
        assert c.get(on_decl.id).status is ObservationStatus.FRESH


def test_the_new_manifests_are_fact_files() -> None:
    """A change of one of these re-reads the repository facts (and re-resolves every file)."""
    for path in (
        "build/compile_commands.json",
        "Gemfile",
        "shop.gemspec",
        "config/application.rb",
        "composer.json",
        "Package.swift",
    ):
        assert is_fact_file(path), path
    assert not is_fact_file("src/store.cpp")


def test_cpp_include_dirs_come_from_compile_commands(tmp_path: Path) -> None:
    """``build/compile_commands.json`` names the include directories (its ``-I`` flags inside
    the repository, relative to each entry's ``directory``); without it, the repository's
    ``include`` directories and its root are searched. Either way the includes resolve."""
    paths = source_paths("cpp")
    assert facts_from_files(FIXTURES / "cpp", paths).c_include_dirs == ("include", "")
    copy = tmp_path / "cpp"
    shutil.copytree(FIXTURES / "cpp", copy)
    (copy / "build" / "compile_commands.json").unlink()
    facts = facts_from_files(copy, paths)
    assert facts.c_include_dirs == ("", "include", "src")
    r = RepoResolver(R, facts)
    for p in paths:
        r.set_file(parse_source(p, (copy / p).read_bytes()))
    imports = {(ref(a), ref(b)) for a, b, _ in r.all_edges().imports}
    assert ("src/store.cpp", "legacy/checksum.h") in imports  # `-I..` before, the root now
    assert ("src/main.cpp", "include/shop/store.h") in imports
