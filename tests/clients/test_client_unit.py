"""Unit tests of the client side: protobuf <-> domain conversion, import hygiene, and the
client's behaviour (error mapping, retries, paging, paths, events) against a fake daemon
served in-process on a Unix socket."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.protobuf.message import Message
from graphmem import convert
from graphmem.client import GraphMem, normalize_address
from graphmem.errors import (
    AlreadyExists,
    DaemonNotRunning,
    FailedPrecondition,
    GraphMemError,
    InvalidArgument,
    NotFound,
    Timeout,
)
from graphmem.types import (
    Anchor,
    AnchorChange,
    AnchorKind,
    Brief,
    Category,
    ChangeKind,
    Checkout,
    CodeVersion,
    ConfirmRefusal,
    EdgeConfidence,
    EdgeKind,
    EditContext,
    Event,
    EventKind,
    FileOutline,
    Freshness,
    HistoryEvent,
    HistoryKind,
    Hop,
    ImportResult,
    IndexProgress,
    IndexState,
    KnowledgeCheck,
    KnowledgeKind,
    KnowledgeReference,
    KnowledgeSource,
    LanguageResolution,
    NeighbourEdge,
    Neighbourhood,
    NeighbourNode,
    Observation,
    ObservationChange,
    ObservationStatus,
    Recalled,
    RecallResult,
    ReferenceState,
    RepoFreshness,
    Repository,
    Resolved,
    ScoreComponents,
    StaleReason,
    Status,
    Symbol,
    SymbolDetail,
    WatcherStatus,
)
from graphmem.v1 import service_pb2, types_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

_M = TypeVar("_M", bound=Message)

# ---------------------------------------------------------------------------- samples

T0 = 1_700_000_000.25
T1 = 1_700_000_100.5

SYM = Symbol(
    id="py:app/auth/service.py::AuthService.login#method",
    repo_id="py",
    path="app/auth/service.py",
    name="login",
    qualname="AuthService.login",
    kind="method",
    language="python",
    start_line=22,
    end_line=26,
    signature="def login(self, email: str, password: str) -> str",
)
CALLER = Symbol(
    id="py:app/api/routes.py::create_user#function",
    repo_id="py",
    path="app/api/routes.py",
    name="create_user",
    qualname="create_user",
    kind="function",
    language="python",
    start_line=13,
    end_line=16,
    signature="def create_user(email: str, password: str) -> str",
)
ANCHOR = Anchor(
    kind=AnchorKind.SYMBOL,
    ref=SYM.ref,
    repo_id="py",
    path=SYM.path,
    symbol_id=SYM.id,
    signature=SYM.signature,
    sig_hash="s1",
    body_hash="b1",
)
FILE_ANCHOR = Anchor(kind=AnchorKind.FILE, ref="app/models.py", repo_id="py", path="app/models.py",
                     body_hash="f1")
REASON = StaleReason(
    anchor_ref=SYM.ref,
    change=ChangeKind.SIGNATURE_CHANGED,
    detected_at=T1,
    old_signature="def login(self, email)",
    new_signature=SYM.signature,
    new_ref="app/auth/service.py::AuthService.sign_in",
    commit="abc1234def",
    detail="the signature of AuthService.login changed",
)
OBS = Observation(
    id="obs-1",
    repo_id="py",
    text="Login hashes the password before comparing; never compare plaintext.",
    category=Category.BUG_CAUSE,
    created_at=T0,
    updated_at=T1,
    status=ObservationStatus.STALE,
    tags=("security", "auth"),
    source="cli",
    confidence=0.75,
    anchors=(ANCHOR, FILE_ANCHOR),
    stale_reasons=(REASON,),
    supersedes=("obs-0",),
    superseded_by="obs-2",
    contradicts=("obs-9",),
    confirmed_by="alice",
    confirmed_at=T1,
    needs_review=True,
    history=(
        HistoryEvent(HistoryKind.CREATED, T0, "cli", "c0ffee", "supersedes obs-0", "obs-0"),
        HistoryEvent(HistoryKind.STALE, T1, "graphmem", "abc1234", "`app/auth/service.py::login`: removed"),
    ),
)
HISTORY_EVENT = HistoryEvent(HistoryKind.SUPERSEDED, T1, "ui:ana", "abc1234", "re-anchored", "obs-2")
REPO_FRESH = RepoFreshness(
    repo_id="py",
    current=False,
    state=IndexState.INDEXING,
    pending_changes=3,
    indexed_commit="aaa",
    head_commit="bbb",
    working_tree_dirty=True,
)
FRESHNESS = Freshness(current=False, repositories=(REPO_FRESH,))
KNOWLEDGE = KnowledgeSource("docs/a.md", 3, 5, ("Guide", "Auth"), KnowledgeKind.DECISION_RECORD)
KREF = KnowledgeReference(
    "AuthService.login", "docs/a.md", 4, 9, 4, 26, "app/auth/service.py::AuthService.login",
    ReferenceState.DANGLING, "`AuthService.login` was renamed to `sign_in` in a1b2c3d",
    "app/auth/service.py::AuthService.sign_in", "a1b2c3d4", ("app/auth/service.py::AuthService.logout",), "o9",
)  # fmt: skip
UNIT = Observation(id="o9", repo_id="r", text="Use `AuthService.login`.", category=Category.DECISION,
                   created_at=1.0, updated_at=2.0, knowledge=KNOWLEDGE, references=(KREF,))
REPO = Repository(
    id="py",
    root="/src/py",
    state=IndexState.READY,
    files=12,
    symbols=80,
    observations=3,
    stale_observations=1,
    files_done=12,
    files_total=12,
    skipped_files=2,
    head_commit="abc",
    last_indexed_at=T0,
    error="",
    pending_changes=4,
    resolution=(
        LanguageResolution(
            "go", call_sites=10, unresolved=3, resolved_by=((EdgeConfidence.IMPORT, 5), (EdgeConfidence.NAME_ONLY, 2))
        ),
    ),
)
LANG_RES = REPO.resolution[0]
PROGRESS = IndexProgress(
    repo_id="py", state=IndexState.INDEXING, files_done=5, files_total=12, symbols=40, skipped=1,
    elapsed_seconds=1.5,
)
STATUS = Status(
    version="0.1.0",
    pid=4242,
    uptime_seconds=12.5,
    socket_path="/tmp/x/run/graphmemd.sock",
    store_path="/tmp/x/data/graph.kuzu",
    store_size_bytes=123456,
    journal_path="/tmp/x/data/observations.jsonl",
    serving=True,
    repositories=(REPO,),
    watcher=WatcherStatus(mode="polling", healthy=False, degraded_reason="inotify limit", restarts=2),
    degraded_reasons=("watcher: inotify limit",),
    tcp_address="127.0.0.1:7777",
    last_error="boom",
    observations=3,
    stale_observations=1,
)
HOP = Hop(from_ref=CALLER.ref, edge=EdgeKind.CALLS, to_ref=SYM.ref, confidence=EdgeConfidence.RECEIVER_TYPE)
RECALLED = Recalled(
    observation=OBS, score=0.875, distance=1, why=f"{CALLER.ref} -CALLS-> {SYM.ref}", path=(HOP,),
    matched_terms=("login",), tokens=42,
    components=ScoreComponents(proximity=0.6, cochange=0.25, pagerank=0.4, relevance=0.33, cochange_together=3,
                               cochange_total=9),
)
RECALL = RecallResult(
    results=(RECALLED,), freshness=FRESHNESS, seeds=1, nodes_reached=7, total_tokens=42, truncated=True,
    warnings=("app/x.py is not indexed",), excluded_stale=2,
)
BRIEF = Brief(text="## Notes\n- login hashes", observation_ids=("obs-1",), freshness=FRESHNESS, tokens=12, left_out=3)
EDIT_CONTEXT = EditContext(text="This edit may have invalidated 1 note", observation_ids=("obs-1", "obs-2"),
                           callout_ids=("obs-1",), freshness=FRESHNESS, tokens=9, left_out=1, indexed=False)
DETAIL = SymbolDetail(
    symbol=SYM,
    callers=(CALLER,),
    callees=(replace(SYM, id="py:app/auth/crypto.py::hash_password#function", path="app/auth/crypto.py",
                     name="hash_password", qualname="hash_password", kind="function"),),
    unresolved_calls=("self.users.get",),
    contains=(),
    container=replace(SYM, id="py:app/auth/service.py::AuthService#class", name="AuthService",
                      qualname="AuthService", kind="class"),
    inherits=(),
    inherited_by=(CALLER,),
    file_imports=("app/auth/crypto.py", "app/models.py"),
    file_imported_by=("app/api/routes.py",),
    observations=(OBS,),
    freshness=Freshness(current=True, repositories=(replace(REPO_FRESH, current=True,
                                                            state=IndexState.READY),)),
)
EVENTS = (
    Event(kind=EventKind.OBSERVATION_STALE, at=T0, repo_id="py", seq=1, observation=OBS),
    Event(kind=EventKind.INDEX_PROGRESS, at=T0, repo_id="py", seq=2, progress=PROGRESS),
    Event(kind=EventKind.FILE_INDEXED, at=T1, repo_id="py", seq=3, path="app/models.py",
          detail={"removed": 0, "symbols": 5, "added": 1, "removed_symbols": 2, "changed": 3}),
    Event(kind=EventKind.WATCHER_DEGRADED, at=T1, repo_id="", seq=4, message="inotify limit reached"),
    Event(kind=EventKind.OBSERVATION_CHANGED, at=T1, repo_id="py", seq=5),
)
IMPORT = ImportResult(imported=3, skipped_duplicates=2, errors=("anchor x no longer resolves",))


BEFORE = CodeVersion(present=True, ref="app/auth/service.py::AuthService.login", path="app/auth/service.py",
                     start_line=22, end_line=26, text="def login(self):\n    return 1", signature="def login(self):",
                     commit="c6c2c844", exact=True)
CHANGE = AnchorChange("app/api/routes.py::create_user", ChangeKind.DEPENDENCY_CHANGED, BEFORE,
                      replace(BEFORE, commit="", start_line=23, end_line=28), detail="create_user calls login",
                      commit="017b6924", dependency_ref="app/auth/service.py::AuthService.login",
                      path=(HOP,), note="")
NODE = NeighbourNode("py:app/auth/service.py::AuthService.login#method", "app/auth/service.py::AuthService.login",
                     "method", "app/auth/service.py", 22, 26, "def login(self):", 0, (OBS,))
EDGE = NeighbourEdge("py:app/api/routes.py::create_user#function", NODE.id, EdgeKind.CALLS, EdgeConfidence.IMPORT)


def _wire(msg: _M) -> _M:
    """Serialize and parse again, as the network would."""
    return type(msg).FromString(msg.SerializeToString())


# ---------------------------------------------------------------------------- round trips

ROUND_TRIPS: list[tuple[str, object, Callable[[Any], Message], Callable[[Any], object]]] = [
    ("symbol", SYM, convert.symbol_to_proto, convert.symbol_from_proto),
    ("anchor", ANCHOR, convert.anchor_to_proto, convert.anchor_from_proto),
    ("file_anchor", FILE_ANCHOR, convert.anchor_to_proto, convert.anchor_from_proto),
    ("stale_reason", REASON, convert.stale_reason_to_proto, convert.stale_reason_from_proto),
    ("stale_reason_deprecated", replace(REASON, change=ChangeKind.DEPRECATED, served_by="click.__getattr__"),
     convert.stale_reason_to_proto, convert.stale_reason_from_proto),
    ("stale_reason_body_too", replace(REASON, change=ChangeKind.SIGNATURE_CHANGED, body_changed=True),
     convert.stale_reason_to_proto, convert.stale_reason_from_proto),
    ("observation", OBS, convert.observation_to_proto, convert.observation_from_proto),
    ("observation_seen_elsewhere", replace(OBS, repo_id="wt", saved_in="py", confirm_refusal=ConfirmRefusal.ONLY_HERE,
                                           confirm_refused="o is stale only in this checkout"),
     convert.observation_to_proto, convert.observation_from_proto),
    ("history_event", HISTORY_EVENT, convert.history_event_to_proto, lambda m: convert.history_from_proto([m])[0]),
    ("observation_minimal", Observation(id="o", repo_id="r", text="t", category=Category.OTHER, created_at=T0,
                                        updated_at=T0), convert.observation_to_proto,
     convert.observation_from_proto),
    ("repo_freshness", REPO_FRESH, convert.repo_freshness_to_proto, convert.repo_freshness_from_proto),
    ("freshness", FRESHNESS, convert.freshness_to_proto, convert.freshness_from_proto),
    ("repository", REPO, convert.repository_to_proto, convert.repository_from_proto),
    ("checkout_gone", Checkout("wt", "/src/wt", "feature", "abc", missing=True, notes=2), convert.checkout_to_proto,
     convert.checkout_from_proto),
    ("repository_with_checkouts", replace(REPO, repository_id="py", branch="main", checkouts=(
        Checkout("py", "/src/py", "main", "abc"), Checkout("wt", "/src/wt", "", "", missing=True, notes=2))),
     convert.repository_to_proto, convert.repository_from_proto),
    ("repository_never_indexed", replace(REPO, last_indexed_at=None, state=IndexState.PENDING),
     convert.repository_to_proto, convert.repository_from_proto),
    ("index_progress", PROGRESS, convert.index_progress_to_proto, convert.index_progress_from_proto),
    ("watcher", STATUS.watcher, convert.watcher_status_to_proto, convert.watcher_status_from_proto),
    ("status", STATUS, convert.status_to_proto, convert.status_from_proto),
    ("status_no_watcher", replace(STATUS, watcher=None, repositories=()), convert.status_to_proto,
     convert.status_from_proto),
    ("hop", HOP, convert.hop_to_proto, convert.hop_from_proto),
    ("hop_structural", replace(HOP, edge=EdgeKind.CONTAINS, confidence=None), convert.hop_to_proto,
     convert.hop_from_proto),
    ("language_resolution", LANG_RES, convert.language_resolution_to_proto, convert.language_resolution_from_proto),
    ("recalled", RECALLED, convert.recalled_to_proto, convert.recalled_from_proto),
    ("score_components", ScoreComponents(0.36, 0.2, 0.5, 0.1, 0.3, 1.0, 0.9, 1.1, 0.5, 0.92, 0.71, 14, 20),
     convert.components_to_proto, convert.components_from_proto),
    ("resolved", Resolved("hash_password", (SYM,), True), convert.resolved_to_proto, convert.resolved_from_proto),
    ("recall_result", RECALL, convert.recall_result_to_proto, convert.recall_result_from_proto),
    ("brief", BRIEF, convert.brief_to_proto, convert.brief_from_proto),
    ("edit_context", EDIT_CONTEXT, convert.edit_context_to_proto, convert.edit_context_from_proto),
    ("symbol_detail", DETAIL, convert.symbol_detail_to_proto, convert.symbol_detail_from_proto),
    ("symbol_detail_bare", SymbolDetail(symbol=SYM), convert.symbol_detail_to_proto,
     convert.symbol_detail_from_proto),
    ("import_result", IMPORT, convert.import_result_to_proto, convert.import_result_from_proto),
    ("file_outline", FileOutline(repo_id="py", repo_root="/src/py", path="app/auth/service.py", indexed=True,
                                 content_hash="ab12", language="python", symbols=(SYM, CALLER), observations=(OBS,),
                                 freshness=REPO_FRESH),
     convert.file_outline_to_proto, convert.file_outline_from_proto),
    ("file_outline_not_indexed", FileOutline(repo_id="py", repo_root="/src/py", path="README.txt", indexed=False),
     convert.file_outline_to_proto, convert.file_outline_from_proto),
    ("knowledge_source", KNOWLEDGE, convert.knowledge_source_to_proto, convert.knowledge_source_from_proto),
    ("knowledge_reference", KREF, convert.knowledge_reference_to_proto, convert.knowledge_reference_from_proto),
    ("knowledge_unit", UNIT, convert.observation_to_proto, convert.observation_from_proto),
    ("knowledge_check", KnowledgeCheck((KREF,), 3, 7, 12, FRESHNESS), convert.knowledge_check_to_proto,
     convert.knowledge_check_from_proto),
    ("knowledge_check_bare", KnowledgeCheck((), 0, 0, 0), convert.knowledge_check_to_proto,
     convert.knowledge_check_from_proto),
    *[(f"event_{e.kind.value}", e, convert.event_to_proto, convert.event_from_proto) for e in EVENTS],
    ("code_version", BEFORE, convert.code_version_to_proto, convert.code_version_from_proto),
    ("code_version_absent", CodeVersion(present=False), convert.code_version_to_proto,
     convert.code_version_from_proto),
    ("anchor_change", CHANGE, convert.anchor_change_to_proto, convert.anchor_change_from_proto),
    ("observation_change", ObservationChange("o1", (CHANGE,)), convert.observation_change_to_proto,
     convert.observation_change_from_proto),
    ("neighbour_node", NODE, convert.neighbour_node_to_proto, convert.neighbour_node_from_proto),
    ("neighbour_edge", EDGE, convert.neighbour_edge_to_proto, convert.neighbour_edge_from_proto),
    ("neighbourhood", Neighbourhood((NODE, replace(NODE, id="py:app/api/routes.py::create_user", distance=1)),
                                    (EDGE,), True), convert.neighbourhood_to_proto, convert.neighbourhood_from_proto),
]


@pytest.mark.parametrize(("name", "value", "to_proto", "from_proto"), ROUND_TRIPS,
                         ids=[r[0] for r in ROUND_TRIPS])
def test_round_trip(
    name: str, value: object, to_proto: Callable[[Any], Message], from_proto: Callable[[Any], object]
) -> None:
    assert from_proto(_wire(to_proto(value))) == value


def test_every_message_type_has_a_round_trip() -> None:
    """Each domain dataclass of graphmem.types is covered above."""
    import graphmem.types as t

    covered = {type(v).__name__ for _, v, _, _ in ROUND_TRIPS}
    dataclasses_in_types = {
        name for name in t.__all__ if isinstance(getattr(t, name), type)
        and hasattr(getattr(t, name), "__dataclass_fields__")
    }
    assert dataclasses_in_types <= covered


ENUMS: list[tuple[type[Any], Callable[[Any], int], Callable[[int], Any], str, Any]] = [
    (Category, convert.category_to_proto, convert.category_from_proto, "CATEGORY_", types_pb2.Category),
    (ObservationStatus, convert.observation_status_to_proto, convert.observation_status_from_proto,
     "OBSERVATION_STATUS_", types_pb2.ObservationStatus),
    (ChangeKind, convert.change_kind_to_proto, convert.change_kind_from_proto, "CHANGE_KIND_",
     types_pb2.ChangeKind),
    (AnchorKind, convert.anchor_kind_to_proto, convert.anchor_kind_from_proto, "ANCHOR_KIND_",
     types_pb2.AnchorKind),
    (IndexState, convert.index_state_to_proto, convert.index_state_from_proto, "INDEX_STATE_",
     types_pb2.IndexState),
    (EdgeKind, convert.edge_kind_to_proto, convert.edge_kind_from_proto, "EDGE_KIND_", types_pb2.EdgeKind),
    (EdgeConfidence, convert.edge_confidence_to_proto, convert.edge_confidence_from_proto, "EDGE_CONFIDENCE_",
     types_pb2.EdgeConfidence),
    (EventKind, convert.event_kind_to_proto, convert.event_kind_from_proto, "EVENT_KIND_",
     service_pb2.EventKind),
    (KnowledgeKind, convert.knowledge_kind_to_proto, convert.knowledge_kind_from_proto, "KNOWLEDGE_KIND_",
     types_pb2.KnowledgeKind),
    (ReferenceState, convert.reference_state_to_proto, convert.reference_state_from_proto, "REFERENCE_STATE_",
     types_pb2.ReferenceState),
    (ConfirmRefusal, convert.confirm_refusal_to_proto, convert.confirm_refusal_from_proto, "CONFIRM_REFUSAL_",
     types_pb2.ConfirmRefusal),
]


@pytest.mark.parametrize(("domain", "to_proto", "from_proto", "prefix", "wrapper"), ENUMS,
                         ids=[e[0].__name__ for e in ENUMS])
def test_enums_map_by_name_both_ways(
    domain: type[Any], to_proto: Callable[[Any], int], from_proto: Callable[[int], Any], prefix: str,
    wrapper: Any,
) -> None:
    for member in domain:
        number = to_proto(member)
        assert wrapper.Name(number) == prefix + member.name
        assert from_proto(number) is member
    # every wire value (but UNSPECIFIED) has a domain member: the contract and the types agree
    for name, number in wrapper.items():
        if name == prefix + "UNSPECIFIED":
            assert number == 0
            assert from_proto(0) is None
            assert to_proto(None) == 0
        else:
            assert from_proto(number) is domain[name.removeprefix(prefix)]
    assert from_proto(999) is None  # a value from a newer contract


def test_category_example() -> None:
    assert convert.category_to_proto(Category.BUG_CAUSE) == types_pb2.CATEGORY_BUG_CAUSE
    assert convert.category_from_proto(types_pb2.CATEGORY_BUG_CAUSE) is Category.BUG_CAUSE


def test_symbol_kinds() -> None:
    for kind in ("module", "class", "struct", "interface", "trait", "enum", "function", "method"):
        number = convert.symbol_kind_to_proto(kind)
        assert types_pb2.SymbolKind.Name(number) == "SYMBOL_KIND_" + kind.upper()
        assert convert.symbol_kind_from_proto(number) == kind
    assert convert.symbol_kind_to_proto("") == types_pb2.SYMBOL_KIND_UNSPECIFIED
    assert convert.symbol_kind_from_proto(0) == ""
    assert convert.symbol_kind_from_proto(999) == ""
    assert convert.symbol_kind_to_proto("Function") == types_pb2.SYMBOL_KIND_FUNCTION
    with pytest.raises(InvalidArgument, match="unknown symbol kind 'lambda'"):
        convert.symbol_kind_to_proto("lambda")
    with pytest.raises(InvalidArgument):
        convert.symbol_kind_to_proto("unspecified")


def test_unspecified_fields_decode_to_defaults() -> None:
    obs = convert.observation_from_proto(types_pb2.Observation(id="o", anchors=[
        types_pb2.Anchor(ref="a.py::f", symbol_id="r:a.py::f#function"), types_pb2.Anchor(ref="a.py"),
    ]))
    assert obs.category is Category.OTHER
    assert obs.status is ObservationStatus.FRESH
    assert obs.created_at == 0.0
    assert obs.confirmed_at is None
    assert [a.kind for a in obs.anchors] == [AnchorKind.SYMBOL, AnchorKind.FILE]
    repo = convert.repository_from_proto(types_pb2.Repository(id="r"))
    assert repo.state is IndexState.PENDING
    assert repo.last_indexed_at is None
    result = convert.recall_result_from_proto(service_pb2.RetrieveResponse())
    assert result.freshness == Freshness(current=False)
    assert convert.event_from_proto(service_pb2.Event()) is None  # unspecified kind: skipped


def test_timestamps() -> None:
    for t in (0.0, 1.5, T0, 1_700_000_000.123456, -1.25):
        assert convert.timestamp_from_proto(convert.timestamp_to_proto(t)) == pytest.approx(t, abs=1e-6)
    ts = convert.timestamp_to_proto(-1.25)
    assert (ts.seconds, ts.nanos) == (-2, 750_000_000)
    ts = convert.timestamp_to_proto(1.9999999999)
    assert 0 <= ts.nanos < 1_000_000_000


def test_confidence_survives_float32() -> None:
    obs = replace(OBS, confidence=0.8)
    assert convert.observation_from_proto(_wire(convert.observation_to_proto(obs))).confidence == 0.8


# ---------------------------------------------------------------------------- import hygiene


def test_client_imports_no_daemon_dependencies() -> None:
    code = (
        "import sys\n"
        "import graphmem, graphmem.client, graphmem.cli, graphmem.convert, graphmem.daemon_ctl\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('kuzu', 'tree_sitter', 'watchfiles', 'graphmemd', 'pyarrow', 'networkx'))\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_convert_imports_no_grpc() -> None:
    code = "import sys, graphmem.convert; print('grpc' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------- fake daemon

Handler = Callable[[Any, grpc.ServicerContext], Any]


def unary(fn: Handler, request: type[Message], response: type[Message]) -> grpc.RpcMethodHandler[Any, Any]:
    return grpc.unary_unary_rpc_method_handler(
        fn, request_deserializer=request.FromString, response_serializer=response.SerializeToString
    )


def stream(fn: Callable[[Any, grpc.ServicerContext], Iterator[Any]], request: type[Message],
           response: type[Message]) -> grpc.RpcMethodHandler[Any, Any]:
    return grpc.unary_stream_rpc_method_handler(
        fn, request_deserializer=request.FromString, response_serializer=response.SerializeToString
    )


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="gm", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def fake_daemon(sock_dir: Path, handlers: dict[str, dict[str, grpc.RpcMethodHandler[Any, Any]]],
                health_servicer: health.HealthServicer | None = None) -> Iterator[str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    for service, methods in handlers.items():
        generic = grpc.method_handlers_generic_handler(f"graphmem.v1.{service}", methods)
        server.add_generic_rpc_handlers((generic,))
    if health_servicer is not None:
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    address = f"unix:{sock_dir / 'fake.sock'}"
    server.add_insecure_port(address)
    server.start()
    try:
        yield address
    finally:
        server.stop(None)


ERROR_CASES = [
    (grpc.StatusCode.INVALID_ARGUMENT, InvalidArgument),
    (grpc.StatusCode.NOT_FOUND, NotFound),
    (grpc.StatusCode.ALREADY_EXISTS, AlreadyExists),
    (grpc.StatusCode.FAILED_PRECONDITION, FailedPrecondition),
    (grpc.StatusCode.UNAVAILABLE, DaemonNotRunning),
    (grpc.StatusCode.INTERNAL, GraphMemError),
    (grpc.StatusCode.UNKNOWN, GraphMemError),
    (grpc.StatusCode.PERMISSION_DENIED, GraphMemError),
]


@pytest.mark.parametrize(("code", "exc_type"), ERROR_CASES, ids=[c.name for c, _ in ERROR_CASES])
def test_rpc_errors_map_to_graphmem_errors(sock_dir: Path, code: grpc.StatusCode,
                                          exc_type: type[GraphMemError]) -> None:
    def get(request: service_pb2.GetObservationRequest, context: grpc.ServicerContext) -> Any:
        context.abort(code, f"details for {request.id}")

    handlers = {"ObservationService": {
        "GetObservation": unary(get, service_pb2.GetObservationRequest, types_pb2.Observation)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address, timeout=5) as gm, \
            pytest.raises(exc_type) as info:
        gm.get("obs-7")
    assert type(info.value) is exc_type
    assert "details for obs-7" in str(info.value)
    assert info.value.exit_code == exc_type.exit_code


def test_not_running_names_the_address(sock_dir: Path) -> None:
    address = f"unix:{sock_dir / 'nothing.sock'}"
    with GraphMem(address, timeout=2) as gm:
        with pytest.raises(DaemonNotRunning, match=str(sock_dir / "nothing.sock")) as info:
            gm.status()
        assert info.value.exit_code == 2
        assert gm.health() is False
        with pytest.raises(DaemonNotRunning):
            gm.shutdown()
        with pytest.raises(DaemonNotRunning):
            list(gm.index("r"))


def test_default_address_comes_from_home(sock_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPHMEM_ADDRESS", raising=False)
    with GraphMem(home=str(sock_dir)) as gm:
        assert gm.address == f"unix:{sock_dir}/run/graphmemd.sock"
    monkeypatch.setenv("GRAPHMEM_ADDRESS", "127.0.0.1:7777")
    with GraphMem(home=str(sock_dir)) as gm:
        assert gm.address == "127.0.0.1:7777"
    assert normalize_address("/x/y.sock") == "unix:/x/y.sock"
    assert normalize_address("tcp://127.0.0.1:1") == "127.0.0.1:1"
    assert normalize_address("unix:/x") == "unix:/x"


def test_deadline_maps_to_timeout(sock_dir: Path) -> None:
    release = threading.Event()

    def slow(request: Any, context: grpc.ServicerContext) -> service_pb2.GetStatusResponse:
        release.wait(30)  # answers only after the client gave up
        return service_pb2.GetStatusResponse()

    handlers = {"DaemonService": {
        "GetStatus": unary(slow, service_pb2.GetStatusRequest, service_pb2.GetStatusResponse)}}
    try:
        with fake_daemon(sock_dir, handlers) as address, GraphMem(address, timeout=0.2) as gm, \
                pytest.raises(Timeout, match="did not answer"):
            gm.status()
    finally:
        release.set()


def test_status_and_health(sock_dir: Path) -> None:
    def get_status(request: Any, context: grpc.ServicerContext) -> service_pb2.GetStatusResponse:
        return convert.status_to_proto(STATUS)

    hs = health.HealthServicer()
    hs.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    handlers = {"DaemonService": {
        "GetStatus": unary(get_status, service_pb2.GetStatusRequest, service_pb2.GetStatusResponse)}}
    with fake_daemon(sock_dir, handlers, hs) as address, GraphMem(address) as gm:
        assert gm.status() == STATUS
        assert gm.health() is False
        hs.set("", health_pb2.HealthCheckResponse.SERVING)
        assert gm.health() is True


def test_observe_retries_with_the_same_key(sock_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[service_pb2.CreateObservationRequest] = []

    def create(request: service_pb2.CreateObservationRequest, context: grpc.ServicerContext) -> Any:
        seen.append(request)
        if len(seen) < 3:
            context.abort(grpc.StatusCode.UNAVAILABLE, "store is not open yet")
        return convert.observation_to_proto(replace(OBS, text=request.text))

    (sock_dir / "repo").mkdir()
    monkeypatch.chdir(sock_dir)
    handlers = {"ObservationService": {
        "CreateObservation": unary(create, service_pb2.CreateObservationRequest, types_pb2.Observation)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        obs = gm.observe("note", anchors=["a.py::f"], repo="repo", category=Category.DECISION, tags=["x"])
    assert obs.text == "note"
    assert len(seen) == 3
    assert len({r.idempotency_key for r in seen}) == 1
    assert seen[0].idempotency_key
    first = seen[0]
    assert first.category == types_pb2.CATEGORY_DECISION
    assert first.confidence == 0.0  # not given
    assert first.source == "python-client"
    assert first.repo == str(sock_dir / "repo")  # exists relative to the cwd: sent absolute
    assert list(first.anchors) == ["a.py::f"]
    assert list(first.tags) == ["x"]


def test_observe_gives_up_after_a_few_attempts(sock_dir: Path) -> None:
    calls = 0

    def create(request: Any, context: grpc.ServicerContext) -> Any:
        nonlocal calls
        calls += 1
        context.abort(grpc.StatusCode.UNAVAILABLE, "store is not open yet")

    handlers = {"ObservationService": {
        "CreateObservation": unary(create, service_pb2.CreateObservationRequest, types_pb2.Observation)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm, \
            pytest.raises(DaemonNotRunning, match="store is not open yet"):
        gm.observe("note", idempotency_key="k1")
    assert calls == 4


def test_observe_does_not_retry_invalid_argument(sock_dir: Path) -> None:
    calls = 0

    def create(request: Any, context: grpc.ServicerContext) -> Any:
        nonlocal calls
        calls += 1
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "anchor 'x.py::g' does not resolve; did you mean f?")

    handlers = {"ObservationService": {
        "CreateObservation": unary(create, service_pb2.CreateObservationRequest, types_pb2.Observation)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm, \
            pytest.raises(InvalidArgument, match="did you mean f"):
        gm.observe("note", anchors=["x.py::g"])
    assert calls == 1


def test_list_follows_page_tokens(sock_dir: Path) -> None:
    all_obs = [replace(OBS, id=f"o{i}") for i in range(5)]
    requests: list[service_pb2.ListObservationsRequest] = []

    def list_obs(request: service_pb2.ListObservationsRequest,
                 context: grpc.ServicerContext) -> service_pb2.ListObservationsResponse:
        requests.append(request)
        start = int(request.page_token or 0)
        size = min(request.limit or 100, 2)
        end = start + size
        return service_pb2.ListObservationsResponse(
            observations=[convert.observation_to_proto(o) for o in all_obs[start:end]],
            next_page_token=str(end) if end < len(all_obs) else "",
        )

    handlers = {"ObservationService": {"ListObservations": unary(
        list_obs, service_pb2.ListObservationsRequest, service_pb2.ListObservationsResponse)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        assert [o.id for o in gm.list(limit=0)] == [o.id for o in all_obs]
        requests.clear()
        got = gm.list(limit=3, statuses=[ObservationStatus.STALE], categories=[Category.DECISION], tags=["t"])
        assert [o.id for o in got] == ["o0", "o1", "o2"]
        assert [r.limit for r in requests] == [3, 1]
        assert list(requests[0].statuses) == [types_pb2.OBSERVATION_STATUS_STALE]
        assert list(requests[0].categories) == [types_pb2.CATEGORY_DECISION]


def test_a_list_read_again_through_a_memo_converts_only_the_notes_that_changed(sock_dir: Path) -> None:
    """The review page reads its 2,000 notes again after every knowledge-file change: with a
    memo, a note whose message is the same comes back as the same object (not converted
    again), a changed one is converted anew, and the memo holds the last read only."""
    notes = {f"o{i}": replace(OBS, id=f"o{i}") for i in range(5)}

    def list_obs(request: service_pb2.ListObservationsRequest,
                 context: grpc.ServicerContext) -> service_pb2.ListObservationsResponse:
        start = int(request.page_token or 0)
        end = start + 2
        page = list(notes.values())[start:end]
        return service_pb2.ListObservationsResponse(
            observations=[convert.observation_to_proto(o) for o in page],
            next_page_token=str(end) if end < len(notes) else "",
        )

    handlers = {"ObservationService": {"ListObservations": unary(
        list_obs, service_pb2.ListObservationsRequest, service_pb2.ListObservationsResponse)}}
    memo = convert.ObservationMemo()
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        first = {o.id: o for o in gm.list(limit=0, memo=memo)}
        assert first == {o.id: o for o in gm.list(limit=0)}  # the same notes as without a memo
        notes["o3"] = replace(notes["o3"], text="changed", status=ObservationStatus.STALE)
        del notes["o1"]
        second = {o.id: o for o in gm.list(limit=0, memo=memo)}
        assert list(second) == ["o0", "o2", "o3", "o4"]
        assert all(second[i] is first[i] for i in ("o0", "o2", "o4"))
        assert second["o3"] is not first["o3"]
        assert (second["o3"].text, second["o3"].status) == ("changed", ObservationStatus.STALE)
        notes["o1"] = replace(OBS, id="o1")  # back, after a read without it: converted anew
        third = {o.id: o for o in gm.list(limit=0, memo=memo)}
        assert third["o1"] == first["o1"]
        assert third["o1"] is not first["o1"]
        assert third["o3"] is second["o3"]


def test_update_sends_only_given_fields(sock_dir: Path) -> None:
    seen: list[service_pb2.UpdateObservationRequest] = []

    def update(request: service_pb2.UpdateObservationRequest, context: grpc.ServicerContext) -> Any:
        seen.append(request)
        return convert.observation_to_proto(OBS)

    handlers = {"ObservationService": {
        "UpdateObservation": unary(update, service_pb2.UpdateObservationRequest, types_pb2.Observation)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        gm.update("o", text="new")
        gm.update("o", tags=[])
        gm.update("o", category=Category.TOOLING, confidence=0.5, tags=["a"])
    a, b, c = seen
    assert a.HasField("text")
    assert not a.HasField("category")
    assert not a.HasField("confidence")
    assert not a.replace_tags
    assert b.replace_tags
    assert list(b.tags) == []
    assert not b.HasField("text")
    assert c.category == types_pb2.CATEGORY_TOOLING
    assert c.confidence == 0.5
    assert list(c.tags) == ["a"]


def test_recall_sends_existing_paths_absolute(sock_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[service_pb2.RetrieveRequest] = []

    def retrieve(request: service_pb2.RetrieveRequest,
                 context: grpc.ServicerContext) -> service_pb2.RetrieveResponse:
        seen.append(request)
        return convert.recall_result_to_proto(RECALL)

    (sock_dir / "pkg").mkdir()
    (sock_dir / "pkg" / "mod.py").write_text("x = 1\n")
    monkeypatch.chdir(sock_dir)
    handlers = {"RetrievalService": {
        "Retrieve": unary(retrieve, service_pb2.RetrieveRequest, service_pb2.RetrieveResponse)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        result = gm.recall("why", files=["pkg/mod.py", "app/elsewhere.py"], symbols=["a.py::f"],
                           repo="my-repo-id", hops=3, limit=5, budget=200, include_stale=True, fresh_only=True)
    assert result == RECALL
    r = seen[0]
    assert list(r.files) == [str(sock_dir / "pkg" / "mod.py"), "app/elsewhere.py"]
    assert r.repo == "my-repo-id"
    assert (r.hops, r.limit, r.token_budget, r.include_stale, r.fresh_only, r.text) == (3, 5, 200, True, True, "why")


def test_index_streams_progress(sock_dir: Path) -> None:
    def index(request: service_pb2.IndexRepositoryRequest,
              context: grpc.ServicerContext) -> Iterator[service_pb2.IndexProgress]:
        for done in (0, 6, 12):
            yield convert.index_progress_to_proto(replace(PROGRESS, files_done=done))
        yield convert.index_progress_to_proto(replace(PROGRESS, files_done=12, state=IndexState.READY))

    handlers = {"RepositoryService": {
        "IndexRepository": stream(index, service_pb2.IndexRepositoryRequest, service_pb2.IndexProgress)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        got = list(gm.index("py", full=True))
    assert [p.files_done for p in got] == [0, 6, 12, 12]
    assert got[-1].state is IndexState.READY


def test_events_stream_and_cancel(sock_dir: Path) -> None:
    release = threading.Event()

    def subscribe(request: service_pb2.SubscribeRequest,
                  context: grpc.ServicerContext) -> Iterator[service_pb2.Event]:
        yield service_pb2.Event(kind=99, repo_id="py")  # type: ignore[arg-type]  # unknown kind: skipped
        for e in EVENTS[:2]:
            yield convert.event_to_proto(e)
        while context.is_active() and not release.is_set():
            time.sleep(0.05)

    handlers = {"EventService": {
        "Subscribe": stream(subscribe, service_pb2.SubscribeRequest, service_pb2.Event)}}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        events = gm.events(kinds=[EventKind.OBSERVATION_STALE])
        assert next(events) == EVENTS[0]
        assert next(events) == EVENTS[1]
        threading.Timer(0.2, events.cancel).start()
        started = time.monotonic()
        with pytest.raises(StopIteration):
            next(events)
        assert time.monotonic() - started < 5
        release.set()


def test_export_and_import(sock_dir: Path) -> None:
    imported: list[service_pb2.ImportObservationsRequest] = []

    def export(request: Any, context: grpc.ServicerContext) -> Iterator[service_pb2.JournalLine]:
        for i in range(3):
            yield service_pb2.JournalLine(json=f'{{"n": {i}}}')

    def import_(request: service_pb2.ImportObservationsRequest,
                context: grpc.ServicerContext) -> service_pb2.ImportObservationsResponse:
        imported.append(request)
        return convert.import_result_to_proto(IMPORT)

    handlers = {"ObservationService": {
        "ExportObservations": stream(export, service_pb2.ExportObservationsRequest, service_pb2.JournalLine),
        "ImportObservations": unary(import_, service_pb2.ImportObservationsRequest,
                                    service_pb2.ImportObservationsResponse),
    }}
    with fake_daemon(sock_dir, handlers) as address, GraphMem(address) as gm:
        lines = list(gm.export())
        assert lines == ['{"n": 0}', '{"n": 1}', '{"n": 2}']
        assert gm.import_lines([ln + "\n" for ln in lines] + ["", "  \n"]) == IMPORT
    assert list(imported[0].lines) == lines


def test_find_symbols_rejects_unknown_kind_before_sending(sock_dir: Path) -> None:
    with GraphMem(f"unix:{sock_dir / 'none.sock'}") as gm, pytest.raises(InvalidArgument, match="lambda"):
        gm.find_symbols("*", kinds=["lambda"])


def test_a_list_answer_can_leave_the_histories_out() -> None:
    assert len(convert.observation_to_proto(OBS).history) == 2
    assert not convert.observation_to_proto(OBS, history=False).history
