"""``RecentSymbols``: what a checkout's recent deltas removed and added, kept for a window."""

from __future__ import annotations

from graphmemd.graph.model import ChangeKind, SymbolChange, SymbolKind, SymbolState, symbol_id
from graphmemd.graph.recent import LIMIT, WINDOW_S, RecentSymbols


def sym(path: str, name: str, body: str = "b") -> SymbolState:
    return SymbolState(symbol_id("r", path, name, SymbolKind.FUNCTION), path, name, SymbolKind.FUNCTION,
                       f"def {name}()", "s", body)


def test_a_delta_s_removals_and_additions_are_kept_for_a_window() -> None:
    r = RecentSymbols()
    gone, new = sym("a.py", "f"), sym("b.py", "g")
    r.record([SymbolChange(ChangeKind.REMOVED, gone, None), SymbolChange(ChangeKind.ADDED, None, new)],
             ["a.py", "b.py"], now=100.0)
    assert r.candidates(100.0 + WINDOW_S) == ([gone], [new])
    assert r.candidates(100.0 + WINDOW_S + 0.1) == ([], [])


def test_what_a_delta_paired_or_parsed_again_is_dropped() -> None:
    r = RecentSymbols()
    gone, new, other = sym("a.py", "f"), sym("b.py", "g"), sym("c.py", "h")
    r.record([SymbolChange(ChangeKind.REMOVED, gone, None), SymbolChange(ChangeKind.ADDED, None, new),
              SymbolChange(ChangeKind.ADDED, None, other)], ["a.py", "b.py", "c.py"], now=1.0)
    moved = sym("d.py", "f")
    r.record([SymbolChange(ChangeKind.RENAMED, gone, moved)], ["d.py"], now=2.0)  # the move completed
    assert r.candidates(2.0) == ([], [new, other])
    r.record([], ["b.py"], now=3.0)  # b.py parsed again: the graph holds it as it is now
    assert r.candidates(3.0) == ([], [other])
    r.record([SymbolChange(ChangeKind.REMOVED, other, None)], ["c.py"], now=4.0)  # added, then removed
    assert r.candidates(4.0) == ([other], [])
    r.record([SymbolChange(ChangeKind.ADDED, None, other)], ["c.py"], now=5.0)  # and back
    assert r.candidates(5.0) == ([], [other])
    r.clear()
    assert r.candidates(5.0) == ([], [])


def test_at_most_limit_are_kept_the_newest() -> None:
    r = RecentSymbols()
    many = [sym(f"m{i}.py", f"f{i}") for i in range(LIMIT + 5)]
    r.record([SymbolChange(ChangeKind.REMOVED, s, None) for s in many], [s.path for s in many], now=1.0)
    removed, _ = r.candidates(1.0)
    assert removed == many[5:]
