"""``graphmem lsp`` end to end: pytest-lsp's real LSP client over stdio, a real daemon on a copy
of ``fixtures/repos/python``, real files changed on disk.

Hover, code lens and diagnostics appear; an edit on disk that changes a body publishes the
stale diagnostic within 1 s; the confirm code action clears it; unsaved edits that shift
lines keep diagnostics on the right symbol; a file outside every repository gets nothing (and
costs no call to the daemon); a stopped daemon does not crash the server, which tells the
user once and comes back when the daemon does.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, short_tmp
from graphmem.types import Category, ObservationStatus
from lsplib import (
    eventually,
    execute,
    graphmem_diagnostics,
    hover_text,
    lenses,
    lenses_become,
    open_file,
    replace_text,
    start_server,
    stop_server,
)
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio

CRYPTO = "app/auth/crypto.py"
HASH = f"{CRYPTO}::hash_password"  # `def hash_password` is line 7 (0-based), name at 4..17
TOKEN = f"{CRYPTO}::make_token"  # line 11, name at 4..14
OLD_BODY = "return digest(password, salt=SALT)"
NEW_BODY = "return digest(password.strip(), salt=SALT)"


def note(d: Daemon, text: str, anchor: str, category: Category = Category.CONSTRAINT) -> str:
    with d.client() as gm:
        return gm.observe(text, anchors=[anchor], repo=str(d.repos[0]), category=category).id


def make_stale(d: Daemon, obs_id: str, edit: Callable[[], None]) -> None:
    edit()
    with d.client() as gm:
        deadline = time.monotonic() + 10
        while gm.get(obs_id).status is not ObservationStatus.STALE:
            assert time.monotonic() < deadline, "the note did not go stale"
            time.sleep(0.02)


async def diagnostics_where(
    client: LanguageClient, uri: str, want: Callable[[list[lsp.Diagnostic]], bool], timeout: float = 10.0
) -> list[lsp.Diagnostic]:
    async def probe() -> tuple[list[lsp.Diagnostic]] | None:
        found = graphmem_diagnostics(client, uri)
        return (found,) if uri in client.diagnostics and want(found) else None

    return (await eventually(probe, timeout))[0]


async def test_hover_code_lens_and_diagnostics_appear(py_daemon: Daemon) -> None:
    repo = py_daemon.repos[0]
    fresh = note(py_daemon, "hash_password must stay constant-time", HASH)
    stale = note(py_daemon, "tokens are base64 of the user id", TOKEN, Category.DECISION)
    crypto = repo / CRYPTO
    make_stale(
        py_daemon,
        stale,
        lambda: crypto.write_text(crypto.read_text().replace("return b64(payload())", "return b64(payload()) or ''")),
    )
    client = await start_server(py_daemon.home)
    try:
        uri = open_file(client, crypto)
        found = await diagnostics_where(client, uri, bool)
        assert [(d.range.start.line, d.range.start.character, d.range.end.character, d.code) for d in found] == [
            (11, 4, 14, "stale-note")
        ]
        assert found[0].severity == lsp.DiagnosticSeverity.Information
        assert "is stale: `app/auth/crypto.py::make_token`: body changed" in found[0].message
        assert found[0].data == {"id": stale, "ref": TOKEN}
        text = await hover_text(client, uri, 7, 8)
        assert "1 note on `hash_password`" in text
        assert "hash_password must stay constant-time" in text
        assert f"**constraint** · fresh · saved just now by python-client · `{fresh}`" in text
        hover = await hover_text(client, uri, 11, 6)
        assert "⚠ stale: \\`app/auth/crypto.py::make_token\\`: body changed" in hover
        assert await hover_text(client, uri, 3, 2) == ""
        assert await lenses(client, uri) == [(7, "1 note"), (11, "1 note · 1 stale")]
        shown = await execute(client, "graphmem.showNotes", uri, TOKEN)
        assert [n["id"] for n in shown["notes"]] == [stale]
        assert shown["notes"][0]["status"] == "stale"
        assert "tokens are base64 of the user id" in client.messages[-1].message
    finally:
        await stop_server(client)


async def test_a_save_that_changes_a_body_publishes_the_stale_diagnostic_within_a_second_and_confirm_clears_it(
    py_daemon: Daemon,
) -> None:
    obs_id = note(py_daemon, "hash_password must stay constant-time", HASH)
    crypto = py_daemon.repos[0] / CRYPTO
    client = await start_server(py_daemon.home)
    try:
        uri = open_file(client, crypto)
        await diagnostics_where(client, uri, lambda found: found == [])
        refreshes = client.lens_refreshes  # type: ignore[attr-defined]
        saved = time.monotonic()
        crypto.write_text(crypto.read_text().replace(OLD_BODY, NEW_BODY))
        found = await diagnostics_where(client, uri, bool)
        delay = time.monotonic() - saved
        assert delay <= 1.0, f"the stale diagnostic took {delay:.3f} s"
        assert [(d.range.start.line, d.range.start.character, d.data) for d in found] == [
            (7, 4, {"id": obs_id, "ref": HASH})
        ]
        await eventually(lambda: _async(client.lens_refreshes > refreshes), 5)  # type: ignore[attr-defined]
        assert await lenses(client, uri) == [(7, "1 note · 1 stale")]

        actions = await client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=found[0].range,
                context=lsp.CodeActionContext(diagnostics=found),
            )
        )
        confirm = next(
            a for a in actions or [] if isinstance(a, lsp.CodeAction) and a.title.startswith("graphmem: confirm")
        )
        assert confirm.command is not None
        result = await execute(client, confirm.command.command, *(confirm.command.arguments or []))
        assert result["id"] == obs_id
        assert result["status"] == "fresh"
        assert result["confirmedBy"]
        await diagnostics_where(client, uri, lambda found: found == [], 5)
        with py_daemon.client() as gm:
            assert gm.get(obs_id).status is ObservationStatus.FRESH

        # Changing it back to what it was confirmed against is not stale; a second change is.
        crypto.write_text(crypto.read_text().replace(NEW_BODY, "return digest(password.lower(), salt=SALT)"))
        await diagnostics_where(client, uri, bool, 5)
        archive = await execute(client, "graphmem.archive", obs_id)
        assert archive["status"] == "archived"
        await diagnostics_where(client, uri, lambda found: found == [], 5)
        assert await lenses(client, uri) == []
    finally:
        await stop_server(client)


async def _async(value: object) -> object:
    return value


async def test_unsaved_edits_that_shift_lines_keep_diagnostics_on_the_right_symbol(py_daemon: Daemon) -> None:
    obs_id = note(py_daemon, "tokens are base64", TOKEN)
    crypto = py_daemon.repos[0] / CRYPTO
    make_stale(
        py_daemon,
        obs_id,
        lambda: crypto.write_text(crypto.read_text().replace("return b64(payload())", "return b64(payload()) or ''")),
    )
    client = await start_server(py_daemon.home)
    try:
        uri = open_file(client, crypto)
        await diagnostics_where(client, uri, lambda found: [d.range.start.line for d in found] == [11])
        text = crypto.read_text()
        shifted = text.replace(
            '"""Password hashing and session tokens."""\n',
            '"""Password hashing and session tokens."""\nimport os\nimport sys\n\n',
        )
        replace_text(client, uri, shifted, 2)
        found = await diagnostics_where(client, uri, lambda found: [d.range.start.line for d in found] == [14])
        assert (found[0].range.start.character, found[0].range.end.character) == (4, 14)
        assert "tokens are base64" in await hover_text(client, uri, 14, 6)
        assert await hover_text(client, uri, 11, 6) == ""  # what is on the old line now is hash_password's body
        assert await lenses(client, uri) == [(14, "1 note · 1 stale")]

        # The definition line itself edited away (renamed, unsaved): shown nowhere rather than on a wrong line.
        replace_text(client, uri, shifted.replace("def make_token(", "def make_session_token("), 3)
        await diagnostics_where(client, uri, lambda found: found == [])
        assert await lenses(client, uri) == []
        replace_text(
            client,
            uri,
            shifted.replace("def make_token(user_id: int)", "def make_token(user_id: int, ttl: int = 60)"),
            4,
        )
        found = await diagnostics_where(client, uri, lambda found: [d.range.start.line for d in found] == [14])
        assert found[0].range.start.character == 4
    finally:
        await stop_server(client)


async def test_a_file_outside_every_repository_gets_nothing_and_costs_nothing(
    py_daemon: Daemon, tmp_path: Path
) -> None:
    note(py_daemon, "hash_password must stay constant-time", HASH)
    outside = tmp_path / "crypto.py"
    outside.write_text((py_daemon.repos[0] / CRYPTO).read_text())
    client = await start_server(py_daemon.home)
    try:
        inside = open_file(client, py_daemon.repos[0] / CRYPTO)
        await diagnostics_where(client, inside, lambda found: found == [])
        calls = (await execute(client, "graphmem.status"))["calls"]
        uri = open_file(client, outside)
        assert await hover_text(client, uri, 7, 8) == ""
        assert await lenses(client, uri) == []
        actions = await client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=lsp.Range(start=lsp.Position(7, 4), end=lsp.Position(7, 4)),
                context=lsp.CodeActionContext(diagnostics=[]),
            )
        )
        assert not actions
        assert (await execute(client, "graphmem.status"))["calls"] == calls + 1  # the status read itself only
        assert uri not in client.diagnostics
        with pytest.raises(Exception, match="is not inside a repository registered with graphmem"):
            await execute(client, "graphmem.addNote", uri, 7, 4, "a note")
    finally:
        await stop_server(client)


async def test_add_note_recall_and_severity_settings(py_daemon: Daemon) -> None:
    crypto = py_daemon.repos[0] / CRYPTO
    client = await start_server(py_daemon.home, {"diagnosticSeverity": {"stale": "warning"}, "notesAsMessage": False})
    try:
        uri = open_file(client, crypto)
        await diagnostics_where(client, uri, lambda found: found == [])
        saved = await execute(client, "graphmem.addNote", uri, 8, 10, "hashing must stay constant-time", "constraint")
        assert saved["anchors"] == [HASH]
        assert saved["category"] == "constraint"
        assert saved["source"] == "lsp:pytest-lsp"
        file_note = await execute(client, "graphmem.addNote", uri, 2, 0, "this module is security-reviewed")
        assert file_note["anchors"] == [CRYPTO]
        # the server reads the document again after each note, in batches: the first lens may come alone
        await lenses_become(client, uri, [(0, "1 note"), (7, "1 note")])
        with pytest.raises(Exception, match="the note's text is missing"):
            await execute(client, "graphmem.addNote", uri, 8, 10)

        routes = py_daemon.repos[0] / "app/api/routes.py"
        routes_uri = open_file(client, routes)
        recalled = await execute(client, "graphmem.recall", routes_uri)
        ids = [r["note"]["id"] for r in recalled["results"]]
        assert saved["id"] in ids
        hit = recalled["results"][ids.index(saved["id"])]
        assert hit["distance"] >= 1
        assert "-CALLS->" in hit["why"]
        assert hit["path"][0]["edge"] == "CALLS"

        crypto.write_text(crypto.read_text().replace(OLD_BODY, NEW_BODY))
        found = await diagnostics_where(client, uri, bool)
        assert found[0].severity == lsp.DiagnosticSeverity.Warning
        client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams(settings={"graphmem": {"diagnosticSeverity": "off"}})
        )
        await diagnostics_where(client, uri, lambda found: found == [])
        assert client.messages == []  # notesAsMessage is off; nothing else was worth a message
    finally:
        await stop_server(client)


async def test_a_stopped_daemon_does_not_crash_the_server(daemon_factory: Callable[..., Daemon], py_repo: Path) -> None:
    home = short_tmp()
    client = await start_server(home)  # nothing runs there yet
    try:
        crypto = py_repo / CRYPTO
        uri = open_file(client, crypto)
        await eventually(lambda: _async(client.messages), 10)
        assert len(client.messages) == 1
        assert client.messages[0].type == lsp.MessageType.Warning
        assert "graphmem: the daemon is not running" in client.messages[0].message
        began = time.monotonic()
        assert await hover_text(client, uri, 7, 8) == ""
        assert await lenses(client, uri) == []
        status = await execute(client, "graphmem.status")
        assert status["daemon"] == "down"
        assert time.monotonic() - began < 1.0  # no request waits on a daemon that is not there

        d = daemon_factory([py_repo], home=home)  # the daemon starts: the server finds it by itself
        obs_id = note(d, "hash_password must stay constant-time", HASH)
        make_stale(d, obs_id, lambda: crypto.write_text(crypto.read_text().replace(OLD_BODY, NEW_BODY)))
        await diagnostics_where(client, uri, bool, 20)
        assert "1 note on `hash_password`" in await hover_text(client, uri, 7, 8)

        d.stop()  # and stops again: one more message, the server lives on
        await eventually(lambda: _async(len(client.messages) == 2), 10)
        assert (await execute(client, "graphmem.status"))["daemon"] == "down"
        await asyncio.sleep(1.0)  # a few reconnection attempts
        assert len(client.messages) == 2
        assert "1 note on `hash_password`" in await hover_text(client, uri, 7, 8)  # what it knew stays shown
    finally:
        await stop_server(client)


def stdlib_copy() -> Path:
    """A repository of the standard library's top-level modules (~130k lines): indexing it keeps
    the daemon's parse workers busy for several seconds."""
    src = Path(sysconfig.get_path("stdlib"))
    dest = short_tmp("gmbig") / "stdlib"
    dest.mkdir()
    for f in src.glob("*.py"):
        shutil.copyfile(f, dest / f.name)
    subprocess.run(["git", "init", "-q"], cwd=dest, check=True)
    return dest


async def test_the_first_hover_on_a_busy_daemon_shows_the_note(py_daemon: Daemon) -> None:
    """A hover and a lens sent right after the file opens, while the daemon indexes a large
    repository, wait for the outline (bounded) instead of answering empty."""
    note(py_daemon, "hash_password must stay constant-time", HASH)
    big = stdlib_copy()
    with py_daemon.client() as gm:
        gm.add_repo(big)  # a large index job: the parse workers are busy from here on
        assert gm.status().repositories[-1].state.value in ("pending", "indexing")
    client = await start_server(py_daemon.home)
    try:
        uri = open_file(client, py_daemon.repos[0] / CRYPTO)
        hover, found = await asyncio.gather(hover_text(client, uri, 7, 8), lenses(client, uri))
        assert "hash_password must stay constant-time" in hover
        assert found == [(7, "1 note")]
        with py_daemon.client() as gm:
            (busy,) = [r for r in gm.status().repositories if r.root == str(big)]
        assert busy.state.value != "ready", "the daemon was not busy during the first hover"
    finally:
        await stop_server(client)


async def test_a_hover_that_cannot_wait_longer_is_answered_and_the_lenses_follow(py_daemon: Daemon) -> None:
    """The daemon does not answer for a while (stopped with SIGSTOP: every call hangs): the
    hover waits at most FIRST_READ_S, answers with what it has, and a lens refresh follows
    when the outline arrives."""
    note(py_daemon, "hash_password must stay constant-time", HASH)
    client = await start_server(py_daemon.home)
    try:
        other = open_file(client, py_daemon.repos[0] / "app/auth/service.py")
        await diagnostics_where(client, other, lambda found: found == [])  # connected, roots read
        refreshes = client.lens_refreshes  # type: ignore[attr-defined]
        os.kill(py_daemon.proc.pid, signal.SIGSTOP)
        try:
            uri = open_file(client, py_daemon.repos[0] / CRYPTO)
            asked = time.monotonic()
            assert await hover_text(client, uri, 7, 8) == ""
            waited = time.monotonic() - asked
            assert 0.9 <= waited <= 1.8, f"the hover waited {waited:.2f} s"
        finally:
            os.kill(py_daemon.proc.pid, signal.SIGCONT)
        await eventually(lambda: _async(client.lens_refreshes > refreshes), 5)  # type: ignore[attr-defined]
        assert await lenses(client, uri) == [(7, "1 note")]
        assert "hash_password must stay constant-time" in await hover_text(client, uri, 7, 8)
    finally:
        await stop_server(client)
