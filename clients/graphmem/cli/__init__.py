"""``graphmem``: the command line of the graphmem daemon.

Every command talks to the daemon over gRPC (``graphmem.client``); the CLI never opens
the store and never imports the daemon's code. Output: a human rendering on stdout, or
with ``--json`` (every read command) machine-readable JSON (dataclasses as objects, enums
as their values, times as epoch seconds). Messages and errors go to stderr as
``graphmem: <message>``.

One module per group of commands, each adding its verbs with ``register(r)``
(``common.Registrar``): ``daemon`` (daemon, status), ``repos`` (repo, index), ``notes`` (the
observation verbs), ``code`` (symbols, resolve, symbol, events), ``transfer`` (export,
import), ``serve`` (mcp, lsp, completion), ``ui`` (the review page), ``checking`` (check); the agent verbs (setup,
hook, doctor) come from ``graphmem.agents.commands``. ``common`` holds the resolved global
options and the shared helpers, ``views`` the human renderings.

Exit codes: 0 ok; 1 error (and ``status``: running but degraded / not serving);
2 daemon not running; 3 daemon already running; 64 usage error / invalid argument;
65 already exists; 66 not found; 69 failed precondition; 70 store error; 75 timeout;
130 interrupted. They come from the exception classes (``exit_code``) in ``main``.
"""

from __future__ import annotations

import argparse
import os
import sys

from graphmem import __version__
from graphmem.agents.commands import register as register_agent_verbs
from graphmem.cli import checking, code, daemon, notes, repos, serve, transfer, ui
from graphmem.cli.common import (
    EX_INTERRUPTED,
    EX_USAGE,
    START_HINT,
    Ctx,
    Parser,
    Registrar,
    Verb,
    freshness_line,
    pick_hint,
    to_jsonable,
)
from graphmem.errors import DaemonNotRunning, GraphMemError
from graphmem.render import marker

__all__ = ["EX_USAGE", "build_parser", "freshness_line", "main", "marker", "to_jsonable"]


def build_parser() -> argparse.ArgumentParser:
    """The ``graphmem`` argument parser (global options work before or after the verb)."""
    common = Parser(add_help=False)
    g = common.add_argument_group("global options")
    g.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="graphmem home directory (default: $GRAPHMEM_HOME, else XDG directories)",
    )
    g.add_argument(
        "--address",
        metavar="ADDR",
        default=argparse.SUPPRESS,
        help="daemon address: unix:/path or host:port (default: $GRAPHMEM_ADDRESS, else the socket)",
    )
    g.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=argparse.SUPPRESS,
        help="deadline of each call to the daemon (default: 10)",
    )

    parser = Parser(
        prog="graphmem",
        parents=[common],
        description="Code-graph memory for coding assistants: a client of the graphmem daemon.",
        epilog="Exit codes: 0 ok, 1 error/degraded, 2 daemon not running, 3 already running, "
        "64 usage, 65 exists, 66 not found, 69 precondition, 70 store, 75 timeout.",
    )
    parser.add_argument("--version", action="version", version=f"graphmem {__version__}")
    r = Registrar(common, parser.add_subparsers(title="commands", metavar="COMMAND", required=True))
    for group in (daemon, repos, notes, code, transfer, serve, ui):
        group.register(r)
    register_agent_verbs(r.verb)
    checking.register(r)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one ``graphmem`` command; returns the exit code."""
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # a shell asks for completions (graphmem completion SHELL)
        import argcomplete

        argcomplete.autocomplete(parser)  # prints the completions and exits
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help/--version (0) and usage errors (64)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EX_USAGE)
    func: Verb | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return EX_USAGE
    ctx = Ctx.from_args(args)
    try:
        return func(args, ctx)
    except GraphMemError as exc:
        ctx.note(str(exc))
        hint = pick_hint(args, exc)
        if hint:
            ctx.note(hint)
        if isinstance(exc, DaemonNotRunning):
            print(START_HINT, file=ctx.err)
        return exc.exit_code
    except KeyboardInterrupt:
        return EX_INTERRUPTED
    except BrokenPipeError:
        # stdout was closed early (e.g. `| head`): silence the flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
