"""The ``setup``, ``hook`` and ``doctor`` verbs of the ``graphmem`` command line (registered by
``graphmem.cli.build_parser``; each command lives in its own module of this package)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphmem.agents.hook import KINDS
from graphmem.agents.table import CLIENTS, Scope

__all__ = ["register"]

_SETUP_HELP = "connect a coding agent: MCP server, hooks, instructions (" + ", ".join(CLIENTS) + ")"


def register(verb: Callable[..., argparse.ArgumentParser]) -> None:
    """Add the verbs with the CLI's ``verb(name, func, help)`` (``func(args, ctx)``, ``ctx`` the
    resolved global options: ``home``, ``address_flag``, ``out``)."""

    def cmd_setup(args: argparse.Namespace, ctx: Any) -> int:
        from graphmem.agents.setup import SetupRequest, repository_root, run_setup, run_undo

        req = SetupRequest(
            client=args.client,
            scope=Scope.USER if args.user else Scope.PROJECT,
            root=repository_root(Path(args.repo) if args.repo else Path.cwd()),
            home=ctx.home,
            address=ctx.address_flag,
            dry_run=args.dry_run,
            hooks=not args.no_hooks,
            instructions=args.instructions,
            login_service=args.login_service,
            register=not args.no_register,
            explicit_root=bool(args.repo),
            command=args.command,
            home_flag=getattr(args, "home", None),
            address_flag=getattr(args, "address", None),
        )
        return (run_undo if args.undo else run_setup)(req, ctx.out)

    def cmd_hook(args: argparse.Namespace, ctx: Any) -> int:
        from graphmem.agents.hook import main

        extra = ["--home", ctx.home] if ctx.home else []
        extra += ["--address", ctx.address_flag] if ctx.address_flag else []
        return main([args.kind, *args.options, *extra])

    def cmd_doctor(args: argparse.Namespace, ctx: Any) -> int:
        from graphmem.agents.doctor import run_doctor
        from graphmem.agents.setup import repository_root

        root = repository_root(Path(args.repo) if args.repo else Path.cwd())
        return run_doctor(root, args.client, ctx.home, ctx.address_flag, ctx.out)

    p = verb("setup", cmd_setup, _SETUP_HELP)
    p.add_argument("client", choices=list(CLIENTS), metavar="CLIENT", help=", ".join(CLIENTS))
    p.add_argument("--user", action="store_true", help="the user's configuration (default: the repository's)")
    p.add_argument("--dry-run", action="store_true", help="print the change to each file as a diff; write nothing")
    p.add_argument("--undo", action="store_true", help="restore every file this client's setup changed")
    p.add_argument("--no-hooks", action="store_true", help="no lifecycle hooks (and remove graphmem's)")
    p.add_argument("--instructions", action=argparse.BooleanOptionalAction, default=None,
                   help="add (or not) the note-taking block to the client's instruction file (default: ask)")
    p.add_argument("--login-service", action="store_true", help="install the login service (graphmem daemon install)")
    p.add_argument("--no-register", action="store_true", help="do not register the repository with the daemon")
    p.add_argument("--repo", metavar="PATH", default="", help="the repository (default: the one at hand)")
    p.add_argument("--command", metavar="PATH", default=None,
                   help="the graphmem the files run (default: `graphmem` on PATH in project files, this "
                   "graphmem's absolute path in --user files)")
    p.epilog = ("Project files name `graphmem` on PATH and carry GRAPHMEM_HOME only with --home, so they work on "
                "every teammate's machine. Turn the hooks off: graphmem setup CLIENT --no-hooks; undo everything: "
                "graphmem setup CLIENT --undo.")

    p = verb("hook", cmd_hook, "a client lifecycle hook (reads its JSON on stdin; used by setup's hooks)")
    p.add_argument("kind", choices=KINDS)
    p.add_argument("options", nargs=argparse.REMAINDER, help="--client NAME --budget N --wait-ms MS --fresh-only")

    p = verb("doctor", cmd_doctor, "check daemon, repository, index, versions and each client's MCP entry and hooks")
    p.add_argument("--client", metavar="CLIENT", action="append", default=[], choices=list(CLIENTS),
                   help="check this client (repeatable; default: every one configured)")
    p.add_argument("--repo", metavar="PATH", default="", help="the repository (default: the one at hand)")
