"""The shell that keeps every checkout's view of its siblings' notes current.

A private note is saved in one checkout (its home, ``repo_id``) and shown in every other
checkout of the same repository as a projection judged on that checkout's code
(``checkouts.project``, pure; held by ``projections.Projections``). This module recomputes
them when a note is written (into every sibling at once: a note saved in B is recalled in A
right away) and when a checkout's code changes (``refresh``: every note of its repository
saved elsewhere), and publishes an event in the showing checkout for each projection that
appears, changes state or goes away, so a subscriber of that checkout hears of it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from graphmem.types import Event, EventKind, Observation, ObservationAction, ObservationStatus

from graphmemd.graph.delta import GraphDelta
from graphmemd.memory.anchors import CodeView
from graphmemd.memory.bodylines import BodyQuery, counted
from graphmemd.memory.checkouts import project
from graphmemd.memory.commits import flag_uncommitted
from graphmemd.memory.projections import Projections
from graphmemd.memory.staleness import event_for, restale
from graphmemd.runtime.events import EventBus, action_for_change


class CheckoutMap(Protocol):
    """Which checkouts share a repository, and what git says about them."""

    def repository_of(self, checkout_id: str) -> str:
        """The repository of a checkout registered now or before."""
        ...

    def showing(self, checkout_id: str) -> Sequence[str]:
        """The other checkouts of ``checkout_id``'s repository whose code is indexed (all of
        them when ``checkout_id`` is gone)."""
        ...

    def is_indexed(self, checkout_id: str) -> bool:
        """Whether ``checkout_id`` is registered and its code is in the graph."""
        ...

    def shares(self, checkout_id: str) -> bool:
        """Whether ``checkout_id``'s repository has (or had) another checkout."""
        ...

    def contains(self, checkout_id: str, commit: str) -> bool:
        """Whether ``commit`` is an ancestor of ``checkout_id``'s HEAD."""
        ...

    def abandoned(self, checkout_id: str, commit: str) -> bool:
        """Whether no branch or tag of ``checkout_id``'s repository, nor any of its checkouts' HEADs,
        holds ``commit`` any more."""
        ...

    def gone(self, checkout_id: str) -> bool:
        """Whether ``checkout_id`` is no longer registered (a worktree removed)."""
        ...

    def head(self, checkout_id: str) -> str:
        """The commit ``checkout_id``'s HEAD is at ("" outside git)."""
        ...

    def uncommitted(self, checkout_id: str, paths: Collection[str]) -> Collection[str]:
        """Those of ``paths`` whose file in ``checkout_id``'s working tree differs from its HEAD."""
        ...


class CheckoutViews:
    """Keeps ``projections`` current; every computation runs under one lock (they are cheap:
    a note's anchors looked up in one checkout's graph)."""

    def __init__(self, notes: Callable[[], list[Observation]], bus: EventBus) -> None:
        self.projections = Projections()
        self._notes = notes
        self._bus = bus
        self._lock = threading.Lock()
        self._map: CheckoutMap | None = None
        self._code: CodeView | None = None
        #: whether each note was stale or suspect at home when last written: a projection in
        #: review whose home note went in or out of review is announced although it shows the
        #: same (whether it can be confirmed from its checkout changed: ``app/confirming``)
        self._home_doubted: dict[str, bool] = {}

    def attach(self, checkouts: CheckoutMap, code: CodeView) -> None:
        """Start projecting (before this, in tests and tools, nothing is)."""
        self._map, self._code = checkouts, code

    def note_changed(self, o: Observation | None, obs_id: str) -> None:
        """A note was written (``o``) or deleted (None): project it into its home's siblings."""
        if self._map is None or self._code is None:
            return
        with self._lock:
            if o is None:
                self._home_doubted.pop(obs_id, None)
                for gone in self.projections.drop_note(obs_id):
                    self._announce(gone, gone)
                return
            if o.knowledge is not None:  # a knowledge file's unit: each checkout reads its own file
                return
            now = time.time()
            doubted = o.status in _DOUBTED
            flipped = self._home_doubted.get(o.id, doubted) != doubted
            self._home_doubted[o.id] = doubted
            self.projections.drop(o.repo_id, o.id)  # (moved home: its own checkout shows it as saved)
            for checkout in self._map.showing(o.repo_id):
                previous = self.projections.get(checkout, o.id)
                head = self._map.head(checkout)
                shown = project(self._judgeable(o), checkout, self._code, now, head, self._contains(checkout), previous)
                self._put(self._flagged([shown], checkout, now)[0], announce=flipped)

    def refresh(
        self,
        checkout: str,
        delta: GraphDelta | None = None,
        measure: Callable[[Sequence[BodyQuery]], Mapping[str, int]] = lambda queries: {},
    ) -> int:
        """Judge every note of ``checkout``'s repository saved elsewhere on ``checkout``'s code
        as it is now (after a change, a branch switch, its first index); returns how many
        projections changed. ``delta`` (the change of ``checkout``'s code just applied) first
        gives the projections it touches what it gives a note of ``checkout`` itself
        (``staleness.restale``): its renames move their anchors (a RENAMED reason) and its
        re-signed or removed symbols make what depends on them suspect, and their body changes
        counted in lines (``measure``), as the checkout's own notes are. Every reason found now,
        by the delta or by judging, is flagged uncommitted where its file differs from the
        checkout's HEAD (``_flagged``: one question to git for them all)."""
        m, code = self._map, self._code
        if m is None or code is None or not m.shares(checkout) or not m.is_indexed(checkout):
            return 0
        repository = m.repository_of(checkout)
        now, head = time.time(), m.head(checkout)
        contains = self._contains(checkout)
        changed = 0
        notes = self._notes()  # read before this lock: the book tells this one of writes (lock order)
        with self._lock:
            moved = self._restale(checkout, delta, code, now, head, measure) if delta is not None else {}
            keep: set[str] = set()
            shown: list[Observation] = []
            for o in notes:
                if o.repo_id == checkout or o.knowledge is not None or m.repository_of(o.repo_id) != repository:
                    continue
                keep.add(o.id)
                previous = moved.get(o.id) or self.projections.get(checkout, o.id)
                shown.append(project(self._judgeable(o), checkout, code, now, head, contains, previous))
            for p in self._flagged(shown, checkout, now):
                changed += self._put(p)
            for stale_id in self.projections.ids_in(checkout) - keep:  # moved to another repository
                gone = self.projections.drop(checkout, stale_id)
                if gone is not None:
                    self._announce(gone, gone)
                    changed += 1
        return changed

    def _restale(
        self,
        checkout: str,
        delta: GraphDelta,
        code: CodeView,
        now: float,
        head: str,
        measure: Callable[[Sequence[BodyQuery]], Mapping[str, int]],
    ) -> dict[str, Observation]:
        """The projections of ``checkout`` that ``delta`` changes, as it changes them (by id;
        ``refresh`` flags their new reasons uncommitted with the others')."""
        shown = sorted(self.projections.in_checkout(checkout), key=lambda o: o.id)
        if not shown:
            return {}
        after = [c.after for c in restale(delta, shown, code, now, head)]
        return {o.id: o for o in counted(after, now, code, measure)}

    def _flagged(self, shown: list[Observation], checkout: str, now: float) -> list[Observation]:
        """``shown`` (projections judged at ``now``) with the reasons found now flagged
        uncommitted where their file differs from ``checkout``'s HEAD: a delta's, and those
        found after a restart or a branch switch (a worktree's edit not committed yet said
        "body changed, in <HEAD>")."""
        m = self._map
        if m is None:
            return shown
        return flag_uncommitted(shown, now, lambda paths: m.uncommitted(checkout, paths))

    def forget(self, checkout: str) -> None:
        """``checkout`` is no longer registered: it shows nothing."""
        with self._lock:
            self.projections.drop_checkout(checkout)

    def _contains(self, checkout: str) -> Callable[[str], bool]:
        """Whether a note made at a commit is judged in ``checkout`` as any note: the commit is
        an ancestor of its HEAD, or no branch holds it any more (deleted unmerged, as an
        agent's worktree branch often is: that code will not arrive, the note is judged on
        this code rather than shown "on branch" for good)."""
        m = self._map
        assert m is not None
        return lambda commit: m.contains(checkout, commit) or m.abandoned(checkout, commit)

    def _judgeable(self, o: Observation) -> Observation:
        """``o``, no longer counted as made on uncommitted code once the checkout that held that
        code is gone (a worktree removed with its edits: they will never be committed)."""
        m = self._map
        if o.origin_uncommitted and m is not None and m.gone(o.repo_id):
            return replace(o, origin_uncommitted=False)
        return o

    def _put(self, p: Observation, announce: bool = False) -> int:
        """Keep ``p``; announce it when it shows something else than before (or, with
        ``announce``, when it is in review: its home note went in or out of review)."""
        before = self.projections.put(p)
        if before is not None and _same(before, p):
            if not (announce and p.status in _DOUBTED):
                return 0
            event = Event(EventKind.OBSERVATION_CHANGED, time.time(), p.repo_id, observation=p,
                          action=ObservationAction.UPDATED, observation_id=p.id)  # fmt: skip
            self._bus.publish(event)
            return 1
        self._announce(p, before)
        return 1

    def _announce(self, o: Observation, before: Observation | None) -> None:
        """Publish, in the checkout showing it, that a projection appeared, changed or went."""
        now = time.time()
        if before is None:  # a new projection (the note was saved in a sibling)
            kind, action = EventKind.OBSERVATION_CHANGED, ObservationAction.CREATED
        elif o is before:  # gone (``before`` passed as the projection itself)
            kind, action = EventKind.OBSERVATION_CHANGED, ObservationAction.DELETED
        else:
            kind, action = event_for(before, o), action_for_change(before, o)
        self._bus.publish(Event(kind, now, o.repo_id, observation=o, action=action, observation_id=o.id))


_DOUBTED = (ObservationStatus.STALE, ObservationStatus.SUSPECT)


def _same(a: Observation, b: Observation) -> bool:
    """Whether two projections of a note show the same thing (times aside)."""

    def shown(o: Observation) -> tuple[object, ...]:
        reasons = tuple((r.anchor_ref, r.change) for r in o.stale_reasons)
        return (o.status, o.on_branch, o.anchors, reasons, o.text, o.tags, o.category, o.superseded_by)

    return shown(a) == shown(b)
