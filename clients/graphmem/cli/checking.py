"""``graphmem check``: the knowledge files against the code, for CI and pre-commit (``graphmem.check``)."""

from __future__ import annotations

import argparse

from graphmem.check import add_arguments as check_arguments
from graphmem.cli.common import Ctx, Registrar


def register(r: Registrar) -> None:
    """``check``."""
    p = r.verb("check", cmd_check, "report dangling and stale code references in knowledge files (CI, pre-commit)")
    p.epilog = "Exit codes: 0 passed, 1 a finding at or above --fail-on, 64 usage; see docs/check.md."
    check_arguments(p)


def cmd_check(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem check``: knowledge files against the code (``graphmem.check``)."""
    from graphmem.check import options_from_args, run_check

    return run_check(options_from_args(args), address=ctx.address, out=ctx.out, err=ctx.err)
