"""The one mapping between the wire messages of ``graphmem.v1`` and ``graphmem.types``.

``*_to_proto`` functions are used by the daemon's service layer to answer, ``*_from_proto``
functions by the client to decode; both directions live here so they cannot drift apart.

Conventions:

* Enums map **by name**: ``Category.BUG_CAUSE`` <-> ``CATEGORY_BUG_CAUSE``. The enum
  helpers (``category_to_proto`` ...) turn ``None`` into ``*_UNSPECIFIED`` and back; a
  number this client does not know (a newer daemon) also decodes to ``None``. Where a
  domain field is not optional, the message converters fall back to a documented default
  (see ``_DEFAULT_*`` below).
* ``Symbol.kind`` is a plain string in the domain (``"function"``), an enum on the wire
  (``SYMBOL_KIND_FUNCTION``); unspecified decodes to ``""``.
* Timestamps are float seconds since the epoch. An optional timestamp (``None``) is an
  unset message field; a required one that is unset decodes to ``0.0``.
* ``float`` confidences travel as 32-bit floats; decoding rounds them to 6 decimals so
  ``0.8`` comes back as ``0.8``.

This module imports only the generated ``_pb2`` modules (no grpc), so the daemon and the
client can both use it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from enum import Enum
from typing import Generic, TypeVar, cast

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper
from google.protobuf.timestamp_pb2 import Timestamp

from graphmem.errors import InvalidArgument
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
    ObservationAction,
    ObservationChange,
    ObservationStatus,
    Origin,
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

__all__ = [
    "FILE_DETAIL_KEYS",
    "ObservationMemo",
    "anchor_change_from_proto",
    "anchor_change_to_proto",
    "anchor_from_proto",
    "anchor_kind_from_proto",
    "anchor_kind_to_proto",
    "anchor_to_proto",
    "brief_from_proto",
    "brief_to_proto",
    "category_from_proto",
    "category_to_proto",
    "change_kind_from_proto",
    "change_kind_to_proto",
    "code_version_from_proto",
    "code_version_to_proto",
    "components_from_proto",
    "components_to_proto",
    "edge_confidence_from_proto",
    "edge_confidence_to_proto",
    "edge_kind_from_proto",
    "edge_kind_to_proto",
    "edit_context_from_proto",
    "edit_context_to_proto",
    "event_from_proto",
    "event_kind_from_proto",
    "event_kind_to_proto",
    "event_to_proto",
    "file_outline_from_proto",
    "file_outline_to_proto",
    "freshness_from_proto",
    "freshness_to_proto",
    "hop_from_proto",
    "hop_to_proto",
    "import_result_from_proto",
    "import_result_to_proto",
    "index_progress_from_proto",
    "index_progress_to_proto",
    "index_state_from_proto",
    "index_state_to_proto",
    "knowledge_check_from_proto",
    "knowledge_check_to_proto",
    "knowledge_kind_from_proto",
    "knowledge_kind_to_proto",
    "knowledge_reference_from_proto",
    "knowledge_reference_to_proto",
    "knowledge_source_from_proto",
    "knowledge_source_to_proto",
    "language_resolution_from_proto",
    "language_resolution_to_proto",
    "neighbour_edge_from_proto",
    "neighbour_edge_to_proto",
    "neighbour_node_from_proto",
    "neighbour_node_to_proto",
    "neighbourhood_from_proto",
    "neighbourhood_to_proto",
    "observation_change_from_proto",
    "observation_change_to_proto",
    "observation_from_proto",
    "observation_status_from_proto",
    "observation_status_to_proto",
    "observation_to_proto",
    "recall_result_from_proto",
    "recall_result_to_proto",
    "recalled_from_proto",
    "recalled_to_proto",
    "reference_state_from_proto",
    "reference_state_to_proto",
    "repo_freshness_from_proto",
    "repo_freshness_to_proto",
    "repository_from_proto",
    "repository_to_proto",
    "resolved_from_proto",
    "resolved_to_proto",
    "stale_reason_from_proto",
    "stale_reason_to_proto",
    "status_from_proto",
    "status_to_proto",
    "symbol_detail_from_proto",
    "symbol_detail_to_proto",
    "symbol_from_proto",
    "symbol_kind_from_proto",
    "symbol_kind_to_proto",
    "symbol_to_proto",
    "timestamp_from_proto",
    "timestamp_to_proto",
    "watcher_status_from_proto",
    "watcher_status_to_proto",
]

#: Defaults for required domain fields whose wire value is UNSPECIFIED (or unknown).
_DEFAULT_CATEGORY = Category.OTHER
_DEFAULT_STATUS = ObservationStatus.FRESH
_DEFAULT_CHANGE = ChangeKind.BODY_CHANGED
_DEFAULT_INDEX_STATE = IndexState.PENDING
_DEFAULT_EDGE = EdgeKind.CALLS

#: Keys of ``Event.detail`` for a ``FileIndexed`` payload (``removed`` is 0 or 1).
FILE_DETAIL_KEYS: tuple[str, ...] = ("removed", "symbols", "added", "removed_symbols", "changed")

_E = TypeVar("_E", bound=Enum)

# ---------------------------------------------------------------------------- enums


class _EnumMap(Generic[_E]):
    """Domain enum <-> wire enum numbers, by name, computed once (the wrapper's own
    ``Value``/``Name`` lookups cost microseconds each, on every field of every message)."""

    def __init__(self, domain: type[_E], wrapper: EnumTypeWrapper, prefix: str) -> None:
        self.to: dict[_E, int] = {m: wrapper.Value(prefix + m.name) for m in domain}
        self.back: dict[int, _E] = {}
        for name, number in wrapper.items():
            member = domain.__members__.get(name.removeprefix(prefix))
            if member is not None:
                self.back[number] = member

    def number(self, member: _E | None) -> int:
        return 0 if member is None else self.to[member]

    def member(self, number: int) -> _E | None:
        return self.back.get(number)  # unspecified, or added in a newer contract: None


_CATEGORY = _EnumMap(Category, types_pb2.Category, "CATEGORY_")
_ORIGIN = _EnumMap(Origin, service_pb2.Origin, "ORIGIN_")
_OBSERVATION_STATUS = _EnumMap(ObservationStatus, types_pb2.ObservationStatus, "OBSERVATION_STATUS_")
_CHANGE_KIND = _EnumMap(ChangeKind, types_pb2.ChangeKind, "CHANGE_KIND_")
_ANCHOR_KIND = _EnumMap(AnchorKind, types_pb2.AnchorKind, "ANCHOR_KIND_")
_INDEX_STATE = _EnumMap(IndexState, types_pb2.IndexState, "INDEX_STATE_")
_EDGE_KIND = _EnumMap(EdgeKind, types_pb2.EdgeKind, "EDGE_KIND_")
_EDGE_CONFIDENCE = _EnumMap(EdgeConfidence, types_pb2.EdgeConfidence, "EDGE_CONFIDENCE_")
_EVENT_KIND = _EnumMap(EventKind, service_pb2.EventKind, "EVENT_KIND_")
_OBSERVATION_ACTION = _EnumMap(ObservationAction, service_pb2.ObservationAction, "OBSERVATION_ACTION_")
_KNOWLEDGE_KIND = _EnumMap(KnowledgeKind, types_pb2.KnowledgeKind, "KNOWLEDGE_KIND_")
_HISTORY_KIND = _EnumMap(HistoryKind, types_pb2.HistoryKind, "HISTORY_KIND_")
_REFERENCE_STATE = _EnumMap(ReferenceState, types_pb2.ReferenceState, "REFERENCE_STATE_")
_CONFIRM_REFUSAL = _EnumMap(ConfirmRefusal, types_pb2.ConfirmRefusal, "CONFIRM_REFUSAL_")


def knowledge_kind_to_proto(value: KnowledgeKind | None) -> types_pb2.KnowledgeKind:
    """The wire number of a ``KnowledgeKind`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.KnowledgeKind, _KNOWLEDGE_KIND.number(value))


def knowledge_kind_from_proto(value: int) -> KnowledgeKind | None:
    """A ``KnowledgeKind`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _KNOWLEDGE_KIND.member(value)


def reference_state_to_proto(value: ReferenceState | None) -> types_pb2.ReferenceState:
    """The wire number of a ``ReferenceState`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.ReferenceState, _REFERENCE_STATE.number(value))


def reference_state_from_proto(value: int) -> ReferenceState | None:
    """A ``ReferenceState`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _REFERENCE_STATE.member(value)


def confirm_refusal_to_proto(value: ConfirmRefusal | None) -> types_pb2.ConfirmRefusal:
    """The wire number of a ``ConfirmRefusal`` member (0 for ``None``: confirming is allowed)."""
    return cast(types_pb2.ConfirmRefusal, _CONFIRM_REFUSAL.number(value))


def confirm_refusal_from_proto(value: int) -> ConfirmRefusal | None:
    """A ``ConfirmRefusal`` from its wire number (``None``: allowed, or unknown to this client)."""
    return _CONFIRM_REFUSAL.member(value)


def origin_to_proto(value: Origin) -> service_pb2.Origin:
    """The wire number of an ``Origin`` member."""
    return cast(service_pb2.Origin, _ORIGIN.number(value))


def category_to_proto(value: Category | None) -> types_pb2.Category:
    """The wire number of a ``Category`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.Category, _CATEGORY.number(value))


def category_from_proto(value: int) -> Category | None:
    """A ``Category`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _CATEGORY.member(value)


def observation_status_to_proto(value: ObservationStatus | None) -> types_pb2.ObservationStatus:
    """The wire number of an ``ObservationStatus`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.ObservationStatus, _OBSERVATION_STATUS.number(value))


def observation_status_from_proto(value: int) -> ObservationStatus | None:
    """An ``ObservationStatus`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _OBSERVATION_STATUS.member(value)


def change_kind_to_proto(value: ChangeKind | None) -> types_pb2.ChangeKind:
    """The wire number of a ``ChangeKind`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.ChangeKind, _CHANGE_KIND.number(value))


def change_kind_from_proto(value: int) -> ChangeKind | None:
    """A ``ChangeKind`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _CHANGE_KIND.member(value)


def anchor_kind_to_proto(value: AnchorKind | None) -> types_pb2.AnchorKind:
    """The wire number of an ``AnchorKind`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.AnchorKind, _ANCHOR_KIND.number(value))


def anchor_kind_from_proto(value: int) -> AnchorKind | None:
    """An ``AnchorKind`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _ANCHOR_KIND.member(value)


def index_state_to_proto(value: IndexState | None) -> types_pb2.IndexState:
    """The wire number of an ``IndexState`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.IndexState, _INDEX_STATE.number(value))


def index_state_from_proto(value: int) -> IndexState | None:
    """An ``IndexState`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _INDEX_STATE.member(value)


def edge_kind_to_proto(value: EdgeKind | None) -> types_pb2.EdgeKind:
    """The wire number of an ``EdgeKind`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.EdgeKind, _EDGE_KIND.number(value))


def edge_kind_from_proto(value: int) -> EdgeKind | None:
    """An ``EdgeKind`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _EDGE_KIND.member(value)


def edge_confidence_to_proto(value: EdgeConfidence | None) -> types_pb2.EdgeConfidence:
    """The wire number of an ``EdgeConfidence`` member (0 for ``None``: unspecified)."""
    return cast(types_pb2.EdgeConfidence, _EDGE_CONFIDENCE.number(value))


def edge_confidence_from_proto(value: int) -> EdgeConfidence | None:
    """An ``EdgeConfidence`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _EDGE_CONFIDENCE.member(value)


def language_resolution_to_proto(r: LanguageResolution) -> types_pb2.LanguageResolution:
    """The proto form of a ``LanguageResolution``."""
    return types_pb2.LanguageResolution(
        language=r.language,
        call_sites=r.call_sites,
        unresolved=r.unresolved,
        resolved_by={c.value: n for c, n in r.resolved_by},
    )


def language_resolution_from_proto(m: types_pb2.LanguageResolution) -> LanguageResolution:
    """A ``LanguageResolution`` from its proto form."""
    by = []
    for key, n in sorted(m.resolved_by.items()):
        try:
            by.append((EdgeConfidence(key), n))
        except ValueError:  # a kind added in a newer contract
            continue
    return LanguageResolution(
        language=m.language, call_sites=m.call_sites, unresolved=m.unresolved, resolved_by=tuple(by)
    )


def event_kind_to_proto(value: EventKind | None) -> service_pb2.EventKind:
    """The wire number of an ``EventKind`` member (0 for ``None``: unspecified)."""
    return cast(service_pb2.EventKind, _EVENT_KIND.number(value))


def event_kind_from_proto(value: int) -> EventKind | None:
    """An ``EventKind`` from its wire number (``None``: unspecified or unknown to this client)."""
    return _EVENT_KIND.member(value)


def symbol_kind_to_proto(kind: str) -> types_pb2.SymbolKind:
    """``"function"`` -> ``SYMBOL_KIND_FUNCTION``; ``""`` -> unspecified.

    Raises ``InvalidArgument`` for a kind the contract does not know.
    """
    if not kind:
        return types_pb2.SYMBOL_KIND_UNSPECIFIED
    known = [name for name, _ in types_pb2.SymbolKind.items() if name != "SYMBOL_KIND_UNSPECIFIED"]
    name = "SYMBOL_KIND_" + kind.strip().upper()
    if name not in known:
        known_text = ", ".join(k.removeprefix("SYMBOL_KIND_").lower() for k in known)
        raise InvalidArgument(f"unknown symbol kind {kind!r}; expected one of: {known_text}")
    return cast(types_pb2.SymbolKind, types_pb2.SymbolKind.Value(name))


def symbol_kind_from_proto(value: int) -> str:
    """A symbol kind (``"function"`` ...) from its wire number; ``""`` when unspecified or unknown."""
    try:
        name = types_pb2.SymbolKind.Name(value)
    except ValueError:
        return ""
    return "" if name == "SYMBOL_KIND_UNSPECIFIED" else name.removeprefix("SYMBOL_KIND_").lower()


# ---------------------------------------------------------------------------- timestamps


def timestamp_to_proto(seconds: float) -> Timestamp:
    """Float epoch seconds -> ``Timestamp`` (nanosecond resolution, floor-normalised)."""
    whole = math.floor(seconds)
    nanos = round((seconds - whole) * 1e9)
    if nanos >= 1_000_000_000:
        whole, nanos = whole + 1, nanos - 1_000_000_000
    return Timestamp(seconds=int(whole), nanos=int(nanos))


def timestamp_from_proto(ts: Timestamp) -> float:
    """``Timestamp`` -> float epoch seconds."""
    return ts.seconds + ts.nanos / 1e9


def _optional_ts_to_proto(seconds: float | None) -> Timestamp | None:
    return None if seconds is None else timestamp_to_proto(seconds)


def _round_confidence(value: float) -> float:
    return round(value, 6)


# ---------------------------------------------------------------------------- code


def symbol_to_proto(s: Symbol) -> types_pb2.Symbol:
    """The proto form of a ``Symbol``."""
    return types_pb2.Symbol(
        id=s.id,
        repo_id=s.repo_id,
        path=s.path,
        name=s.name,
        qualname=s.qualname,
        kind=symbol_kind_to_proto(s.kind),
        language=s.language,
        start_line=s.start_line,
        end_line=s.end_line,
        signature=s.signature,
        ref=s.ref,
    )


def symbol_from_proto(m: types_pb2.Symbol) -> Symbol:
    """A ``Symbol`` from its proto form."""
    return Symbol(
        id=m.id,
        repo_id=m.repo_id,
        path=m.path,
        name=m.name,
        qualname=m.qualname,
        kind=symbol_kind_from_proto(m.kind),
        language=m.language,
        start_line=m.start_line,
        end_line=m.end_line,
        signature=m.signature,
    )


# ---------------------------------------------------------------------------- observations


def anchor_to_proto(a: Anchor) -> types_pb2.Anchor:
    """The proto form of an ``Anchor``."""
    return types_pb2.Anchor(
        kind=anchor_kind_to_proto(a.kind),
        ref=a.ref,
        symbol_id=a.symbol_id,
        path=a.path,
        signature=a.signature,
        sig_hash=a.sig_hash,
        body_hash=a.body_hash,
        repo_id=a.repo_id,
        confidence=0.0 if a.confidence >= 1.0 else a.confidence,
    )


def anchor_from_proto(m: types_pb2.Anchor) -> Anchor:
    """An ``Anchor`` from its proto form."""
    kind = anchor_kind_from_proto(m.kind)
    if kind is None:  # infer: only symbol anchors carry a symbol id
        kind = AnchorKind.SYMBOL if m.symbol_id else AnchorKind.FILE
    return Anchor(
        kind=kind,
        ref=m.ref,
        repo_id=m.repo_id,
        path=m.path,
        symbol_id=m.symbol_id,
        signature=m.signature,
        sig_hash=m.sig_hash,
        body_hash=m.body_hash,
        confidence=round(m.confidence, 6) if 0.0 < m.confidence < 1.0 else 1.0,  # (a float32 on the wire)
    )


def stale_reason_to_proto(r: StaleReason) -> types_pb2.StaleReason:
    """The proto form of a ``StaleReason``."""
    return types_pb2.StaleReason(
        anchor_ref=r.anchor_ref,
        change=change_kind_to_proto(r.change),
        old_signature=r.old_signature,
        new_signature=r.new_signature,
        new_ref=r.new_ref,
        detected_at=timestamp_to_proto(r.detected_at),
        commit=r.commit,
        detail=r.detail,
        dependency_ref=r.dependency_ref,
        dependency_id=r.dependency_id,
        dependency_sig_hash=r.dependency_sig_hash,
        via=r.via,
        uncommitted=r.uncommitted,
        lines_changed=r.lines_changed,
        caller_omits=r.caller_omits,
        caller_starred=r.caller_starred,
        dependency_hops=r.dependency_hops,
        dependency_removed=r.dependency_removed,
        served_by=r.served_by,
        body_changed=r.body_changed,
    )


def stale_reason_from_proto(m: types_pb2.StaleReason) -> StaleReason:
    """A ``StaleReason`` from its proto form."""
    return StaleReason(
        anchor_ref=m.anchor_ref,
        change=change_kind_from_proto(m.change) or _DEFAULT_CHANGE,
        detected_at=timestamp_from_proto(m.detected_at),
        old_signature=m.old_signature,
        new_signature=m.new_signature,
        new_ref=m.new_ref,
        commit=m.commit,
        detail=m.detail,
        dependency_ref=m.dependency_ref,
        dependency_id=m.dependency_id,
        dependency_sig_hash=m.dependency_sig_hash,
        via=m.via,
        uncommitted=m.uncommitted,
        lines_changed=max(0, m.lines_changed),
        caller_omits=tuple(m.caller_omits),
        caller_starred=m.caller_starred,
        dependency_hops=m.dependency_hops,
        dependency_removed=m.dependency_removed,
        served_by=m.served_by,
        body_changed=m.body_changed,
    )


def history_event_to_proto(e: HistoryEvent) -> types_pb2.HistoryEvent:
    """The proto form of a ``HistoryEvent``."""
    return types_pb2.HistoryEvent(
        kind=cast(types_pb2.HistoryKind, _HISTORY_KIND.number(e.kind)),
        at=timestamp_to_proto(e.at),
        by=e.by,
        commit=e.commit,
        detail=e.detail,
        related=e.related,
    )


def history_from_proto(events: Iterable[types_pb2.HistoryEvent]) -> tuple[HistoryEvent, ...]:
    """The ``HistoryEvent``s of their proto forms (kinds from a newer contract are left out)."""
    out: list[HistoryEvent] = []
    for m in events:
        kind = _HISTORY_KIND.member(m.kind)
        if kind is not None:
            at = timestamp_from_proto(m.at)
            out.append(HistoryEvent(kind, at, m.by, m.commit, m.detail, m.related))
    return tuple(out)


def observation_to_proto(o: Observation, *, history: bool = True) -> types_pb2.Observation:
    """The proto form of an ``Observation`` (without its history when not ``history``: lists)."""
    return types_pb2.Observation(
        id=o.id,
        repo_id=o.repo_id,
        text=o.text,
        category=category_to_proto(o.category),
        tags=o.tags,
        source=o.source,
        confidence=o.confidence,
        created_at=timestamp_to_proto(o.created_at),
        updated_at=timestamp_to_proto(o.updated_at),
        status=observation_status_to_proto(o.status),
        anchors=[anchor_to_proto(a) for a in o.anchors],
        stale_reasons=[stale_reason_to_proto(r) for r in o.stale_reasons],
        supersedes=o.supersedes,
        superseded_by=o.superseded_by,
        contradicts=o.contradicts,
        confirmed_by=o.confirmed_by,
        confirmed_at=_optional_ts_to_proto(o.confirmed_at),
        needs_review=o.needs_review,
        knowledge=knowledge_source_to_proto(o.knowledge) if o.knowledge is not None else None,
        references=[knowledge_reference_to_proto(r) for r in o.references],
        origin_commit=o.origin_commit,
        origin_branch=o.origin_branch,
        origin_uncommitted=o.origin_uncommitted,
        on_branch=o.on_branch,
        history=[history_event_to_proto(e) for e in o.history] if history else (),
        confirm_refused=o.confirm_refused,
        confirm_refusal=confirm_refusal_to_proto(o.confirm_refusal),
        saved_in=o.saved_in,
    )


def observation_from_proto(m: types_pb2.Observation) -> Observation:
    """An ``Observation`` from its proto form."""
    return Observation(
        id=m.id,
        repo_id=m.repo_id,
        text=m.text,
        category=category_from_proto(m.category) or _DEFAULT_CATEGORY,
        created_at=timestamp_from_proto(m.created_at),
        updated_at=timestamp_from_proto(m.updated_at),
        status=observation_status_from_proto(m.status) or _DEFAULT_STATUS,
        tags=tuple(m.tags),
        source=m.source,
        confidence=_round_confidence(m.confidence),
        anchors=tuple(anchor_from_proto(a) for a in m.anchors),
        stale_reasons=tuple(stale_reason_from_proto(r) for r in m.stale_reasons),
        supersedes=tuple(m.supersedes),
        superseded_by=m.superseded_by,
        contradicts=tuple(m.contradicts),
        confirmed_by=m.confirmed_by,
        confirmed_at=timestamp_from_proto(m.confirmed_at) if m.HasField("confirmed_at") else None,
        needs_review=m.needs_review,
        knowledge=knowledge_source_from_proto(m.knowledge) if m.HasField("knowledge") else None,
        references=tuple(knowledge_reference_from_proto(r) for r in m.references),
        origin_commit=m.origin_commit,
        origin_branch=m.origin_branch,
        origin_uncommitted=m.origin_uncommitted,
        on_branch=m.on_branch,
        history=history_from_proto(m.history),
        confirm_refused=m.confirm_refused,
        confirm_refusal=confirm_refusal_from_proto(m.confirm_refusal),
        saved_in=m.saved_in,
    )


class ObservationMemo:
    """Observations converted from their wire form, kept by it (its bytes): a list read
    again through the same memo converts only the notes whose message changed, and hands
    back the very ``Observation`` it returned before for the others (so a caller can keep
    what it derived from one by identity). It holds the notes of the last read only."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[bytes, Observation] = {}

    def convert(self, m: types_pb2.Observation, read: dict[bytes, Observation]) -> Observation:
        """The ``Observation`` of ``m`` (as kept, or converted), recorded in ``read`` (the
        current read's, handed to ``settle`` at its end)."""
        key = m.SerializeToString(deterministic=True)
        o = self._kept.get(key)
        if o is None:
            o = observation_from_proto(m)
        read[key] = o
        return o

    def settle(self, read: dict[bytes, Observation]) -> None:
        """Keep one whole read's notes for the next read, forgetting the ones before."""
        self._kept = read


# ---------------------------------------------------------------------------- knowledge files


def knowledge_source_to_proto(k: KnowledgeSource) -> types_pb2.KnowledgeSource:
    """The proto form of a ``KnowledgeSource``."""
    return types_pb2.KnowledgeSource(
        path=k.path,
        start_line=k.start_line,
        end_line=k.end_line,
        heading_path=k.heading_path,
        kind=knowledge_kind_to_proto(k.kind),
        example=k.example,
        heading=k.heading,
    )


def knowledge_source_from_proto(m: types_pb2.KnowledgeSource) -> KnowledgeSource:
    """A ``KnowledgeSource`` from its proto form (an unknown kind decodes as documentation)."""
    return KnowledgeSource(
        path=m.path,
        start_line=m.start_line,
        end_line=m.end_line,
        heading_path=tuple(m.heading_path),
        kind=knowledge_kind_from_proto(m.kind) or KnowledgeKind.DOCUMENTATION,
        example=m.example,
        heading=m.heading,
    )


def knowledge_reference_to_proto(r: KnowledgeReference) -> types_pb2.KnowledgeReference:
    """The proto form of a ``KnowledgeReference``."""
    return types_pb2.KnowledgeReference(
        text=r.text,
        path=r.path,
        line=r.line,
        column=r.column,
        end_line=r.end_line,
        end_column=r.end_column,
        target_ref=r.target_ref,
        state=reference_state_to_proto(r.state),
        reason=r.reason,
        renamed_to=r.renamed_to,
        commit=r.commit,
        close_matches=r.close_matches,
        observation_id=r.observation_id,
        old_signature=r.old_signature,
        new_signature=r.new_signature,
        deprecated=r.deprecated,
    )


def knowledge_reference_from_proto(m: types_pb2.KnowledgeReference) -> KnowledgeReference:
    """A ``KnowledgeReference`` from its proto form (an unknown state decodes as OK)."""
    return KnowledgeReference(
        text=m.text,
        path=m.path,
        line=m.line,
        column=m.column,
        end_line=m.end_line,
        end_column=m.end_column,
        target_ref=m.target_ref,
        state=reference_state_from_proto(m.state) or ReferenceState.OK,
        reason=m.reason,
        renamed_to=m.renamed_to,
        commit=m.commit,
        close_matches=tuple(m.close_matches),
        observation_id=m.observation_id,
        old_signature=m.old_signature,
        new_signature=m.new_signature,
        deprecated=m.deprecated,
    )


def knowledge_check_to_proto(c: KnowledgeCheck) -> service_pb2.CheckKnowledgeResponse:
    """The proto form of a ``KnowledgeCheck`` (the ``CheckKnowledge`` answer)."""
    return service_pb2.CheckKnowledgeResponse(
        references=[knowledge_reference_to_proto(r) for r in c.references],
        files_checked=c.files_checked,
        units=c.units,
        references_checked=c.references_checked,
        freshness=freshness_to_proto(c.freshness) if c.freshness is not None else None,
    )


def knowledge_check_from_proto(m: service_pb2.CheckKnowledgeResponse) -> KnowledgeCheck:
    """A ``KnowledgeCheck`` from the ``CheckKnowledge`` answer."""
    return KnowledgeCheck(
        references=tuple(knowledge_reference_from_proto(r) for r in m.references),
        files_checked=m.files_checked,
        units=m.units,
        references_checked=m.references_checked,
        freshness=freshness_from_proto(m.freshness) if m.HasField("freshness") else None,
    )


# ---------------------------------------------------------------------------- freshness


def repo_freshness_to_proto(f: RepoFreshness) -> types_pb2.RepoFreshness:
    """The proto form of a ``RepoFreshness``."""
    return types_pb2.RepoFreshness(
        repo_id=f.repo_id,
        current=f.current,
        pending_changes=f.pending_changes,
        indexed_commit=f.indexed_commit,
        head_commit=f.head_commit,
        working_tree_dirty=f.working_tree_dirty,
        activity=f.activity,
        state=index_state_to_proto(f.state),
    )


def repo_freshness_from_proto(m: types_pb2.RepoFreshness) -> RepoFreshness:
    """A ``RepoFreshness`` from its proto form."""
    return RepoFreshness(
        repo_id=m.repo_id,
        current=m.current,
        state=index_state_from_proto(m.state) or _DEFAULT_INDEX_STATE,
        pending_changes=m.pending_changes,
        indexed_commit=m.indexed_commit,
        head_commit=m.head_commit,
        working_tree_dirty=m.working_tree_dirty,
        activity=m.activity,
    )


def freshness_to_proto(f: Freshness) -> types_pb2.Freshness:
    """The proto form of a ``Freshness``."""
    return types_pb2.Freshness(current=f.current, repositories=[repo_freshness_to_proto(r) for r in f.repositories])


def freshness_from_proto(m: types_pb2.Freshness) -> Freshness:
    """A ``Freshness`` from its proto form."""
    return Freshness(current=m.current, repositories=tuple(repo_freshness_from_proto(r) for r in m.repositories))


def _optional_freshness_to_proto(f: Freshness | None) -> types_pb2.Freshness | None:
    return None if f is None else freshness_to_proto(f)


# ---------------------------------------------------------------------------- repositories


def checkout_to_proto(c: Checkout) -> types_pb2.Checkout:
    """The proto form of a ``Checkout``."""
    return types_pb2.Checkout(
        id=c.id, root=c.root, branch=c.branch, head_commit=c.head_commit, missing=c.missing, notes=c.notes
    )


def checkout_from_proto(m: types_pb2.Checkout) -> Checkout:
    """A ``Checkout`` from its proto form."""
    return Checkout(m.id, m.root, m.branch, m.head_commit, m.missing, m.notes)


def repository_to_proto(r: Repository) -> types_pb2.Repository:
    """The proto form of a ``Repository``."""
    return types_pb2.Repository(
        id=r.id,
        root=r.root,
        state=index_state_to_proto(r.state),
        files=r.files,
        symbols=r.symbols,
        observations=r.observations,
        stale_observations=r.stale_observations,
        suspect_observations=r.suspect_observations,
        files_done=r.files_done,
        files_total=r.files_total,
        skipped_files=r.skipped_files,
        head_commit=r.head_commit,
        last_indexed_at=_optional_ts_to_proto(r.last_indexed_at),
        error=r.error,
        pending_changes=r.pending_changes,
        edges=r.edges,
        files_parsed=r.files_parsed,
        resolution=[language_resolution_to_proto(x) for x in r.resolution],
        repository_id=r.repository_id,
        branch=r.branch,
        checkouts=[checkout_to_proto(c) for c in r.checkouts],
        possible_clones=r.possible_clones,
        activity=r.activity,
    )


def repository_from_proto(m: types_pb2.Repository) -> Repository:
    """A ``Repository`` from its proto form."""
    return Repository(
        id=m.id,
        root=m.root,
        state=index_state_from_proto(m.state) or _DEFAULT_INDEX_STATE,
        files=m.files,
        symbols=m.symbols,
        observations=m.observations,
        stale_observations=m.stale_observations,
        suspect_observations=m.suspect_observations,
        files_done=m.files_done,
        files_total=m.files_total,
        skipped_files=m.skipped_files,
        head_commit=m.head_commit,
        last_indexed_at=timestamp_from_proto(m.last_indexed_at) if m.HasField("last_indexed_at") else None,
        error=m.error,
        pending_changes=m.pending_changes,
        edges=m.edges,
        files_parsed=m.files_parsed,
        resolution=tuple(language_resolution_from_proto(x) for x in m.resolution),
        repository_id=m.repository_id,
        branch=m.branch,
        checkouts=tuple(checkout_from_proto(c) for c in m.checkouts),
        possible_clones=tuple(m.possible_clones),
        activity=m.activity,
    )


def index_progress_to_proto(p: IndexProgress) -> service_pb2.IndexProgress:
    """The proto form of an ``IndexProgress``."""
    return service_pb2.IndexProgress(
        repo_id=p.repo_id,
        state=index_state_to_proto(p.state),
        files_done=p.files_done,
        files_total=p.files_total,
        symbols=p.symbols,
        skipped=p.skipped,
        elapsed_seconds=p.elapsed_seconds,
    )


def index_progress_from_proto(m: service_pb2.IndexProgress) -> IndexProgress:
    """An ``IndexProgress`` from its proto form."""
    return IndexProgress(
        repo_id=m.repo_id,
        state=index_state_from_proto(m.state) or _DEFAULT_INDEX_STATE,
        files_done=m.files_done,
        files_total=m.files_total,
        symbols=m.symbols,
        skipped=m.skipped,
        elapsed_seconds=m.elapsed_seconds,
    )


# ---------------------------------------------------------------------------- daemon status


def watcher_status_to_proto(w: WatcherStatus) -> service_pb2.WatcherStatus:
    """The proto form of a ``WatcherStatus``."""
    return service_pb2.WatcherStatus(
        mode=w.mode, healthy=w.healthy, degraded_reason=w.degraded_reason, restarts=w.restarts
    )


def watcher_status_from_proto(m: service_pb2.WatcherStatus) -> WatcherStatus:
    """A ``WatcherStatus`` from its proto form."""
    return WatcherStatus(mode=m.mode, healthy=m.healthy, degraded_reason=m.degraded_reason, restarts=m.restarts)


def status_to_proto(s: Status) -> service_pb2.GetStatusResponse:
    """The proto form of a ``Status``."""
    return service_pb2.GetStatusResponse(
        version=s.version,
        pid=s.pid,
        uptime_seconds=s.uptime_seconds,
        socket_path=s.socket_path,
        tcp_address=s.tcp_address,
        store_path=s.store_path,
        store_size_bytes=s.store_size_bytes,
        journal_path=s.journal_path,
        serving=s.serving,
        degraded_reasons=s.degraded_reasons,
        repositories=[repository_to_proto(r) for r in s.repositories],
        watcher=None if s.watcher is None else watcher_status_to_proto(s.watcher),
        last_error=s.last_error,
        observations=s.observations,
        stale_observations=s.stale_observations,
        suspect_observations=s.suspect_observations,
    )


def status_from_proto(m: service_pb2.GetStatusResponse) -> Status:
    """A ``Status`` from its proto form."""
    return Status(
        version=m.version,
        pid=m.pid,
        uptime_seconds=m.uptime_seconds,
        socket_path=m.socket_path,
        store_path=m.store_path,
        store_size_bytes=m.store_size_bytes,
        journal_path=m.journal_path,
        serving=m.serving,
        repositories=tuple(repository_from_proto(r) for r in m.repositories),
        watcher=watcher_status_from_proto(m.watcher) if m.HasField("watcher") else None,
        degraded_reasons=tuple(m.degraded_reasons),
        tcp_address=m.tcp_address,
        last_error=m.last_error,
        observations=m.observations,
        stale_observations=m.stale_observations,
        suspect_observations=m.suspect_observations,
    )


# ---------------------------------------------------------------------------- retrieval


def hop_to_proto(h: Hop) -> service_pb2.Hop:
    """The proto form of a ``Hop``."""
    return service_pb2.Hop(
        from_ref=h.from_ref,
        edge=edge_kind_to_proto(h.edge),
        to_ref=h.to_ref,
        confidence=edge_confidence_to_proto(h.confidence),
    )


def hop_from_proto(m: service_pb2.Hop) -> Hop:
    """A ``Hop`` from its proto form."""
    return Hop(
        from_ref=m.from_ref,
        edge=edge_kind_from_proto(m.edge) or _DEFAULT_EDGE,
        to_ref=m.to_ref,
        confidence=edge_confidence_from_proto(m.confidence),
    )


_COMPONENT_FIELDS = tuple(f.name for f in dataclasses.fields(ScoreComponents))


def components_to_proto(c: ScoreComponents) -> service_pb2.ScoreComponents:
    """The proto form of a ``ScoreComponents``."""
    return service_pb2.ScoreComponents(**{name: getattr(c, name) for name in _COMPONENT_FIELDS})


def components_from_proto(m: service_pb2.ScoreComponents) -> ScoreComponents:
    """A ``ScoreComponents`` from its proto form."""
    return ScoreComponents(**{name: getattr(m, name) for name in _COMPONENT_FIELDS})


def resolved_to_proto(r: Resolved) -> service_pb2.ResolveSymbolResponse:
    """The proto form of a ``Resolved``."""
    return service_pb2.ResolveSymbolResponse(matches=[symbol_to_proto(s) for s in r.matches], exact=r.exact, ref=r.ref)


def resolved_from_proto(m: service_pb2.ResolveSymbolResponse) -> Resolved:
    """A ``Resolved`` from its proto form."""
    return Resolved(ref=m.ref, matches=tuple(symbol_from_proto(s) for s in m.matches), exact=m.exact)


def recalled_to_proto(r: Recalled) -> service_pb2.RetrievedObservation:
    """The proto form of a ``Recalled``."""
    return service_pb2.RetrievedObservation(
        observation=observation_to_proto(r.observation),
        score=r.score,
        distance=r.distance,
        path=[hop_to_proto(h) for h in r.path],
        matched_terms=r.matched_terms,
        why=r.why,
        tokens=r.tokens,
        components=components_to_proto(r.components),
    )


def recalled_from_proto(m: service_pb2.RetrievedObservation) -> Recalled:
    """A ``Recalled`` from its proto form."""
    return Recalled(
        observation=observation_from_proto(m.observation),
        score=m.score,
        distance=m.distance,
        why=m.why,
        path=tuple(hop_from_proto(h) for h in m.path),
        matched_terms=tuple(m.matched_terms),
        tokens=m.tokens,
        components=components_from_proto(m.components),
    )


def recall_result_to_proto(r: RecallResult) -> service_pb2.RetrieveResponse:
    """The proto form of a ``RecallResult``."""
    return service_pb2.RetrieveResponse(
        results=[recalled_to_proto(x) for x in r.results],
        freshness=freshness_to_proto(r.freshness),
        seeds=r.seeds,
        nodes_reached=r.nodes_reached,
        total_tokens=r.total_tokens,
        truncated=r.truncated,
        warnings=r.warnings,
        excluded_stale=r.excluded_stale,
    )


def _freshness_or_unknown(m: types_pb2.Freshness, present: bool) -> Freshness:
    # A response without freshness is treated as "not known to be current".
    return freshness_from_proto(m) if present else Freshness(current=False)


def recall_result_from_proto(m: service_pb2.RetrieveResponse) -> RecallResult:
    """A ``RecallResult`` from its proto form."""
    return RecallResult(
        results=tuple(recalled_from_proto(x) for x in m.results),
        freshness=_freshness_or_unknown(m.freshness, m.HasField("freshness")),
        seeds=m.seeds,
        nodes_reached=m.nodes_reached,
        total_tokens=m.total_tokens,
        truncated=m.truncated,
        warnings=tuple(m.warnings),
        excluded_stale=m.excluded_stale,
    )


def brief_to_proto(b: Brief) -> service_pb2.SessionBriefResponse:
    """The proto form of a ``Brief``."""
    return service_pb2.SessionBriefResponse(
        text=b.text,
        observation_ids=b.observation_ids,
        freshness=freshness_to_proto(b.freshness),
        tokens=b.tokens,
        left_out=b.left_out,
    )


def brief_from_proto(m: service_pb2.SessionBriefResponse) -> Brief:
    """A ``Brief`` from its proto form."""
    return Brief(
        text=m.text,
        observation_ids=tuple(m.observation_ids),
        freshness=_freshness_or_unknown(m.freshness, m.HasField("freshness")),
        tokens=m.tokens,
        left_out=m.left_out,
    )


def edit_context_to_proto(c: EditContext) -> service_pb2.EditContextResponse:
    """The proto form of an ``EditContext``."""
    return service_pb2.EditContextResponse(
        text=c.text,
        observation_ids=c.observation_ids,
        callout_ids=c.callout_ids,
        freshness=freshness_to_proto(c.freshness),
        tokens=c.tokens,
        left_out=c.left_out,
        indexed=c.indexed,
        shown_states=c.shown_states,
    )


def edit_context_from_proto(m: service_pb2.EditContextResponse) -> EditContext:
    """An ``EditContext`` from its proto form."""
    return EditContext(
        text=m.text,
        observation_ids=tuple(m.observation_ids),
        callout_ids=tuple(m.callout_ids),
        freshness=_freshness_or_unknown(m.freshness, m.HasField("freshness")),
        tokens=m.tokens,
        left_out=m.left_out,
        indexed=m.indexed,
        shown_states=tuple(m.shown_states),
    )


# ---------------------------------------------------------------------------- symbols


def symbol_detail_to_proto(d: SymbolDetail) -> service_pb2.SymbolDetail:
    """The proto form of a ``SymbolDetail``."""
    return service_pb2.SymbolDetail(
        symbol=symbol_to_proto(d.symbol),
        callers=[symbol_to_proto(s) for s in d.callers],
        callees=[symbol_to_proto(s) for s in d.callees],
        unresolved_calls=d.unresolved_calls,
        contains=[symbol_to_proto(s) for s in d.contains],
        container=None if d.container is None else symbol_to_proto(d.container),
        inherits=[symbol_to_proto(s) for s in d.inherits],
        inherited_by=[symbol_to_proto(s) for s in d.inherited_by],
        file_imports=d.file_imports,
        file_imported_by=d.file_imported_by,
        observations=[observation_to_proto(o) for o in d.observations],
        freshness=_optional_freshness_to_proto(d.freshness),
    )


def symbol_detail_from_proto(m: service_pb2.SymbolDetail) -> SymbolDetail:
    """A ``SymbolDetail`` from its proto form."""
    return SymbolDetail(
        symbol=symbol_from_proto(m.symbol),
        callers=tuple(symbol_from_proto(s) for s in m.callers),
        callees=tuple(symbol_from_proto(s) for s in m.callees),
        unresolved_calls=tuple(m.unresolved_calls),
        contains=tuple(symbol_from_proto(s) for s in m.contains),
        container=symbol_from_proto(m.container) if m.HasField("container") else None,
        inherits=tuple(symbol_from_proto(s) for s in m.inherits),
        inherited_by=tuple(symbol_from_proto(s) for s in m.inherited_by),
        file_imports=tuple(m.file_imports),
        file_imported_by=tuple(m.file_imported_by),
        observations=tuple(observation_from_proto(o) for o in m.observations),
        freshness=freshness_from_proto(m.freshness) if m.HasField("freshness") else None,
    )


def file_outline_to_proto(f: FileOutline) -> service_pb2.FileOutline:
    """The proto form of a ``FileOutline``."""
    return service_pb2.FileOutline(
        repo_id=f.repo_id,
        repo_root=f.repo_root,
        path=f.path,
        indexed=f.indexed,
        content_hash=f.content_hash,
        language=f.language,
        symbols=[symbol_to_proto(s) for s in f.symbols],
        observations=[observation_to_proto(o) for o in f.observations],
        freshness=None if f.freshness is None else repo_freshness_to_proto(f.freshness),
    )


def file_outline_from_proto(m: service_pb2.FileOutline) -> FileOutline:
    """A ``FileOutline`` from its proto form."""
    return FileOutline(
        repo_id=m.repo_id,
        repo_root=m.repo_root,
        path=m.path,
        indexed=m.indexed,
        content_hash=m.content_hash,
        language=m.language,
        symbols=tuple(symbol_from_proto(s) for s in m.symbols),
        observations=tuple(observation_from_proto(o) for o in m.observations),
        freshness=repo_freshness_from_proto(m.freshness) if m.HasField("freshness") else None,
    )


# ---------------------------------------------------------------------------- events


def event_to_proto(e: Event) -> service_pb2.Event:
    """Domain event -> wire event. The payload is a oneof; the first that is set wins:
    ``observation``, ``progress``, a file (``path`` or ``detail``), ``message``."""
    msg = service_pb2.Event(kind=event_kind_to_proto(e.kind), at=timestamp_to_proto(e.at), repo_id=e.repo_id, seq=e.seq)
    msg.action = cast(service_pb2.ObservationAction, _OBSERVATION_ACTION.number(e.action))
    msg.observation_id = e.observation_id
    if e.observation is not None:
        msg.observation.CopyFrom(observation_to_proto(e.observation))
    elif e.progress is not None:
        msg.progress.CopyFrom(index_progress_to_proto(e.progress))
    elif e.path or e.detail:
        msg.file.CopyFrom(
            service_pb2.FileIndexed(
                path=e.path,
                removed=bool(e.detail.get("removed", 0)),
                symbols=e.detail.get("symbols", 0),
                added=e.detail.get("added", 0),
                removed_symbols=e.detail.get("removed_symbols", 0),
                changed=e.detail.get("changed", 0),
            )
        )
    elif e.message:
        msg.message = e.message
    return msg


def event_from_proto(m: service_pb2.Event) -> Event | None:
    """Wire event -> domain event; ``None`` for an event kind this client does not know."""
    kind = event_kind_from_proto(m.kind)
    if kind is None:
        return None
    payload = m.WhichOneof("payload")
    observation = observation_from_proto(m.observation) if payload == "observation" else None
    progress = index_progress_from_proto(m.progress) if payload == "progress" else None
    path = ""
    detail: dict[str, int] = {}
    if payload == "file":
        f = m.file
        path = f.path
        detail = {
            "removed": int(f.removed),
            "symbols": f.symbols,
            "added": f.added,
            "removed_symbols": f.removed_symbols,
            "changed": f.changed,
        }
    return Event(
        kind=kind,
        at=timestamp_from_proto(m.at),
        repo_id=m.repo_id,
        seq=m.seq,
        observation=observation,
        path=path,
        progress=progress,
        message=m.message if payload == "message" else "",
        detail=detail,
        action=_OBSERVATION_ACTION.member(m.action),
        observation_id=m.observation_id,
    )


# ---------------------------------------------------------------------------- import


def import_result_to_proto(r: ImportResult) -> service_pb2.ImportObservationsResponse:
    """The proto form of an ``ImportResult``."""
    return service_pb2.ImportObservationsResponse(
        imported=r.imported, skipped_duplicates=r.skipped_duplicates, errors=r.errors
    )


def import_result_from_proto(m: service_pb2.ImportObservationsResponse) -> ImportResult:
    """An ``ImportResult`` from its proto form."""
    return ImportResult(imported=m.imported, skipped_duplicates=m.skipped_duplicates, errors=tuple(m.errors))


def code_version_to_proto(v: CodeVersion) -> service_pb2.CodeVersion:
    """The proto form of a ``CodeVersion``."""
    return service_pb2.CodeVersion(**{f.name: getattr(v, f.name) for f in dataclasses.fields(CodeVersion)})


def code_version_from_proto(m: service_pb2.CodeVersion) -> CodeVersion:
    """A ``CodeVersion`` from its proto form."""
    return CodeVersion(**{f.name: getattr(m, f.name) for f in dataclasses.fields(CodeVersion)})


def anchor_change_to_proto(c: AnchorChange) -> service_pb2.AnchorChange:
    """The proto form of an ``AnchorChange``."""
    return service_pb2.AnchorChange(
        anchor_ref=c.anchor_ref,
        change=change_kind_to_proto(c.change),
        detail=c.detail,
        commit=c.commit,
        before=code_version_to_proto(c.before),
        after=code_version_to_proto(c.after),
        dependency_ref=c.dependency_ref,
        path=[hop_to_proto(h) for h in c.path],
        note=c.note,
    )


def anchor_change_from_proto(m: service_pb2.AnchorChange) -> AnchorChange:
    """An ``AnchorChange`` from its proto form."""
    return AnchorChange(
        anchor_ref=m.anchor_ref,
        change=change_kind_from_proto(m.change) or _DEFAULT_CHANGE,
        before=code_version_from_proto(m.before),
        after=code_version_from_proto(m.after),
        detail=m.detail,
        commit=m.commit,
        dependency_ref=m.dependency_ref,
        path=tuple(hop_from_proto(h) for h in m.path),
        note=m.note,
    )


def observation_change_to_proto(c: ObservationChange) -> service_pb2.ObservationChange:
    """The proto form of an ``ObservationChange``."""
    return service_pb2.ObservationChange(
        observation_id=c.observation_id, changes=[anchor_change_to_proto(a) for a in c.changes]
    )


def observation_change_from_proto(m: service_pb2.ObservationChange) -> ObservationChange:
    """An ``ObservationChange`` from its proto form."""
    return ObservationChange(
        observation_id=m.observation_id, changes=tuple(anchor_change_from_proto(a) for a in m.changes)
    )


def neighbour_node_to_proto(x: NeighbourNode) -> service_pb2.NeighbourNode:
    """The proto form of a ``NeighbourNode``."""
    return service_pb2.NeighbourNode(
        id=x.id,
        ref=x.ref,
        kind=x.kind,
        path=x.path,
        start_line=x.start_line,
        end_line=x.end_line,
        signature=x.signature,
        distance=x.distance,
        observations=[observation_to_proto(o) for o in x.observations],
    )


def neighbour_node_from_proto(m: service_pb2.NeighbourNode) -> NeighbourNode:
    """A ``NeighbourNode`` from its proto form."""
    return NeighbourNode(
        id=m.id,
        ref=m.ref,
        kind=m.kind,
        path=m.path,
        start_line=m.start_line,
        end_line=m.end_line,
        signature=m.signature,
        distance=m.distance,
        observations=tuple(observation_from_proto(o) for o in m.observations),
    )


def neighbour_edge_to_proto(e: NeighbourEdge) -> service_pb2.NeighbourEdge:
    """The proto form of a ``NeighbourEdge``."""
    return service_pb2.NeighbourEdge(
        source=e.source,
        target=e.target,
        kind=edge_kind_to_proto(e.kind),
        confidence=edge_confidence_to_proto(e.confidence),
    )


def neighbour_edge_from_proto(m: service_pb2.NeighbourEdge) -> NeighbourEdge:
    """A ``NeighbourEdge`` from its proto form."""
    return NeighbourEdge(
        source=m.source,
        target=m.target,
        kind=edge_kind_from_proto(m.kind) or _DEFAULT_EDGE,
        confidence=edge_confidence_from_proto(m.confidence),
    )


def neighbourhood_to_proto(n: Neighbourhood) -> service_pb2.Neighbourhood:
    """The proto form of a ``Neighbourhood``."""
    return service_pb2.Neighbourhood(
        nodes=[neighbour_node_to_proto(x) for x in n.nodes],
        edges=[neighbour_edge_to_proto(e) for e in n.edges],
        truncated=n.truncated,
    )


def neighbourhood_from_proto(m: service_pb2.Neighbourhood) -> Neighbourhood:
    """A ``Neighbourhood`` from its proto form."""
    return Neighbourhood(
        nodes=tuple(neighbour_node_from_proto(x) for x in m.nodes),
        edges=tuple(neighbour_edge_from_proto(e) for e in m.edges),
        truncated=m.truncated,
    )
