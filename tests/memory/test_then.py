"""The pure core that picks the version of a symbol a note was anchored to (``memory/then.py``)."""

from __future__ import annotations

from graphmemd.graph.model import Language, SymbolInfo, SymbolKind
from graphmemd.memory.then import Wanted, lines_of, pick_version, split_symbol_id


def sym(qualname: str, sig: str, body: str, kind: SymbolKind = SymbolKind.FUNCTION) -> SymbolInfo:
    return SymbolInfo(
        id=f"r:a.py::{qualname}#{kind.value}",
        repo_id="r",
        path="a.py",
        name=qualname.rsplit(".", 1)[-1],
        qualname=qualname,
        kind=kind,
        language=Language.PYTHON,
        parent_id=None,
        start_line=1,
        end_line=2,
        signature="def f():",
        sig_hash=sig,
        body_hash=body,
    )


def test_the_version_with_the_anchored_fingerprints_wins() -> None:
    now = sym("f", "s1", "b3")
    versions = [[now], [sym("f", "s1", "b2"), sym("g", "s1", "b1")], [sym("f", "s1", "b1")]]
    found = pick_version(Wanted("f", "function", "s1", "b1"), versions, now)
    assert found is not None
    assert (found.index, found.exact) == (2, True)


def test_no_exact_version_falls_back_to_the_newest_that_differs_from_now() -> None:
    now = sym("f", "s1", "b3")
    versions = [[now], None, [sym("f", "s1", "b2")], [sym("f", "s0", "b1")]]
    found = pick_version(Wanted("f", "function", "s9", "b9"), versions, now)
    assert found is not None
    assert (found.index, found.exact) == (2, False)
    assert pick_version(Wanted("f", "function", "s9", "b9"), [[now]], now) is None


def test_kind_and_signature_only() -> None:
    cls = sym("f", "s1", "b1", SymbolKind.CLASS)
    assert pick_version(Wanted("f", "function", "s1"), [[cls]], None) is None
    found = pick_version(Wanted("f", "class", "s1"), [[sym("f", "s1", "zz", SymbolKind.CLASS)]], None)
    assert found is not None
    assert found.exact  # no body hash wanted: the signature decides (a dependency)


def test_split_symbol_id_and_lines() -> None:
    assert split_symbol_id("repo1:app/a.py::A.f#method") == ("app/a.py", "A.f", "method")
    assert split_symbol_id("repo1:app/a.py") == ("", "", "")
    assert lines_of(b"one\ntwo\nthree\n", 2, 3) == "two\nthree"
    assert lines_of(b"x\xff\n", 1, 1) == "x\ufffd"
    assert lines_of(b"x", 0, 1) == ""


def test_a_renamed_symbol_is_matched_on_its_body_alone() -> None:
    found = pick_version(Wanted("f", "function", "", "b1"), [[sym("f", "s-old-name", "b1")]], None)
    assert found is not None
    assert found.exact
