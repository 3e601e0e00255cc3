"""gRPC servicers: thin translations between the wire and the daemon core.

Errors: every ``GraphMemError`` is turned into its gRPC status in ONE place (``_rpc``, through
``status.abort``, which the request guard uses too);
request validation raises ``InvalidArgument`` so bad input is INVALID_ARGUMENT, never INTERNAL.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc
from graphmem import convert
from graphmem.errors import GraphMemError, InvalidArgument
from graphmem.types import Category, Event, EventKind, ObservationStatus
from graphmem.v1 import service_pb2 as pb
from graphmem.v1 import service_pb2_grpc as pbg
from graphmem.v1 import types_pb2 as tpb

from graphmemd.app.codechange import CodeChanges
from graphmemd.app.confirming import as_seen
from graphmemd.app.core import Core
from graphmemd.app.settle import settle
from graphmemd.memory.memory import NewObservation
from graphmemd.retrieval.briefs import Briefer
from graphmemd.retrieval.neighbourhood import neighbourhood
from graphmemd.retrieval.overview import is_doc
from graphmemd.retrieval.readview import ReadView
from graphmemd.retrieval.retriever import DEFAULT_HOPS, Retriever
from graphmemd.retrieval.symbols import SymbolQueries
from graphmemd.service.status import abort

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])

#: The longest an EditContext call waits for the index to take in the edited files.
MAX_SETTLE_MS = 5000


def _rpc(fn: F) -> F:
    """Map graphmem errors to gRPC statuses (``status.abort``)."""

    @functools.wraps(fn)
    def unary(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return fn(self, request, context)
        except GraphMemError as exc:
            abort(context, exc)
        except Exception as exc:  # a bug: never UNKNOWN without a word; the log has the traceback
            logger.exception("%s failed", fn.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"internal error in {fn.__name__}: {type(exc).__name__}: {exc}")

    return unary  # type: ignore[return-value]


def _stream(fn: F) -> F:
    """Map graphmem errors of a server-streaming call to gRPC statuses (``status.abort``)."""

    @functools.wraps(fn)
    def streaming(self: Any, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from fn(self, request, context)
        except GraphMemError as exc:
            abort(context, exc)
        except Exception as exc:  # a bug: never UNKNOWN without a word; the log has the traceback
            logger.exception("%s failed", fn.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"internal error in {fn.__name__}: {type(exc).__name__}: {exc}")

    return streaming  # type: ignore[return-value]


def _repo_id(view: ReadView, hint: str) -> str:
    """The id of the checkout a request names (an id or a path inside it; NotFound for none),
    "" when it names none."""
    return view.repo(hint).id if hint else ""


def _as_seen(view: ReadView, event: Event) -> Event:
    """``event`` with the note it carries as its checkout shows it (``confirming.as_seen``)."""
    if event.observation is None:
        return event
    return dataclasses.replace(event, observation=as_seen(view, event.observation))


def _category(value: int, default: Category | None = Category.OTHER) -> Category | None:
    if value not in tpb.Category.values():
        raise InvalidArgument(f"unknown category {value}")
    return convert.category_from_proto(value) or default


class DaemonService(pbg.DaemonServiceServicer):
    """Status and shutdown."""

    def __init__(self, core: Core, socket_path: str, tcp: str, shutdown: threading.Event) -> None:
        self.core = core
        self.socket_path = socket_path
        self.tcp = tcp
        self.shutdown = shutdown

    @_rpc
    def GetStatus(self, request: pb.GetStatusRequest, context: grpc.ServicerContext) -> pb.GetStatusResponse:
        """The daemon's status: version, repositories, store, watcher and health."""
        return convert.status_to_proto(self.core.status(self.socket_path, self.tcp))

    @_rpc
    def Shutdown(self, request: pb.ShutdownRequest, context: grpc.ServicerContext) -> pb.ShutdownResponse:
        """Ask the daemon to stop gracefully."""
        logger.info("shutdown requested over gRPC")
        self.shutdown.set()
        return pb.ShutdownResponse()


class RepositoryService(pbg.RepositoryServiceServicer):
    """Register, remove, list and index repositories."""

    def __init__(self, core: Core) -> None:
        self.core = core

    @_rpc
    def AddRepository(self, request: pb.AddRepositoryRequest, context: grpc.ServicerContext) -> tpb.Repository:
        """Register a repository (and start indexing it)."""
        if not request.path:
            raise InvalidArgument("path is required")
        rt = self.core.add_repo(request.path)
        return convert.repository_to_proto(self.core.repository(rt))

    @_rpc
    def RemoveRepository(
        self, request: pb.RemoveRepositoryRequest, context: grpc.ServicerContext
    ) -> pb.RemoveRepositoryResponse:
        """Unregister a repository (with ``purge``: delete its observations too)."""
        purged = self.core.remove_repo(request.repo, purge=request.purge)
        return pb.RemoveRepositoryResponse(purged=purged)

    @_rpc
    def ListRepositories(
        self, request: pb.ListRepositoriesRequest, context: grpc.ServicerContext
    ) -> pb.ListRepositoriesResponse:
        """Every registered repository."""
        return pb.ListRepositoriesResponse(
            repositories=[convert.repository_to_proto(r) for r in self.core.repositories()]
        )

    @_rpc
    def LinkRepository(self, request: pb.LinkRepositoryRequest, context: grpc.ServicerContext) -> tpb.Repository:
        """Make a registered checkout (a separate clone) a checkout of another repository."""
        if not request.path or not request.to:
            raise InvalidArgument("path and to are required")
        return convert.repository_to_proto(self.core.repository(self.core.checkouts.link(request.path, request.to)))

    @_stream
    def IndexRepository(
        self, request: pb.IndexRepositoryRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.IndexProgress]:
        """(Re)index a repository, streaming progress until it is done."""
        indexer = self.core.indexer
        rt = self.core.view.repo(request.repo)
        job = indexer.request_index(rt, list(request.paths), request.full)
        started = time.time()
        while not job.done.wait(0.2):
            if not context.is_active():
                return
            yield convert.index_progress_to_proto(rt.progress(started))
        if job.error is not None:
            raise job.error
        yield convert.index_progress_to_proto(rt.progress(started))


class ObservationService(pbg.ObservationServiceServicer):
    """Save, read, list, change, confirm, export and import observations."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.changes = CodeChanges(lambda: core.view, lambda: core.indexer.pool())

    @_rpc
    def CreateObservation(self, request: pb.CreateObservationRequest, context: grpc.ServicerContext) -> tpb.Observation:
        """Save a new observation anchored to symbols or files."""
        category = _category(request.category)
        assert category is not None
        new = NewObservation(
            text=request.text,
            category=category,
            tags=tuple(request.tags),
            source=request.source or "unknown",
            confidence=request.confidence or 1.0,
            anchors=tuple(request.anchors),
            supersedes=tuple(self.core.view.full_id(r) for r in request.supersedes),
            contradicts=tuple(self.core.view.full_id(r) for r in request.contradicts),
            idempotency_key=request.idempotency_key,
            shared=request.shared,
        )
        o = self.core.create_observation(request.repo, new)
        return convert.observation_to_proto(o)

    @_rpc
    def GetObservation(self, request: pb.GetObservationRequest, context: grpc.ServicerContext) -> tpb.Observation:
        """One observation by id."""
        if not request.id:
            raise InvalidArgument("id is required")
        view = self.core.view
        obs_id = view.full_id(request.id)
        return convert.observation_to_proto(as_seen(view, view.observation_in(obs_id, (_repo_id(view, request.repo),))))

    @_rpc
    def UpdateObservation(self, request: pb.UpdateObservationRequest, context: grpc.ServicerContext) -> tpb.Observation:
        """Change an observation's text, category, tags or confidence."""
        fields: dict[str, Any] = {}
        obs_id = self.core.view.full_id(request.id)
        if request.HasField("text"):
            fields["text"] = request.text
        if request.HasField("category"):
            fields["category"] = _category(request.category)
        if request.replace_tags or request.tags:
            old = () if request.replace_tags else self.core.view.observation(obs_id).tags
            fields["tags"] = tuple(dict.fromkeys([*old, *request.tags]))
        if request.HasField("confidence"):
            fields["confidence"] = request.confidence
        if not fields:
            raise InvalidArgument("nothing to update: give text, category, tags or confidence")
        return convert.observation_to_proto(self.core.update(obs_id, request.by, **fields))

    @_rpc
    def ListObservations(
        self, request: pb.ListObservationsRequest, context: grpc.ServicerContext
    ) -> pb.ListObservationsResponse:
        """Observations filtered by repository, status, category, tags, file or symbol, newest first, paged."""
        view = self.core.view
        statuses = {convert.observation_status_from_proto(s) for s in request.statuses} - {None}
        if not statuses:
            statuses = {
                ObservationStatus.FRESH,
                ObservationStatus.STALE,
                ObservationStatus.SUSPECT,
                ObservationStatus.SUPERSEDED,
            }
        categories = {_category(c, None) for c in request.categories} - {None}
        repo_id = _repo_id(view, request.repo)
        file_rel = ""
        if request.file:
            rt, file_rel = view.locate(request.file, request.repo)
            repo_id = repo_id or rt.id
        symbol_id = view.resolve_anchor(request.symbol, request.repo).symbol_id if request.symbol else ""
        try:
            offset = int(request.page_token or 0)
        except ValueError as exc:
            raise InvalidArgument(f"bad page_token {request.page_token!r}") from exc
        limit = request.limit or 100
        tags = set(request.tags)
        rows = []
        shown = view.observations_in(repo_id) if repo_id else view.observations()
        for o in sorted(shown, key=lambda o: (-o.updated_at, o.id)):
            if o.status not in statuses or (categories and o.category not in categories):
                continue
            if repo_id and o.repo_id != repo_id:
                continue
            if tags and not tags <= set(o.tags):
                continue
            if request.origin and is_doc(o) != (request.origin == pb.ORIGIN_KNOWLEDGE):
                continue
            if file_rel and not any(a.path == file_rel for a in o.anchors):
                continue
            if symbol_id and not any(a.symbol_id == symbol_id for a in o.anchors):
                continue
            rows.append(o)
        page = rows[offset : offset + limit]
        nxt = str(offset + limit) if offset + limit < len(rows) else ""
        return pb.ListObservationsResponse(
            observations=[convert.observation_to_proto(as_seen(view, o), history=request.with_history) for o in page],
            next_page_token=nxt,
        )

    @_rpc
    def ArchiveObservation(
        self, request: pb.ArchiveObservationRequest, context: grpc.ServicerContext
    ) -> tpb.Observation:
        """Archive an observation."""
        return convert.observation_to_proto(self.core.archive(self.core.view.full_id(request.id), request.by))

    @_rpc
    def DeleteObservation(
        self, request: pb.DeleteObservationRequest, context: grpc.ServicerContext
    ) -> pb.DeleteObservationResponse:
        """Delete an observation for good."""
        self.core.delete(self.core.view.full_id(request.id), request.by)
        return pb.DeleteObservationResponse()

    @_rpc
    def ConfirmObservation(
        self, request: pb.ConfirmObservationRequest, context: grpc.ServicerContext
    ) -> tpb.Observation:
        """Confirm a stale or suspect observation still true (re-anchored, fresh)."""
        view = self.core.view
        checkout = _repo_id(view, request.repo)
        return convert.observation_to_proto(self.core.confirm(view.full_id(request.id), request.confirmed_by, checkout))

    @_stream
    def ExportObservations(
        self, request: pb.ExportObservationsRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.JournalLine]:
        """Stream every observation (or one repository's) as journal lines (JSON)."""
        repo_id = _repo_id(self.core.view, request.repo)
        for line in self.core.export_lines(repo_id):
            yield pb.JournalLine(json=line)

    @_rpc
    def ImportObservations(
        self, request: pb.ImportObservationsRequest, context: grpc.ServicerContext
    ) -> pb.ImportObservationsResponse:
        """Import journal lines, skipping observations already present; rejected lines are reported."""
        imported, dupes, errors = self.core.import_lines(request.lines, request.repo)
        return pb.ImportObservationsResponse(imported=imported, skipped_duplicates=dupes, errors=errors)

    @_rpc
    def CheckKnowledge(
        self, request: pb.CheckKnowledgeRequest, context: grpc.ServicerContext
    ) -> pb.CheckKnowledgeResponse:
        """Every reference to code in the knowledge files that is not OK (dangling, stale,
        suspect) with its exact span; ``wait_current`` waits (within the deadline) for a
        current index first."""
        remaining = context.time_remaining()
        wait = 0.0
        if request.wait_current:
            wait = 300.0 if remaining is None else max(0.0, remaining - 0.5)
        found = self.core.knowledge.check(request.repo, list(request.paths), wait)
        return convert.knowledge_check_to_proto(found)

    @_rpc
    def GetObservationChange(
        self, request: pb.GetObservationChangeRequest, context: grpc.ServicerContext
    ) -> pb.ObservationChange:
        """The code before and after under each of a note's stale reasons."""
        view = self.core.view
        obs_id = view.full_id(request.id)
        checkout = _repo_id(view, request.repo)
        return convert.observation_change_to_proto(self.changes.change(obs_id, request.max_commits, checkout))


class RetrievalService(pbg.RetrievalServiceServicer):
    """Ranked retrieval, session briefs and post-edit context."""

    def __init__(self, core: Core, retriever: Retriever) -> None:
        self.core = core
        self.retriever = retriever
        self.briefer = Briefer(lambda: core.view, retriever, as_seen)

    @_rpc
    def Retrieve(self, request: pb.RetrieveRequest, context: grpc.ServicerContext) -> pb.RetrieveResponse:
        """The observations relevant to files, symbols or text, ranked by graph proximity."""
        result = self.retriever.retrieve(
            repo=request.repo,
            files=list(request.files),
            symbols=list(request.symbols),
            text=request.text,
            hops=request.hops if request.HasField("hops") else DEFAULT_HOPS,
            limit=request.limit or 20,
            budget=request.token_budget,
            fresh_only=request.fresh_only,
            line=request.line,
        )
        view = self.core.view
        seen = tuple(dataclasses.replace(r, observation=as_seen(view, r.observation)) for r in result.results)
        return convert.recall_result_to_proto(dataclasses.replace(result, results=seen))

    @_rpc
    def SessionBrief(self, request: pb.SessionBriefRequest, context: grpc.ServicerContext) -> pb.SessionBriefResponse:
        """A session brief: the relevant observations as text within a token budget."""
        brief = self.briefer.brief(
            repo=request.repo,
            files=list(request.files),
            symbols=list(request.symbols),
            text=request.text,
            budget=request.token_budget or 1000,
            fresh_only=request.fresh_only,
        )
        return convert.brief_to_proto(brief)

    @_rpc
    def EditContext(self, request: pb.EditContextRequest, context: grpc.ServicerContext) -> pb.EditContextResponse:
        """After an agent edited files: the notes it just made stale or suspect (waiting up to
        ``wait_ms`` for the index to take the files in); empty when it changed nothing under a note."""
        if not request.files:
            raise InvalidArgument("files is required: the edited files")
        if request.wait_ms > MAX_SETTLE_MS:
            raise InvalidArgument(f"wait_ms must be at most {MAX_SETTLE_MS}, not {request.wait_ms}")
        view = self.core.view
        started = time.monotonic()
        settled = settle(
            list(request.files),
            lambda f: view.locate(f, request.repo),
            self.core.indexer,
            wait_s=request.wait_ms / 1000,
            max_file_size=self.core.cfg.max_file_size,
        )
        edited = settled.edited
        result = self.briefer.edit_context(
            repo=request.repo or edited[0].rt.id,
            files=[str(e.path) for e in edited],
            edited={(e.rt.id, e.rel): e.mtime for e in edited},
            budget=request.token_budget or 600,
            fresh_only=request.fresh_only,
            already_shown=set(request.already_shown),
        )
        shown = len(result.observation_ids)
        logger.info(
            "edit context: %s; answered %.1f ms later (%d note%s shown)",
            settled.describe(),
            (time.monotonic() - started - settled.waited_s) * 1000,
            shown,
            "" if shown == 1 else "s",
        )
        return convert.edit_context_to_proto(dataclasses.replace(result, indexed=settled.indexed))


class SymbolService(pbg.SymbolServiceServicer):
    """Find symbols and one symbol's neighbourhood."""

    def __init__(self, core: Core, symbols: SymbolQueries) -> None:
        self.core = core
        self.symbols = symbols

    @_rpc
    def FindSymbols(self, request: pb.FindSymbolsRequest, context: grpc.ServicerContext) -> pb.FindSymbolsResponse:
        """Symbols whose names match a wildcard pattern."""
        if not request.pattern.strip():
            raise InvalidArgument("pattern is required")
        kinds = [convert.symbol_kind_from_proto(k) for k in request.kinds]
        found = self.symbols.find_symbols(
            request.pattern, repo=request.repo, kinds=kinds, limit=min(request.limit or 50, 1000)
        )
        return pb.FindSymbolsResponse(symbols=[convert.symbol_to_proto(s) for s in found])

    @_rpc
    def GetSymbol(self, request: pb.GetSymbolRequest, context: grpc.ServicerContext) -> pb.SymbolDetail:
        """One symbol with its callers, callees, members, inheritance and observations."""
        if not request.ref.strip():
            raise InvalidArgument("ref is required")
        return convert.symbol_detail_to_proto(self.symbols.symbol_detail(request.ref, repo=request.repo))

    @_rpc
    def ResolveSymbol(
        self, request: pb.ResolveSymbolRequest, context: grpc.ServicerContext
    ) -> pb.ResolveSymbolResponse:
        """Full refs for a short symbol name, best first."""
        resolved = self.symbols.resolve_symbol(request.ref, repo=request.repo, limit=min(request.limit or 10, 100))
        return convert.resolved_to_proto(resolved)

    @_rpc
    def GetFileOutline(self, request: pb.GetFileOutlineRequest, context: grpc.ServicerContext) -> pb.FileOutline:
        """One file's symbols with their line ranges and the observations anchored there."""
        if not request.path.strip():
            raise InvalidArgument("path is required")
        outline = self.symbols.file_outline(request.path, repo=request.repo)
        view = self.core.view
        seen = tuple(as_seen(view, o) for o in outline.observations)
        return convert.file_outline_to_proto(dataclasses.replace(outline, observations=seen))

    @_rpc
    def GetNeighbourhood(self, request: pb.GetNeighbourhoodRequest, context: grpc.ServicerContext) -> pb.Neighbourhood:
        """The code within some hops of symbols or files, as nodes and edges with their notes."""
        found = neighbourhood(
            self.core.view, list(request.refs), repo=request.repo, hops=request.hops, max_nodes=request.max_nodes
        )
        return convert.neighbourhood_to_proto(found)


class EventService(pbg.EventServiceServicer):
    """The live event stream."""

    def __init__(self, core: Core) -> None:
        self.core = core

    @_stream
    def Subscribe(self, request: pb.SubscribeRequest, context: grpc.ServicerContext) -> Iterator[pb.Event]:
        """Stream events (observations going stale or fresh, indexing, watcher health) as they happen."""
        kinds: list[EventKind] = []
        for k in request.kinds:
            kind = convert.event_kind_from_proto(k)
            if kind is None and k != 0:
                raise InvalidArgument(f"unknown event kind {k}")
            if kind is not None:
                kinds.append(kind)
        bus = self.core.bus
        repo_id = _repo_id(self.core.view, request.repo)
        after_seq = request.after_seq if request.HasField("after_seq") else None
        sub = bus.subscribe(repo_id, kinds, after_seq)
        context.send_initial_metadata(())  # headers now: a client knows it is subscribed before any event
        try:
            while context.is_active() and not bus.closed.is_set():
                event = sub.get(timeout=0.5)
                if event is not None:
                    yield convert.event_to_proto(_as_seen(self.core.view, event))
        finally:
            sub.close()


def add_services(server: grpc.Server, core: Core, socket_path: str, tcp: str, shutdown: threading.Event) -> list[str]:
    """Register every servicer; returns the full service names (for reflection)."""
    retriever = Retriever(lambda: core.view, cochange=core.cochange)
    pbg.add_DaemonServiceServicer_to_server(DaemonService(core, socket_path, tcp, shutdown), server)  # type: ignore[no-untyped-call]
    pbg.add_RepositoryServiceServicer_to_server(RepositoryService(core), server)  # type: ignore[no-untyped-call]
    pbg.add_ObservationServiceServicer_to_server(ObservationService(core), server)  # type: ignore[no-untyped-call]
    pbg.add_RetrievalServiceServicer_to_server(RetrievalService(core, retriever), server)  # type: ignore[no-untyped-call]
    pbg.add_SymbolServiceServicer_to_server(SymbolService(core, SymbolQueries(lambda: core.view)), server)  # type: ignore[no-untyped-call]
    pbg.add_EventServiceServicer_to_server(EventService(core), server)  # type: ignore[no-untyped-call]
    return [s.full_name for s in pb.DESCRIPTOR.services_by_name.values()]
