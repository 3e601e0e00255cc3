"""The review page's own subscription to the daemon's events: one supervised thread that
keeps a *generation* number, bumped by every event, every (re)connection and every loss of
the stream, and a short log of what each generation was (``since``). The gateway keeps what
it read last (the queue's notes and findings) under the generation it read it at: a page load
while nothing happened costs no daemon call; after changes to notes it patches what it read
with the notes the events carry; after anything else (a knowledge file's unit changed, a lost
stream, a reconnection) it reads everything again.

While the stream is down the generation is not trusted (``current`` is None): every read goes
to the daemon. The supervised loop (reconnecting after a pause that doubles, a failing step
logged and survived) is ``graphmem.stream_follower``.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Final

from graphmem.client import EventStream
from graphmem.stream_follower import FIRST_PAUSE_S, MAX_PAUSE_S, StreamFollower
from graphmem.types import Event, EventKind, Observation, ObservationAction

__all__ = ["FIRST_PAUSE_S", "LOG_MAX", "MAX_PAUSE_S", "Follower", "NoteChange", "Since"]

logger = logging.getLogger(__name__)

#: generations remembered by ``since`` (older reads are read again whole)
LOG_MAX: Final = 2000

#: events that change no note and no knowledge finding (the index working)
_NEUTRAL: Final = frozenset(
    {
        EventKind.FILE_INDEXED,
        EventKind.INDEX_PROGRESS,
        EventKind.INDEX_QUERYABLE,
        EventKind.INDEX_DURABLE,
        EventKind.WATCHER_DEGRADED,
    }
)


@dataclass(frozen=True, slots=True)
class NoteChange:
    """A note as an event carried it (``gone``: deleted)."""

    note: Observation
    gone: bool = False


@dataclass(frozen=True, slots=True)
class Since:
    """What happened after a generation, up to ``generation``: the notes changed, in order."""

    generation: int
    changes: tuple[NoteChange, ...]


class _Mark(Enum):
    """A log entry that is no note change."""

    NOTHING = "nothing"  # an event that changes nothing the queue shows
    WHOLE = "whole"  # after it, everything must be read again


def _entry(event: Event) -> NoteChange | _Mark:
    """What one event means to a queue read before it."""
    if event.kind in _NEUTRAL:
        return _Mark.NOTHING
    o = event.observation
    if o is None or o.knowledge is not None or event.kind is EventKind.EVENTS_LOST:
        return _Mark.WHOLE  # a knowledge file's unit changes findings: read them again
    return NoteChange(o, gone=event.action is ObservationAction.DELETED)


class Follower(StreamFollower):
    """A supervised subscription that counts what happened (``current``, ``since``)."""

    def __init__(self, subscribe: Callable[[int | None], EventStream]) -> None:
        super().__init__(subscribe, "graphmem-ui-follower")
        self._lock = threading.Lock()
        self._generation = 0
        self._connected = False
        #: (generation, what it was) for the last ``LOG_MAX`` generations
        self._log: deque[tuple[int, NoteChange | _Mark]] = deque(maxlen=LOG_MAX)

    @property
    def current(self) -> int | None:
        """The generation now; None while the stream is down (nothing may be reused)."""
        with self._lock:
            return self._generation if self._connected else None

    def _bump(self, connected: bool, entry: NoteChange | _Mark = _Mark.WHOLE) -> None:
        with self._lock:
            self._generation += 1
            self._connected = connected
            self._log.append((self._generation, entry))

    def since(self, generation: int) -> Since | None:
        """The notes changed after ``generation`` up to now, or None when the read made at
        ``generation`` cannot be patched: the stream is down, the log no longer reaches back
        that far, or something other than notes changed in between."""
        with self._lock:
            if not self._connected or generation > self._generation:
                return None
            if generation == self._generation:
                return Since(generation, ())
            if not self._log or self._log[0][0] > generation + 1:
                return None
            entries = [e for g, e in self._log if g > generation]
            now = self._generation
        if any(e is _Mark.WHOLE for e in entries):
            return None
        return Since(now, tuple(e for e in entries if isinstance(e, NoteChange)))

    def connected(self) -> None:
        """A (re)connection: what was read before may have missed something."""
        self._bump(True)

    def received(self, event: Event) -> None:
        """One event: a new generation, with what it means to a queue read before it."""
        self._bump(True, _entry(event))

    def lost(self, reason: str) -> None:
        """The stream is down: nothing read may be reused until it is back."""
        logger.info("graphmem ui: event stream unavailable: %s", reason)
        self._bump(False)

    def crashed(self, message: str) -> None:
        """A failed step (logged already): as a loss."""
        self._bump(False)
