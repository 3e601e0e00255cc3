"""The indexer's parse workers (``ingest/parse_pool.py``): started in the background when the
daemon opens, and replaced when they stop.

Starting them (a forkserver that imports the parser, then each worker) took ~0.3-0.5 s of
every start before the daemon answered; a warm restart with nothing changed parses nothing,
so ``start`` returns at once and ``get`` (whoever needs them first) waits for that start. A
pool whose dispatcher died (it fails every request then), or that did not start, is replaced
by a new one on the next ``get``."""

from __future__ import annotations

import logging
import threading
import time

from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.runtime.config import DaemonConfig
from graphmemd.runtime.faults import Faults
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread, describe

logger = logging.getLogger(__name__)

#: the component name of the parse pool in health and status
POOL = "parse-pool"


class Workers:
    """The parse pool of one daemon (see the module docstring); thread-safe."""

    def __init__(self, cfg: DaemonConfig, health: Health, faults: Faults) -> None:
        self._cfg, self._health, self._faults = cfg, health, faults
        self._pool: ParsePool | None = None
        self._starting: SupervisedThread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the workers on a supervised one-off thread (``SupervisedThread.once``);
        returns at once. A start that fails is reported by the supervisor (health, the log
        with its traceback) and retried by the next ``get``."""

        def start() -> None:
            started = time.monotonic()
            self._faults.check("parse-start")
            self._pool = self._new()
            logger.info("parse workers ready in %.2fs (started in the background)", time.monotonic() - started)

        self._starting = SupervisedThread.once(POOL, start, self._health, failure="the parse workers did not start")
        self._starting.start()

    def get(self) -> ParsePool:
        """The parse pool, once ``start`` started it; a new one if it stopped or did not start."""
        if self._starting is not None:
            self._starting.join()
        with self._lock:
            if self._pool is None or not self._pool.alive():
                if self._pool is not None:
                    logger.error("the parse pool stopped; starting a new one")
                    self._pool.close()
                self._pool = self._new()
            return self._pool

    def close(self) -> None:
        """Stop the workers (after a start still running)."""
        if self._starting is not None:
            self._starting.join()
        if self._pool is not None:
            self._pool.close()

    def _new(self) -> ParsePool:
        cfg = self._cfg
        pool = ParsePool(
            cfg.parse_workers,
            timeout_s=cfg.parse_timeout_s,
            max_file_size=cfg.max_file_size,
            on_crash=lambda exc: self._health.crashed(POOL, describe(exc)),
            faults=self._faults,
            idle_s=cfg.parse_idle_s,
        )
        pool.start()
        return pool
