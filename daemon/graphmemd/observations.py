"""Observations: the journal codec and the journal-backed book.

The journal (append-only, fsynced JSON lines) is the source of truth. Every mutation is
journaled as the observation's full new document (``{"op": "put", "obs": {...}}``) or a
deletion (``{"op": "delete", "id": ...}``) *before* it is acknowledged; replay folds the
records (last write wins). The graph store's Observation nodes are a rebuildable copy.
``to_doc``/``from_doc`` are the one codec between the domain ``Observation`` and those
records (the store keeps the same document). Staleness lives in ``staleness.py``.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from graphmem.errors import InvalidArgument, NotFound
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    Observation,
    ObservationStatus,
    StaleReason,
)

from graphmemd.journal import Journal

MAX_TEXT = 20_000
MAX_TAGS = 32

# ---------------------------------------------------------------------------- documents


def anchor_doc(a: Anchor) -> dict[str, Any]:
    """The JSON document of an ``Anchor``."""
    return {
        "kind": a.kind.value,
        "ref": a.ref,
        "repo_id": a.repo_id,
        "path": a.path,
        "symbol_id": a.symbol_id,
        "signature": a.signature,
        "sig_hash": a.sig_hash,
        "body_hash": a.body_hash,
    }


def reason_doc(r: StaleReason) -> dict[str, Any]:
    """The JSON document of a ``StaleReason``."""
    return {
        "anchor_ref": r.anchor_ref,
        "change": r.change.value,
        "detected_at": r.detected_at,
        "old_signature": r.old_signature,
        "new_signature": r.new_signature,
        "new_ref": r.new_ref,
        "commit": r.commit,
        "detail": r.detail,
        **(
            {
                "dependency_ref": r.dependency_ref,
                "dependency_id": r.dependency_id,
                "dependency_sig_hash": r.dependency_sig_hash,
                "via": r.via,
            }
            if r.dependency_id
            else {}
        ),
    }


def to_doc(o: Observation) -> dict[str, Any]:
    """The JSON document of an ``Observation`` (what the store and the journal hold)."""
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
        "anchors": [anchor_doc(a) for a in o.anchors],
        "stale_reasons": [reason_doc(r) for r in o.stale_reasons],
        "supersedes": list(o.supersedes),
        "superseded_by": o.superseded_by,
        "contradicts": list(o.contradicts),
        "confirmed_by": o.confirmed_by,
        "confirmed_at": o.confirmed_at,
        "needs_review": o.needs_review,
    }


def from_doc(d: Mapping[str, Any]) -> Observation:
    """An ``Observation`` from its JSON document."""
    try:
        return Observation(
            id=str(d["id"]),
            repo_id=str(d.get("repo_id", "")),
            text=str(d.get("text", "")),
            category=Category(d.get("category", "other")),
            created_at=float(d.get("created_at", 0.0)),
            updated_at=float(d.get("updated_at", 0.0)),
            status=ObservationStatus(d.get("status", "fresh")),
            tags=tuple(str(t) for t in d.get("tags", ())),
            source=str(d.get("source", "")),
            confidence=float(d.get("confidence", 1.0)),
            anchors=tuple(
                Anchor(
                    kind=AnchorKind(a["kind"]),
                    ref=str(a["ref"]),
                    repo_id=str(a.get("repo_id", "")),
                    path=str(a.get("path", "")),
                    symbol_id=str(a.get("symbol_id", "")),
                    signature=str(a.get("signature", "")),
                    sig_hash=str(a.get("sig_hash", "")),
                    body_hash=str(a.get("body_hash", "")),
                )
                for a in d.get("anchors", ())
            ),
            stale_reasons=tuple(
                StaleReason(
                    anchor_ref=str(r["anchor_ref"]),
                    change=ChangeKind(r["change"]),
                    detected_at=float(r.get("detected_at", 0.0)),
                    old_signature=str(r.get("old_signature", "")),
                    new_signature=str(r.get("new_signature", "")),
                    new_ref=str(r.get("new_ref", "")),
                    commit=str(r.get("commit", "")),
                    detail=str(r.get("detail", "")),
                    dependency_ref=str(r.get("dependency_ref", "")),
                    dependency_id=str(r.get("dependency_id", "")),
                    dependency_sig_hash=str(r.get("dependency_sig_hash", "")),
                    via=str(r.get("via", "")),
                )
                for r in d.get("stale_reasons", ())
            ),
            supersedes=tuple(d.get("supersedes", ())),
            superseded_by=str(d.get("superseded_by", "")),
            contradicts=tuple(d.get("contradicts", ())),
            confirmed_by=str(d.get("confirmed_by", "")),
            confirmed_at=d.get("confirmed_at"),
            needs_review=bool(d.get("needs_review", False)),
        )
    except (KeyError, ValueError, TypeError) as exc:
        raise InvalidArgument(f"not a valid observation record: {exc}") from exc


# ---------------------------------------------------------------------------- the book


class ObservationBook:
    """Every observation in memory, folded from the journal; all mutations journal first.

    ``on_change`` is called (outside the lock) with each observation written, so the engine
    can mirror it into the store and publish events."""

    def __init__(self, journal: Journal, on_change: Callable[[Observation | None, str], None]) -> None:
        self._journal = journal
        self._on_change = on_change
        self._lock = threading.RLock()
        self._obs: dict[str, Observation] = {}
        self._keys: dict[str, str] = {}
        self._by_target: dict[str, set[str]] = defaultdict(set)

    # ------------------------------------------------------------------ replay

    def load(self) -> int:
        """Fold the journal into memory; returns the number of records read."""
        n = 0
        with self._lock:
            for rec in self._journal.replay():
                n += 1
                self._fold(rec)
        return n

    def compact_if_needed(self, records_read: int, min_records: int = 1000) -> bool:
        """Rewrite the journal as one record per live observation when it has grown to more
        than twice that (every stale/fresh flip appends a full record). Idempotency keys are
        kept. Atomic (temp file, fsync, rename); called at start, before anything is served."""
        with self._lock:
            live = len(self._obs)
            if records_read < max(min_records, 2 * live):
                return False
            key_of = {oid: key for key, oid in self._keys.items()}
            records: list[dict[str, Any]] = []
            for o in sorted(self._obs.values(), key=lambda o: (o.created_at, o.id)):
                rec: dict[str, Any] = {"op": "put", "obs": to_doc(o)}
                if o.id in key_of:
                    rec["key"] = key_of[o.id]
                records.append(rec)
            self._journal.compact(records, expected_last_seq=self._journal.last_seq)
            return True

    def _fold(self, rec: Mapping[str, Any]) -> None:
        op = rec.get("op")
        if op == "put":
            o = from_doc(rec["obs"])
            self._index(o)
            key = rec.get("key")
            if isinstance(key, str) and key:
                self._keys[key] = o.id
        elif op == "delete":
            self._unindex(str(rec.get("id", "")))

    def _index(self, o: Observation) -> None:
        self._unindex(o.id)
        self._obs[o.id] = o
        for t in self._targets(o):
            self._by_target[t].add(o.id)

    def _unindex(self, obs_id: str) -> None:
        old = self._obs.pop(obs_id, None)
        if old is not None:
            for t in self._targets(old):
                self._by_target[t].discard(obs_id)

    @staticmethod
    def _targets(o: Observation) -> list[str]:
        return [a.symbol_id if a.kind is AnchorKind.SYMBOL else f"{a.repo_id}:{a.path}" for a in o.anchors]

    # ------------------------------------------------------------------ writes

    def _put(self, observations: Sequence[Observation], key: str = "") -> None:
        """Journal (one fsync) then apply; the only way anything changes."""
        if not observations:
            return
        with self._lock:
            records: list[dict[str, Any]] = []
            for o in observations:
                rec: dict[str, Any] = {"op": "put", "obs": to_doc(o)}
                if key and o is observations[0]:
                    rec["key"] = key
                records.append(rec)
            self._journal.append_many(records)
            for o in observations:
                self._index(o)
            if key:
                self._keys[key] = observations[0].id
        for o in observations:
            self._on_change(o, o.id)

    def create(
        self,
        *,
        repo_id: str,
        text: str,
        category: Category,
        tags: Sequence[str],
        source: str,
        confidence: float,
        anchors: Sequence[Anchor],
        supersedes: Sequence[str] = (),
        contradicts: Sequence[str] = (),
        idempotency_key: str = "",
        now: float | None = None,
    ) -> Observation:
        """Validate and save a new observation, marking those it supersedes; a repeated ``idempotency_key``
        returns the observation it created before."""
        text = text.strip()
        if not text:
            raise InvalidArgument("observation text is empty")
        if len(text) > MAX_TEXT:
            raise InvalidArgument(f"observation text is {len(text)} characters; the limit is {MAX_TEXT}")
        if not anchors:
            raise InvalidArgument(
                "an observation needs at least one anchor (a symbol ref like "
                "'path/file.py::Class.method' or a file path)"
            )
        if len(tags) > MAX_TAGS:
            raise InvalidArgument(f"at most {MAX_TAGS} tags")
        if not 0.0 <= confidence <= 1.0:
            raise InvalidArgument(f"confidence must be between 0 and 1, not {confidence}")
        with self._lock:
            if idempotency_key and idempotency_key in self._keys:
                existing = self._obs.get(self._keys[idempotency_key])
                if existing is not None:
                    return existing
            for ref in (*supersedes, *contradicts):
                if ref not in self._obs:
                    raise InvalidArgument(f"no observation {ref!r} to supersede or contradict")
            t = time.time() if now is None else now
            o = Observation(
                id=uuid.uuid4().hex[:16],
                repo_id=repo_id,
                text=text,
                category=category,
                created_at=t,
                updated_at=t,
                tags=tuple(dict.fromkeys(t_.strip() for t_ in tags if t_.strip())),
                source=source,
                confidence=confidence,
                anchors=tuple(anchors),
                supersedes=tuple(supersedes),
                contradicts=tuple(contradicts),
            )
            older = [
                replace(self._obs[s], status=ObservationStatus.SUPERSEDED, superseded_by=o.id, updated_at=t)
                for s in supersedes
            ]
            self._put([o, *older], key=idempotency_key)
            return o

    def get(self, obs_id: str) -> Observation:
        """The observation ``obs_id``; NotFound when there is none."""
        with self._lock:
            o = self._obs.get(obs_id)
        if o is None:
            raise NotFound(f"no observation {obs_id!r}")
        return o

    def update(self, obs_id: str, **fields: Any) -> Observation:
        """Replace some fields of an observation (text and confidence validated) and save it."""
        with self._lock:
            o = self.get(obs_id)
            if "text" in fields:
                text = str(fields["text"]).strip()
                if not text:
                    raise InvalidArgument("observation text is empty")
                fields["text"] = text
            if "confidence" in fields and not 0.0 <= float(fields["confidence"]) <= 1.0:
                raise InvalidArgument("confidence must be between 0 and 1")
            new = replace(o, updated_at=time.time(), **fields)
            self._put([new])
            return new

    def archive(self, obs_id: str) -> Observation:
        """Archive an observation (it is kept, no longer recalled)."""
        return self.update(obs_id, status=ObservationStatus.ARCHIVED)

    def delete(self, obs_id: str) -> None:
        """Delete an observation for good (journalled); NotFound when there is none."""
        with self._lock:
            self.get(obs_id)
            self._journal.append({"op": "delete", "id": obs_id, "at": time.time()})
            self._unindex(obs_id)
        self._on_change(None, obs_id)

    def confirm(self, obs_id: str, anchors: Sequence[Anchor], by: str, now: float | None = None) -> Observation:
        """Re-anchor to the current fingerprints and mark fresh, recording who and when."""
        t = time.time() if now is None else now
        with self._lock:
            o = self.get(obs_id)
            status = (
                o.status
                if o.status in (ObservationStatus.ARCHIVED, ObservationStatus.SUPERSEDED)
                else ObservationStatus.FRESH
            )
            new = replace(
                o,
                anchors=tuple(anchors),
                status=status,
                stale_reasons=(),
                needs_review=False,
                confirmed_by=by,
                confirmed_at=t,
                updated_at=t,
            )
            self._put([new])
            return new

    def apply(self, changed: Sequence[Observation]) -> None:
        """Write observations whose staleness or anchors the engine recomputed."""
        self._put(changed)

    # ------------------------------------------------------------------ reads

    def all(self) -> list[Observation]:
        """Every observation, in any state."""
        with self._lock:
            return list(self._obs.values())

    def anchored_to(self, node_id: str) -> list[Observation]:
        """The observations anchored to the symbol or file ``node_id``."""
        with self._lock:
            return [self._obs[i] for i in self._by_target.get(node_id, ()) if i in self._obs]

    def anchored_in(self, nodes: Mapping[str, object]) -> dict[str, list[Observation]]:
        """Observations anchored to any of ``nodes``, by node (one pass over the anchored targets)."""
        out: dict[str, list[Observation]] = {}
        with self._lock:
            if len(nodes) < len(self._by_target):
                pairs = ((n, self._by_target.get(n)) for n in nodes)
            else:
                pairs = ((t, ids) for t, ids in self._by_target.items() if t in nodes)
            for node, ids in pairs:
                if ids:
                    out[node] = [self._obs[i] for i in ids if i in self._obs]
        return out

    def targets(self) -> set[str]:
        """The symbol and file ids at least one observation is anchored to."""
        with self._lock:
            return {t for t, ids in self._by_target.items() if ids}

    def __len__(self) -> int:
        return len(self._obs)

    def __iter__(self) -> Iterator[Observation]:
        return iter(self.all())

    def import_docs(self, docs: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
        """Import observation documents (from an export); existing ids are skipped."""
        fresh: list[Observation] = []
        dupes = 0
        with self._lock:
            for d in docs:
                o = from_doc(d)
                if o.id in self._obs or any(x.id == o.id for x in fresh):
                    dupes += 1
                    continue
                fresh.append(o)
            if fresh:
                self._journal.append_many([{"op": "put", "obs": to_doc(o), "imported": True} for o in fresh])
                for o in fresh:
                    self._index(o)
        for o in fresh:
            self._on_change(o, o.id)
        return len(fresh), dupes
