"""Start-up recovery of observations: journal and store reconciled, damage quarantined.

The thin shell around ``graphmemd.memory.reconcile``: it reads the journal (collecting corrupt
lines), folds it with strict document validation, reads the store's copies, merges them,
and then makes both sides equal to the merge:

* damaged journal lines and invalid records go to a side file (``<journal>.quarantine``)
  with their line number (or seq) and the journal is rewritten atomically without them; a
  record quarantined so at an earlier start that is valid now (a limit of the codec raised
  since) is put back into the journal and leaves the side file;
* a missing or emptied journal is rebuilt from the store atomically (temp, fsync, rename);
* documents only the store had are appended to the journal;
* the store gets every newer document and loses only ids a deletion record names.

Runs once at start, before anything is served (no concurrent writers).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from graphmemd.memory.journal import Journal, quarantine_lines, take_restorable
from graphmemd.memory.obsdoc import from_doc, to_doc, validate_doc
from graphmemd.memory.observations import ObservationBook
from graphmemd.memory.reconcile import FoldedJournal, Reconciliation, fold_records, reconcile
from graphmemd.store.engine import StoredObservation, observation_row

__all__ = [
    "ObservationRows",
    "RecoveryReport",
    "quarantine_path_for",
    "recover_observations",
    "resync_store",
    "sync_store",
]

logger = logging.getLogger(__name__)

_CHUNK = 500


class ObservationRows(Protocol):
    """The part of the store recovery needs (``graphmemd.store.engine.Store`` implements it)."""

    def observations(self) -> Iterable[StoredObservation]:
        """Every stored observation copy."""
        ...

    def upsert_observations(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert or replace observation copies."""
        ...

    def delete_observation(self, obs_id: str) -> None:
        """Delete one observation copy."""
        ...


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    """What start-up recovery found and did (for the log and ``status``)."""

    records: int
    journal_missing: bool
    quarantined_lines: tuple[int, ...]
    rejected_records: int
    quarantine_path: str
    merge: Reconciliation
    compacted: bool
    #: records quarantined at an earlier start that are valid now, put back
    restored_records: int = 0

    def summary(self) -> str:
        """One line; empty when nothing needed repair."""
        parts: list[str] = []
        if self.journal_missing and self.merge.rebuild_journal:
            parts.append("the observation journal was missing")
        elif self.merge.rebuild_journal:
            parts.append("the observation journal was empty")
        if self.quarantined_lines:
            nums = ", ".join(str(n) for n in self.quarantined_lines[:10])
            more = "…" if len(self.quarantined_lines) > 10 else ""
            parts.append(f"damaged journal lines {nums}{more} quarantined to {self.quarantine_path}")
        if self.rejected_records:
            parts.append(f"{self.rejected_records} invalid journal records quarantined to {self.quarantine_path}")
        if self.restored_records:
            parts.append(f"{self.restored_records} records quarantined at an earlier start are valid now and restored")
        merged = self.merge.summary()
        if merged:
            parts.append(merged)
        return "; ".join(parts)


def _normal(doc: object) -> object:
    """A valid document in the codec's canonical form (defaults filled in), so that the two
    sides compare equal when they mean the same; anything invalid is left for rejection."""
    if isinstance(doc, Mapping) and validate_doc(doc) is None:
        return to_doc(from_doc(doc))
    return doc


def _valid_put(rec: Mapping[str, Any]) -> bool:
    """Whether a quarantined record is a put of an observation the codec accepts now."""
    obs = rec.get("obs")
    return rec.get("op") == "put" and isinstance(obs, Mapping) and validate_doc(obs) is None


def _normal_record(rec: Mapping[str, Any]) -> Mapping[str, Any]:
    if rec.get("op") == "put" and "obs" in rec:
        return {**rec, "obs": _normal(rec["obs"])}
    return rec


def _normal_row(raw: str) -> str:
    try:
        doc = json.loads(raw)
    except (TypeError, ValueError):
        return raw
    return json.dumps(_normal(doc), sort_keys=True)


def quarantine_path_for(journal_path: Path) -> Path:
    """Where damaged journal lines go: beside the journal, ``.quarantine`` appended."""
    return journal_path.with_name(journal_path.name + ".quarantine")


def recover_observations(journal: Journal, book: ObservationBook, store: ObservationRows) -> RecoveryReport:
    """Reconcile ``journal`` and ``store`` into ``book`` and write the repairs to both."""
    qpath = quarantine_path_for(journal.path)
    restored, unquarantine = take_restorable(qpath, _valid_put)
    scan = journal.scan()
    # put back first, so that the journal's own later records of the same note fold over them
    folded = fold_records((_normal_record(r) for r in (*restored, *scan.records)), validate_doc)
    stored = list(store.observations())
    rows = {s.id: _normal_row(s.doc) for s in stored}
    merge = reconcile(folded, rows, validate_doc, {s.id: s.key for s in stored if s.key})
    book.load_merged(merge)
    rejected = [(r.seq or 0, r.reason, json.dumps(r.record, sort_keys=True, default=str)) for r in folded.rejected]
    quarantine_lines(qpath, journal.path, [*scan.corrupt, *rejected])
    compacted = False
    if merge.rebuild_journal or scan.corrupt or rejected or restored:
        # The damaged lines are in the quarantine file; the journal is rewritten atomically
        # (with the restored records), and only then do they leave the quarantine file.
        book.rewrite_journal()
        unquarantine()
    elif merge.journal_appends:
        book.append_restored(merge.journal_appends, merge.keys)
    else:
        compacted = book.compact_if_needed(folded.records)
    sync_store(store, merge)
    report = RecoveryReport(
        records=folded.records,
        journal_missing=not scan.existed,
        quarantined_lines=tuple(c.number for c in scan.corrupt),
        rejected_records=len(rejected),
        quarantine_path=str(qpath),
        merge=merge,
        compacted=compacted,
        restored_records=len(restored),
    )
    text = report.summary()
    if text:
        logger.warning("observations recovered: %s", text)
    logger.info(
        "observations: %d journal records, %d live, %d deleted", folded.records, len(merge.docs), len(merge.tombstones)
    )
    return report


def resync_store(book: ObservationBook, store: ObservationRows) -> int:
    """Bring the store's copies level with the book (which is journaled): rewrite what
    differs, delete only tombstoned ids. Returns how many rows were repaired."""
    docs, tombstones = book.snapshot()
    folded = FoldedJournal(docs=docs, tombstones=tombstones, keys=book.keys())
    stored = list(store.observations())
    rows = {s.id: _normal_row(s.doc) for s in stored}
    merge = reconcile(folded, rows, validate_doc, {s.id: s.key for s in stored if s.key})
    # Only the store side: a row the book lacks stays (never delete by absence) and is
    # picked up into the journal at the next start.
    sync_store(store, merge)
    return len(merge.store_upserts) + len(merge.store_deletes)


def sync_store(store: ObservationRows, merge: Reconciliation) -> None:
    """Write the merge's store repairs (deletions only for tombstoned ids)."""
    for oid in merge.store_deletes:
        store.delete_observation(oid)
    key_of = {oid: key for key, oid in merge.keys.items()}
    rows = [observation_row(d, key_of.get(d["id"], "")) for d in merge.store_upserts]
    for i in range(0, len(rows), _CHUNK):
        store.upsert_observations(rows[i : i + _CHUNK])
