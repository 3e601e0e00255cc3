"""The review page's pure cores: the view model, the diff, the token guard and the editor links."""

from __future__ import annotations

from dataclasses import replace

import pytest
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    EdgeKind,
    Event,
    EventKind,
    KnowledgeReference,
    KnowledgeSource,
    NeighbourEdge,
    Neighbourhood,
    NeighbourNode,
    Observation,
    ObservationAction,
    ObservationStatus,
    Recalled,
    ReferenceState,
    ScoreComponents,
    StaleReason,
)
from graphmem.ui import diff, guard, links, model
from graphmem.ui.follower import Follower, NoteChange, Since


def note(
    i: str,
    status: ObservationStatus = ObservationStatus.STALE,
    at: float = 100.0,
    path: str = "app/a.py",
    source: str = "cli",
    category: Category = Category.DECISION,
    **kw: object,
) -> Observation:
    anchor = Anchor(AnchorKind.SYMBOL, f"{path}::f", "r", path, symbol_id=f"r:{path}::f#function")
    reasons = ()
    if status is ObservationStatus.STALE:
        reasons = (StaleReason(anchor.ref, ChangeKind.BODY_CHANGED, at, commit="abc123def", detail="the body changed"),)
    if status is ObservationStatus.SUSPECT:
        reasons = (
            StaleReason(
                anchor.ref,
                ChangeKind.DEPENDENCY_CHANGED,
                at,
                detail=f"{anchor.ref} calls b.py::g, whose signature changed",
                dependency_ref="b.py::g",
                via="calls",
            ),
        )
    return Observation(
        id=i, repo_id="r", text=f"note {i}", category=category, created_at=at - 50, updated_at=at - 10,
        status=status, source=source, anchors=(anchor,), stale_reasons=reasons, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def ref(obs_id: str, state: ReferenceState, path: str = "AGENTS.md", line: int = 3) -> KnowledgeReference:
    return KnowledgeReference(
        "`login`",
        path,
        line,
        5,
        line,
        12,
        target_ref="a.py::login",
        state=state,
        reason="renamed",
        observation_id=obs_id,
    )


# ---------------------------------------------------------------------------------- the queue


def test_the_queue_is_stale_and_suspect_notes_and_findings_newest_first() -> None:
    notes = [
        note("old", at=100),
        note("new", ObservationStatus.SUSPECT, at=300),
        note("fresh", ObservationStatus.FRESH, at=400),
        note("mid", at=200),
    ]
    unit = note("unit", ObservationStatus.FRESH, at=250, knowledge=KnowledgeSource("AGENTS.md", 3, 9))
    findings = [
        ref("unit", ReferenceState.DANGLING),
        ref("unit", ReferenceState.SUSPECT),
        ref("mid", ReferenceState.STALE),
    ]
    items = model.queue_items(notes, findings, {"unit": unit})
    assert [i.id for i in items] == ["new", "unit", "mid", "old"]
    finding = items[1]
    assert finding.kind is model.ItemKind.FINDING
    assert finding.state == "dangling"  # the worst of its references
    assert finding.knowledge_file == "AGENTS.md"
    assert not finding.editable
    assert len(finding.findings) == 2
    assert items[0].reason.startswith("[SUSPECT: calls `b.py::g`, whose signature changed")
    assert items[2].reason == "[STALE: body changed]"
    assert items[2].commit == "abc123def"


def test_the_queue_offers_confirm_only_where_it_is_not_refused() -> None:
    refused = "n is stale only in this checkout: it was saved in /src/app (branch main), ..."
    fresh_unit = note("unit", ObservationStatus.FRESH, knowledge=KnowledgeSource("AGENTS.md", 3, 9))
    items = model.queue_items(
        [note("n", confirm_refused=refused), note("ok")],
        [ref("unit", ReferenceState.DANGLING), ref("flagged", ReferenceState.STALE, line=8)],
        {"unit": fresh_unit, "flagged": replace(fresh_unit, id="flagged", needs_review=True)},
    )
    by_id = {i.id: i for i in items}
    assert by_id["n"].confirm_refused == refused  # the daemon's word, as the checkout shows the note
    assert by_id["ok"].confirm_refused == ""
    # a finding whose unit is fresh: confirming changes nothing (the page refuses it)
    assert by_id["unit"].confirm_refused == (
        "the note itself is fresh, so confirming changes nothing; fix the reference in AGENTS.md:3"
    )
    assert by_id["flagged"].confirm_refused == ""  # a unit to review (renamed anchor) is confirmed
    # patched from an event: the note's refusal comes with it
    (patched,) = model.patched([], [(note("n", confirm_refused=refused), False)])
    assert patched.confirm_refused == refused


def test_filters_and_facets() -> None:
    items = model.queue_items(
        [
            note("a", path="app/auth/x.py", source="claude-code"),
            note("b", ObservationStatus.SUSPECT, path="app/api/y.py", category=Category.CONSTRAINT),
            note("c", path="lib/z.py"),
        ]
    )
    keep = model.Filters.from_query({"file": "app/", "state": "stale"})
    assert [i.id for i in items if keep.keep(i)] == ["a"]
    assert [i.id for i in items if model.Filters(author="claude-code").keep(i)] == ["a"]
    assert [i.id for i in items if model.Filters(category="constraint").keep(i)] == ["b"]
    assert [i.id for i in items if model.Filters(file="app/api/y.py").keep(i)] == ["b"]
    assert not model.Filters().active
    f = model.facets(items)
    assert f.states == (("stale", 2), ("suspect", 1))
    assert ("claude-code", 1) in f.authors
    with pytest.raises(model.BadFilter, match="unknown state 'gone'"):
        model.Filters.from_query({"state": "gone"})


def test_history_of_a_note() -> None:
    o = note("n", at=500, confirmed_by="ana", confirmed_at=470.0, supersedes=("older",), superseded_by="newer")
    newer = note("newer", ObservationStatus.FRESH, at=900, source="claude-code")
    h = model.history(o, {"newer": newer})
    assert [e.what for e in h] == [
        "created",
        "superseded an older note",
        "confirmed",
        "stale: body changed",
        "superseded",
    ]
    assert (h[2].who, h[3].commit, h[4].who, h[4].related) == ("ana", "abc123def", "claude-code", "newer")


def test_search_rows_keep_the_why_and_the_components() -> None:
    r = Recalled(
        note("n", ObservationStatus.FRESH), 0.5, 1, "a.py::f -CALLS-> b.py::g", components=ScoreComponents(text=0.25)
    )
    (row,) = model.search_rows([r])
    assert (row.why, row.marker, row.score) == ("a.py::f -CALLS-> b.py::g", "[FRESH]", 0.5)
    assert ("text", 0.25) in row.components


# ---------------------------------------------------------------------------------- the picture


def _hood() -> Neighbourhood:
    def node(
        i: str, path: str, distance: int, kind: str = "function", notes: tuple[Observation, ...] = ()
    ) -> NeighbourNode:
        return NeighbourNode(i, f"{path}::{i}" if kind != "file" else path, kind, path, 1, 2, "", distance, notes)

    return Neighbourhood(
        nodes=(
            node("login", "app/auth/s.py", 0, notes=(note("x"),)),
            node(
                "caller",
                "app/api/r.py",
                1,
                notes=(note("y", ObservationStatus.SUSPECT), note("z", ObservationStatus.FRESH)),
            ),
            node("other", "app/api/r.py", 2),
            node("r:app/api/r.py", "app/api/r.py", 2, kind="file"),
        ),
        edges=(
            NeighbourEdge("caller", "login", EdgeKind.CALLS),
            NeighbourEdge("other", "login", EdgeKind.CALLS),
            NeighbourEdge("r:app/api/r.py", "caller", EdgeKind.CONTAINS),
        ),
    )


def test_picture_elements_are_grouped_by_directory_with_states() -> None:
    els = model.graph_elements(_hood())
    nodes = {e["data"]["id"]: e for e in els if "source" not in e["data"]}
    assert nodes["dir:app/api"]["data"]["kind"] == "dir"
    assert nodes["login"]["classes"] == "centre"
    assert nodes["login"]["data"]["state"] == "stale"
    assert nodes["caller"]["data"]["state"] == "suspect"  # the worst of its notes
    assert nodes["caller"]["data"]["parent"] == "dir:app/api"
    assert nodes["r:app/api/r.py"]["data"]["label"] == "r.py"
    edges = [e["data"] for e in els if "source" in e["data"]]
    assert len(edges) == 3
    only_calls = model.graph_elements(_hood(), [EdgeKind.CALLS])
    assert {e["data"]["kind"] for e in only_calls if "source" in e["data"]} == {"CALLS"}


def test_collapsing_makes_one_node_per_directory_and_counts_merged_edges() -> None:
    els = model.graph_elements(_hood(), collapse=True)
    nodes = {e["data"]["id"]: e["data"] for e in els if "source" not in e["data"]}
    assert set(nodes) == {"login", "dir:app/api"}  # the centre stays itself
    assert nodes["dir:app/api"]["count"] == 3
    assert nodes["dir:app/api"]["state"] == "suspect"
    (edge,) = [e["data"] for e in els if "source" in e["data"]]
    assert (edge["source"], edge["target"], edge["count"]) == ("dir:app/api", "login", 2)  # inside edges drop


# ---------------------------------------------------------------------------------- the diff


def test_diff_rows_fold_unchanged_lines_and_keep_the_head() -> None:
    before = "def f(a):\n" + "".join(f"    x{i} = {i}\n" for i in range(10)) + "    return a"
    after = before.replace("return a", "return a + 1")
    rows = diff.diff_rows(before, after, "m.py", 20, 20)
    kinds = [r.kind for r in rows]
    assert kinds[0] is diff.RowKind.CONTEXT
    assert rows[0].old_no == 20
    assert "def" in rows[0].html  # the definition's head is always shown
    assert kinds[1] is diff.RowKind.GAP
    assert rows[1].html == "7 unchanged lines"
    assert kinds[-2:] == [diff.RowKind.REMOVED, diff.RowKind.ADDED]
    assert (rows[-2].old_no, rows[-1].new_no) == (31, 31)
    assert '<span class="mi">1</span>' in rows[-1].html


def test_highlighting_escapes_and_keeps_multiline_tokens_per_line() -> None:
    lines = diff.highlight_lines('s = """<b>\nx"""', "m.py")
    assert len(lines) == 2
    assert "&lt;b&gt;" in lines[0]
    assert all(line.count("<span") == line.count("</span>") for line in lines)
    assert diff.highlight_lines("plain <text>", "notes.unknownext") == ["plain &lt;text&gt;"]
    assert [r.kind for r in diff.diff_rows("", "a\nb", "m.py")] == [diff.RowKind.ADDED] * 2
    assert [r.kind for r in diff.diff_rows("a", "", "m.py")] == [diff.RowKind.REMOVED]
    assert ".hl .k" in diff.stylesheet()


# ---------------------------------------------------------------------------------- the guard


HOSTS = ("127.0.0.1:8000", "localhost:8000")


def judge(**kw: str) -> guard.Verdict:
    args = {"method": "GET", "host": "127.0.0.1:8000", "token": "secret", **kw}
    return guard.judge(allowed_hosts=HOSTS, **args)  # type: ignore[arg-type]


def test_the_guard() -> None:
    assert judge().outcome is guard.Outcome.REFUSE
    assert judge().status == 403
    assert judge(cookie="secret").outcome is guard.Outcome.ALLOW
    assert judge(query="secret").outcome is guard.Outcome.SET_COOKIE
    assert judge(cookie="wrong").outcome is guard.Outcome.REFUSE
    # a change needs the header, and the cookie too
    assert judge(method="POST", cookie="secret").outcome is guard.Outcome.REFUSE
    assert judge(method="POST", header="secret").outcome is guard.Outcome.REFUSE
    assert judge(method="POST", cookie="secret", header="secret").outcome is guard.Outcome.ALLOW
    assert judge(method="DELETE", cookie="secret", header="wrong").outcome is guard.Outcome.REFUSE
    # DNS rebinding: another Host is refused even with the token
    assert judge(host="evil.example:8000", cookie="secret").status == 421
    assert judge(host="LOCALHOST:8000", cookie="secret").outcome is guard.Outcome.ALLOW
    assert guard.cookie_name(8000) == "graphmem_ui_8000"
    assert guard.new_token() != guard.new_token()
    assert len(guard.new_token()) >= 40


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", False), ("192.168.1.4", False), ("example.com", False)],
)  # fmt: skip
def test_loopback(host: str, loopback: bool) -> None:
    assert guard.is_loopback(host) is loopback


# ---------------------------------------------------------------------------------- links


def test_editor_links() -> None:
    assert links.vscode_url("/home/me/my repo", "app/a.py", 12) == "vscode://file/home/me/my%20repo/app/a.py:12"
    assert links.editor_argv("nvim", "/r/a.py", 3) == ["nvim", "+3", "/r/a.py"]
    assert links.editor_argv("/usr/bin/emacsclient -n", "/r/a.py", 0) == ["/usr/bin/emacsclient", "-n", "+1", "/r/a.py"]
    assert links.editor_argv("code --wait", "/r/a.py", 7) == ["code", "--wait", "-g", "/r/a.py:7"]
    assert links.editor_argv("gedit", "/r/a.py", 7) == ["gedit", "/r/a.py"]
    assert links.editor_argv("  ", "/r/a.py", 7) == []


def test_the_queue_holds_what_check_reports_not_compatible_changes() -> None:
    """A reference whose code changed in a way the text's use still fits (``changed``, shown
    only by ``check --level all``) is no review item; a deprecated one is, graded so, and its
    reason is ``check``'s one line (the name once)."""
    fine = replace(ref("u1", ReferenceState.CHANGED), reason="`login`: body changed in 6e3786c")
    gone = replace(ref("u2", ReferenceState.SUSPECT), deprecated=True, reason="`login`: removed; still served")
    units = {
        i: note(i, ObservationStatus.FRESH, at=200, knowledge=KnowledgeSource("docs/a.md", 3, 4)) for i in ("u1", "u2")
    }
    items = model.queue_items([], [fine, gone], units)
    assert [(i.id, i.state, i.reason) for i in items] == [("u2", "deprecated", "`login`: removed; still served")]
    changed_unit = note(
        "u3", ObservationStatus.SUSPECT, knowledge=KnowledgeSource("docs/a.md", 9, 9), references=(fine,)
    )
    assert model.note_item(changed_unit).findings == ()


def test_a_knowledge_unit_says_which_reference_and_what_became_of_its_code() -> None:
    unit = note(
        "u",
        ObservationStatus.SUSPECT,
        knowledge=KnowledgeSource("docs/api.md", 10, 14),
        references=(ref("u", ReferenceState.SUSPECT), ref("u", ReferenceState.DANGLING), ref("u", ReferenceState.OK)),
    )
    item = model.note_item(unit)
    assert item.reason.endswith("whose signature changed] ``login``: renamed (+1 more)")  # the worst: dangling
    assert [r.state for r in item.findings] == [ReferenceState.SUSPECT, ReferenceState.DANGLING]
    assert (item.knowledge_file, item.knowledge_line, item.editable) == ("docs/api.md", 10, False)


def test_the_queue_is_patched_with_the_notes_that_changed() -> None:
    items = model.queue_items([note("a", at=100), note("b", at=200), note("c", ObservationStatus.SUSPECT, at=300)])
    assert [i.id for i in items] == ["c", "b", "a"]
    confirmed = note("b", ObservationStatus.FRESH, at=400)
    newly = note("d", at=500)
    patched = model.patched(items, [(confirmed, False), (newly, False), (note("a", at=100), True)])
    assert [i.id for i in patched] == ["d", "c"]  # b is fresh, a is gone, d is new and newest
    assert patched == model.queue_items([note("c", ObservationStatus.SUSPECT, at=300), newly])
    assert model.patched(items, []) == items


def test_the_follower_says_what_changed_since_a_generation() -> None:
    changed = note("a", ObservationStatus.FRESH)
    unit = replace(note("u"), knowledge=KnowledgeSource("AGENTS.md", 1, 4))
    events = [
        Event(EventKind.OBSERVATION_CHANGED, 1.0, "r", seq=1, observation=unit, action=ObservationAction.UPDATED),
        Event(EventKind.INDEX_PROGRESS, 2.0, "r", seq=2),
        Event(EventKind.OBSERVATION_FRESH, 3.0, "r", seq=3, observation=changed, action=ObservationAction.CONFIRMED),
        Event(EventKind.OBSERVATION_CHANGED, 4.0, "r", seq=4, observation=changed, action=ObservationAction.DELETED),
    ]
    f = Follower(lambda _after: None)  # type: ignore[arg-type,return-value]  # never started: its hooks are driven here
    assert f.since(0) is None  # not connected: nothing may be reused
    f.connected()  # generation 1
    for e in events:  # generations 2 to 5
        f.received(e)
    assert f.current == 5
    assert f.since(0) is None  # the connection itself: read everything
    assert f.since(1) is None  # a knowledge file's unit changed after 1: its findings are read again
    assert f.since(2) == Since(5, (NoteChange(changed), NoteChange(changed, gone=True)))  # progress changes nothing
    assert f.since(4) == Since(5, (NoteChange(changed, gone=True),))
    assert f.since(5) == Since(5, ())
    assert f.since(9) is None
    f.lost("the daemon stopped")
    assert f.current is None
    assert f.since(5) is None  # the stream is down: read everything


def test_a_node_signature_is_shown_spaced() -> None:
    n = NeighbourNode("f", "a.py::f", "function", "a.py", 1, 2, 'def f(value:str,salt:str="")->str:', 0, ())
    (node,) = [
        e["data"] for e in model.graph_elements(Neighbourhood(nodes=(n,), edges=())) if e["data"]["kind"] != "dir"
    ]
    assert node["signature"] == 'def f(value: str, salt: str = "") -> str'


def test_a_change_block_is_captioned_by_the_one_renderer() -> None:
    """The change view's caption of a block is the note's reason in ``changes.change_words``:
    a dependency two hops away that was removed is said so (not "the dependency's signature
    changed" on a one-edge path); a block whose reason the note no longer has, by its kind."""
    from graphmem.types import AnchorChange, CodeVersion

    absent = CodeVersion(present=False)
    o = note("s", ObservationStatus.SUSPECT)
    (r,) = o.stale_reasons
    gone = replace(r, detail="app/a.py::f calls b.py::g (2 hops away), which was removed")
    gone = replace(gone, old_signature="def g(x):", dependency_hops=2, dependency_removed=True)
    block = AnchorChange(r.anchor_ref, r.change, absent, absent, dependency_ref="b.py::g")
    assert model.change_caption(replace(o, stale_reasons=(gone,)), block) == (
        "calls `b.py::g` (2 hops away), which was removed"
    )
    stale = note("t")
    stale = replace(stale, stale_reasons=(replace(stale.stale_reasons[0], lines_changed=3),))
    body = AnchorChange("app/a.py::f", ChangeKind.BODY_CHANGED, absent, absent)
    assert model.change_caption(stale, body) == "body changed: 3 lines"
    assert model.change_caption(replace(stale, stale_reasons=()), body) == "body changed"


def test_an_uncommitted_change_names_no_commit() -> None:
    """A reason of an uncommitted change carries the HEAD it was seen at, which did not make
    the change: the item says "uncommitted" and names no commit; so does the note's history."""
    anchor_ref = "app/a.py::f"
    r = StaleReason(anchor_ref, ChangeKind.BODY_CHANGED, 150.0, commit="abc123def", uncommitted=True, lines_changed=2)
    o = replace(note("n", at=200), stale_reasons=(r,), history=())
    item = model.note_item(o)
    assert (item.commit, item.uncommitted) == ("", True)
    assert [(e.what, e.commit) for e in model.history(o) if e.what.startswith("stale")] == [
        ("stale: body changed: 2 lines, uncommitted", "")
    ]
    committed = model.note_item(note("m", at=200))
    assert (committed.commit, committed.uncommitted) == ("abc123def", False)


def test_the_overview_counts_per_file_what_check_reports() -> None:
    """A compatible change is no finding of its file; the others are counted by grade, worst first."""
    refs = [
        ref("u1", ReferenceState.CHANGED, path="docs/a.md"),
        ref("u2", ReferenceState.SUSPECT, path="docs/b.md"),
        replace(ref("u2", ReferenceState.SUSPECT, path="docs/b.md"), deprecated=True),
        ref("u3", ReferenceState.DANGLING, path="docs/b.md"),
        ref("u4", ReferenceState.OK, path="docs/c.md"),
    ]
    assert model.findings_by_file(refs) == [("docs/b.md", {"dangling": 1, "suspect": 1, "deprecated": 1})]
    assert list(model.findings_by_file(refs)[0][1]) == ["dangling", "suspect", "deprecated"]
