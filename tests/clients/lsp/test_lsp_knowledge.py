"""``graphmem lsp`` in knowledge files, end to end: pytest-lsp's real client over stdio, a real
daemon on a git copy of the ``knowledge`` fixture, code renamed on disk and the Markdown file
fixed on disk."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture
from lsplib import eventually, graphmem_diagnostics, open_file, replace_text, start_server, stop_server
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio

DOC = "CLAUDE.md"
LINE = 6  # 0-based: "Logins go through `AuthService.login`; do not read `users` directly."
SERVICE = "app/auth/service.py"


def git_repo() -> Path:
    """A copy of the knowledge fixture, committed (the references resolved when written)."""
    root = copy_fixture("knowledge")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com"}
    env |= {"GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "the fixture"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
    return root


async def diagnostics_where(
    client: LanguageClient, uri: str, want: Callable[[list[lsp.Diagnostic]], bool], timeout: float = 10.0
) -> list[lsp.Diagnostic]:
    async def probe() -> tuple[list[lsp.Diagnostic]] | None:
        found = graphmem_diagnostics(client, uri)
        return (found,) if uri in client.diagnostics and want(found) else None

    return (await eventually(probe, timeout))[0]


async def test_a_rename_makes_the_reference_a_warning_at_its_span_and_fixing_the_doc_clears_it(
    daemon_factory: Callable[..., Daemon],
) -> None:
    root = git_repo()
    d: Daemon = daemon_factory([root])
    d.wait_idle()
    doc = root / DOC
    line = doc.read_text().split("\n")[LINE]
    start = line.index("AuthService.login")
    client = await start_server(d.home)
    try:
        uri = open_file(client, doc)
        assert await diagnostics_where(client, uri, lambda found: found == []) == []

        saved = time.monotonic()
        service = root / SERVICE
        service.write_text(service.read_text().replace("def login(", "def sign_in("))
        found = await diagnostics_where(client, uri, bool)
        delay = time.monotonic() - saved
        assert delay <= 1.0, f"the reference diagnostic took {delay:.3f} s"
        (warning,) = found
        assert warning.code == "dangling-reference"
        assert warning.severity == lsp.DiagnosticSeverity.Warning
        assert (warning.range.start.line, warning.range.start.character) == (LINE, start)
        assert (warning.range.end.line, warning.range.end.character) == (LINE, start + len("AuthService.login"))
        assert warning.message.startswith("graphmem: dangling reference `AuthService.login`")
        assert "sign_in" in warning.message
        assert "uncommitted" in warning.message, warning.message

        # unsaved lines above move the warning with its line
        text = doc.read_text()
        replace_text(client, uri, "<!-- a comment -->\n\n" + text, 2)
        moved = await diagnostics_where(client, uri, lambda f: bool(f) and f[0].range.start.line == LINE + 2)
        assert moved[0].range.start.character == start
        replace_text(client, uri, text, 3)
        back = await diagnostics_where(client, uri, lambda f: bool(f) and f[0].range.start.line == LINE)

        actions = await client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=back[0].range,
                context=lsp.CodeActionContext(diagnostics=back),
            )
        )
        fix = next(a for a in actions or [] if isinstance(a, lsp.CodeAction) and a.edit is not None)
        assert fix.title == "graphmem: replace with AuthService.sign_in"
        assert fix.edit is not None
        assert fix.edit.changes is not None
        (edit,) = fix.edit.changes[uri]
        assert (edit.range, edit.new_text) == (back[0].range, "AuthService.sign_in")

        # the doc fixed (the quick fix applied and saved): no warning
        fixed = text.replace("`AuthService.login`", "`AuthService.sign_in`")
        replace_text(client, uri, fixed, 4)
        doc.write_text(fixed)
        await diagnostics_where(client, uri, lambda f: f == [])
    finally:
        await stop_server(client)
