import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SymbolKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SYMBOL_KIND_UNSPECIFIED: _ClassVar[SymbolKind]
    SYMBOL_KIND_MODULE: _ClassVar[SymbolKind]
    SYMBOL_KIND_CLASS: _ClassVar[SymbolKind]
    SYMBOL_KIND_STRUCT: _ClassVar[SymbolKind]
    SYMBOL_KIND_INTERFACE: _ClassVar[SymbolKind]
    SYMBOL_KIND_TRAIT: _ClassVar[SymbolKind]
    SYMBOL_KIND_ENUM: _ClassVar[SymbolKind]
    SYMBOL_KIND_FUNCTION: _ClassVar[SymbolKind]
    SYMBOL_KIND_METHOD: _ClassVar[SymbolKind]

class Category(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CATEGORY_UNSPECIFIED: _ClassVar[Category]
    CATEGORY_DECISION: _ClassVar[Category]
    CATEGORY_CONSTRAINT: _ClassVar[Category]
    CATEGORY_BUG_CAUSE: _ClassVar[Category]
    CATEGORY_ARCHITECTURE: _ClassVar[Category]
    CATEGORY_CONVENTION: _ClassVar[Category]
    CATEGORY_TOOLING: _ClassVar[Category]
    CATEGORY_EXPLORATION: _ClassVar[Category]
    CATEGORY_OTHER: _ClassVar[Category]

class ObservationStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_STATUS_UNSPECIFIED: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_FRESH: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_STALE: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_SUPERSEDED: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_ARCHIVED: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_SUSPECT: _ClassVar[ObservationStatus]

class ChangeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHANGE_KIND_UNSPECIFIED: _ClassVar[ChangeKind]
    CHANGE_KIND_ADDED: _ClassVar[ChangeKind]
    CHANGE_KIND_REMOVED: _ClassVar[ChangeKind]
    CHANGE_KIND_SIGNATURE_CHANGED: _ClassVar[ChangeKind]
    CHANGE_KIND_BODY_CHANGED: _ClassVar[ChangeKind]
    CHANGE_KIND_RENAMED: _ClassVar[ChangeKind]
    CHANGE_KIND_DEPENDENCY_CHANGED: _ClassVar[ChangeKind]
    CHANGE_KIND_ANNOTATIONS_CHANGED: _ClassVar[ChangeKind]
    CHANGE_KIND_DEPRECATED: _ClassVar[ChangeKind]

class AnchorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ANCHOR_KIND_UNSPECIFIED: _ClassVar[AnchorKind]
    ANCHOR_KIND_SYMBOL: _ClassVar[AnchorKind]
    ANCHOR_KIND_FILE: _ClassVar[AnchorKind]

class IndexState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INDEX_STATE_UNSPECIFIED: _ClassVar[IndexState]
    INDEX_STATE_PENDING: _ClassVar[IndexState]
    INDEX_STATE_INDEXING: _ClassVar[IndexState]
    INDEX_STATE_READY: _ClassVar[IndexState]
    INDEX_STATE_ERROR: _ClassVar[IndexState]
    INDEX_STATE_WARMING: _ClassVar[IndexState]

class EdgeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EDGE_KIND_UNSPECIFIED: _ClassVar[EdgeKind]
    EDGE_KIND_CALLS: _ClassVar[EdgeKind]
    EDGE_KIND_CALLED_BY: _ClassVar[EdgeKind]
    EDGE_KIND_IMPORTS: _ClassVar[EdgeKind]
    EDGE_KIND_IMPORTED_BY: _ClassVar[EdgeKind]
    EDGE_KIND_CONTAINS: _ClassVar[EdgeKind]
    EDGE_KIND_CONTAINED_IN: _ClassVar[EdgeKind]
    EDGE_KIND_INHERITS: _ClassVar[EdgeKind]
    EDGE_KIND_INHERITED_BY: _ClassVar[EdgeKind]
    EDGE_KIND_DEFINES: _ClassVar[EdgeKind]
    EDGE_KIND_DEFINED_IN: _ClassVar[EdgeKind]

class EdgeConfidence(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EDGE_CONFIDENCE_UNSPECIFIED: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_IMPORT: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_RECEIVER_TYPE: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_INHERITANCE: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_SAME_MODULE: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_SAME_PACKAGE: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_NAME_ONLY: _ClassVar[EdgeConfidence]
    EDGE_CONFIDENCE_UNKNOWN: _ClassVar[EdgeConfidence]

class ConfirmRefusal(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONFIRM_REFUSAL_UNSPECIFIED: _ClassVar[ConfirmRefusal]
    CONFIRM_REFUSAL_ARCHIVED: _ClassVar[ConfirmRefusal]
    CONFIRM_REFUSAL_ONLY_HERE: _ClassVar[ConfirmRefusal]
    CONFIRM_REFUSAL_CODE_GONE: _ClassVar[ConfirmRefusal]
    CONFIRM_REFUSAL_NO_ANCHORS: _ClassVar[ConfirmRefusal]
    CONFIRM_REFUSAL_ANCHORS_GONE: _ClassVar[ConfirmRefusal]

class HistoryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HISTORY_KIND_UNSPECIFIED: _ClassVar[HistoryKind]
    HISTORY_KIND_CREATED: _ClassVar[HistoryKind]
    HISTORY_KIND_CONFIRMED: _ClassVar[HistoryKind]
    HISTORY_KIND_EDITED: _ClassVar[HistoryKind]
    HISTORY_KIND_SUPERSEDED: _ClassVar[HistoryKind]
    HISTORY_KIND_REANCHORED: _ClassVar[HistoryKind]
    HISTORY_KIND_ARCHIVED: _ClassVar[HistoryKind]
    HISTORY_KIND_STALE: _ClassVar[HistoryKind]
    HISTORY_KIND_SUSPECT: _ClassVar[HistoryKind]
    HISTORY_KIND_FRESH: _ClassVar[HistoryKind]
    HISTORY_KIND_DELETED: _ClassVar[HistoryKind]

class KnowledgeKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KNOWLEDGE_KIND_UNSPECIFIED: _ClassVar[KnowledgeKind]
    KNOWLEDGE_KIND_AGENT_INSTRUCTIONS: _ClassVar[KnowledgeKind]
    KNOWLEDGE_KIND_DECISION_RECORD: _ClassVar[KnowledgeKind]
    KNOWLEDGE_KIND_DOCUMENTATION: _ClassVar[KnowledgeKind]
    KNOWLEDGE_KIND_SHARED_NOTE: _ClassVar[KnowledgeKind]

class ReferenceState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REFERENCE_STATE_UNSPECIFIED: _ClassVar[ReferenceState]
    REFERENCE_STATE_OK: _ClassVar[ReferenceState]
    REFERENCE_STATE_DANGLING: _ClassVar[ReferenceState]
    REFERENCE_STATE_STALE: _ClassVar[ReferenceState]
    REFERENCE_STATE_SUSPECT: _ClassVar[ReferenceState]
    REFERENCE_STATE_CHANGED: _ClassVar[ReferenceState]
SYMBOL_KIND_UNSPECIFIED: SymbolKind
SYMBOL_KIND_MODULE: SymbolKind
SYMBOL_KIND_CLASS: SymbolKind
SYMBOL_KIND_STRUCT: SymbolKind
SYMBOL_KIND_INTERFACE: SymbolKind
SYMBOL_KIND_TRAIT: SymbolKind
SYMBOL_KIND_ENUM: SymbolKind
SYMBOL_KIND_FUNCTION: SymbolKind
SYMBOL_KIND_METHOD: SymbolKind
CATEGORY_UNSPECIFIED: Category
CATEGORY_DECISION: Category
CATEGORY_CONSTRAINT: Category
CATEGORY_BUG_CAUSE: Category
CATEGORY_ARCHITECTURE: Category
CATEGORY_CONVENTION: Category
CATEGORY_TOOLING: Category
CATEGORY_EXPLORATION: Category
CATEGORY_OTHER: Category
OBSERVATION_STATUS_UNSPECIFIED: ObservationStatus
OBSERVATION_STATUS_FRESH: ObservationStatus
OBSERVATION_STATUS_STALE: ObservationStatus
OBSERVATION_STATUS_SUPERSEDED: ObservationStatus
OBSERVATION_STATUS_ARCHIVED: ObservationStatus
OBSERVATION_STATUS_SUSPECT: ObservationStatus
CHANGE_KIND_UNSPECIFIED: ChangeKind
CHANGE_KIND_ADDED: ChangeKind
CHANGE_KIND_REMOVED: ChangeKind
CHANGE_KIND_SIGNATURE_CHANGED: ChangeKind
CHANGE_KIND_BODY_CHANGED: ChangeKind
CHANGE_KIND_RENAMED: ChangeKind
CHANGE_KIND_DEPENDENCY_CHANGED: ChangeKind
CHANGE_KIND_ANNOTATIONS_CHANGED: ChangeKind
CHANGE_KIND_DEPRECATED: ChangeKind
ANCHOR_KIND_UNSPECIFIED: AnchorKind
ANCHOR_KIND_SYMBOL: AnchorKind
ANCHOR_KIND_FILE: AnchorKind
INDEX_STATE_UNSPECIFIED: IndexState
INDEX_STATE_PENDING: IndexState
INDEX_STATE_INDEXING: IndexState
INDEX_STATE_READY: IndexState
INDEX_STATE_ERROR: IndexState
INDEX_STATE_WARMING: IndexState
EDGE_KIND_UNSPECIFIED: EdgeKind
EDGE_KIND_CALLS: EdgeKind
EDGE_KIND_CALLED_BY: EdgeKind
EDGE_KIND_IMPORTS: EdgeKind
EDGE_KIND_IMPORTED_BY: EdgeKind
EDGE_KIND_CONTAINS: EdgeKind
EDGE_KIND_CONTAINED_IN: EdgeKind
EDGE_KIND_INHERITS: EdgeKind
EDGE_KIND_INHERITED_BY: EdgeKind
EDGE_KIND_DEFINES: EdgeKind
EDGE_KIND_DEFINED_IN: EdgeKind
EDGE_CONFIDENCE_UNSPECIFIED: EdgeConfidence
EDGE_CONFIDENCE_IMPORT: EdgeConfidence
EDGE_CONFIDENCE_RECEIVER_TYPE: EdgeConfidence
EDGE_CONFIDENCE_INHERITANCE: EdgeConfidence
EDGE_CONFIDENCE_SAME_MODULE: EdgeConfidence
EDGE_CONFIDENCE_SAME_PACKAGE: EdgeConfidence
EDGE_CONFIDENCE_NAME_ONLY: EdgeConfidence
EDGE_CONFIDENCE_UNKNOWN: EdgeConfidence
CONFIRM_REFUSAL_UNSPECIFIED: ConfirmRefusal
CONFIRM_REFUSAL_ARCHIVED: ConfirmRefusal
CONFIRM_REFUSAL_ONLY_HERE: ConfirmRefusal
CONFIRM_REFUSAL_CODE_GONE: ConfirmRefusal
CONFIRM_REFUSAL_NO_ANCHORS: ConfirmRefusal
CONFIRM_REFUSAL_ANCHORS_GONE: ConfirmRefusal
HISTORY_KIND_UNSPECIFIED: HistoryKind
HISTORY_KIND_CREATED: HistoryKind
HISTORY_KIND_CONFIRMED: HistoryKind
HISTORY_KIND_EDITED: HistoryKind
HISTORY_KIND_SUPERSEDED: HistoryKind
HISTORY_KIND_REANCHORED: HistoryKind
HISTORY_KIND_ARCHIVED: HistoryKind
HISTORY_KIND_STALE: HistoryKind
HISTORY_KIND_SUSPECT: HistoryKind
HISTORY_KIND_FRESH: HistoryKind
HISTORY_KIND_DELETED: HistoryKind
KNOWLEDGE_KIND_UNSPECIFIED: KnowledgeKind
KNOWLEDGE_KIND_AGENT_INSTRUCTIONS: KnowledgeKind
KNOWLEDGE_KIND_DECISION_RECORD: KnowledgeKind
KNOWLEDGE_KIND_DOCUMENTATION: KnowledgeKind
KNOWLEDGE_KIND_SHARED_NOTE: KnowledgeKind
REFERENCE_STATE_UNSPECIFIED: ReferenceState
REFERENCE_STATE_OK: ReferenceState
REFERENCE_STATE_DANGLING: ReferenceState
REFERENCE_STATE_STALE: ReferenceState
REFERENCE_STATE_SUSPECT: ReferenceState
REFERENCE_STATE_CHANGED: ReferenceState

class LanguageResolution(_message.Message):
    __slots__ = ("language", "call_sites", "unresolved", "resolved_by")
    class ResolvedByEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    CALL_SITES_FIELD_NUMBER: _ClassVar[int]
    UNRESOLVED_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    language: str
    call_sites: int
    unresolved: int
    resolved_by: _containers.ScalarMap[str, int]
    def __init__(self, language: _Optional[str] = ..., call_sites: _Optional[int] = ..., unresolved: _Optional[int] = ..., resolved_by: _Optional[_Mapping[str, int]] = ...) -> None: ...

class Symbol(_message.Message):
    __slots__ = ("id", "repo_id", "path", "name", "qualname", "kind", "language", "start_line", "end_line", "signature", "ref")
    ID_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUALNAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    id: str
    repo_id: str
    path: str
    name: str
    qualname: str
    kind: SymbolKind
    language: str
    start_line: int
    end_line: int
    signature: str
    ref: str
    def __init__(self, id: _Optional[str] = ..., repo_id: _Optional[str] = ..., path: _Optional[str] = ..., name: _Optional[str] = ..., qualname: _Optional[str] = ..., kind: _Optional[_Union[SymbolKind, str]] = ..., language: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., signature: _Optional[str] = ..., ref: _Optional[str] = ...) -> None: ...

class Anchor(_message.Message):
    __slots__ = ("kind", "ref", "symbol_id", "path", "signature", "sig_hash", "body_hash", "repo_id", "confidence")
    KIND_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_ID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    SIG_HASH_FIELD_NUMBER: _ClassVar[int]
    BODY_HASH_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    kind: AnchorKind
    ref: str
    symbol_id: str
    path: str
    signature: str
    sig_hash: str
    body_hash: str
    repo_id: str
    confidence: float
    def __init__(self, kind: _Optional[_Union[AnchorKind, str]] = ..., ref: _Optional[str] = ..., symbol_id: _Optional[str] = ..., path: _Optional[str] = ..., signature: _Optional[str] = ..., sig_hash: _Optional[str] = ..., body_hash: _Optional[str] = ..., repo_id: _Optional[str] = ..., confidence: _Optional[float] = ...) -> None: ...

class StaleReason(_message.Message):
    __slots__ = ("anchor_ref", "change", "old_signature", "new_signature", "new_ref", "detected_at", "commit", "detail", "dependency_ref", "dependency_id", "dependency_sig_hash", "via", "uncommitted", "lines_changed", "caller_omits", "caller_starred", "dependency_hops", "dependency_removed", "served_by", "body_changed")
    ANCHOR_REF_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FIELD_NUMBER: _ClassVar[int]
    OLD_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    NEW_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    NEW_REF_FIELD_NUMBER: _ClassVar[int]
    DETECTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_REF_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_ID_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_SIG_HASH_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    UNCOMMITTED_FIELD_NUMBER: _ClassVar[int]
    LINES_CHANGED_FIELD_NUMBER: _ClassVar[int]
    CALLER_OMITS_FIELD_NUMBER: _ClassVar[int]
    CALLER_STARRED_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_HOPS_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCY_REMOVED_FIELD_NUMBER: _ClassVar[int]
    SERVED_BY_FIELD_NUMBER: _ClassVar[int]
    BODY_CHANGED_FIELD_NUMBER: _ClassVar[int]
    anchor_ref: str
    change: ChangeKind
    old_signature: str
    new_signature: str
    new_ref: str
    detected_at: _timestamp_pb2.Timestamp
    commit: str
    detail: str
    dependency_ref: str
    dependency_id: str
    dependency_sig_hash: str
    via: str
    uncommitted: bool
    lines_changed: int
    caller_omits: _containers.RepeatedScalarFieldContainer[str]
    caller_starred: bool
    dependency_hops: int
    dependency_removed: bool
    served_by: str
    body_changed: bool
    def __init__(self, anchor_ref: _Optional[str] = ..., change: _Optional[_Union[ChangeKind, str]] = ..., old_signature: _Optional[str] = ..., new_signature: _Optional[str] = ..., new_ref: _Optional[str] = ..., detected_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., commit: _Optional[str] = ..., detail: _Optional[str] = ..., dependency_ref: _Optional[str] = ..., dependency_id: _Optional[str] = ..., dependency_sig_hash: _Optional[str] = ..., via: _Optional[str] = ..., uncommitted: _Optional[bool] = ..., lines_changed: _Optional[int] = ..., caller_omits: _Optional[_Iterable[str]] = ..., caller_starred: _Optional[bool] = ..., dependency_hops: _Optional[int] = ..., dependency_removed: _Optional[bool] = ..., served_by: _Optional[str] = ..., body_changed: _Optional[bool] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("id", "repo_id", "text", "category", "tags", "source", "confidence", "created_at", "updated_at", "status", "anchors", "stale_reasons", "supersedes", "superseded_by", "contradicts", "confirmed_by", "confirmed_at", "needs_review", "knowledge", "references", "origin_commit", "origin_branch", "origin_uncommitted", "on_branch", "history", "confirm_refused", "confirm_refusal", "saved_in")
    ID_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ANCHORS_FIELD_NUMBER: _ClassVar[int]
    STALE_REASONS_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_BY_FIELD_NUMBER: _ClassVar[int]
    CONTRADICTS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMED_BY_FIELD_NUMBER: _ClassVar[int]
    CONFIRMED_AT_FIELD_NUMBER: _ClassVar[int]
    NEEDS_REVIEW_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_COMMIT_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_BRANCH_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_UNCOMMITTED_FIELD_NUMBER: _ClassVar[int]
    ON_BRANCH_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_REFUSED_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_REFUSAL_FIELD_NUMBER: _ClassVar[int]
    SAVED_IN_FIELD_NUMBER: _ClassVar[int]
    id: str
    repo_id: str
    text: str
    category: Category
    tags: _containers.RepeatedScalarFieldContainer[str]
    source: str
    confidence: float
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    status: ObservationStatus
    anchors: _containers.RepeatedCompositeFieldContainer[Anchor]
    stale_reasons: _containers.RepeatedCompositeFieldContainer[StaleReason]
    supersedes: _containers.RepeatedScalarFieldContainer[str]
    superseded_by: str
    contradicts: _containers.RepeatedScalarFieldContainer[str]
    confirmed_by: str
    confirmed_at: _timestamp_pb2.Timestamp
    needs_review: bool
    knowledge: KnowledgeSource
    references: _containers.RepeatedCompositeFieldContainer[KnowledgeReference]
    origin_commit: str
    origin_branch: str
    origin_uncommitted: bool
    on_branch: str
    history: _containers.RepeatedCompositeFieldContainer[HistoryEvent]
    confirm_refused: str
    confirm_refusal: ConfirmRefusal
    saved_in: str
    def __init__(self, id: _Optional[str] = ..., repo_id: _Optional[str] = ..., text: _Optional[str] = ..., category: _Optional[_Union[Category, str]] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., confidence: _Optional[float] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[ObservationStatus, str]] = ..., anchors: _Optional[_Iterable[_Union[Anchor, _Mapping]]] = ..., stale_reasons: _Optional[_Iterable[_Union[StaleReason, _Mapping]]] = ..., supersedes: _Optional[_Iterable[str]] = ..., superseded_by: _Optional[str] = ..., contradicts: _Optional[_Iterable[str]] = ..., confirmed_by: _Optional[str] = ..., confirmed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., needs_review: _Optional[bool] = ..., knowledge: _Optional[_Union[KnowledgeSource, _Mapping]] = ..., references: _Optional[_Iterable[_Union[KnowledgeReference, _Mapping]]] = ..., origin_commit: _Optional[str] = ..., origin_branch: _Optional[str] = ..., origin_uncommitted: _Optional[bool] = ..., on_branch: _Optional[str] = ..., history: _Optional[_Iterable[_Union[HistoryEvent, _Mapping]]] = ..., confirm_refused: _Optional[str] = ..., confirm_refusal: _Optional[_Union[ConfirmRefusal, str]] = ..., saved_in: _Optional[str] = ...) -> None: ...

class HistoryEvent(_message.Message):
    __slots__ = ("kind", "at", "by", "commit", "detail", "related")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    RELATED_FIELD_NUMBER: _ClassVar[int]
    kind: HistoryKind
    at: _timestamp_pb2.Timestamp
    by: str
    commit: str
    detail: str
    related: str
    def __init__(self, kind: _Optional[_Union[HistoryKind, str]] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., by: _Optional[str] = ..., commit: _Optional[str] = ..., detail: _Optional[str] = ..., related: _Optional[str] = ...) -> None: ...

class KnowledgeSource(_message.Message):
    __slots__ = ("path", "start_line", "end_line", "heading_path", "kind", "example", "heading")
    PATH_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    HEADING_PATH_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EXAMPLE_FIELD_NUMBER: _ClassVar[int]
    HEADING_FIELD_NUMBER: _ClassVar[int]
    path: str
    start_line: int
    end_line: int
    heading_path: _containers.RepeatedScalarFieldContainer[str]
    kind: KnowledgeKind
    example: bool
    heading: bool
    def __init__(self, path: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., heading_path: _Optional[_Iterable[str]] = ..., kind: _Optional[_Union[KnowledgeKind, str]] = ..., example: _Optional[bool] = ..., heading: _Optional[bool] = ...) -> None: ...

class KnowledgeReference(_message.Message):
    __slots__ = ("text", "path", "line", "column", "end_line", "end_column", "target_ref", "state", "reason", "renamed_to", "commit", "close_matches", "observation_id", "old_signature", "new_signature", "deprecated")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    END_COLUMN_FIELD_NUMBER: _ClassVar[int]
    TARGET_REF_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RENAMED_TO_FIELD_NUMBER: _ClassVar[int]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    CLOSE_MATCHES_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    OLD_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    NEW_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    DEPRECATED_FIELD_NUMBER: _ClassVar[int]
    text: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    target_ref: str
    state: ReferenceState
    reason: str
    renamed_to: str
    commit: str
    close_matches: _containers.RepeatedScalarFieldContainer[str]
    observation_id: str
    old_signature: str
    new_signature: str
    deprecated: bool
    def __init__(self, text: _Optional[str] = ..., path: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., end_line: _Optional[int] = ..., end_column: _Optional[int] = ..., target_ref: _Optional[str] = ..., state: _Optional[_Union[ReferenceState, str]] = ..., reason: _Optional[str] = ..., renamed_to: _Optional[str] = ..., commit: _Optional[str] = ..., close_matches: _Optional[_Iterable[str]] = ..., observation_id: _Optional[str] = ..., old_signature: _Optional[str] = ..., new_signature: _Optional[str] = ..., deprecated: _Optional[bool] = ...) -> None: ...

class RepoFreshness(_message.Message):
    __slots__ = ("repo_id", "current", "pending_changes", "indexed_commit", "head_commit", "working_tree_dirty", "state", "activity")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    PENDING_CHANGES_FIELD_NUMBER: _ClassVar[int]
    INDEXED_COMMIT_FIELD_NUMBER: _ClassVar[int]
    HEAD_COMMIT_FIELD_NUMBER: _ClassVar[int]
    WORKING_TREE_DIRTY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    current: bool
    pending_changes: int
    indexed_commit: str
    head_commit: str
    working_tree_dirty: bool
    state: IndexState
    activity: str
    def __init__(self, repo_id: _Optional[str] = ..., current: _Optional[bool] = ..., pending_changes: _Optional[int] = ..., indexed_commit: _Optional[str] = ..., head_commit: _Optional[str] = ..., working_tree_dirty: _Optional[bool] = ..., state: _Optional[_Union[IndexState, str]] = ..., activity: _Optional[str] = ...) -> None: ...

class Freshness(_message.Message):
    __slots__ = ("current", "repositories")
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
    current: bool
    repositories: _containers.RepeatedCompositeFieldContainer[RepoFreshness]
    def __init__(self, current: _Optional[bool] = ..., repositories: _Optional[_Iterable[_Union[RepoFreshness, _Mapping]]] = ...) -> None: ...

class Repository(_message.Message):
    __slots__ = ("id", "root", "state", "files", "symbols", "observations", "stale_observations", "files_done", "files_total", "skipped_files", "head_commit", "last_indexed_at", "error", "pending_changes", "edges", "files_parsed", "suspect_observations", "resolution", "repository_id", "branch", "checkouts", "possible_clones", "activity")
    ID_FIELD_NUMBER: _ClassVar[int]
    ROOT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    STALE_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    FILES_DONE_FIELD_NUMBER: _ClassVar[int]
    FILES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FILES_FIELD_NUMBER: _ClassVar[int]
    HEAD_COMMIT_FIELD_NUMBER: _ClassVar[int]
    LAST_INDEXED_AT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PENDING_CHANGES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    FILES_PARSED_FIELD_NUMBER: _ClassVar[int]
    SUSPECT_OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_ID_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    CHECKOUTS_FIELD_NUMBER: _ClassVar[int]
    POSSIBLE_CLONES_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    root: str
    state: IndexState
    files: int
    symbols: int
    observations: int
    stale_observations: int
    files_done: int
    files_total: int
    skipped_files: int
    head_commit: str
    last_indexed_at: _timestamp_pb2.Timestamp
    error: str
    pending_changes: int
    edges: int
    files_parsed: int
    suspect_observations: int
    resolution: _containers.RepeatedCompositeFieldContainer[LanguageResolution]
    repository_id: str
    branch: str
    checkouts: _containers.RepeatedCompositeFieldContainer[Checkout]
    possible_clones: _containers.RepeatedScalarFieldContainer[str]
    activity: str
    def __init__(self, id: _Optional[str] = ..., root: _Optional[str] = ..., state: _Optional[_Union[IndexState, str]] = ..., files: _Optional[int] = ..., symbols: _Optional[int] = ..., observations: _Optional[int] = ..., stale_observations: _Optional[int] = ..., files_done: _Optional[int] = ..., files_total: _Optional[int] = ..., skipped_files: _Optional[int] = ..., head_commit: _Optional[str] = ..., last_indexed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[str] = ..., pending_changes: _Optional[int] = ..., edges: _Optional[int] = ..., files_parsed: _Optional[int] = ..., suspect_observations: _Optional[int] = ..., resolution: _Optional[_Iterable[_Union[LanguageResolution, _Mapping]]] = ..., repository_id: _Optional[str] = ..., branch: _Optional[str] = ..., checkouts: _Optional[_Iterable[_Union[Checkout, _Mapping]]] = ..., possible_clones: _Optional[_Iterable[str]] = ..., activity: _Optional[str] = ...) -> None: ...

class Checkout(_message.Message):
    __slots__ = ("id", "root", "branch", "head_commit", "missing", "notes")
    ID_FIELD_NUMBER: _ClassVar[int]
    ROOT_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    HEAD_COMMIT_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    id: str
    root: str
    branch: str
    head_commit: str
    missing: bool
    notes: int
    def __init__(self, id: _Optional[str] = ..., root: _Optional[str] = ..., branch: _Optional[str] = ..., head_commit: _Optional[str] = ..., missing: _Optional[bool] = ..., notes: _Optional[int] = ...) -> None: ...

class CloseMatches(_message.Message):
    __slots__ = ("reference", "candidates")
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    reference: str
    candidates: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, reference: _Optional[str] = ..., candidates: _Optional[_Iterable[str]] = ...) -> None: ...
