"""The review page's web shell: Starlette routes over the ``Gateway``, Jinja2 templates, the
token guard as ASGI middleware, and server-sent events fed by the daemon's event stream.

Every daemon call runs on a worker thread (``run_in_threadpool``); a ``PageError`` becomes a
message on the page (a plain-text answer for an htmx request, shown by ``ui.js``), any other
exception a one-line internal error (logged with its traceback here, never sent).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from http.cookies import SimpleCookie
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from graphmem.changes import spaced
from graphmem.errors import GraphMemError
from graphmem.types import (
    AnchorChange,
    EdgeKind,
    Event,
    EventKind,
    Observation,
    ObservationAction,
    ObservationStatus,
    Origin,
    ReferenceState,
)
from graphmem.ui import diff, guard, links, model
from graphmem.ui.gateway import Gateway, PageError

logger = logging.getLogger(__name__)

__all__ = ["Settings", "build_app"]

#: queue items rendered per page (the filters count them all)
PAGE_SIZE = 200
#: a comment line sent on an idle event stream so proxies and the browser keep it open
HEARTBEAT_S = 15.0

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Settings:
    """How this page was started: its token, port, the Host values it answers to, and the
    ``$EDITOR`` it runs for "open in editor"."""

    token: str
    port: int
    allowed_hosts: tuple[str, ...]
    editor: str = ""


# ---------------------------------------------------------------------------------- guard


class TokenGuard:
    """ASGI middleware applying ``guard.judge`` to every HTTP request."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.cookie = guard.cookie_name(settings.port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        jar: SimpleCookie = SimpleCookie()
        with contextlib.suppress(Exception):
            jar.load(headers.get("cookie", ""))
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        verdict = guard.judge(
            method=scope["method"],
            host=headers.get("host", ""),
            allowed_hosts=self.settings.allowed_hosts,
            token=self.settings.token,
            cookie=jar[self.cookie].value if self.cookie in jar else "",
            query=(query.get(guard.TOKEN_PARAM) or [""])[0],
            header=headers.get(guard.TOKEN_HEADER, ""),
        )
        if verdict.outcome is guard.Outcome.REFUSE:
            response: Response = PlainTextResponse(verdict.message, status_code=verdict.status)
        elif verdict.outcome is guard.Outcome.SET_COOKIE:
            rest = {k: v for k, v in query.items() if k != guard.TOKEN_PARAM}
            target = scope["path"] + (f"?{urlencode(rest, doseq=True)}" if rest else "")
            response = RedirectResponse(target, status_code=303)
            response.set_cookie(self.cookie, self.settings.token, httponly=True, samesite="strict", path="/")
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)


class ServerTiming:
    """ASGI middleware: a ``Server-Timing: app;dur=MS`` header on every answer, the time from
    the request's arrival to its response head (what ``scripts/bench_ui.py`` reports)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.perf_counter() - started) * 1000
                message["headers"] = [*message.get("headers", []), (b"server-timing", f"app;dur={ms:.1f}".encode())]
            await send(message)

        await self.app(scope, receive, timed)


# ---------------------------------------------------------------------------------- templates


def _ago(at: float | None) -> str:
    if not at:
        return ""
    s = max(0, int(time.time() - at))
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            return f"{s // size} {unit} ago"
    return "just now"


def _when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at)) if at else ""


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("graphmem.ui", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["ago"] = _ago
    env.filters["when"] = _when
    env.filters["short"] = lambda c: (c or "")[:8]
    env.filters["spaced"] = lambda sig: spaced(sig) if sig else ""  # every signature as the renderer spaces it
    for name in env.list_templates():  # compiled now, not by the first page load
        env.get_template(name)
    return env


# ---------------------------------------------------------------------------------- the app


class Page:
    """The routes' shared state: the gateway, the settings and the templates."""

    def __init__(self, gateway: Gateway, settings: Settings) -> None:
        self.gw = gateway
        self.settings = settings
        self.env = _templates()
        self.css = diff.stylesheet()

    def render(self, name: str, **context: Any) -> str:
        """A template rendered with the page's common context."""
        common = {
            "repo": self.gw.repo,
            "token": self.settings.token,
            "token_header": guard.TOKEN_HEADER,
            "editor": bool(self.settings.editor),
        }
        return self.env.get_template(name).render(**common, **context)

    def html(self, name: str, code: int = 200, **context: Any) -> HTMLResponse:
        """A rendered template as the answer, with HTTP status ``code``."""
        return HTMLResponse(self.render(name, **context), status_code=code)

    def vscode(self, path: str, line: int) -> str:
        """The VS Code link of a repository file at a line."""
        return links.vscode_url(self.gw.repo.root, path, line)

    def item_html(self, item: model.QueueItem) -> str:
        """One queue item's HTML (also pushed live)."""
        return self.render("_item.html", item=item, vscode=self.vscode)


#: related notes first when they need a look
_SEVERITY = {ObservationStatus.STALE: 0, ObservationStatus.SUSPECT: 1, ObservationStatus.FRESH: 2}


def _diff(c: AnchorChange) -> list[diff.DiffRow]:
    """The highlighted diff of one anchor's code before and after."""
    path = c.after.path or c.before.path or c.anchor_ref.split("::")[0]
    return diff.diff_rows(c.before.text, c.after.text, path, c.before.start_line or 1, c.after.start_line or 1)


async def _form(request: Request) -> dict[str, list[str]]:
    """The request's url-encoded form (htmx sends that)."""
    body = (await request.body()).decode("utf-8", "replace")
    return parse_qs(body, keep_blank_values=True)


def _one(form: Mapping[str, list[str]], name: str) -> str:
    return (form.get(name) or [""])[0]


def _is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def build_app(gateway: Gateway, settings: Settings) -> ASGIApp:
    """The review page as an ASGI application (behind the token guard)."""
    page = Page(gateway, settings)
    gw = gateway
    call = run_in_threadpool

    async def queue(request: Request) -> Response:
        filters = model.Filters.from_query(request.query_params)
        try:
            number = max(1, int(request.query_params.get("page", "1")))
        except ValueError:
            number = 1
        queue, how = await call(gw.queue)
        items = queue.items
        shown = [i for i in items if filters.keep(i)]
        start = (number - 1) * PAGE_SIZE
        more = len(shown) > start + PAGE_SIZE
        response = page.html(
            "queue.html",
            items=shown[start : start + PAGE_SIZE],
            total=len(items),
            matching=len(shown),
            facets=queue.facets,
            filters=filters,
            number=number,
            more=more,
            query=dict(request.query_params),
            vscode=page.vscode,
        )
        response.headers.append("server-timing", f'queue;desc="{how}"')  # kept, patched or whole
        return response

    async def change(request: Request) -> Response:
        obs_id = request.path_params["id"]
        o, got = await asyncio.gather(call(gw.note, obs_id), call(gw.change, obs_id))
        blocks = [(c, _diff(c), model.change_caption(o, c)) for c in got.changes]
        return page.html("_change.html", note=o, blocks=blocks, vscode=page.vscode)

    async def note(request: Request) -> Response:
        obs_id = request.path_params["id"]
        o = await call(gw.note, obs_id)
        related_ids = [*o.supersedes, *([o.superseded_by] if o.superseded_by else []), *o.contradicts]
        related = await call(gw.notes, related_ids)
        refs = [a.symbol_id or a.path for a in o.anchors]
        nearby: dict[str, tuple[Observation, list[str]]] = {}
        picture_error = ""
        if refs:
            try:
                hood = await call(gw.neighbourhood, refs)
                for n in hood.nodes:
                    for x in n.observations:
                        if x.id != o.id:
                            nearby.setdefault(x.id, (x, []))[1].append(n.ref)
            except PageError as exc:  # an anchor whose code is gone: the rest of the page still shows
                picture_error = exc.message
        return page.html(
            "note.html",
            note=o,
            history=model.history(o, related),
            related=related,
            nearby=sorted(nearby.values(), key=lambda x: (_SEVERITY.get(x[0].status, 9), x[0].id)),
            picture_error=picture_error or ("" if refs else "this note has no anchors"),
            marker=model.note_item(o).reason if o.status in model.REVIEWED else "",
            reviewable=o.status in model.REVIEWED or o.needs_review,
            vscode=page.vscode,
            kinds=[k.value for k in model.PICTURE_KINDS],
        )

    async def graph(request: Request) -> Response:
        obs_id = request.path_params["id"]
        o = await call(gw.note, obs_id)
        refs = [a.symbol_id or a.path for a in o.anchors]
        if not refs:
            raise PageError(404, f"{obs_id} has no anchors: there is no code around it to draw")
        wanted = [k for k in request.query_params.get("kinds", "").split(",") if k]
        try:
            kinds = [EdgeKind(k) for k in wanted] if wanted else list(model.PICTURE_KINDS)
        except ValueError as exc:
            msg = f"unknown edge kind in {wanted}: choose from CALLS, IMPORTS, INHERITS, CONTAINS"
            raise PageError(400, msg) from exc
        hood = await call(gw.neighbourhood, refs)
        collapse = request.query_params.get("collapse") == "1"
        elements = model.graph_elements(hood, kinds, collapse)
        return JSONResponse({"elements": elements, "truncated": hood.truncated, "nodes": len(hood.nodes)})

    async def confirm(request: Request) -> Response:
        obs_id = request.path_params["id"]
        o = await call(gw.confirm, obs_id)
        return page.html("_done.html", id=obs_id, what="confirmed", detail=f"by {o.confirmed_by}", note=o)

    async def archive(request: Request) -> Response:
        obs_id = request.path_params["id"]
        o = await call(gw.archive, obs_id)
        return page.html("_done.html", id=obs_id, what="archived", detail="", note=o)

    async def delete(request: Request) -> Response:
        obs_id = request.path_params["id"]
        form = await _form(request)
        if _one(form, "confirm") != obs_id:
            raise PageError(400, f"to delete {obs_id}, type its id to confirm; nothing changed")
        await call(gw.delete, obs_id)
        response = page.html("_done.html", id=obs_id, what="deleted", detail="for good", note=None)
        response.headers["HX-Redirect"] = "/queue"
        return response

    async def edit_form(request: Request) -> Response:
        o = await call(gw.note, request.path_params["id"])
        return page.html("_edit.html", note=o)

    async def edit(request: Request) -> Response:
        obs_id = request.path_params["id"]
        form = await _form(request)
        new = await call(gw.supersede, obs_id, _one(form, "text"))
        return page.html("_done.html", id=obs_id, what="superseded", detail=f"by {new.id}", note=new)

    async def reanchor_form(request: Request) -> Response:
        o = await call(gw.note, request.path_params["id"])
        anchor = request.query_params.get("anchor") or (o.anchors[0].ref if o.anchors else "")
        if not anchor:
            raise PageError(400, f"{o.id} has no anchors to move")
        found = await call(gw.close_matches, anchor)
        return page.html("_reanchor.html", note=o, anchor=anchor, matches=found.matches)

    async def reanchor(request: Request) -> Response:
        obs_id = request.path_params["id"]
        form = await _form(request)
        old, new_ref = _one(form, "anchor"), _one(form, "to")
        o = await call(gw.note, obs_id)
        anchors = [new_ref if a.ref == old else a.ref for a in o.anchors]
        if old not in [a.ref for a in o.anchors] or not new_ref:
            raise PageError(400, f"choose the anchor of {obs_id} to move and the symbol to move it to; nothing changed")
        new = await call(gw.supersede, obs_id, o.text, anchors)
        return page.html("_done.html", id=obs_id, what="re-anchored", detail=f"to {new_ref}: {new.id}", note=new)

    async def bulk_archive(request: Request) -> Response:
        form = await _form(request)
        ids = [i for i in form.get("ids", []) if i]
        if not ids:
            raise PageError(400, "select the notes to archive first; nothing changed")
        done: list[str] = []
        skipped: list[str] = []
        for obs_id in ids:
            try:
                await call(gw.archive, obs_id)
                done.append(obs_id)
            except PageError as exc:
                skipped.append(f"{obs_id}: {exc.message}")
        return page.html("_bulk.html", done=done, skipped=skipped)

    async def open_editor(request: Request) -> Response:
        form = await _form(request)
        rel = _one(form, "path")
        try:
            line = int(_one(form, "line") or "1")
        except ValueError:
            line = 1
        argv = links.editor_argv(settings.editor, os.path.join(gw.repo.root, rel), line)
        if not argv:
            raise PageError(400, "$EDITOR is not set where `graphmem ui` runs; use the VS Code link instead")
        root = os.path.realpath(gw.repo.root)
        if not os.path.realpath(os.path.join(root, rel)).startswith(root + os.sep):
            raise PageError(400, f"{rel!r} is not a file of the repository")
        try:
            subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            raise PageError(500, f"could not start {argv[0]}: {exc}") from exc
        return PlainTextResponse(f"opened {rel}:{line} in {argv[0]}")

    async def overview(request: Request) -> Response:
        status, notes, check = await asyncio.gather(
            call(gw.status), call(gw.all_notes, True, Origin.NOTES), call(gw.knowledge)
        )
        repo = next((r for r in status.repositories if r.id == gw.repo.id), gw.repo)
        return page.html(
            "overview.html",
            status=status,
            current=repo,
            by_state=model.counted(o.status.value for o in notes),
            by_category=model.counted(o.category.value for o in notes),
            knowledge_files=model.findings_by_file(check.references),
            changed=sum(r.state is ReferenceState.CHANGED for r in check.references),
            check=check,
        )

    async def search(request: Request) -> Response:
        q = request.query_params.get("q", "").strip()
        rows: list[model.SearchRow] = []
        warnings: tuple[str, ...] = ()
        if q:
            got = await call(gw.search, q)
            rows, warnings = model.search_rows(got.results), got.warnings
        return page.html("search.html", q=q, rows=rows, warnings=warnings)

    async def events(request: Request) -> Response:
        last = request.headers.get("last-event-id", "")
        after = int(last) if last.isdigit() else None
        stream = await call(gw.events, after)
        return StreamingResponse(
            _event_source(stream, page, request),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def highlight_css(request: Request) -> Response:
        return Response(page.css, media_type="text/css")

    async def home(request: Request) -> Response:
        return RedirectResponse("/queue", status_code=303)

    async def page_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PageError)
        if _is_htmx(request):
            return PlainTextResponse(exc.message, status_code=exc.status)
        return page.html("error.html", code=exc.status, status=exc.status, message=exc.message)

    async def bad_filter(request: Request, exc: Exception) -> Response:
        return await page_error(request, PageError(400, str(exc)))

    async def internal(request: Request, exc: Exception) -> Response:
        logger.exception("the review page failed on %s", request.url.path, exc_info=exc)
        text = exc.message if isinstance(exc, GraphMemError) else f"{type(exc).__name__}: {exc}"
        return await page_error(request, PageError(500, f"internal error of the review page: {text}"))

    static = resources.files("graphmem.ui") / "static"
    routes = [
        Route("/", home),
        Route("/queue", queue),
        Route("/overview", overview),
        Route("/search", search),
        Route("/events", events),
        Route("/highlight.css", highlight_css),
        Route("/note/{id}", note),
        Route("/note/{id}/change", change),
        Route("/note/{id}/graph.json", graph),
        Route("/note/{id}/confirm", confirm, methods=["POST"]),
        Route("/note/{id}/archive", archive, methods=["POST"]),
        Route("/note/{id}/delete", delete, methods=["POST"]),
        Route("/note/{id}/edit", edit_form, methods=["GET"]),
        Route("/note/{id}/edit", edit, methods=["POST"]),
        Route("/note/{id}/reanchor", reanchor_form, methods=["GET"]),
        Route("/note/{id}/reanchor", reanchor, methods=["POST"]),
        Route("/bulk/archive", bulk_archive, methods=["POST"]),
        Route("/open", open_editor, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(static)), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={PageError: page_error, model.BadFilter: bad_filter, Exception: internal},
    )
    return ServerTiming(TokenGuard(app, settings))


# ---------------------------------------------------------------------------------- live


_GONE = {
    ObservationAction.CONFIRMED,
    ObservationAction.ARCHIVED,
    ObservationAction.DELETED,
    ObservationAction.FRESH,
}


def live_message(event: Event, page: Page) -> tuple[str, dict[str, Any]] | None:
    """The page's message for one daemon event (None: nothing to show): a note that went
    stale or suspect (its queue item's HTML), a note that left the queue, index progress, or
    a gap in the stream."""
    if event.kind is EventKind.EVENTS_LOST:
        return "lost", {"message": event.message}
    if event.kind is EventKind.INDEX_PROGRESS and event.progress is not None:
        p = event.progress
        return "progress", {"state": p.state.value, "done": p.files_done, "total": p.files_total}
    if event.kind in (EventKind.INDEX_QUERYABLE, EventKind.INDEX_DURABLE):
        return "progress", {"state": "ready", "done": 0, "total": 0}
    o = event.observation
    if (
        o is not None
        and o.status in model.REVIEWED
        and event.action
        in (
            ObservationAction.STALE,
            ObservationAction.SUSPECT,
            ObservationAction.RENAMED,
            ObservationAction.UPDATED,
        )
    ):
        item = model.note_item(o)
        return "item", {"id": o.id, "state": item.state, "reason": item.reason, "html": page.item_html(item)}
    gone = event.action in _GONE or (o is not None and o.status not in model.REVIEWED)
    if event.observation_id and gone:
        status = o.status.value if o is not None else "deleted"
        if o is not None and o.status is ObservationStatus.FRESH and event.action is ObservationAction.CONFIRMED:
            status = "confirmed"
        return "gone", {"id": event.observation_id, "status": status}
    return None


async def _event_source(stream: Any, page: Page, request: Request) -> AsyncIterator[str]:
    """Server-sent events from the daemon's stream: a reader thread hands each event to the
    event loop; a heartbeat comment keeps an idle stream open; the subscription is cancelled
    when the browser goes away. A failure of the stream is sent as an ``error`` message and
    ends the response: the browser's EventSource reconnects (``retry``) and resumes after
    the last id it received."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event | BaseException | None] = asyncio.Queue()

    def read() -> None:
        try:
            for event in stream:
                loop.call_soon_threadsafe(queue.put_nowait, event)
            loop.call_soon_threadsafe(queue.put_nowait, None)
        except BaseException as exc:  # noqa: BLE001  # handed to the response, which reports it
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody to tell
                loop.call_soon_threadsafe(queue.put_nowait, exc)

    reader = threading.Thread(target=read, name="graphmem-ui-events", daemon=True)
    reader.start()
    try:
        yield "retry: 3000\n: subscribed\n\n"
        while True:
            try:
                got = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
            except TimeoutError:
                yield ": heartbeat\n\n"
                continue
            if got is None:
                yield _sse("error", {"message": "the daemon ended the event stream (stopping?)"})
                return
            if isinstance(got, BaseException):
                text = got.message if isinstance(got, GraphMemError) else str(got)
                yield _sse("error", {"message": f"live updates stopped: {text}"})
                return
            msg = live_message(got, page)
            if msg is not None:
                yield _sse(msg[0], msg[1], got.seq)
    finally:
        stream.cancel()


def _sse(name: str, data: Mapping[str, Any], seq: int = 0) -> str:
    head = f"id: {seq}\n" if seq else ""
    return f"{head}event: {name}\ndata: {json.dumps(data)}\n\n"
