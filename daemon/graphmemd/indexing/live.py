"""Live edit batches taken between the steps of a long job (the indexer's one thread).

The indexer runs one job at a time, so a batch of files an agent just saved would wait behind
a whole index or knowledge pass. A long job instead asks, at the points where the graph and
the notes are whole (between knowledge files; between the files an index pass parses), whether
a live batch waits (``waiting``), finishes what it holds (writes the notes judged so far) and
lets the batch run there (``run``), on the same thread, then goes on judging against the graph
as the batch left it. ``NEVER`` is for a job that is itself such a batch."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from graphmem.types import IndexState

from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import describe

__all__ = ["NEVER", "LiveBatches", "LiveRunner"]
logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LiveBatches:
    """How a long job lets waiting live batches go first."""

    #: whether a live batch waits that may run now (cheap: read at every step)
    waiting: Callable[[], bool]
    #: run the waiting live batches now; returns how many ran
    run: Callable[[], int]


NEVER = LiveBatches(lambda: False, lambda: 0)


class LiveRunner:
    """The indexer's side of ``LiveBatches``: which checkouts' queued batches may go first in
    the running job, and running them there. On the indexer's thread only."""

    def __init__(
        self,
        registry: RepoRegistry,
        changes: Callable[[RepoRuntime], None],
        health: Health,
        rescan: Callable[[RepoRuntime], object],
    ) -> None:
        self._registry = registry
        self._changes = changes
        self._health = health
        self._rescan = rescan
        #: the checkout whose job runs now, None when none or when that job is itself a batch
        #: (set by the indexer's loop: a batch's dependents and answer come before the next one)
        self.running: RepoRuntime | None = None
        self._inside = False

    def batches(self) -> LiveBatches:
        """The hooks a long job asks (``LiveBatches``)."""
        return LiveBatches(self.waiting, self.run)

    def waiting(self) -> bool:
        """Whether a live batch waits that may go first in the running job."""
        if self._inside or self.running is None:
            return False
        return any(self._may_go_first(rt) for rt in self._registry.all())

    def _may_go_first(self, rt: RepoRuntime) -> bool:
        """A checkout's queued batch may run inside the running job when its graph is whole
        (READY: the running checkout's own only once its pass applied what it parsed) and it
        is not another checkout of the running one's repository (derived from it, sharing
        its parses)."""
        running = self.running
        sibling = running is not None and rt is not running and rt.repository == running.repository
        return rt.queued and rt.state is IndexState.READY and rt.n_files > 0 and not sibling

    def run(self) -> int:
        """Run the waiting live batches now, inside the running job (on this thread: the graph
        keeps one writer); how many ran. A batch that fails is logged and its checkout
        rescanned (what it held is read again); the running job goes on."""
        if self._inside or self.running is None:
            return 0
        ran = 0
        self._inside = True
        try:
            for rt in [r for r in self._registry.all() if self._may_go_first(r)]:
                busy, before = rt.busy, rt.activity
                rt.busy = True
                try:
                    self._changes(rt)
                except Exception as exc:
                    logger.exception("%s: a live batch taken inside a running job failed; rescanning", rt.id)
                    self._health.note_error(f"live batch on {rt.id} failed: {describe(exc)}")
                    rt.rescan_queued = True
                    self._rescan(rt)
                finally:
                    rt.busy, rt.activity = busy, before
                ran += 1
        finally:
            self._inside = False
        if ran:
            logger.info("%d live batch%s went first in the running job", ran, "" if ran == 1 else "es")
        return ran
