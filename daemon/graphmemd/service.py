"""gRPC servicers: thin translations between the wire and the engine.

Errors: every ``GraphMemError`` is turned into its gRPC status in ONE place (``_rpc``);
request validation raises ``InvalidArgument`` so bad input is INVALID_ARGUMENT, never INTERNAL.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import grpc
from graphmem import __version__, convert
from graphmem.errors import GraphMemError, InvalidArgument
from graphmem.types import Category, EventKind, ObservationStatus, Repository, Status, WatcherStatus
from graphmem.v1 import service_pb2 as pb
from graphmem.v1 import service_pb2_grpc as pbg
from graphmem.v1 import types_pb2 as tpb

from graphmemd.engine import Engine
from graphmemd.repos import RepoRuntime
from graphmemd.retrieval import Retriever
from graphmemd.validation import parse_import

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def _rpc(fn: F) -> F:
    """Map graphmem errors to gRPC statuses (the one place that does)."""

    @functools.wraps(fn)
    def unary(self: Any, request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return fn(self, request, context)
        except GraphMemError as exc:
            context.abort(grpc.StatusCode[exc.grpc_status], exc.message)
        except Exception as exc:  # a bug: never UNKNOWN without a word; the log has the traceback
            logger.exception("%s failed", fn.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"internal error in {fn.__name__}: {type(exc).__name__}: {exc}")

    return unary  # type: ignore[return-value]


def _stream(fn: F) -> F:
    @functools.wraps(fn)
    def streaming(self: Any, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from fn(self, request, context)
        except GraphMemError as exc:
            context.abort(grpc.StatusCode[exc.grpc_status], exc.message)
        except Exception as exc:  # a bug: never UNKNOWN without a word; the log has the traceback
            logger.exception("%s failed", fn.__name__)
            context.abort(grpc.StatusCode.INTERNAL, f"internal error in {fn.__name__}: {type(exc).__name__}: {exc}")

    return streaming  # type: ignore[return-value]


def _category(value: int, default: Category | None = Category.OTHER) -> Category | None:
    if value not in tpb.Category.values():
        raise InvalidArgument(f"unknown category {value}")
    return convert.category_from_proto(value) or default


def repository(engine: Engine, rt: RepoRuntime) -> Repository:
    """A repository's summary from counters the indexer maintains: never waits for the indexer."""
    files, symbols = rt.n_files, rt.n_symbols
    obs = [o for o in engine.book.all() if o.repo_id == rt.id]
    return Repository(
        id=rt.id,
        root=str(rt.root),
        state=rt.state,
        files=files,
        symbols=symbols,
        observations=len(obs),
        stale_observations=sum(o.status is ObservationStatus.STALE for o in obs),
        files_done=rt.files_done,
        files_total=rt.files_total,
        skipped_files=len(rt.skipped),
        head_commit=rt.indexed_commit,
        last_indexed_at=rt.last_indexed_at,
        error=rt.error,
        pending_changes=len(rt.pending),
        edges=rt.n_edges,
    )


class DaemonService(pbg.DaemonServiceServicer):
    def __init__(self, engine: Engine, socket_path: str, tcp: str, shutdown: threading.Event) -> None:
        self.engine = engine
        self.socket_path = socket_path
        self.tcp = tcp
        self.shutdown = shutdown

    @_rpc
    def GetStatus(self, request: pb.GetStatusRequest, context: grpc.ServicerContext) -> pb.GetStatusResponse:
        e = self.engine
        serving = e.ready.is_set()
        repos: tuple[Repository, ...] = ()
        n_obs = n_stale = 0
        if serving:
            rts = list(e.repos.values())  # a snapshot; never wait for the indexer's lock
            repos = tuple(repository(e, rt) for rt in rts)
            all_obs = e.book.all()
            n_obs = len(all_obs)
            n_stale = sum(o.status is ObservationStatus.STALE for o in all_obs)
        mode, healthy, reason, restarts = e.watcher_state()
        degraded = [f"watcher: {reason}"] if not healthy else []
        degraded += [f"repository {r.id}: {r.error}" for r in repos if r.error]
        if not serving:
            degraded.append("store not open yet")
        status = Status(
            version=__version__,
            pid=os.getpid(),
            uptime_seconds=time.time() - e.started_at,
            socket_path=self.socket_path,
            store_path=str(e.cfg.paths.store),
            store_size_bytes=e.store.size_bytes() if serving else 0,
            journal_path=str(e.cfg.paths.journal),
            serving=serving,
            repositories=repos,
            watcher=WatcherStatus(mode=mode, healthy=healthy, degraded_reason=reason, restarts=restarts),
            degraded_reasons=tuple(degraded),
            tcp_address=self.tcp,
            last_error=e.last_error,
            observations=n_obs,
            stale_observations=n_stale,
        )
        return convert.status_to_proto(status)

    @_rpc
    def Shutdown(self, request: pb.ShutdownRequest, context: grpc.ServicerContext) -> pb.ShutdownResponse:
        logger.info("shutdown requested over gRPC")
        self.shutdown.set()
        return pb.ShutdownResponse()


class RepositoryService(pbg.RepositoryServiceServicer):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @_rpc
    def AddRepository(self, request: pb.AddRepositoryRequest, context: grpc.ServicerContext) -> tpb.Repository:
        if not request.path:
            raise InvalidArgument("path is required")
        rt = self.engine.add_repo(request.path)
        return convert.repository_to_proto(repository(self.engine, rt))

    @_rpc
    def RemoveRepository(
        self, request: pb.RemoveRepositoryRequest, context: grpc.ServicerContext
    ) -> pb.RemoveRepositoryResponse:
        if not request.repo:
            raise InvalidArgument("repo is required (an id or a path)")
        self.engine.remove_repo(request.repo, keep_observations=request.keep_observations)
        return pb.RemoveRepositoryResponse()

    @_rpc
    def ListRepositories(
        self, request: pb.ListRepositoriesRequest, context: grpc.ServicerContext
    ) -> pb.ListRepositoriesResponse:
        rts = list(self.engine.repos.values())
        return pb.ListRepositoriesResponse(
            repositories=[convert.repository_to_proto(repository(self.engine, rt)) for rt in rts]
        )

    @_stream
    def IndexRepository(
        self, request: pb.IndexRepositoryRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.IndexProgress]:
        rt, job = self.engine.request_index(request.repo, list(request.paths), request.full)
        started = time.time()
        while not job.done.wait(0.2):
            if not context.is_active():
                return
            yield convert.index_progress_to_proto(self.engine.progress(rt, started))
        if job.error is not None:
            raise job.error
        yield convert.index_progress_to_proto(self.engine.progress(rt, started))


class ObservationService(pbg.ObservationServiceServicer):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @_rpc
    def CreateObservation(self, request: pb.CreateObservationRequest, context: grpc.ServicerContext) -> tpb.Observation:
        category = _category(request.category)
        assert category is not None
        o = self.engine.create_observation(
            repo=request.repo,
            text=request.text,
            category=category,
            tags=list(request.tags),
            source=request.source or "unknown",
            confidence=request.confidence or 1.0,
            anchors=list(request.anchors),
            supersedes=list(request.supersedes),
            contradicts=list(request.contradicts),
            idempotency_key=request.idempotency_key,
        )
        return convert.observation_to_proto(o)

    @_rpc
    def GetObservation(self, request: pb.GetObservationRequest, context: grpc.ServicerContext) -> tpb.Observation:
        if not request.id:
            raise InvalidArgument("id is required")
        return convert.observation_to_proto(self.engine.book.get(request.id))

    @_rpc
    def UpdateObservation(self, request: pb.UpdateObservationRequest, context: grpc.ServicerContext) -> tpb.Observation:
        fields: dict[str, Any] = {}
        if request.HasField("text"):
            fields["text"] = request.text
        if request.HasField("category"):
            fields["category"] = _category(request.category)
        if request.replace_tags or request.tags:
            old = () if request.replace_tags else self.engine.book.get(request.id).tags
            fields["tags"] = tuple(dict.fromkeys([*old, *request.tags]))
        if request.HasField("confidence"):
            fields["confidence"] = request.confidence
        if not fields:
            raise InvalidArgument("nothing to update: give text, category, tags or confidence")
        o = self.engine.book.update(request.id, **fields)
        self.engine.publish_changed(o)
        return convert.observation_to_proto(o)

    @_rpc
    def ListObservations(
        self, request: pb.ListObservationsRequest, context: grpc.ServicerContext
    ) -> pb.ListObservationsResponse:
        e = self.engine
        statuses = {convert.observation_status_from_proto(s) for s in request.statuses} - {None}
        if not statuses:
            statuses = {ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUPERSEDED}
        categories = {_category(c, None) for c in request.categories} - {None}
        repo_id = e.repo(request.repo).id if request.repo else ""
        file_rel = ""
        if request.file:
            rt, file_rel = e.locate(request.file, request.repo)
            repo_id = repo_id or rt.id
        symbol_id = e.resolve_anchor(request.symbol, request.repo).symbol_id if request.symbol else ""
        try:
            offset = int(request.page_token or 0)
        except ValueError as exc:
            raise InvalidArgument(f"bad page_token {request.page_token!r}") from exc
        limit = request.limit or 100
        tags = set(request.tags)
        rows = []
        for o in sorted(e.book.all(), key=lambda o: (-o.updated_at, o.id)):
            if o.status not in statuses or (categories and o.category not in categories):
                continue
            if repo_id and o.repo_id != repo_id:
                continue
            if tags and not tags <= set(o.tags):
                continue
            if file_rel and not any(a.path == file_rel for a in o.anchors):
                continue
            if symbol_id and not any(a.symbol_id == symbol_id for a in o.anchors):
                continue
            rows.append(o)
        page = rows[offset : offset + limit]
        nxt = str(offset + limit) if offset + limit < len(rows) else ""
        return pb.ListObservationsResponse(
            observations=[convert.observation_to_proto(o) for o in page], next_page_token=nxt
        )

    @_rpc
    def ArchiveObservation(
        self, request: pb.ArchiveObservationRequest, context: grpc.ServicerContext
    ) -> tpb.Observation:
        o = self.engine.book.archive(request.id)
        self.engine.publish_changed(o)
        return convert.observation_to_proto(o)

    @_rpc
    def DeleteObservation(
        self, request: pb.DeleteObservationRequest, context: grpc.ServicerContext
    ) -> pb.DeleteObservationResponse:
        self.engine.book.delete(request.id)
        return pb.DeleteObservationResponse()

    @_rpc
    def ConfirmObservation(
        self, request: pb.ConfirmObservationRequest, context: grpc.ServicerContext
    ) -> tpb.Observation:
        return convert.observation_to_proto(self.engine.confirm(request.id, request.confirmed_by))

    @_stream
    def ExportObservations(
        self, request: pb.ExportObservationsRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.JournalLine]:
        from graphmemd.observations import to_doc

        for o in sorted(self.engine.book.all(), key=lambda o: o.created_at):
            yield pb.JournalLine(json=json.dumps({"op": "put", "obs": to_doc(o)}, sort_keys=True, ensure_ascii=False))

    @_rpc
    def ImportObservations(
        self, request: pb.ImportObservationsRequest, context: grpc.ServicerContext
    ) -> pb.ImportObservationsResponse:
        batch = parse_import(request.lines)
        if batch.errors and not batch.observations:
            raise InvalidArgument("nothing to import: " + "; ".join(batch.errors[:20]))
        imported, dupes = self.engine.book.import_observations(batch.observations)
        return pb.ImportObservationsResponse(imported=imported, skipped_duplicates=dupes, errors=batch.errors)


class RetrievalService(pbg.RetrievalServiceServicer):
    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever

    @_rpc
    def Retrieve(self, request: pb.RetrieveRequest, context: grpc.ServicerContext) -> pb.RetrieveResponse:
        result = self.retriever.retrieve(
            repo=request.repo,
            files=list(request.files),
            symbols=list(request.symbols),
            text=request.text,
            hops=request.hops or 2,
            limit=request.limit or 20,
            budget=request.token_budget,
            include_stale=request.include_stale,
        )
        return convert.recall_result_to_proto(result)

    @_rpc
    def SessionBrief(self, request: pb.SessionBriefRequest, context: grpc.ServicerContext) -> pb.SessionBriefResponse:
        brief = self.retriever.brief(
            repo=request.repo,
            files=list(request.files),
            symbols=list(request.symbols),
            text=request.text,
            budget=request.token_budget or 1000,
            include_stale=request.include_stale,
        )
        return convert.brief_to_proto(brief)


class SymbolService(pbg.SymbolServiceServicer):
    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever

    @_rpc
    def FindSymbols(self, request: pb.FindSymbolsRequest, context: grpc.ServicerContext) -> pb.FindSymbolsResponse:
        if not request.pattern.strip():
            raise InvalidArgument("pattern is required")
        kinds = [convert.symbol_kind_from_proto(k) for k in request.kinds]
        found = self.retriever.find_symbols(
            request.pattern, repo=request.repo, kinds=kinds, limit=min(request.limit or 50, 1000)
        )
        return pb.FindSymbolsResponse(symbols=[convert.symbol_to_proto(s) for s in found])

    @_rpc
    def GetSymbol(self, request: pb.GetSymbolRequest, context: grpc.ServicerContext) -> pb.SymbolDetail:
        if not request.ref.strip():
            raise InvalidArgument("ref is required")
        return convert.symbol_detail_to_proto(self.retriever.symbol_detail(request.ref, repo=request.repo))


class EventService(pbg.EventServiceServicer):
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @_stream
    def Subscribe(self, request: pb.SubscribeRequest, context: grpc.ServicerContext) -> Iterator[pb.Event]:
        kinds: list[EventKind] = []
        for k in request.kinds:
            kind = convert.event_kind_from_proto(k)
            if kind is None and k != 0:
                raise InvalidArgument(f"unknown event kind {k}")
            if kind is not None:
                kinds.append(kind)
        repo_id = self.engine.repo(request.repo).id if request.repo else ""
        sub = self.engine.bus.subscribe(repo_id, kinds)
        try:
            while context.is_active() and not self.engine.bus.closed.is_set():
                event = sub.get(timeout=0.5)
                if event is not None:
                    yield convert.event_to_proto(event)
        finally:
            sub.close()


def add_services(
    server: grpc.Server, engine: Engine, socket_path: str, tcp: str, shutdown: threading.Event
) -> list[str]:
    """Register every servicer; returns the full service names (for reflection)."""
    retriever = Retriever(engine)
    pbg.add_DaemonServiceServicer_to_server(DaemonService(engine, socket_path, tcp, shutdown), server)  # type: ignore[no-untyped-call]
    pbg.add_RepositoryServiceServicer_to_server(RepositoryService(engine), server)  # type: ignore[no-untyped-call]
    pbg.add_ObservationServiceServicer_to_server(ObservationService(engine), server)  # type: ignore[no-untyped-call]
    pbg.add_RetrievalServiceServicer_to_server(RetrievalService(retriever), server)  # type: ignore[no-untyped-call]
    pbg.add_SymbolServiceServicer_to_server(SymbolService(retriever), server)  # type: ignore[no-untyped-call]
    pbg.add_EventServiceServicer_to_server(EventService(engine), server)  # type: ignore[no-untyped-call]
    return [s.full_name for s in pb.DESCRIPTOR.services_by_name.values()]
