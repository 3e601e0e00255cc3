"""The observation document codec: ``Observation`` <-> JSON object, strictly validated.

A document is what the journal, the store's ``doc`` column and exports carry. ``from_doc``
accepts only documents every reader can serve: right types (no coercion of a list into a
string), finite timestamps a protobuf ``Timestamp`` can hold, confidence in [0, 1], bounded
sizes and counts, no NUL characters. Anything else is ``InvalidArgument`` naming the field,
so one absurd record (say a ``confirmed_at`` of 1e300) is rejected where it enters instead
of breaking ``list`` for every client later.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from graphmem.errors import InvalidArgument
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    HistoryEvent,
    HistoryKind,
    KnowledgeKind,
    KnowledgeReference,
    KnowledgeSource,
    Observation,
    ObservationStatus,
    ReferenceState,
    StaleReason,
)

__all__ = [
    "MAX_ANCHORS",
    "MAX_DOC_ANCHORS",
    "MAX_HISTORY",
    "MAX_ID",
    "MAX_REF",
    "MAX_TAG",
    "MAX_TAGS",
    "MAX_TEXT",
    "MAX_TS",
    "from_doc",
    "history_event",
    "history_event_doc",
    "to_doc",
    "validate_doc",
]

MAX_TEXT: Final = 20_000
MAX_TAGS: Final = 32
MAX_TAG: Final = 200
#: Anchors a new observation may have.
MAX_ANCHORS: Final = 64
#: Anchors a stored/imported document may have (older versions had no limit at creation).
MAX_DOC_ANCHORS: Final = 256
MAX_ID: Final = 128
#: Longest fingerprint (``sig_hash``, ``body_hash``): 16 hex digits for a symbol; ``content:``
#: and a 128-digit blake2b for a file without symbols (136 characters: held to ``MAX_ID``, such
#: an anchor's record was refused when read back, and its note quarantined at every start).
MAX_HASH: Final = 512
#: Longest ref, path, signature or other short string field.
MAX_REF: Final = 4096
#: Longest free-text field other than ``text`` (a stale reason's detail).
MAX_DETAIL: Final = 20_000
#: The most lines a body change is said to have touched.
MAX_LINES_CHANGED: Final = 10_000_000
#: The most edges a dependency reason's dependency is said to be away.
MAX_HOPS: Final = 1_000
#: The largest seconds a protobuf Timestamp holds (9999-12-31T23:59:59Z).
MAX_TS: Final = 253_402_300_799.0
_MAX_LIST: Final = 1024
#: History entries a document keeps: the first (created) and the newest (``memory.history``).
MAX_HISTORY: Final = 200


def to_doc(o: Observation) -> dict[str, Any]:
    """The observation as a JSON-ready document."""
    return {
        "id": o.id,
        "repo_id": o.repo_id,
        "text": o.text,
        "category": o.category.value,
        "created_at": o.created_at,
        "updated_at": o.updated_at,
        "status": o.status.value,
        "tags": list(o.tags),
        "source": o.source,
        "confidence": o.confidence,
        "anchors": [
            {
                "kind": a.kind.value,
                "ref": a.ref,
                "repo_id": a.repo_id,
                "path": a.path,
                "symbol_id": a.symbol_id,
                "signature": a.signature,
                "sig_hash": a.sig_hash,
                "body_hash": a.body_hash,
                **({"confidence": a.confidence} if a.confidence < 1.0 else {}),
            }
            for a in o.anchors
        ],
        "stale_reasons": [
            {
                "anchor_ref": r.anchor_ref,
                "change": r.change.value,
                "detected_at": r.detected_at,
                "old_signature": r.old_signature,
                "new_signature": r.new_signature,
                "new_ref": r.new_ref,
                "commit": r.commit,
                "detail": r.detail,
                **({"uncommitted": True} if r.uncommitted else {}),
                **({"lines_changed": r.lines_changed} if r.lines_changed else {}),
                **({"caller_omits": list(r.caller_omits)} if r.caller_omits else {}),
                **({"caller_starred": True} if r.caller_starred else {}),
                **({"served_by": r.served_by} if r.served_by else {}),
                **({"body_changed": True} if r.body_changed else {}),
                **(
                    {
                        "dependency_ref": r.dependency_ref,
                        "dependency_id": r.dependency_id,
                        "dependency_sig_hash": r.dependency_sig_hash,
                        "via": r.via,
                        "dependency_hops": r.dependency_hops,
                        **({"dependency_removed": True} if r.dependency_removed else {}),
                    }
                    if r.dependency_id
                    else {}
                ),
            }
            for r in o.stale_reasons
        ],
        "supersedes": list(o.supersedes),
        "superseded_by": o.superseded_by,
        "contradicts": list(o.contradicts),
        "confirmed_by": o.confirmed_by,
        "confirmed_at": o.confirmed_at,
        "needs_review": o.needs_review,
        **({"origin_commit": o.origin_commit, "origin_branch": o.origin_branch} if o.origin_commit else {}),
        **({"origin_uncommitted": True} if o.origin_uncommitted else {}),
        **_knowledge_doc(o),
        **({"history": [history_event_doc(e) for e in o.history]} if o.history else {}),
    }


def history_event_doc(e: HistoryEvent) -> dict[str, Any]:
    """One history entry as a JSON-ready object (empty fields left out)."""
    d: dict[str, Any] = {"kind": e.kind.value, "at": e.at}
    for key, value in (("by", e.by), ("commit", e.commit), ("detail", e.detail), ("related", e.related)):
        if value:
            d[key] = value
    return d


def _knowledge_doc(o: Observation) -> dict[str, Any]:
    """The knowledge source and references of a unit of a knowledge file (nothing otherwise)."""
    k = o.knowledge
    if k is None:
        return {}
    return {
        "knowledge": {
            "path": k.path,
            "start_line": k.start_line,
            "end_line": k.end_line,
            "heading_path": list(k.heading_path),
            "kind": k.kind.value,
            **({"example": True} if k.example else {}),
            **({"heading": True} if k.heading else {}),
        },
        "references": [
            {
                "text": r.text,
                "line": r.line,
                "column": r.column,
                "end_line": r.end_line,
                "end_column": r.end_column,
                "target_ref": r.target_ref,
                "state": r.state.value,
                "reason": r.reason,
                "renamed_to": r.renamed_to,
                "commit": r.commit,
                "close_matches": list(r.close_matches),
                "old_signature": r.old_signature,
                "new_signature": r.new_signature,
                **({"call": r.call} if r.call else {}),
                **({"historical": True} if r.historical else {}),
                **({"deprecated": True} if r.deprecated else {}),
            }
            for r in o.references
        ],
    }


class _Reader:
    """Typed field access on one JSON object; every failure names the field."""

    def __init__(self, d: Mapping[str, Any], where: str) -> None:
        if not isinstance(d, Mapping):
            raise InvalidArgument(f"{where or 'observation'}: expected an object, got {type(d).__name__}")
        self.d = d
        self.where = where

    def _fail(self, key: str, why: str) -> InvalidArgument:
        return InvalidArgument(f"{self.where}{key}: {why}")

    def string(self, key: str, default: str | None = "", limit: int = MAX_REF) -> str:
        value = self.d.get(key, default)
        if value is None and default is None:
            raise self._fail(key, "is required")
        if not isinstance(value, str):
            raise self._fail(key, f"expected a string, got {type(value).__name__}")
        if len(value) > limit:
            raise self._fail(key, f"is {len(value)} characters; the limit is {limit}")
        if "\x00" in value:
            raise self._fail(key, "contains a NUL character")
        return value

    def number(self, key: str, default: float, lo: float, hi: float) -> float:
        value = self.d.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._fail(key, f"expected a number, got {type(value).__name__}")
        f = float(value)
        if not math.isfinite(f) or not lo <= f <= hi:
            raise self._fail(key, f"{value!r} is outside [{lo:g}, {hi:g}]")
        return f

    def time(self, key: str, default: float | None = 0.0) -> float | None:
        if default is None and self.d.get(key) is None:
            return None
        return self.number(key, default or 0.0, 0.0, MAX_TS)

    def strings(self, key: str, limit: int, item_limit: int = MAX_REF) -> tuple[str, ...]:
        value = self.d.get(key, ())
        if not isinstance(value, (list, tuple)):
            raise self._fail(key, f"expected a list, got {type(value).__name__}")
        if len(value) > limit:
            raise self._fail(key, f"has {len(value)} items; the limit is {limit}")
        return tuple(
            _Reader({"v": v}, f"{self.where}{key}[{i}].").string("v", None, item_limit) for i, v in enumerate(value)
        )

    def objects(self, key: str, limit: int) -> Sequence[Mapping[str, Any]]:
        value = self.d.get(key, ())
        if not isinstance(value, (list, tuple)):
            raise self._fail(key, f"expected a list, got {type(value).__name__}")
        if len(value) > limit:
            raise self._fail(key, f"has {len(value)} items; the limit is {limit}")
        return value

    def enum(self, key: str, default: str, enum: type[Any]) -> Any:
        raw = self.string(key, default, 64)
        try:
            return enum(raw)
        except ValueError:
            raise self._fail(key, f"unknown value {raw!r}") from None

    def flag(self, key: str) -> bool:
        value = self.d.get(key, False)
        if not isinstance(value, bool):
            raise self._fail(key, f"expected true or false, got {type(value).__name__}")
        return value


def _anchor(d: Mapping[str, Any], where: str) -> Anchor:
    r = _Reader(d, where)
    return Anchor(
        kind=r.enum("kind", "", AnchorKind),
        ref=r.string("ref", None),
        repo_id=r.string("repo_id", "", MAX_ID),
        path=r.string("path"),
        symbol_id=r.string("symbol_id"),
        signature=r.string("signature"),
        sig_hash=r.string("sig_hash", "", MAX_HASH),
        body_hash=r.string("body_hash", "", MAX_HASH),
        confidence=r.number("confidence", 1.0, 0.0, 1.0),
    )


#: How reasons written before the caller fields said a changed default's caller leaves it out:
#: at the end of the detail, ``; this caller omits `x```, ``; this caller may pass `x`, `y` in
#: `*`/`**` arguments`` (``_reason`` moves it into the fields).
_OLD_CALLER: Final = re.compile(r"; this caller (omits|may pass) ((?:`[^`]+`(?:, )?)+)(?: in `\*`/`\*\*` arguments)?\Z")


def _caller_fields(detail: str, omits: tuple[str, ...], starred: bool) -> tuple[str, tuple[str, ...], bool]:
    """A reason's detail and caller fields, the old text form of the caller (``_OLD_CALLER``)
    moved from the detail into the fields; unchanged when the fields are set or the detail
    has no such ending."""
    old = None if omits else _OLD_CALLER.search(detail)
    if old is None:
        return detail, omits, starred
    names = tuple(n.strip("`") for n in old.group(2).split(", "))
    return detail[: old.start()], names, old.group(1) == "may pass"


#: How reasons written before the dependency fields said how far away a dependency is and that
#: it was removed: in the detail, ``a.py::f calls b.py::g (2 hops away), which was removed``
#: (no count: one hop). ``_dependency_fields`` reads them into the fields; the detail stays.
_OLD_HOPS: Final = re.compile(r" \((\d+) hops away\), (?:which|whose) ")
#: a deprecated reference's reason, as a journal written before its ``deprecated`` field says it
_OLD_DEPRECATED: Final = re.compile(r"`[^`]+` is deprecated: `[^`]+` still serves it")
_OLD_REMOVED: Final = ", which was removed"


def _dependency_fields(r: _Reader, change: ChangeKind, detail: str) -> tuple[int, bool]:
    """A reason's hop count and removal: the document's fields, or for a document written
    before them (no ``dependency_hops``), what its detail said (``_OLD_HOPS``)."""
    if change is not ChangeKind.DEPENDENCY_CHANGED:
        return 0, False
    if "dependency_hops" in r.d:
        return int(r.number("dependency_hops", 1, 0, MAX_HOPS)), r.flag("dependency_removed")
    hops = _OLD_HOPS.search(detail)
    return (int(hops.group(1)) if hops else 1), detail.endswith(_OLD_REMOVED)


def _reason(d: Mapping[str, Any], where: str) -> StaleReason:
    r = _Reader(d, where)
    detected = r.time("detected_at")
    assert detected is not None
    detail, omits, starred = _caller_fields(
        r.string("detail", "", MAX_DETAIL), r.strings("caller_omits", _MAX_LIST), r.flag("caller_starred")
    )
    change = r.enum("change", "", ChangeKind)
    hops, removed = _dependency_fields(r, change, detail)
    return StaleReason(
        anchor_ref=r.string("anchor_ref", None),
        change=change,
        detected_at=detected,
        old_signature=r.string("old_signature"),
        new_signature=r.string("new_signature"),
        new_ref=r.string("new_ref"),
        commit=r.string("commit", "", MAX_ID),
        detail=detail,
        dependency_ref=r.string("dependency_ref"),
        dependency_id=r.string("dependency_id"),
        dependency_sig_hash=r.string("dependency_sig_hash", "", MAX_HASH),
        via=r.string("via"),
        uncommitted=r.flag("uncommitted"),
        lines_changed=int(r.number("lines_changed", 0, 0, MAX_LINES_CHANGED)),
        caller_omits=omits,
        caller_starred=starred,
        dependency_hops=hops,
        dependency_removed=removed,
        served_by=r.string("served_by"),
        body_changed=r.flag("body_changed"),
    )


def history_event(d: Mapping[str, Any], where: str) -> HistoryEvent:
    """A history entry of its document; ``InvalidArgument`` naming the bad field."""
    r = _Reader(d, where)
    at = r.time("at")
    assert at is not None
    return HistoryEvent(
        kind=r.enum("kind", "", HistoryKind),
        at=at,
        by=r.string("by", "", MAX_TAG),
        commit=r.string("commit", "", MAX_ID),
        detail=r.string("detail", "", MAX_DETAIL),
        related=r.string("related", "", MAX_ID),
    )


def _source(d: Mapping[str, Any], where: str) -> KnowledgeSource:
    r = _Reader(d, where)
    return KnowledgeSource(
        path=r.string("path", None),
        start_line=int(r.number("start_line", 1, 0, 1e9)),
        end_line=int(r.number("end_line", 1, 0, 1e9)),
        heading_path=r.strings("heading_path", _MAX_LIST),
        kind=r.enum("kind", "documentation", KnowledgeKind),
        example=r.flag("example"),
        heading=r.flag("heading"),
    )


def _reference(d: Mapping[str, Any], where: str, path: str, obs_id: str) -> KnowledgeReference:
    r = _Reader(d, where)
    return KnowledgeReference(
        text=r.string("text", None),
        path=path,
        line=int(r.number("line", 1, 0, 1e9)),
        column=int(r.number("column", 1, 0, 1e9)),
        end_line=int(r.number("end_line", 1, 0, 1e9)),
        end_column=int(r.number("end_column", 1, 0, 1e9)),
        target_ref=r.string("target_ref"),
        state=r.enum("state", "ok", ReferenceState),
        reason=r.string("reason", "", MAX_DETAIL),
        renamed_to=r.string("renamed_to"),
        commit=r.string("commit", "", MAX_ID),
        close_matches=r.strings("close_matches", _MAX_LIST),
        observation_id=obs_id,
        old_signature=r.string("old_signature", "", MAX_DETAIL),
        new_signature=r.string("new_signature", "", MAX_DETAIL),
        call=r.string("call", "", MAX_DETAIL),
        historical=r.flag("historical"),
        deprecated=_deprecated(r),
    )


def _deprecated(r: _Reader) -> bool:
    """Whether a reference is graded deprecated; one written before the field (no such key)
    said so only in its reason ("`x` is deprecated: `m.__getattr__` still serves it")."""
    if "deprecated" in r.d:
        return r.flag("deprecated")
    reason = r.d.get("reason")
    return r.d.get("state") == "suspect" and isinstance(reason, str) and _OLD_DEPRECATED.match(reason) is not None


def _knowledge_of(r: _Reader, oid: str) -> tuple[KnowledgeSource | None, tuple[KnowledgeReference, ...]]:
    raw = r.d.get("knowledge")
    if raw is None:
        return None, ()
    source = _source(raw, f"{r.where}knowledge.")
    refs = tuple(
        _reference(x, f"{r.where}references[{i}].", source.path, oid)
        for i, x in enumerate(r.objects("references", _MAX_LIST))
    )
    return source, refs


def from_doc(d: Mapping[str, Any]) -> Observation:
    """The observation of a document; ``InvalidArgument`` naming the first bad field."""
    r = _Reader(d, "")
    oid = r.string("id", None, MAX_ID)
    if not oid.strip():
        raise InvalidArgument("id: is empty")
    r.where = f"observation {oid}: "
    created, updated = r.time("created_at") or 0.0, r.time("updated_at") or 0.0
    knowledge, references = _knowledge_of(r, oid)
    return Observation(
        id=oid,
        repo_id=r.string("repo_id", "", MAX_ID),
        text=r.string("text", "", MAX_TEXT),
        category=r.enum("category", "other", Category),
        created_at=created,
        updated_at=updated,
        status=r.enum("status", "fresh", ObservationStatus),
        tags=r.strings("tags", MAX_TAGS, MAX_TAG),
        source=r.string("source", "", MAX_TAG),
        confidence=r.number("confidence", 1.0, 0.0, 1.0),
        anchors=tuple(
            _anchor(a, f"{r.where}anchors[{i}].") for i, a in enumerate(r.objects("anchors", MAX_DOC_ANCHORS))
        ),
        stale_reasons=tuple(
            _reason(x, f"{r.where}stale_reasons[{i}].") for i, x in enumerate(r.objects("stale_reasons", _MAX_LIST))
        ),
        supersedes=r.strings("supersedes", _MAX_LIST, MAX_ID),
        superseded_by=r.string("superseded_by", "", MAX_ID),
        contradicts=r.strings("contradicts", _MAX_LIST, MAX_ID),
        confirmed_by=r.string("confirmed_by", "", MAX_TAG),
        confirmed_at=r.time("confirmed_at", None),
        needs_review=r.flag("needs_review"),
        knowledge=knowledge,
        references=references,
        origin_commit=r.string("origin_commit", "", MAX_ID),
        origin_branch=r.string("origin_branch", "", MAX_REF),
        origin_uncommitted=r.flag("origin_uncommitted"),
        history=tuple(
            history_event(x, f"{r.where}history[{i}].") for i, x in enumerate(r.objects("history", MAX_HISTORY))
        ),
    )


def validate_doc(d: Mapping[str, Any]) -> str | None:
    """Why ``d`` is not a valid observation document, or None."""
    try:
        from_doc(d)
    except InvalidArgument as exc:
        return exc.message
    return None
