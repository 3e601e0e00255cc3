"""Grading units of knowledge files (pure): a reference's state from the anchor as written
and the code now, the unit's status, the CheckKnowledge answer, and the document codec."""

from __future__ import annotations

from dataclasses import replace

from graphmem.types import (
    Anchor,
    AnchorKind,
    ChangeKind,
    HistoryEvent,
    HistoryKind,
    KnowledgeKind,
    Observation,
    ObservationStatus,
    ReferenceState,
    StaleReason,
)
from graphmemd.graph.model import Language, SymbolInfo, SymbolKind, symbol_id
from graphmemd.ingest.knowledge.model import CallShape, RefKind, Span, TargetKind, TextRef, Unit, UnitKind
from graphmemd.memory.anchors import symbol_anchor
from graphmemd.memory.knowledge import (
    GRADING_CONFIDENCE,
    PASSING_CONFIDENCE,
    RefFinding,
    UnitFinding,
    check_references,
    first_seen,
    grade,
    ref_confidence,
    unit_observation,
)
from graphmemd.memory.obsdoc import from_doc, to_doc


def _sym(
    qualname: str, sig: str, sig_hash: str = "s1", body: str = "b1", kind: SymbolKind = SymbolKind.FUNCTION
) -> SymbolInfo:
    return SymbolInfo(
        id=symbol_id("r", "app/x.py", qualname, kind),
        repo_id="r",
        path="app/x.py",
        name=qualname.rsplit(".", 1)[-1],
        qualname=qualname,
        kind=kind,
        language=Language.PYTHON,
        parent_id=None,
        start_line=1,
        end_line=3,
        signature=sig,
        sig_hash=sig_hash,
        body_hash=body,
    )


class Code:
    """The code now: symbols by id (a file's fingerprint is not needed here)."""

    def __init__(self, *symbols: SymbolInfo) -> None:
        self.symbols = {s.id: s for s in symbols}

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        return self.symbols.get(symbol_id)

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        return "fp"


F = _sym("f", "def f(a):")
CLS = _sym("C", "class C:", kind=SymbolKind.CLASS)


def _unit_obs(
    anchors: list[tuple[str, Anchor]],
    kind: KnowledgeKind = KnowledgeKind.DOCUMENTATION,
    reasons: tuple[StaleReason, ...] = (),
) -> Observation:
    refs = tuple(
        RefFinding(
            TextRef(RefKind.CODE, TargetKind.SYMBOL, text, text, Span(3, 5 + 10 * i, 3, 5 + 10 * i + len(text))),
            a,
            reasons,
        )
        for i, (text, a) in enumerate(anchors)
    )
    unit = Unit(UnitKind.PARAGRAPH, 3, 4, ("Guide",), " ".join(t for t, _ in anchors))
    return unit_observation("r", "docs/a.md", kind, UnitFinding(unit, "0123456789abcdef", refs), None, 100.0)


def test_unchanged_code_is_fresh() -> None:
    o = grade(_unit_obs([("f", symbol_anchor(F))]), Code(F), 200.0, "")
    assert o.status is ObservationStatus.FRESH
    assert [r.state for r in o.references] == [ReferenceState.OK]
    assert o.knowledge is not None
    assert o.knowledge.path == "docs/a.md"
    assert o.knowledge.heading_path == ("Guide",)


def test_a_mention_is_suspect_when_old_callers_break_and_changed_when_they_fit() -> None:
    broken = replace(F, signature="def f(a,b):", sig_hash="s2")
    o = grade(_unit_obs([("f", symbol_anchor(F))]), Code(broken), 200.0, "")
    assert o.status is ObservationStatus.SUSPECT
    (ref,) = o.references
    assert ref.state is ReferenceState.SUSPECT
    assert ref.reason == "`f`: parameter `b` added (required), uncommitted"
    assert (ref.old_signature, ref.new_signature) == ("def f(a)", "def f(a, b)")
    widened = replace(F, signature="def f(a:int,b=1)->int:", sig_hash="s3")
    o = grade(_unit_obs([("f", symbol_anchor(F))]), Code(widened), 200.0, "")
    assert o.status is ObservationStatus.FRESH  # old callers still fit: nothing to act on
    assert o.references[0].state is ReferenceState.CHANGED
    assert o.references[0].reason.startswith("`f`: parameter `b` added (optional")


def test_a_call_written_with_arguments_is_bound_against_the_current_signature() -> None:
    g = _sym("get", "def get(url,*,proxies=None,timeout=5):")
    now = replace(g, signature="def get(url,*,proxy=None,timeout=5):", sig_hash="s2")
    for text, state in (
        ("get(..., proxies=...)", ReferenceState.STALE),  # a keyword it no longer takes
        ("get(url, timeout=1)", ReferenceState.CHANGED),  # still binds: nothing to act on
        ("get(a, b)", ReferenceState.STALE),  # too many positionals
        ("get()", ReferenceState.CHANGED),  # empty parentheses: a mention, and it names no `proxies`
        ("get() proxies", ReferenceState.SUSPECT),  # a mention in a text that speaks of `proxies`
    ):
        o = grade(_unit_obs([(text, symbol_anchor(g))]), Code(now), 200.0, "")
        assert o.references[0].state is state, text
    o = grade(_unit_obs([("get(..., proxies=...)", symbol_anchor(g))]), Code(now), 200.0, "")
    assert o.status is ObservationStatus.STALE
    assert o.references[0].reason == (
        "`get` no longer takes `proxies`: parameter `proxies` renamed to `proxy`, uncommitted"
    )


def test_body_change_is_nothing_for_a_mention_stale_for_a_shared_note() -> None:
    changed = replace(F, body_hash="b2")
    doc = grade(_unit_obs([("f", symbol_anchor(F))]), Code(changed), 200.0, "")
    assert doc.status is ObservationStatus.FRESH
    assert doc.references[0].state is ReferenceState.CHANGED
    note = grade(_unit_obs([("f", symbol_anchor(F))], KnowledgeKind.SHARED_NOTE), Code(changed), 200.0, "")
    assert note.status is ObservationStatus.STALE
    assert note.references[0].state is ReferenceState.STALE


def test_a_class_mentioned_in_passing_ignores_changes_inside_it() -> None:
    o = grade(_unit_obs([("C", symbol_anchor(CLS))]), Code(replace(CLS, body_hash="b9")), 200.0, "")
    assert o.status is ObservationStatus.FRESH


def test_removed_and_renamed_references_are_dangling() -> None:
    gone = grade(_unit_obs([("f", symbol_anchor(F))]), Code(), 200.0, "")
    assert gone.status is ObservationStatus.STALE
    assert gone.references[0].state is ReferenceState.DANGLING
    # a name gone whose commit history did not find (removed in a merge) names no commit, and
    # is not "uncommitted": only a removal flagged so (HEAD still has it) is
    assert gone.references[0].reason == "`f` removed"
    live = StaleReason(F.ref, ChangeKind.REMOVED, 150.0, F.signature, uncommitted=True)
    flagged = grade(_unit_obs([("f", symbol_anchor(F))], reasons=(live,)), Code(), 200.0, "")
    assert flagged.references[0].reason == "`f` removed, uncommitted"
    g = _sym("g", "def g(a):")
    renamed = StaleReason(F.ref, ChangeKind.RENAMED, 150.0, F.signature, g.signature, g.ref, "c0ffee1234", "")
    o = grade(_unit_obs([("f", symbol_anchor(g))], reasons=(renamed,)), Code(g), 200.0, "")
    (ref,) = o.references
    assert (ref.state, ref.renamed_to, ref.commit, ref.target_ref) == (
        ReferenceState.DANGLING,
        g.ref,
        "c0ffee1234",
        F.ref,
    )
    assert ref.reason == "`f` renamed to `g` in c0ffee1"


def test_check_lists_what_is_not_ok_in_file_order_with_close_matches() -> None:
    bad = grade(_unit_obs([("f", symbol_anchor(F)), ("C", symbol_anchor(CLS))]), Code(CLS), 200.0, "")
    found = check_references([bad], 1, lambda name: (f"app/x.py::{name}2",))
    assert (found.files_checked, found.units, found.references_checked) == (1, 1, 2)
    (ref,) = found.references
    assert (ref.text, ref.line, ref.column, ref.state) == ("f", 3, 5, ReferenceState.DANGLING)
    assert ref.close_matches == ("app/x.py::f2",)
    assert ref.observation_id == "0123456789abcdef"


def test_document_round_trip_keeps_source_and_references() -> None:
    o = grade(_unit_obs([("f", symbol_anchor(F))]), Code(replace(F, body_hash="b2")), 200.0, "")
    assert from_doc(to_doc(o)) == o


def test_a_unit_read_again_keeps_its_history() -> None:
    first = _unit_obs([("f", symbol_anchor(F))])
    recorded = replace(first, history=(HistoryEvent(HistoryKind.CREATED, 100.0, "graphmem"),))
    unit = Unit(UnitKind.PARAGRAPH, 3, 4, ("Guide",), "f")
    ref = RefFinding(TextRef(RefKind.CODE, TargetKind.SYMBOL, "f", "f", Span(3, 5, 3, 6)), symbol_anchor(F), ())
    again = unit_observation(
        "r", "docs/a.md", KnowledgeKind.DOCUMENTATION, UnitFinding(unit, "0123456789abcdef", (ref,)), recorded, 200.0
    )
    assert again.history == recorded.history  # the book extends it; a read alone changes nothing


def test_anchors_carry_the_confidence_of_the_surest_reference() -> None:
    """A bare literal or a file mentioned in passing anchors with ``PASSING_CONFIDENCE``; a
    qualified name, a role, a name an example imports: full. Two references to one anchor: the
    surer counts. The confidence survives the store's document."""
    a = symbol_anchor(F)
    bare = _unit_obs([("f", a)])
    assert [x.confidence for x in bare.anchors] == [PASSING_CONFIDENCE]
    both = _unit_obs([("f", a), ("app.x.f", a)])
    assert [x.confidence for x in both.anchors] == [1.0]
    span = Span(1, 1, 1, 2)
    assert ref_confidence(TextRef(RefKind.ROLE, TargetKind.SYMBOL, ":func:`f`", "f", span, role="func"), a) == 1.0
    assert ref_confidence(TextRef(RefKind.EXAMPLE, TargetKind.SYMBOL, "f", "app.x.f", span), a) == 1.0
    module = Anchor(AnchorKind.FILE, "app/x.py", "r", "app/x.py")
    assert (
        ref_confidence(TextRef(RefKind.CODE, TargetKind.SYMBOL, "app.x", "app.x", span), module) == PASSING_CONFIDENCE
    )
    # a module a role or a directive names is named on purpose (Sphinx's ":mod:`sphinx.ext.napoleon`"
    # paragraphs came below paragraphs about the functions napoleon's setup calls)
    role = TextRef(RefKind.ROLE, TargetKind.SYMBOL, ":mod:`app.x`", "app.x", span, role="mod")
    assert ref_confidence(role, module) == 1.0
    directive = TextRef(RefKind.DIRECTIVE, TargetKind.SYMBOL, ".. module:: app.x", "app.x", span)
    assert ref_confidence(directive, module) == 1.0
    path = TextRef(RefKind.LINK, TargetKind.PATH, "[x](app/x.py)", "app/x.py", span)
    assert ref_confidence(path, module) == PASSING_CONFIDENCE
    assert from_doc(to_doc(bare)) == bare


def test_a_long_change_says_what_breaks_in_one_line_with_the_commit() -> None:
    """click's ``shell_complete`` gained a required parameter and six annotations: the line
    says the parameter and folds the annotations (it was cut at 160 characters, the
    required parameter's words among the types)."""
    old = _sym("shell_complete", "def shell_complete(cli,ctx_args,prog_name,complete_var,instruction):")
    now = replace(
        old,
        signature="def shell_complete(cli:Command,ctx_args:cabc.MutableMapping[str,t.Any],prog_name:str,"
        "complete_var:str,instruction:str,extra_settings:dict[str,t.Any])->int:",
        sig_hash="s9",
    )
    reason = StaleReason(
        old.ref, ChangeKind.SIGNATURE_CHANGED, 150.0, old.signature, now.signature, commit="8981a95abc"
    )
    o = grade(
        _unit_obs([("click.shell_completion.shell_complete", symbol_anchor(old))], reasons=(reason,)),
        Code(now),
        200.0,
        "",
    )
    (ref,) = o.references
    assert ref.state is ReferenceState.SUSPECT
    assert len(ref.reason) <= 160
    assert ref.reason == (
        "`click.shell_completion.shell_complete`: parameter `extra_settings` added (required), "
        "annotations changed in 8981a95"
    )


def test_a_code_example_call_is_bound_by_its_shape() -> None:
    """A name a code example calls (``get(url, proxies=p)``: its ``CallShape``) is bound against
    the signature now: a keyword the function no longer takes is STALE, saying which; the same
    call with a keyword it still takes is only CHANGED. The shape survives the journal document."""
    old = _sym("get", "def get(url,*,proxies=None,timeout=5):")
    now = replace(old, signature="def get(url,*,timeout=5):", sig_hash="s2")
    reason = StaleReason(old.ref, ChangeKind.SIGNATURE_CHANGED, 150.0, old.signature, now.signature, commit="c0ffee1")

    def example(*keywords: str) -> Observation:
        span = Span(5, 1, 5, 4)
        ref = TextRef(RefKind.EXAMPLE, TargetKind.SYMBOL, "get", "app.x.get", span, call=CallShape(keywords, 1))
        unit = Unit(UnitKind.EXAMPLE, 5, 5, ("Guide",), "get(url, ...)")
        f = UnitFinding(unit, "0123456789abcdef", (RefFinding(ref, symbol_anchor(old), (reason,)),))
        o = unit_observation("r", "docs/a.md", KnowledgeKind.DOCUMENTATION, f, None, 100.0)
        return grade(o, Code(now), 200.0, "")

    (stale,) = example("proxies").references
    assert (stale.state, stale.call) == (ReferenceState.STALE, "get(_, proxies=_)")
    assert "`get` no longer takes `proxies`" in stale.reason
    (fits,) = example("timeout").references
    assert fits.state is ReferenceState.CHANGED
    o = example("proxies")
    assert from_doc(to_doc(o)) == o


def test_a_called_class_is_graded_by_its_constructor_and_ranked_by_the_class() -> None:
    """``Client(url, retries=2)``: the unit is anchored to the class at the reference's
    confidence (what recall ranks it by) and to its constructor at ``GRADING_CONFIDENCE``;
    the constructor losing ``retries`` makes the call STALE in the class's name."""
    cls = _sym("Client", "class Client(Base):", kind=SymbolKind.CLASS)
    init = _sym("Client.__init__", "def __init__(self,url,*,retries=3):", kind=SymbolKind.METHOD)
    now = replace(init, signature="def __init__(self,url):", sig_hash="s2")
    reason = StaleReason(init.ref, ChangeKind.SIGNATURE_CHANGED, 150.0, init.signature, now.signature, commit="c0ffee1")
    text = "`Client(url, retries=2)`"
    ref = TextRef(RefKind.CODE, TargetKind.SYMBOL, text, "Client", Span(2, 1, 2, len(text) + 1))
    finding = RefFinding(ref, symbol_anchor(init), (reason,), named=symbol_anchor(cls))
    unit = Unit(UnitKind.PARAGRAPH, 2, 2, ("Guide",), f"Make one with {text}.")
    o = unit_observation(
        "r", "docs/a.md", KnowledgeKind.DOCUMENTATION, UnitFinding(unit, "0123456789abcdef", (finding,)), None, 100.0
    )
    assert {a.ref: a.confidence for a in o.anchors} == {init.ref: GRADING_CONFIDENCE, cls.ref: PASSING_CONFIDENCE}
    (r,) = grade(o, Code(cls, now), 200.0, "").references
    assert r.state is ReferenceState.STALE
    assert r.target_ref == init.ref
    assert r.reason == "`Client` no longer takes `retries`: parameter `retries` removed in c0ffee1"


def test_an_example_call_with_no_arguments_is_bound() -> None:
    """``y = attr.ib()`` in a code example is a call with no arguments (in prose, ``ib()`` is
    a mention, SUSPECT when a parameter is removed): it is bound, and a call leaving arguments
    out is not asked for them, so it still fits (CHANGED) whatever parameters change."""
    old = _sym("ib", "def ib(default=None,convert=None):")

    def example(new_sig: str) -> ReferenceState:
        now = replace(old, signature=new_sig, sig_hash="s2")
        reason = StaleReason(
            old.ref, ChangeKind.SIGNATURE_CHANGED, 150.0, old.signature, now.signature, commit="c0ffee1"
        )
        ref = TextRef(RefKind.EXAMPLE, TargetKind.SYMBOL, "attr.ib", "attr.ib", Span(5, 9, 5, 16), call=CallShape())
        unit = Unit(UnitKind.EXAMPLE, 5, 5, ("Guide",), "y = attr.ib()")
        f = UnitFinding(unit, "0123456789abcdef", (RefFinding(ref, symbol_anchor(old), (reason,)),))
        o = unit_observation("r", "docs/a.rst", KnowledgeKind.DOCUMENTATION, f, None, 100.0)
        (r,) = grade(o, Code(now), 200.0, "").references
        assert r.call == "ib()"
        return r.state

    assert example("def ib(default=None):") is ReferenceState.CHANGED
    assert example("def ib(name,default=None):") is ReferenceState.CHANGED


def test_a_name_still_served_with_a_warning_is_deprecated_suspect_and_survives_grading() -> None:
    hook = _sym("__getattr__", "def __getattr__(name):")
    served = StaleReason(
        F.ref, ChangeKind.DEPRECATED, 150.0, F.signature, new_ref="pkg.streams.open_stream", commit="0511725abc",
        detail="", served_by="pkg.__getattr__",
    )  # fmt: skip
    o = grade(_unit_obs([("f", symbol_anchor(hook))], reasons=(served,)), Code(hook), 200.0, "")
    assert o.status is ObservationStatus.SUSPECT
    (ref,) = o.references
    assert (ref.state, ref.target_ref, ref.renamed_to, ref.commit) == (
        ReferenceState.SUSPECT, F.ref, "", "0511725abc",
    )  # fmt: skip
    assert ref.reason == (
        "`f` is deprecated: `pkg.__getattr__` still serves it, with a warning, since 0511725; "
        "use `pkg.streams.open_stream`"
    )
    again = grade(o, Code(replace(hook, body_hash="b2")), 300.0, "")  # the hook changed: still deprecated
    assert again.references[0].state is ReferenceState.SUSPECT
    assert from_doc(to_doc(o)).stale_reasons == o.stale_reasons  # served_by is kept by the journal


def test_a_gone_name_in_a_sentence_that_says_it_is_old_is_historical() -> None:
    def unit(text: str) -> Observation:
        at = text.index("`f`")
        ref = TextRef(RefKind.CODE, TargetKind.SYMBOL, "f", "f", Span(3, at + 2, 3, at + 3))
        u = Unit(UnitKind.PARAGRAPH, 3, 3, ("Guide",), text)
        found = UnitFinding(u, "0123456789abcdef", (RefFinding(ref, symbol_anchor(F)),))
        return unit_observation("r", "docs/a.md", KnowledgeKind.DOCUMENTATION, found, None, 100.0)

    old = grade(unit("The `f` function was removed in favor of `g`."), Code(), 200.0, "")
    assert old.status is ObservationStatus.FRESH  # asks for nothing
    assert (old.references[0].state, old.references[0].reason) == (ReferenceState.CHANGED, "historical: `f` removed")
    assert from_doc(to_doc(old)).references[0].historical
    plain = grade(unit("Call `f` to start. It was deprecated in 2010."), Code(), 200.0, "")
    assert plain.references[0].state is ReferenceState.DANGLING  # another sentence says so
    assert plain.status is ObservationStatus.STALE


def test_a_deprecated_name_an_autodoc_directive_documents_asks_for_nothing() -> None:
    """click's API reference keeps ``.. autoclass:: BaseCommand`` while ``click.__getattr__``
    serves it with a warning: the page is the class's docstring and still builds, so it is
    changed ("autodoc: …"), not a deprecated finding; the same name in prose still is."""
    hook = _sym("__getattr__", "def __getattr__(name):")
    reason = StaleReason(F.ref, ChangeKind.DEPRECATED, 150.0, F.signature, new_ref="pkg.Command",
                         commit="9dd1207abc", served_by="pkg.__getattr__")  # fmt: skip

    def unit(text: str, kind: UnitKind) -> Observation:
        at = text.index("f")
        ref = TextRef(RefKind.DIRECTIVE if kind is UnitKind.DIRECTIVE else RefKind.CODE, TargetKind.SYMBOL, "f", "f",
                      Span(3, at + 1, 3, at + 2), role="autoclass" if kind is UnitKind.DIRECTIVE else "")  # fmt: skip
        found = UnitFinding(
            Unit(kind, 3, 3, ("API",), text), "0123456789abcdef", (RefFinding(ref, symbol_anchor(hook), (reason,)),)
        )
        return unit_observation("r", "docs/api.rst", KnowledgeKind.DOCUMENTATION, found, None, 100.0)

    auto = grade(unit(".. autoclass:: f", UnitKind.DIRECTIVE), Code(hook), 200.0, "")
    (ref,) = auto.references
    assert ref.state is ReferenceState.CHANGED
    assert not ref.deprecated
    assert ref.reason.startswith("autodoc: `f` is deprecated: ")
    assert auto.status is ObservationStatus.FRESH
    prose = grade(unit("Subclass f for a command.", UnitKind.PARAGRAPH), Code(hook), 200.0, "")
    assert (prose.references[0].state, prose.references[0].deprecated) == (ReferenceState.SUSPECT, True)


def test_a_unit_read_again_keeps_the_time_each_reason_was_first_seen() -> None:
    seen = StaleReason(F.ref, ChangeKind.ANNOTATIONS_CHANGED, 150.0, "def f(a):", "def f(a: int):", commit="c0ffee12")
    before = _unit_obs([("f", symbol_anchor(F))], reasons=(seen,))
    again = replace(before, stale_reasons=(replace(seen, detected_at=900.0),), updated_at=900.0)
    assert first_seen(again, before).stale_reasons == (seen,)
    other = replace(seen, detected_at=900.0, commit="deadbeef")  # another change: its own time
    moved = replace(before, stale_reasons=(other,))
    assert first_seen(moved, before).stale_reasons == (other,)
    assert first_seen(again, None) is again


def test_an_autodoc_members_list_is_a_finding_only_when_a_member_is_gone() -> None:
    """Sphinx writes each listed member's signature and docstring from the code (as for an
    autodoc directive): a new required parameter asks nothing of the list; a member gone does."""
    broken = replace(F, signature="def f(a,b):", sig_hash="s2")
    finding = RefFinding(
        TextRef(RefKind.DIRECTIVE, TargetKind.SYMBOL, "f", ".f", Span(3, 15, 3, 16), role="autoclass:members"),
        symbol_anchor(F),
        (),
    )
    unit = Unit(UnitKind.DIRECTIVE, 3, 3, ("API",), ":members: f, g")
    obs = unit_observation("r", "docs/api.rst", KnowledgeKind.DOCUMENTATION,
                           UnitFinding(unit, "0123456789abcdef", (finding,)), None, 100.0)  # fmt: skip
    o = grade(obs, Code(broken), 200.0, "")
    assert o.status is ObservationStatus.FRESH
    assert o.references[0].state is ReferenceState.OK
    gone = grade(obs, Code(), 200.0, "")
    assert (gone.status, gone.references[0].state) == (ObservationStatus.STALE, ReferenceState.DANGLING)
