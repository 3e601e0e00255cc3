"""In-process event bus for the server-streaming subscription.

Publishing never blocks the indexer: each subscriber has a bounded queue, and a
subscriber that falls behind loses its oldest events (and is told so by a gap in ``seq``).
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
import time
from collections.abc import Collection
from dataclasses import replace

from graphmem.types import Event, EventKind

QUEUE_SIZE = 10_000


class Subscription:
    def __init__(self, bus: EventBus, repo_id: str, kinds: Collection[EventKind]) -> None:
        self._bus = bus
        self.repo_id = repo_id
        self.kinds = frozenset(kinds)
        self.queue: queue.Queue[Event | None] = queue.Queue(QUEUE_SIZE)

    def wants(self, event: Event) -> bool:
        if self.kinds and event.kind not in self.kinds:
            return False
        return not self.repo_id or not event.repo_id or event.repo_id == self.repo_id

    def offer(self, event: Event) -> None:
        while True:
            try:
                self.queue.put_nowait(event)
                return
            except queue.Full:
                try:
                    self.queue.get_nowait()
                except queue.Empty:
                    continue

    def get(self, timeout: float) -> Event | None:
        """The next event, or None on timeout or when the bus closed."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._bus.unsubscribe(self)


class EventBus:
    def __init__(self) -> None:
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self.closed = threading.Event()

    def subscribe(self, repo_id: str = "", kinds: Collection[EventKind] = ()) -> Subscription:
        sub = Subscription(self, repo_id, kinds)
        with self._lock:
            self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def publish(self, event: Event) -> None:
        with self._lock:
            event = replace(event, seq=next(self._seq), at=event.at or time.time())
            subs = [s for s in self._subs if s.wants(event)]
        for s in subs:
            s.offer(event)

    def close(self) -> None:
        self.closed.set()
        with self._lock:
            subs, self._subs = self._subs, []
        for s in subs:
            with contextlib.suppress(queue.Full):
                s.queue.put_nowait(None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._subs)
