"""``graphmem ui``: the review page (issue 44; ``graphmem.ui``, docs/ui.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from graphmem.cli.common import Ctx, Registrar
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument
from graphmem.types import Repository


def register(r: Registrar) -> None:
    """``ui``."""
    p = r.verb("ui", cmd_ui, "serve the review page (stale notes, their code change, the code around them)")
    p.add_argument(
        "--repo", default="", help="repository id or path (default: the one containing the working directory)"
    )
    p.add_argument("--no-open", action="store_true", help="print the URL instead of opening the browser")
    p.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    p.add_argument(
        "--host",
        default=None,
        help="address to listen on (default 127.0.0.1); another one is refused unless given here, and warned about",
    )
    p.epilog = "On another machine: run it there and forward the port over SSH (docs/ui.md)."


def _repository(client: GraphMem, hint: str) -> Repository:
    """The repository ``hint`` names (an id or a path in it), else the one containing the
    working directory, else the only one registered."""
    repos = client.list_repos()
    if hint:
        by_id = [r for r in repos if r.id == hint]
        found = by_id[0] if by_id else client.repo_containing(Path(hint).expanduser().absolute())
        if found is None:
            raise InvalidArgument(f"no registered repository is {hint!r}; register it with `graphmem repo add PATH`")
        return found
    directory = client.working_directory()
    found = client.repo_containing(directory) if directory is not None else None
    if found is not None:
        return found
    if len(repos) == 1:
        return repos[0]
    if not repos:
        raise InvalidArgument("no repository is registered; register one with `graphmem repo add PATH`")
    names = ", ".join(r.root for r in repos)
    raise InvalidArgument(f"the working directory is in no registered repository: give --repo (one of {names})")


def cmd_ui(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem ui``: serve the review page of one repository until Ctrl-C."""
    if not 0 <= args.port <= 65535:
        raise InvalidArgument(f"--port must be 0..65535, not {args.port}")
    from graphmem.ui.server import serve  # the web stack loads only for this command

    client = ctx.client()
    try:
        repo = _repository(client, args.repo)
        return serve(
            client, repo, host=args.host, port=args.port, open_browser=not args.no_open, out=ctx.out, err=ctx.err
        )
    finally:
        client.close()
