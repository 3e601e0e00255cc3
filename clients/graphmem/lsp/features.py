"""The LSP methods and commands ``graphmem lsp`` serves, registered on a ``GraphmemServer``.

Requests: hover, code lens, code action; notifications: document open/change/close,
configuration changes; commands (``workspace/executeCommand``, see ``commands``):
showNotes, confirm, archive, addNote, recall, status. The server also sends
``graphmem/status`` notifications (daemon health and index freshness).
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from graphmem.client import GraphMem
from graphmem.errors import GraphMemError, InvalidArgument
from graphmem.lsp.commands import Command, parse_add_note, parse_confirm, parse_id, parse_recall, parse_show_notes
from graphmem.lsp.present import note_json, recall_json, status_text
from graphmem.lsp.references import replace_actions
from graphmem.lsp.roots import Location
from graphmem.lsp.server import Doc, GraphmemServer

__all__ = ["build_server", "main"]

logger = logging.getLogger(__name__)

#: LSP's RequestFailed: a valid request the daemon could not carry out.
_REQUEST_FAILED: Final = -32803
_Handler = Callable[..., Awaitable[Any]]


def _errors(fn: _Handler) -> _Handler:
    """graphmem errors as JSON-RPC errors: bad arguments InvalidParams, the rest RequestFailed."""

    @functools.wraps(fn)
    async def wrapped(*args: Any) -> Any:
        try:
            return await fn(*args)
        except InvalidArgument as exc:
            raise JsonRpcInvalidParams(message=str(exc)) from exc
        except GraphMemError as exc:
            raise JsonRpcException(code=_REQUEST_FAILED, message=str(exc)) from exc

    return wrapped


def _located(ls: GraphmemServer, uri: str) -> tuple[Doc, Location]:
    doc = ls.docs.get(uri)
    if doc is None:
        raise InvalidArgument(f"{uri} is not open in the editor")
    if doc.location is None:
        raise InvalidArgument(f"{doc.path} is not inside a repository registered with graphmem")
    return doc, doc.location


def _register_documents(server: GraphmemServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: GraphmemServer, params: lsp.InitializeParams) -> None:
        ls.configure(params.initialization_options, params.client_info.name if params.client_info else "")

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: GraphmemServer, params: lsp.InitializedParams) -> None:
        ls.start_following()

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: GraphmemServer, params: None) -> None:
        ls.stop()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GraphmemServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.open(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GraphmemServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GraphmemServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: GraphmemServer, params: lsp.DidChangeConfigurationParams) -> None:
        ls.configure(params.settings, "")
        ls.republish_all()
        ls.refresh_lenses()


def _register_reads(server: GraphmemServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: GraphmemServer, params: lsp.HoverParams) -> lsp.Hover | None:
        view = await ls.ready_view(params.text_document.uri)
        return view.hover(params.position.line, params.position.character, time.time()) if view else None

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(ls: GraphmemServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        view = await ls.ready_view(params.text_document.uri)
        return view.code_lenses(params.text_document.uri) if view else []

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.Refactor]),
    )
    async def code_action(ls: GraphmemServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        view = await ls.ready_view(uri)
        fixes = replace_actions(uri, params.context.diagnostics)
        if view is None:
            return fixes
        return fixes + view.code_actions(uri, params.range, params.context.diagnostics, ls.settings)


def _register_commands(server: GraphmemServer) -> None:
    @server.command(Command.SHOW_NOTES.value)
    @_errors
    async def show_notes(ls: GraphmemServer, *args: Any) -> dict[str, object]:
        req = parse_show_notes(args)
        view = await ls.ready_view(req.uri)
        notes = view.notes_for(req.ref) if view else []
        now = time.time()
        subject = req.ref or (view.outline.path if view else req.uri)
        if ls.settings.notes_as_message and notes:
            lines = [f"graphmem: {len(notes)} note(s) on {subject}"]
            lines += [f"• [{o.category.value}, {status_text(o, now)}] {o.text} ({o.id})" for o in notes]
            ls.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Info, message="\n".join(lines)))
        return {"ref": subject, "notes": [note_json(o, now) for o in notes]}

    @server.command(Command.CONFIRM.value)
    @_errors
    async def confirm(ls: GraphmemServer, *args: Any) -> dict[str, object]:
        obs_id, uri = parse_confirm(args)
        repo = _located(ls, uri)[1].root if uri else await ls.confirming_checkout(obs_id)
        o = await ls.call(lambda: ls.gateway.confirm(obs_id, ls.settings.user, repo))
        ls.refresh_for(o)
        return note_json(o, time.time())

    @server.command(Command.ARCHIVE.value)
    @_errors
    async def archive(ls: GraphmemServer, *args: Any) -> dict[str, object]:
        obs_id = parse_id(Command.ARCHIVE, args)
        o = await ls.call(lambda: ls.gateway.archive(obs_id, ls.settings.user))
        ls.refresh_for(o)
        return note_json(o, time.time())

    @server.command(Command.ADD_NOTE.value)
    @_errors
    async def add_note(ls: GraphmemServer, *args: Any) -> dict[str, object]:
        req = parse_add_note(args)
        _, where = _located(ls, req.uri)
        view = await ls.ready_view(req.uri)
        anchor = view.ref_of(view.enclosing(req.line)) if view else where.path
        o = await ls.call(lambda: ls.gateway.observe(req.text, anchor, where.root, req.category, ls.source))
        ls.refresh_for(o)
        return note_json(o, time.time())

    @server.command(Command.RECALL.value)
    @_errors
    async def recall(ls: GraphmemServer, *args: Any) -> dict[str, object]:
        uri, line = parse_recall(args)
        doc, where = _located(ls, uri)
        result = await ls.call(lambda: ls.gateway.recall(doc.path, where.root, None if line is None else line + 1))
        return recall_json(result, time.time())

    @server.command(Command.STATUS.value)
    @_errors
    async def status(ls: GraphmemServer, *args: Any) -> dict[str, object]:
        await ls.read_status()
        return {**ls.last_status, "calls": ls.gateway.calls}


def build_server(client: GraphMem | None = None) -> GraphmemServer:
    """A ``graphmem lsp`` server (talking to ``client``, by default the user's daemon)."""
    server = GraphmemServer(client)
    _register_documents(server)
    _register_reads(server)
    _register_commands(server)
    return server


def main() -> int:
    """Serve the Language Server Protocol on stdin/stdout until the client exits (``graphmem lsp``)."""
    level = os.environ.get("GRAPHMEM_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else logging.WARNING,
        format="graphmem-lsp %(levelname)s %(name)s: %(message)s",
    )
    server = build_server()
    try:
        server.start_io()
    finally:
        server.stop()
        server.client.close()
    return 0
