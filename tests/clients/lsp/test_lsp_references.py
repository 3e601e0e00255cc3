"""PURE: a knowledge file's references to code as diagnostics at their exact span on the
buffer (through the unsaved-edit line mapping), their messages, severities, routing and the
replace quick fixes."""

from __future__ import annotations

from dataclasses import replace

from graphmem.lsp.present import reference_message
from graphmem.lsp.references import is_knowledge_path, reference_diagnostics, replace_actions
from graphmem.lsp.routing import route
from graphmem.lsp.settings import Settings, Severity, parse_settings
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    Event,
    EventKind,
    KnowledgeKind,
    KnowledgeReference,
    KnowledgeSource,
    Observation,
    ReferenceState,
)
from lsprotocol import types as lsp

DISK = [
    "# Auth",
    "",
    "Passwords go through `hash_password()` before storage.",
    "Tokens: see :func:`make_token` and `crypto.SALT`.",
]


def ref(text: str, line: int, column: int, state: ReferenceState, **extra: object) -> KnowledgeReference:
    return KnowledgeReference(
        text,
        "docs/auth.md",
        line,
        column,
        line,
        column + len(text),
        state=state,
        **extra,  # type: ignore[arg-type]
    )


DANGLING = ref(
    "hash_password()",
    3,
    23,
    ReferenceState.DANGLING,
    target_ref="app/auth/crypto.py::hash_password",
    reason="`hash_password` was renamed to `digest_password` in a1b2c3d4",
    renamed_to="app/auth/crypto.py::digest_password",
    commit="a1b2c3d4e5f6",
    close_matches=("app/auth/crypto.py::digest_password", "app/auth/crypto.py::check_password"),
)
SUSPECT = ref(":func:`make_token`", 4, 13, ReferenceState.SUSPECT, reason="the body of make_token changed")


def spans(found: list[lsp.Diagnostic]) -> list[tuple[int, int, int, int, str]]:
    return [
        (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, str(d.code))
        for d in found
    ]


def test_the_spans_are_exact_and_the_message_says_what_happened() -> None:
    found = reference_diagnostics([SUSPECT, DANGLING], DISK, DISK, Settings())
    assert spans(found) == [(2, 22, 2, 37, "dangling-reference"), (3, 12, 3, 30, "suspect-reference")]
    assert DISK[2][22:37] == "hash_password()"
    assert DISK[3][12:30] == ":func:`make_token`"
    assert [d.severity for d in found] == [lsp.DiagnosticSeverity.Warning, lsp.DiagnosticSeverity.Information]
    message = found[0].message
    assert message.startswith("graphmem: dangling reference `hash_password()` (app/auth/crypto.py::hash_password)")
    assert "renamed to `digest_password` in a1b2c3d4" in message
    assert "renamed to `app/auth/crypto.py::digest_password`" not in message  # the reason says it
    assert "renamed to `app/auth/crypto.py::digest_password`" in reference_message(replace(DANGLING, reason=""))
    assert "close matches: `app/auth/crypto.py::check_password`" in message
    assert "suspect reference `:func:`make_token``" in found[1].message
    assert "the body of make_token changed" in found[1].message


def test_unsaved_edits_move_the_span_with_its_line_and_hide_an_edited_line() -> None:
    buffer = ["# Auth", "", "New paragraph.", "", *DISK[2:]]
    assert spans(reference_diagnostics([DANGLING, SUSPECT], DISK, buffer, Settings())) == [
        (4, 22, 4, 37, "dangling-reference"),
        (5, 12, 5, 30, "suspect-reference"),
    ]
    edited = [*DISK[:2], "Passwords go through `digest_password()` now.", DISK[3]]
    assert spans(reference_diagnostics([DANGLING, SUSPECT], DISK, edited, Settings())) == [
        (3, 12, 3, 30, "suspect-reference")
    ]
    assert reference_diagnostics([ref("x", 9, 1, ReferenceState.DANGLING)], DISK, DISK, Settings()) == []
    # the file changed on disk after the daemon read it: the span no longer holds the reference
    moved_on_disk = [*DISK[:2], "Passwords: `hash_password()` before storage.", DISK[3]]
    assert reference_diagnostics([DANGLING], moved_on_disk, moved_on_disk, Settings()) == []


def test_columns_are_in_the_clients_encoding() -> None:
    disk = ["Über `f` 😀 `g`"]
    r = ref("g", 1, 13, ReferenceState.STALE)
    assert disk[0][12:13] == "g"
    assert spans(reference_diagnostics([r], disk, disk, Settings())) == [(0, 13, 0, 14, "stale-reference")]
    assert spans(reference_diagnostics([r], disk, disk, Settings(), "utf-8")) == [(0, 16, 0, 17, "stale-reference")]


def test_severities_are_configurable() -> None:
    settings, warnings = parse_settings(
        {"graphmem": {"diagnosticSeverity": {"reference": "error", "suspectReference": "off"}}}, Settings()
    )
    assert warnings == ()
    assert (settings.reference, settings.suspect_reference) == (Severity.ERROR, Severity.OFF)
    found = reference_diagnostics([DANGLING, SUSPECT], DISK, DISK, settings)
    assert [(d.code, d.severity) for d in found] == [("dangling-reference", lsp.DiagnosticSeverity.Error)]
    # A single severity sets the notes' only.
    assert parse_settings({"diagnosticSeverity": "hint"}, Settings())[0].reference is Severity.WARNING


def test_quick_fixes_replace_the_span_keeping_how_the_reference_was_written() -> None:
    uri = "file:///r/docs/auth.md"
    found = reference_diagnostics([DANGLING, SUSPECT], DISK, DISK, Settings())
    actions = replace_actions(uri, found)
    assert [(a.title, a.is_preferred) for a in actions] == [
        ("graphmem: replace with digest_password()", True),
        ("graphmem: replace with check_password()", False),
    ]
    assert actions[0].edit is not None
    assert actions[0].edit.changes is not None
    (edit,) = actions[0].edit.changes[uri]
    assert (edit.range, edit.new_text) == (found[0].range, "digest_password()")
    role = ref(":func:`make_token`", 4, 13, ReferenceState.DANGLING, close_matches=("app/auth/crypto.py::make_jwt",))
    (fix,) = replace_actions(uri, reference_diagnostics([role], DISK, DISK, Settings()))
    assert fix.edit is not None
    assert fix.edit.changes is not None
    assert fix.edit.changes[uri][0].new_text == ":func:`make_jwt`"
    other = lsp.Diagnostic(range=found[0].range, message="x", source="ruff", data={"fixes": ["y"], "reference": "x"})
    assert replace_actions(uri, [other]) == []


def test_which_files_are_knowledge_files_and_which_events_recheck_them() -> None:
    assert all(map(is_knowledge_path, ["/r/docs/a.md", "/r/README.rst", "/r/x.MDX", "/r/.cursorrules"]))
    assert not any(map(is_knowledge_path, ["/r/app.py", "/r/md", "/r/notes.txt"]))
    indexed = route(Event(EventKind.FILE_INDEXED, 0.0, "r", seq=1, path="app/auth/crypto.py"), {"r"})
    assert indexed.knowledge == frozenset({"r"})
    unit = Observation(
        id="u",
        repo_id="r",
        text="t",
        category=Category.OTHER,
        created_at=0.0,
        updated_at=0.0,
        anchors=(Anchor(AnchorKind.SYMBOL, "app/auth/crypto.py::f", "r", "app/auth/crypto.py", symbol_id="s"),),
        knowledge=KnowledgeSource("docs/auth.md", 3, 3, (), KnowledgeKind.DOCUMENTATION),
    )
    stale = route(Event(EventKind.OBSERVATION_STALE, 0.0, "r", seq=2, observation=unit), {"r"})
    assert stale.files == frozenset({("r", "app/auth/crypto.py"), ("r", "docs/auth.md")})
    assert stale.knowledge == frozenset({"r"})
    assert route(Event(EventKind.INDEX_PROGRESS, 0.0, "r", seq=3), {"r"}).knowledge == frozenset()
