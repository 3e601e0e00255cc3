"""The daemon's status as ``graphmem status`` shows it: counters, degraded reasons, last error.

Read from counters the parts maintain, so a status call never waits for the indexer."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Protocol

from graphmem import __version__
from graphmem.types import Observation, ObservationStatus, Repository, Status, WatcherStatus

from graphmemd.ingest.activity import why_not_current
from graphmemd.ingest.parse_pack import ParsePack
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.memory.memory import Memory
from graphmemd.runtime.config import DaemonConfig
from graphmemd.runtime.health import Health
from graphmemd.store.engine import Store


class StatusSource(Protocol):
    """What the status reads of the daemon (:class:`~graphmemd.app.core.Core` provides it)."""

    cfg: DaemonConfig
    health: Health
    registry: RepoRegistry
    started_at: float
    ready: threading.Event
    parses: ParsePack

    @property
    def recovered(self) -> Sequence[str]:
        """What the last open recovered, for ``last_error``."""

    @property
    def store(self) -> Store:
        """The open store."""

    @property
    def memory(self) -> Memory:
        """The observations."""

    def repositories(self) -> list[Repository]:
        """Every registered checkout's summary."""

    def watcher_state(self) -> WatcherStatus:
        """The watchers' combined state."""

    def space_problem(self) -> str:
        """Why the disk is too full to write, or ``""``."""


def repository_summary(rt: RepoRuntime, observations: Iterable[Observation]) -> Repository:
    """A repository's summary from counters the indexer maintains: never waits for it."""
    obs = [o for o in observations if o.repo_id == rt.id]
    return Repository(
        id=rt.id,
        root=str(rt.root),
        state=rt.state,
        files=rt.n_files,
        symbols=rt.n_symbols,
        observations=len(obs),
        stale_observations=sum(o.status is ObservationStatus.STALE for o in obs),
        suspect_observations=sum(o.status is ObservationStatus.SUSPECT for o in obs),
        files_done=rt.files_done,
        files_total=rt.files_total,
        skipped_files=len(rt.skipped),
        head_commit=rt.indexed_commit,
        last_indexed_at=rt.last_indexed_at,
        error=rt.error,
        pending_changes=len(rt.pending),
        edges=rt.n_edges,
        files_parsed=rt.files_parsed,
        resolution=rt.resolver.stats(),
        activity=why_not_current(rt.doing(), pending=len(rt.pending), queued=rt.queued, rescan=rt.rescan_queued),
    )


def daemon_status(core: StatusSource, socket_path: str, tcp: str) -> Status:
    """The daemon's health and counters (``graphmem status``)."""
    serving = core.ready.is_set()
    repos: tuple[Repository, ...] = ()
    n_obs = n_stale = n_suspect = 0
    if serving:
        repos = tuple(core.repositories())
        all_obs = core.memory.book.all()
        n_obs = len(all_obs)
        n_stale = sum(o.status is ObservationStatus.STALE for o in all_obs)
        n_suspect = sum(o.status is ObservationStatus.SUSPECT for o in all_obs)
    watcher = core.watcher_state()
    degraded = [f"watcher: {watcher.degraded_reason}"] if not watcher.healthy else []
    degraded += [f"{d.component}: {d.reason}" for d in core.health.degraded()]
    degraded += [f"repository {r.id}: {r.error}" for r in repos if r.error]
    full = core.space_problem()
    if full:
        degraded.append(full)
    if not serving:
        degraded.append("store not open yet")
    return Status(
        version=__version__,
        pid=os.getpid(),
        uptime_seconds=time.time() - core.started_at,
        socket_path=socket_path,
        store_path=str(core.cfg.store_path),
        store_size_bytes=core.store.size_bytes() + core.parses.size_bytes() if serving else 0,
        journal_path=str(core.cfg.paths.journal),
        serving=serving,
        repositories=repos,
        watcher=watcher,
        degraded_reasons=tuple(degraded),
        tcp_address=tcp,
        last_error="; ".join(dict.fromkeys(e for e in (*core.recovered, core.health.last_error) if e)),
        observations=n_obs,
        stale_observations=n_stale,
        suspect_observations=n_suspect,
    )
