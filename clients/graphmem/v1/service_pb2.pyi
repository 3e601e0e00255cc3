import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from graphmem.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Origin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORIGIN_ANY: _ClassVar[Origin]
    ORIGIN_NOTES: _ClassVar[Origin]
    ORIGIN_KNOWLEDGE: _ClassVar[Origin]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    EVENT_KIND_OBSERVATION_STALE: _ClassVar[EventKind]
    EVENT_KIND_OBSERVATION_FRESH: _ClassVar[EventKind]
    EVENT_KIND_FILE_INDEXED: _ClassVar[EventKind]
    EVENT_KIND_INDEX_PROGRESS: _ClassVar[EventKind]
    EVENT_KIND_OBSERVATION_CHANGED: _ClassVar[EventKind]
    EVENT_KIND_WATCHER_DEGRADED: _ClassVar[EventKind]
    EVENT_KIND_OBSERVATION_SUSPECT: _ClassVar[EventKind]
    EVENT_KIND_EVENTS_LOST: _ClassVar[EventKind]
    EVENT_KIND_INDEX_QUERYABLE: _ClassVar[EventKind]
    EVENT_KIND_INDEX_DURABLE: _ClassVar[EventKind]

class ObservationAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_ACTION_UNSPECIFIED: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_CREATED: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_UPDATED: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_DELETED: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_ARCHIVED: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_STALE: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_SUSPECT: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_FRESH: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_RENAMED: _ClassVar[ObservationAction]
    OBSERVATION_ACTION_CONFIRMED: _ClassVar[ObservationAction]
ORIGIN_ANY: Origin
ORIGIN_NOTES: Origin
ORIGIN_KNOWLEDGE: Origin
EVENT_KIND_UNSPECIFIED: EventKind
EVENT_KIND_OBSERVATION_STALE: EventKind
EVENT_KIND_OBSERVATION_FRESH: EventKind
EVENT_KIND_FILE_INDEXED: EventKind
EVENT_KIND_INDEX_PROGRESS: EventKind
EVENT_KIND_OBSERVATION_CHANGED: EventKind
EVENT_KIND_WATCHER_DEGRADED: EventKind
EVENT_KIND_OBSERVATION_SUSPECT: EventKind
EVENT_KIND_EVENTS_LOST: EventKind
EVENT_KIND_INDEX_QUERYABLE: EventKind
EVENT_KIND_INDEX_DURABLE: EventKind
OBSERVATION_ACTION_UNSPECIFIED: ObservationAction
OBSERVATION_ACTION_CREATED: ObservationAction
OBSERVATION_ACTION_UPDATED: ObservationAction
OBSERVATION_ACTION_DELETED: ObservationAction
OBSERVATION_ACTION_ARCHIVED: ObservationAction
OBSERVATION_ACTION_STALE: ObservationAction
OBSERVATION_ACTION_SUSPECT: ObservationAction
OBSERVATION_ACTION_FRESH: ObservationAction
OBSERVATION_ACTION_RENAMED: ObservationAction
OBSERVATION_ACTION_CONFIRMED: ObservationAction

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WatcherStatus(_message.Message):
    __slots__ = ("mode", "healthy", "degraded_reason", "restarts")
    MODE_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_REASON_FIELD_NUMBER: _ClassVar[int]
    RESTARTS_FIELD_NUMBER: _ClassVar[int]
    mode: str
    healthy: bool
    degraded_reason: str
    restarts: int
    def __init__(self, mode: _Optional[str] = ..., healthy: _Optional[bool] = ..., degraded_reason: _Optional[str] = ..., restarts: _Optional[int] = ...) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ("version", "pid", "uptime_seconds", "socket_path", "tcp_address", "store_path", "store_size_bytes", "journal_path", "serving", "degraded_reasons", "repositories", "watcher", "last_error", "observations", "stale_observations", "suspect_observations")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    UPTIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    SOCKET_PATH_FIELD_NUMBER: _ClassVar[int]
    TCP_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    STORE_PATH_FIELD_NUMBER: _ClassVar[int]
    STORE_SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    JOURNAL_PATH_FIELD_NUMBER: _ClassVar[int]
    SERVING_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_REASONS_FIELD_NUMBER: _ClassVar[int]
    REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
    WATCHER_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    STALE_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    SUSPECT_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    version: str
    pid: int
    uptime_seconds: float
    socket_path: str
    tcp_address: str
    store_path: str
    store_size_bytes: int
    journal_path: str
    serving: bool
    degraded_reasons: _containers.RepeatedScalarFieldContainer[str]
    repositories: _containers.RepeatedCompositeFieldContainer[_types_pb2.Repository]
    watcher: WatcherStatus
    last_error: str
    observations: int
    stale_observations: int
    suspect_observations: int
    def __init__(self, version: _Optional[str] = ..., pid: _Optional[int] = ..., uptime_seconds: _Optional[float] = ..., socket_path: _Optional[str] = ..., tcp_address: _Optional[str] = ..., store_path: _Optional[str] = ..., store_size_bytes: _Optional[int] = ..., journal_path: _Optional[str] = ..., serving: _Optional[bool] = ..., degraded_reasons: _Optional[_Iterable[str]] = ..., repositories: _Optional[_Iterable[_Union[_types_pb2.Repository, _Mapping]]] = ..., watcher: _Optional[_Union[WatcherStatus, _Mapping]] = ..., last_error: _Optional[str] = ..., observations: _Optional[int] = ..., stale_observations: _Optional[int] = ..., suspect_observations: _Optional[int] = ...) -> None: ...

class ShutdownRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ShutdownResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LinkRepositoryRequest(_message.Message):
    __slots__ = ("path", "to")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    path: str
    to: str
    def __init__(self, path: _Optional[str] = ..., to: _Optional[str] = ...) -> None: ...

class AddRepositoryRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class RemoveRepositoryRequest(_message.Message):
    __slots__ = ("repo", "keep_observations", "purge")
    REPO_FIELD_NUMBER: _ClassVar[int]
    KEEP_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    PURGE_FIELD_NUMBER: _ClassVar[int]
    repo: str
    keep_observations: bool
    purge: bool
    def __init__(self, repo: _Optional[str] = ..., keep_observations: _Optional[bool] = ..., purge: _Optional[bool] = ...) -> None: ...

class RemoveRepositoryResponse(_message.Message):
    __slots__ = ("purged",)
    PURGED_FIELD_NUMBER: _ClassVar[int]
    purged: int
    def __init__(self, purged: _Optional[int] = ...) -> None: ...

class ListRepositoriesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRepositoriesResponse(_message.Message):
    __slots__ = ("repositories",)
    REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
    repositories: _containers.RepeatedCompositeFieldContainer[_types_pb2.Repository]
    def __init__(self, repositories: _Optional[_Iterable[_Union[_types_pb2.Repository, _Mapping]]] = ...) -> None: ...

class IndexRepositoryRequest(_message.Message):
    __slots__ = ("repo", "paths", "full")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    FULL_FIELD_NUMBER: _ClassVar[int]
    repo: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    full: bool
    def __init__(self, repo: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., full: _Optional[bool] = ...) -> None: ...

class IndexProgress(_message.Message):
    __slots__ = ("repo_id", "state", "files_done", "files_total", "symbols", "skipped", "elapsed_seconds")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FILES_DONE_FIELD_NUMBER: _ClassVar[int]
    FILES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    state: _types_pb2.IndexState
    files_done: int
    files_total: int
    symbols: int
    skipped: int
    elapsed_seconds: float
    def __init__(self, repo_id: _Optional[str] = ..., state: _Optional[_Union[_types_pb2.IndexState, str]] = ..., files_done: _Optional[int] = ..., files_total: _Optional[int] = ..., symbols: _Optional[int] = ..., skipped: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ...) -> None: ...

class GetObservationChangeRequest(_message.Message):
    __slots__ = ("id", "max_commits", "repo")
    ID_FIELD_NUMBER: _ClassVar[int]
    MAX_COMMITS_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    id: str
    max_commits: int
    repo: str
    def __init__(self, id: _Optional[str] = ..., max_commits: _Optional[int] = ..., repo: _Optional[str] = ...) -> None: ...

class CodeVersion(_message.Message):
    __slots__ = ("present", "ref", "path", "start_line", "end_line", "text", "signature", "commit", "exact")
    PRESENT_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    present: bool
    ref: str
    path: str
    start_line: int
    end_line: int
    text: str
    signature: str
    commit: str
    exact: bool
    def __init__(self, present: _Optional[bool] = ..., ref: _Optional[str] = ..., path: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., text: _Optional[str] = ..., signature: _Optional[str] = ..., commit: _Optional[str] = ..., exact: _Optional[bool] = ...) -> None: ...

class AnchorChange(_message.Message):
    __slots__ = ("anchor_ref", "change", "detail", "commit", "before", "after", "dependency_ref", "path", "note")
    ANCHOR_REF_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_REF_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    anchor_ref: str
    change: _types_pb2.ChangeKind
    detail: str
    commit: str
    before: CodeVersion
    after: CodeVersion
    dependency_ref: str
    path: _containers.RepeatedCompositeFieldContainer[Hop]
    note: str
    def __init__(self, anchor_ref: _Optional[str] = ..., change: _Optional[_Union[_types_pb2.ChangeKind, str]] = ..., detail: _Optional[str] = ..., commit: _Optional[str] = ..., before: _Optional[_Union[CodeVersion, _Mapping]] = ..., after: _Optional[_Union[CodeVersion, _Mapping]] = ..., dependency_ref: _Optional[str] = ..., path: _Optional[_Iterable[_Union[Hop, _Mapping]]] = ..., note: _Optional[str] = ...) -> None: ...

class ObservationChange(_message.Message):
    __slots__ = ("observation_id", "changes")
    OBSERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    observation_id: str
    changes: _containers.RepeatedCompositeFieldContainer[AnchorChange]
    def __init__(self, observation_id: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[AnchorChange, _Mapping]]] = ...) -> None: ...

class CreateObservationRequest(_message.Message):
    __slots__ = ("repo", "text", "category", "tags", "source", "confidence", "anchors", "supersedes", "contradicts", "idempotency_key", "shared")
    REPO_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    ANCHORS_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    CONTRADICTS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    SHARED_FIELD_NUMBER: _ClassVar[int]
    repo: str
    text: str
    category: _types_pb2.Category
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: str
    confidence: float
    anchors: _containers.RepeatedScalarFieldContainer[str]
    supersedes: _containers.RepeatedScalarFieldContainer[str]
    contradicts: _containers.RepeatedScalarFieldContainer[str]
    idempotency_key: str
    shared: bool
    def __init__(self, repo: _Optional[str] = ..., text: _Optional[str] = ..., category: _Optional[_Union[_types_pb2.Category, str]] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., confidence: _Optional[float] = ..., anchors: _Optional[_Iterable[str]] = ..., supersedes: _Optional[_Iterable[str]] = ..., contradicts: _Optional[_Iterable[str]] = ..., idempotency_key: _Optional[str] = ..., shared: _Optional[bool] = ...) -> None: ...

class GetObservationRequest(_message.Message):
    __slots__ = ("id", "repo")
    ID_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    id: str
    repo: str
    def __init__(self, id: _Optional[str] = ..., repo: _Optional[str] = ...) -> None: ...

class UpdateObservationRequest(_message.Message):
    __slots__ = ("id", "text", "category", "replace_tags", "tags", "confidence", "by")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    REPLACE_TAGS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    category: _types_pb2.Category
    replace_tags: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    confidence: float
    by: str
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., category: _Optional[_Union[_types_pb2.Category, str]] = ..., replace_tags: _Optional[bool] = ..., tags: _Optional[_Iterable[str]] = ..., confidence: _Optional[float] = ..., by: _Optional[str] = ...) -> None: ...

class ListObservationsRequest(_message.Message):
    __slots__ = ("repo", "statuses", "categories", "file", "symbol", "tags", "limit", "page_token", "with_history", "origin")
    REPO_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    CATEGORIES_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    WITH_HISTORY_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    repo: str
    statuses: _containers.RepeatedScalarFieldContainer[_types_pb2.ObservationStatus]
    categories: _containers.RepeatedScalarFieldContainer[_types_pb2.Category]
    file: str
    symbol: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    limit: int
    page_token: str
    with_history: bool
    origin: Origin
    def __init__(self, repo: _Optional[str] = ..., statuses: _Optional[_Iterable[_Union[_types_pb2.ObservationStatus, str]]] = ..., categories: _Optional[_Iterable[_Union[_types_pb2.Category, str]]] = ..., file: _Optional[str] = ..., symbol: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ..., page_token: _Optional[str] = ..., with_history: _Optional[bool] = ..., origin: _Optional[_Union[Origin, str]] = ...) -> None: ...

class ListObservationsResponse(_message.Message):
    __slots__ = ("observations", "next_page_token")
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    observations: _containers.RepeatedCompositeFieldContainer[_types_pb2.Observation]
    next_page_token: str
    def __init__(self, observations: _Optional[_Iterable[_Union[_types_pb2.Observation, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ArchiveObservationRequest(_message.Message):
    __slots__ = ("id", "by")
    ID_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    id: str
    by: str
    def __init__(self, id: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class DeleteObservationRequest(_message.Message):
    __slots__ = ("id", "by")
    ID_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    id: str
    by: str
    def __init__(self, id: _Optional[str] = ..., by: _Optional[str] = ...) -> None: ...

class DeleteObservationResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConfirmObservationRequest(_message.Message):
    __slots__ = ("id", "confirmed_by", "note", "repo")
    ID_FIELD_NUMBER: _ClassVar[int]
    CONFIRMED_BY_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    id: str
    confirmed_by: str
    note: str
    repo: str
    def __init__(self, id: _Optional[str] = ..., confirmed_by: _Optional[str] = ..., note: _Optional[str] = ..., repo: _Optional[str] = ...) -> None: ...

class ExportObservationsRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class JournalLine(_message.Message):
    __slots__ = ("json",)
    JSON_FIELD_NUMBER: _ClassVar[int]
    json: str
    def __init__(self, json: _Optional[str] = ...) -> None: ...

class ImportObservationsRequest(_message.Message):
    __slots__ = ("lines", "repo")
    LINES_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    lines: _containers.RepeatedScalarFieldContainer[str]
    repo: str
    def __init__(self, lines: _Optional[_Iterable[str]] = ..., repo: _Optional[str] = ...) -> None: ...

class ImportObservationsResponse(_message.Message):
    __slots__ = ("imported", "skipped_duplicates", "errors")
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    imported: int
    skipped_duplicates: int
    errors: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, imported: _Optional[int] = ..., skipped_duplicates: _Optional[int] = ..., errors: _Optional[_Iterable[str]] = ...) -> None: ...

class CheckKnowledgeRequest(_message.Message):
    __slots__ = ("repo", "paths", "wait_current")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    WAIT_CURRENT_FIELD_NUMBER: _ClassVar[int]
    repo: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    wait_current: bool
    def __init__(self, repo: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., wait_current: _Optional[bool] = ...) -> None: ...

class CheckKnowledgeResponse(_message.Message):
    __slots__ = ("references", "files_checked", "units", "references_checked", "freshness")
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    FILES_CHECKED_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_CHECKED_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    references: _containers.RepeatedCompositeFieldContainer[_types_pb2.KnowledgeReference]
    files_checked: int
    units: int
    references_checked: int
    freshness: _types_pb2.Freshness
    def __init__(self, references: _Optional[_Iterable[_Union[_types_pb2.KnowledgeReference, _Mapping]]] = ..., files_checked: _Optional[int] = ..., units: _Optional[int] = ..., references_checked: _Optional[int] = ..., freshness: _Optional[_Union[_types_pb2.Freshness, _Mapping]] = ...) -> None: ...

class RetrieveRequest(_message.Message):
    __slots__ = ("repo", "files", "symbols", "text", "hops", "limit", "token_budget", "include_stale", "line", "fresh_only")
    REPO_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_STALE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    FRESH_ONLY_FIELD_NUMBER: _ClassVar[int]
    repo: str
    files: _containers.RepeatedScalarFieldContainer[str]
    symbols: _containers.RepeatedScalarFieldContainer[str]
    text: str
    hops: int
    limit: int
    token_budget: int
    include_stale: bool
    line: int
    fresh_only: bool
    def __init__(self, repo: _Optional[str] = ..., files: _Optional[_Iterable[str]] = ..., symbols: _Optional[_Iterable[str]] = ..., text: _Optional[str] = ..., hops: _Optional[int] = ..., limit: _Optional[int] = ..., token_budget: _Optional[int] = ..., include_stale: _Optional[bool] = ..., line: _Optional[int] = ..., fresh_only: _Optional[bool] = ...) -> None: ...

class Hop(_message.Message):
    __slots__ = ("from_ref", "edge", "to_ref", "confidence")
    FROM_REF_FIELD_NUMBER: _ClassVar[int]
    EDGE_FIELD_NUMBER: _ClassVar[int]
    TO_REF_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    from_ref: str
    edge: _types_pb2.EdgeKind
    to_ref: str
    confidence: _types_pb2.EdgeConfidence
    def __init__(self, from_ref: _Optional[str] = ..., edge: _Optional[_Union[_types_pb2.EdgeKind, str]] = ..., to_ref: _Optional[str] = ..., confidence: _Optional[_Union[_types_pb2.EdgeConfidence, str]] = ...) -> None: ...

class RetrievedObservation(_message.Message):
    __slots__ = ("observation", "score", "distance", "path", "matched_terms", "why", "tokens", "components")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    MATCHED_TERMS_FIELD_NUMBER: _ClassVar[int]
    WHY_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    observation: _types_pb2.Observation
    score: float
    distance: int
    path: _containers.RepeatedCompositeFieldContainer[Hop]
    matched_terms: _containers.RepeatedScalarFieldContainer[str]
    why: str
    tokens: int
    components: ScoreComponents
    def __init__(self, observation: _Optional[_Union[_types_pb2.Observation, _Mapping]] = ..., score: _Optional[float] = ..., distance: _Optional[int] = ..., path: _Optional[_Iterable[_Union[Hop, _Mapping]]] = ..., matched_terms: _Optional[_Iterable[str]] = ..., why: _Optional[str] = ..., tokens: _Optional[int] = ..., components: _Optional[_Union[ScoreComponents, _Mapping]] = ...) -> None: ...

class ScoreComponents(_message.Message):
    __slots__ = ("proximity", "cochange", "text", "pagerank", "centrality", "focus", "recency", "confirmation", "status", "confidence", "relevance", "cochange_together", "cochange_total", "text_proximity", "text_cochange", "breadth", "text_breadth", "file_part", "text_part", "reach", "on_query")
    PROXIMITY_FIELD_NUMBER: _ClassVar[int]
    COCHANGE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PAGERANK_FIELD_NUMBER: _ClassVar[int]
    CENTRALITY_FIELD_NUMBER: _ClassVar[int]
    FOCUS_FIELD_NUMBER: _ClassVar[int]
    RECENCY_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    COCHANGE_TOGETHER_FIELD_NUMBER: _ClassVar[int]
    COCHANGE_TOTAL_FIELD_NUMBER: _ClassVar[int]
    TEXT_PROXIMITY_FIELD_NUMBER: _ClassVar[int]
    TEXT_COCHANGE_FIELD_NUMBER: _ClassVar[int]
    BREADTH_FIELD_NUMBER: _ClassVar[int]
    TEXT_BREADTH_FIELD_NUMBER: _ClassVar[int]
    FILE_PART_FIELD_NUMBER: _ClassVar[int]
    TEXT_PART_FIELD_NUMBER: _ClassVar[int]
    REACH_FIELD_NUMBER: _ClassVar[int]
    ON_QUERY_FIELD_NUMBER: _ClassVar[int]
    proximity: float
    cochange: float
    text: float
    pagerank: float
    centrality: float
    focus: float
    recency: float
    confirmation: float
    status: float
    confidence: float
    relevance: float
    cochange_together: int
    cochange_total: int
    text_proximity: float
    text_cochange: float
    breadth: float
    text_breadth: float
    file_part: float
    text_part: float
    reach: float
    on_query: bool
    def __init__(self, proximity: _Optional[float] = ..., cochange: _Optional[float] = ..., text: _Optional[float] = ..., pagerank: _Optional[float] = ..., centrality: _Optional[float] = ..., focus: _Optional[float] = ..., recency: _Optional[float] = ..., confirmation: _Optional[float] = ..., status: _Optional[float] = ..., confidence: _Optional[float] = ..., relevance: _Optional[float] = ..., cochange_together: _Optional[int] = ..., cochange_total: _Optional[int] = ..., text_proximity: _Optional[float] = ..., text_cochange: _Optional[float] = ..., breadth: _Optional[float] = ..., text_breadth: _Optional[float] = ..., file_part: _Optional[float] = ..., text_part: _Optional[float] = ..., reach: _Optional[float] = ..., on_query: _Optional[bool] = ...) -> None: ...

class RetrieveResponse(_message.Message):
    __slots__ = ("results", "freshness", "seeds", "nodes_reached", "total_tokens", "truncated", "warnings", "excluded_stale")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    NODES_REACHED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDED_STALE_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[RetrievedObservation]
    freshness: _types_pb2.Freshness
    seeds: int
    nodes_reached: int
    total_tokens: int
    truncated: bool
    warnings: _containers.RepeatedScalarFieldContainer[str]
    excluded_stale: int
    def __init__(self, results: _Optional[_Iterable[_Union[RetrievedObservation, _Mapping]]] = ..., freshness: _Optional[_Union[_types_pb2.Freshness, _Mapping]] = ..., seeds: _Optional[int] = ..., nodes_reached: _Optional[int] = ..., total_tokens: _Optional[int] = ..., truncated: _Optional[bool] = ..., warnings: _Optional[_Iterable[str]] = ..., excluded_stale: _Optional[int] = ...) -> None: ...

class SessionBriefRequest(_message.Message):
    __slots__ = ("repo", "files", "symbols", "text", "token_budget", "include_stale", "fresh_only")
    REPO_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_STALE_FIELD_NUMBER: _ClassVar[int]
    FRESH_ONLY_FIELD_NUMBER: _ClassVar[int]
    repo: str
    files: _containers.RepeatedScalarFieldContainer[str]
    symbols: _containers.RepeatedScalarFieldContainer[str]
    text: str
    token_budget: int
    include_stale: bool
    fresh_only: bool
    def __init__(self, repo: _Optional[str] = ..., files: _Optional[_Iterable[str]] = ..., symbols: _Optional[_Iterable[str]] = ..., text: _Optional[str] = ..., token_budget: _Optional[int] = ..., include_stale: _Optional[bool] = ..., fresh_only: _Optional[bool] = ...) -> None: ...

class SessionBriefResponse(_message.Message):
    __slots__ = ("text", "observation_ids", "freshness", "tokens", "left_out")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_IDS_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    LEFT_OUT_FIELD_NUMBER: _ClassVar[int]
    text: str
    observation_ids: _containers.RepeatedScalarFieldContainer[str]
    freshness: _types_pb2.Freshness
    tokens: int
    left_out: int
    def __init__(self, text: _Optional[str] = ..., observation_ids: _Optional[_Iterable[str]] = ..., freshness: _Optional[_Union[_types_pb2.Freshness, _Mapping]] = ..., tokens: _Optional[int] = ..., left_out: _Optional[int] = ...) -> None: ...

class EditContextRequest(_message.Message):
    __slots__ = ("repo", "files", "token_budget", "wait_ms", "fresh_only", "already_shown")
    REPO_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    FRESH_ONLY_FIELD_NUMBER: _ClassVar[int]
    ALREADY_SHOWN_FIELD_NUMBER: _ClassVar[int]
    repo: str
    files: _containers.RepeatedScalarFieldContainer[str]
    token_budget: int
    wait_ms: int
    fresh_only: bool
    already_shown: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., files: _Optional[_Iterable[str]] = ..., token_budget: _Optional[int] = ..., wait_ms: _Optional[int] = ..., fresh_only: _Optional[bool] = ..., already_shown: _Optional[_Iterable[str]] = ...) -> None: ...

class EditContextResponse(_message.Message):
    __slots__ = ("text", "observation_ids", "callout_ids", "freshness", "tokens", "left_out", "indexed", "shown_states")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_IDS_FIELD_NUMBER: _ClassVar[int]
    CALLOUT_IDS_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    LEFT_OUT_FIELD_NUMBER: _ClassVar[int]
    INDEXED_FIELD_NUMBER: _ClassVar[int]
    SHOWN_STATES_FIELD_NUMBER: _ClassVar[int]
    text: str
    observation_ids: _containers.RepeatedScalarFieldContainer[str]
    callout_ids: _containers.RepeatedScalarFieldContainer[str]
    freshness: _types_pb2.Freshness
    tokens: int
    left_out: int
    indexed: bool
    shown_states: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, text: _Optional[str] = ..., observation_ids: _Optional[_Iterable[str]] = ..., callout_ids: _Optional[_Iterable[str]] = ..., freshness: _Optional[_Union[_types_pb2.Freshness, _Mapping]] = ..., tokens: _Optional[int] = ..., left_out: _Optional[int] = ..., indexed: _Optional[bool] = ..., shown_states: _Optional[_Iterable[str]] = ...) -> None: ...

class GetNeighbourhoodRequest(_message.Message):
    __slots__ = ("repo", "refs", "hops", "max_nodes")
    REPO_FIELD_NUMBER: _ClassVar[int]
    REFS_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    MAX_NODES_FIELD_NUMBER: _ClassVar[int]
    repo: str
    refs: _containers.RepeatedScalarFieldContainer[str]
    hops: int
    max_nodes: int
    def __init__(self, repo: _Optional[str] = ..., refs: _Optional[_Iterable[str]] = ..., hops: _Optional[int] = ..., max_nodes: _Optional[int] = ...) -> None: ...

class NeighbourNode(_message.Message):
    __slots__ = ("id", "ref", "kind", "path", "start_line", "end_line", "signature", "distance", "observations")
    ID_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    ref: str
    kind: str
    path: str
    start_line: int
    end_line: int
    signature: str
    distance: int
    observations: _containers.RepeatedCompositeFieldContainer[_types_pb2.Observation]
    def __init__(self, id: _Optional[str] = ..., ref: _Optional[str] = ..., kind: _Optional[str] = ..., path: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., signature: _Optional[str] = ..., distance: _Optional[int] = ..., observations: _Optional[_Iterable[_Union[_types_pb2.Observation, _Mapping]]] = ...) -> None: ...

class NeighbourEdge(_message.Message):
    __slots__ = ("source", "target", "kind", "confidence")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    source: str
    target: str
    kind: _types_pb2.EdgeKind
    confidence: _types_pb2.EdgeConfidence
    def __init__(self, source: _Optional[str] = ..., target: _Optional[str] = ..., kind: _Optional[_Union[_types_pb2.EdgeKind, str]] = ..., confidence: _Optional[_Union[_types_pb2.EdgeConfidence, str]] = ...) -> None: ...

class Neighbourhood(_message.Message):
    __slots__ = ("nodes", "edges", "truncated")
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[NeighbourNode]
    edges: _containers.RepeatedCompositeFieldContainer[NeighbourEdge]
    truncated: bool
    def __init__(self, nodes: _Optional[_Iterable[_Union[NeighbourNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[NeighbourEdge, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class GetFileOutlineRequest(_message.Message):
    __slots__ = ("repo", "path")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    path: str
    def __init__(self, repo: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class FileOutline(_message.Message):
    __slots__ = ("repo_id", "repo_root", "path", "indexed", "content_hash", "language", "symbols", "observations", "freshness")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    REPO_ROOT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    INDEXED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    repo_root: str
    path: str
    indexed: bool
    content_hash: str
    language: str
    symbols: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    observations: _containers.RepeatedCompositeFieldContainer[_types_pb2.Observation]
    freshness: _types_pb2.RepoFreshness
    def __init__(self, repo_id: _Optional[str] = ..., repo_root: _Optional[str] = ..., path: _Optional[str] = ..., indexed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., language: _Optional[str] = ..., symbols: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., observations: _Optional[_Iterable[_Union[_types_pb2.Observation, _Mapping]]] = ..., freshness: _Optional[_Union[_types_pb2.RepoFreshness, _Mapping]] = ...) -> None: ...

class ResolveSymbolRequest(_message.Message):
    __slots__ = ("repo", "ref", "limit")
    REPO_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    repo: str
    ref: str
    limit: int
    def __init__(self, repo: _Optional[str] = ..., ref: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ResolveSymbolResponse(_message.Message):
    __slots__ = ("matches", "exact", "ref")
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    EXACT_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    exact: bool
    ref: str
    def __init__(self, matches: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., exact: _Optional[bool] = ..., ref: _Optional[str] = ...) -> None: ...

class FindSymbolsRequest(_message.Message):
    __slots__ = ("repo", "pattern", "kinds", "limit")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    repo: str
    pattern: str
    kinds: _containers.RepeatedScalarFieldContainer[_types_pb2.SymbolKind]
    limit: int
    def __init__(self, repo: _Optional[str] = ..., pattern: _Optional[str] = ..., kinds: _Optional[_Iterable[_Union[_types_pb2.SymbolKind, str]]] = ..., limit: _Optional[int] = ...) -> None: ...

class FindSymbolsResponse(_message.Message):
    __slots__ = ("symbols",)
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    symbols: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    def __init__(self, symbols: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ...) -> None: ...

class GetSymbolRequest(_message.Message):
    __slots__ = ("repo", "ref")
    REPO_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    repo: str
    ref: str
    def __init__(self, repo: _Optional[str] = ..., ref: _Optional[str] = ...) -> None: ...

class SymbolDetail(_message.Message):
    __slots__ = ("symbol", "callers", "callees", "unresolved_calls", "contains", "container", "inherits", "inherited_by", "file_imports", "file_imported_by", "observations", "freshness")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    CALLERS_FIELD_NUMBER: _ClassVar[int]
    CALLEES_FIELD_NUMBER: _ClassVar[int]
    UNRESOLVED_CALLS_FIELD_NUMBER: _ClassVar[int]
    CONTAINS_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_FIELD_NUMBER: _ClassVar[int]
    INHERITS_FIELD_NUMBER: _ClassVar[int]
    INHERITED_BY_FIELD_NUMBER: _ClassVar[int]
    FILE_IMPORTS_FIELD_NUMBER: _ClassVar[int]
    FILE_IMPORTED_BY_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    symbol: _types_pb2.Symbol
    callers: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    callees: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    unresolved_calls: _containers.RepeatedScalarFieldContainer[str]
    contains: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    container: _types_pb2.Symbol
    inherits: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    inherited_by: _containers.RepeatedCompositeFieldContainer[_types_pb2.Symbol]
    file_imports: _containers.RepeatedScalarFieldContainer[str]
    file_imported_by: _containers.RepeatedScalarFieldContainer[str]
    observations: _containers.RepeatedCompositeFieldContainer[_types_pb2.Observation]
    freshness: _types_pb2.Freshness
    def __init__(self, symbol: _Optional[_Union[_types_pb2.Symbol, _Mapping]] = ..., callers: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., callees: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., unresolved_calls: _Optional[_Iterable[str]] = ..., contains: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., container: _Optional[_Union[_types_pb2.Symbol, _Mapping]] = ..., inherits: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., inherited_by: _Optional[_Iterable[_Union[_types_pb2.Symbol, _Mapping]]] = ..., file_imports: _Optional[_Iterable[str]] = ..., file_imported_by: _Optional[_Iterable[str]] = ..., observations: _Optional[_Iterable[_Union[_types_pb2.Observation, _Mapping]]] = ..., freshness: _Optional[_Union[_types_pb2.Freshness, _Mapping]] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ("repo", "kinds", "after_seq")
    REPO_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    repo: str
    kinds: _containers.RepeatedScalarFieldContainer[EventKind]
    after_seq: int
    def __init__(self, repo: _Optional[str] = ..., kinds: _Optional[_Iterable[_Union[EventKind, str]]] = ..., after_seq: _Optional[int] = ...) -> None: ...

class FileIndexed(_message.Message):
    __slots__ = ("path", "removed", "symbols", "added", "removed_symbols", "changed")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    path: str
    removed: bool
    symbols: int
    added: int
    removed_symbols: int
    changed: int
    def __init__(self, path: _Optional[str] = ..., removed: _Optional[bool] = ..., symbols: _Optional[int] = ..., added: _Optional[int] = ..., removed_symbols: _Optional[int] = ..., changed: _Optional[int] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("kind", "at", "repo_id", "seq", "action", "observation_id", "observation", "file", "progress", "message")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    kind: EventKind
    at: _timestamp_pb2.Timestamp
    repo_id: str
    seq: int
    action: ObservationAction
    observation_id: str
    observation: _types_pb2.Observation
    file: FileIndexed
    progress: IndexProgress
    message: str
    def __init__(self, kind: _Optional[_Union[EventKind, str]] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., repo_id: _Optional[str] = ..., seq: _Optional[int] = ..., action: _Optional[_Union[ObservationAction, str]] = ..., observation_id: _Optional[str] = ..., observation: _Optional[_Union[_types_pb2.Observation, _Mapping]] = ..., file: _Optional[_Union[FileIndexed, _Mapping]] = ..., progress: _Optional[_Union[IndexProgress, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...
