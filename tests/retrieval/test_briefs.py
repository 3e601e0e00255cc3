"""Briefs: the repository's brief (``overview.py``, pure), the post-edit call-outs
(``aftermath.py``, pure), and both through a real daemon."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from conftest import Daemon, copy_fixture, wait_for
from graphmem.render import brief_line, refusal_line
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    ConfirmRefusal,
    KnowledgeKind,
    KnowledgeSource,
    Observation,
    ObservationStatus,
    Origin,
    StaleReason,
)
from graphmemd.retrieval.aftermath import (
    INSTRUCTION,
    INSTRUCTION_MIXED,
    INSTRUCTION_NO_CONFIRM,
    Callout,
    find_callouts,
    render,
    state_key,
)
from graphmemd.retrieval.overview import LOOK_NO_CONFIRM, Section, estimate_tokens, overview

NOW = 1_800_000_000.0


def note(
    oid: str,
    category: Category = Category.OTHER,
    status: ObservationStatus = ObservationStatus.FRESH,
    *,
    ref: str = "app/a.py::f",
    text: str = "",
    updated: float = NOW - 1000,
    reasons: tuple[StaleReason, ...] = (),
    confidence: float = 1.0,
    confirmed: float | None = None,
) -> Observation:
    path = ref.partition("::")[0]
    anchor = Anchor(AnchorKind.SYMBOL, ref, "r1", path, symbol_id=f"r1:{ref}")
    return Observation(
        oid,
        "r1",
        text or f"note {oid}",
        category,
        NOW - 5000,
        updated,
        status,
        anchors=(anchor,),
        stale_reasons=reasons,
        confidence=confidence,
        confirmed_at=confirmed,
        confirmed_by="alice" if confirmed else "",
    )


def test_overview_orders_sections_and_marks_each_note() -> None:
    stale = StaleReason("app/a.py::g", ChangeKind.BODY_CHANGED, NOW - 10, detail="the body of app/a.py::g changed")
    suspect = StaleReason(
        "app/a.py::h",
        ChangeKind.DEPENDENCY_CHANGED,
        NOW - 20,
        via="CALLS",
        detail="app/a.py::h calls app/b.py::k, whose signature changed",
        dependency_ref="app/b.py::k",
    )
    notes = [
        note("other-old", updated=NOW - 9000),
        note("other-new", updated=NOW - 100),
        note("confirmed", updated=NOW - 9000, confirmed=NOW - 50),
        note("rule-weak", Category.CONSTRAINT, confidence=0.5),
        note("rule", Category.DECISION),
        note("gone", Category.CONSTRAINT, ObservationStatus.STALE, ref="app/a.py::g", reasons=(stale,)),
        note("maybe", Category.OTHER, ObservationStatus.SUSPECT, ref="app/a.py::h", reasons=(suspect,)),
        note("old-version", Category.CONSTRAINT, ObservationStatus.SUPERSEDED),
        note("archived", Category.DECISION, ObservationStatus.ARCHIVED),
    ]
    view = overview(notes, title="# repo", budget=2000)
    lines = view.text.splitlines()
    heads = [i for i, ln in enumerate(lines) if ln.startswith("## ")]
    assert [lines[i] for i in heads] == [f"## {s.value}" for s in Section if s is not Section.DOCS]
    assert view.shown == ("rule", "rule-weak", "confirmed", "other-new", "other-old", "gone", "maybe")
    assert view.total_left_out == 0
    text = view.text
    assert "[STALE: `app/a.py::g`: body changed]" in text
    assert "[SUSPECT: `app/a.py::h`: calls `app/b.py::k`, whose signature changed]" in text
    assert "[confirmed 20" in text
    assert "by alice" in text
    assert "old-version" not in view.shown
    assert "archived" not in view.shown


def doc_unit(
    oid: str,
    path: str,
    line: int,
    text: str,
    *,
    kind: KnowledgeKind = KnowledgeKind.DOCUMENTATION,
    status: ObservationStatus = ObservationStatus.FRESH,
    ref: str = "app/a.py::f",
    category: Category = Category.OTHER,
    example: bool = False,
    heading: bool = False,
) -> Observation:
    o = note(oid, category, status, ref=ref, text=text, updated=NOW)  # read (indexed) just now
    return replace(o, knowledge=KnowledgeSource(path, line, line + 2, (), kind, example, heading), source="file")


def test_the_docs_fill_what_saved_notes_leave_most_relevant_first_never_dated_by_indexing() -> None:
    gone = StaleReason("app/a.py::g", ChangeKind.REMOVED, NOW - 86400 * 400, commit="abc1234")
    notes = [
        note("saved", text="retries are capped at 3", updated=NOW - 9000),
        doc_unit("tutorial", "docs/tutorial.rst", 40, "The post table stores " + "words " * 80, ref="app/a.py::post"),
        doc_unit("central", "docs/api.rst", 10, "Flask.route registers a view", ref="app/a.py::route"),
        doc_unit(
            "adr",
            "docs/adr/0001.md",
            1,
            "We use SQLite",
            kind=KnowledgeKind.DECISION_RECORD,
            category=Category.DECISION,
        ),
        doc_unit("wrong", "docs/old.rst", 5, "g() does it", status=ObservationStatus.STALE, ref="app/a.py::g"),
    ]
    notes[-1] = replace(notes[-1], stale_reasons=(gone,))
    weight = {"central": 0.9, "tutorial": 0.1}
    view = overview(notes, title="# repo", budget=400, weight=lambda o: weight.get(o.id, 0.0))
    assert view.shown == ("adr", "saved", "central", "tutorial")
    text = view.text
    heads = [text.index(f"## {s.value}") for s in (Section.RULES, Section.RECENT, Section.DOCS)]
    assert heads == sorted(heads)
    assert "- [other] Flask.route registers a view (docs/api.rst:10)" in text
    assert "saved 20" not in text.split("## From the project's docs")[1]  # indexing is not saving
    assert "changed 20" not in text
    assert "…" in text  # a long unit is cut to one short line
    assert "wrong" not in view.shown
    assert "(1 passage of the docs disagree with the code: see graphmem check)" in text
    assert view.tokens <= 400


def test_one_page_does_not_fill_the_brief() -> None:
    """pytest's ``deprecations.rst`` names its central classes in dozens of paragraphs: they
    took every docs line of the session brief. Each file's best passage comes before any
    file's second (in rank order within a round)."""
    history = [doc_unit(f"h{i}", "docs/deprecations.rst", 10 + i, f"old way {i} replaced") for i in range(6)]
    guide = [doc_unit(f"g{i}", "docs/guide.rst", 10 + i, f"how to {i}") for i in range(2)]
    readme = doc_unit("r0", "README.md", 3, "what it does")
    weight = {**{f"h{i}": 0.9 for i in range(6)}, "g0": 0.5, "g1": 0.4, "r0": 0.2}
    view = overview([*history, *guide, readme], title="# repo", budget=400, weight=lambda o: weight.get(o.id, 0.0))
    assert view.shown[:6] == ("h0", "g0", "r0", "h1", "g1", "h2")


def test_a_directive_line_alone_is_not_shown_and_the_footer_names_the_listing() -> None:
    """``.. function:: attrs`` (its text is the next unit) names code and says nothing of it;
    the footer names the command that lists what was left out: units of knowledge files are
    ``graphmem list --kind docs`` (``graphmem list`` lists saved notes)."""
    bare = [doc_unit(f"d{i}", "docs/api.rst", i, text) for i, text in enumerate(
        (".. function:: attrs", ".. py:class:: Schema", "```{function} attrs", ":::{note}"))]  # fmt: skip
    body = [doc_unit(f"b{i}", "docs/guide.md", 10 + i, f"passage {i} " + "words " * 60) for i in range(6)]
    view = overview([*bare, *body], title="# repo", budget=200)
    assert not set(view.shown) & {o.id for o in bare}
    assert ".. function::" not in view.text
    assert view.text.endswith("see graphmem list --kind docs)")
    with_body = doc_unit("x", "docs/api.rst", 50, ".. function:: attrs\n\n   Same as `attrs.define`.")
    assert "x" in overview([with_body], title="# repo", budget=400).shown
    # a code example is code to read where it is: flattened into a line it would be noise
    example = doc_unit("e", "README.md", 44, "from app.a import f\n\nf(1)\n", example=True)
    assert "e" not in overview([example, with_body], title="# repo", budget=400).shown
    saved = [note(f"n{i}", Category.OTHER, text=f"note {i} " + "words " * 60) for i in range(6)]
    assert overview(saved, title="# repo", budget=200).text.endswith("see graphmem list)")
    assert overview([*saved, *body], title="# repo", budget=200).text.endswith("see graphmem list --kind all)")


def test_a_heading_or_a_lead_in_is_not_a_passage_of_the_brief() -> None:
    """Sphinx's docs: the session brief showed page titles ("``:mod:`sphinx.ext.autodoc` --
    Include documentation from docstrings``") and lead-ins ("For example, the following code
    activates the ... extension:") — each names central code and says nothing without what
    follows it. The passages under them are shown instead."""
    title = doc_unit("t", "doc/autodoc.rst", 3, ":mod:`app.a` -- Include documentation", heading=True)
    lead = doc_unit("l", "doc/setup.rst", 17, "For example, the following code activates :func:`app.a.f`:\n")
    body = doc_unit("b", "doc/autodoc.rst", 16, "This extension imports the modules you document.")
    weight = {"t": 0.9, "l": 0.8}
    view = overview([title, lead, body], title="# repo", budget=400, weight=lambda o: weight.get(o.id, 0.1))
    assert view.shown == ("b",)
    # a saved note is what somebody wrote as a note: a colon at its end does not hide it
    saved = note("n", text="never call f from a signal handler:")
    assert overview([saved], title="# repo", budget=400).shown == ("n",)


def test_overview_shares_the_budget_and_says_what_it_left_out() -> None:
    long = "x" * 300
    rules = [note(f"r{i}", Category.CONSTRAINT, text=f"rule {i} {long}") for i in range(20)]
    stale = [
        note(
            f"s{i}",
            Category.DECISION,
            ObservationStatus.STALE,
            text=f"stale {i} {long}",
            reasons=(StaleReason("app/a.py::f", ChangeKind.REMOVED, NOW),),
        )
        for i in range(5)
    ]
    view = overview(rules + stale, title="# repo", budget=800)
    assert view.tokens <= 800
    assert any(i.startswith("s") for i in view.shown)  # rules do not starve the stale ones
    assert any(i.startswith("r") for i in view.shown)
    assert view.total_left_out == 25 - len(view.shown) > 0
    assert view.left_out[Section.RULES] > 0
    assert f"({view.total_left_out} more not shown within the budget of 800 tokens" in view.text
    empty = overview([], title="# repo", budget=800)
    assert empty.shown == ()
    assert "nothing recorded yet" in empty.text


def test_callouts_name_the_change_once_in_one_line_and_the_instruction_once() -> None:
    sig = StaleReason(
        "app/b.py::login",
        ChangeKind.SIGNATURE_CHANGED,
        NOW,
        old_signature="def login(a):",
        new_signature="def login(a,b):",
        commit="c0ffee1",
        uncommitted=True,
    )
    dep = StaleReason(
        "app/c.py::create_user",
        ChangeKind.DEPENDENCY_CHANGED,
        NOW,
        old_signature="def login(a):",
        new_signature="def login(a,b):",
        via="CALLS",
        detail="app/c.py::create_user calls app/b.py::login, whose signature changed",
        dependency_ref="app/b.py::login",
        uncommitted=True,
    )
    older = StaleReason("app/b.py::logout", ChangeKind.BODY_CHANGED, NOW - 3600, uncommitted=True)
    history = StaleReason("app/b.py::token", ChangeKind.REMOVED, NOW, commit="abc1234")  # found at indexing
    notes = [
        note("own", Category.DECISION, ObservationStatus.STALE, ref="app/b.py::login", reasons=(sig,)),
        note("dep", Category.CONSTRAINT, ObservationStatus.SUSPECT, ref="app/c.py::create_user", reasons=(dep,)),
        note("earlier", Category.OTHER, ObservationStatus.STALE, ref="app/b.py::logout", reasons=(older,)),
        note("old", Category.OTHER, ObservationStatus.STALE, ref="app/b.py::token", reasons=(history,)),
        note("fresh", ref="app/b.py::login"),
    ]
    found = find_callouts(notes, {("r1", "app/b.py"): NOW - 0.5})
    assert [c.observation.id for c in found] == ["own", "dep"]  # not an earlier edit's mark, not history
    assert [c.changed_ref for c in found] == ["app/b.py::login", "app/b.py::login"]
    out = render(["app/b.py"], found, budget=600)
    assert out.callouts == out.shown == ("own", "dep")
    assert out.text.splitlines() == [
        "graphmem: your edit of app/b.py changed code under 2 notes:",
        "- `app/b.py::login`: parameter `b` added (required), uncommitted",
        "  [STALE decision, id own] note own",
        "- `app/c.py::create_user`: calls `app/b.py::login`, whose parameter `b` was added (required), uncommitted",
        "  [SUSPECT constraint, id dep] note dep",
        INSTRUCTION,
    ]
    assert out.text.count("confirm") == INSTRUCTION.count("confirm")  # said once, not per note
    assert out.tokens == estimate_tokens(out.text)
    assert out.states == (state_key(notes[0]), state_key(notes[1]))
    assert find_callouts(notes, {("r1", "app/z.py"): NOW}) == []


#: what the daemon says of a note stale only in a worktree (``checkouts.confirming_elsewhere``)
ELSEWHERE = (
    "{id} is stale only in this checkout: it was saved in /src/app (branch main), where it is fresh. Confirm it "
    "there once this change is merged; if it no longer holds, edit its text"
)


def test_a_note_not_confirmable_here_says_why_in_one_line_and_is_not_offered_to_confirm() -> None:
    sig = StaleReason("app/b.py::login", ChangeKind.BODY_CHANGED, NOW, uncommitted=True)
    mine = note("mine", Category.DECISION, ObservationStatus.STALE, ref="app/b.py::login", reasons=(sig,))
    theirs = replace(mine, id="theirs", text="note theirs", confirm_refused=ELSEWHERE.format(id="theirs"),
                     confirm_refusal=ConfirmRefusal.ONLY_HERE)
    gone = replace(mine, id="gone", text="note gone",
                   confirm_refused="every anchor of gone is gone (app/b.py::login); save a new observation that "
                                   "supersedes it", confirm_refusal=ConfirmRefusal.ANCHORS_GONE)
    line = refusal_line(theirs)
    assert line == (
        "not confirmable here: it is stale only in this checkout: it was saved in /src/app (branch main), where it "
        "is fresh. Update the note or fix the code; confirming is for its home checkout"
    )
    assert refusal_line(gone) == (  # refused everywhere: no home checkout to send it to
        "not confirmable here: every anchor of gone is gone (app/b.py::login); save a new observation that "
        "supersedes it. Update the note or fix the code"
    )
    assert refusal_line(mine) == ""
    # the kind of refusal, not its wording, sends the reader to the home checkout
    worded = replace(gone, confirm_refused="every anchor of gone is gone only in this checkout")
    assert not refusal_line(worded).endswith("confirming is for its home checkout")
    long = replace(theirs, confirm_refused=ELSEWHERE.format(id="theirs").replace("/src/app", "/src/" + "x" * 300))
    assert len(refusal_line(long)) < 260
    assert "…" in refusal_line(long)
    assert brief_line(theirs).endswith(f" [{line}]")

    edited = {("r1", "app/b.py"): NOW}
    both = render(["app/b.py"], [Callout(o, sig, sig.anchor_ref) for o in (mine, theirs)], budget=600)
    assert both.text.splitlines()[-2:] == [f"  {line}", INSTRUCTION_MIXED]
    assert both.text.count(line) == 1  # the confirmable note says nothing more
    assert both.shown == ("mine", "theirs")
    alone = render(["app/b.py"], [Callout(theirs, sig, sig.anchor_ref)], budget=600)
    assert alone.text.splitlines()[-1] == INSTRUCTION_NO_CONFIRM
    assert "confirm_observation" not in alone.text
    assert "graphmem confirm" not in alone.text
    assert render(["app/b.py"], find_callouts([mine], edited), budget=600).text.splitlines()[-1] == INSTRUCTION

    seen = {"theirs": theirs}  # the daemon's as_seen: which notes it would refuse here
    asked: list[str] = []

    def as_seen(o: Observation) -> Observation:
        asked.append(o.id)
        return seen.get(o.id, o)

    plain = replace(theirs, confirm_refused="")
    refused = overview([plain, note("rule", Category.DECISION)], title="# wt", budget=2000, seen=as_seen)
    assert f"## {LOOK_NO_CONFIRM}" in refused.text
    assert f"## {Section.LOOK.value}" not in refused.text
    assert f"[{line}]" in refused.text
    assert asked == ["theirs"]  # only the notes that need a look are asked about
    mixed = overview([plain, mine], title="# wt", budget=2000, seen=as_seen)
    assert f"## {Section.LOOK.value}" in mixed.text
    assert f"[{line}]" in mixed.text


def test_a_note_shown_in_a_session_is_not_shown_again_until_its_state_changes() -> None:
    sig = StaleReason(
        "app/b.py::login",
        ChangeKind.SIGNATURE_CHANGED,
        NOW,
        old_signature="def login(a):",
        new_signature="def login(a,b):",
        uncommitted=True,
    )
    own = note("own", Category.DECISION, ObservationStatus.STALE, ref="app/b.py::login", reasons=(sig,))
    first = render(["app/b.py"], find_callouts([own], {("r1", "app/b.py"): NOW}), budget=600)
    assert first.shown == ("own",)
    again = render(
        ["app/b.py"], find_callouts([own], {("r1", "app/b.py"): NOW}), budget=600, already_shown=set(first.states)
    )
    assert again.text == ""  # the same hook run again says nothing
    assert render(
        ["app/b.py"], find_callouts([own], {("r1", "app/b.py"): NOW}), budget=600, already_shown={"own"}
    ).shown == ("own",)  # a bare id (seen at session start) is not this state
    more = replace(sig, new_signature="def login(a,b,c):", detected_at=NOW + 5)
    changed = replace(own, stale_reasons=(more,))
    later = render(
        ["app/b.py"],
        find_callouts([changed], {("r1", "app/b.py"): NOW + 4}),
        budget=600,
        already_shown=set(first.states),
    )
    assert later.shown == ("own",)  # a new change: its state changed, so it is shown again
    assert "parameter `c` added (required)" in later.text


def test_repository_brief_through_the_daemon(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    d = daemon_factory([repo])
    with d.client() as c:
        rule = c.observe(
            "passwords are hashed with a per-deployment salt",
            anchors=["app/auth/crypto.py"],
            category=Category.CONSTRAINT,
        )
        mere = c.observe("routes return plain strings", anchors=["app/api/routes.py::health"])
        doomed = c.observe(
            "login returns make_token's token",
            anchors=["app/auth/service.py::AuthService.login"],
            category=Category.DECISION,
        )
        service = Path(repo) / "app/auth/service.py"
        service.write_text(service.read_text().replace("return make_token(user.id)", "return make_token(user.id)[:8]"))
        wait_for(lambda: c.get(doomed.id).status is ObservationStatus.STALE, 10)
        brief = c.brief(repo=str(repo))
        assert brief.observation_ids == (rule.id, mere.id, doomed.id)
        assert brief.left_out == 0
        assert brief.text.index("## Constraints and decisions") < brief.text.index(rule.text)
        assert brief.text.index("## Needs a look") < brief.text.index(doomed.text)
        assert "[STALE: `app/auth/service.py::AuthService.login`: body changed, uncommitted]" in brief.text
        fresh_only = c.brief(repo=str(repo), fresh_only=True)
        assert doomed.id not in fresh_only.observation_ids
        tight = c.brief(repo=str(repo), budget=60)
        assert tight.left_out == 3 - len(tight.observation_ids) > 0
        # a file brief includes the stale note too, and counts what its budget left out
        by_file = c.brief(files=[str(service)])
        assert doomed.id in by_file.observation_ids
        assert by_file.left_out == 0
        # a docs page's title and a lead-in are not passages: the paragraph under them is
        (Path(repo) / "docs").mkdir()
        (Path(repo) / "docs/auth.rst").write_text(
            "``AuthService.login`` and tokens\n================================\n\n"
            "Call ``AuthService.login`` like this:\n\n.. code-block:: python\n\n    service.login(name)\n\n"
            "``AuthService.login`` issues a token that expires after an hour.\n"
        )
        wait_for(lambda: "expires after an hour" in c.brief(repo=str(repo), budget=4000).text, 10)
        docs_brief = c.brief(repo=str(repo), budget=4000).text
        assert "and tokens" not in docs_brief
        assert "like this" not in docs_brief
        units = {o.text: o for o in c.list(repo=str(repo), origin=Origin.KNOWLEDGE)}
        heading = units["``AuthService.login`` and tokens"]
        assert heading.knowledge is not None
        assert heading.knowledge.heading
