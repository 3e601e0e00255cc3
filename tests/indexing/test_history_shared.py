"""The answers of git's history kept for a repository's checkouts (``history_shared``): pure."""

from __future__ import annotations

from graphmemd.graph.model import ParsedFile, ParsedSymbol, SymbolKind, symbols_of
from graphmemd.indexing.history_shared import Kept, OldParse, SharedHistory, scope


def test_kept_holds_its_last_used_items() -> None:
    kept: Kept[str, int] = Kept(2)
    kept["a"], kept["b"] = 1, 2
    assert kept["a"] == 1  # (used: "b" is now the oldest)
    kept["c"] = 3
    assert sorted(kept) == ["a", "c"]
    assert "b" not in kept
    assert len(kept) == 2


def test_each_repository_sees_its_own_answers_within_one_bound() -> None:
    shared = SharedHistory(parses=2)
    one, two = shared.of(scope("/r/.git", "")), shared.of(scope("/r/.git", "sub/"))
    parse = OldParse("r-1", (), (), {})
    one.parses["b1:x.py"] = parse
    assert "b1:x.py" not in two.parses  # (a folder registered inside sees other paths)
    two.parses["b2:x.py"] = parse
    two.parses["b3:x.py"] = parse
    assert len(shared) == 2
    assert "b1:x.py" not in one.parses  # (the oldest of all repositories' went first)
    assert list(two.parses) == ["b2:x.py", "b3:x.py"]


def test_an_old_parse_is_read_with_the_ids_of_the_checkout_asking() -> None:
    parsed = ParsedFile(
        path="m.py",
        language="python",
        symbols=(
            ParsedSymbol("C", "C", SymbolKind.CLASS, None, 1, 4, 0, 40, "class C:", "s1", "b1"),
            ParsedSymbol("f", "C.f", SymbolKind.METHOD, "C", 2, 4, 10, 40, "def f(self):", "s2", "b2"),
        ),
    )
    old = OldParse("main-1", tuple(symbols_of("main-1", parsed)), (), {})
    assert old.symbols_for("main-1") == list(old.symbols)
    theirs = old.symbols_for("wt-2")
    assert theirs == symbols_of("wt-2", parsed)
    assert theirs[1].parent_id == theirs[0].id
    assert theirs[1].id.startswith("wt-2:")
