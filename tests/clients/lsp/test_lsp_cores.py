"""PURE: the language server's settings, command arguments, repository roots, event routing
and the JSON/text shapes of notes, recall results and status."""

from __future__ import annotations

import dataclasses

import pytest
from graphmem.errors import InvalidArgument
from graphmem.lsp.commands import (
    AddNote,
    Command,
    parse_add_note,
    parse_confirm,
    parse_id,
    parse_recall,
    parse_show_notes,
)
from graphmem.lsp.present import age, lens_title, note_json, recall_json, status_json
from graphmem.lsp.roots import Location, Roots
from graphmem.lsp.routing import route
from graphmem.lsp.settings import Settings, Severity, parse_settings
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    EdgeKind,
    Event,
    EventKind,
    Freshness,
    Hop,
    IndexState,
    Observation,
    ObservationStatus,
    Recalled,
    RecallResult,
    Repository,
    Status,
)

NOW = 1_800_000_000.0


def obs(status: ObservationStatus = ObservationStatus.FRESH, **extra: object) -> Observation:
    return Observation(
        id="o1",
        repo_id="r",
        text="note",
        category=Category.DECISION,
        created_at=NOW - 90,
        updated_at=NOW,
        status=status,
        anchors=(Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py", symbol_id="r:a.py::f#function"),),
        **extra,  # type: ignore[arg-type]
    )


# ---------------------------------------------------------------------------- settings


def test_settings_from_initialization_options_and_configuration() -> None:
    s, warnings = parse_settings(
        {"diagnosticSeverity": "warning", "notesAsMessage": False, "user": " bob "}, Settings()
    )
    assert (s.stale, s.suspect, s.notes_as_message, s.user, warnings) == (
        Severity.WARNING,
        Severity.WARNING,
        False,
        "bob",
        (),
    )
    nested, _ = parse_settings({"graphmem": {"diagnosticSeverity": {"suspect": "off", "stale": "Hint"}}}, s)
    assert (nested.stale, nested.suspect, nested.notes_as_message) == (Severity.HINT, Severity.OFF, False)
    assert parse_settings(None, s) == (s, ())
    assert parse_settings({"diagnosticSeverity": "info"}, Settings())[0].stale is Severity.INFORMATION


def test_bad_settings_are_reported_and_keep_the_previous_value() -> None:
    s, warnings = parse_settings(
        {"diagnosticSeverity": {"stale": "loud"}, "clientPrompts": "yes", "user": 3}, Settings(client_prompts=True)
    )
    assert s == Settings(client_prompts=True)
    assert len(warnings) == 3
    assert "diagnosticSeverity.stale must be one of error, warning, information, hint, off (got 'loud')" in warnings[0]


# ---------------------------------------------------------------------------- commands


def test_command_arguments() -> None:
    assert parse_add_note(["file:///a.py", 3, 4, " text ", "Constraint"]) == AddNote(
        "file:///a.py", 3, 4, "text", Category.CONSTRAINT
    )
    assert parse_add_note(["u", 0, 0, "t"]).category is Category.OTHER
    assert parse_id(Command.CONFIRM, ["abc"]) == "abc"
    assert parse_confirm(["abc"]) == ("abc", "")  # as saved
    assert parse_confirm(["abc", "file:///wt/a.py"]) == ("abc", "file:///wt/a.py")  # from that checkout
    assert parse_show_notes(["u"]).ref == ""
    assert parse_recall(["u"]) == ("u", None)
    assert parse_recall(["u", 7]) == ("u", 7)


@pytest.mark.parametrize(
    ("parse", "args", "message"),
    [
        (parse_add_note, ["u", 1, 2], "the note's text is missing: give it as argument 4"),
        (parse_add_note, ["u", -1, 2, "t"], "argument 2 must be the line"),
        (parse_add_note, ["u", True, 2, "t"], "argument 2 must be the line"),
        (parse_add_note, ["u", 1, 2, "t", "gossip"], "category must be one of decision, constraint"),
        (parse_add_note, ["u", 1, 2, "t", "other", "extra"], "at most 5 arguments"),
        (lambda a: parse_id(Command.ARCHIVE, a), [], "graphmem.archive: argument 1 must be the note's id"),
        (parse_show_notes, ["u", 3], "argument 2 must be a symbol ref"),
        (parse_recall, ["u", "x"], "argument 2 must be the cursor line"),
    ],
)
def test_bad_command_arguments_say_what_is_expected(parse: object, args: list[object], message: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        parse(args)  # type: ignore[operator]
    assert message in str(err.value)
    assert err.value.exit_code == 64


# ---------------------------------------------------------------------------- roots and routing


def test_roots_pick_the_deepest_repository_and_nothing_outside() -> None:
    roots = Roots([("outer", "/src/mono"), ("inner", "/src/mono/vendor/lib")])
    assert roots.locate("/src/mono/app/x.py") == Location("outer", "/src/mono", "app/x.py")
    assert roots.locate("/src/mono/vendor/lib/y.py") == Location("inner", "/src/mono/vendor/lib", "y.py")
    assert roots.locate("/src/monolith/x.py") is None
    assert roots.locate("/src/mono") is None
    assert roots.ids == {"outer", "inner"}
    assert Roots().locate("/a/b") is None


def test_a_confirm_without_a_document_is_judged_from_the_workspace_checkout_of_the_notes_repository() -> None:
    roots = Roots(
        [("app", "/src/app"), ("app-wt", "/src/app-wt"), ("lib", "/src/lib"), ("old", "/src/old")],
        {"app": "R", "app-wt": "R", "lib": "L"},  # "old": from an older daemon, no repository named
    )
    assert roots.checkout_at("/src/app-wt") == ("app-wt", "/src/app-wt")
    assert roots.checkout_at("/src/app-wt/pkg") == ("app-wt", "/src/app-wt")
    assert roots.checkout_at("/src") is None
    assert roots.workspace_checkout(["/src/app-wt"], "app") == "/src/app-wt"  # the worktree judges it
    assert roots.workspace_checkout(["/elsewhere", "/src/lib", "/src/app-wt/pkg"], "app") == "/src/app-wt"
    assert roots.workspace_checkout(["/src/app", "/src/app-wt"], "app") == ""  # two of its checkouts: as saved
    assert roots.workspace_checkout(["/src/lib"], "app") == ""  # another repository's checkout: as saved
    assert roots.workspace_checkout(["/src"], "app") == ""  # a folder holding checkouts is none of them
    assert roots.workspace_checkout([], "app") == ""
    assert roots.workspace_checkout(["/src/old/x"], "old") == "/src/old"
    assert roots.workspace_checkout(["/src/app-wt"], "old") == ""


def test_events_route_to_the_files_they_name() -> None:
    known = {"r"}
    stale = Event(EventKind.OBSERVATION_STALE, NOW, "r", seq=5, observation=obs(ObservationStatus.STALE))
    assert route(stale, known).files == {("r", "a.py")}
    assert not route(stale, known).roots
    bare = Event(EventKind.OBSERVATION_CHANGED, NOW, "r", observation_id="o1")
    assert route(bare, known).repos == {"r"}
    indexed = Event(EventKind.FILE_INDEXED, NOW, "r", path="b.py")
    assert route(indexed, known).files == {("r", "b.py")}
    new_repo = Event(EventKind.INDEX_PROGRESS, NOW, "s")
    assert route(new_repo, known).roots
    assert route(new_repo, known).status
    lost = route(Event(EventKind.EVENTS_LOST, NOW, "", message="1-9"), known)
    assert lost.everything
    assert lost.roots
    assert lost.status
    assert route(Event(EventKind.INDEX_DURABLE, NOW, "r"), known) == route(
        Event(EventKind.INDEX_DURABLE, NOW, "r"), known
    )
    assert not route(Event(EventKind.INDEX_DURABLE, NOW, "r"), known).files


# ---------------------------------------------------------------------------- present


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (5, "just now"),
        (300, "5 min ago"),
        (7200, "2 h ago"),
        (3 * 86400, "3 d ago"),
        (90 * 86400, "3 mo ago"),
        (800 * 86400, "2 y ago"),
    ],
)
def test_ages(seconds: float, text: str) -> None:
    assert age(seconds) == text


def test_lens_titles() -> None:
    assert lens_title([obs()]) == "1 note"
    assert (
        lens_title([obs(), obs(ObservationStatus.STALE), obs(ObservationStatus.SUSPECT)])
        == "3 notes · 1 stale · 1 suspect"
    )
    assert lens_title([obs(needs_review=True)]) == "1 note · 1 to review"


def test_note_and_recall_json() -> None:
    o = obs(confirmed_by="alice", confirmed_at=NOW - 60)
    shape = note_json(o, NOW)
    assert shape["anchors"] == ["a.py::f"]
    assert shape["statusText"] == "fresh"
    assert shape["age"] == "1 min ago"
    assert shape["confirmed"] == "2027-01-15T07:59:00Z"
    assert shape["confirmedBy"] == "alice"
    result = RecallResult(
        results=(Recalled(o, 0.5, 1, "a.py::g -CALLS-> a.py::f", (Hop("a.py::g", EdgeKind.CALLS, "a.py::f"),)),),
        freshness=Freshness(True),
    )
    out = recall_json(result, NOW)
    assert out["current"] is True
    assert out["results"] == [
        {
            "note": shape,
            "score": 0.5,
            "distance": 1,
            "why": "a.py::g -CALLS-> a.py::f",
            "path": [{"from": "a.py::g", "edge": "CALLS", "to": "a.py::f"}],
        }
    ]


def test_status_json() -> None:
    down = status_json(None, "nothing answers")
    assert (down["daemon"], down["detail"]) == ("down", "nothing answers")
    st = Status(
        version="0.1.0",
        pid=1,
        uptime_seconds=1.0,
        socket_path="s",
        store_path="p",
        store_size_bytes=0,
        journal_path="j",
        serving=True,
        repositories=(
            Repository("r", "/r", IndexState.READY),
            Repository("s", "/s", IndexState.INDEXING, files_done=3, files_total=9),
        ),
    )
    up = status_json(st)
    assert up["daemon"] == "running"
    assert up["summary"] == "graphmem: ok · indexing 1 of 2 repositories"
    repos = up["repositories"]
    assert isinstance(repos, list)
    assert repos[1]["filesDone"] == 3
    assert repos[0]["current"] is True
    degraded = status_json(dataclasses.replace(st, degraded_reasons=("watcher: gone",)))
    assert (degraded["daemon"], degraded["detail"]) == ("degraded", "watcher: gone")
    assert str(degraded["summary"]).startswith("graphmem: DEGRADED")
