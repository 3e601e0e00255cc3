"""The event follower: one supervised thread that keeps the language server subscribed to
the daemon's event stream (the loop is ``graphmem.stream_follower``).

Each connection begins with a health check with a short deadline, then ``Subscribe`` resuming
after the last sequence number seen; it tells the gateway the daemon is up, and hands every
event to ``deliver`` until the stream ends (the daemon stopped) or fails. Then it marks the
daemon down. A step that raises anything unexpected is logged with its traceback and reported
(``on_crash``); the loop goes on after a pause.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from graphmem.client import EventStream, GraphMem
from graphmem.lsp.gateway import GONE, Gateway
from graphmem.stream_follower import FIRST_PAUSE_S, MAX_PAUSE_S, StreamFollower
from graphmem.types import Event

__all__ = ["FIRST_PAUSE_S", "MAX_PAUSE_S", "Follower"]


class Follower(StreamFollower):
    """Supervised subscription to the daemon's events, reconnecting with backoff."""

    gone: ClassVar[tuple[type[BaseException], ...]] = (*GONE, TimeoutError)

    def __init__(
        self,
        client: GraphMem,
        gateway: Gateway,
        deliver: Callable[[Event], None],
        on_connect: Callable[[], None],
        on_crash: Callable[[str], None],
    ) -> None:
        super().__init__(self._subscribe_when_healthy, "graphmem-lsp-events")
        self._client = client
        self._gateway = gateway
        self._deliver = deliver
        self._on_connect = on_connect
        self._on_crash = on_crash

    def _subscribe_when_healthy(self, after_seq: int | None) -> EventStream:
        if not self._client.health():
            raise TimeoutError("the daemon is not serving yet")
        return self._client.events(after_seq=after_seq)

    def connected(self) -> None:
        """The daemon is up: tell the gateway, then the server."""
        self._gateway.mark_up()
        self._on_connect()

    def received(self, event: Event) -> None:
        """Hand the event to the server."""
        self._deliver(event)

    def lost(self, reason: str) -> None:
        """The daemon is down (the gateway tells the server once)."""
        self._gateway.mark_down(reason)

    def crashed(self, message: str) -> None:
        """Report the failed step."""
        self._on_crash(message)
