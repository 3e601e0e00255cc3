"""A changed file re-resolves only the files that read a name of it that changed (issue 43).

The pure comparison (``names.py``), then one mutant per kind of read of another file: a
dependent whose looked-up name did change must be resolved again, and the narrowed apply
must leave every file's edges equal to a full re-index; an edit no other file reads must
resolve none of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphmemd.graph.model import ResolvedEdges
from graphmemd.graph.resolution import RepoResolver, read_repo_facts
from graphmemd.graph.resolution.index import FileIndex
from graphmemd.graph.resolution.names import ALL, changed_names, method_key, name_facts, name_key, path_of, top
from graphmemd.ingest.parsing import parse_source

Edges = dict[str, set[tuple[object, ...]]]


def by_source(edges: ResolvedEdges) -> Edges:
    out: Edges = {}
    for kind, rows in (
        ("import", edges.imports),
        ("ext", edges.external_imports),
        ("call", edges.calls),
        ("unres", edges.unresolved_calls),
        ("inherit", edges.inherits),
        ("unres_inherit", edges.unresolved_inherits),
    ):
        for row in rows:
            src = str(row[0]).split(":", 1)[1].split("::", 1)[0]
            out.setdefault(src, set()).add((kind, *row))
    return out


class Checkout:
    """A resolver over in-memory files, applied to as a watcher batch does."""

    def __init__(self, files: dict[str, str]) -> None:
        self.texts = dict(files)
        self.r = RepoResolver("t", read_repo_facts(Path("/nonexistent"), ()))
        self.r.narrow = True
        for path, text in files.items():
            self.r.set_file(parse_source(path, text.encode()))
        self.held = by_source(self.r.all_edges())

    def change(self, path: str, text: str) -> set[str]:
        """Apply ``path``'s new ``text``; returns the dependents resolved again, after checking
        every file's edges against a full re-index (a new resolver, every file parsed again)."""
        self.texts[path] = text
        self.r.set_file(parse_source(path, text.encode()))
        deps = self.r.dependents_of({path}) - {path}
        for p in deps | {path}:
            self.held.pop(p, None)
        self.held.update(by_source(self.r.edges_for(deps | {path})))
        fresh = RepoResolver("t", self.r.facts)
        for p, t in self.texts.items():
            fresh.set_file(parse_source(p, t.encode()))
        want = by_source(fresh.all_edges())
        assert {p: e for p, e in self.held.items() if e} == {p: e for p, e in want.items() if e}
        return deps


def index_of(path: str, text: str) -> FileIndex:
    return Checkout({path: text}).r.files[path]


# ----------------------------------------------------------------------------- pure


def test_keys_name_a_path_and_a_name() -> None:
    assert path_of(name_key("a/b.py", "f")) == "a/b.py"
    assert path_of("a/b.py") == "a/b.py"
    assert top("C.m~2") == "C"
    assert top("f") == "f"


def test_a_body_edit_changes_no_name() -> None:
    a = index_of("m.py", "def f(x):\n    print(x)\n    return x\n\ndef g():\n    pass\n")
    b = index_of("m.py", "def f(x):\n    print(x, 1)\n    return x\n\ndef g():\n    pass\n")
    assert changed_names(name_facts(a), name_facts(b)) == frozenset()


def test_lines_moved_change_no_name() -> None:
    a = index_of("m.py", "import os\n\ndef f(x):\n    return x\n")
    b = index_of("m.py", "import os\n\n\n\n# moved\ndef f(x):\n    return x\n")
    assert changed_names(name_facts(a), name_facts(b)) == frozenset()


def test_definitions_reordered_change_no_name() -> None:
    # (the class's bucket lists its methods in another order: the same facts)
    a = index_of("m.py", "class C:\n    def a(self):\n        pass\n\n    def b(self, x):\n        pass\n")
    b = index_of("m.py", "class C:\n    def b(self, x):\n        pass\n\n    def a(self):\n        pass\n")
    assert changed_names(name_facts(a), name_facts(b)) == frozenset()
    c = index_of("m.py", "class C:\n    def b(self):\n        pass\n\n    def a(self):\n        pass\n")
    assert changed_names(name_facts(a), name_facts(c)) == {"C", method_key("b")}


def test_a_name_added_renamed_or_of_another_kind_is_changed() -> None:
    a = index_of("m.py", "def f():\n    pass\n\ndef g():\n    pass\n\nclass C:\n    def run(self):\n        pass\n")
    b = index_of("m.py", "class f:\n    pass\n\ndef h():\n    pass\n\nclass C:\n    def run(self):\n        pass\n")
    assert changed_names(name_facts(a), name_facts(b)) == {"f", "g", "h"}


def test_a_method_added_changes_its_class_and_its_method_name() -> None:
    a = index_of("m.py", "class C:\n    pass\n")
    b = index_of("m.py", "class C:\n    def run(self):\n        pass\n")
    assert changed_names(name_facts(a), name_facts(b)) == {"C", method_key("run")}


def test_a_base_a_return_type_or_a_module_variable_changes_its_name() -> None:
    a = index_of("m.py", "class B:\n    pass\n\nclass C:\n    pass\n\ndef make():\n    return B()\n\nx = B()\n")
    b = index_of("m.py", "class B:\n    pass\n\nclass C(B):\n    pass\n\ndef make():\n    return C()\n\nx = C()\n")
    assert changed_names(name_facts(a), name_facts(b)) == {"C", "make", "x"}


@pytest.mark.parametrize(
    "after",
    [
        "import json\n\ndef f():\n    pass\n",  # an import added
        "__all__ = ['f']\n\ndef f():\n    pass\n",  # __all__ declared
        "from os import *\n\ndef f():\n    pass\n",  # a star import
    ],
)
def test_module_wide_facts_change_every_name(after: str) -> None:
    a = index_of("m.py", "def f():\n    pass\n")
    assert changed_names(name_facts(a), name_facts(index_of("m.py", after))) == {ALL}


# ----------------------------------------------------------------------------- mutants

#: (what the dependent reads, the files, the file changed, its new text, the dependent)
MUTANTS = [
    (
        "from m import f; f's kind changes",
        {"m.py": "def f():\n    pass\n", "d.py": "from m import f\n\ndef use():\n    f()\n"},
        "m.py",
        "class f:\n    pass\n",
        "d.py",
    ),
    (
        "import m; m.f() where f appears",
        {"m.py": "def g():\n    pass\n", "d.py": "import m\n\ndef use():\n    m.f()\n"},
        "m.py",
        "def g():\n    pass\n\ndef f():\n    pass\n",
        "d.py",
    ),
    (
        "a star import gaining a name",
        {"m.py": "def g():\n    pass\n", "d.py": "from m import *\n\ndef use():\n    f()\n"},
        "m.py",
        "def g():\n    pass\n\ndef f():\n    pass\n",
        "d.py",
    ),
    (
        "__all__ gaining a name a star import reads",
        {
            "m.py": "__all__ = ['g']\n\ndef g():\n    pass\n\ndef f():\n    pass\n",
            "d.py": "from m import *\n\ndef use():\n    f()\n",
        },
        "m.py",
        "__all__ = ['g', 'f']\n\ndef g():\n    pass\n\ndef f():\n    pass\n",
        "d.py",
    ),
    (
        "a class gaining a base (an inherited method)",
        {
            "m.py": "class B:\n    def run(self):\n        pass\n\nclass C:\n    pass\n",
            "d.py": "from m import C\n\ndef use():\n    C().run()\n",
        },
        "m.py",
        "class B:\n    def run(self):\n        pass\n\nclass C(B):\n    pass\n",
        "d.py",
    ),
    (
        "a base in a third file gaining the method",
        {
            "b.py": "class B:\n    pass\n",
            "m.py": "from b import B\n\nclass C(B):\n    pass\n",
            "d.py": "from m import C\n\ndef use():\n    C().run()\n",
        },
        "b.py",
        "class B:\n    def run(self):\n        pass\n",
        "d.py",
    ),
    (
        "a re-export through a package's __init__",
        {
            "pkg/__init__.py": "from .impl import f\n",
            "pkg/impl.py": "def f():\n    pass\n",
            "d.py": "from pkg import f\n\ndef use():\n    f()\n",
        },
        "pkg/impl.py",
        "class f:\n    pass\n",
        "d.py",
    ),
    (
        "a module variable's stated type (m.x.run())",
        {
            "m.py": "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n"
            "        pass\n\nx = A()\n",
            "d.py": "import m\n\ndef use():\n    m.x.run()\n",
        },
        "m.py",
        "class A:\n    def run(self):\n        pass\n\nclass B:\n    def run(self):\n        pass\n\nx = B()\n",
        "d.py",
    ),
    (
        "a function's return type (m.make().go())",
        {
            "m.py": "class A:\n    def go(self):\n        pass\n\nclass B:\n    def go(self):\n        pass\n\n"
            "def make():\n    return A()\n",
            "d.py": "import m\n\ndef use():\n    m.make().go()\n",
        },
        "m.py",
        "class A:\n    def go(self):\n        pass\n\nclass B:\n    def go(self):\n        pass\n\n"
        "def make():\n    return B()\n",
        "d.py",
    ),
    (
        "a name bound to another by value (alias = real)",
        {
            "m.py": "def real():\n    pass\n\ndef other():\n    pass\n\nalias = real\n",
            "d.py": "from m import alias\n\ndef use():\n    alias()\n",
        },
        "m.py",
        "def real():\n    pass\n\ndef other():\n    pass\n\nalias = other\n",
        "d.py",
    ),
    (
        "the name-only guess of a method of an imported file",
        {"m.py": "class K:\n    pass\n", "d.py": "import m\n\ndef use(o):\n    o.frobnicate_now()\n"},
        "m.py",
        "class K:\n    def frobnicate_now(self):\n        pass\n",
        "d.py",
    ),
    (
        "a subclass gaining the method a mixin calls on self",
        {
            "d.py": "class Base:\n    def run(self):\n        self.hook_it()\n",
            "m.py": "from d import Base\n\nclass Sub(Base):\n    pass\n",
        },
        "m.py",
        "from d import Base\n\nclass Sub(Base):\n    def hook_it(self):\n        pass\n",
        "d.py",
    ),
    (
        "a member of a class looked up through it (m.C.build())",
        {
            "m.py": "class C:\n    pass\n",
            "d.py": "import m\n\ndef use():\n    m.C.build()\n",
        },
        "m.py",
        "class C:\n    @classmethod\n    def build(cls):\n        pass\n",
        "d.py",
    ),
    # each below changes a name the dependent never looks up itself: only the record of
    # the read named first catches it (a mutant leaving that record out fails here)
    (
        "bases: a base the class's own file did not define appearing there",
        {
            "m.py": "class C(B):\n    pass\n",
            "d.py": "from m import C\n\ndef use():\n    C().run()\n",
        },
        "m.py",
        "class B:\n    def run(self):\n        pass\n\nclass C(B):\n    pass\n",
        "d.py",
    ),
    (
        "bases: a subclass found through the index losing its base",
        {
            "d.py": "class Base:\n    def run(self):\n        self.hook_it()\n",
            "m.py": "from d import Base\n\nclass Other:\n    pass\n\nclass Sub(Base):\n    def hook_it(self):\n"
            "        pass\n",
        },
        "m.py",
        "from d import Base\n\nclass Other:\n    pass\n\nclass Sub(Other):\n    def hook_it(self):\n        pass\n",
        "d.py",
    ),
    (
        "a subclass appearing in a file already there (the walk of the base's subclasses)",
        {
            "d.py": "class Base:\n    def run(self):\n        self.hook_it()\n",
            "m.py": "from d import Base\n\nclass Other:\n    pass\n",
        },
        "m.py",
        "from d import Base\n\nclass Other:\n    pass\n\nclass Sub(Base):\n    def hook_it(self):\n        pass\n",
        "d.py",
    ),
    (
        "type_of: a module variable's class losing the method",
        {
            "m.py": "class A:\n    def run(self):\n        pass\n\nx = A()\n",
            "d.py": "import m\n\ndef use():\n    m.x.run()\n",
        },
        "m.py",
        "class A:\n    def walk(self):\n        pass\n\nx = A()\n",
        "d.py",
    ),
    (
        "type_of's memo: the second file reading the same stated type",
        {
            "m.py": "class A:\n    def run(self):\n        pass\n\nx = A()\n",
            "c.py": "import m\n\ndef use():\n    m.x.run()\n",
            "d.py": "import m\n\ndef use():\n    m.x.run()\n",
        },
        "m.py",
        "class A:\n    def walk(self):\n        pass\n\nx = A()\n",
        "d.py",
    ),
    (
        "alias_target: the function a name is bound to changing kind",
        {
            "m.py": "def real():\n    pass\n\nalias = real\n",
            "d.py": "from m import alias\n\ndef use():\n    alias()\n",
        },
        "m.py",
        "class real:\n    pass\n\nalias = real\n",
        "d.py",
    ),
    (
        "a TypeScript re-export (file-level: not narrowed)",
        {
            "impl.ts": "export function f() { return 1 }\n",
            "index.ts": "export { f } from './impl'\n",
            "d.ts": "import { f } from './index'\nexport function use() { f() }\n",
        },
        "impl.ts",
        "export class f {}\n",
        "d.ts",
    ),
]


@pytest.mark.parametrize(("files", "path", "after", "dependent"), [m[1:] for m in MUTANTS], ids=[m[0] for m in MUTANTS])
def test_a_dependent_whose_name_changed_is_resolved_again(
    files: dict[str, str], path: str, after: str, dependent: str
) -> None:
    assert dependent in Checkout(files).change(path, after)


@pytest.mark.parametrize(
    "after",
    [
        "def f():\n    return 2\n\ndef g():\n    pass\n",  # a body edited
        "def f():\n    pass\n\ndef g():\n    pass\n\ndef _added():\n    pass\n",  # a name no one reads
        "\n\n\ndef f():\n    pass\n\ndef g():\n    pass\n",  # lines moved
    ],
)
def test_an_edit_no_one_reads_resolves_no_dependent(after: str) -> None:
    files = {
        "m.py": "def f():\n    pass\n\ndef g():\n    pass\n",
        "d.py": "from m import f\nimport m\n\ndef use():\n    f()\n    m.g()\n",
    }
    c = Checkout(files)
    assert c.change("m.py", after) == set()
    c.r.narrow = False
    c.r.set_file(parse_source("m.py", files["m.py"].encode()))
    assert c.r.dependents_of({"m.py"}) == {"d.py"}  # (the file-level record would resolve it)


def test_changes_add_up_until_the_dependents_are_asked_for() -> None:
    files = {"m.py": "def f():\n    pass\n", "d.py": "from m import f\n\ndef use():\n    f()\n"}
    r = Checkout(files).r
    r.set_file(parse_source("m.py", b"class f:\n    pass\n"))  # f changed ...
    r.set_file(parse_source("m.py", b"class f:\n    pass\n\ndef g():\n    pass\n"))  # ... then g added
    assert r.dependents_of({"m.py"}) == {"d.py"}
    assert r.dependents_of({"m.py"}) == {"d.py"}  # (asked again with nothing noted: every name)


def test_a_derived_checkouts_differing_file_is_a_change_of_the_sources_file() -> None:
    """A worktree's differing file (kept as the source has it by the derivation, set again
    by its pass) is a change of the source's file, not an arrival: only the files reading a
    name of it that changed are resolved again (the derived graph holds the edges of the
    others into it: ``codegraph.derive_files`` holds them back until the file is in)."""
    files = {
        "m.py": "def f():\n    pass\n\ndef g():\n    pass\n",
        "d.py": "from m import f\n\ndef use():\n    f()\n",
        "e.py": "from m import g\n\ndef use():\n    g()\n",
    }
    a = Checkout(files).r
    b = RepoResolver("wt", a.facts)
    b.narrow = True
    assert b.derive(a, {"d.py", "e.py"}, later={"m.py"}) == set()
    assert set(b.files) == {"d.py", "e.py", "m.py"}  # (m.py as the source has it, until set again)
    b.set_file(parse_source("m.py", b"class f:\n    pass\n\ndef g():\n    pass\n"))
    assert b.dependents_of({"m.py"}) == {"d.py"}
