"""A supervised follower of the daemon's event stream: the one start/stop/backoff loop that the
language server and the review page each subclass with what they do with the stream.

Each step subscribes (``subscribe(after_seq)``: resuming after the last sequence number seen),
calls ``connected`` once the stream is ready, then ``received`` for every event (the sequence
number is taken first, so an event whose handler fails is not delivered again) until the
stream ends (the daemon stopped) or fails with one of ``gone``; then ``lost`` with the reason,
and a pause before the next attempt that doubles up to ``MAX_PAUSE_S`` (a connection resets
it). A step that raises anything else is logged with its traceback, reported (``crashed``) and
the loop goes on after a pause: the thread never dies while its owner runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import ClassVar, Final

from graphmem.client import EventStream
from graphmem.errors import GraphMemError
from graphmem.types import Event

__all__ = ["FIRST_PAUSE_S", "MAX_PAUSE_S", "StreamFollower"]

logger = logging.getLogger(__name__)

FIRST_PAUSE_S: Final = 0.25
MAX_PAUSE_S: Final = 8.0


class StreamFollower:
    """One supervised thread following the daemon's event stream; subclasses say what a
    connection, an event, a loss and a crash mean to them."""

    #: what ends a connection as expected (the daemon is down or went away): ``lost``, not a crash
    gone: ClassVar[tuple[type[BaseException], ...]] = (GraphMemError,)

    def __init__(self, subscribe: Callable[[int | None], EventStream], thread_name: str) -> None:
        self._subscribe = subscribe
        self._stop = threading.Event()
        self._stream: EventStream | None = None
        self._last_seq: int | None = None
        self._pause = FIRST_PAUSE_S
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)

    # ------------------------------------------------------------------ what subclasses say

    def connected(self) -> None:
        """The stream is ready (every event after the last one seen follows)."""

    def received(self, event: Event) -> None:
        """One event of the stream."""

    def lost(self, reason: str) -> None:
        """The stream ended or failed (not called when stopping)."""

    def crashed(self, message: str) -> None:
        """A step raised something unexpected (logged already); the loop goes on."""

    # ------------------------------------------------------------------ the loop

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

    def is_alive(self) -> bool:
        """Whether the thread runs."""
        return self._thread.is_alive()

    def _backoff(self) -> None:
        self._stop.wait(self._pause)
        self._pause = min(self._pause * 2, MAX_PAUSE_S)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            # Broad on purpose: this is the supervisor; whatever a step raises is logged and
            # reported, and the loop goes on after a pause.
            except Exception as exc:
                logger.exception("%s: the event follower failed; it goes on", self._thread.name)
                self.crashed(f"{type(exc).__name__}: {exc}")
                self._backoff()

    def step(self) -> None:
        """One connection: subscribe, hand over events until the stream ends, then back off."""
        try:
            stream = self._subscribe(self._last_seq)
            self._stream = stream
            if self._stop.is_set():
                stream.cancel()
                return
            stream.wait_ready()
            self._pause = FIRST_PAUSE_S  # connected: the next loss starts the backoff again
            self.connected()
            for event in stream:
                self._last_seq = event.seq or self._last_seq
                self.received(event)
            reason = "the daemon stopped"
        except self.gone as exc:
            reason = str(exc)
        finally:
            self._stream = None
        if self._stop.is_set():
            return
        self.lost(reason)
        self._backoff()
