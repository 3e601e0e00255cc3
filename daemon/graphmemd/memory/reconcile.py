"""Merging the observation journal with the store's copies: never delete by absence.

Pure functions over JSON documents (no I/O, no threads). The journal is the fsync'd record
of every acknowledged write and the store is a copy, but either can be damaged: a journal
deleted, emptied or with a torn/corrupt line; a store whose WAL lost rows. So neither simply
wins. The merged state is the union of both, per observation id:

* the newest version wins: the larger ``updated_at``; on a tie the journal's version (it is
  written before the store), then the larger canonical JSON (deterministic either way);
* an observation disappears only through an explicit deletion record (a tombstone
  ``{"op": "delete", "id": ..., "at": ...}``), which beats every version not newer than it.
  Tombstones are kept through journal compaction, so a deletion is never forgotten.

Idempotency keys (which create made which observation) are kept by both sides too: the
journal's records and the store's rows. The merged keys are the union for live observations.

``reconcile`` says what each side lacks: the documents the store must (re)write or delete,
and the documents the journal must gain (or, when the journal is missing or empty, that it
must be rebuilt from the store).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FoldedJournal",
    "Reconciliation",
    "RejectedRecord",
    "fold_records",
    "merged_keys",
    "reconcile",
    "version_key",
]

Doc = Mapping[str, Any]
#: Says why a document is unusable (None: it is fine).
Validator = Callable[[Mapping[str, Any]], "str | None"]


def _accept_all(_doc: Mapping[str, Any]) -> str | None:
    return None


@dataclass(frozen=True, slots=True)
class RejectedRecord:
    """A journal record that parses as JSON but is not a usable put/delete record."""

    seq: int | None
    reason: str
    record: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class FoldedJournal:
    """The journal folded in file order: last write per id wins, a later put revives a
    deleted id, a later delete removes it."""

    docs: dict[str, dict[str, Any]] = field(default_factory=dict)
    tombstones: dict[str, float] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    records: int = 0
    rejected: tuple[RejectedRecord, ...] = ()
    #: what a deletion record says besides the time (id -> its "by" and "history"), kept with it
    deletions: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when the journal holds no usable record at all."""
        return not self.docs and not self.tombstones


def _finite(value: object, default: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    f = float(value)
    return f if math.isfinite(f) else default


def canonical(doc: Doc) -> str:
    """The document as canonical JSON (the deterministic tiebreak)."""
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def version_key(doc: Doc, from_journal: bool) -> tuple[float, int, str]:
    """The order of two versions of one observation: newest ``updated_at``, then the
    journal's, then the larger canonical JSON."""
    return (_finite(doc.get("updated_at")), 1 if from_journal else 0, canonical(doc))


def _doc_id(doc: object) -> str:
    if isinstance(doc, Mapping):
        value = doc.get("id")
        if isinstance(value, str) and value:
            return value
    return ""


def fold_records(records: Iterable[Mapping[str, Any]], validate: Validator = _accept_all) -> FoldedJournal:
    """Fold journal records (in file order). Records that are neither a put with a valid
    observation document (``validate``) nor a delete with an id are rejected; a rejected
    put leaves the previous version of that observation in place."""
    docs: dict[str, dict[str, Any]] = {}
    tombstones: dict[str, float] = {}
    deletions: dict[str, dict[str, Any]] = {}
    keys: dict[str, str] = {}
    rejected: list[RejectedRecord] = []
    n = 0
    for rec in records:
        n += 1
        seq = rec.get("seq")
        seq_n = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
        op = rec.get("op")
        if op == "put":
            obs = rec.get("obs")
            oid = _doc_id(obs)
            if not oid or not isinstance(obs, Mapping):
                rejected.append(RejectedRecord(seq_n, "a put record without an observation id", rec))
                continue
            why = validate(obs)
            if why is not None:
                rejected.append(RejectedRecord(seq_n, why, rec))
                continue
            docs[oid] = dict(obs)
            tombstones.pop(oid, None)
            deletions.pop(oid, None)
            key = rec.get("key")
            if isinstance(key, str) and key:
                keys[key] = oid
        elif op == "delete":
            did = rec.get("id")
            if not isinstance(did, str) or not did:
                rejected.append(RejectedRecord(seq_n, "a delete record without an id", rec))
                continue
            docs.pop(did, None)
            tombstones[did] = _finite(rec.get("at"))
            deletions[did] = deletion_fields(rec)
        else:
            rejected.append(RejectedRecord(seq_n, f"unknown op {op!r}", rec))
    return FoldedJournal(docs, tombstones, keys, n, tuple(rejected), deletions)


def deletion_fields(rec: Mapping[str, Any]) -> dict[str, Any]:
    """What a deletion record keeps besides id and time: who deleted the note and its history
    (the history's entries are validated where they are read, ``ObservationBook.deleted``)."""
    return {k: rec[k] for k in ("by", "history") if k in rec}


def merged_keys(
    journal_keys: Mapping[str, str], store_keys: Mapping[str, str], live: Mapping[str, object]
) -> dict[str, str]:
    """Idempotency key -> observation id for the ``live`` observations: the journal's
    (key -> id) and the store's (id -> key), the journal's winning a conflict."""
    keys = {k: v for k, v in journal_keys.items() if v in live}
    known = set(keys.values())  # an observation the journal names a key for keeps that one
    keys.update({key: oid for oid, key in sorted(store_keys.items()) if key and oid in live and oid not in known})
    return keys


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """The merged state and what each side must do to reach it."""

    #: Every live observation document after the merge, by id.
    docs: dict[str, dict[str, Any]]
    #: Every deletion (id -> deleted at), to keep in the journal.
    tombstones: dict[str, float]
    #: Idempotency keys (key -> id) that still name a live observation.
    keys: dict[str, str]
    #: Documents the store lacks or holds an older version of.
    store_upserts: tuple[dict[str, Any], ...]
    #: Ids the store still holds although a deletion record removed them.
    store_deletes: tuple[str, ...]
    #: Documents the journal lacks or holds an older version of (taken from the store).
    journal_appends: tuple[dict[str, Any], ...]
    #: The journal had no usable record while the store had observations: rewrite it whole.
    rebuild_journal: bool
    #: Store rows that could not be read as documents (ids), left untouched.
    unreadable_store_rows: tuple[str, ...] = ()
    #: What each remaining deletion record says besides the time (who, the note's history).
    deletions: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def journal_changes(self) -> bool:
        """Whether the journal must be written (rebuilt or appended to)."""
        return self.rebuild_journal or bool(self.journal_appends)

    def summary(self) -> str:
        """One line for the log and ``status`` (empty when both sides already agreed)."""
        parts: list[str] = []
        if self.rebuild_journal:
            parts.append(f"journal rebuilt from the store ({len(self.docs)} observations)")
        elif self.journal_appends:
            parts.append(f"{len(self.journal_appends)} observations restored into the journal from the store")
        if self.store_upserts:
            parts.append(f"{len(self.store_upserts)} store copies rewritten from the journal")
        if self.store_deletes:
            parts.append(f"{len(self.store_deletes)} deleted observations removed from the store")
        if self.unreadable_store_rows:
            parts.append(f"{len(self.unreadable_store_rows)} unreadable store rows ignored")
        return "; ".join(parts)


def reconcile(
    journal: FoldedJournal,
    store_rows: Mapping[str, str],
    validate: Validator = _accept_all,
    store_keys: Mapping[str, str] | None = None,
) -> Reconciliation:
    """Merge the folded journal with the store's rows (id -> document JSON) and the keys the
    store holds (id -> idempotency key); store rows that are not valid documents
    (``validate``) are ignored and listed. A live observation whose store row lacks its key
    is rewritten with it.

    Nothing is deleted because one side lacks it; see the module docstring for the rules."""
    store_docs: dict[str, dict[str, Any]] = {}
    unreadable: list[str] = []
    for oid, raw in store_rows.items():
        try:
            doc = json.loads(raw)
        except (TypeError, ValueError):
            unreadable.append(oid)
            continue
        if not isinstance(doc, dict) or _doc_id(doc) != oid or validate(doc) is not None:
            unreadable.append(oid)
            continue
        store_docs[oid] = doc

    merged: dict[str, dict[str, Any]] = {}
    tombstones = dict(journal.tombstones)
    store_upserts: list[dict[str, Any]] = []
    store_deletes: list[str] = []
    journal_appends: list[dict[str, Any]] = []
    for oid in sorted(set(journal.docs) | set(store_docs) | set(tombstones)):
        j, s = journal.docs.get(oid), store_docs.get(oid)
        candidates = [(version_key(d, src), d) for d, src in ((j, True), (s, False)) if d is not None]
        if not candidates:  # a tombstone only: nothing to keep
            continue
        best_key, best = max(candidates, key=lambda c: c[0])
        dead_at = tombstones.get(oid)
        if dead_at is not None and best_key[0] <= dead_at:
            if s is not None:
                store_deletes.append(oid)
            continue
        tombstones.pop(oid, None)  # a newer version than the deletion: it lives again
        merged[oid] = best
        if s is None or canonical(s) != canonical(best):
            store_upserts.append(best)
        if j is None or canonical(j) != canonical(best):
            journal_appends.append(best)

    rebuild = journal.empty and bool(store_docs)
    keys = merged_keys(journal.keys, store_keys or {}, merged)
    upserted = {d["id"] for d in store_upserts}
    for key, oid in sorted(keys.items()):
        if oid not in upserted and (store_keys or {}).get(oid, "") != key:
            store_upserts.append(merged[oid])  # its row lacks the key
            upserted.add(oid)
    return Reconciliation(
        docs=merged,
        tombstones=tombstones,
        keys=keys,
        store_upserts=tuple(store_upserts),
        store_deletes=tuple(store_deletes),
        journal_appends=() if rebuild else tuple(journal_appends),
        rebuild_journal=rebuild,
        unreadable_store_rows=tuple(sorted(unreadable)),
        deletions={oid: d for oid, d in journal.deletions.items() if oid in tombstones},
    )
