"""Public domain objects of graphmem, shared by the daemon and the client.

Frozen dataclasses and enums; no protobuf, no gRPC. ``graphmem.convert`` maps them to and
from the wire messages of ``proto/graphmem/v1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

__all__ = [
    "Anchor",
    "AnchorChange",
    "AnchorKind",
    "Brief",
    "Category",
    "ChangeKind",
    "Checkout",
    "CodeVersion",
    "ConfirmRefusal",
    "EdgeConfidence",
    "EdgeKind",
    "EditContext",
    "Event",
    "EventKind",
    "FileOutline",
    "Freshness",
    "HistoryEvent",
    "HistoryKind",
    "Hop",
    "ImportResult",
    "IndexProgress",
    "IndexState",
    "KnowledgeCheck",
    "KnowledgeKind",
    "KnowledgeReference",
    "KnowledgeSource",
    "LanguageResolution",
    "NeighbourEdge",
    "NeighbourNode",
    "Neighbourhood",
    "Observation",
    "ObservationAction",
    "ObservationChange",
    "ObservationStatus",
    "Origin",
    "RecallResult",
    "Recalled",
    "ReferenceState",
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


class Origin(str, Enum):
    """Where an observation comes from: a note saved by a person or an agent (through
    graphmem, or a shared note's file), or a unit read from a knowledge file (CLAUDE.md,
    AGENTS.md, an ADR, the docs); ``ANY``: both."""

    ANY = "any"
    NOTES = "notes"
    KNOWLEDGE = "knowledge"


class Category(str, Enum):
    """What kind of knowledge an observation records."""

    DECISION = "decision"
    CONSTRAINT = "constraint"
    BUG_CAUSE = "bug-cause"
    ARCHITECTURE = "architecture"
    CONVENTION = "convention"
    TOOLING = "tooling"
    EXPLORATION = "exploration"
    OTHER = "other"


class ObservationStatus(str, Enum):
    """Where an observation stands: fresh, stale, suspect, superseded or archived."""

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
    ANNOTATIONS_CHANGED = "annotations_changed"  # only the annotations say something else: suspect
    #: a name a knowledge file uses is gone as a symbol, but a module still serves it with a
    #: warning (``served_by``; ``new_ref``: the successor, when known)
    DEPRECATED = "deprecated"


class AnchorKind(str, Enum):
    """What an observation is anchored to: a symbol or a whole file."""

    SYMBOL = "symbol"
    FILE = "file"


class IndexState(str, Enum):
    """Where a repository's index stands."""

    PENDING = "pending"
    INDEXING = "indexing"
    READY = "ready"
    ERROR = "error"
    WARMING = "warming"


class EdgeConfidence(str, Enum):
    """How a CALLS/IMPORTS/INHERITS edge was resolved. ``NAME_ONLY`` is a guess (the only
    definition with that name) and ``UNKNOWN`` an edge stored by an older daemon: neither is
    certain (``certain``)."""

    IMPORT = "import"
    RECEIVER_TYPE = "receiver_type"
    INHERITANCE = "inheritance"
    SAME_MODULE = "same_module"
    SAME_PACKAGE = "same_package"
    NAME_ONLY = "name_only"
    UNKNOWN = "unknown"

    @property
    def certain(self) -> bool:
        """False for a name-only guess or an edge of unknown origin."""
        return self not in (EdgeConfidence.NAME_ONLY, EdgeConfidence.UNKNOWN)


class EdgeKind(str, Enum):
    """A relation between code nodes, in either direction."""

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
    """What a daemon event reports."""

    OBSERVATION_STALE = "observation_stale"
    OBSERVATION_FRESH = "observation_fresh"
    FILE_INDEXED = "file_indexed"
    INDEX_PROGRESS = "index_progress"
    OBSERVATION_CHANGED = "observation_changed"
    WATCHER_DEGRADED = "watcher_degraded"
    OBSERVATION_SUSPECT = "observation_suspect"
    EVENTS_LOST = "events_lost"  # a gap in the stream (resume point too old, or a slow subscriber)
    INDEX_QUERYABLE = "index_queryable"  # a pass or batch answers every query kind completely
    INDEX_DURABLE = "index_durable"  # ... and all it wrote is in the store


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
    #: how surely the text that made the anchor names this code (knowledge units: a role, a
    #: qualified name or a name an example imports 1.0; a bare literal, a module or a file
    #: mentioned in passing lower); recall weighs the anchor's evidence by it
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class StaleReason:
    """Why an observation went stale: which anchor, what changed and when."""

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
    #: the change is in the working tree, not in a commit yet (``commit`` is then the HEAD it is on)
    uncommitted: bool = False
    #: BODY_CHANGED: how many lines of the symbol the change touched (0: not known)
    lines_changed: int = 0
    #: DEPENDENCY_CHANGED by changed defaults only: the parameters whose default changed that
    #: this direct caller leaves out (() for any other reason, or when its calls are not known)
    caller_omits: tuple[str, ...] = ()
    #: with ``caller_omits``: the caller has ``*``/``**`` arguments, so it may pass them there
    caller_starred: bool = False
    #: DEPENDENCY_CHANGED: how many edges (calls, inheritance, imports) away the dependency is
    #: (1: the anchor calls, inherits from or imports it directly); 0 for any other reason
    dependency_hops: int = 0
    #: DEPENDENCY_CHANGED: the dependency was removed (not re-signed)
    dependency_removed: bool = False
    #: DEPRECATED: the hook that still serves the name, as a reader writes it (``click.__getattr__``)
    served_by: str = ""
    #: SIGNATURE_CHANGED: the body changed too (said "…, body changed")
    body_changed: bool = False


class KnowledgeKind(str, Enum):
    """What kind of file a knowledge unit comes from."""

    AGENT_INSTRUCTIONS = "agent_instructions"  # CLAUDE.md, AGENTS.md, GEMINI.md, copilot, .cursor/rules, .windsurfrules
    DECISION_RECORD = "decision_record"  # docs/adr, doc/decisions ...
    DOCUMENTATION = "documentation"  # docs/**, README, CONTRIBUTING, *.rst, *.mdx
    SHARED_NOTE = "shared_note"  # .graphmem/notes/*.md


class ReferenceState(str, Enum):
    """Whether the code a knowledge unit names still is what the unit was written about."""

    OK = "ok"
    DANGLING = "dangling"  # names a symbol/path that no longer exists (removed or renamed)
    STALE = "stale"  # a call written with arguments no longer binds to the current signature
    SUSPECT = "suspect"  # mentioned without arguments; changed since in a way that breaks old callers
    CHANGED = "changed"  # changed since, but what the text uses still fits (``check --level all``)


@dataclass(frozen=True, slots=True)
class KnowledgeSource:
    """Where a knowledge unit lives: set on an observation that comes from a file (read-only
    through graphmem: edit the file)."""

    path: str  # repository-relative
    start_line: int  # 1-based, inclusive
    end_line: int
    heading_path: tuple[str, ...] = ()
    kind: KnowledgeKind = KnowledgeKind.DOCUMENTATION
    #: a code example (a fenced block, a code-block, a ``>>>`` session): shown as code, never
    #: flattened into a line, and left out of a session's brief
    example: bool = False
    #: a section heading: a label for the units under it, not a passage of its own (a session's
    #: brief leaves it out; ``graphmem check`` grades what it names like any unit's)
    heading: bool = False


@dataclass(frozen=True, slots=True)
class KnowledgeReference:
    """One reference to code inside a knowledge unit, with its exact span in the file
    (1-based lines and columns in characters; ``end_column`` exclusive, as SARIF)."""

    text: str  # as written: `AuthService.login`, :func:`x`, a link target
    path: str  # the knowledge file
    line: int
    column: int
    end_line: int
    end_column: int
    target_ref: str = ""  # what it resolved to (path::Qualified.name or a path)
    state: ReferenceState = ReferenceState.OK
    reason: str = ""
    renamed_to: str = ""
    commit: str = ""
    close_matches: tuple[str, ...] = ()
    observation_id: str = ""
    old_signature: str = ""  # the named code's signature when the unit was written (normally spaced)
    new_signature: str = ""  # and now
    # the call a code example writes with this name, as ``name(_, key=_)`` (what the text binds
    # against the signature; empty: the text itself says it, or it is no call). Kept by the
    # daemon's journal, not sent on the wire.
    call: str = ""
    # the sentence around it says the name is old ("deprecated in favor of", "no longer"): a
    # name gone is then graded historical (kept by the daemon's journal, not on the wire)
    historical: bool = False
    # suspect because the name is gone but a module still serves it with a warning
    # (``ChangeKind.DEPRECATED``): its own level in ``check`` and the language server
    deprecated: bool = False


@dataclass(frozen=True, slots=True)
class KnowledgeCheck:
    """The answer of ``CheckKnowledge``: every reference that is not OK, and what was checked."""

    references: tuple[KnowledgeReference, ...]
    files_checked: int
    units: int
    references_checked: int
    freshness: Freshness | None = None


class HistoryKind(str, Enum):
    """What happened to an observation, as its history records it."""

    CREATED = "created"
    CONFIRMED = "confirmed"
    EDITED = "edited"  # its text, category, tags or confidence changed in place
    SUPERSEDED = "superseded"  # replaced by a newer note (``related``): edited or re-anchored as it
    REANCHORED = "reanchored"  # its anchors moved (followed a rename or a move)
    ARCHIVED = "archived"
    STALE = "stale"  # the code under an anchor changed (``commit``: HEAD then)
    SUSPECT = "suspect"  # code an anchor depends on changed
    FRESH = "fresh"  # the code came back to what it was anchored to, without a confirmation
    DELETED = "deleted"  # kept only in the deletion record (the journal's tombstone)


class ConfirmRefusal(str, Enum):
    """Why the daemon refuses to confirm a note from the checkout it is shown in
    (``Observation.confirm_refusal``; ``confirm_refused`` says it in a sentence)."""

    ARCHIVED = "archived"  # save a new observation instead
    ONLY_HERE = "only_here"  # stale or suspect only in this checkout: confirmed in its home checkout
    CODE_GONE = "code_gone"  # a knowledge file's unit naming code that no longer exists: edit the file
    NO_ANCHORS = "no_anchors"  # nothing to re-take on the code: edit its text
    ANCHORS_GONE = "anchors_gone"  # every anchor's code is gone: a new note must supersede it


@dataclass(frozen=True, slots=True)
class HistoryEvent:
    """One entry of an observation's history: what happened, when, who did it (the client or
    agent that asked, ``graphmem`` for the daemon's own judgement) and at which commit."""

    kind: HistoryKind
    at: float
    by: str = ""
    commit: str = ""
    detail: str = ""
    #: the other observation involved (the note that superseded this one, or that it supersedes)
    related: str = ""


@dataclass(frozen=True, slots=True)
class Observation:
    """A note about the code, anchored to symbols or files, with its status and history."""

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
    #: set when the observation is a unit of a knowledge file (read-only through graphmem)
    knowledge: KnowledgeSource | None = None
    references: tuple[KnowledgeReference, ...] = ()
    #: the commit HEAD was at in the checkout where the note was saved, and its branch ("": unknown)
    origin_commit: str = ""
    origin_branch: str = ""
    #: the anchored code was not committed when the note was saved (its file differed from
    #: ``origin_commit``): no other checkout holds it until the commit that adds it (which then
    #: becomes ``origin_commit``, and this is cleared)
    origin_uncommitted: bool = False
    #: set only on a note shown in another checkout of its repository whose code does not have
    #: its anchors as they were (missing or different) because it was made on a branch this
    #: checkout does not contain: that branch (or its commit; ``, uncommitted`` when its code was
    #: not committed there); such a note is neither stale nor removed there, and ``recall``
    #: leaves it out
    on_branch: str = ""
    #: every change, oldest first (created, confirmed, edited, stale/fresh, archived, ...);
    #: empty on notes saved before histories were kept
    history: tuple[HistoryEvent, ...] = ()
    #: set by the daemon on a note as a checkout shows it when confirming it from that checkout
    #: would be refused: why (the refusal's sentence); "" when confirming it is allowed
    confirm_refused: str = ""
    #: the kind of that refusal (None: confirming it is allowed)
    confirm_refusal: ConfirmRefusal | None = None
    #: set only on a note shown in another checkout of its repository (``repo_id`` is the
    #: checkout showing it): the checkout it was saved in
    saved_in: str = ""

    @property
    def is_stale(self) -> bool:
        """Whether the status is ``STALE``."""
        return self.status is ObservationStatus.STALE


@dataclass(frozen=True, slots=True)
class Symbol:
    """A symbol of the code graph."""

    id: str
    repo_id: str
    path: str
    name: str
    qualname: str
    kind: str  # graphmemd.graph.model.SymbolKind value: "function", "method", "class", ...
    language: str
    start_line: int
    end_line: int
    signature: str

    @property
    def ref(self) -> str:
        """The symbol's ref: ``path::qualname``."""
        return f"{self.path}::{self.qualname}"


@dataclass(frozen=True, slots=True)
class RepoFreshness:
    """Whether one repository's index is current, and how far behind it is."""

    repo_id: str
    current: bool
    state: IndexState
    pending_changes: int = 0
    indexed_commit: str = ""
    head_commit: str = ""
    working_tree_dirty: bool = False
    #: why it is not current, in one line of everyday words: what the daemon is doing to it
    #: ("indexing 1,204 of 9,933 files", "reading knowledge files (120 of 340)") or what waits;
    #: "" when current (or from an older daemon)
    activity: str = ""


@dataclass(frozen=True, slots=True)
class Freshness:
    """Whether the index an answer came from is current, per repository."""

    current: bool
    repositories: tuple[RepoFreshness, ...] = ()


@dataclass(frozen=True, slots=True)
class SymbolDetail:
    """A symbol with its callers, callees, members, container and unresolved calls."""

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
class FileOutline:
    """One file as an editor shows it: its symbols (source order, 1-based line ranges) and the
    observations anchored to the file or its symbols (fresh, stale or suspect). ``content_hash``
    is the blake2b hex of the bytes the line numbers refer to; ``indexed`` is False for a file
    the daemon does not parse (yet)."""

    repo_id: str
    repo_root: str
    path: str
    indexed: bool
    content_hash: str = ""
    language: str = ""
    symbols: tuple[Symbol, ...] = ()
    observations: tuple[Observation, ...] = ()
    freshness: RepoFreshness | None = None


@dataclass(frozen=True, slots=True)
class Hop:
    """One edge of a why-path; ``confidence`` says how a CALLS/IMPORTS/INHERITS edge was
    resolved (None for structural edges)."""

    from_ref: str
    edge: EdgeKind
    to_ref: str
    confidence: EdgeConfidence | None = None


@dataclass(frozen=True, slots=True)
class ScoreComponents:
    """What a recalled observation's score is made of (docs/ranking.md):
    ``score = relevance * confidence * recency * confirmation * status`` where ``relevance``
    fuses ``file_part`` (weighted ``proximity``, ``cochange``, ``focus``, ``centrality`` of the
    best anchor, ``pagerank``, the other anchors' ``breadth`` and the ``reach`` of the note's code
    outside the opened files) and ``text_part`` (weighted
    ``text``, ``text_proximity``, ``text_cochange`` and ``text_breadth``), each divided by its
    best value in the query. ``cochange_together`` of ``cochange_total`` commits is the
    evidence behind ``cochange``. ``on_query``: the note is anchored to a symbol the request
    named (or the one under its cursor); such notes come before the others, whatever the score."""

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
    text_proximity: float = 0.0
    text_cochange: float = 0.0
    breadth: float = 0.0
    text_breadth: float = 0.0
    file_part: float = 0.0
    text_part: float = 0.0
    reach: float = 0.0
    on_query: bool = False


@dataclass(frozen=True, slots=True)
class Recalled:
    """One retrieved observation: its score, graph distance, why and path."""

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
    """What retrieval found, with the freshness of the index it used."""

    results: tuple[Recalled, ...]
    freshness: Freshness
    seeds: int = 0
    nodes_reached: int = 0
    total_tokens: int = 0
    truncated: bool = False
    warnings: tuple[str, ...] = ()
    excluded_stale: int = 0  # stale/suspect observations ``fresh_only`` left out


@dataclass(frozen=True, slots=True)
class Brief:
    """A session brief: the relevant observations rendered as text; ``left_out``: how many
    the budget left out."""

    text: str
    observation_ids: tuple[str, ...]
    freshness: Freshness
    tokens: int = 0
    left_out: int = 0


@dataclass(frozen=True, slots=True)
class EditContext:
    """What an agent should know after editing files: ``text`` (empty when there is nothing to
    say): the notes the edit just made stale or suspect (``callout_ids``);
    ``indexed``: the index had taken in the files' current content."""

    text: str
    observation_ids: tuple[str, ...]
    callout_ids: tuple[str, ...]
    freshness: Freshness
    tokens: int = 0
    left_out: int = 0
    indexed: bool = True
    #: ``ID@STATE`` of each note shown: a session passes them back as ``already_shown`` so that a
    #: note is not shown again until its state changes
    shown_states: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LanguageResolution:
    """Call-site resolution figures of one language of a repository: ``resolved_by`` maps
    each confidence to the number of call sites resolved that way."""

    language: str
    call_sites: int = 0
    unresolved: int = 0
    resolved_by: tuple[tuple[EdgeConfidence, int], ...] = ()

    @property
    def resolved(self) -> int:
        """The call sites resolved, over every confidence."""
        return sum(n for _, n in self.resolved_by)


@dataclass(frozen=True, slots=True)
class Repository:
    """A registered repository with its counts and index state."""

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
    resolution: tuple[LanguageResolution, ...] = ()
    #: the repository this checkout belongs to (worktrees of one git repository, and clones
    #: linked with ``graphmem repo link``, share one; "" from an older daemon)
    repository_id: str = ""
    branch: str = ""
    #: every checkout of that repository, this one included (gone ones where notes were saved
    #: marked ``missing``; a gone one where none was is left out)
    checkouts: tuple[Checkout, ...] = ()
    #: registered checkouts of other repositories that look like clones of this one (same root
    #: commit and origin): joined only on ``graphmem repo link``
    possible_clones: tuple[str, ...] = ()
    #: what the daemon is doing to it now, in everyday words ("" when idle): ``RepoFreshness.activity``
    activity: str = ""


@dataclass(frozen=True, slots=True)
class Checkout:
    """One working tree of a repository: a registered root (or one whose directory is gone)."""

    id: str
    root: str
    branch: str = ""
    head_commit: str = ""
    #: its directory is gone (``git worktree remove``, deleted): its notes are kept
    missing: bool = False
    #: how many notes were saved in it (kept when its directory is gone)
    notes: int = 0


@dataclass(frozen=True, slots=True)
class WatcherStatus:
    """The file watcher's mode and health."""

    mode: str
    healthy: bool
    degraded_reason: str = ""
    restarts: int = 0


@dataclass(frozen=True, slots=True)
class Status:
    """The daemon's status: what ``graphmem status`` shows."""

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
        """Serving and not degraded."""
        return self.serving and not self.degraded_reasons


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Progress of indexing one repository."""

    repo_id: str
    state: IndexState
    files_done: int
    files_total: int
    symbols: int = 0
    skipped: int = 0
    elapsed_seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in the daemon, with its payload."""

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
    """The outcome of an import: observations imported, duplicates skipped, errors."""

    imported: int
    skipped_duplicates: int
    errors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CodeVersion:
    """One version of a symbol's code: its lines and where they were read from (``commit``
    empty: the working tree). ``exact``: the version's fingerprints are the ones recorded at
    anchoring; otherwise it is the nearest older version found. ``present`` False: there is no
    such version (the symbol is gone now, or was not found in the history searched)."""

    present: bool
    ref: str = ""
    path: str = ""
    start_line: int = 0
    end_line: int = 0
    text: str = ""
    signature: str = ""
    commit: str = ""
    exact: bool = False


@dataclass(frozen=True, slots=True)
class AnchorChange:
    """What changed under one anchor of a note: the code before and after; for a suspect
    note, the dependency's code before and after and, when the dependency is one edge away,
    that edge (``path``: anchor -via-> dependency; empty for a dependency 2+ hops away, whose
    distance is the reason's ``dependency_hops``). ``note`` says why a version is missing,
    when one is."""

    anchor_ref: str
    change: ChangeKind
    before: CodeVersion
    after: CodeVersion
    detail: str = ""
    commit: str = ""
    dependency_ref: str = ""
    path: tuple[Hop, ...] = ()
    note: str = ""


@dataclass(frozen=True, slots=True)
class ObservationChange:
    """The code changes under a stale or suspect note, most serious first (empty for a note
    whose code did not change)."""

    observation_id: str
    changes: tuple[AnchorChange, ...] = ()


@dataclass(frozen=True, slots=True)
class NeighbourNode:
    """A node of the code around a note: a symbol, or a file (``kind`` "file"), with its
    distance from the centre and the notes anchored to it."""

    id: str
    ref: str
    kind: str
    path: str
    start_line: int = 0
    end_line: int = 0
    signature: str = ""
    distance: int = 0
    observations: tuple[Observation, ...] = ()


@dataclass(frozen=True, slots=True)
class NeighbourEdge:
    """An edge between two nodes of a neighbourhood, in its own direction: CALLS (caller to
    callee), IMPORTS (importer to imported), INHERITS (subclass to base), CONTAINS (container
    to member)."""

    source: str
    target: str
    kind: EdgeKind
    confidence: EdgeConfidence | None = None


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """The code within some hops of a centre, nearest first; ``truncated``: the node limit
    cut the walk."""

    nodes: tuple[NeighbourNode, ...]
    edges: tuple[NeighbourEdge, ...] = ()
    truncated: bool = False
