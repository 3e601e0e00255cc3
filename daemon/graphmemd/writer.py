"""The single writer: every store write runs on one thread, in submission order.

The indexing thread and the gRPC handlers hand writes over as callables and carry on (the
in-memory graph and the journal are already current); callers that need the write to be
visible (a create followed by a text search) wait on the returned future.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from graphmem.errors import GraphMemError

logger = logging.getLogger(__name__)


class StoreWriter:
    def __init__(self, on_error: Callable[[GraphMemError], None], on_idle: Callable[[], None]) -> None:
        """``on_idle`` runs on this thread whenever the queue has been drained."""
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._on_error = on_error
        self._on_idle = on_idle
        self._thread = threading.Thread(target=self._run, name="graphmem-store-writer", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        fut: Future[Any] = Future()
        self._queue.put((fn, fut))
        return fut

    def pending(self) -> int:
        return self._queue.qsize()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, fut = item
            try:
                fut.set_result(fn())
            except GraphMemError as exc:  # the journal / the next full pass repairs the store
                logger.error("store write failed: %s", exc)
                self._on_error(exc)
                fut.set_exception(exc)
            if self._queue.empty():
                try:
                    self._on_idle()
                except GraphMemError as exc:
                    logger.error("store upkeep failed: %s", exc)

    def close(self, timeout: float = 60.0) -> None:
        """Finish every queued write, then stop."""
        self._queue.put(None)
        self._thread.join(timeout)
