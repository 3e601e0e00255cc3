"""The pure rules a reference is graded by (issue 42): what a call written in a document
passes, whether it still binds to a Python signature, whether a mention's old callers still
fit, and the successor a deprecation message names."""

from __future__ import annotations

import pytest
from graphmemd.graph.signatures import binds, call_misfit, fits_a_mention, fits_old_callers, parameter_names
from graphmemd.graph.successors import successors
from graphmemd.ingest.knowledge.classify import WrittenCall, classify_code, written_call
from graphmemd.ingest.knowledge.model import TargetKind


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("f()", None),  # empty parentheses: a mention
        ("f", None),
        ("f(x)", WrittenCall(1, ())),
        ("httpx.get(..., proxies=...)", WrittenCall(0, ("proxies",), more_positional=True)),
        (":func:`f(a, b=1)`", WrittenCall(1, ("b",))),
        ('f(x, key={"a": 1, "b": (2, 3)})', WrittenCall(1, ("key",))),
        ("f(*args, **kw)", WrittenCall(0, (), more_positional=True, more_keywords=True)),
        ("a == b(c", None),
    ],
)
def test_written_call(text: str, call: WrittenCall | None) -> None:
    assert written_call(text) == call


SIG = "def get(self,url:str,*,proxy:str|None=None,timeout=5,**kw)->Response:"


@pytest.mark.parametrize(
    ("positional", "keywords", "more", "sig", "why"),
    [
        (1, ("proxy",), False, SIG, ""),
        (0, ("anything",), True, SIG, ""),  # **kw takes any keyword
        (0, ("proxies",), True, "def get(url,*,proxy=None):", "no longer takes `proxies`"),
        (2, (), False, "def get(url,*,proxy=None):", "takes 1 positional argument, not 2"),
        (5, (), True, "def get(url,*,proxy=None):", ""),  # `...`: any count
        (1, ("url",), False, "def get(url,*,proxy=None):", "gets `url` twice"),
        (1, ("a",), False, "@staticmethod def s(a,b=2,/,c=3):", "no longer takes `a`"),  # positional-only
        (2, (), False, "@functools.wraps(f)def top(a,*args,key=None):", ""),  # a decorator's parentheses
    ],
)
def test_a_call_binds_to_a_python_signature(
    positional: int, keywords: tuple[str, ...], more: bool, sig: str, why: str
) -> None:
    assert call_misfit(positional, keywords, more, sig) == why
    assert binds(positional, keywords, more, sig) is (why == "")


def test_nothing_to_bind_against_outside_python_functions() -> None:
    assert binds(1, ("x",), False, "class Client(Base):") is None
    assert binds(1, (), False, "func (s *Server) Start(ctx context.Context) error") is None
    assert parameter_names("def get(self,url,*,proxy=None):") == ("url", "proxy")
    assert parameter_names("class X(B):") is None


@pytest.mark.parametrize(
    ("old", "new", "fits"),
    [
        ("def f(a):", "def f(a,b=1)->int:", True),  # a new optional parameter, a return type
        ("def f(a):", "def f(a:int):", True),  # an annotation
        ("def f(a):", "@functools.wraps(g)def f(a):", True),  # a decorator that keeps the signature
        ("def evolve(inst,**changes):", "def evolve(*args,**changes):", True),  # taken by the variadics
        ("def f(a,*,k=1):", "def f(a,**kw):", True),
        ("def f(a,b):", "def f(a,**kw):", False),  # `b` passed by position fails
        ("def get(url,*,proxies=None):", "def get(url,*,proxy=None):", False),  # renamed
        ("def f(a):", "def f(a,b):", False),  # a new required one
        ("def f(a,b):", "def f(b,a):", False),  # reordered
        ("def f(a,b=1):", "def f(a,b):", False),  # made required: a call leaving it out breaks
        ("class C(Base):", "class C(Base,metaclass=M):", True),
    ],
)
def test_a_mention_is_judged_by_whether_old_callers_fit(old: str, new: str, fits: bool) -> None:
    assert fits_old_callers(old, new) is fits


PYTEST_FAIL = ("def fail(reason:str=\"\",pytrace:bool=True,msg:Optional[str]=None)->NoReturn:",
               "def fail(reason:str=\"\",pytrace:bool=True)->NoReturn:")  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "text", "fits"),
    [
        (*PYTEST_FAIL, "call ``pytest.fail`` manually at the end of the ``with`` statement", True),
        (*PYTEST_FAIL, "``pytest.fail`` takes the message as ``msg``", False),  # it names the parameter
        ("def get(url,*,proxies=None):", "def get(url,*,proxy=None):", "`get` fetches one URL", True),
        ("def get(url,*,proxies=None):", "def get(url,*,proxy=None):", "`get` with `proxies`", False),
        ("def f(a,b):", "def f(a):", "`f` does it", False),  # a required one removed: every call breaks
        ("def f(a,b=1):", "def f(a,b):", "`f` does it", False),  # made required
        ("def f(a,b=1):", "def f(b=1,a=0):", "`f` does it", False),  # reordered
        ("def f(a):", "def f(a,b):", "`f` does it", False),  # a new required one
    ],
)
def test_a_mention_is_judged_by_the_parameters_its_text_names(old: str, new: str, text: str, fits: bool) -> None:
    """pytest 8.0 dropped the deprecated ``msg=`` of ``fail`` and ``skip``: its docs name
    ``pytest.fail`` in seven places, none passing ``msg``; each was "suspect"."""
    assert fits_a_mention(old, new, text) is fits


def test_a_deprecation_message_names_the_successor() -> None:
    code = (
        "def __getattr__(name):\n"
        '    if name == "RequestContext":\n'
        "        warnings.warn(\n"
        "            \"'RequestContext' has merged with 'AppContext', and will be removed\"\n"
        "            \" in Flask 4.0. Use 'AppContext' instead.\",\n"
        "            DeprecationWarning,\n"
        "        )\n"
        "        return AppContext\n"
    )
    assert successors(code, "RequestContext") == ["AppContext"]
    assert successors(code, "flask.ctx.RequestContext") == ["AppContext"]
    assert successors(code, "Other") == []  # the message is not about it
    assert successors("x = 1  # use AppContext\n", "RequestContext") == []  # no warning near it


@pytest.mark.parametrize(
    ("text", "target"),
    [(".status_code", ".status_code"), ("def .aiter_lines()", ".aiter_lines"), ("async def .aread()", ".aread")],
)
def test_a_member_written_relative_to_its_section(text: str, target: str) -> None:
    assert classify_code(text) == (TargetKind.SYMBOL, target, 0)


def test_a_bare_literal_is_not_qualified_by_currentmodule() -> None:
    from graphmemd.graph.knowledge_refs import RefIndex
    from graphmemd.graph.model import Language, SymbolInfo, SymbolKind, symbol_id

    def sym(path: str, qualname: str, kind: SymbolKind) -> SymbolInfo:
        return SymbolInfo(
            id=symbol_id("r", path, qualname, kind), repo_id="r", path=path, name=qualname.rsplit(".", 1)[-1],
            qualname=qualname, kind=kind, language=Language.PYTHON, parent_id=None, start_line=1, end_line=2,
            signature="", sig_hash="s", body_hash="b",
        )  # fmt: skip

    symbols = [
        sym("src/click/shell_completion.py", "shell_complete", SymbolKind.FUNCTION),
        sym("src/click/types.py", "ParamType.shell_complete", SymbolKind.METHOD),
        sym("src/click/core.py", "ParamType", SymbolKind.CLASS),
    ]
    index = RefIndex(symbols, {s.path for s in symbols} | {"src/click/__init__.py"})
    # ``shell_complete`` under ``.. currentmodule:: click``: two symbols have the name, no reference
    assert index.resolve_name("shell_complete", "click", literal=True) is None
    # the role is qualified by the module (Sphinx's rule): the module-level function
    found = index.resolve_name("shell_complete", "click", "callable")
    assert found is not None
    assert found.ref == "src/click/shell_completion.py::shell_complete"
