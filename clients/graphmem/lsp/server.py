"""The language server's state and what it does with it (the pygls shell around the cores).

Everything here runs on the server's event loop, except the daemon calls, which run on the
server's worker threads (``call``), and the event follower's thread, which only hands events
over to the loop. Documents outside every registered repository never reach the daemon.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from graphmem import __version__
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.lsp.follower import Follower
from graphmem.lsp.gateway import DEADLINE_S, Checked, Gateway, Outlined
from graphmem.lsp.positions import split_lines
from graphmem.lsp.present import status_json
from graphmem.lsp.references import is_knowledge_path, reference_diagnostics
from graphmem.lsp.roots import Location, Roots
from graphmem.lsp.routing import route
from graphmem.lsp.settings import Settings, parse_settings
from graphmem.lsp.view import FileView
from graphmem.types import Event, Observation

__all__ = ["STATUS_NOTIFICATION", "Doc", "GraphmemServer"]

logger = logging.getLogger(__name__)

#: The server's custom notification: daemon health and index freshness (``present.status_json``).
STATUS_NOTIFICATION: Final = "graphmem/status"
#: Events arriving closer together than this are handled as one batch.
_BATCH_S: Final = 0.01
#: Status reads at most this often while indexing events stream in.
_STATUS_EVERY_S: Final = 0.5
#: How long a hover or lens request waits for a document's first outline (then it answers
#: with what it has, and a lens refresh follows when the outline arrives).
FIRST_READ_S: Final = 1.0
_DOWN_MESSAGE: Final = (
    "graphmem: the daemon is not running ({reason}). Notes show again once it is: "
    "start it with `graphmem daemon start --repo PATH`. Retrying in the background."
)

_T = TypeVar("_T")


@dataclass
class Doc:
    """An open document: its file, its repository (None: outside every one) and what the
    daemon said about it (for a knowledge file, also its references that are not OK); the
    view is cached per document version."""

    uri: str
    path: str
    location: Location | None
    knowledge: bool = False
    checked: Checked | None = None
    outlined: Outlined | None = None
    view: FileView | None = None
    view_version: int | None = None
    published: bool = False
    owed_lenses: bool = False  # a request was answered before the outline came: refresh lenses when it does


class GraphmemServer(LanguageServer):
    """``graphmem lsp``: notes as hovers, code lenses, diagnostics and code actions."""

    def __init__(self, client: GraphMem | None = None) -> None:
        super().__init__("graphmem", __version__)
        self.client = client if client is not None else GraphMem(timeout=DEADLINE_S)
        self.settings = Settings()
        self.roots = Roots()
        self.docs: dict[str, Doc] = {}
        self.source = "lsp"
        self.gateway = Gateway(self.client, self._link_changed)
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-lsp")
        self.loop: asyncio.AbstractEventLoop | None = None
        self.follower: Follower | None = None
        self.last_status: dict[str, object] = status_json(None, "not connected yet")
        self._told_down = False
        self._pending: set[str] = set()  # uris to read again
        self._pending_roots = False
        self._flush: asyncio.TimerHandle | None = None
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()  # documents to read once more when their read ends
        self._status_at = 0.0
        self._status_task: asyncio.Task[None] | None = None
        self._roots_known = False  # the registered roots were read at least once
        self._roots_task: asyncio.Task[bool] | None = None

    # ------------------------------------------------------------------ lifecycle

    def configure(self, options: object, client_name: str) -> None:
        """Apply ``initializationOptions`` (or changed settings) and remember who the client is."""
        self.settings, warnings = parse_settings(options, self.settings)
        if not self.settings.user:
            with contextlib.suppress(KeyError, OSError):  # no login name (no passwd entry)
                self.settings = parse_settings({"user": getpass.getuser()}, self.settings)[0]
        if client_name:
            self.source = f"lsp:{client_name}"
        for w in warnings:
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=w))

    def start_following(self) -> None:
        """Capture the loop and start the supervised event follower (after ``initialized``)."""
        self.loop = asyncio.get_running_loop()
        self.follower = Follower(self.client, self.gateway, self._event, self._connected, self._crashed)
        self.follower.start()

    def stop(self) -> None:
        """Stop the follower and the workers (at ``shutdown``)."""
        if self.follower is not None:
            self.follower.stop()
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def call(self, fn: Callable[[], _T]) -> _T:
        """Run a blocking daemon call on a worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn)

    def _soon(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` on the loop (from any thread)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn)

    # ------------------------------------------------------------------ the daemon link

    def _link_changed(self, up: bool, reason: str) -> None:  # any thread
        self._soon(lambda: self._on_link(up, reason))

    def _on_link(self, up: bool, reason: str) -> None:
        if up:
            self._told_down = False
            self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Info, message="graphmem: connected"))
            return
        self.last_status = status_json(None, reason)
        self.protocol.notify(STATUS_NOTIFICATION, self.last_status)
        if not self._told_down:
            self._told_down = True
            message = _DOWN_MESSAGE.format(reason=reason.rstrip(".") or "no answer")
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))

    def _connected(self) -> None:  # follower thread
        self._soon(lambda: self._schedule(everything=True, roots=True, status=True))

    def _crashed(self, reason: str) -> None:  # follower thread
        message = f"graphmem: the event follower failed ({reason}); it goes on"
        self._soon(lambda: self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=message)))

    def _event(self, event: Event) -> None:  # follower thread
        self._soon(lambda: self._on_event(event))

    def _on_event(self, event: Event) -> None:
        r = route(event, self.roots.ids)
        uris = {
            uri
            for uri, doc in self.docs.items()
            if doc.location is not None
            and (
                r.everything
                or doc.location.repo_id in r.repos
                or (doc.location.repo_id, doc.location.path) in r.files
                or (doc.knowledge and doc.location.repo_id in r.knowledge)
            )
        }
        self._schedule(uris=uris, everything=r.everything, roots=r.roots, status=r.status)

    def refresh_for(self, observation: Observation) -> None:
        """Read again the open documents an observation is anchored in (after an action on it)."""
        files = {(a.repo_id, a.path) for a in observation.anchors}
        self._schedule(
            uri
            for uri, doc in self.docs.items()
            if doc.location is not None and (doc.location.repo_id, doc.location.path) in files
        )

    # ------------------------------------------------------------------ refreshing

    def _schedule(
        self, uris: Iterable[str] = (), *, everything: bool = False, roots: bool = False, status: bool = False
    ) -> None:
        """Read these documents (or all, and the roots) again, as one batch."""
        self._pending.update(self.docs if everything else uris)
        self._pending_roots |= roots
        if status:
            self._refresh_status()
        if self._flush is None and (self._pending or self._pending_roots) and self.loop is not None:
            self._flush = self.loop.call_later(_BATCH_S, lambda: asyncio.ensure_future(self._run_batch()))

    async def _run_batch(self) -> None:
        self._flush = None
        uris, self._pending = self._pending, set()
        if self._pending_roots:
            self._pending_roots = False
            if await self.refresh_roots():
                uris |= set(self.docs)
        changed = await asyncio.gather(*(self.refresh(uri) for uri in uris))
        if any(changed):
            self.refresh_lenses()

    async def refresh_roots(self) -> bool:
        """Read the registered roots again and re-place the open documents; whether any moved."""
        try:
            self.roots = await self.call(self.gateway.roots)
        except GraphMemError as exc:
            logger.info("graphmem lsp: cannot read the repositories: %s", exc)
            return False
        self._roots_known = True
        moved = False
        for doc in self.docs.values():
            location = self.roots.locate(doc.path)
            if location != doc.location:
                doc.location, doc.outlined, doc.view, doc.checked = location, None, None, None
                moved = True
        return moved

    def workspace_folders(self) -> list[str]:
        """The editor's workspace folders (absolute, resolved paths); its root folder when it
        named no folders; none for a single-file session."""
        ws = self.workspace
        uris = [f.uri for f in ws.folders.values()] or ([ws.root_uri] if ws.root_uri else [])
        return [str(Path(p).resolve()) for p in (to_fs_path(u) for u in uris) if p]

    async def confirming_checkout(self, obs_id: str) -> str:
        """The checkout a ``graphmem.confirm`` sent without a document is judged from: the one
        workspace folder's checkout of the note's repository (``Roots.workspace_checkout``);
        "" (its home checkout, as saved) when the workspace has none or several."""
        folders = self.workspace_folders()
        if not folders:
            return ""
        if not self._roots_known:
            await self.refresh_roots()
        home = (await self.call(lambda: self.gateway.note(obs_id))).repo_id
        return self.roots.workspace_checkout(folders, home)

    async def refresh(self, uri: str) -> bool:
        """Read one document's outline again and republish its diagnostics; whether it did.
        One read at a time per document: a request meanwhile makes that read run once more
        when it ends (what it read may predate the change that asked)."""
        if uri in self._refreshing:
            self._again.add(uri)
            return False
        task = asyncio.ensure_future(self._read_until_settled(uri))
        self._refreshing[uri] = task
        try:
            await task
        finally:
            self._refreshing.pop(uri, None)
        return uri in self.docs

    async def _read_until_settled(self, uri: str) -> None:
        while True:
            self._again.discard(uri)
            await self._read(uri)
            if uri not in self._again:
                return

    async def _read(self, uri: str) -> None:
        doc = self.docs.get(uri)
        if doc is None or doc.location is None:
            return
        location = doc.location
        outlined = await self._ask(lambda: self.gateway.outline(doc.path, location.root), "outline", doc.path)
        checked: Checked | None = None
        if doc.knowledge:
            checked = await self._ask(
                lambda: self.gateway.knowledge(doc.path, location.root, location.path), "references", doc.path
            )
        if self.docs.get(uri) is doc and doc.location == location and (outlined or checked):
            if outlined is not None:
                doc.outlined, doc.view = outlined, None
            if checked is not None:
                doc.checked = checked
            self.publish(uri)
            if outlined is not None and doc.owed_lenses:
                doc.owed_lenses = False
                self.refresh_lenses()

    async def _ask(self, fn: Callable[[], _T], what: str, path: str) -> _T | None:
        """A daemon read on a worker thread (None, logged, when it fails)."""
        try:
            return await self.call(fn)
        except GraphMemError as exc:
            logger.info("graphmem lsp: no %s for %s: %s", what, path, exc)
            return None

    def refresh_lenses(self) -> None:
        """Ask the client to pull the code lenses again (when it can)."""
        caps = self.client_capabilities.workspace
        if caps is not None and caps.code_lens is not None and caps.code_lens.refresh_support:
            self.workspace_code_lens_refresh(None)

    def _refresh_status(self) -> None:
        if self._status_task is not None and not self._status_task.done():
            return
        wait = max(0.0, self._status_at + _STATUS_EVERY_S - time.monotonic())
        self._status_task = asyncio.ensure_future(self.read_status(wait))

    async def read_status(self, wait: float = 0.0) -> None:
        """Read the daemon's status (after ``wait`` seconds) and notify the client of it."""
        if wait:
            await asyncio.sleep(wait)
        self._status_at = time.monotonic()
        try:
            self.last_status = status_json(await self.call(self.gateway.status))
        except GraphMemError as exc:
            self.last_status = status_json(None, str(exc))
        self.protocol.notify(STATUS_NOTIFICATION, self.last_status)

    # ------------------------------------------------------------------ documents

    def open(self, uri: str) -> Doc | None:
        """Track an opened document; read its outline when it is in a repository."""
        path = to_fs_path(uri)
        if path is None:
            return None
        try:
            resolved = str(Path(path).resolve())
        except OSError:
            resolved = path
        doc = Doc(uri, resolved, self.roots.locate(resolved), knowledge=is_knowledge_path(resolved))
        self.docs[uri] = doc
        if doc.location is not None:
            self._schedule([uri])
        return doc

    def close(self, uri: str) -> None:
        """Forget a closed document (and clear what was published for it)."""
        doc = self.docs.pop(uri, None)
        if doc is not None and doc.published:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def view(self, uri: str) -> FileView | None:
        """The document's view for its current text (None: nothing known about it)."""
        doc = self.docs.get(uri)
        if doc is None or doc.outlined is None:
            return None
        text = self.workspace.get_text_document(uri)
        version = text.version if text.version is not None else -1
        if doc.view is None or doc.view_version != version:
            encoding = str(self.workspace.position_encoding or "utf-16")
            doc.view = FileView(doc.outlined.outline, doc.outlined.indexed, split_lines(text.source), encoding)
            doc.view_version = version
        return doc.view

    def publish(self, uri: str) -> None:
        """Publish the document's diagnostics for its current text (the notes', and for a
        knowledge file its references')."""
        doc = self.docs.get(uri)
        view = self.view(uri)
        if doc is None or (view is None and doc.checked is None):
            return
        diagnostics = view.diagnostics(self.settings, time.time()) if view is not None else []
        if doc.checked is not None:
            buffer = split_lines(self.workspace.get_text_document(uri).source)
            encoding = str(self.workspace.position_encoding or "utf-16")
            checked = doc.checked
            diagnostics += reference_diagnostics(checked.references, checked.disk, buffer, self.settings, encoding)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))
        doc.published = True

    def republish_all(self) -> None:
        """Publish every open document's diagnostics again (the settings changed)."""
        for uri in list(self.docs):
            self.publish(uri)

    async def ready_view(self, uri: str) -> FileView | None:
        """The document's view. Before its first outline (the server just started, the roots not
        read yet, or its read still running on a busy daemon) the request waits for it, at
        most ``FIRST_READ_S``; a request answered without it owes a lens refresh, sent when the
        outline arrives. A daemon known to be down is not waited for."""
        doc = self.docs.get(uri)
        if doc is None:
            return None
        if doc.outlined is None and not self.gateway.down and (doc.location is not None or not self._roots_known):
            try:
                await asyncio.wait_for(asyncio.shield(self._first_read(uri)), FIRST_READ_S)
            except TimeoutError:
                doc.owed_lenses = True
        return self.view(uri)

    async def _read_roots(self) -> bool:
        """Read the roots; the open documents they moved are read again (as after a roots event)."""
        moved = await self.refresh_roots()
        if moved:
            self._schedule(self.docs)
        return moved

    async def _first_read(self, uri: str) -> None:
        """Read the roots (the first time) and the document's outline, joining reads in flight."""
        if not self._roots_known:
            if self._roots_task is None or self._roots_task.done():
                self._roots_task = asyncio.ensure_future(self._read_roots())
            await asyncio.shield(self._roots_task)
        doc = self.docs.get(uri)
        if doc is None:
            return
        if doc.location is None:
            doc.location = self.roots.locate(doc.path)
            if doc.location is None:
                return
        pending = self._refreshing.get(uri)
        if pending is not None:
            await asyncio.shield(pending)
        else:
            await self.refresh(uri)
