"""The ``graphmem`` entry point: ``graphmem hook …`` runs without loading the CLI (a client
runs it on every session start and edit, so it must start fast); everything else is the CLI."""

from __future__ import annotations

import os
import sys

__all__ = ["main"]


def main() -> int:
    """Run ``graphmem`` with ``sys.argv``; returns the exit code."""
    if sys.argv[1:2] == ["hook"] and "_ARGCOMPLETE" not in os.environ:
        from graphmem.agents.hook import main as hook_main

        return hook_main(sys.argv[2:])
    from graphmem.cli import main as cli_main

    return cli_main()
