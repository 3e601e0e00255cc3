"""Every read a Python file's resolution makes of another file is recorded (issue 43).

The narrowed ``dependents_of`` is sound only if each read of another file's facts is in
what the resolution recorded: the whole file, or the name the read is under. Here every
name-keyed table of every file's index (its symbols, ids, arities, overloads, return and
attribute types, stated bases, module variables) logs who reads which key; after each
file's resolution, each read of another file must be covered by the file's record. A new
read that forgets to record fails here, on real fixtures and the mutants' files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from graphmemd.graph.resolution import RepoResolver, facts_from_files, read_repo_facts
from graphmemd.graph.resolution.index import FileIndex
from graphmemd.graph.resolution.names import name_key, top, typed_key
from graphmemd.graph.resolution.passes import Acc, FileStats, Pass
from graphmemd.ingest.parsing import language_for_path, parse_source
from test_dependents_narrowed import MUTANTS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"
TABLES = ("syms", "sids", "arity", "overloads", "returns", "attr_types", "inherits_by_child", "module_vars")


class Log:
    def __init__(self) -> None:
        self.reader: str | None = None
        self.reads: set[tuple[str, str | None]] = set()

    def read(self, path: str, key: object, name: str | None = None) -> None:
        if self.reader is not None and path != self.reader:
            self.reads.add((path, name or (top(key) if isinstance(key, str) else None)))


class Table(dict[str, Any]):
    """A name-keyed table of one file's index that logs each read (iterating: every name)."""

    def __init__(self, data: dict[str, Any], path: str, log: Log) -> None:
        super().__init__(data)
        self.path = path
        self.log = log

    def get(self, key: str, default: Any = None) -> Any:
        self.log.read(self.path, key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.log.read(self.path, key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.log.read(self.path, key)
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self.log.read(self.path, None)
        return super().__iter__()

    def items(self) -> Any:
        self.log.read(self.path, None)
        return super().items()

    def values(self) -> Any:
        self.log.read(self.path, None)
        return super().values()


class Typed(frozenset[str]):
    """A file's typed names, logging each membership test (a read of that name's typed key)."""

    path: str
    log: Log

    def __contains__(self, name: object) -> bool:
        self.log.read(self.path, name, typed_key(str(name)))
        return super().__contains__(name)


def unrecorded(r: RepoResolver, monkeypatch: pytest.MonkeyPatch) -> dict[str, set[tuple[str, str | None]]]:
    """Resolve every file of ``r``; per file, its reads of other Python files' tables that
    its record does not cover."""
    log = Log()
    for fi in r.files.values():
        if fi.family == "python":
            for t in TABLES:
                setattr(fi, t, Table(getattr(fi, t), fi.path, log))
            typed = Typed(fi.typed_names)
            typed.path, typed.log = fi.path, log
            fi.typed_names = typed
    missing: dict[str, set[tuple[str, str | None]]] = {}
    original = Pass.file_edges

    def checked(run: Pass, fi: FileIndex, acc: Acc) -> FileStats:
        log.reader, log.reads = fi.path, set()
        try:
            return original(run, fi, acc)
        finally:
            log.reader = None
            seen = run.seen
            gap = {(p, n) for p, n in log.reads if p not in seen and (n is None or name_key(p, n) not in seen)}
            if gap:
                missing[fi.path] = gap

    monkeypatch.setattr(Pass, "file_edges", checked)
    r.all_edges()
    return missing


def fixture(name: str) -> RepoResolver:
    root = FIXTURES / name
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and language_for_path(p.name))
    r = RepoResolver("fx", facts_from_files(root, paths))
    for p in paths:
        r.set_file(parse_source(p, (root / p).read_bytes()))
    return r


@pytest.mark.parametrize("name", ["python", "res_py_src", "res_py_flow", "chain_py", "knowledge"])
def test_every_read_of_another_file_is_recorded_on_the_fixtures(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert unrecorded(fixture(name), monkeypatch) == {}


@pytest.mark.parametrize("files", [m[1] for m in MUTANTS], ids=[m[0] for m in MUTANTS])
def test_every_read_of_another_file_is_recorded_in_the_mutants(
    files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    r = RepoResolver("t", read_repo_facts(Path("/nonexistent"), ()))
    for path, text in files.items():
        r.set_file(parse_source(path, text.encode()))
    assert unrecorded(r, monkeypatch) == {}


def test_the_check_sees_an_unrecorded_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """(The check itself: a lookup that records nothing is caught.)"""
    files = {"m.py": "def f():\n    pass\n", "d.py": "from m import f\n\ndef use():\n    f()\n"}
    r = RepoResolver("t", read_repo_facts(Path("/nonexistent"), ()))
    for path, text in files.items():
        r.set_file(parse_source(path, text.encode()))
    monkeypatch.setattr("graphmemd.graph.resolution.lookup.name_key", lambda path, name: "elsewhere")
    assert unrecorded(r, monkeypatch) == {"d.py": {("m.py", "f")}}
