"""Memory: observations, the journal, anchors and staleness, around the pure core.

The journal (``journal.py``, fsynced JSON lines) is the source of truth; the book
(``observations.py``) folds it in memory; the store's Observation nodes are a copy written
by the store writer. ``apply(delta, code, commit)`` turns an indexer delta into state
changes (``staleness.restale``), journals them and publishes their events. Observation
operations (create, update, confirm, archive, delete, import, export) journal first and
publish an event each.

**Acknowledged means two durable copies.** A create, update, confirm, archive, delete or
import returns only once the journal line is fsynced *and* the store has committed its copy
(``_acknowledge``), so losing either file loses nothing acknowledged: start-up recovery
rebuilds it from the other. The store copy is an urgent write (it runs before queued graph
writes and between the chunks of a bulk load). A store write can fail after it committed
(Kùzu), so a failed copy is written once more (idempotent: by id); if that fails too the
call fails (``Unavailable``, retried by the clients with the same idempotency key, which
finds the journaled observation and writes its copy again). Staleness changes the indexer
makes are not acknowledged to anyone and stay write-behind.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

from graphmem.errors import FailedPrecondition, GraphMemError, InvalidArgument, NotFound, ResourceExhausted, Unavailable
from graphmem.types import Anchor, Category, Event, EventKind, Observation, ObservationAction, ObservationStatus

from graphmemd.graph.delta import GraphDelta
from graphmemd.memory.bodylines import BodyQuery, counted
from graphmemd.memory.checkout_views import CheckoutViews
from graphmemd.memory.checkouts import translate_anchor
from graphmemd.memory.commits import (
    commit_origin,
    flag_uncommitted,
    name_commits,
    origin_paths,
    uncommitted_reason_paths,
)
from graphmemd.memory.history import DAEMON
from graphmemd.memory.journal import Journal
from graphmemd.memory.knowledge import first_seen
from graphmemd.memory.observations import NO_ORIGIN, ObservationBook, Origin, to_doc
from graphmemd.memory.recovery import recover_observations, resync_store
from graphmemd.memory.staleness import CodeView, event_for, reevaluate, restale
from graphmemd.memory.validation import parse_import
from graphmemd.runtime.events import EventBus, action_for_change
from graphmemd.runtime.faults import NO_FAULTS, Faults
from graphmemd.store.engine import Store, observation_row
from graphmemd.store.writer import StoreWriter

logger = logging.getLogger(__name__)

#: How long an acknowledgement waits for the store copy (a reopen or a bulk load's chunk runs
#: first; past this the call fails with ``Unavailable`` and a retry finds the journaled note)
STORE_ACK_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class NewObservation:
    """What a caller asks to save: the text and its metadata, anchors still as references
    (``path::Qualified.name``, a file path or a symbol id)."""

    text: str
    category: Category
    tags: tuple[str, ...] = ()
    source: str = "unknown"
    confidence: float = 1.0
    anchors: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    idempotency_key: str = ""
    shared: bool = False  # a shared note: written as a file under .graphmem/notes


def remap_repo(o: Observation, old: str, new: str) -> Observation:
    """``o`` with every reference to repository ``old`` turned into ``new`` (the repository
    and each anchor's repository and symbol id; paths and refs are repository-relative)."""
    if o.repo_id != old and all(a.repo_id != old for a in o.anchors):
        return o
    anchors = tuple(translate_anchor(a, new) if a.repo_id == old else a for a in o.anchors)
    return replace(o, repo_id=new if o.repo_id == old else o.repo_id, anchors=anchors)


class Memory:
    """Every observation, journal-backed, mirrored into the store, reacting to graph deltas."""

    def __init__(
        self, journal_path: Any, store: Store, writer: StoreWriter, bus: EventBus, faults: Faults = NO_FAULTS
    ) -> None:
        self._store = store
        self._writer = writer
        self._bus = bus
        self._journal = Journal(journal_path, inject_enospc=lambda: faults.fires("journal-enospc"))
        self.book = ObservationBook(self._journal, self._mirror)
        #: what each checkout shows of the notes saved in the other checkouts of its repository
        self.views = CheckoutViews(self.book.all, bus)
        #: Set when a mirrored store write failed; cleared once the store caught up.
        self._store_behind = threading.Event()
        self._lock = threading.Lock()
        #: the latest store write of each observation not done yet (``_acknowledge`` waits for it)
        self._writes: dict[str, Future[Any]] = {}
        #: observations whose latest store write failed (written again before an acknowledgement)
        self._unstored: set[str] = set()

    # ------------------------------------------------------------------ lifecycle

    def open(self) -> str:
        """Reconcile the journal and the store's copies (``obs_recovery``: union, newest
        wins, deletions only by deletion records; damaged lines quarantined; a missing or
        empty journal rebuilt from the store) and compact the journal if it outgrew the live
        set. Returns what recovery repaired ("" when nothing)."""
        report = recover_observations(self._journal, self.book, self._store)
        logger.info("journal replayed: %d records, %d observations", report.records, len(self.book))
        return (
            report.summary()
            if (
                report.merge.journal_changes
                or report.quarantined_lines
                or report.rejected_records
                or report.merge.store_deletes
            )
            else ""
        )

    def close(self) -> None:
        """Close the journal."""
        self._journal.close()

    def space_problem(self) -> str:
        """ "disk full: ..." while journal writes are refused for lack of space, else ""."""
        return self._journal.space_problem()

    def resync_store_if_behind(self) -> bool:
        """After a store write failed (a full disk, an injected fault), bring the store's
        copies level with the book again: runs on the writer thread when its queue drained.
        True when it did (the store takes writes again)."""
        if not self._store_behind.is_set():
            return False
        self._store_behind.clear()
        try:
            n = resync_store(self.book, self._store)
        except GraphMemError:
            self._store_behind.set()
            raise
        if n:
            logger.warning("store caught up with the journal: %d observation copies repaired", n)
        return True

    def _mirror(self, o: Observation | None, obs_id: str) -> Future[Any]:
        """Queue the store copy of an observation, urgent (the journal already has it; a
        failed store write marks the store behind, and the writer repairs it once writes
        succeed again); returns its future."""
        self.views.note_changed(o, obs_id)
        store = self._store
        if o is None:
            fut = self._writer.submit(lambda: store.delete_observation(obs_id), urgent=True)
        else:
            row = observation_row(to_doc(o), self.book.key_of(obs_id))
            fut = self._writer.submit(lambda: store.upsert_observations([row]), urgent=True)
        with self._lock:
            self._writes[obs_id] = fut
        fut.add_done_callback(lambda done: self._note_store_result(obs_id, done))
        return fut

    def _note_store_result(self, obs_id: str, fut: Future[Any]) -> None:
        failed = fut.exception() is not None
        with self._lock:
            if self._writes.get(obs_id) is fut:
                del self._writes[obs_id]
                (self._unstored.add if failed else self._unstored.discard)(obs_id)
        if failed:
            self._store_behind.set()

    def _rewrite(self, obs_id: str) -> Future[Any]:
        """Queue the store copy of ``obs_id`` as the book has it now (deleted: its deletion)."""
        try:
            return self._mirror(self.book.get(obs_id), obs_id)
        except NotFound:
            return self._mirror(None, obs_id)

    def _acknowledge(self, ids: Iterable[str]) -> None:
        """Return once the store has committed the copy of each of ``ids`` (the journal has
        them already): a failed copy is written once more (see the module docstring)."""
        deadline = time.monotonic() + STORE_ACK_TIMEOUT_S
        for obs_id in dict.fromkeys(ids):
            with self._lock:
                fut = self._writes.get(obs_id)
                again = fut is None and obs_id in self._unstored
            if again:
                fut = self._rewrite(obs_id)
            if fut is None:
                continue
            error = _wait(fut, deadline)
            if error is not None and not isinstance(error, Unavailable | ResourceExhausted):
                error = _wait(self._rewrite(obs_id), deadline)  # it may have committed: once more
            _raise_unacknowledged(obs_id, error)

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

    def apply(
        self,
        delta: GraphDelta,
        code: CodeView,
        commit: str,
        uncommitted: Callable[[Collection[str]], Collection[str]] = lambda paths: (),
        measure: Callable[[Sequence[BodyQuery]], Mapping[str, int]] = lambda queries: {},
    ) -> int:
        """Recompute the observations ``delta`` touched against ``code`` (the graph after the
        delta); journal and publish the changes, then judge again what this checkout shows of
        its siblings' notes (the delta's renames and dependency reasons included).
        ``uncommitted(paths)``: which of the files of the reasons found now
        differ from HEAD (those reasons are flagged uncommitted; asked only when there are new
        reasons). ``measure(queries)``: how many lines each body change found now touched
        (``bodylines``; asked only when there are such changes). Returns how many of its own changed."""
        n = self._apply(delta, code, commit, uncommitted, measure)
        self.views.refresh(delta.repo_id, delta, measure)
        return n

    def _apply(
        self,
        delta: GraphDelta,
        code: CodeView,
        commit: str,
        uncommitted: Callable[[Collection[str]], Collection[str]],
        measure: Callable[[Sequence[BodyQuery]], Mapping[str, int]],
    ) -> int:
        candidates = self.candidates(delta)
        if not candidates:
            return 0
        now = time.time()
        changes = restale(delta, sorted(candidates, key=lambda o: o.id), code, now, commit)
        if not changes:
            return 0
        flagged = counted(flag_uncommitted([c.after for c in changes], now, uncommitted), now, code, measure)
        changes = [replace(c, after=after) for c, after in zip(changes, flagged, strict=True)]
        self.book.apply([c.after for c in changes], commit=commit)
        for c in changes:
            self._publish(c.event, c.after, action_for_change(c.before, c.after))
        return len(changes)

    def name_commits(
        self, repo_id: str, committed: Callable[[Collection[str]], Mapping[str, str]], head: str = ""
    ) -> int:
        """After HEAD moved (to ``head``): each uncommitted reason of the repository's notes whose
        file is committed now names its commit (``committed(paths)``: path -> the last commit
        that touched it, for the paths that no longer differ from HEAD), and a note saved on
        code not committed then whose files are all committed now takes ``head`` as its origin
        (``commit_origin``: other checkouts that contain it judge it). Returns how many changed."""
        notes = [
            o
            for o in self.book.all()
            if o.repo_id == repo_id and (o.origin_uncommitted or any(r.uncommitted for r in o.stale_reasons))
        ]
        paths = uncommitted_reason_paths(notes) | {p for o in notes for p in origin_paths(o)}
        if not paths:
            return 0
        named = committed(paths)
        changed = [(o, commit_origin(name_commits(o, named), named, head)) for o in notes] if named else []
        changed = [(o, after) for o, after in changed if after != o]
        if not changed:
            return 0
        self.book.apply([after for _, after in changed])
        for _, after in changed:
            self._publish(EventKind.OBSERVATION_CHANGED, after, ObservationAction.UPDATED)
        return len(changed)

    def remap_repo(self, old: str, new: str) -> int:
        """Move the observations of repository ``old`` (no longer registered) to ``new``, a
        clone of the same repository registered now; returns how many moved."""
        now = time.time()
        moved = [remap_repo(o, old, new) for o in self.book.all() if o.repo_id == old]
        self.book.apply([replace(o, updated_at=now) for o in moved])
        return len(moved)

    def rehome(self, obs_id: str, checkout: str, *, announce: bool = False) -> Observation:
        """Move a note whose checkout is gone (a worktree removed or moved) to ``checkout``,
        another checkout of its repository: its anchors are then that one's. ``announce``:
        publish the change (a worktree moved: subscribers list the note under its new home)."""
        o = self.book.get(obs_id)
        moved = replace(remap_repo(o, o.repo_id, checkout), updated_at=time.time())
        self.book.apply([moved])
        if announce:
            self._publish(EventKind.OBSERVATION_CHANGED, moved, ObservationAction.UPDATED)
        return moved

    def purge_repo(self, repo_id: str) -> int:
        """Delete every observation of a repository for good; returns how many."""
        doomed = [o.id for o in self.book.all() if o.repo_id == repo_id]
        for oid in doomed:
            self.book.delete(oid, by=DAEMON)
        self._acknowledge(doomed)
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
        self.book.apply([after for _, after in changed], commit=commit)
        for before, after in changed:
            self._publish(event_for(before, after), after, action_for_change(before, after))
        return len(changed)

    # ------------------------------------------------------------------ operations

    def create(
        self, repo_id: str, new: NewObservation, anchors: Sequence[Anchor], origin: Origin = NO_ORIGIN
    ) -> Observation:
        """Save a new observation: journaled and copied into the store before this returns
        (searchable at once: text search is in memory). A repeated idempotency key returns
        the observation its first create made (and makes sure the store has it)."""
        started = time.time()
        o = self.book.create(
            repo_id=repo_id,
            text=new.text,
            category=new.category,
            tags=new.tags,
            source=new.source,
            confidence=new.confidence,
            anchors=anchors,
            supersedes=new.supersedes,
            contradicts=new.contradicts,
            idempotency_key=new.idempotency_key,
            origin=origin,
        )
        self._acknowledge([o.id, *new.supersedes])
        if o.created_at >= started:  # not a retry that found its first create
            self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.CREATED)
        return o

    def apply_knowledge(self, puts: Sequence[Observation], deletes: Sequence[str]) -> int:
        """Write the units of knowledge files that changed (created, re-read, re-graded) and
        delete the units gone from their files; publish one event each. Returns how many."""
        changed: list[tuple[Observation | None, Observation]] = []
        for o in puts:
            try:
                before: Observation | None = self.book.get(o.id)
            except NotFound:
                before = None
            # the history is the book's to extend: a unit read again unchanged is no change
            o = first_seen(o, before)
            if before is None or replace(before, updated_at=o.updated_at, history=o.history) != o:
                changed.append((before, o))
        self.book.apply([after for _, after in changed])
        for before, after in changed:
            if before is None:
                self._publish(EventKind.OBSERVATION_CHANGED, after, ObservationAction.CREATED)
            else:
                self._publish(event_for(before, after), after, action_for_change(before, after))
        for oid in deletes:
            try:
                self.delete(oid, from_file=True)
            except NotFound:
                continue
        return len(changed) + len(deletes)

    @staticmethod
    def _read_only(o: Observation, verb: str) -> None:
        """Units of knowledge files change only through their files."""
        k = o.knowledge
        if k is not None:
            raise FailedPrecondition(
                f"{o.id} comes from {k.path}:{k.start_line}; edit the file to {verb} it "
                "(knowledge files are read-only through graphmem)"
            )

    def update(self, obs_id: str, by: str = "", commit: str = "", **fields: Any) -> Observation:
        """Change text, category, tags or confidence (not of a knowledge file's unit); ``by``
        who asks and ``commit`` HEAD then go into its history."""
        self._read_only(self.book.get(obs_id), "change")
        o = self.book.update(obs_id, by=by, commit=commit, **fields)
        self._acknowledge([obs_id])
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.UPDATED)
        return o

    def archive(self, obs_id: str, by: str = "", commit: str = "") -> Observation:
        """Archive an observation (kept, never retrieved; not a knowledge file's unit),
        recording who asked."""
        self._read_only(self.book.get(obs_id), "archive")
        o = self.book.archive(obs_id, by=by, commit=commit)
        self._acknowledge([obs_id])
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.ARCHIVED)
        return o

    def delete(self, obs_id: str, *, from_file: bool = False, by: str = "") -> None:
        """Delete an observation for good (the event carries it as it was); a knowledge
        file's unit only when it left its file (``from_file``). Deleting it again while its
        store copy was not deleted yet (a retry of a call that failed) deletes that."""
        with self._lock:
            retry = obs_id in self._unstored or obs_id in self._writes
        if retry and self.book.is_deleted(obs_id):
            self._acknowledge([obs_id])
            return
        o = self.book.get(obs_id)
        if not from_file:
            self._read_only(o, "delete")
        self.book.delete(obs_id, by=DAEMON if from_file else by)
        if not from_file:  # a unit gone from its file is the indexer's change, acknowledged to no one
            self._acknowledge([obs_id])
        self._publish(EventKind.OBSERVATION_CHANGED, o, ObservationAction.DELETED)

    def confirm(
        self, obs_id: str, anchors: Sequence[Anchor], lost: Sequence[str], by: str, commit: str = ""
    ) -> Observation:
        """Re-anchor to ``anchors`` (the current code) and mark fresh."""
        if not anchors:
            raise FailedPrecondition(
                f"every anchor of {obs_id} is gone ({', '.join(lost)}); save a new observation that supersedes it"
            )
        new = self.book.confirm(obs_id, anchors, by or "unknown", commit=commit)
        self._acknowledge([obs_id])
        self._publish(EventKind.OBSERVATION_FRESH, new, ObservationAction.CONFIRMED)
        return new

    def export_lines(self, describe: Callable[[str], Mapping[str, str] | None], repo_id: str = "") -> Iterator[str]:
        """Every observation (of ``repo_id`` when given) as an export line (oldest first), with
        ``describe(repo_id)``: the repository's identity, so an import into another clone finds
        its repository. Units of knowledge files are left out: they travel with their files."""
        for o in sorted(self.book.all(), key=lambda o: (o.created_at, o.id)):
            if (repo_id and o.repo_id != repo_id) or o.knowledge is not None:
                continue
            rec: dict[str, Any] = {"op": "put", "obs": to_doc(o)}
            repo = describe(o.repo_id)
            if repo is not None:
                rec["repo"] = {"id": o.repo_id, **repo}
            yield json.dumps(rec, sort_keys=True, ensure_ascii=False)

    def import_lines(
        self, lines: Iterable[str], place: Callable[[str, Mapping[str, Any] | None], str | None]
    ) -> tuple[list[str], int, list[str]]:
        """Import exported lines, each validated (types, ranges, sizes: ``parse_import``);
        ``place(repo_id, repo_descriptor)`` names the local repository each record belongs to
        (None: keep its own). Returns (ids imported, skipped duplicates, one message per
        rejected line with its number); nothing valid at all is ``InvalidArgument``."""
        batch = parse_import(lines)
        if batch.errors and not batch.items:
            raise InvalidArgument("nothing to import: " + "; ".join(batch.errors[:20]))
        observations: list[Observation] = []
        for o, repo in batch.items:
            local = place(o.repo_id, repo)
            observations.append(remap_repo(o, o.repo_id, local) if local and local != o.repo_id else o)
        known = {o.id for o in self.book.all()}
        _imported, dupes = self.book.import_observations(observations)
        self._acknowledge(sorted({o.id for o in observations} - known))
        return sorted({o.id for o in observations} - known), dupes, batch.errors


def _wait(fut: Future[Any], deadline: float) -> BaseException | None:
    """Wait for a store write until ``deadline``: its error, or None when it committed."""
    try:
        return fut.exception(timeout=max(0.0, deadline - time.monotonic()))
    except TimeoutError:
        return Unavailable(
            f"graphmemd is busy writing its store: the note is journaled, its store copy not yet "
            f"written within {STORE_ACK_TIMEOUT_S:g} s; retry"
        )


def _raise_unacknowledged(obs_id: str, error: BaseException | None) -> None:
    """A store copy failed twice: the call is not acknowledged (the journal has the note,
    and a retry writes the copy again)."""
    if error is None:
        return
    if isinstance(error, ResourceExhausted):
        raise ResourceExhausted(
            f"{error.message}: {obs_id} is journaled but has no store copy, so it is not acknowledged; "
            "free space and retry"
        ) from error
    if isinstance(error, Unavailable):
        raise error
    raise Unavailable(
        f"graphmemd is waiting for its store: the copy of {obs_id} failed ({error}); it is journaled, "
        "retry to have it acknowledged"
    ) from error
