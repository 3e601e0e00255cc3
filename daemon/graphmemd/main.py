"""``graphmemd`` / ``python -m graphmemd``: the daemon's entry point (the only place that
configures logging)."""

from __future__ import annotations

import argparse
import gc
import logging
import logging.handlers
import sys
from collections.abc import Sequence

from graphmem.errors import GraphMemError

from graphmemd import __version__
from graphmemd.runtime import malloc
from graphmemd.runtime.config import DEFAULT_STORE_ENGINE, STORE_ENGINES, DaemonConfig, resolve_config


def _setup_logging(config: DaemonConfig, foreground: bool) -> None:
    config.paths.ensure()
    handler = logging.handlers.RotatingFileHandler(
        config.paths.log, maxBytes=5 * 1024 * 1024, backupCount=3, encoding="utf-8"
    )
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handler.setFormatter(fmt)
    root = logging.getLogger()
    root.handlers.clear()
    root.addHandler(handler)
    if foreground and sys.stderr.isatty():
        err = logging.StreamHandler()
        err.setFormatter(fmt)
        root.addHandler(err)
    root.setLevel(config.log_level)
    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # it logs every batch at INFO


def main(argv: Sequence[str] | None = None) -> int:
    """The ``graphmemd`` entry point: run the daemon in the foreground; returns the exit code."""
    parser = argparse.ArgumentParser(prog="graphmemd", description="The graphmem daemon.")
    parser.add_argument("--version", action="version", version=f"graphmemd {__version__}")
    sub = parser.add_subparsers(dest="command")
    run = sub.add_parser("run", help="run the daemon in the foreground (for service managers)")
    run.add_argument("--home", help="relocate every file (store, socket, pid, log); env GRAPHMEM_HOME")
    run.add_argument("--repo", action="append", default=[], help="a repository to index and watch (repeatable)")
    run.add_argument("--tcp", help="also listen on HOST:PORT (loopback only); env GRAPHMEM_TCP")
    run.add_argument(
        "--tcp-remote",
        action="store_true",
        help="let --tcp bind a non-loopback address (needs GRAPHMEM_TLS_CERT and GRAPHMEM_TLS_KEY);"
        " env GRAPHMEM_TCP_REMOTE",
    )
    run.add_argument("--log-level", help="DEBUG, INFO, WARNING, ERROR; env GRAPHMEM_LOG_LEVEL")
    run.add_argument("--workers", type=int, help="parser processes; env GRAPHMEM_PARSE_WORKERS")
    run.add_argument("--no-watch", action="store_true", help="do not watch files (rescan on request only)")
    run.add_argument(
        "--store-engine",
        help=f"the store's database engine: {', '.join(STORE_ENGINES)} (default {DEFAULT_STORE_ENGINE});"
        " env GRAPHMEM_STORE_ENGINE",
    )
    args = parser.parse_args(argv)
    if args.command != "run":
        parser.print_help(sys.stderr)
        return 64
    try:
        config = resolve_config(
            home=args.home,
            repos=tuple(args.repo),
            tcp=args.tcp,
            tcp_remote=True if args.tcp_remote else None,
            log_level=args.log_level,
            parse_workers=args.workers,
            watch=False if args.no_watch else None,
            store_engine=args.store_engine,
        )
        _setup_logging(config, foreground=True)
        gc.set_threshold(50_000, 20, 20)  # fewer young collections: requests allocate in bursts
        # A gRPC call takes the GIL a dozen times (poller, handler, serialisation); with 5 ms
        # switches behind the indexer's and the store writer's Python work, a health check
        # took up to ~50 ms at p99 during a cold index. 1 ms switches cost well under 1 %.
        sys.setswitchinterval(0.001)
        malloc.limit_arenas()  # before any thread starts
        malloc.arrow_uses_malloc()
        from graphmemd.server import serve

        return serve(config)
    except GraphMemError as exc:
        logging.getLogger("graphmemd").error("%s", exc)
        sys.stderr.write(f"graphmemd: {exc}\n")
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
