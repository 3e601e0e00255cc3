"""Briefs: the repository's brief (``overview.py``, pure), the post-edit call-outs
(``aftermath.py``, pure), and both through a real daemon."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, wait_for
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    Observation,
    ObservationStatus,
    Recalled,
    StaleReason,
)
from graphmemd.retrieval.aftermath import find_callouts, render
from graphmemd.retrieval.overview import Section, estimate_tokens, overview

NOW = 1_800_000_000.0


def note(oid: str, category: Category = Category.OTHER, status: ObservationStatus = ObservationStatus.FRESH,
         *, ref: str = "app/a.py::f", text: str = "", updated: float = NOW - 1000,
         reasons: tuple[StaleReason, ...] = (), confidence: float = 1.0, confirmed: float | None = None) -> Observation:
    path = ref.partition("::")[0]
    anchor = Anchor(AnchorKind.SYMBOL, ref, "r1", path, symbol_id=f"r1:{ref}")
    return Observation(oid, "r1", text or f"note {oid}", category, NOW - 5000, updated, status, anchors=(anchor,),
                       stale_reasons=reasons, confidence=confidence, confirmed_at=confirmed,
                       confirmed_by="alice" if confirmed else "")


def test_overview_orders_sections_and_marks_each_note() -> None:
    stale = StaleReason("app/a.py::g", ChangeKind.BODY_CHANGED, NOW - 10, detail="the body of app/a.py::g changed")
    suspect = StaleReason("app/a.py::h", ChangeKind.DEPENDENCY_CHANGED, NOW - 20,
                          detail="app/a.py::h calls app/b.py::k, whose signature changed", dependency_ref="app/b.py::k")
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
    assert [lines[i] for i in heads] == [f"## {s.value}" for s in Section]
    assert view.shown == ("rule", "rule-weak", "confirmed", "other-new", "other-old", "gone", "maybe")
    assert view.total_left_out == 0
    text = view.text
    assert "[STALE: body changed at app/a.py::g]" in text
    assert "[SUSPECT: app/a.py::h calls app/b.py::k, whose signature changed]" in text
    assert "[confirmed 20" in text
    assert "by alice" in text
    assert "old-version" not in view.shown
    assert "archived" not in view.shown


def test_overview_shares_the_budget_and_says_what_it_left_out() -> None:
    long = "x" * 300
    rules = [note(f"r{i}", Category.CONSTRAINT, text=f"rule {i} {long}") for i in range(20)]
    stale = [note(f"s{i}", Category.DECISION, ObservationStatus.STALE, text=f"stale {i} {long}",
                  reasons=(StaleReason("app/a.py::f", ChangeKind.REMOVED, NOW),)) for i in range(5)]
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


def test_callouts_name_the_changed_symbol_and_the_kind_of_change() -> None:
    sig = StaleReason("app/b.py::login", ChangeKind.SIGNATURE_CHANGED, NOW, old_signature="def login(a)",
                      new_signature="def login(a, b)")
    dep = StaleReason("app/c.py::create_user", ChangeKind.DEPENDENCY_CHANGED, NOW,
                      old_signature="def login(a)", new_signature="def login(a, b)",
                      detail="app/c.py::create_user calls app/b.py::login, whose signature changed",
                      dependency_ref="app/b.py::login")
    older = StaleReason("app/b.py::logout", ChangeKind.BODY_CHANGED, NOW - 3600)
    notes = [
        note("own", Category.DECISION, ObservationStatus.STALE, ref="app/b.py::login", reasons=(sig,)),
        note("dep", Category.CONSTRAINT, ObservationStatus.SUSPECT, ref="app/c.py::create_user", reasons=(dep,)),
        note("earlier", Category.OTHER, ObservationStatus.STALE, ref="app/b.py::logout", reasons=(older,)),
        note("fresh", ref="app/b.py::login"),
    ]
    found = find_callouts(notes, {("r1", "app/b.py"): NOW - 0.5})
    assert [c.observation.id for c in found] == ["own", "dep"]  # the earlier edit's mark is not this edit's
    assert [c.changed_ref for c in found] == ["app/b.py::login", "app/b.py::login"]
    related = [Recalled(notes[3], 1.0, 0, "anchored to app/b.py::login"), Recalled(notes[1], 0.5, 1, "")]
    out = render(["app/b.py"], found, related, budget=600)
    assert out.callouts == ("own", "dep")
    assert out.shown == ("own", "dep", "fresh")
    assert "You changed `login`'s signature (`def login(a)` -> `def login(a, b)`); this constraint on " \
           "`create_user` (app/c.py::create_user) may no longer hold [SUSPECT, id dep]" in out.text
    assert "this decision on `login`" in out.text
    assert "[STALE, id own]" in out.text
    assert out.tokens == estimate_tokens(out.text)
    seen = render(["app/b.py"], [], related, budget=600, already_shown={"fresh", "dep"})
    assert seen.text == ""
    assert seen.shown == ()
    assert find_callouts(notes, {("r1", "app/z.py"): NOW}) == []


def test_repository_brief_through_the_daemon(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    d = daemon_factory([repo])
    with d.client() as c:
        rule = c.observe("passwords are hashed with a per-deployment salt", anchors=["app/auth/crypto.py"],
                         category=Category.CONSTRAINT)
        mere = c.observe("routes return plain strings", anchors=["app/api/routes.py::health"])
        doomed = c.observe("login returns make_token's token", anchors=["app/auth/service.py::AuthService.login"],
                           category=Category.DECISION)
        service = Path(repo) / "app/auth/service.py"
        service.write_text(service.read_text().replace("return make_token(user.id)", "return make_token(user.id)[:8]"))
        wait_for(lambda: c.get(doomed.id).status is ObservationStatus.STALE, 10)
        brief = c.brief(repo=str(repo))
        assert brief.observation_ids == (rule.id, mere.id, doomed.id)
        assert brief.left_out == 0
        assert brief.text.index("## Constraints and decisions") < brief.text.index(rule.text)
        assert brief.text.index("## Needs a look") < brief.text.index(doomed.text)
        assert "[STALE: body changed at app/auth/service.py::AuthService.login]" in brief.text
        fresh_only = c.brief(repo=str(repo), fresh_only=True)
        assert doomed.id not in fresh_only.observation_ids
        tight = c.brief(repo=str(repo), budget=60)
        assert tight.left_out == 3 - len(tight.observation_ids) > 0
        # a file brief includes the stale note too, and counts what its budget left out
        by_file = c.brief(files=[str(service)])
        assert doomed.id in by_file.observation_ids
        assert by_file.left_out == 0
