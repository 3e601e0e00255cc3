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


def test_a_name_is_the_symbol_of_that_qualname_before_nested_ones() -> None:
    """``echo`` names the module-level function, not a helper of the same name nested in a test;
    two module-level ones, or only nested ones, are ambiguous: ``named`` lists them."""
    pool = [sym("src/click/utils.py", "echo"), sym("tests/test_prompt.py", "test_prompts_eof.echo")]
    m = close_matches("echo", pool)
    assert m.exact
    assert [s.ref for s in m.named] == ["src/click/utils.py::echo"]
    m = close_matches("echo", [*pool, sym("src/click/termui.py", "echo")])
    assert not m.exact
    assert [s.path for s in m.named] == ["src/click/utils.py", "src/click/termui.py"]
    m = close_matches("push", POOL)
    assert [s.qualname for s in m.named] == ["AppContext.push", "RequestContext.push"]
    assert close_matches("PUSH", POOL).named == ()  # a case-insensitive match names nothing outright


def test_score_is_relevance_times_multipliers_and_stale_ranks_lower() -> None:
    fresh = ranking.components(ranking.Signals(proximity=1.0, cochange=0.5, focus=0.2))
    assert fresh.relevance == pytest.approx(ranking.W_PROXIMITY + 0.5 * ranking.W_COCHANGE + 0.2 * ranking.W_FOCUS)
    assert fresh.file_part == pytest.approx(fresh.relevance)
    assert fresh.text_part == 0.0  # a query without text has no text part
    assert ranking.score(fresh) == pytest.approx(fresh.relevance)
    stale = ranking.components(ranking.Signals(proximity=1.0, cochange=0.5, focus=0.2, status=ranking.STALE_FACTOR))
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


def test_text_only_query_scores_the_text_part() -> None:
    text_only = ranking.Scale(has_file=False, has_text=True)
    s = ranking.Signals(text=0.5, text_proximity=1.0, text_cochange=0.2, proximity=1.0)
    c = ranking.components(s, text_only)
    expected = ranking.W_TEXT * 0.5 + ranking.W_TEXT_PROXIMITY + 0.2 * ranking.W_TEXT_COCHANGE
    assert c.text_part == pytest.approx(expected)
    assert c.file_part == 0.0  # the file part's signals do not count without files
    assert c.relevance == pytest.approx(expected)


def test_breadth_counts_the_other_anchors_shaped_and_weighted() -> None:
    one = ranking.Signals(proximity=1.0)
    five = ranking.Signals(proximity=1.0, breadth=4.0)  # four more anchors, evidence 1.0 each
    w_sum = ranking.Weights(spread=ranking.Spread.SUM, breadth=0.5)
    assert ranking.file_part(five, ranking.Scale(), w_sum) - ranking.file_part(one, ranking.Scale(), w_sum) == (
        pytest.approx(0.5 * 4.0))
    w_sat = ranking.Weights(spread=ranking.Spread.SATURATING, breadth=0.5)
    gain = ranking.file_part(five, ranking.Scale(), w_sat) - ranking.file_part(one, ranking.Scale(), w_sat)
    assert gain == pytest.approx(0.5 * 4.0 / 5.0)  # x / (1 + x): never a whole anchor more
    assert ranking.spread(0.0, ranking.Spread.LOG) == 0.0
    assert ranking.spread(1.0, ranking.Spread.LOG) == pytest.approx(0.693147, abs=1e-6)
    assert ranking.file_part(five, ranking.Scale(), ranking.Weights(breadth=0.0)) == ranking.file_part(
        one, ranking.Scale(), ranking.Weights(breadth=0.0))


def test_fusion_normalises_each_part_by_its_best_and_mixes_them() -> None:
    both = ranking.Scale(has_file=True, has_text=True, best_file=2.0, best_text=0.5)
    w = ranking.Weights(fusion=0.6)
    assert ranking.fuse(2.0, 0.5, both, w) == pytest.approx(1.0)  # best in both parts
    assert ranking.fuse(1.0, 0.0, both, w) == pytest.approx(0.6 * 0.5)
    assert ranking.fuse(0.0, 0.25, both, w) == pytest.approx(0.4 * 0.5)
    # neither part's scale decides: multiplying one part's values changes nothing
    scaled = ranking.Scale(has_file=True, has_text=True, best_file=200.0, best_text=0.5)
    assert ranking.fuse(100.0, 0.0, scaled, w) == pytest.approx(ranking.fuse(1.0, 0.0, both, w))
    # one part only: that part as it is (a file query's order is not rescaled)
    assert ranking.fuse(0.7, 0.0, ranking.Scale(has_file=True), w) == pytest.approx(0.7)
    assert ranking.fuse(0.0, 0.3, ranking.Scale(has_file=False, has_text=True), w) == pytest.approx(0.3)
    # a part with no evidence at all among the candidates drops out
    assert ranking.fuse(0.0, 0.3, ranking.Scale(has_file=True, has_text=True, best_file=0.0, best_text=0.3), w) == (
        pytest.approx(0.4))


def test_fusion_keeps_each_part_order_where_the_other_ties() -> None:
    """With both parts, a candidate ahead in one part and level in the other stays ahead: the
    fused order refines each part's order, it never reverses it."""
    scale = ranking.Scale(has_file=True, has_text=True, best_file=1.0, best_text=1.0)
    for fusion in (0.2, 0.5, 0.8):
        w = ranking.Weights(fusion=fusion)
        assert ranking.fuse(0.9, 0.3, scale, w) > ranking.fuse(0.5, 0.3, scale, w)
        assert ranking.fuse(0.5, 0.9, scale, w) > ranking.fuse(0.5, 0.3, scale, w)


def test_file_context_only_reorders_near_ties_of_the_text() -> None:
    """With both parts, the text is the primary key: a note ahead on the normalised text part by
    more than ``near_tie`` (a quarter of the best at FUSION 0.2) stays ahead even when the other
    has the best file part and it has none; within that band the file context decides."""
    assert ranking.near_tie() == pytest.approx(ranking.FUSION / (1 - ranking.FUSION))
    assert ranking.near_tie() == pytest.approx(0.25)
    scale = ranking.Scale(has_file=True, has_text=True, best_file=1.0, best_text=1.0)
    band = ranking.near_tie()
    for t in (0.3, 0.6, 1.0):
        # ahead on the text by a little more than the band, nothing from the files: stays ahead
        assert ranking.fuse(0.0, t, scale) > ranking.fuse(1.0, t - band - 0.01, scale)
        # ahead by a little less: the note with the best file context passes it
        assert ranking.fuse(0.0, t, scale) < ranking.fuse(1.0, t - band + 0.01, scale)


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


def test_at_the_same_score_a_saved_note_comes_before_a_doc_unit() -> None:
    """A doc unit is re-dated each time its file is read again: "the newer first" put any doc
    paragraph that mentions a function before the note someone saved about it (seen on jinja2:
    ``recall --symbol get_template`` listed three paragraphs, then the constraint saved on it)."""
    same = ranking.components(ranking.Signals(proximity=1.0), ranking.Scale())
    note = ranking.sort_key(ranking.score(same), same, 10.0, "z")
    unit = ranking.sort_key(ranking.score(same), same, 20.0, "a", unit=True)
    assert note < unit
    better = ranking.components(ranking.Signals(proximity=1.0, cochange=0.5), ranking.Scale())
    assert ranking.sort_key(ranking.score(better), better, 0.0, "z", unit=True) < note  # the score first
