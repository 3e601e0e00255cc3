"""Pure parts of retrieval: the fused score and its order, and close matches for short references."""

from __future__ import annotations

import pytest
from graphmemd.graph.model import Language, SymbolInfo, SymbolKind
from graphmemd.graph.symbol_match import close_matches
from graphmemd.retrieval import ranking


def sym(path: str, qualname: str, kind: SymbolKind = SymbolKind.FUNCTION) -> SymbolInfo:
    name = qualname.rsplit(".", 1)[-1]
    return SymbolInfo(f"r:{path}::{qualname}#{kind.value}", "r", path, name, qualname, kind, Language.PYTHON,
                      None, 1, 2, "", "", "")


POOL = [
    sym("app/auth/crypto.py", "hash_password"),
    sym("app/legacy/crypto.py", "hash_password_v1"),
    sym("src/flask/ctx.py", "AppContext.push", SymbolKind.METHOD),
    sym("src/flask/ctx.py", "RequestContext.push", SymbolKind.METHOD),
    sym("src/flask/ctx.py", "AppContext", SymbolKind.CLASS),
]


def test_close_matches_tiers() -> None:
    m = close_matches("hash_password", POOL)
    assert m.exact
    assert m.symbols[0].ref == "app/auth/crypto.py::hash_password"
    m = close_matches("AppContext.push", POOL)
    assert m.exact
    assert m.symbols[0].qualname == "AppContext.push"
    m = close_matches("push", POOL)  # two methods named push: not exact, both listed
    assert not m.exact
    assert {s.qualname for s in m.symbols[:2]} == {"AppContext.push", "RequestContext.push"}
    m = close_matches("crypto.py::hash_password", POOL)
    assert m.exact
    assert m.symbols[0].path == "app/auth/crypto.py"
    m = close_matches("hash_pasword", POOL)
    assert not m.exact
    assert m.symbols[0].name == "hash_password"
    assert close_matches("zzzz", POOL).symbols == ()
    assert close_matches("  ", POOL).symbols == ()


def test_score_is_relevance_times_multipliers_and_stale_ranks_lower() -> None:
    fresh = ranking.components(ranking.Signals(proximity=1.0, cochange=0.5, text=0.2))
    assert fresh.relevance == pytest.approx(ranking.W_PROXIMITY + 0.5 * ranking.W_COCHANGE + 0.2 * ranking.W_TEXT)
    assert ranking.score(fresh) == pytest.approx(fresh.relevance)
    stale = ranking.components(ranking.Signals(proximity=1.0, cochange=0.5, text=0.2, status=ranking.STALE_FACTOR))
    assert ranking.score(stale) == pytest.approx(fresh.relevance * ranking.STALE_FACTOR)
    old = ranking.components(ranking.Signals(proximity=1.0, age_days=400))
    assert old.recency == ranking.RECENCY_FLOOR
    assert ranking.recency(10) == 1.0
    assert 0.8 < ranking.recency(200) < 1.0
    confirmed = ranking.components(ranking.Signals(proximity=1.0, confirmed=True))
    assert confirmed.confirmation == ranking.CONFIRMED_BONUS
    assert ranking.focus(0) == 1.0
    assert ranking.focus(40) == pytest.approx(0.5)
    assert ranking.centrality(0) == 0.0
    assert ranking.centrality(10_000) == 1.0
    assert ranking.SUSPECT_FACTOR < 1.0


def test_ties_break_on_components_then_recency_then_text_never_an_id() -> None:
    a = ranking.components(ranking.Signals(proximity=0.6))
    b = ranking.components(ranking.Signals(cochange=0.6 * ranking.W_PROXIMITY / ranking.W_COCHANGE))
    assert ranking.score(a) == pytest.approx(ranking.score(b))
    ka = ranking.sort_key(ranking.score(a), a, 10.0, "z")
    kb = ranking.sort_key(ranking.score(a), b, 10.0, "a")
    assert ka < kb  # same score and relevance: more proximity first
    same = ranking.components(ranking.Signals(proximity=0.6))
    newer = ranking.sort_key(ranking.score(same), same, 20.0, "z")
    older = ranking.sort_key(ranking.score(same), same, 10.0, "a")
    assert newer < older


def test_pagerank_restarts_on_seeds() -> None:
    succ = {"s": {"a"}, "a": {"s", "b"}, "b": {"a"}, "x": set()}
    pr = ranking.pagerank(succ, ["s"])
    assert pr["s"] > pr["b"]
    assert pr["a"] > pr["b"]  # a sits between the seed and b
    assert pr["x"] == 0.0
