"""The event follower: one supervised thread that keeps the language server subscribed to
the daemon's event stream.

Each step connects (health check with a short deadline, then ``Subscribe`` resuming after
the last sequence number seen), tells the gateway the daemon is up, and hands every event to
``deliver`` until the stream ends (the daemon stopped) or fails. Then it marks the daemon
down and waits before the next attempt, doubling the pause up to ``MAX_PAUSE_S``. A step
that raises anything unexpected is logged with its traceback, reported (``on_crash``) and
the loop goes on after a pause: the thread never dies while the server runs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Final

from graphmem.client import EventStream, GraphMem
from graphmem.lsp.gateway import GONE, Gateway
from graphmem.types import Event

__all__ = ["FIRST_PAUSE_S", "MAX_PAUSE_S", "Follower"]

logger = logging.getLogger(__name__)

FIRST_PAUSE_S: Final = 0.25
MAX_PAUSE_S: Final = 8.0


class Follower:
    """Supervised subscription to the daemon's events, reconnecting with backoff."""

    def __init__(
        self,
        client: GraphMem,
        gateway: Gateway,
        deliver: Callable[[Event], None],
        on_connect: Callable[[], None],
        on_crash: Callable[[str], None],
    ) -> None:
        self._client = client
        self._gateway = gateway
        self._deliver = deliver
        self._on_connect = on_connect
        self._on_crash = on_crash
        self._stop = threading.Event()
        self._stream: EventStream | None = None
        self._last_seq: int | None = None
        self._pause = FIRST_PAUSE_S
        self._thread = threading.Thread(target=self._run, name="graphmem-lsp-events", daemon=True)

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

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            # Broad on purpose: this is the supervisor; whatever a step raises is logged and
            # reported, and the loop goes on after a pause.
            except Exception as exc:
                logger.exception("graphmem lsp: the event follower failed; it goes on")
                self._on_crash(f"{type(exc).__name__}: {exc}")
                self._stop.wait(self._pause)
                self._pause = min(self._pause * 2, MAX_PAUSE_S)

    def step(self) -> None:
        """One connection: subscribe, deliver events until the stream ends, then back off."""
        try:
            if not self._client.health():
                raise TimeoutError("the daemon is not serving yet")
            stream = self._client.events(after_seq=self._last_seq)
            self._stream = stream
            if self._stop.is_set():
                stream.cancel()
                return
            stream.wait_ready()
            self._gateway.mark_up()
            self._pause = FIRST_PAUSE_S
            self._on_connect()
            for event in stream:
                self._last_seq = event.seq
                self._deliver(event)
            reason = "the daemon stopped"
        except (*GONE, TimeoutError) as exc:
            reason = str(exc)
        finally:
            self._stream = None
        if self._stop.is_set():
            return
        self._gateway.mark_down(reason)
        self._stop.wait(self._pause)
        self._pause = min(self._pause * 2, MAX_PAUSE_S)
