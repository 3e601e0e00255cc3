"""Observations: the journal-backed book (the codec is ``graphmemd.memory.obsdoc``, re-exported).

The journal (append-only, fsynced JSON lines) is the source of truth for every write: each
mutation is journaled as the observation's full new document (``{"op": "put", "obs": {...}}``)
or a deletion (``{"op": "delete", "id": ..., "at": ...}``) *before* it is acknowledged.
At start the journal and the store's copies are reconciled (``graphmemd.memory.recovery``):
union, newest version wins, deletions only by deletion records, which compaction keeps.
``to_doc``/``from_doc`` are the one codec between the domain ``Observation`` and those
records (the store keeps the same document). Staleness lives in ``staleness.py``.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from graphmem.errors import InvalidArgument, NotFound
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    HistoryEvent,
    Observation,
    ObservationStatus,
)

from graphmemd.graph.text_index import TextIndex
from graphmemd.memory import history
from graphmemd.memory.deferring import DeferringLock
from graphmemd.memory.journal import Journal
from graphmemd.memory.knowledge import reference_states
from graphmemd.memory.obsdoc import (
    MAX_ANCHORS,
    MAX_HISTORY,
    MAX_TAGS,
    MAX_TEXT,
    from_doc,
    history_event,
    history_event_doc,
    to_doc,
    validate_doc,
)
from graphmemd.memory.projections import anchored_pairs
from graphmemd.memory.reconcile import Reconciliation, deletion_fields

logger = logging.getLogger(__name__)

#: the shortest start of an id that stands for it (``graphmem show dd76``), as git's abbreviations
MIN_ID_PREFIX = 4
#: ids listed when a start is ambiguous, each with about this many characters of its text
MAX_SHOWN_IDS = 5
GIST_CHARS = 40

# ---------------------------------------------------------------------------- documents
# The codec lives in graphmemd.memory.obsdoc (strict validation); re-exported here.

__all__ = ["MAX_TAGS", "MAX_TEXT", "ObservationBook", "from_doc", "to_doc", "validate_doc"]


# ---------------------------------------------------------------------------- the book


def _indexed(o: Observation) -> tuple[object, ...]:
    """What the text index holds of an observation: its text, tags, repository and the
    names and paths of its anchors (a text query naming the code finds the note on it)."""
    return (o.text, o.tags, o.repo_id, tuple(a.ref for a in o.anchors))


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a note is saved: the commit and branch its checkout's HEAD is at, and whether its
    anchored code was not committed there yet (no other checkout holds it then)."""

    commit: str = ""
    branch: str = ""
    uncommitted: bool = False


#: a note saved outside git (or by an import): no origin
NO_ORIGIN = Origin()


class ObservationBook:
    """Every observation in memory, folded from the journal; all mutations journal first.

    ``on_change`` is called (outside the lock) with each observation written, so the engine
    can mirror it into the store and publish events."""

    def __init__(self, journal: Journal, on_change: Callable[[Observation | None, str], object]) -> None:
        self._journal = journal
        self._on_change = on_change
        self._lock = DeferringLock()  # listeners are told after the outermost hold
        self._obs: dict[str, Observation] = {}
        self._keys: dict[str, str] = {}
        #: the inverse of ``_keys`` (observation id -> key), for the store's copy
        self._key_by_id: dict[str, str] = {}
        self._by_target: dict[str, set[str]] = defaultdict(set)
        #: (repository, knowledge file) -> the ids of the file's units
        self._by_file: dict[tuple[str, str], set[str]] = defaultdict(set)
        #: Deleted ids -> when; journaled and kept through compaction (never delete by absence).
        self._tombstones: dict[str, float] = {}
        #: What each deletion record says besides the time: who deleted the note and its
        #: history (``{"by": ..., "history": [...]}``), kept through compaction like the time.
        self._deletions: dict[str, dict[str, Any]] = {}
        #: BM25 over every observation's text, tags and anchor names, changed with ``_obs`` (text search)
        self._text = TextIndex()

    # ------------------------------------------------------------------ replay

    def load(self) -> int:
        """Fold the journal into memory (no store, no reconciliation: tests and tools);
        returns the number of records read. The daemon uses ``load_merged``."""
        n = 0
        with self._lock:
            for rec in self._journal.replay():
                n += 1
                try:
                    self._fold(rec)
                except InvalidArgument as exc:
                    logger.error("journal record %s skipped: %s", rec.get("seq"), exc)
        return n

    def load_merged(self, merged: Reconciliation) -> None:
        """Take the state the journal and the store were reconciled to (see
        ``graphmemd.memory.reconcile``); every document in it has been validated."""
        with self._lock:
            self._obs.clear()
            self._by_target.clear()
            self._by_file.clear()
            self._text = TextIndex()
            for doc in merged.docs.values():
                self._index(from_doc(doc))
            self._keys = dict(merged.keys)
            self._key_by_id = {oid: key for key, oid in self._keys.items()}
            self._tombstones = dict(merged.tombstones)
            self._deletions = dict(merged.deletions)

    def compact_if_needed(self, records_read: int, min_records: int = 1000) -> bool:
        """Rewrite the journal as one record per live observation when it has grown to more
        than twice that (every stale/fresh flip appends a full record). Idempotency keys and
        deletion records (tombstones) are kept. Atomic (temp file, fsync, rename); called at
        start, before anything is served."""
        with self._lock:
            live = len(self._obs) + len(self._tombstones)
            if records_read < max(min_records, 2 * live):
                return False
            self.rewrite_journal()
            return True

    def snapshot(self) -> tuple[dict[str, dict[str, Any]], dict[str, float]]:
        """Every live observation's document and every tombstone (copies)."""
        with self._lock:
            return {oid: to_doc(o) for oid, o in self._obs.items()}, dict(self._tombstones)

    def rewrite_journal(self) -> int:
        """Atomically replace the journal with the current state (one put per observation,
        one delete per tombstone); returns the number of records written."""
        with self._lock:
            records = [
                _put_record(o, self._key_by_id.get(o.id, ""))
                for o in sorted(self._obs.values(), key=lambda o: (o.created_at, o.id))
            ]
            for oid, at in sorted(self._tombstones.items(), key=lambda t: (t[1], t[0])):
                records.append({"op": "delete", "id": oid, "at": at, **self._deletions.get(oid, {})})
            return self._journal.compact(records, expected_last_seq=self._journal.last_seq)

    def append_restored(self, docs: Sequence[Mapping[str, Any]], keys: Mapping[str, str] | None = None) -> None:
        """Journal documents recovered from the store (the journal lacked them), each with
        the idempotency key of its create when ``keys`` (key -> id) names one."""
        key_of = {oid: key for key, oid in (keys or {}).items()}
        records: list[dict[str, Any]] = []
        for d in docs:
            rec: dict[str, Any] = {"op": "put", "obs": dict(d), "restored": True}
            if key_of.get(d["id"]):
                rec["key"] = key_of[d["id"]]
            records.append(rec)
        if records:
            self._journal.append_many(records)

    def keys(self) -> dict[str, str]:
        """Every idempotency key of a live observation (key -> id)."""
        with self._lock:
            return {k: v for k, v in self._keys.items() if v in self._obs}

    def key_of(self, obs_id: str) -> str:
        """The idempotency key of the create that made ``obs_id`` ("" when none)."""
        with self._lock:
            return self._key_by_id.get(obs_id, "")

    def is_deleted(self, obs_id: str) -> bool:
        """Whether ``obs_id`` was deleted (a deletion record names it)."""
        with self._lock:
            return obs_id in self._tombstones

    def deleted(self, obs_id: str) -> tuple[float, str, tuple[HistoryEvent, ...]] | None:
        """When ``obs_id`` was deleted, by whom ("" when the record does not say: deleted before
        histories were kept) and its history up to the deletion; None when it was not deleted.
        A history entry the record holds that cannot be read is left out."""
        with self._lock:
            at = self._tombstones.get(obs_id)
            extra = self._deletions.get(obs_id, {})
        return None if at is None else (at, *_deletion_record(obs_id, extra))

    def _fold(self, rec: Mapping[str, Any]) -> None:
        op = rec.get("op")
        if op == "put":
            o = from_doc(rec["obs"])
            self._index(o)
            self._tombstones.pop(o.id, None)
            self._deletions.pop(o.id, None)
            key = rec.get("key")
            if isinstance(key, str) and key:
                self._keys[key] = o.id
                self._key_by_id[o.id] = key
        elif op == "delete":
            oid = str(rec.get("id", ""))
            self._unindex(oid)
            at = rec.get("at")
            self._tombstones[oid] = float(at) if isinstance(at, (int, float)) else 0.0
            self._deletions[oid] = deletion_fields(rec)

    def _index(self, o: Observation) -> None:
        old = self._unindex(o.id, keep_text=True)
        self._obs[o.id] = o
        for t in self._targets(o):
            self._by_target[t].add(o.id)
        if o.knowledge is not None:
            self._by_file[(o.repo_id, o.knowledge.path)].add(o.id)
        if old is None or _indexed(old) != _indexed(o):
            self._text.put(o.id, o.repo_id, " ".join(a.ref for a in o.anchors), [(o.id, " ".join((o.text, *o.tags)))])

    def _unindex(self, obs_id: str, *, keep_text: bool = False) -> Observation | None:
        old = self._obs.pop(obs_id, None)
        if old is not None:
            for t in self._targets(old):
                self._by_target[t].discard(obs_id)
            if old.knowledge is not None:
                self._by_file[(old.repo_id, old.knowledge.path)].discard(obs_id)
            if not keep_text:
                self._text.remove(obs_id)
        return old

    @staticmethod
    def _targets(o: Observation) -> list[str]:
        return [a.symbol_id if a.kind is AnchorKind.SYMBOL else f"{a.repo_id}:{a.path}" for a in o.anchors]

    # ------------------------------------------------------------------ writes

    def _put(
        self, observations: Sequence[Observation], key: str = "", *, by: str, commit: str = "", how: str = ""
    ) -> list[Observation]:
        """Journal (one fsync) then apply; the only way anything changes. Each observation's
        history gets what this write changed in it (``history.record``: ``by`` who asked,
        ``commit`` HEAD then, ``how`` a note was superseded); returns them as written."""
        if not observations:
            return []
        at = time.time()
        with self._lock:
            observations = [
                history.record(self._obs.get(o.id), o, at=at, by=by, commit=commit, how=how) for o in observations
            ]
            self._journal.append_many([_put_record(o, key if i == 0 else "") for i, o in enumerate(observations)])
            for o in observations:
                self._index(o)
            if key:
                self._keys[key] = observations[0].id
                self._key_by_id[observations[0].id] = key
        for o in observations:  # after the caller's outermost hold (``DeferringLock``)
            self._lock.defer(partial(self._on_change, o, o.id))
        return observations

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
        origin: Origin = NO_ORIGIN,
    ) -> Observation:
        """Validate and save a new observation, marking those it supersedes; a repeated ``idempotency_key``
        returns the observation it created before. ``origin``: the commit and branch the
        checkout it is saved in is at, and whether its anchored code is committed there."""
        text = _validated(text, anchors, tags, confidence)
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
                origin_commit=origin.commit,
                origin_branch=origin.branch,
                origin_uncommitted=origin.uncommitted and bool(origin.commit),
            )
            older = [
                replace(self._obs[s], status=ObservationStatus.SUPERSEDED, superseded_by=o.id, updated_at=t)
                for s in supersedes
            ]
            how = "edited" if any(self._obs[s].text != o.text for s in supersedes) else "re-anchored"
            written = self._put([o, *older], key=idempotency_key, by=source or "unknown", commit=origin.commit, how=how)
            return written[0]

    def full_id(self, ref: str) -> str:
        """The id ``ref`` stands for: itself, or the one id it starts (``full_id``)."""
        with self._lock:
            return full_id(ref.strip(), self._obs, self._tombstones)

    def get(self, obs_id: str) -> Observation:
        """The observation ``obs_id``; NotFound when there is none."""
        with self._lock:
            o = self._obs.get(obs_id)
            dead = self._tombstones.get(obs_id)
            by = self._deletions.get(obs_id, {}).get("by")
        if o is None:
            raise NotFound(_missing(obs_id, dead, by))
        return o

    def update(self, obs_id: str, by: str = "", commit: str = "", **fields: Any) -> Observation:
        """Replace some fields of an observation (text and confidence validated) and save it;
        ``by`` (who asks) and ``commit`` go into its history."""
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
            return self._put([new], by=by or "unknown", commit=commit)[0]

    def archive(self, obs_id: str, by: str = "", commit: str = "") -> Observation:
        """Archive an observation (it is kept, no longer recalled), recording who asked."""
        return self.update(obs_id, by=by, commit=commit, status=ObservationStatus.ARCHIVED)

    def delete(self, obs_id: str, by: str = "") -> None:
        """Delete an observation for good; NotFound when there is none. The deletion record
        (journaled, kept through compaction) says who deleted it and when, and keeps its
        history (not its text: what is deleted is gone)."""
        with self._lock:
            o = self.get(obs_id)
            at = time.time()
            who = by or "unknown"
            extra = {"by": who, "history": [history_event_doc(e) for e in history.deleted(o, at=at, by=who)]}
            self._journal.append({"op": "delete", "id": obs_id, "at": at, **extra})
            self._unindex(obs_id)
            self._tombstones[obs_id] = at
            self._deletions[obs_id] = extra
        self._lock.defer(partial(self._on_change, None, obs_id))

    def confirm(
        self, obs_id: str, anchors: Sequence[Anchor], by: str, now: float | None = None, commit: str = ""
    ) -> Observation:
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
            if new.knowledge is not None:
                new = replace(new, references=reference_states(new))
            return self._put([new], by=by, commit=commit)[0]

    def apply(self, changed: Sequence[Observation], by: str = history.DAEMON, commit: str = "") -> None:
        """Write observations whose staleness or anchors the engine recomputed (``by`` the
        daemon, at ``commit``)."""
        self._put(changed, by=by, commit=commit)

    # ------------------------------------------------------------------ reads

    def all(self) -> list[Observation]:
        """Every observation, in any state."""
        with self._lock:
            return list(self._obs.values())

    def search(self, text: str, limit: int) -> list[tuple[str, float]]:
        """BM25 hits (observation id, score) over text, tags and anchor names, best first (``text_index``)."""
        with self._lock:
            return self._text.search(text, limit)

    def anchored_to(self, node_id: str) -> list[Observation]:
        """The observations anchored to the symbol or file ``node_id``."""
        with self._lock:
            return [self._obs[i] for i in self._by_target.get(node_id, ()) if i in self._obs]

    def anchored_in(self, nodes: Mapping[str, object]) -> dict[str, list[Observation]]:
        """Observations anchored to any of ``nodes``, by node (one pass over the anchored targets)."""
        out: dict[str, list[Observation]] = {}
        with self._lock:
            for node, ids in anchored_pairs(self._by_target, nodes):
                out[node] = [self._obs[i] for i in ids if i in self._obs]
        return out

    def anchored_in_file(self, repo_id: str, path: str) -> list[Observation]:
        """The observations anchored to a file or to a symbol of it, including symbols that
        are gone (a symbol id begins with its file's id and ``::``)."""
        file_key = f"{repo_id}:{path}"
        prefix = file_key + "::"
        found: set[str] = set()
        with self._lock:
            for target, ids in self._by_target.items():
                if target == file_key or target.startswith(prefix):
                    found |= ids
            return [self._obs[i] for i in found if i in self._obs]

    def from_file(self, repo_id: str, path: str) -> list[Observation]:
        """The units of one knowledge file of a repository (any status)."""
        with self._lock:
            return [self._obs[i] for i in self._by_file.get((repo_id, path), ()) if i in self._obs]

    def knowledge_files(self, repo_id: str) -> set[str]:
        """The knowledge files of a repository that have at least one unit."""
        with self._lock:
            return {p for (r, p), ids in self._by_file.items() if r == repo_id and ids}

    def targets(self) -> set[str]:
        """The symbol and file ids at least one observation is anchored to."""
        with self._lock:
            return {t for t, ids in self._by_target.items() if ids}

    def __len__(self) -> int:
        return len(self._obs)

    def __iter__(self) -> Iterator[Observation]:
        return iter(self.all())

    def import_observations(self, observations: Iterable[Observation]) -> tuple[int, int]:
        """Import validated observations; ids already known (live or deleted) are skipped.
        Returns (imported, skipped duplicates)."""
        fresh: dict[str, Observation] = {}
        dupes = 0
        with self._lock:
            for o in observations:
                if o.id in self._obs or o.id in fresh:
                    dupes += 1
                    continue
                fresh[o.id] = o
            if fresh:
                self._journal.append_many([{"op": "put", "obs": to_doc(o), "imported": True} for o in fresh.values()])
                for o in fresh.values():
                    self._index(o)
                    self._tombstones.pop(o.id, None)
        for o in fresh.values():
            self._lock.defer(partial(self._on_change, o, o.id))
        return len(fresh), dupes


def _validated(text: str, anchors: Sequence[Anchor], tags: Sequence[str], confidence: float) -> str:
    """A new observation's text, stripped; InvalidArgument when it or its anchors, tags or
    confidence are out of bounds."""
    text = text.strip()
    if not text:
        raise InvalidArgument("observation text is empty")
    if len(text) > MAX_TEXT:
        raise InvalidArgument(f"observation text is {len(text)} characters; the limit is {MAX_TEXT}")
    if not anchors:
        raise InvalidArgument(
            "an observation needs at least one anchor (a symbol ref like 'path/file.py::Class.method' or a file path)"
        )
    if len(anchors) > MAX_ANCHORS:
        raise InvalidArgument(f"an observation has at most {MAX_ANCHORS} anchors, not {len(anchors)}")
    if len(tags) > MAX_TAGS:
        raise InvalidArgument(f"at most {MAX_TAGS} tags")
    if not 0.0 <= confidence <= 1.0:
        raise InvalidArgument(f"confidence must be between 0 and 1, not {confidence}")
    return text


def _deletion_record(obs_id: str, extra: Mapping[str, Any]) -> tuple[str, tuple[HistoryEvent, ...]]:
    """Who deleted ``obs_id`` ("" when its deletion record does not say: deleted before
    histories were kept) and its history up to the deletion; an entry that cannot be read is
    left out (and logged)."""
    by = extra.get("by")
    raw = extra.get("history")
    events: list[HistoryEvent] = []
    for i, e in enumerate(raw[:MAX_HISTORY] if isinstance(raw, list) else ()):
        try:
            events.append(history_event(e, f"deletion of {obs_id}: history[{i}]."))
        except InvalidArgument as exc:
            logger.warning("%s", exc.message)
    return by if isinstance(by, str) else "", tuple(events)


def full_id(ref: str, observations: Mapping[str, Observation], deleted: Mapping[str, float]) -> str:
    """The id ``ref`` stands for: itself when it is an id (a ``deleted`` one's included), else
    the one id of ``observations`` it starts — at least ``MIN_ID_PREFIX`` characters, as git
    takes an abbreviated commit; ``ref`` itself when none (the caller's lookup says it is no
    observation). InvalidArgument, listing them, when it starts several."""
    if ref in observations or ref in deleted or len(ref) < MIN_ID_PREFIX:
        return ref
    hits = sorted((o for i, o in observations.items() if i.startswith(ref)), key=lambda o: o.id)
    if len(hits) == 1:
        return hits[0].id
    if not hits:
        return ref
    shown = "; ".join(f"{o.id} {_gist(o)}" for o in hits[:MAX_SHOWN_IDS])
    shown += "; …" if len(hits) > MAX_SHOWN_IDS else ""
    raise InvalidArgument(f"{ref!r} starts {len(hits)} observation ids ({shown}): give more of it")


def _gist(o: Observation) -> str:
    """A few words that tell one observation from another in a list of ids: its knowledge
    file's place, or the start of its text."""
    if o.knowledge is not None:
        return f"[{o.knowledge.path}:{o.knowledge.start_line}]"
    words = " ".join(o.text.split())
    if len(words) <= GIST_CHARS:
        return f"“{words}”"
    cut = words[: GIST_CHARS + 1].rsplit(" ", 1)[0] or words[:GIST_CHARS]
    return f"“{cut}…”"


def _missing(obs_id: str, deleted_at: float | None, by: object) -> str:
    """What to say of an id the book does not hold: who deleted it and when, if it was."""
    if deleted_at is None:
        return f"no observation {obs_id!r}"
    when = datetime.fromtimestamp(deleted_at, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")
    who = f" by {by}" if isinstance(by, str) and by else ""
    return f"observation {obs_id!r} was deleted{who} at {when}"


def _put_record(o: Observation, key: str) -> dict[str, Any]:
    """The journal record that saves ``o`` (with the idempotency ``key`` that created it)."""
    rec: dict[str, Any] = {"op": "put", "obs": to_doc(o)}
    if key:
        rec["key"] = key
    return rec
