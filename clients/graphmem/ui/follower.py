"""The review page's own subscription to the daemon's events: one supervised thread that
keeps a *generation* number, bumped by every event, every (re)connection and every loss of
the stream. The gateway keeps what it read last (the queue's notes and findings) under the
generation it read it at, and reads again once the number moved: a page load while nothing
happened costs no daemon call, and one after any change reads everything again.

While the stream is down the generation is not trusted (``current`` is None): every read goes
to the daemon. The loop reconnects after a pause that doubles up to ``MAX_PAUSE_S``; a step
that raises anything is logged and the loop goes on: the thread never dies while the page runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Final

from graphmem.client import EventStream
from graphmem.errors import GraphMemError

__all__ = ["FIRST_PAUSE_S", "MAX_PAUSE_S", "Follower"]

logger = logging.getLogger(__name__)

FIRST_PAUSE_S: Final = 0.25
MAX_PAUSE_S: Final = 8.0


class Follower:
    """A supervised subscription that counts what happened (``current``)."""

    def __init__(self, subscribe: Callable[[int | None], EventStream]) -> None:
        self._subscribe = subscribe
        self._lock = threading.Lock()
        self._generation = 0
        self._connected = False
        self._stop = threading.Event()
        self._stream: EventStream | None = None
        self._last_seq: int | None = None
        self._pause = FIRST_PAUSE_S
        self._thread = threading.Thread(target=self._run, name="graphmem-ui-follower", daemon=True)

    @property
    def current(self) -> int | None:
        """The generation now; None while the stream is down (nothing may be reused)."""
        with self._lock:
            return self._generation if self._connected else None

    def _bump(self, connected: bool) -> None:
        with self._lock:
            self._generation += 1
            self._connected = connected

    def start(self) -> None:
        """Start following."""
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop following (cancels the stream) and wait for the thread."""
        self._stop.set()
        stream = self._stream
        if stream is not None:
            stream.cancel()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            # Broad on purpose: this is the supervisor; whatever a step raises is logged and
            # the loop goes on after a pause.
            except Exception:
                logger.exception("graphmem ui: the event follower failed; it goes on")
            self._bump(False)
            self._stop.wait(self._pause)
            self._pause = min(self._pause * 2, MAX_PAUSE_S)

    def step(self) -> None:
        """Subscribe (resuming after the last event seen) and count events until the stream
        ends or fails."""
        try:
            stream = self._subscribe(self._last_seq)
            self._stream = stream
            if self._stop.is_set():
                stream.cancel()
                return
            stream.wait_ready()
            self._bump(True)
            self._pause = FIRST_PAUSE_S  # connected: the next loss starts the backoff again
            for event in stream:
                self._last_seq = event.seq or self._last_seq
                self._bump(True)
        except GraphMemError as exc:  # the daemon is down or went away: try again later
            logger.info("graphmem ui: event stream unavailable: %s", exc)
        finally:
            self._stream = None
