"""Public domain objects of graphmem, shared by the daemon and the client.

Frozen dataclasses and enums; no protobuf, no gRPC. ``graphmem.convert`` maps them to and
from the wire messages of ``proto/graphmem/v1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "Anchor",
    "AnchorKind",
    "Brief",
    "Category",
    "ChangeKind",
    "EdgeKind",
    "Event",
    "EventKind",
    "Freshness",
    "Hop",
    "ImportResult",
    "IndexProgress",
    "IndexState",
    "Observation",
    "ObservationAction",
    "ObservationStatus",
    "RecallResult",
    "Recalled",
    "RepoFreshness",
    "Repository",
    "Resolved",
    "ScoreComponents",
    "StaleReason",
    "Status",
    "Symbol",
    "SymbolDetail",
    "WatcherStatus",
]


class Category(str, Enum):
    DECISION = "decision"
    CONSTRAINT = "constraint"
    BUG_CAUSE = "bug-cause"
    ARCHITECTURE = "architecture"
    CONVENTION = "convention"
    TOOLING = "tooling"
    EXPLORATION = "exploration"
    OTHER = "other"


class ObservationStatus(str, Enum):
    FRESH = "fresh"
    STALE = "stale"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    SUSPECT = "suspect"


class ChangeKind(str, Enum):
    """How the code under an anchor changed. Severity: removed > signature > body > renamed."""

    ADDED = "added"
    REMOVED = "removed"
    SIGNATURE_CHANGED = "signature_changed"
    BODY_CHANGED = "body_changed"
    RENAMED = "renamed"
    DEPENDENCY_CHANGED = "dependency_changed"


class AnchorKind(str, Enum):
    SYMBOL = "symbol"
    FILE = "file"


class IndexState(str, Enum):
    PENDING = "pending"
    INDEXING = "indexing"
    READY = "ready"
    ERROR = "error"
    WARMING = "warming"


class EdgeKind(str, Enum):
    CALLS = "CALLS"
    CALLED_BY = "CALLED_BY"
    IMPORTS = "IMPORTS"
    IMPORTED_BY = "IMPORTED_BY"
    CONTAINS = "CONTAINS"
    CONTAINED_IN = "CONTAINED_IN"
    INHERITS = "INHERITS"
    INHERITED_BY = "INHERITED_BY"
    DEFINES = "DEFINES"
    DEFINED_IN = "DEFINED_IN"


class EventKind(str, Enum):
    OBSERVATION_STALE = "observation_stale"
    OBSERVATION_FRESH = "observation_fresh"
    FILE_INDEXED = "file_indexed"
    INDEX_PROGRESS = "index_progress"
    OBSERVATION_CHANGED = "observation_changed"
    WATCHER_DEGRADED = "watcher_degraded"
    OBSERVATION_SUSPECT = "observation_suspect"
    EVENTS_LOST = "events_lost"  # a gap in the stream (resume point too old, or a slow subscriber)


class ObservationAction(str, Enum):
    """What happened to an observation, carried by every observation event."""

    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"
    ARCHIVED = "archived"
    STALE = "stale"
    SUSPECT = "suspect"
    FRESH = "fresh"
    RENAMED = "renamed"
    CONFIRMED = "confirmed"


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where an observation is attached, with the fingerprints the code had when anchored."""

    kind: AnchorKind
    ref: str  # "auth/service.py::AuthService.login" or "auth/service.py"
    repo_id: str
    path: str
    symbol_id: str = ""
    signature: str = ""
    sig_hash: str = ""
    body_hash: str = ""


@dataclass(frozen=True, slots=True)
class StaleReason:
    anchor_ref: str
    change: ChangeKind
    detected_at: float
    old_signature: str = ""
    new_signature: str = ""
    new_ref: str = ""
    commit: str = ""
    detail: str = ""
    dependency_ref: str = ""
    dependency_id: str = ""
    dependency_sig_hash: str = ""
    via: str = ""


@dataclass(frozen=True, slots=True)
class Observation:
    id: str
    repo_id: str
    text: str
    category: Category
    created_at: float
    updated_at: float
    status: ObservationStatus = ObservationStatus.FRESH
    tags: tuple[str, ...] = ()
    source: str = ""
    confidence: float = 1.0
    anchors: tuple[Anchor, ...] = ()
    stale_reasons: tuple[StaleReason, ...] = ()
    supersedes: tuple[str, ...] = ()
    superseded_by: str = ""
    contradicts: tuple[str, ...] = ()
    confirmed_by: str = ""
    confirmed_at: float | None = None
    needs_review: bool = False

    @property
    def is_stale(self) -> bool:
        return self.status is ObservationStatus.STALE


@dataclass(frozen=True, slots=True)
class Symbol:
    id: str
    repo_id: str
    path: str
    name: str
    qualname: str
    kind: str  # graphmemd.model.SymbolKind value: "function", "method", "class", ...
    language: str
    start_line: int
    end_line: int
    signature: str

    @property
    def ref(self) -> str:
        return f"{self.path}::{self.qualname}"


@dataclass(frozen=True, slots=True)
class RepoFreshness:
    repo_id: str
    current: bool
    state: IndexState
    pending_changes: int = 0
    indexed_commit: str = ""
    head_commit: str = ""
    working_tree_dirty: bool = False


@dataclass(frozen=True, slots=True)
class Freshness:
    current: bool
    repositories: tuple[RepoFreshness, ...] = ()


@dataclass(frozen=True, slots=True)
class SymbolDetail:
    symbol: Symbol
    callers: tuple[Symbol, ...] = ()
    callees: tuple[Symbol, ...] = ()
    unresolved_calls: tuple[str, ...] = ()
    contains: tuple[Symbol, ...] = ()
    container: Symbol | None = None
    inherits: tuple[Symbol, ...] = ()
    inherited_by: tuple[Symbol, ...] = ()
    file_imports: tuple[str, ...] = ()
    file_imported_by: tuple[str, ...] = ()
    observations: tuple[Observation, ...] = ()
    freshness: Freshness | None = None


@dataclass(frozen=True, slots=True)
class Hop:
    from_ref: str
    edge: EdgeKind
    to_ref: str


@dataclass(frozen=True, slots=True)
class ScoreComponents:
    """What a recalled observation's score is made of (the README's ranking formula):
    ``score = relevance * confidence * recency * confirmation * status`` where ``relevance``
    is the weighted sum of ``proximity``, ``cochange``, ``text``, ``pagerank``,
    ``centrality`` and ``focus``. ``cochange_together`` of ``cochange_total`` commits is the
    evidence behind ``cochange``."""

    proximity: float = 0.0
    cochange: float = 0.0
    text: float = 0.0
    pagerank: float = 0.0
    centrality: float = 0.0
    focus: float = 0.0
    recency: float = 1.0
    confirmation: float = 1.0
    status: float = 1.0
    confidence: float = 1.0
    relevance: float = 0.0
    cochange_together: int = 0
    cochange_total: int = 0


@dataclass(frozen=True, slots=True)
class Recalled:
    observation: Observation
    score: float
    distance: int
    why: str
    path: tuple[Hop, ...] = ()
    matched_terms: tuple[str, ...] = ()
    tokens: int = 0
    components: ScoreComponents = ScoreComponents()


@dataclass(frozen=True, slots=True)
class Resolved:
    """A short symbol reference resolved: ``matches`` best first; ``exact`` when the first
    is the only exact match (by ref, qualname suffix or name)."""

    ref: str
    matches: tuple[Symbol, ...]
    exact: bool


@dataclass(frozen=True, slots=True)
class RecallResult:
    results: tuple[Recalled, ...]
    freshness: Freshness
    seeds: int = 0
    nodes_reached: int = 0
    total_tokens: int = 0
    truncated: bool = False
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Brief:
    text: str
    observation_ids: tuple[str, ...]
    freshness: Freshness
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class Repository:
    id: str
    root: str
    state: IndexState
    files: int = 0
    symbols: int = 0
    observations: int = 0
    stale_observations: int = 0
    files_done: int = 0
    files_total: int = 0
    skipped_files: int = 0
    head_commit: str = ""
    last_indexed_at: float | None = None
    error: str = ""
    pending_changes: int = 0
    edges: int = 0
    files_parsed: int = 0
    suspect_observations: int = 0


@dataclass(frozen=True, slots=True)
class WatcherStatus:
    mode: str
    healthy: bool
    degraded_reason: str = ""
    restarts: int = 0


@dataclass(frozen=True, slots=True)
class Status:
    version: str
    pid: int
    uptime_seconds: float
    socket_path: str
    store_path: str
    store_size_bytes: int
    journal_path: str
    serving: bool
    repositories: tuple[Repository, ...] = ()
    watcher: WatcherStatus | None = None
    degraded_reasons: tuple[str, ...] = ()
    tcp_address: str = ""
    last_error: str = ""
    observations: int = 0
    stale_observations: int = 0
    suspect_observations: int = 0

    @property
    def healthy(self) -> bool:
        return self.serving and not self.degraded_reasons


@dataclass(frozen=True, slots=True)
class IndexProgress:
    repo_id: str
    state: IndexState
    files_done: int
    files_total: int
    symbols: int = 0
    skipped: int = 0
    elapsed_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    at: float
    repo_id: str
    seq: int = 0
    observation: Observation | None = None
    path: str = ""
    progress: IndexProgress | None = None
    message: str = ""
    detail: dict[str, int] = field(default_factory=dict)
    action: ObservationAction | None = None
    observation_id: str = ""


@dataclass(frozen=True, slots=True)
class ImportResult:
    imported: int
    skipped_duplicates: int
    errors: tuple[str, ...] = ()
