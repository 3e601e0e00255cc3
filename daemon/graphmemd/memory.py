"""Memory: observations, the journal, anchors and staleness, around the pure core.

The journal (``journal.py``, fsynced JSON lines) is the source of truth; the book
(``observations.py``) folds it in memory; the store's Observation nodes are a copy written
by the store writer. ``apply(delta, code, commit)`` turns an indexer delta into state
changes (``staleness.restale``), journals them and publishes their events. Observation
operations (create, update, confirm, archive, delete, import, export) journal first and
publish an event each.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from graphmem.errors import FailedPrecondition, GraphMemError, InvalidArgument
from graphmem.types import Anchor, Category, Event, EventKind, Observation, ObservationAction, ObservationStatus

from graphmemd.delta import GraphDelta
from graphmemd.events import EventBus, action_for_change
from graphmemd.journal import Journal
from graphmemd.observations import ObservationBook, from_doc, to_doc
from graphmemd.staleness import CodeView, event_for, reevaluate, restale
from graphmemd.store import Store, observation_row
from graphmemd.writer import StoreWriter

logger = logging.getLogger(__name__)


def remap_repo(o: Observation, old: str, new: str) -> Observation:
    """``o`` with every reference to repository ``old`` turned into ``new`` (the repository
    and each anchor's repository and symbol id; paths and refs are repository-relative)."""
    if o.repo_id != old and all(a.repo_id != old for a in o.anchors):
        return o
    prefix = f"{old}:"
    anchors = tuple(
        replace(
            a,
            repo_id=new,
            symbol_id=f"{new}:{a.symbol_id[len(prefix):]}" if a.symbol_id.startswith(prefix) else a.symbol_id,
        )
        if a.repo_id == old
        else a
        for a in o.anchors
    )
    return replace(o, repo_id=new if o.repo_id == old else o.repo_id, anchors=anchors)


class Memory:
    """Every observation, journal-backed, mirrored into the store, reacting to graph deltas."""

    def __init__(self, journal_path: Any, store: Store, writer: StoreWriter, bus: EventBus) -> None:
        self._store = store
        self._writer = writer
        self._bus = bus
        self._journal = Journal(journal_path)
        self.book = ObservationBook(self._journal, self._mirror)

    # ------------------------------------------------------------------ lifecycle

    def open(self) -> None:
        """Replay the journal, compact it if it outgrew the live set, repair the store copy."""
        n = self.book.load()
        logger.info("journal replayed: %d records, %d observations", n, len(self.book))
        if self.book.compact_if_needed(n):
            logger.info("journal compacted: %d records -> %d", n, len(self.book))
        self._sync_store()

    def close(self) -> None:
        """Close the journal."""
        self._journal.close()

    def _sync_store(self) -> None:
        """Make the store's Observation nodes equal the journal's (the journal wins)."""
        want = {o.id: observation_row(to_doc(o)) for o in self.book.all()}
        have = {s.id: s.doc for s in self._store.observations()}
        stale = [row for oid, row in want.items() if have.get(oid) != row["doc"]]
        extra = [oid for oid in have if oid not in want]
        for oid in extra:
            self._store.delete_observation(oid)
        for i in range(0, len(stale), 500):
            self._store.upsert_observations(stale[i : i + 500])
        if stale or extra:
            logger.warning(
                "store repaired from the journal: %d observations rewritten, %d removed", len(stale), len(extra)
            )

    def _mirror(self, o: Observation | None, obs_id: str) -> None:
        """Queue the store copy of an observation (the journal already has it; a failed store
        write is repaired from the journal at the next start)."""
        store = self._store
        if o is None:
            self._writer.submit(lambda: store.delete_observation(obs_id))
        else:
            row = observation_row(to_doc(o))
            self._writer.submit(lambda: store.upsert_observations([row]))

    def _publish(self, kind: EventKind, o: Observation, action: ObservationAction) -> None:
        self._bus.publish(Event(kind, time.time(), o.repo_id, observation=o, action=action, observation_id=o.id))

    # ------------------------------------------------------------------ deltas

    def candidates(self, delta: GraphDelta) -> list[Observation]:
        """The observations a delta may change: anchored to what it touched or to what depends
        on it, suspect because of something it touched, or (cold) every observation anchored
        in the repository."""
        if delta.cold:
            return [o for o in self.book.all() if any(a.repo_id == delta.repo_id for a in o.anchors)]
        found: dict[str, Observation] = {}
        nodes = delta.node_ids()
        for node in (*nodes, *(i.dependent for i in delta.impacts)):
            for o in self.book.anchored_to(node):
                found[o.id] = o
        for o in self.book.all():  # suspects whose dependency this delta touched (it may be back)
            if o.status is ObservationStatus.SUSPECT and any(r.dependency_id in nodes for r in o.stale_reasons):
                found[o.id] = o
        return list(found.values())

    def apply(self, delta: GraphDelta, code: CodeView, commit: str) -> int:
        """Recompute the observations ``delta`` touched against ``code`` (the graph after the
        delta); journal and publish the changes. Returns how many changed."""
        candidates = self.candidates(delta)
        if not candidates:
            return 0
        changes = restale(delta, sorted(candidates, key=lambda o: o.id), code, time.time(), commit)
        if not changes:
            return 0
        self.book.apply([c.after for c in changes])
        for c in changes:
            self._publish(c.event, c.after, action_for_change(c.before, c.after))
        return len(changes)

    def remap_repo(self, old: str, new: str) -> int:
        """Move the observations of repository ``old`` (no longer registered) to ``new``, a
        clone of the same repository registered now; returns how many moved."""
        now = time.time()
        moved = [remap_repo(o, old, new) for o in self.book.all() if o.repo_id == old]
        self.book.apply([replace(o, updated_at=now) for o in moved])
        return len(moved)

    def purge_repo(self, repo_id: str) -> int:
        """Delete every observation of a repository for good; returns how many."""
        doomed = [o.id for o in self.book.all() if o.repo_id == repo_id]
        for oid in doomed:
            self.book.delete(oid)
        return len(doomed)

    def reevaluate(self, ids: Sequence[str], code: CodeView, commit: str) -> int:
        """Judge observations against ``code`` as it is now (after an import); returns how
        many changed."""
        now = time.time()
        changed: list[tuple[Observation, Observation]] = []
        for oid in ids:
            o = self.book.get(oid)
            new = reevaluate(o, code, now, commit)
            if new != o:
                changed.append((o, replace(new, updated_at=now)))
        self.book.apply([after for _, after in changed])
        for before, after in changed:
            self._publish(event_for(before, after), after, action_for_change(before, after))
        return len(changed)

    # ------------------------------------------------------------------ operations

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
        supersedes: Sequence[str],
        contradicts: Sequence[str],
        idempotency_key: str,
    ) -> Observation:
        """Save a new observation (journaled before this returns) and wait, briefly, until
        its store copy is searchable."""
        o = self.book.create(
            repo_id=repo_id,
            text=text,
            category=category,
            tags=tags,
            source=source,
            confidence=confidence,
            anchors=anchors,
            supersedes=supersedes,
            contradicts=contradicts,
            idempotency_key=idempotency_key,
        )
        try:
            self._writer.submit(lambda: None).result(10)  # visible to text search when we answer
        except (TimeoutError, GraphMemError) as exc:
            logger.warning("observation %s acknowledged from the journal; store copy pending: %s", o.id, exc)
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.CREATED)
        return o

    def update(self, obs_id: str, **fields: Any) -> Observation:
        """Change text, category, tags or confidence."""
        o = self.book.update(obs_id, **fields)
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.UPDATED)
        return o

    def archive(self, obs_id: str) -> Observation:
        """Archive an observation (kept, never retrieved)."""
        o = self.book.archive(obs_id)
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.ARCHIVED)
        return o

    def delete(self, obs_id: str) -> None:
        """Delete an observation for good (the event carries it as it was)."""
        o = self.book.get(obs_id)
        self.book.delete(obs_id)
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.DELETED)

    def confirm(self, obs_id: str, anchors: Sequence[Anchor], lost: Sequence[str], by: str) -> Observation:
        """Re-anchor to ``anchors`` (the current code) and mark fresh."""
        if not anchors:
            raise FailedPrecondition(
                f"every anchor of {obs_id} is gone ({', '.join(lost)}); save a new observation that supersedes it"
            )
        new = self.book.confirm(obs_id, anchors, by or "unknown")
        self._publish(EventKind.OBSERVATION_FRESH, new, ObservationAction.CONFIRMED)
        return new

    def export_lines(self, describe: Callable[[str], Mapping[str, str] | None]) -> Iterator[str]:
        """Every observation as an export line (oldest first), with ``describe(repo_id)``:
        the repository's identity, so an import into another clone finds its repository."""
        for o in sorted(self.book.all(), key=lambda o: (o.created_at, o.id)):
            rec: dict[str, Any] = {"op": "put", "obs": to_doc(o)}
            repo = describe(o.repo_id)
            if repo is not None:
                rec["repo"] = {"id": o.repo_id, **repo}
            yield json.dumps(rec, sort_keys=True, ensure_ascii=False)

    def import_lines(
        self, lines: Iterable[str], place: Callable[[str, Mapping[str, Any] | None], str | None]
    ) -> tuple[list[str], int]:
        """Import exported lines; ``place(repo_id, repo_descriptor)`` names the local
        repository each record belongs to (None: keep its own). Returns (ids imported,
        skipped duplicates)."""
        records = Journal.import_records(lines)
        docs: list[Mapping[str, Any]] = []
        for i, rec in enumerate(records, 1):
            obs = rec.get("obs") if rec.get("op", "put") == "put" else None
            if not isinstance(obs, dict):
                raise InvalidArgument(f"line {i}: not an exported observation record")
            repo = rec.get("repo")
            o = from_doc(obs)
            local = place(o.repo_id, repo if isinstance(repo, dict) else None)
            docs.append(to_doc(remap_repo(o, o.repo_id, local)) if local and local != o.repo_id else obs)
        known = {o.id for o in self.book.all()}
        _imported, dupes = self.book.import_docs(docs)
        return sorted({str(d["id"]) for d in docs} - known), dupes
