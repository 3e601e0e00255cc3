"""Helpers of the language-server tests: ``graphmem lsp`` started as a subprocess and driven by
pytest-lsp's real LSP client over stdio, documents opened from disk, and polling with deadlines."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, Union

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient, make_test_lsp_client

ROOT = Path(__file__).resolve().parents[3]
_T = TypeVar("_T")


def server_env(home: Path) -> dict[str, str]:
    """The environment of a ``graphmem lsp`` talking to the daemon of ``home``."""
    env = dict(os.environ)
    env.pop("GRAPHMEM_ADDRESS", None)
    env["GRAPHMEM_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon")])
    env.setdefault("GRAPHMEM_LOG_LEVEL", "WARNING")
    return env


async def start_server(
    home: Path, options: dict[str, Any] | None = None, folders: list[Path] | None = None
) -> LanguageClient:
    """``graphmem lsp`` for the daemon of ``home``, initialized with code-lens refresh support
    (and ``folders`` as its workspace folders, the first its root, when given).

    The client counts ``workspace/codeLens/refresh`` requests (``lens_refreshes``) and keeps the
    ``graphmem/status`` notifications (``statuses``)."""
    client = make_test_lsp_client()
    _read_code_actions_right(client)
    client.lens_refreshes = 0  # type: ignore[attr-defined]
    client.statuses = []  # type: ignore[attr-defined]

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(ls: LanguageClient, params: None) -> None:
        ls.lens_refreshes += 1  # type: ignore[attr-defined]

    @client.feature("graphmem/status")
    def _status(ls: LanguageClient, params: Any) -> None:
        ls.statuses.append(params)  # type: ignore[attr-defined]

    await client.start_io(sys.executable, "-m", "graphmem", "lsp", env=server_env(home))
    caps = lsp.ClientCapabilities(
        workspace=lsp.WorkspaceClientCapabilities(
            code_lens=lsp.CodeLensWorkspaceClientCapabilities(refresh_support=True)
        )
    )
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=caps,
            initialization_options=options,
            client_info=lsp.ClientInfo(name="pytest-lsp"),
            root_uri=folders[0].as_uri() if folders else None,
            workspace_folders=[lsp.WorkspaceFolder(uri=f.as_uri(), name=f.name) for f in folders] if folders else None,
        )
    )
    return client


def _read_code_actions_right(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 reads every code action that carries a ``command`` as a bare
    ``Command`` (its hook only asks whether the key is there); a ``Command``'s ``command`` is a
    string, a ``CodeAction``'s an object. The test client reads them as editors do."""
    converter = client.protocol._converter

    def hook(obj: Any, _: type) -> lsp.Command | lsp.CodeAction:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, lsp.Command)
        return converter.structure(obj, lsp.CodeAction)

    converter.register_structure_hook(Union[lsp.Command, lsp.CodeAction], hook)  # noqa: UP007


async def stop_server(client: LanguageClient) -> None:
    """Shut the server down the LSP way and close the client."""
    try:
        await asyncio.wait_for(client.shutdown_session(), 10)
    finally:
        await client.stop()


def uri_of(path: Path) -> str:
    """The file URI of a path."""
    return path.resolve().as_uri()


def open_file(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    """Open ``path`` in the client (its text on disk unless given); returns its URI."""
    uri = uri_of(path)
    body = path.read_text() if text is None else text
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=version, text=body)
        )
    )
    return uri


def replace_text(client: LanguageClient, uri: str, text: str, version: int) -> None:
    """An unsaved edit: the whole buffer becomes ``text``."""
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def eventually(probe: Callable[[], Awaitable[_T]], timeout: float = 10.0, interval: float = 0.02) -> _T:
    """Poll the coroutine ``probe`` until it returns something truthy (returned), or fail."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = await probe()
        if last:
            return last
        await asyncio.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s (last value: {last!r})")


async def hover_text(client: LanguageClient, uri: str, line: int, character: int) -> str:
    """The hover's Markdown at a position ('' when there is none)."""
    result = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line, character))
    )
    if result is None:
        return ""
    contents = result.contents
    return contents.value if isinstance(contents, lsp.MarkupContent) else str(contents)


async def lenses(client: LanguageClient, uri: str) -> list[tuple[int, str]]:
    """(line, title) of each code lens of a document."""
    found = await client.text_document_code_lens_async(
        lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    return [(c.range.start.line, c.command.title if c.command else "") for c in found or []]


async def lenses_become(client: LanguageClient, uri: str, want: list[tuple[int, str]], timeout: float = 10.0) -> None:
    """Poll a document's code lenses until they are ``want`` (the server reads documents again in batches)."""

    async def probe() -> bool:
        return await lenses(client, uri) == want

    try:
        await eventually(probe, timeout)
    except AssertionError:
        raise AssertionError(f"lenses are {await lenses(client, uri)!r}, not {want!r}, after {timeout}s") from None


async def execute(client: LanguageClient, command: str, *args: Any) -> Any:
    """``workspace/executeCommand``."""
    return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command=command, arguments=list(args)))


def graphmem_diagnostics(client: LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    """The graphmem diagnostics the client holds for a document."""
    return [d for d in client.diagnostics.get(uri, []) if d.source == "graphmem"]
