"""PURE: hovers, code lenses, diagnostics and code actions of one document (graphmem.lsp.view)
from an outline, the indexed text and an edited buffer; no server, no daemon."""

from __future__ import annotations

from dataclasses import replace

from graphmem.lsp.positions import split_lines
from graphmem.lsp.settings import Settings, Severity
from graphmem.lsp.view import FileView
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    FileOutline,
    Observation,
    ObservationStatus,
    StaleReason,
    Symbol,
)
from lsprotocol import types as lsp

NOW = 1_800_000_000.0
TEXT = '''"""Auth."""


class AuthService:
    def login(self, user: str) -> bool:
        return check(user)

    def logout(self) -> None:
        pass


def check(user: str) -> bool:
    return bool(user)
'''


def sym(qualname: str, kind: str, start: int, end: int) -> Symbol:
    name = qualname.rpartition(".")[2]
    return Symbol(f"r:auth.py::{qualname}#{kind}", "r", "auth.py", name, qualname, kind, "python", start, end, "")


SYMBOLS = (
    sym("AuthService", "class", 4, 9),
    sym("AuthService.login", "method", 5, 6),
    sym("AuthService.logout", "method", 8, 9),
    sym("check", "function", 12, 13),
)


def anchor(qualname: str | None) -> Anchor:
    if qualname is None:
        return Anchor(AnchorKind.FILE, "auth.py", "r", "auth.py")
    kind = "class" if qualname == "AuthService" else "function" if qualname == "check" else "method"
    return Anchor(AnchorKind.SYMBOL, f"auth.py::{qualname}", "r", "auth.py", symbol_id=f"r:auth.py::{qualname}#{kind}")


def note(
    obs_id: str,
    text: str,
    on: str | None,
    status: ObservationStatus = ObservationStatus.FRESH,
    reason: StaleReason | None = None,
    **extra: object,
) -> Observation:
    return Observation(
        id=obs_id,
        repo_id="r",
        text=text,
        category=Category.CONSTRAINT,
        created_at=NOW - 3 * 86400,
        updated_at=NOW - 3600,
        status=status,
        source="cli",
        anchors=(anchor(on),),
        stale_reasons=(reason,) if reason else (),
        **extra,  # type: ignore[arg-type]
    )


BODY = StaleReason(
    "auth.py::AuthService.login",
    ChangeKind.BODY_CHANGED,
    NOW - 7200,
    commit="0123456789abcdef",
    detail="the body of auth.py::AuthService.login changed",
)
SUSPECT = StaleReason(
    "auth.py::AuthService.login",
    ChangeKind.DEPENDENCY_CHANGED,
    NOW - 60,
    detail="auth.py::AuthService.login calls auth.py::check, whose signature changed",
    dependency_ref="auth.py::check",
    via="CALLS",
)
NOTES = (
    note("n1", "login retries are capped at 3", "AuthService.login", confirmed_by="alice", confirmed_at=NOW - 600),
    note("n2", "login must stay constant-time", "AuthService.login", ObservationStatus.STALE, BODY),
    note("n3", "check is called on every request", "check", ObservationStatus.SUSPECT, SUSPECT),
    note("n4", "this module is security-reviewed", None),
    note(
        "n5",
        "the old audit hook",
        "AuthService.audit",
        ObservationStatus.STALE,
        StaleReason(
            "auth.py::AuthService.audit", ChangeKind.REMOVED, NOW - 10, detail="auth.py::AuthService.audit was removed"
        ),
    ),
)
OUTLINE = FileOutline("r", "/repo", "auth.py", True, "h", "python", SYMBOLS, NOTES)


def view(buffer: str = TEXT, indexed: str | None = TEXT, encoding: str = "utf-16") -> FileView:
    return FileView(OUTLINE, split_lines(indexed) if indexed is not None else None, split_lines(buffer), encoding)


def hover_value(v: FileView, line: int, character: int) -> str:
    h = v.hover(line, character, NOW)
    assert h is None or isinstance(h.contents, lsp.MarkupContent)
    return h.contents.value if h is not None and isinstance(h.contents, lsp.MarkupContent) else ""


def test_hover_shows_each_note_with_status_reason_category_age_and_who_confirmed() -> None:
    text = hover_value(view(), 4, 9)  # on "login"
    assert text.startswith("**graphmem** · 2 notes on `AuthService.login`")
    assert "login retries are capped at 3" in text
    assert "login must stay constant-time" in text
    assert "**constraint** · fresh · saved 3 d ago by cli · confirmed by alice 10 min ago" in text
    assert "⚠ stale: \\`auth.py::AuthService.login\\`: body changed, in 0123456 (2 h ago)" in text
    suspect = hover_value(view(), 11, 5)
    assert "? suspect: \\`auth.py::AuthService.login\\`: calls \\`auth.py::check\\`, whose signature changed" in suspect
    assert hover_value(view(), 7, 9) == ""  # logout: no notes
    assert hover_value(view(), 5, 9) == ""  # inside login's body, not on its name
    first_line = hover_value(view(), 0, 2)
    assert "2 notes on `auth.py`" in first_line
    assert "AuthService.audit\\`: removed" in first_line


def test_code_lenses_count_notes_and_open_them() -> None:
    found = view().code_lenses("file:///repo/auth.py")
    assert [(c.range.start.line, c.command.title if c.command else "") for c in found] == [
        (0, "2 notes · 1 stale"),
        (4, "2 notes · 1 stale"),
        (11, "1 note · 1 suspect"),
    ]
    assert found[1].command is not None
    assert found[1].command.command == "graphmem.showNotes"
    assert found[1].command.arguments == ["file:///repo/auth.py", "auth.py::AuthService.login"]


def test_diagnostics_sit_on_the_anchored_names_with_the_configured_severity() -> None:
    found = view().diagnostics(Settings(), NOW)
    assert [
        (d.range.start.line, d.range.start.character, d.range.end.character, d.severity, d.code) for d in found
    ] == [
        (0, 0, 11, lsp.DiagnosticSeverity.Information, "stale-note"),
        (4, 8, 13, lsp.DiagnosticSeverity.Information, "stale-note"),
        (11, 4, 9, lsp.DiagnosticSeverity.Hint, "suspect-note"),
    ]
    assert found[1].data == {"id": "n2", "ref": "auth.py::AuthService.login"}
    assert found[1].message.startswith("graphmem constraint note is stale: `auth.py::AuthService.login`: body changed")
    loud = view().diagnostics(Settings(stale=Severity.WARNING, suspect=Severity.OFF), NOW)
    assert [(d.range.start.line, d.severity) for d in loud] == [
        (0, lsp.DiagnosticSeverity.Warning),
        (4, lsp.DiagnosticSeverity.Warning),
    ]


def test_a_note_suspect_only_because_a_name_it_uses_is_deprecated_is_struck_through() -> None:
    served = StaleReason(
        "auth.py::check",
        ChangeKind.DEPRECATED,
        NOW - 60,
        detail="auth.py::check is gone; auth.__getattr__ still serves it, with a warning",
        served_by="auth.__getattr__",
    )
    deprecated = note("n6", "check is called on every request", "check", ObservationStatus.SUSPECT, served)
    v = FileView(
        FileOutline("r", "/repo", "auth.py", True, "h", "python", SYMBOLS, (NOTES[2], deprecated)),
        split_lines(TEXT),
        split_lines(TEXT),
        "utf-16",
    )
    tags = {str(d.data["id"]): d.tags for d in v.diagnostics(Settings(), NOW) if isinstance(d.data, dict)}
    assert tags == {"n3": None, "n6": [lsp.DiagnosticTag.Deprecated]}  # a dependency's change is no deprecation


def test_unsaved_edits_move_the_diagnostics_with_their_symbols() -> None:
    edited = TEXT.replace('"""Auth."""\n', '"""Auth."""\nimport os\nimport sys\n')
    found = view(edited).diagnostics(Settings(), NOW)
    assert [(d.range.start.line, d.range.start.character) for d in found] == [(0, 0), (6, 8), (13, 4)]
    assert "constant-time" in hover_value(view(edited), 6, 9)
    assert hover_value(view(edited), 4, 9) == ""
    renamed = TEXT.replace("def login(", "def sign_in(")
    assert [d.range.start.line for d in view(renamed).diagnostics(Settings(), NOW)] == [0, 11]


def test_columns_follow_the_client_encoding() -> None:
    wide = TEXT.replace('"""Auth."""', '"""Auth 😀."""').replace("    def login(", "    def  login(")
    v = view(wide, indexed=None)
    d = next(x for x in v.diagnostics(Settings(), NOW) if x.range.start.line == 4)
    assert (d.range.start.character, d.range.end.character) == (9, 14)
    first = next(x for x in v.diagnostics(Settings(), NOW) if x.range.start.line == 0)
    assert first.range.end.character == len('"""Auth 😀."""') + 1  # UTF-16: the emoji is two units
    assert view(wide, indexed=None, encoding="utf-32").diagnostics(Settings(), NOW)[0].range.end.character == 13


def test_code_actions_confirm_or_archive_the_notes_at_the_cursor() -> None:
    v = view()
    diags = v.diagnostics(Settings(), NOW)
    at_login = [d for d in diags if d.range.start.line == 4]
    actions = v.code_actions("file:///repo/auth.py", at_login[0].range, at_login, Settings())
    assert [
        (a.title, a.command.command if a.command else "", a.command.arguments if a.command else None) for a in actions
    ] == [
        ("graphmem: confirm note n2 (it still holds)", "graphmem.confirm", ["n2", "file:///repo/auth.py"]),
        ("graphmem: archive note n2", "graphmem.archive", ["n2"]),
    ]
    assert actions[0].diagnostics == at_login
    assert actions[0].is_preferred
    inside = lsp.Range(start=lsp.Position(5, 10), end=lsp.Position(5, 10))  # in login's body, no diagnostics sent
    assert [a.title for a in v.code_actions("u", inside, [], Settings())][:1] == [
        "graphmem: confirm note n2 (it still holds)"
    ]
    prompts = v.code_actions("u", inside, [], Settings(client_prompts=True))
    add = prompts[-1]
    assert add.title == "graphmem: add a note to AuthService.login"
    assert add.command is not None
    assert add.command.arguments == ["u", 5, 10]
    at_logout = lsp.Range(start=lsp.Position(8, 8), end=lsp.Position(8, 8))
    assert [a.title for a in v.code_actions("u", at_logout, [], Settings(client_prompts=True))] == [
        "graphmem: add a note to AuthService.logout"
    ]


def test_enclosing_symbol_and_notes_by_ref() -> None:
    v = view()
    assert v.enclosing(5) is not None
    assert v.enclosing(5).qualname == "AuthService.login"
    assert v.enclosing(6) is not None
    assert v.enclosing(6).qualname == "AuthService"
    assert v.enclosing(1) is None
    assert v.ref_of(None) == "auth.py"
    assert [o.id for o in v.notes_for("auth.py::AuthService.login")] == ["n1", "n2"]
    assert [o.id for o in v.notes_for("")] == ["n4", "n5"]
    assert v.notes_for("auth.py::nope") == []
    assert [o.id for o in v.notes_for("*")] == ["n1", "n2", "n3", "n4", "n5"]


def test_a_note_the_daemon_would_not_confirm_from_here_offers_no_confirm_and_says_why() -> None:
    """A note stale only in this worktree (the daemon's ``confirm_refused``, as the checkout
    shows it): archive is offered, confirm is not, and the hover says why."""
    why = "n2 is stale only in this checkout: it was saved in /src/app (branch main), ..."
    notes = tuple(replace(o, confirm_refused=why) if o.id == "n2" else o for o in NOTES)
    v = FileView(replace(OUTLINE, observations=notes), split_lines(TEXT), split_lines(TEXT), "utf-16")
    at_login = [d for d in v.diagnostics(Settings(), NOW) if d.range.start.line == 4]
    assert [a.title for a in v.code_actions("u", at_login[0].range, at_login, Settings())] == [
        "graphmem: archive note n2"
    ]
    assert "Not confirmable here: n2 is stale only in this checkout" in hover_value(v, 4, 9)
