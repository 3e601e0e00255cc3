"""The single store writer: every store write runs on one supervised thread, in order.

The indexer and the gRPC handlers hand writes over as callables and carry on (the
in-memory graph and the journal are already current); callers that need the write done wait
on the returned future. A write that raises fails alone (its future carries the error); an
unexpected exception also marks the writer degraded until a later write succeeds.

Observation copies are *urgent*: an acknowledgement waits for them (``memory.py``), so they
run before any queued graph write, and between the chunks of a running bulk load
(``between_steps``, which the store calls after each chunk), instead of behind a whole pass.

A bulk write that is not urgent gives way to a newer checkout's first index pass
(``yield_point``: a worktree added while the previous one's rows are still being copied):
on two cores, the copy's Python work took the interpreter from that pass and doubled its
time to current. It waits while ``yield_to`` says such a pass runs, at most ``YIELD_MAX_S``
at each point, running the urgent writes meanwhile.

Writes are refused up front while the store's file system is nearly full (``space_check``):
Kùzu 0.11.3 can crash the process (SIGSEGV) on the next statement after a write that ran out
of space, so it is never let near ENOSPC. Refused writes fail like any other; the journal
holds the observations and the store is brought level once space returns.

"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from graphmem.errors import GraphMemError, ResourceExhausted

from graphmemd.runtime.faults import NO_FAULTS, Faults
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread, describe

logger = logging.getLogger(__name__)

COMPONENT = "store-writer"

#: the longest a bulk write waits at one ``yield_point`` for a newer checkout's pass
YIELD_MAX_S = 3.0
#: how often a waiting write looks again whether the pass is done (and runs urgent writes)
YIELD_POLL_S = 0.02


class StoreWriter:
    """A queue of store writes run by one thread; ``after_each`` runs after every write (cheap
    upkeep that cannot wait for a quiet moment), ``on_idle`` whenever the queue drained."""

    def __init__(
        self,
        health: Health,
        on_idle: Callable[[], None],
        faults: Faults = NO_FAULTS,
        after_each: Callable[[], None] | None = None,
        space_check: Callable[[], str] | None = None,
    ) -> None:
        self._urgent: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._normal: deque[tuple[Callable[[], Any], Future[Any]] | None] = deque()
        self._cond = threading.Condition()
        self._thread_id: int | None = None
        #: an urgent write is running inside a long one (``between_steps`` does not nest)
        self._in_urgent = False
        self._health = health
        self._on_idle = on_idle
        self._after_each = after_each
        self._faults = faults
        self._space_check = space_check
        #: writes that failed or were refused: a clean stop then writes no snapshots
        self.failed = 0
        #: checkout id -> whether a first index pass of another checkout runs now, which a
        #: bulk write of that checkout gives way to (``yield_point``); None: never
        self.yield_to: Callable[[str], bool] | None = None
        self._closing = False
        #: the checkout whose bulk write runs now, once it called ``yield_point`` (None: none)
        self._owner: str | None = None
        #: seconds bulk writes waited at ``yield_point``, in all
        self.yielded_s = 0.0
        self._loop = SupervisedThread(COMPONENT, self._step, health)
        self._loop.start()

    def submit(self, fn: Callable[[], Any], *, urgent: bool = False) -> Future[Any]:
        """Queue ``fn``; its result (or exception) arrives in the returned future. An
        ``urgent`` write runs before every queued ordinary one (in order among the urgent
        ones) and between the chunks of a running bulk load."""
        fut: Future[Any] = Future()
        with self._cond:
            (self._urgent if urgent else self._normal).append((fn, fut))
            self._cond.notify()
        return fut

    def pending(self) -> int:
        """How many writes are queued."""
        with self._cond:
            return len(self._urgent) + len(self._normal)

    def _empty(self) -> bool:
        with self._cond:
            return not self._urgent and not self._normal

    def between_steps(self) -> None:
        """Run the urgent writes queued now, when called on the writer thread inside a long
        write (the store calls it between the chunks of a bulk load); elsewhere nothing.
        Inside a write that gave its checkout to ``yield_point``, then give way there too."""
        if threading.get_ident() != self._thread_id or self._in_urgent:
            return  # not the writer, or already inside an urgent write (never nested)
        self._urgent_now()
        if self._owner is not None:
            self._give_way(self._owner, YIELD_MAX_S)

    def _urgent_now(self) -> None:
        self._in_urgent = True
        try:
            self._run_urgent()
        finally:
            self._in_urgent = False

    def yield_point(self, owner: str, most_s: float = YIELD_MAX_S) -> float:
        """On the writer thread, inside a bulk write of checkout ``owner``: wait while
        ``yield_to(owner)`` says another checkout's first index pass runs (at most ``most_s``;
        not once the writer is closing), running the urgent writes meanwhile; returns how long
        it waited. The rest of that write gives way the same at each of its steps
        (``between_steps``: each chunk and table of its bulk load). Elsewhere, or with no
        ``yield_to``, returns 0 at once."""
        if threading.get_ident() != self._thread_id or self._in_urgent:
            return 0.0
        self._owner = owner
        return self._give_way(owner, most_s)

    def _give_way(self, owner: str, most_s: float) -> float:
        busy = self.yield_to
        if busy is None:
            return 0.0
        started = time.monotonic()
        deadline = started + most_s
        while not self._closing and busy(owner) and time.monotonic() < deadline:
            self._urgent_now()
            with self._cond:
                if not self._urgent and not self._closing:
                    self._cond.wait(YIELD_POLL_S)
        waited = time.monotonic() - started
        self.yielded_s += waited
        return waited

    def _run_urgent(self) -> None:
        while True:
            with self._cond:
                if not self._urgent:
                    return
                fn, fut = self._urgent.popleft()
            try:
                self._run(fn, fut)
            except Exception as exc:  # its future has the error; the long write goes on
                logger.exception("urgent store write failed inside a long write")
                self._health.crashed(COMPONENT, describe(exc))

    def _step(self) -> bool:
        self._thread_id = threading.get_ident()
        with self._cond:
            while not self._urgent and not self._normal:
                self._cond.wait()
            item = self._urgent.popleft() if self._urgent else self._normal.popleft()
        if item is None:
            return False
        self._owner, yielded = None, self.yielded_s
        try:
            done = self._run(*item)
        finally:
            if self._owner is not None and self.yielded_s - yielded >= 0.05:
                logger.info("a bulk write of %s gave way to another checkout's first pass for %.2fs", self._owner,
                            self.yielded_s - yielded)  # fmt: skip
            self._owner = None
        if not done:
            return True  # refused for lack of space: and no upkeep either
        hooks = [h for h in (self._after_each, self._on_idle if self._empty() else None) if h is not None]
        for hook in hooks:
            try:
                hook()
            except GraphMemError as exc:
                logger.error("store upkeep failed: %s", exc)
        return True

    def _run(self, fn: Callable[[], Any], fut: Future[Any]) -> bool:
        """One write: its result or error into ``fut``; False when it was refused for space."""
        try:
            self._faults.check(COMPONENT)
            problem = self._space_check() if self._space_check is not None else ""
            if problem:  # not a fault of the writer: status reports the disk (re-checked)
                logger.warning("store write refused: %s", problem)
                self.failed += 1
                fut.set_exception(ResourceExhausted(f"store write refused: {problem}"))
                return False
            fut.set_result(fn())
            self._health.recover(COMPONENT)
        except GraphMemError as exc:  # the journal / the next full pass repairs the store
            logger.error("store write failed: %s", exc)
            self.failed += 1
            self._health.degrade(COMPONENT, str(exc))
            fut.set_exception(exc)
        except Exception as exc:
            self.failed += 1
            fut.set_exception(exc)
            raise  # the supervisor logs it and shows the writer degraded
        return True

    def close(self, timeout: float = 60.0) -> bool:
        """Finish every queued write, then stop; True when all were done and none failed."""
        self._loop.stop_after_crash()
        with self._cond:
            self._closing = True
            self._normal.append(None)
            self._cond.notify()
        self._loop.join(timeout)
        return not self._loop.is_alive() and not self.failed
