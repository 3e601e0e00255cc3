"""``graphmem check``: the knowledge files against the code, for CI and pre-commit.

``run``: the command's shell (which daemon answers, the one-shot daemon, waiting, exit
status); ``format``: the pure text/JSON/GitHub renderers and the gate; ``sarif``: the pure
SARIF 2.1.0 renderer. See docs/check.md.
"""

from __future__ import annotations

from graphmem.check.run import add_arguments, options_from_args, run_check

__all__ = ["add_arguments", "options_from_args", "run_check"]
