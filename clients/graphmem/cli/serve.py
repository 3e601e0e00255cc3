"""The commands that serve a protocol on stdio or print shell code: ``mcp``, ``lsp``, ``completion``."""

from __future__ import annotations

import argparse
import importlib
import os

from graphmem.cli.common import Ctx, Registrar
from graphmem.errors import (
    GraphMemError,
)


def register(r: Registrar) -> None:
    """``mcp``, ``lsp`` and ``completion``."""
    COMPLETION_SHELLS = ("bash", "zsh", "fish")
    p = r.verb("completion", cmd_completion, "print the shell completion script for bash, zsh or fish")
    p.add_argument("shell", choices=COMPLETION_SHELLS, help="the shell to complete in")
    p.epilog = (
        'bash: eval "$(graphmem completion bash)" in ~/.bashrc; '
        'zsh: eval "$(graphmem completion zsh)" in ~/.zshrc (after compinit); '
        "fish: graphmem completion fish > ~/.config/fish/completions/graphmem.fish"
    )
    r.verb("mcp", cmd_mcp, "serve the Model Context Protocol on stdio (bridge to the daemon)")
    r.verb("lsp", cmd_lsp, "serve the Language Server Protocol on stdio: notes in any editor (docs/editors.md)")


def cmd_mcp(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem mcp``: run the MCP bridge with the settings the flags resolved."""
    # The bridge reads the same settings; pass on what the flags resolved.
    if ctx.home:
        os.environ["GRAPHMEM_HOME"] = ctx.home
    if ctx.address_flag:
        os.environ["GRAPHMEM_ADDRESS"] = ctx.address_flag
    try:
        bridge = importlib.import_module("graphmem.mcp_bridge")
    except ModuleNotFoundError as exc:
        if exc.name != "graphmem.mcp_bridge":
            raise
        raise GraphMemError("the MCP bridge (graphmem.mcp_bridge) is not installed") from exc
    result = bridge.main()
    return result if isinstance(result, int) else 0


def cmd_lsp(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem lsp``: run the language server with the settings the flags resolved."""
    if ctx.home:
        os.environ["GRAPHMEM_HOME"] = ctx.home
    if ctx.address_flag:
        os.environ["GRAPHMEM_ADDRESS"] = ctx.address_flag
    from graphmem.lsp.features import main as serve

    return serve()


def cmd_completion(args: argparse.Namespace, ctx: Ctx) -> int:
    """Print the completion script for ``args.shell`` (argcomplete's, registered for ``graphmem``)."""
    from argcomplete.shell_integration import shellcode

    print(shellcode(["graphmem"], shell=args.shell), file=ctx.out)
    return 0
