"""Candidates collect evidence from every anchor (pure): best anchor per part, the rest summed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from graphmem.types import Anchor, AnchorKind, Category, KnowledgeKind, KnowledgeSource, Observation, ObservationStatus
from graphmemd.retrieval import ranking
from graphmemd.retrieval.candidates import NodeSignals, collect
from graphmemd.retrieval.cosignal import CoSignal


def obs(oid: str) -> Observation:
    return Observation(oid, "r", "note " + oid, Category.OTHER, 0.0, 0.0, ObservationStatus.FRESH)


def test_a_note_keeps_its_best_anchor_and_sums_the_others() -> None:
    wide, narrow = obs("wide"), obs("narrow")
    co = CoSignal(0.4, 4, 10, "a.py")
    signals = {
        "n1": NodeSignals.make(proximity=1.0),
        "n2": NodeSignals.make(cochange=co),
        "n3": NodeSignals.make(proximity=0.36, text_proximity=1.0),
    }
    found = collect({"n1": [wide, narrow], "n2": [wide], "n3": [wide]}, signals)
    w, n = found["wide"], found["narrow"]
    assert w.node == n.node == "n1"  # proximity 1.0 is the best file evidence
    assert w.breadth == pytest.approx(ranking.W_COCHANGE * 0.4 + ranking.W_PROXIMITY * 0.36)
    assert n.breadth == 0.0
    assert w.tnode == "n3"
    assert w.text_breadth == 0.0
    sw = w.signals(1.0, 0.0, False, 1.0)
    assert (sw.proximity, sw.cochange, sw.text_proximity) == (1.0, 0.0, 1.0)
    scale = ranking.Scale()
    assert ranking.file_part(sw, scale) > ranking.file_part(n.signals(1.0, 0.0, False, 1.0), scale)


def test_breadth_counts_only_the_anchors_outside_the_opened_code() -> None:
    """Every function of an opened file is a seed (proximity 1.0): a note on several of them
    collects no breadth for it, only for its anchors elsewhere (the best anchor still counts in
    full, inside or not)."""
    inside = NodeSignals.make(proximity=1.0, outside=False)
    near = NodeSignals.make(proximity=0.6)
    signals = {"f::a": inside, "f::b": inside, "f::c": inside, "g::x": near}
    many, mixed = obs("many"), obs("mixed")
    found = collect({"f::a": [many, mixed], "f::b": [many], "f::c": [many], "g::x": [mixed]}, signals)
    assert found["many"].breadth == 0.0  # three functions of the opened file: no breadth
    assert found["mixed"].breadth == pytest.approx(ranking.W_PROXIMITY * 0.6)  # the anchor elsewhere
    assert found["many"].node == found["mixed"].node == "f::a"
    elsewhere = collect({"g::x": [many], "g::y": [many]}, {"g::x": near, "g::y": near})["many"]
    assert elsewhere.breadth == pytest.approx(ranking.W_PROXIMITY * 0.6)  # best outside: the other counts


def test_ties_between_anchors_resolve_by_node_id_whatever_the_order() -> None:
    o = obs("o")
    same = NodeSignals.make(proximity=0.6)
    a = collect({"b": [o], "a": [o]}, {"a": same, "b": same})["o"]
    b = collect({"a": [o], "b": [o]}, {"a": same, "b": same})["o"]
    assert a.node == b.node == "a"
    assert a.breadth == b.breadth == pytest.approx(ranking.W_PROXIMITY * 0.6)


def test_co_change_evidence_is_carried_to_the_signals() -> None:
    o = obs("o")
    co = CoSignal(0.5, 5, 9, "api.py")
    c = collect({"n": [o]}, {"n": NodeSignals.make(cochange=co, text_cochange=CoSignal(0.2, 1, 4, "x.py"))})["o"]
    s = c.signals(0.5, 10.0, True, 1.0)
    assert (s.cochange, s.together, s.total, s.text_cochange) == (0.5, 5, 9, 0.2)
    assert (s.confidence, s.age_days, s.confirmed) == (0.5, 10.0, True)


def test_the_quick_parts_equal_the_parts_of_the_signals() -> None:
    """``Candidate.parts`` (every candidate, cheaply) and ``ranking.file_part``/``text_part``
    over its ``Signals`` (the top ones, shown as components) are the same numbers."""
    o, p = obs("o"), obs("p")
    signals = {
        "a": NodeSignals.make(proximity=0.6, cochange=CoSignal(0.3, 3, 7, "f"), focus=0.5, centrality=0.4),
        "b": NodeSignals.make(proximity=0.36, text_proximity=1.0, text_cochange=CoSignal(0.1, 1, 9, "g")),
        "c": NodeSignals.make(centrality=1.0, text_proximity=0.6),
    }
    found = collect({"a": [o, p], "b": [o], "c": [o]}, signals)
    for c in found.values():
        c.text, c.pagerank = 0.7, 0.25
        s = c.signals(1.0, 0.0, False, 1.0)
        for has_file, has_text in ((True, False), (False, True), (True, True)):
            scale = ranking.Scale(has_file, has_text)
            assert c.parts(has_file, has_text) == pytest.approx(
                (ranking.file_part(s, scale), ranking.text_part(s, scale))
            )


def test_reach_is_the_noisy_or_of_the_co_change_outside_the_opened_code() -> None:
    """A note's reach: the chance that some anchor outside the seeds and their files changes
    with them, 1 - prod(1 - co-change); an anchor in the opened file adds nothing."""
    wide, inside = obs("wide"), obs("inside")
    signals = {
        "seedfile::f": NodeSignals.make(proximity=1.0, cochange=CoSignal(0.9, 9, 10, "a.py"), outside=False),
        "b::g": NodeSignals.make(cochange=CoSignal(0.5, 5, 10, "a.py")),
        "c::h": NodeSignals.make(cochange=CoSignal(0.2, 2, 10, "a.py")),
        "d::k": NodeSignals.make(proximity=0.6),
    }
    found = collect({"seedfile::f": [wide, inside], "b::g": [wide], "c::h": [wide], "d::k": [wide]}, signals)
    assert found["wide"].reach == pytest.approx(1 - (1 - 0.5) * (1 - 0.2))
    assert found["inside"].reach == 0.0
    s = found["wide"].signals(1.0, 0.0, False, 1.0)
    assert s.reach == pytest.approx(0.6)
    scale = ranking.Scale()
    without = ranking.file_part(s, scale, ranking.Weights(reach=0.0))
    assert ranking.file_part(s, scale) == pytest.approx(without + ranking.W_REACH * 0.6)
    assert found["wide"].parts(True, False)[0] == pytest.approx(ranking.file_part(s, scale))


def unit(
    oid: str, anchors: tuple[tuple[str, float], ...], kind: KnowledgeKind = KnowledgeKind.DOCUMENTATION
) -> Observation:
    """A knowledge unit anchored to symbols ``(id, confidence)``."""
    return replace(
        obs(oid),
        anchors=tuple(
            Anchor(AnchorKind.SYMBOL, sid, "r", sid.split("::")[0], symbol_id=sid, confidence=c) for sid, c in anchors
        ),
        knowledge=KnowledgeSource("docs/x.md", 1, 2, (), kind),
    )


def test_a_units_anchor_counts_by_its_confidence() -> None:
    """A paragraph that says ``app`` in passing (low confidence) collects less from the same
    node than one that names ``flask.app.Flask`` (full), and so does its reach."""
    co = CoSignal(0.5, 5, 10, "app.py")
    s = {"app.py::Flask": NodeSignals.make(proximity=0.6, cochange=co)}
    passing = unit("passing", (("app.py::Flask", 0.3),))
    named = unit("named", (("app.py::Flask", 1.0),))
    note = obs("note")
    found = collect({"app.py::Flask": [passing, named, note]}, s)
    p, n, o = found["passing"], found["named"], found["note"]
    assert n.best_rank == pytest.approx(o.best_rank)
    assert p.best_rank == pytest.approx(0.3 * n.best_rank)
    assert p.reach == pytest.approx(0.3 * 0.5)
    assert n.reach == pytest.approx(0.5)
    assert p.node == "app.py::Flask"  # the anchor still explains it


def test_a_unit_does_not_reach_code_through_imports() -> None:
    """A node reached only through an import: a unit gets no proximity from it (its
    co-change stays); a note still does; a shared note is written about its anchors."""
    s = {"app.py::Flask": NodeSignals.make(proximity=0.35, unit_proximity=0.0)}
    doc, shared, note = (
        unit("doc", (("app.py::Flask", 1.0),)),
        unit("shared", (("app.py::Flask", 1.0),), KnowledgeKind.SHARED_NOTE),
        obs("note"),
    )
    found = collect({"app.py::Flask": [doc, shared, note]}, s)
    assert found["doc"].best_rank == pytest.approx(ranking.W_CENTRALITY * 0.0)
    assert found["shared"].best_rank == pytest.approx(ranking.W_PROXIMITY * 0.35)
    assert found["note"].best_rank == pytest.approx(ranking.W_PROXIMITY * 0.35)


def test_only_a_sure_reference_puts_a_unit_with_the_named_symbols() -> None:
    s = {"f::g": NodeSignals.make(proximity=1.0)}
    sure, passing = unit("sure", (("f::g", 1.0),)), unit("passing", (("f::g", 0.3),))
    found = collect({"f::g": [sure, passing, obs("note")]}, s, frozenset({"f::g"}))
    assert found["sure"].on_query
    assert found["note"].on_query
    assert not found["passing"].on_query


def test_a_unit_is_not_about_each_name_it_uses() -> None:
    """A page of examples naming many functions collects no breadth (``UNIT_BREADTH``); a
    note anchored to the same functions does."""
    near = NodeSignals.make(proximity=0.6)
    s = {"g::x": near, "g::y": near, "g::z": near}
    page = unit("page", (("g::x", 1.0), ("g::y", 1.0), ("g::z", 1.0)))
    note = replace(obs("note"), anchors=page.anchors)
    found = collect({"g::x": [page, note], "g::y": [page, note], "g::z": [page, note]}, s)
    assert found["note"].breadth == pytest.approx(2 * ranking.W_PROXIMITY * 0.6)
    assert found["page"].breadth == pytest.approx(ranking.UNIT_BREADTH * 2 * ranking.W_PROXIMITY * 0.6)
    assert found["page"].best_rank == pytest.approx(found["note"].best_rank)


def test_units_naming_one_node_share_it_and_a_note_never_does() -> None:
    """Jinja's docs name ``Environment`` in dozens of paragraphs: each got the class's whole
    evidence and a note saved on ``Environment.compile_expression`` (a method of the same
    file, less central) came 27th in ``recall --file environment.py``. Beyond ``UNIT_CROWD``
    units, a node's evidence is shared among the units naming it; the note keeps all of it, and
    a unit naming a node few units name keeps all of its own."""
    hub, method = NodeSignals.make(proximity=1.0, centrality=1.0), NodeSignals.make(proximity=1.0, centrality=0.3)
    s = {"env.py::Environment": hub, "env.py::Environment.compile_expression": method}
    crowd = [unit(f"u{i}", (("env.py::Environment", 1.0),)) for i in range(12)]
    alone = unit("alone", (("env.py::Environment.compile_expression", 1.0),))
    note = replace(obs("note"), anchors=alone.anchors)
    hub_note = obs("hub-note")
    found = collect(
        {"env.py::Environment": [*crowd, hub_note], "env.py::Environment.compile_expression": [alone, note]}, s
    )
    share = ranking.unit_share(12)
    assert share == pytest.approx(ranking.UNIT_CROWD / 12)
    assert found["u0"].best_rank == pytest.approx(share * found["hub-note"].best_rank)
    assert found["note"].best_rank == pytest.approx(found["alone"].best_rank)  # few units: not shared
    assert found["note"].best_rank > found["u0"].best_rank
    few = collect({"env.py::Environment": [*crowd[: ranking.UNIT_CROWD], hub_note]}, s)
    assert few["u0"].best_rank == pytest.approx(few["hub-note"].best_rank)


def test_a_unit_that_only_names_code_is_no_candidate() -> None:
    """An autodoc directive, its ``:members:`` list or a directive's line alone says nothing of
    the code it names: a recall does not rank it (seen on jinja2: a members list of five
    methods ranked first for a file it does not name); the paragraph beside it is kept."""

    def unit(oid: str, text: str) -> Observation:
        src = KnowledgeSource("docs/api.rst", 3, 3, (), KnowledgeKind.DOCUMENTATION)
        return replace(obs(oid), text=text, knowledge=src)

    units = [
        unit("members", ":members: from_string, get_template"),
        unit("autodoc", ".. autofunction:: jinja2.get_template"),
        unit("bare", ".. function:: get_template"),
        unit("prose", "Use :meth:`get_template` to load a template by name."),
    ]
    note = replace(obs("note"), text=":members: a note may say anything")  # saved by someone: kept
    found = collect({"n": [*units, note]}, {"n": NodeSignals.make(proximity=1.0)})
    assert sorted(found) == ["note", "prose"]
    # a section heading is a label for the passages under it (Sphinx's page titles)
    title = KnowledgeSource("docs/api.rst", 1, 1, (), KnowledgeKind.DOCUMENTATION, heading=True)
    heading = replace(obs("title"), text=":mod:`jinja2.loaders` -- Loaders", knowledge=title)
    assert sorted(collect({"n": [heading, units[-1]]}, {"n": NodeSignals.make(proximity=1.0)})) == ["prose"]
