"""The review page's calls to the daemon (through ``graphmem.client``, like every client),
with the double-action checks ("nothing is changed twice") and every error turned into a
``PageError``: a status and one sentence for the page, never a stack trace."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from graphmem.client import EventStream, GraphMem
from graphmem.convert import ObservationMemo
from graphmem.errors import (
    DaemonNotRunning,
    FailedPrecondition,
    GraphMemError,
    InvalidArgument,
    NotFound,
    Timeout,
    Unavailable,
)
from graphmem.types import (
    KnowledgeCheck,
    Neighbourhood,
    Observation,
    ObservationChange,
    ObservationStatus,
    Origin,
    RecallResult,
    Repository,
    Resolved,
    Status,
)
from graphmem.ui import model
from graphmem.ui.follower import Follower, NoteChange

__all__ = ["Gateway", "PageError"]


class PageError(Exception):
    """What the page shows instead of an answer: an HTTP status and one sentence."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@contextlib.contextmanager
def _calling() -> Iterator[None]:
    """Turn the client's errors into page errors (the one place)."""
    try:
        yield
    except DaemonNotRunning as exc:
        raise PageError(
            503, f"the graphmem daemon is not running ({exc.message}); start it with `graphmem daemon start`"
        ) from exc
    except (Unavailable, Timeout) as exc:
        raise PageError(503, f"the graphmem daemon is not answering: {exc.message}") from exc
    except NotFound as exc:
        raise PageError(404, exc.message) from exc
    except InvalidArgument as exc:
        raise PageError(400, exc.message) from exc
    except FailedPrecondition as exc:
        raise PageError(409, exc.message) from exc
    except GraphMemError as exc:
        raise PageError(502, f"the daemon refused: {exc.message}") from exc


def _ago(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else "earlier"


@dataclass(frozen=True, slots=True)
class Queue:
    """The review queue as read at one generation: its items (newest first) and facets."""

    items: tuple[model.QueueItem, ...]
    facets: model.Facets

    @classmethod
    def of(cls, items: Sequence[model.QueueItem]) -> Queue:
        """The queue of ``items`` with their facets."""
        return cls(tuple(items), model.facets(items))

    def patched(self, changes: Sequence[NoteChange]) -> Queue:
        """This queue after the notes ``changes`` carries changed (``model.patched``)."""
        if not changes:
            return self
        return Queue.of(model.patched(self.items, ((c.note, c.gone) for c in changes)))


@dataclass
class Gateway:
    """One repository's review through one client. ``actor`` is who the page acts as (kept
    as the confirmer of what it confirms, the source of what it saves). With a ``follower``
    the queue read at a generation is kept: reused while the daemon reports nothing, patched
    with the notes its events carry, read again whole after anything else."""

    client: GraphMem
    repo: Repository
    actor: str
    follower: Follower | None = None
    #: the queue as of a follower generation
    _queue: tuple[int, Queue] | None = field(default=None, repr=False)
    #: changes made through this page, begun or ended: a whole read during which it moved is
    #: not kept (it may lack the change, and the page patched the queue it had instead)
    _changes: int = field(default=0, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: the last whole read's notes by their wire form, and the queue item made of each note
    #: (by id, with the note it was made of): a whole read converts and lays out only the
    #: notes that changed since the one before
    _memo: ObservationMemo = field(default_factory=ObservationMemo, repr=False)
    _items: dict[str, tuple[Observation, model.QueueItem]] = field(default_factory=dict, repr=False)

    def queue(self) -> tuple[Queue, str]:
        """The review queue: the stale and suspect notes and the knowledge findings (with
        their units), as view-model items, and how it was had: ``kept`` (nothing happened
        since the last read), ``patched`` (only notes changed: the events carry them, so a
        page load after a confirm costs no daemon call) or ``whole`` (read from the daemon:
        the first time, with the event stream down, or after anything else)."""
        reused = self._reused()
        if reused is not None:
            return reused
        with self._reading:  # one whole read at a time: a load during one waits for it
            reused = self._reused()
            if reused is not None:
                return reused
            return self._read_whole(self.follower.current if self.follower is not None else None), "whole"

    def warm(self, wait: float = 5.0) -> None:
        """Read the queue once, as the page starts (with the event stream connected, waited
        for up to ``wait`` seconds, so that the read is kept): the first page load finds it
        read, or waits for this read instead of making its own."""
        if self.follower is not None:
            deadline = time.monotonic() + wait
            while self.follower.current is None and time.monotonic() < deadline:
                time.sleep(0.02)
        with contextlib.suppress(PageError):  # the page load that needs it says what failed
            self.queue()

    def _reused(self) -> tuple[Queue, str] | None:
        """The kept queue, as it is or patched, when the follower allows; else None."""
        generation = self.follower.current if self.follower is not None else None
        with self._lock:
            cached = self._queue
        if generation is None or cached is None or self.follower is None:
            return None
        if cached[0] == generation:
            return cached[1], "kept"
        since = self.follower.since(cached[0])
        if since is None:
            return None
        queue = cached[1].patched(since.changes)
        with self._lock:
            if self._queue is cached:
                self._queue = (since.generation, queue)
        return queue, "patched"

    def _read_whole(self, generation: int | None) -> Queue:
        with self._lock:
            changes = self._changes
        with ThreadPoolExecutor(1, thread_name_prefix="graphmem-ui-read") as pool:  # the two reads at once
            findings = pool.submit(self.knowledge)
            notes = self.queue_notes()
            check = findings.result()
        pending = {r.observation_id for r in check.references} - {o.id for o in notes}
        units = self.notes(sorted(i for i in pending if i))
        made: dict[str, tuple[Observation, model.QueueItem]] = {}
        kept = self._items

        def item_of(o: Observation) -> model.QueueItem:
            was = kept.get(o.id)
            item = was[1] if was is not None and was[0] is o else model.note_item(o)
            made[o.id] = (o, item)
            return item

        queue = Queue.of(model.queue_items(notes, check.references, units, item_of))
        self._items = made
        with self._lock:
            if generation is not None and self._changes == changes:
                self._queue = (generation, queue)
        return queue

    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """Around a change: a whole read that overlaps it is not kept."""
        with self._lock:
            self._changes += 1
        try:
            yield
        finally:
            with self._lock:
                self._changes += 1

    def _changed(self, *changes: NoteChange) -> None:
        """Patch the kept queue with notes this page just changed (the daemon's events of
        them come later and patch it the same way); a knowledge file's unit drops it."""
        with self._lock:
            if self._queue is None:
                return
            if any(c.note.knowledge is not None for c in changes):
                self._queue = None
                return
            generation, queue = self._queue
            self._queue = (generation, queue.patched(changes))

    # ------------------------------------------------------------------ reads

    def status(self) -> Status:
        """The daemon's status."""
        with _calling():
            return self.client.status()

    def repository(self) -> Repository:
        """This repository as the daemon has it now."""
        with _calling():
            found = [r for r in self.client.list_repos() if r.id == self.repo.id]
        if not found:
            raise PageError(404, f"repository {self.repo.root} is no longer registered with the daemon")
        return found[0]

    def queue_notes(self) -> list[Observation]:
        """Every stale and suspect note of the repository."""
        with _calling():
            return self.client.list(
                repo=self.repo.id,
                statuses=[ObservationStatus.STALE, ObservationStatus.SUSPECT],
                limit=0,
                memo=self._memo,
            )

    def all_notes(self, archived: bool = False, origin: Origin = Origin.ANY) -> list[Observation]:
        """Every note of the repository (archived ones too with ``archived``; ``origin``: saved
        notes, units of knowledge files, or both)."""
        statuses = list(ObservationStatus) if archived else []
        with _calling():
            return self.client.list(repo=self.repo.id, statuses=statuses, limit=0, origin=origin)

    def knowledge(self) -> KnowledgeCheck:
        """The knowledge-file findings (from the index as it is: no waiting)."""
        with _calling():
            return self.client.check_knowledge(repo=self.repo.id, wait_current=False)

    def note(self, obs_id: str) -> Observation:
        """One note; a page error naming it when there is none."""
        try:
            with _calling():
                return self.client.get(obs_id, repo=self.repo.id)  # as this checkout shows it
        except PageError as exc:
            if exc.status == 404 and "was deleted" in exc.message:  # the deletion record: who and when
                raise PageError(410, exc.message.replace("observation", "note", 1)) from exc
            if exc.status == 404:
                raise PageError(404, f"there is no note {obs_id!r} (deleted, or a wrong link)") from exc
            raise

    def notes(self, ids: Sequence[str]) -> dict[str, Observation]:
        """The notes of ``ids`` that exist."""
        out: dict[str, Observation] = {}
        for i in dict.fromkeys(ids):
            with contextlib.suppress(PageError):
                out[i] = self.note(i)
        return out

    def change(self, obs_id: str) -> ObservationChange:
        """The code change under a note, as this checkout shows it."""
        with _calling():
            return self.client.change(obs_id, repo=self.repo.id)

    def neighbourhood(self, refs: Sequence[str], hops: int = 2, max_nodes: int = 300) -> Neighbourhood:
        """The code around ``refs``."""
        with _calling():
            return self.client.neighbourhood(refs, repo=self.repo.id, hops=hops, max_nodes=max_nodes)

    def close_matches(self, ref: str) -> Resolved:
        """The symbols a (gone) anchor most plausibly means now."""
        name = ref.split("::", 1)[-1]
        with _calling():
            return self.client.resolve_symbol(name, repo=self.repo.id, limit=8)

    def search(self, text: str) -> RecallResult:
        """The same recall as ``graphmem recall TEXT``."""
        with _calling():
            return self.client.recall(text, repo=self.repo.id, limit=20)

    def events(self, after_seq: int | None) -> EventStream:
        """The daemon's live events of this repository."""
        with _calling():
            return self.client.events(repo=self.repo.id, after_seq=after_seq)

    # ------------------------------------------------------------------ changes (each checked first)

    def confirm(self, obs_id: str) -> Observation:
        """Confirm a stale or suspect note; a 409 page error when it is not one any more
        (confirmed elsewhere, archived, superseded): nothing is changed twice."""
        o = self.note(obs_id)
        if o.status not in (ObservationStatus.STALE, ObservationStatus.SUSPECT) and not o.needs_review:
            if o.status is ObservationStatus.FRESH and o.confirmed_at:
                who = f" by {o.confirmed_by}" if o.confirmed_by else ""
                raise PageError(409, f"{obs_id} was already confirmed{who} at {_ago(o.confirmed_at)}; nothing changed")
            raise PageError(409, f"{obs_id} is {o.status.value} now, not stale or suspect; nothing changed")
        with self._changing(), _calling():
            confirmed = self.client.confirm(obs_id, confirmed_by=self.actor, repo=self.repo.id)
            self._changed(NoteChange(confirmed))
            return confirmed

    def archive(self, obs_id: str) -> Observation:
        """Archive a note; a 409 page error when it already is."""
        o = self.note(obs_id)
        if o.status is ObservationStatus.ARCHIVED:
            raise PageError(409, f"{obs_id} was already archived; nothing changed")
        if o.knowledge is not None:
            raise PageError(409, f"{obs_id} comes from {o.knowledge.path}: edit or remove it in that file")
        with self._changing(), _calling():
            archived = self.client.archive(obs_id, by=self.actor)
            self._changed(NoteChange(archived))
            return archived

    def delete(self, obs_id: str) -> None:
        """Delete a note for good; a 409 page error when it is already gone."""
        o = self.note(obs_id)
        if o.knowledge is not None:
            raise PageError(409, f"{obs_id} comes from {o.knowledge.path}: edit or remove it in that file")
        with self._changing(), _calling():
            self.client.delete(obs_id, by=self.actor)
            self._changed(NoteChange(o, gone=True))

    def supersede(self, obs_id: str, text: str, anchors: Sequence[str] | None = None) -> Observation:
        """Save a new note replacing ``obs_id`` (its text edited, or its anchors moved), with
        the old note's category and tags; the old one becomes superseded."""
        o = self.note(obs_id)
        if o.knowledge is not None:
            raise PageError(409, f"{obs_id} comes from {o.knowledge.path}: edit it in that file")
        if o.status in (ObservationStatus.SUPERSEDED, ObservationStatus.ARCHIVED):
            raise PageError(409, f"{obs_id} is {o.status.value} already; nothing changed")
        if not text.strip():
            raise PageError(400, "the note's text is empty; nothing changed")
        with self._changing(), _calling():
            new = self.client.observe(
                text.strip(),
                anchors=list(anchors if anchors is not None else [a.ref for a in o.anchors]),
                repo=self.repo.id,
                category=o.category,
                tags=o.tags,
                source=self.actor,
                supersedes=[obs_id],
            )
            self._changed(NoteChange(replace(o, status=ObservationStatus.SUPERSEDED, superseded_by=new.id)))
            return new
