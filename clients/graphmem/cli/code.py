"""The code commands: ``symbols``, ``resolve``, ``symbol``, and ``events`` (the live stream)."""

from __future__ import annotations

import argparse

from graphmem.cli.common import Ctx, Registrar, all_flag, choices, enum_arg, json_flag, positive_int
from graphmem.cli.notes import at_hand
from graphmem.cli.views import render_event, render_symbol_detail, symbol_row
from graphmem.types import (
    EventKind,
)


def register(r: Registrar) -> None:
    """The code verbs and ``events``."""
    # code
    p = r.verb("symbols", cmd_symbols, "find symbols by name pattern (* and ? wildcards)")
    p.add_argument("pattern", metavar="PATTERN")
    p.add_argument(
        "--kind",
        metavar="K",
        action="append",
        default=[],
        help="module, class, struct, interface, trait, enum, function, method (repeatable)",
    )
    p.add_argument("--repo", metavar="R", default="")
    p.add_argument("--limit", metavar="N", type=positive_int, default=50, help="default: 50")
    json_flag(p)

    p = r.verb("resolve", cmd_resolve, "what a short symbol reference means (name, Class.method, file.py::name)")
    p.add_argument("ref", metavar="REF")
    p.add_argument("--repo", metavar="R", default="")
    p.add_argument("--limit", metavar="N", type=positive_int, default=10, help="default: 10")
    json_flag(p)

    p = r.verb("symbol", cmd_symbol, "one symbol with callers, callees and observations")
    p.add_argument("ref", metavar="REF", help="'path::qualname' or a symbol id")
    p.add_argument("--repo", metavar="R", default="")
    json_flag(p)

    p = r.verb("events", cmd_events, "follow live events until Ctrl-C")
    p.add_argument("--repo", metavar="R", default="")
    all_flag(p)
    p.add_argument("--kind", metavar=choices(EventKind), type=enum_arg(EventKind), action="append", default=[])
    p.add_argument(
        "--after-seq", metavar="SEQ", type=positive_int, help="resume: first the buffered events after this seq"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per line")


def cmd_symbols(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem symbols``: symbols matching a wildcard pattern."""
    with ctx.client() as client:
        found = client.find_symbols(args.pattern, repo=args.repo, kinds=args.kind, limit=args.limit)
    if args.json:
        ctx.print_json(found)
    elif not found:
        ctx.note(f"no symbols match {args.pattern!r}")
    else:
        for s in found:
            ctx.print(symbol_row(s))
    return 0


def cmd_resolve(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem resolve``: full refs for a short symbol name; exits 1 when nothing resembles it."""
    with ctx.client() as client:
        resolved = client.resolve_symbol(args.ref, repo=args.repo, limit=args.limit)
    if args.json:
        ctx.print_json(resolved)
    elif not resolved.matches:
        ctx.note(f"nothing resembles {args.ref!r}")
        return 1
    else:
        if not resolved.exact:
            ctx.note(f"{args.ref!r} is ambiguous or inexact; closest first:")
        for s in resolved.matches:
            ctx.print(symbol_row(s))
    return 0


def cmd_symbol(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem symbol``: one symbol with its callers, callees, members and observations."""
    with ctx.client() as client:
        detail = client.symbol(args.ref, repo=args.repo)
    if args.json:
        ctx.print_json(detail)
    else:
        for line in render_symbol_detail(detail):
            ctx.print(line)
    return 0


def cmd_events(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem events``: print the daemon's events as they happen."""
    with ctx.client() as client:
        stream = client.events(
            repo=at_hand(client, args.repo, every=args.all), kinds=args.kind, after_seq=args.after_seq
        )
        try:
            for event in stream:
                if args.json:
                    ctx.print_json(event, indent=None)
                else:
                    ctx.print(render_event(event))
                ctx.out.flush()
        except KeyboardInterrupt:
            stream.cancel()
    return 0
