"""In-process event bus for the server-streaming subscription, with sequence numbers and a
bounded replay buffer so a subscriber can resume after a disconnect.

Publishing never blocks the indexer: each subscriber has a bounded queue; a subscriber that
falls behind loses its oldest events and is told so by an ``EVENTS_LOST`` event at the gap.
Every published event gets the next sequence number (1, 2, ... per daemon run); the last
``REPLAY_SIZE`` events are kept, and ``subscribe(after_seq=N)`` replays those after ``N``
before the live ones (under the bus lock: nothing is missed or delivered twice). A resume
point older than the buffer, or ahead of this run's numbering (the daemon restarted), is
reported as an ``EVENTS_LOST`` event first. ``close()`` wakes every subscriber at once, so
the server's streams end promptly when the daemon stops.

``action_for_change`` is the pure rule naming what a recomputation did to an observation.
"""

from __future__ import annotations

import collections
import contextlib
import queue
import threading
import time
from collections.abc import Collection
from dataclasses import replace

from graphmem.types import ChangeKind, Event, EventKind, Observation, ObservationAction, ObservationStatus

__all__ = ["QUEUE_SIZE", "REPLAY_SIZE", "EventBus", "Subscription", "action_for_change", "events_lost"]

QUEUE_SIZE = 10_000
REPLAY_SIZE = 4_096


def action_for_change(before: Observation, after: Observation) -> ObservationAction:
    """What a recomputation against changed code did to an observation.

    RENAMED when an anchor followed a rename or move; STALE when it became stale or more of
    its code changed; SUSPECT when it became suspect (code its anchor depends on changed its
    signature or went away) or more of that happened; FRESH when it went back to fresh
    without a confirmation; else UPDATED (e.g. one of several reasons went away, or an
    archived/superseded observation's reasons changed)."""
    old = {(r.anchor_ref, r.change) for r in before.stale_reasons}
    new = {(r.anchor_ref, r.change) for r in after.stale_reasons} - old
    if any(change is ChangeKind.RENAMED for _, change in new):
        return ObservationAction.RENAMED
    for status, action in (
        (ObservationStatus.STALE, ObservationAction.STALE),
        (ObservationStatus.SUSPECT, ObservationAction.SUSPECT),
    ):
        if after.status is status and (before.status is not status or new):
            return action
    if after.status is ObservationStatus.FRESH and before.status is not ObservationStatus.FRESH:
        return ObservationAction.FRESH
    return ObservationAction.UPDATED


def events_lost(first: int, last: int, why: str) -> Event:
    """The event reporting a gap: events ``first``..``last`` will not be delivered. Its seq is
    ``last`` so a client that resumes from the last seq it saw carries on after the gap."""
    span = f"event {first}" if first == last else f"events {first}..{last}"
    return Event(
        EventKind.EVENTS_LOST,
        time.time(),
        "",
        seq=max(last, 0),
        message=f"{span} were not delivered: {why}; re-read the state you keep",
    )


class Subscription:
    """One subscriber's filtered, bounded queue."""

    def __init__(self, bus: EventBus, repo_id: str, kinds: Collection[EventKind]) -> None:
        self._bus = bus
        self.repo_id = repo_id
        self.kinds = frozenset(kinds)
        self.queue: queue.Queue[Event | None] = queue.Queue(QUEUE_SIZE)
        self._dropped: tuple[int, int] | None = None  # (first, last) seq dropped since the last get
        self._lock = threading.Lock()

    def wants(self, event: Event) -> bool:
        """Whether ``event`` matches the subscription's kinds and repository (``EVENTS_LOST`` always does)."""
        if event.kind is EventKind.EVENTS_LOST:
            return True
        if self.kinds and event.kind not in self.kinds:
            return False
        return not self.repo_id or not event.repo_id or event.repo_id == self.repo_id

    def offer(self, event: Event | None) -> None:
        """Queue ``event`` (None: the end); when full, drop the oldest and remember the gap."""
        while True:
            try:
                self.queue.put_nowait(event)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    old = self.queue.get_nowait()
                    if old is not None:
                        with self._lock:
                            first = self._dropped[0] if self._dropped else old.seq
                            self._dropped = (first, old.seq)

    def get(self, timeout: float) -> Event | None:
        """The next event (an EVENTS_LOST first when some were dropped), or None on timeout or
        when the bus closed."""
        with self._lock:
            dropped, self._dropped = self._dropped, None
        if dropped is not None:
            return events_lost(dropped[0], dropped[1], "this subscriber fell behind")
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        """Stop receiving events (unsubscribe from the bus)."""
        self._bus.unsubscribe(self)


class EventBus:
    """Publish/subscribe with sequence numbers and a replay buffer of the last events."""

    def __init__(self, replay_size: int = REPLAY_SIZE) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()
        self._last_seq = 0
        self._replay: collections.deque[Event] = collections.deque(maxlen=replay_size)
        self.closed = threading.Event()

    @property
    def last_seq(self) -> int:
        """The seq of the last published event (0: none yet)."""
        with self._lock:
            return self._last_seq

    def subscribe(
        self, repo_id: str = "", kinds: Collection[EventKind] = (), after_seq: int | None = None
    ) -> Subscription:
        """A subscription to the events from now on; with ``after_seq``, first the buffered
        events after it (and an EVENTS_LOST for what is no longer buffered)."""
        sub = Subscription(self, repo_id, kinds)
        with self._lock:
            if after_seq is not None:
                self._replay_into(sub, after_seq)
            if self.closed.is_set():
                sub.offer(None)
            else:
                self._subs.append(sub)
        return sub

    def _replay_into(self, sub: Subscription, after_seq: int) -> None:
        last = self._last_seq
        if after_seq > last:
            sub.offer(
                events_lost(
                    last + 1, after_seq, f"seq {after_seq} is ahead of this daemon's last event ({last}): it restarted"
                )
            )
            return
        oldest = self._replay[0].seq if self._replay else last + 1
        if after_seq + 1 < oldest:
            sub.offer(events_lost(after_seq + 1, oldest - 1, f"only the last {self._replay.maxlen} events are kept"))
        for event in self._replay:
            if event.seq > after_seq and sub.wants(event):
                sub.offer(event)

    def unsubscribe(self, sub: Subscription) -> None:
        """Remove ``sub`` from the bus; removing it twice is harmless."""
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def publish(self, event: Event) -> Event:
        """Number, buffer and deliver ``event``; returns it as delivered."""
        with self._lock:
            self._last_seq += 1
            obs_id = event.observation_id or (event.observation.id if event.observation is not None else "")
            event = replace(event, seq=self._last_seq, at=event.at or time.time(), observation_id=obs_id)
            self._replay.append(event)
            subs = [s for s in self._subs if s.wants(event)]
        for s in subs:
            s.offer(event)
        return event

    def close(self) -> None:
        """End every subscription now (their streams return); idempotent."""
        with self._lock:
            self.closed.set()
            subs, self._subs = self._subs, []
        for s in subs:
            s.offer(None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._subs)
