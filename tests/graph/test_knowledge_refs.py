"""Resolving what a knowledge file names against the code graph (pure), and whether a
signature change keeps what was written against the old one true."""

from __future__ import annotations

import pytest
from graphmemd.graph.knowledge_refs import RefIndex, enclosing, is_test_path
from graphmemd.graph.model import Language, SymbolInfo, SymbolKind, symbol_id
from graphmemd.graph.signatures import compatible


def _sym(
    path: str, qualname: str, kind: SymbolKind = SymbolKind.FUNCTION, lines: tuple[int, int] = (1, 2)
) -> SymbolInfo:
    return SymbolInfo(
        id=symbol_id("r", path, qualname, kind),
        repo_id="r",
        path=path,
        name=qualname.rsplit(".", 1)[-1],
        qualname=qualname,
        kind=kind,
        language=Language.PYTHON,
        parent_id=None,
        start_line=lines[0],
        end_line=lines[1],
        signature=f"def {qualname}():",
        sig_hash="s",
        body_hash="b",
    )


SYMBOLS = [
    _sym("src/flask/helpers.py", "url_for"),
    _sym("src/flask/app.py", "Flask", SymbolKind.CLASS, (1, 40)),
    _sym("src/flask/app.py", "Flask.route", SymbolKind.METHOD, (10, 20)),
    _sym("src/flask/app.py", "Flask.run", SymbolKind.METHOD, (22, 30)),
    _sym("app/auth/service.py", "AuthService.login", SymbolKind.METHOD),
    _sym("app/auth/crypto.py", "hash_password"),
    _sym("app/api/routes.py", "login"),
    _sym("tests/test_auth.py", "hash_password"),
    _sym("tests/test_cli.py", "test_group.sub"),  # a nested function only a test defines
    _sym("src/attr/_make.py", "attrs"),
    _sym("server/handler.go", "Server.Start", SymbolKind.METHOD),
]
PATHS = sorted({s.path for s in SYMBOLS} | {"src/flask/__init__.py", "src/attrs/__init__.py", "src/attr/__init__.py"})
IMPORTS = {"src/flask/__init__.py": ["src/flask/helpers.py", "src/flask/app.py"]}


@pytest.fixture
def index() -> RefIndex:
    return RefIndex(SYMBOLS, PATHS, lambda p: IMPORTS.get(p, []))


@pytest.mark.parametrize(
    ("name", "module", "ref"),
    [
        ("flask.url_for", "", "src/flask/helpers.py::url_for"),  # re-exported by flask/__init__.py
        ("flask.Flask.route", "", "src/flask/app.py::Flask.route"),
        ("url_for", "flask", "src/flask/helpers.py::url_for"),  # Sphinx currentmodule
        ("AuthService.login", "", "app/auth/service.py::AuthService.login"),
        ("hash_password", "", "app/auth/crypto.py::hash_password"),  # the test's copy does not count
        ("app/auth/crypto.py::hash_password", "", "app/auth/crypto.py::hash_password"),
        ("crypto.py::hash_password", "", "app/auth/crypto.py::hash_password"),
        ("Server.Start", "", "server/handler.go::Server.Start"),
        ("flask.helpers", "", "src/flask/helpers.py"),
    ],
)
def test_names_resolve(index: RefIndex, name: str, module: str, ref: str) -> None:
    found = index.resolve_name(name, module)
    assert found is not None
    assert found.ref == ref


def test_what_does_not_resolve(index: RefIndex) -> None:
    assert index.resolve_name("login") is None  # a method and a function: ambiguous
    assert index.mentions("login")
    assert index.resolve_name("os.path.join") is None
    assert not index.mentions("os.path.join")
    assert index.resolve_name("attrs") is None  # a package and a function: ambiguous
    assert index.resolve_name("attrs", want="module") is not None
    assert index.resolve_name("attrs", want="callable") is not None
    assert index.resolve_name("Flask.route", want="class") is None
    assert index.resolve_name("sub") is None  # only test code defines it: a word, not a reference


def test_paths_and_lines(index: RefIndex) -> None:
    whole = index.resolve_path("src/flask/app.py")
    assert whole is not None
    assert whole.symbol is None
    line = index.resolve_path("src/flask/app.py", 25)
    assert line is not None
    assert line.ref == "src/flask/app.py::Flask.run"
    assert index.resolve_path("flask/app.py", 12) is not None  # a unique suffix
    assert index.resolve_path("nowhere.py") is None
    assert enclosing(SYMBOLS, 1000) is None
    assert is_test_path("tests/test_auth.py")
    assert is_test_path("web/a.spec.ts")
    assert not is_test_path("app/x.py")


def test_close_matches(index: RefIndex) -> None:
    assert "app/auth/crypto.py::hash_password" in index.close_matches("hash_pasword")
    assert "src/flask/helpers.py::url_for" in index.close_matches("flask.url_fro")


@pytest.mark.parametrize(
    ("old", "new", "ok"),
    [
        ("def f(a,b=1):", "def f(a,b=1,c=2):", True),
        ("def f(a,*,x=1,**kw):", "def f(a,*,x=1,y=None,**kw):", True),
        ("def f(a:int)->int:", "def f(a:str)->str:", True),
        ("def f(a):", "def f(a,b):", False),
        ("def f(a,b):", "def f(b,a):", False),
        ("def f(a,b):", "def f(a):", False),
        ("def f(a):", "def g(a):", False),
        ("class A:", "class A(Base):", True),
        ("class A:", "class B:", False),
        ("fetchUser(id:number):Promise<User>", "fetchUser(id:number,cache?:boolean):Promise<User>", True),
        ("func (s *Server) Start() error", "func (s *Server) Start(ctx context.Context) error", False),
        ("public void login(String name)", "public void login(String name, String pw)", False),
    ],
)
def test_signature_compatibility(old: str, new: str, ok: bool) -> None:
    assert compatible(old, new) is ok


def test_a_method_a_class_inherits_in_the_code() -> None:
    """``RefIndex.inherited``: a class's own member, else its bases' (nearest first)."""
    base, mid, top = (_sym("m.py", q, SymbolKind.CLASS) for q in ("Base", "Mid", "Top"))
    base_dump, mid_dump, base_load = (
        _sym("m.py", q, SymbolKind.METHOD) for q in ("Base.dump", "Mid.dump", "Base.load")
    )
    parents = {top.id: [mid], mid.id: [base], base.id: [top]}  # (a cycle ends)
    index = RefIndex([base, mid, top, base_dump, mid_dump, base_load], ["m.py"], bases=lambda s: parents.get(s.id, []))
    assert index.inherited(top, "dump") == mid_dump  # the nearer base's
    assert index.inherited(top, "load") == base_load
    assert index.inherited(top, "nothing") is None
