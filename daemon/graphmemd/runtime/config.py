"""Daemon configuration, resolved once at start: command-line flag, then ``GRAPHMEM_*``
environment variable, then default."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from graphmem.errors import InvalidArgument
from graphmem.paths import Paths, resolve_paths

from graphmemd.runtime.tcp import resolve_listen

#: the store's database engines (``store/engines.py`` loads their bindings), each with the
#: suffix of its database file in the data directory, and the default
STORE_ENGINES = {"kuzu": "kuzu", "ladybug": "lbug"}
DEFAULT_STORE_ENGINE = "ladybug"
#: the store's workarounds for Kùzu 0.11.3's defects, switchable for measurements
#: (``GRAPHMEM_STORE_WORKAROUNDS``; ``store/engine.py`` applies them):
#: ``recycle``   close and reopen the database every 500 queries;
#: ``bulk-read`` ... soon after a bulk read (a warm restart's edges);
#: ``chunks``    ... after a bulk delete and between the chunks of a bulk load;
#: ``literals``  query values written as Cypher literals instead of parameters.
STORE_WORKAROUNDS = ("recycle", "bulk-read", "chunks", "literals")


@dataclass(frozen=True, slots=True)
class DaemonConfig:
    """The daemon's settings, resolved once from flags, environment and defaults."""

    paths: Paths
    repos: tuple[Path, ...] = ()
    tcp: str = ""  # "host:port", loopback only unless tcp_remote; empty: Unix socket only
    tcp_remote: bool = False  # bind a non-loopback address (requires TLS)
    tls_cert: str = ""
    tls_key: str = ""
    log_level: str = "INFO"
    parse_workers: int = 2
    parse_timeout_s: float = 10.0
    #: seconds the parse workers may sit idle before they exit (a new file starts them again)
    parse_idle_s: float = 1.0
    max_file_size: int = 2 * 1024 * 1024
    #: the store's database engine (``store/engines.py``: "kuzu" or "ladybug")
    store_engine: str = DEFAULT_STORE_ENGINE
    #: the store's engine workarounds to apply (None: the engine's own; a measurement switch)
    store_workarounds: frozenset[str] | None = None
    buffer_pool_mb: int = 512
    max_db_size_gb: int = 64
    debounce_ms: int = 50
    watch_step_ms: int = 20
    #: seconds without a new root before the healthy roots share one watch (``ingest/watch_groups.py``; 0: never)
    watch_group_after_s: float = 10.0
    rescan_interval_s: float = 30.0
    watch: bool = True
    #: Observations on code this many call/import/inheritance edges away from a symbol whose
    #: signature changed or that was removed become *suspect* (0: never).
    suspect_hops: int = 1
    #: the process whose exit shuts the daemon down (0: none): a one-shot check's private
    #: daemon (``runtime/outlive.py``; env ``GRAPHMEM_EXIT_WITH``)
    exit_with: int = 0
    #: Fault points armed for the supervision tests (``faults.py``); empty in normal use.
    inject_faults: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def store_path(self) -> Path:
        """The store's database file (a ``.wal`` beside it): ``graph.kuzu`` or ``graph.lbug``."""
        return store_file(self.paths.data_dir, self.store_engine)


def store_file(data_dir: Path, engine: str) -> Path:
    """Where engine ``engine`` keeps the store in ``data_dir``."""
    return data_dir / f"graph.{STORE_ENGINES[parse_engine(engine)]}"


def _int(name: str, value: str) -> int:
    try:
        return int(value)
    except ValueError as exc:
        raise InvalidArgument(f"{name} must be an integer, not {value!r}") from exc


def _float(name: str, value: str) -> float:
    try:
        got = float(value)
    except ValueError as exc:
        raise InvalidArgument(f"{name} must be a number, not {value!r}") from exc
    if not got >= 0:  # also NaN
        raise InvalidArgument(f"{name} must not be negative, got {value!r}")
    return got


def parse_engine(name: str) -> str:
    """A store engine name checked against ``STORE_ENGINES`` (InvalidArgument naming the choices)."""
    value = name.strip().lower()
    if value not in STORE_ENGINES:
        raise InvalidArgument(f"unknown store engine {name!r}; choose one of {', '.join(STORE_ENGINES)}")
    return value


def parse_workarounds(spec: str) -> frozenset[str] | None:
    """``GRAPHMEM_STORE_WORKAROUNDS``: "" -> None (the engine's own), "none" -> none, else a
    comma-separated subset of ``STORE_WORKAROUNDS``."""
    spec = spec.strip().lower()
    if not spec:
        return None
    if spec == "none":
        return frozenset()
    chosen = frozenset(w.strip() for w in spec.split(",") if w.strip())
    unknown = sorted(chosen - set(STORE_WORKAROUNDS))
    if unknown:
        raise InvalidArgument(
            f"unknown store workaround(s) {', '.join(unknown)}; known: {', '.join(STORE_WORKAROUNDS)}"
        )
    return chosen


def resolve_config(
    *,
    home: str | None = None,
    repos: tuple[str, ...] = (),
    tcp: str | None = None,
    tcp_remote: bool | None = None,
    log_level: str | None = None,
    parse_workers: int | None = None,
    watch: bool | None = None,
    store_engine: str | None = None,
    env: Mapping[str, str] | None = None,
) -> DaemonConfig:
    """The daemon's configuration: each setting from its flag, else its ``GRAPHMEM_*`` variable, else the default."""
    env = os.environ if env is None else env

    def pick(flag: object, var: str, default: str) -> str:
        if flag is not None:
            return str(flag)
        return env.get(var) or default

    tcp_value = pick(tcp, "GRAPHMEM_TCP", "")
    remote = pick(tcp_remote, "GRAPHMEM_TCP_REMOTE", "0").lower() in ("1", "true", "yes")
    tls_cert, tls_key = env.get("GRAPHMEM_TLS_CERT", ""), env.get("GRAPHMEM_TLS_KEY", "")
    resolve_listen(tcp_value, remote=remote, tls_cert=tls_cert, tls_key=tls_key)  # fail early, with a message
    workers = _int("GRAPHMEM_PARSE_WORKERS", pick(parse_workers, "GRAPHMEM_PARSE_WORKERS", str(os.cpu_count() or 2)))
    return DaemonConfig(
        paths=resolve_paths(home, env),
        repos=tuple(Path(r).expanduser().absolute() for r in repos),
        tcp=tcp_value,
        tcp_remote=remote,
        tls_cert=tls_cert,
        tls_key=tls_key,
        log_level=pick(log_level, "GRAPHMEM_LOG_LEVEL", "INFO").upper(),
        parse_workers=max(1, workers),
        parse_timeout_s=float(pick(None, "GRAPHMEM_PARSE_TIMEOUT", "10")),
        parse_idle_s=_float("GRAPHMEM_PARSE_IDLE_S", pick(None, "GRAPHMEM_PARSE_IDLE_S", "1")),
        max_file_size=_int("GRAPHMEM_MAX_FILE_SIZE", pick(None, "GRAPHMEM_MAX_FILE_SIZE", str(2 * 1024 * 1024))),
        store_engine=parse_engine(pick(store_engine, "GRAPHMEM_STORE_ENGINE", DEFAULT_STORE_ENGINE)),
        store_workarounds=parse_workarounds(pick(None, "GRAPHMEM_STORE_WORKAROUNDS", "")),
        buffer_pool_mb=_int("GRAPHMEM_BUFFER_POOL_MB", pick(None, "GRAPHMEM_BUFFER_POOL_MB", "512")),
        max_db_size_gb=_int("GRAPHMEM_MAX_DB_GB", pick(None, "GRAPHMEM_MAX_DB_GB", "64")),
        debounce_ms=_int("GRAPHMEM_DEBOUNCE_MS", pick(None, "GRAPHMEM_DEBOUNCE_MS", "50")),
        watch_step_ms=_int("GRAPHMEM_WATCH_STEP_MS", pick(None, "GRAPHMEM_WATCH_STEP_MS", "20")),
        watch_group_after_s=_float("GRAPHMEM_WATCH_GROUP_AFTER_S", pick(None, "GRAPHMEM_WATCH_GROUP_AFTER_S", "10")),
        rescan_interval_s=float(pick(None, "GRAPHMEM_RESCAN_INTERVAL", "30")),
        watch=(watch if watch is not None else env.get("GRAPHMEM_WATCH", "1") not in ("0", "false", "no")),
        inject_faults=pick(None, "GRAPHMEM_INJECT_FAULTS", ""),
        exit_with=_int("GRAPHMEM_EXIT_WITH", pick(None, "GRAPHMEM_EXIT_WITH", "0")),
        suspect_hops=max(0, _int("GRAPHMEM_SUSPECT_HOPS", pick(None, "GRAPHMEM_SUSPECT_HOPS", "1"))),
    )
