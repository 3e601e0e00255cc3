"""Synchronous Python client of the graphmem daemon.

    from graphmem.client import GraphMem

    with GraphMem() as gm:                       # the daemon of GRAPHMEM_HOME / XDG dirs
        obs = gm.observe("login retries are capped at 3: the IdP rate-limits us",
                         anchors=["auth/service.py::AuthService.login"], category=Category.CONSTRAINT)
        for hit in gm.recall(files=["api/routes.py"]).results:
            print(hit.score, hit.observation.text, hit.why)

Every method returns ``graphmem.types`` objects (never protobuf messages) and raises
``graphmem.errors`` exceptions (never ``grpc.RpcError``): the mapping happens in one place,
``GraphMem._error``. Importing this module loads grpc and protobuf, but none of the
daemon's dependencies (kuzu, tree_sitter, watchfiles).

Paths: a ``repo=`` or ``files=`` value that exists on disk relative to the current
directory is sent as an absolute path; anything else (a repository id, a repo-relative
path) is sent as given. The daemon accepts both.

Repository from the working directory: the calls aimed at one repository (``observe``,
``recall``, ``brief``, ``find_symbols``, ``symbol``) send the working directory (absolute;
``cwd=`` overrides it) as the repository when ``repo`` is empty, and the daemon picks the
deepest registered root containing it. Outside every registered repository the working
directory is no hint: the daemon's default applies (the only repository; ``recall``,
``brief`` and ``find_symbols`` cover every repository; ``observe`` and ``symbol`` with several
registered fail with ``InvalidArgument`` naming them and the ``--repo`` flag). ``list``,
``events``, ``index`` and ``export`` still cover every repository when ``repo`` is empty.
"""

from __future__ import annotations

import builtins
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Final, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status

from graphmem import convert
from graphmem.errors import (
    DaemonNotRunning,
    FailedPrecondition,
    GraphMemError,
    InvalidArgument,
    NotFound,
    Timeout,
    Unavailable,
    error_for_status,
)
from graphmem.paths import Paths, default_address, resolve_paths
from graphmem.types import (
    Brief,
    Category,
    EditContext,
    Event,
    EventKind,
    FileOutline,
    ImportResult,
    IndexProgress,
    KnowledgeCheck,
    Neighbourhood,
    Observation,
    ObservationChange,
    ObservationStatus,
    Origin,
    RecallResult,
    Repository,
    Resolved,
    Status,
    Symbol,
    SymbolDetail,
)
from graphmem.v1 import service_pb2, types_pb2

__all__ = ["LIST_PAGE", "MAX_MESSAGE_BYTES", "EventStream", "GraphMem", "normalize_address", "outside_message"]

#: gRPC send/receive limit: exports and large recalls exceed the 4 MiB default.
MAX_MESSAGE_BYTES: Final = 64 * 1024 * 1024
#: observations one ``ListObservations`` call returns when ``list`` reads them all (the
#: daemon sorts the matching notes once per call: a few large pages, not many of 100)
LIST_PAGE: Final = 500

#: Pauses between attempts when ``observe`` retries an UNAVAILABLE / DEADLINE_EXCEEDED call.
_OBSERVE_RETRY_DELAYS: Final = (0.2, 0.5, 1.0)

#: Substrings of grpc's UNAVAILABLE details that mean "nothing answered at the address".
_CONNECT_FAILURES: Final = (
    "failed to connect",
    "connection refused",
    "no such file or directory",
    "connections to all backends failing",
    "dns resolution failed",
)

#: A daemon of the version before ``google.rpc.RetryInfo`` said "busy, retry" only by
#: beginning its UNAVAILABLE message with this; read for it alone (one comparison).
_OLD_BUSY_PREFIX: Final = "graphmemd is "
_RETRY_FIRST_S: Final = 0.05
_RETRY_MAX_S: Final = 1.0
#: Metadata key of the per-user token a TCP listener requires.
TOKEN_METADATA: Final = "x-graphmem-token"
#: How long a client keeps knowing that its working directory is outside every registered
#: repository (each call then goes out unscoped at once, instead of being refused for the
#: directory, listing the repositories and going out again: three calls for one).
OUTSIDE_MEMO_S: Final = 5.0

_Req = TypeVar("_Req", bound=Message)
_Resp = TypeVar("_Resp", bound=Message)
_T = TypeVar("_T")


def normalize_address(address: str) -> str:
    """A gRPC target for ``address``: ``unix:/path`` and ``host:port`` pass through;
    a bare absolute path becomes ``unix:/path``; ``tcp://host:port`` becomes ``host:port``."""
    address = address.strip()
    if address.startswith("tcp://"):
        return address.removeprefix("tcp://")
    if address.startswith("/"):
        return "unix:" + address
    return address


def _method_path(service: str, method: str) -> str:
    """``/graphmem.v1.Service/Method``, checked against the generated descriptors."""
    svc = service_pb2.DESCRIPTOR.services_by_name[service]
    return f"/{svc.full_name}/{svc.methods_by_name[method].name}"


def _unary(
    channel: grpc.Channel, path: str, request: type[_Req], response: type[_Resp]
) -> grpc.UnaryUnaryMultiCallable[_Req, _Resp]:
    return channel.unary_unary(
        path, request_serializer=request.SerializeToString, response_deserializer=response.FromString
    )


def _stream(
    channel: grpc.Channel, path: str, request: type[_Req], response: type[_Resp]
) -> grpc.UnaryStreamMultiCallable[_Req, _Resp]:
    return channel.unary_stream(
        path, request_serializer=request.SerializeToString, response_deserializer=response.FromString
    )


def _token_for(address: str, paths: Paths, token: str | None) -> str:
    """The token to send: only over TCP (the Unix socket needs none)."""
    if address.startswith("unix:"):
        return ""
    if token is not None:
        return token
    env = os.environ.get("GRAPHMEM_TOKEN", "")
    if env:
        return env.strip()
    try:
        return paths.token.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _is_connect_failure(details: str | None) -> bool:
    """Whether UNAVAILABLE details say nothing answered (rather than the daemon refusing)."""
    return not details or any(s in details.lower() for s in _CONNECT_FAILURES)


def _local_path(value: str) -> str:
    """``value`` as an absolute path when it exists relative to the cwd, else unchanged."""
    if not value:
        return value
    candidate = Path(value).expanduser()
    if candidate.is_absolute():
        return str(candidate)
    try:
        if candidate.exists():
            return str(candidate.resolve())
    except OSError:  # e.g. a name too long to be a path: it is an id or a ref
        return value
    return value


def _local_paths(values: Iterable[str]) -> builtins.list[str]:
    return [_local_path(v) for v in values]


def outside_message(directory: Path, repos: Sequence[Repository], flag: str = "--repo") -> str:
    """The error for a working directory outside every registered repository."""
    if not repos:
        return (
            f"{directory} is not inside a registered repository, and none is registered; "
            "register one with: graphmem repo add PATH"
        )
    candidates = ", ".join(f"{r.id} ({r.root})" for r in repos)
    return (
        f"{directory} is not inside a registered repository; name one with {flag} ID or PATH "
        f"(registered: {candidates}), run the command inside one, or register this one with: graphmem repo add PATH"
    )


def _status_details(err: grpc.RpcError) -> tuple[any_pb2.Any, ...]:
    """The details of a failed call's rich ``google.rpc.Status`` (none for a plain status)."""
    if not isinstance(err, grpc.Call):
        return ()
    try:
        status = rpc_status.from_call(err)
    except ValueError:  # a status whose details contradict its code: ignore the details
        return ()
    return tuple(status.details) if status is not None else ()


def _close_matches(err: grpc.RpcError) -> tuple[str, tuple[str, ...]]:
    """The ``graphmem.v1.CloseMatches`` detail of a failed call's rich status, if any."""
    for detail in _status_details(err):
        matches = types_pb2.CloseMatches()
        if detail.Unpack(matches):
            return matches.reference, tuple(matches.candidates)
    return "", ()


def _retry_delay_s(err: grpc.RpcError) -> float | None:
    """The delay of the ``google.rpc.RetryInfo`` detail the daemon sends with "busy, retry"
    (starting up, shutting down, a repository loading, a store write late), capped at
    ``_RETRY_MAX_S``; None when the call carries none (it is not worth retrying)."""
    for detail in _status_details(err):
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return min(float(info.retry_delay.ToMilliseconds()) / 1000.0, _RETRY_MAX_S)
    return None


def deepest_repository(repos: Iterable[Repository], directory: str | Path) -> Repository | None:
    """Of ``repos``, the one whose root is the deepest containing ``directory`` (resolved, as
    the daemon resolves roots), or None."""
    target = Path(directory).expanduser()
    try:
        target = target.resolve()
    except OSError:
        target = target.absolute()
    best: Repository | None = None
    for repo in repos:
        root = Path(repo.root)
        inside = target == root or root in target.parents
        if inside and (best is None or len(root.parts) > len(Path(best.root).parts)):
            best = repo
    return best


class EventStream(Iterator[Event]):
    """Live daemon events; iterate to receive them, ``cancel()`` (from any thread) to stop.

    Iteration ends quietly after ``cancel()``; other stream failures raise
    ``graphmem.errors`` exceptions. Usable as a context manager (cancels on exit).
    """

    def __init__(
        self,
        call: grpc.CallIterator[service_pb2.Event],
        map_error: Callable[[grpc.RpcError], GraphMemError],
    ) -> None:
        self._call = call
        self._iter = iter(call)
        self._map_error = map_error
        self._cancelled = False

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> Event:
        while True:
            try:
                msg = next(self._iter)
            except grpc.RpcError as err:
                if self._cancelled and err.code() == grpc.StatusCode.CANCELLED:
                    raise StopIteration from None
                raise self._map_error(err) from err
            event = convert.event_from_proto(msg)
            if event is not None:  # kinds added by a newer daemon are skipped
                return event

    def wait_ready(self) -> None:
        """Block until the daemon accepted the subscription (its response headers arrived):
        from then on no event is missed. Raises the call's error when it failed instead."""
        call = self._call
        call.initial_metadata()  # returns once the headers arrived, or the call ended
        done = getattr(call, "done", None)  # grpc-stubs leave the Future side of the call out
        if callable(done) and done() and not self._cancelled and call.code() is not grpc.StatusCode.OK:
            raise self._map_error(call) if isinstance(call, grpc.RpcError) else GraphMemError(str(call.details()))

    def cancel(self) -> None:
        """Stop the subscription; a blocked ``next()`` returns (StopIteration) promptly."""
        self._cancelled = True
        self._call.cancel()  # type: ignore[no-untyped-call]  # grpc-stubs leaves cancel() untyped

    def __enter__(self) -> EventStream:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.cancel()


class GraphMem:
    """A connection to one graphmem daemon.

    ``address`` is a gRPC target (``unix:/run/user/1000/graphmem/graphmemd.sock``,
    ``127.0.0.1:7777``, or a bare socket path); by default, ``GRAPHMEM_ADDRESS`` or the
    daemon socket of ``home`` (``GRAPHMEM_HOME`` / XDG directories). ``timeout`` is the
    deadline in seconds of every unary call, retries included (a daemon that is starting up
    or shutting down answers UNAVAILABLE and is retried with backoff until then); streams
    (index, events, export) have none.

    Over TCP the per-user token is sent with every call: ``token``, else ``GRAPHMEM_TOKEN``,
    else the daemon's token file. ``tls_ca`` (or ``GRAPHMEM_TLS_CA``) makes the channel TLS,
    for a daemon started with ``--tcp-remote``.

    Connecting is lazy: a daemon that is not running shows as ``DaemonNotRunning`` on the
    first call.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        home: str | None = None,
        timeout: float = 10.0,
        cwd: str | Path | None = None,
        token: str | None = None,
        tls_ca: str | None = None,
    ) -> None:
        paths = resolve_paths(home)
        self.address: str = normalize_address(address) if address else default_address(paths)
        self.timeout: float = timeout
        #: The directory whose repository the one-repository calls default to (None: the
        #: process's working directory at the time of each call).
        self.cwd: Path | None = Path(cwd).expanduser().absolute() if cwd is not None else None
        #: (directory, when): the working directory was found outside every registered
        #: repository at that time (``OUTSIDE_MEMO_S``)
        self._outside: tuple[Path, float] | None = None
        #: The pid file of the daemon behind the default socket (None for another address):
        #: a live pid there with nothing answering yet means the daemon is starting.
        self._pid_file: Path | None = paths.pid if not address and self.address.startswith("unix:") else None
        secret = _token_for(self.address, paths, token)
        self._metadata: tuple[tuple[str, str], ...] = ((TOKEN_METADATA, secret),) if secret else ()
        options = [
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.enable_http_proxy", 0),
        ]
        ca = tls_ca if tls_ca is not None else os.environ.get("GRAPHMEM_TLS_CA", "")
        if ca and not self.address.startswith("unix:"):
            try:
                root = Path(ca).expanduser().read_bytes()
            except OSError as exc:
                raise GraphMemError(f"cannot read the TLS CA certificate {ca}: {exc}") from exc
            creds = grpc.ssl_channel_credentials(root_certificates=root)
            self._channel = grpc.secure_channel(self.address, creds, options=options)
        else:
            self._channel = grpc.insecure_channel(self.address, options=options)
        ch = self._channel
        daemon, repos, obs = "DaemonService", "RepositoryService", "ObservationService"
        p = _method_path
        self._get_status = _unary(
            ch, p(daemon, "GetStatus"), service_pb2.GetStatusRequest, service_pb2.GetStatusResponse
        )
        self._shutdown = _unary(ch, p(daemon, "Shutdown"), service_pb2.ShutdownRequest, service_pb2.ShutdownResponse)
        self._health_check = _unary(
            ch, "/grpc.health.v1.Health/Check", health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse
        )
        self._add_repo = _unary(ch, p(repos, "AddRepository"), service_pb2.AddRepositoryRequest, types_pb2.Repository)
        self._remove_repo = _unary(
            ch,
            p(repos, "RemoveRepository"),
            service_pb2.RemoveRepositoryRequest,
            service_pb2.RemoveRepositoryResponse,
        )
        self._link_repo = _unary(
            ch, p(repos, "LinkRepository"), service_pb2.LinkRepositoryRequest, types_pb2.Repository
        )
        self._list_repos = _unary(
            ch,
            p(repos, "ListRepositories"),
            service_pb2.ListRepositoriesRequest,
            service_pb2.ListRepositoriesResponse,
        )
        self._index = _stream(
            ch, p(repos, "IndexRepository"), service_pb2.IndexRepositoryRequest, service_pb2.IndexProgress
        )
        obs_msg = types_pb2.Observation
        self._create = _unary(ch, p(obs, "CreateObservation"), service_pb2.CreateObservationRequest, obs_msg)
        self._get = _unary(ch, p(obs, "GetObservation"), service_pb2.GetObservationRequest, obs_msg)
        self._update = _unary(ch, p(obs, "UpdateObservation"), service_pb2.UpdateObservationRequest, obs_msg)
        self._list = _unary(
            ch,
            p(obs, "ListObservations"),
            service_pb2.ListObservationsRequest,
            service_pb2.ListObservationsResponse,
        )
        self._archive = _unary(ch, p(obs, "ArchiveObservation"), service_pb2.ArchiveObservationRequest, obs_msg)
        self._delete = _unary(
            ch,
            p(obs, "DeleteObservation"),
            service_pb2.DeleteObservationRequest,
            service_pb2.DeleteObservationResponse,
        )
        self._confirm = _unary(ch, p(obs, "ConfirmObservation"), service_pb2.ConfirmObservationRequest, obs_msg)
        self._export = _stream(
            ch, p(obs, "ExportObservations"), service_pb2.ExportObservationsRequest, service_pb2.JournalLine
        )
        self._import = _unary(
            ch,
            p(obs, "ImportObservations"),
            service_pb2.ImportObservationsRequest,
            service_pb2.ImportObservationsResponse,
        )
        self._check_knowledge = _unary(
            ch,
            p(obs, "CheckKnowledge"),
            service_pb2.CheckKnowledgeRequest,
            service_pb2.CheckKnowledgeResponse,
        )
        self._observation_change = _unary(
            ch,
            p(obs, "GetObservationChange"),
            service_pb2.GetObservationChangeRequest,
            service_pb2.ObservationChange,
        )
        self._retrieve = _unary(
            ch, p("RetrievalService", "Retrieve"), service_pb2.RetrieveRequest, service_pb2.RetrieveResponse
        )
        self._session_brief = _unary(
            ch,
            p("RetrievalService", "SessionBrief"),
            service_pb2.SessionBriefRequest,
            service_pb2.SessionBriefResponse,
        )
        self._edit_context = _unary(
            ch,
            p("RetrievalService", "EditContext"),
            service_pb2.EditContextRequest,
            service_pb2.EditContextResponse,
        )
        self._find_symbols = _unary(
            ch,
            p("SymbolService", "FindSymbols"),
            service_pb2.FindSymbolsRequest,
            service_pb2.FindSymbolsResponse,
        )
        self._get_symbol = _unary(
            ch, p("SymbolService", "GetSymbol"), service_pb2.GetSymbolRequest, service_pb2.SymbolDetail
        )
        self._resolve_symbol = _unary(
            ch,
            p("SymbolService", "ResolveSymbol"),
            service_pb2.ResolveSymbolRequest,
            service_pb2.ResolveSymbolResponse,
        )
        self._file_outline = _unary(
            ch, p("SymbolService", "GetFileOutline"), service_pb2.GetFileOutlineRequest, service_pb2.FileOutline
        )
        self._neighbourhood = _unary(
            ch,
            p("SymbolService", "GetNeighbourhood"),
            service_pb2.GetNeighbourhoodRequest,
            service_pb2.Neighbourhood,
        )
        self._subscribe = _stream(ch, p("EventService", "Subscribe"), service_pb2.SubscribeRequest, service_pb2.Event)

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        """Close the channel; the object is unusable afterwards."""
        self._channel.close()

    def __enter__(self) -> GraphMem:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GraphMem(address={self.address!r}, timeout={self.timeout!r})"

    def _error(self, err: grpc.RpcError) -> GraphMemError:
        """The one mapping from a failed RPC to a ``graphmem.errors`` exception."""
        code = err.code()
        details = err.details() or ""
        if code == grpc.StatusCode.UNAVAILABLE:
            if _retry_delay_s(err) is not None or details.startswith(_OLD_BUSY_PREFIX):
                return Unavailable(details)
            if _is_connect_failure(details):
                return DaemonNotRunning(f"graphmemd is not running (nothing answers at {self.address})")
            return DaemonNotRunning(f"graphmemd at {self.address} is unavailable: {details}")
        if code == grpc.StatusCode.CANCELLED:
            # A unary call is never cancelled by this client: the daemon went away mid-call.
            return Unavailable(f"graphmemd is going away: the call was cancelled ({details or 'no details'})")
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return Timeout(f"graphmemd at {self.address} did not answer within {self.timeout:g} s")
        reference, close = _close_matches(err)
        return error_for_status(
            code.name,
            details or f"{code.name} from graphmemd at {self.address}",
            reference=reference,
            close_matches=close,
        )

    def _call(self, fn: grpc.UnaryUnaryMultiCallable[_Req, _Resp], request: _Req) -> _Resp:
        """One unary call; while the daemon answers UNAVAILABLE because it is starting up or
        shutting down, retried with backoff (honouring its retry hint) inside ``timeout``."""
        deadline = time.monotonic() + self.timeout
        delay = _RETRY_FIRST_S
        while True:
            remaining = deadline - time.monotonic()
            try:
                return fn(request, timeout=max(remaining, 0.001), metadata=self._metadata)
            except grpc.RpcError as err:
                error = self._error(err)
                if not isinstance(error, Unavailable) and not (
                    isinstance(error, DaemonNotRunning) and self._daemon_starting()
                ):
                    raise error from err
                pause = max(delay, _retry_delay_s(err) or 0.0)
                if time.monotonic() + pause >= deadline:
                    raise error from err
                time.sleep(pause)
                delay = min(delay * 2, _RETRY_MAX_S)

    def _daemon_starting(self) -> bool:
        """Whether a daemon process is alive behind the default socket (it has not bound it
        yet): worth retrying a connection failure inside the deadline."""
        if self._pid_file is None:
            return False
        try:
            pid = int(self._pid_file.read_text(encoding="ascii").strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return False
        return True

    def _iterate(self, call: grpc.CallIterator[_Resp], each: Callable[[_Resp], _T]) -> Iterator[_T]:
        finished = False
        try:
            for msg in call:
                yield each(msg)
            finished = True
        except grpc.RpcError as err:
            finished = True
            raise self._error(err) from err
        finally:
            if not finished:  # the consumer stopped early: free the stream
                call.cancel()  # type: ignore[no-untyped-call]

    # ------------------------------------------------------------------ repository from the cwd

    def working_directory(self) -> Path | None:
        """The directory the one-repository calls default to (None when the cwd is gone)."""
        if self.cwd is not None:
            return self.cwd
        try:
            return Path.cwd()
        except OSError:  # the working directory was deleted
            return None

    def repo_containing(self, directory: str | Path) -> Repository | None:
        """The registered repository with the deepest root containing ``directory``, or None."""
        return deepest_repository(self.list_repos(), directory)

    def _scoped(self, repo: str, send: Callable[[str], _T]) -> _T:
        """Run ``send(hint)`` with ``repo`` (a path made absolute), or else the working
        directory. A working directory outside every registered repository is no hint: the
        call goes out with ``""``, the daemon's own default (the only repository; for
        recall/brief/symbols every repository; else an error naming them and ``--repo``).
        Found outside once, the directory goes out as ``""`` at once for ``OUTSIDE_MEMO_S``
        (one call instead of three); a refusal of that (``InvalidArgument``,
        ``FailedPrecondition``: the repositories may have changed) asks again the long way."""
        if repo:
            return send(_local_path(repo))
        directory = self.working_directory()
        if directory is None:
            return send("")
        outside = self._outside
        if outside is not None and outside[0] == directory and time.monotonic() - outside[1] < OUTSIDE_MEMO_S:
            try:
                return send("")
            except GraphMemError as exc:
                if not isinstance(exc, InvalidArgument | FailedPrecondition):
                    raise
                self._outside = None  # "name one" / "none registered": the repositories changed
        try:
            return send(str(directory))
        except NotFound:
            repos = self.list_repos()
            if any(directory == Path(r.root) or Path(r.root) in directory.parents for r in repos):
                raise  # inside a repository: the NotFound is about something else
            self._outside = (directory, time.monotonic())
            return send("")

    # ------------------------------------------------------------------ daemon

    def status(self) -> Status:
        """What the daemon is doing: version, store, repositories and their index state."""
        return convert.status_from_proto(self._call(self._get_status, service_pb2.GetStatusRequest()))

    def health(self) -> bool:
        """True when the daemon answers ``grpc.health.v1`` Check with SERVING.

        False when it is not serving yet, or nothing answers (UNAVAILABLE / deadline)."""
        try:
            resp = self._health_check(
                health_pb2.HealthCheckRequest(service=""), timeout=self.timeout, metadata=self._metadata
            )
        except grpc.RpcError as err:
            if err.code() in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.DEADLINE_EXCEEDED,
                grpc.StatusCode.NOT_FOUND,
            ):
                return False
            raise self._error(err) from err
        return bool(resp.status == health_pb2.HealthCheckResponse.SERVING)

    def shutdown(self) -> None:
        """Ask the daemon to stop gracefully. Returns once the request was accepted; a
        connection the daemon drops while shutting down counts as accepted."""
        try:
            self._shutdown(service_pb2.ShutdownRequest(), timeout=self.timeout, metadata=self._metadata)
        except grpc.RpcError as err:
            code = err.code()
            if code == grpc.StatusCode.CANCELLED or (
                code == grpc.StatusCode.UNAVAILABLE and not _is_connect_failure(err.details())
            ):
                return  # the daemon closed the connection while going down
            raise self._error(err) from err

    # ------------------------------------------------------------------ repositories

    def add_repo(self, path: str | Path) -> Repository:
        """Register a repository (indexed in the background, then watched)."""
        absolute = str(Path(path).expanduser().resolve())
        return convert.repository_from_proto(
            self._call(self._add_repo, service_pb2.AddRepositoryRequest(path=absolute))
        )

    def remove_repo(self, repo: str, *, purge: bool = False) -> int:
        """Unregister a repository (its id or exact root). Its observations are kept and come
        back when it, or a clone of it, is registered again; ``purge`` deletes them (returns
        how many)."""
        request = service_pb2.RemoveRepositoryRequest(repo=_local_path(repo), purge=purge)
        return int(self._call(self._remove_repo, request).purged)

    def link_repo(self, path: str, to: str) -> Repository:
        """Make the registered checkout ``path`` (a separate clone) a checkout of the repository
        ``to`` (an id or a path in one of its checkouts): each then shows the other's notes."""
        request = service_pb2.LinkRepositoryRequest(path=_local_path(path), to=_local_path(to))
        return convert.repository_from_proto(self._call(self._link_repo, request))

    def list_repos(self) -> builtins.list[Repository]:
        """Every registered repository."""
        resp = self._call(self._list_repos, service_pb2.ListRepositoriesRequest())
        return [convert.repository_from_proto(r) for r in resp.repositories]

    def index(self, repo: str, paths: Sequence[str] = (), full: bool = False) -> Iterator[IndexProgress]:
        """Re-index a repository (all files, or ``paths``); yields progress until done."""
        request = service_pb2.IndexRepositoryRequest(repo=_local_path(repo), paths=_local_paths(paths), full=full)
        call = self._index(request, timeout=None, metadata=self._metadata)
        return self._iterate(call, convert.index_progress_from_proto)

    # ------------------------------------------------------------------ observations

    def observe(
        self,
        text: str,
        *,
        anchors: Sequence[str] = (),
        repo: str = "",
        category: Category = Category.OTHER,
        tags: Sequence[str] = (),
        source: str = "python-client",
        confidence: float | None = None,
        supersedes: Sequence[str] = (),
        contradicts: Sequence[str] = (),
        idempotency_key: str | None = None,
        shared: bool = False,
    ) -> Observation:
        """Save an observation anchored to code (``"path::Qualified.name"``, a file path,
        or a symbol id). Retries UNAVAILABLE / DEADLINE_EXCEEDED a few times with the same
        idempotency key, so a retried create never saves twice. ``shared``: written as
        ``.graphmem/notes/<id>.md`` in the repository (it travels with git)."""
        request = service_pb2.CreateObservationRequest(
            repo="",
            text=text,
            category=convert.category_to_proto(category),
            tags=tags,
            source=source,
            confidence=0.0 if confidence is None else confidence,
            anchors=anchors,
            supersedes=supersedes,
            contradicts=contradicts,
            idempotency_key=idempotency_key or str(uuid.uuid4()),
            shared=shared,
        )

        def create(hint: str) -> Observation:
            request.repo = hint
            return convert.observation_from_proto(self._call(self._create, request))

        for delay in (*_OBSERVE_RETRY_DELAYS, None):
            try:
                return self._scoped(repo, create)
            except (DaemonNotRunning, Timeout):
                if delay is None:
                    raise
                time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def get(self, id: str, *, repo: str = "") -> Observation:
        """The observation ``id``; NotFound when there is none. With ``repo`` (a checkout's id
        or a path inside it), as that checkout shows it: a note saved in another checkout of
        the same repository judged on this checkout's code."""
        request = service_pb2.GetObservationRequest(id=id, repo=repo)
        return convert.observation_from_proto(self._call(self._get, request))

    def update(
        self,
        id: str,
        *,
        text: str | None = None,
        category: Category | None = None,
        tags: Sequence[str] | None = None,
        confidence: float | None = None,
        by: str = "",
    ) -> Observation:
        """Change an observation; ``None`` leaves a field as it is, ``tags=[]`` clears tags.
        ``by``: who asks, recorded in its history."""
        request = service_pb2.UpdateObservationRequest(
            id=id,
            text=text,
            category=None if category is None else convert.category_to_proto(category),
            replace_tags=tags is not None,
            tags=tags or (),
            confidence=confidence,
            by=by,
        )
        return convert.observation_from_proto(self._call(self._update, request))

    def list(
        self,
        *,
        repo: str = "",
        statuses: Sequence[ObservationStatus] = (),
        categories: Sequence[Category] = (),
        file: str = "",
        symbol: str = "",
        tags: Sequence[str] = (),
        limit: int = 100,
        with_history: bool = False,
        memo: convert.ObservationMemo | None = None,
        origin: Origin = Origin.ANY,
    ) -> builtins.list[Observation]:
        """Observations matching every given filter (no statuses: all but archived; ``origin``:
        saved notes, units of knowledge files, or both), up to
        ``limit`` (``0``: all, read ``LIST_PAGE`` at a time), following page tokens; each
        note's history only ``with_history`` (``get`` always has it). With a ``memo`` (kept
        by a caller that reads the same list again and again), a note whose message did not
        change since the memo's last read is not converted again: the same object comes back."""
        out: builtins.list[Observation] = []
        read: dict[bytes, Observation] = {}
        token = ""
        seen: set[str] = set()
        while True:
            page = max(limit - len(out), 0) if limit > 0 else LIST_PAGE
            request = service_pb2.ListObservationsRequest(
                repo=_local_path(repo),
                statuses=[convert.observation_status_to_proto(s) for s in statuses],
                categories=[convert.category_to_proto(c) for c in categories],
                file=_local_path(file),
                symbol=symbol,
                tags=tags,
                limit=page,
                page_token=token,
                with_history=with_history,
                origin=convert.origin_to_proto(origin),
            )
            resp = self._call(self._list, request)
            if memo is None:
                out.extend(convert.observation_from_proto(o) for o in resp.observations)
            else:
                out.extend(memo.convert(o, read) for o in resp.observations)
            token = resp.next_page_token
            if not token or token in seen or (limit > 0 and len(out) >= limit):
                break
            seen.add(token)
        if memo is not None:
            memo.settle(read)
        return out[:limit] if limit > 0 else out

    def archive(self, id: str, *, by: str = "") -> Observation:
        """Keep the observation but stop recalling it; ``by``: who asks, recorded in its history."""
        request = service_pb2.ArchiveObservationRequest(id=id, by=by)
        return convert.observation_from_proto(self._call(self._archive, request))

    def delete(self, id: str, *, by: str = "") -> None:
        """Remove the observation for good; the journal's deletion record keeps who (``by``)
        deleted it, when, and its history (not its text)."""
        self._call(self._delete, service_pb2.DeleteObservationRequest(id=id, by=by))

    def confirm(self, id: str, *, confirmed_by: str = "", note: str = "", repo: str = "") -> Observation:
        """Mark a stale observation as checked: re-anchored to the current code (of the
        checkout it was saved in), fresh. ``repo``: the checkout it is confirmed from (an id or
        a path inside it): a note stale only there (saved in another checkout of the same
        repository, fresh in it) is refused with FailedPrecondition saying why."""
        request = service_pb2.ConfirmObservationRequest(
            id=id, confirmed_by=confirmed_by, note=note, repo=_local_path(repo)
        )
        return convert.observation_from_proto(self._call(self._confirm, request))

    def export(self, *, repo: str = "") -> Iterator[str]:
        """The observation journal as JSON lines (without trailing newlines); only ``repo``'s
        observations when given (an id or a path)."""
        request = service_pb2.ExportObservationsRequest(repo=_local_path(repo))
        call = self._export(request, timeout=None, metadata=self._metadata)
        return self._iterate(call, lambda line: line.json)

    def import_lines(self, lines: Iterable[str], *, repo: str = "") -> ImportResult:
        """Import JSON lines produced by ``export`` (blank lines are ignored) into ``repo``, or
        each into the registered clone of the repository it was exported from."""
        cleaned = [ln.rstrip("\r\n") for ln in lines if ln.strip()]
        request = service_pb2.ImportObservationsRequest(lines=cleaned, repo=_local_path(repo) if repo else "")
        resp = self._call(self._import, request)
        return convert.import_result_from_proto(resp)

    def check_knowledge(
        self, paths: Sequence[str] = (), *, repo: str = "", wait_current: bool = True
    ) -> KnowledgeCheck:
        """Every reference to code in the repository's knowledge files (or in ``paths``:
        files or folders) that is not OK — dangling, stale or suspect — with its exact span.
        ``wait_current``: the daemon first waits (within the call's timeout) until its index
        is current."""

        def send(hint: str) -> KnowledgeCheck:
            request = service_pb2.CheckKnowledgeRequest(repo=hint, paths=_local_paths(paths), wait_current=wait_current)
            return convert.knowledge_check_from_proto(self._call(self._check_knowledge, request))

        return self._scoped(repo, send)

    def change(self, id: str, *, max_commits: int = 0, repo: str = "") -> ObservationChange:
        """The code change under a stale or suspect note: each changed anchor's symbol as it
        was when anchored (read from git, searching the file's last ``max_commits`` commits;
        0: 30) and as it is now; for a suspect note, the dependency's before and after. With
        ``repo`` (a checkout's id or a path inside it), as that checkout shows the note (a note
        saved in another worktree, stale on this one's code: this one's change)."""
        request = service_pb2.GetObservationChangeRequest(id=id, max_commits=max_commits, repo=_local_path(repo))
        return convert.observation_change_from_proto(self._call(self._observation_change, request))

    # ------------------------------------------------------------------ retrieval

    def recall(
        self,
        text: str = "",
        *,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        repo: str = "",
        hops: int | None = None,
        limit: int = 20,
        budget: int = 0,
        include_stale: bool = False,
        line: int = 0,
        fresh_only: bool = False,
    ) -> RecallResult:
        """Observations reached by walking the code graph from ``files``/``symbols``/``text``,
        ranked by the fused score, each with the path (``why``), its score components and the
        index freshness. ``hops``: None is the daemon's default (2); 0 is the anchors only.
        ``line`` (1-based) is a cursor in ``files[0]``: it focuses the query on the symbols there.
        Stale and suspect observations are included (marked, ranked lower) unless ``fresh_only``;
        ``include_stale`` is deprecated and ignored by the daemon."""

        def send(hint: str) -> RecallResult:
            request = service_pb2.RetrieveRequest(
                repo=hint,
                files=_local_paths(files),
                symbols=symbols,
                text=text,
                limit=limit,
                token_budget=budget,
                include_stale=include_stale,
                line=line,
                fresh_only=fresh_only,
            )
            if hops is not None:
                request.hops = hops
            return convert.recall_result_from_proto(self._call(self._retrieve, request))

        return self._scoped(repo, send)

    def brief(
        self,
        *,
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        text: str = "",
        repo: str = "",
        budget: int = 1000,
        include_stale: bool = False,
        fresh_only: bool = False,
    ) -> Brief:
        """The top observations for a working set, rendered as prompt-ready text; with no
        files, symbols or text, the repository's brief (constraints and decisions, then what
        was confirmed or changed recently, then the stale and suspect notes). ``left_out``
        says how many the budget left out. ``include_stale`` is deprecated and ignored."""

        def send(hint: str) -> Brief:
            request = service_pb2.SessionBriefRequest(
                repo=hint,
                files=_local_paths(files),
                symbols=symbols,
                text=text,
                token_budget=budget,
                include_stale=include_stale,
                fresh_only=fresh_only,
            )
            return convert.brief_from_proto(self._call(self._session_brief, request))

        return self._scoped(repo, send)

    def edit_context(
        self,
        files: Sequence[str],
        *,
        repo: str = "",
        budget: int = 600,
        wait_ms: int = 0,
        fresh_only: bool = False,
        already_shown: Sequence[str] = (),
    ) -> EditContext:
        """What to know after editing ``files``: the notes the edit just made stale or suspect
        (naming the changed symbol and the kind of change), then the notes anchored in the files
        and one step away from them, within ``budget`` tokens, leaving out ``already_shown``.
        ``wait_ms``: how long the daemon may wait for its index to take the files in."""
        request = service_pb2.EditContextRequest(
            repo=_local_path(repo),
            files=_local_paths(files),
            token_budget=budget,
            wait_ms=wait_ms,
            fresh_only=fresh_only,
            already_shown=already_shown,
        )
        return convert.edit_context_from_proto(self._call(self._edit_context, request))

    # ------------------------------------------------------------------ symbols

    def find_symbols(
        self, pattern: str, *, repo: str = "", kinds: Sequence[str] = (), limit: int = 50
    ) -> builtins.list[Symbol]:
        """Symbols whose name/qualname (or ``path::qualname``) matches ``pattern``
        (case-insensitive, ``*``/``?`` wildcards); ``kinds`` like ``"function"``."""
        proto_kinds = [convert.symbol_kind_to_proto(k) for k in kinds]

        def send(hint: str) -> builtins.list[Symbol]:
            request = service_pb2.FindSymbolsRequest(repo=hint, pattern=pattern, kinds=proto_kinds, limit=limit)
            return [convert.symbol_from_proto(s) for s in self._call(self._find_symbols, request).symbols]

        return self._scoped(repo, send)

    def resolve_symbol(self, ref: str, *, repo: str = "", limit: int = 10) -> Resolved:
        """A short reference (``hash_password``, ``AppContext.push``, ``crypto.py::hash_password``)
        resolved by exact ref, qualname suffix and name, then close matches (best first)."""
        request = service_pb2.ResolveSymbolRequest(repo=_local_path(repo), ref=ref, limit=limit)
        return convert.resolved_from_proto(self._call(self._resolve_symbol, request))

    def symbol(self, ref: str, *, repo: str = "") -> SymbolDetail:
        """One symbol (``"path::qualname"`` or id) with callers, callees and observations."""

        def send(hint: str) -> SymbolDetail:
            request = service_pb2.GetSymbolRequest(repo=hint, ref=ref)
            return convert.symbol_detail_from_proto(self._call(self._get_symbol, request))

        return self._scoped(repo, send)

    def file_outline(self, path: str, *, repo: str = "") -> FileOutline:
        """One file as an editor shows it: its symbols with their line ranges and the
        observations anchored to the file or its symbols (``path`` absolute, or relative to
        ``repo``)."""
        request = service_pb2.GetFileOutlineRequest(repo=_local_path(repo), path=_local_path(path))
        return convert.file_outline_from_proto(self._call(self._file_outline, request))

    def neighbourhood(self, refs: Sequence[str], *, repo: str = "", hops: int = 0, max_nodes: int = 0) -> Neighbourhood:
        """The code within ``hops`` (0: 2) of ``refs`` (symbol refs or ids, file paths):
        callers, callees, importers, bases and containers, nearest first, at most
        ``max_nodes`` (0: 300), each with the notes anchored to it."""

        def send(hint: str) -> Neighbourhood:
            request = service_pb2.GetNeighbourhoodRequest(repo=hint, refs=refs, hops=hops, max_nodes=max_nodes)
            return convert.neighbourhood_from_proto(self._call(self._neighbourhood, request))

        return self._scoped(repo, send)

    # ------------------------------------------------------------------ events

    def events(self, *, repo: str = "", kinds: Sequence[EventKind] = (), after_seq: int | None = None) -> EventStream:
        """Subscribe to live events (all kinds when ``kinds`` is empty). ``after_seq``: resume
        after that sequence number (the buffered events after it come first; an
        ``EVENTS_LOST`` event reports what is no longer buffered)."""
        request = service_pb2.SubscribeRequest(
            repo=_local_path(repo), kinds=[convert.event_kind_to_proto(k) for k in kinds], after_seq=after_seq
        )
        return EventStream(self._subscribe(request, timeout=None, metadata=self._metadata), self._error)
