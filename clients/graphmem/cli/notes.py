"""The observation commands: ``observe``, ``show``, ``list``, ``recall``, ``brief``, ``confirm``,
``archive``, ``delete``, ``update``."""

from __future__ import annotations

import argparse
import functools
import sys

from graphmem.actor import local_actor
from graphmem.cli.common import (
    Ctx,
    Registrar,
    all_flag,
    choices,
    confidence,
    enum_arg,
    freshness_line,
    json_flag,
    positive_int,
    stale_flags,
    usage,
)
from graphmem.cli.views import observation_row, render_observation, render_recalled
from graphmem.client import GraphMem
from graphmem.errors import GraphMemError
from graphmem.explain import explain_table
from graphmem.render import marker, plural
from graphmem.types import (
    AnchorKind,
    Category,
    Observation,
    ObservationStatus,
    Origin,
)

#: ``list --kind``: which observations it lists
_KINDS: dict[str, Origin] = {"notes": Origin.NOTES, "docs": Origin.KNOWLEDGE, "all": Origin.ANY}


def register(r: Registrar) -> None:
    """The observation verbs."""
    # observations
    p = r.verb("observe", cmd_observe, "save an observation anchored to code; prints its id")
    p.add_argument("text", metavar="TEXT", help="the observation ('-' reads it from stdin)")
    p.add_argument(
        "--anchor",
        metavar="REF",
        action="extend",
        nargs="+",
        default=[],
        help="'path::Qualified.name', a file path or a symbol id (repeatable)",
    )
    p.add_argument(
        "--category",
        type=enum_arg(Category),
        default=Category.OTHER,
        metavar=choices(Category),
        help="default: other",
    )
    p.add_argument("--tag", metavar="T", action="extend", nargs="+", default=[])
    p.add_argument("--source", metavar="S", default="cli", help="who saves it (default: cli)")
    p.add_argument(
        "--shared",
        action="store_true",
        help="write it into the repository as .graphmem/notes/<id>.md (travels with git)",
    )
    p.add_argument("--confidence", metavar="X", type=confidence, help="0 < X <= 1 (default: 1)")
    p.add_argument("--supersedes", metavar="ID", action="extend", nargs="+", default=[])
    p.add_argument("--contradicts", metavar="ID", action="extend", nargs="+", default=[])
    p.add_argument("--repo", metavar="R", default="", help="repository id or path")
    json_flag(p)

    p = r.verb("show", cmd_show, "show one observation (as the checkout you are in sees it)")
    p.add_argument("id", metavar="ID")
    p.add_argument("--repo", default="", help="judge it in this checkout (id or path; default: the one you are in)")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="each reason in full: detection time, commit, both signatures"
    )
    json_flag(p)

    p = r.verb("list", cmd_list, "list observations")
    p.add_argument("--stale", action="store_true", help="only stale observations")
    p.add_argument("--suspect", action="store_true", help="only suspect observations (a dependency changed)")
    p.add_argument(
        "--status",
        metavar=choices(ObservationStatus),
        type=enum_arg(ObservationStatus),
        action="extend",
        nargs="+",
        default=[],
        help="default: all but archived",
    )
    p.add_argument("--category", metavar=choices(Category), type=enum_arg(Category), action="append", default=[])
    p.add_argument("--file", metavar="F", default="", help="anchored to this file or a symbol in it")
    p.add_argument("--symbol", metavar="S", default="", help="anchored to this symbol")
    p.add_argument("--tag", metavar="T", action="append", default=[], help="having this tag (repeatable)")
    p.add_argument(
        "--kind",
        choices=tuple(_KINDS),
        default="notes",
        help="notes saved by people and agents (default); docs: units of knowledge files (CLAUDE.md, "
        "AGENTS.md, ADRs, docs; `graphmem check` reviews them); all: both",
    )
    p.add_argument("--repo", metavar="R", default="")
    all_flag(p)
    p.add_argument("--limit", metavar="N", type=positive_int, default=100, help="default: 100 (0: all)")
    json_flag(p)

    p = r.verb("recall", cmd_recall, "observations relevant to files, symbols or text, with why")
    p.add_argument("text", metavar="TEXT", nargs="?", default="")
    p.add_argument("--file", metavar="F", action="extend", nargs="+", default=[])
    p.add_argument("--symbol", metavar="S", action="extend", nargs="+", default=[])
    p.add_argument(
        "--hops", metavar="N", type=positive_int, default=2, help="graph distance (default: 2; 0: the anchors only)"
    )
    p.add_argument("--line", metavar="N", type=positive_int, default=0, help="cursor line in the first --file")
    p.add_argument("--limit", metavar="N", type=positive_int, default=20, help="default: 20")
    p.add_argument("--budget", metavar="TOKENS", type=positive_int, default=0, help="token budget (0: none)")
    stale_flags(p)
    p.add_argument("--repo", metavar="R", default="")
    p.add_argument("--explain", action="store_true", help="print each result's score components as a table")
    json_flag(p)

    p = r.verb("brief", cmd_brief, "prompt-ready brief for a working set; without one, the repository's brief")
    p.add_argument("--file", metavar="F", action="extend", nargs="+", default=[])
    p.add_argument("--symbol", metavar="S", action="extend", nargs="+", default=[])
    p.add_argument("--text", metavar="T", default="")
    p.add_argument("--budget", metavar="N", type=positive_int, default=1000, help="tokens (default: 1000)")
    stale_flags(p)
    p.add_argument("--repo", metavar="R", default="")
    json_flag(p)

    p = r.verb("confirm", cmd_confirm, "mark a (stale) observation as checked: re-anchor it, fresh")
    p.add_argument("id", metavar="ID")
    p.add_argument("--by", metavar="NAME", default="", help="who checked it (default: cli:$USER)")
    p.add_argument("--note", metavar="TEXT", default="")
    json_flag(p)

    p = r.verb("archive", cmd_archive, "keep an observation but stop recalling it")
    p.add_argument("id", metavar="ID")
    p.add_argument("--by", metavar="NAME", default="", help="who archives it, for its history (default: cli:$USER)")
    json_flag(p)

    p = r.verb("delete", cmd_delete, "delete an observation (the journal keeps who, when and its history)")
    p.add_argument("id", metavar="ID")
    p.add_argument("--by", metavar="NAME", default="", help="who deletes it (default: cli:$USER)")

    p = r.verb("update", cmd_update, "change an observation's text, category, tags or confidence")
    p.add_argument("id", metavar="ID")
    p.add_argument("--text", metavar="T")
    p.add_argument("--category", metavar=choices(Category), type=enum_arg(Category))
    p.add_argument("--tag", metavar="T", action="extend", nargs="+", help="replace the tags with these")
    p.add_argument("--clear-tags", action="store_true", help="remove every tag")
    p.add_argument("--confidence", metavar="X", type=confidence)
    p.add_argument("--by", metavar="NAME", default="", help="who changes it, for its history (default: cli:$USER)")
    json_flag(p)


def cmd_observe(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem observe``: save an observation (text from the argument or ``-`` for stdin)."""
    text = sys.stdin.read() if args.text == "-" else args.text
    if not text.strip():
        raise usage("observe: TEXT is empty")
    with ctx.client() as client:
        obs = client.observe(
            text.strip(),
            anchors=args.anchor,
            repo=args.repo,
            category=args.category,
            tags=args.tag,
            source=args.source,
            confidence=args.confidence,
            supersedes=args.supersedes,
            contradicts=args.contradicts,
            shared=args.shared,
        )
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(obs.id)
    return 0


def cmd_show(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem show``: one observation in full."""
    with ctx.client() as client:
        obs = client.get(args.id, repo=at_hand(client, args.repo))
        current = {} if args.json else _current_signatures(client, obs)
    if args.json:
        ctx.print_json(obs)
    else:
        for line in render_observation(obs, verbose=args.verbose, current=current):
            ctx.print(line)
    return 0


def _current_signatures(client: GraphMem, o: Observation) -> dict[str, str]:
    """ref -> the signature as the code spells it now, for ``o``'s symbol anchors (an anchor
    keeps the spelling it was made with: after a respelling such as ``Optional[str]`` →
    ``str | None`` it would show what the code no longer says). A file the daemon cannot
    outline now (not indexed, repository gone) is left out."""
    found: dict[str, str] = {}
    for path in dict.fromkeys(a.path for a in o.anchors if a.kind is AnchorKind.SYMBOL and a.path):
        try:
            outline = client.file_outline(path, repo=o.repo_id)
        except GraphMemError:
            continue
        found.update((s.ref, s.signature) for s in outline.symbols if s.signature)
    return found


def cmd_list(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem list``: observations filtered by status, category, file, symbol, tag or repository."""
    statuses = list(
        dict.fromkeys(
            ([ObservationStatus.STALE] if args.stale else [])
            + ([ObservationStatus.SUSPECT] if args.suspect else [])
            + args.status
        )
    )
    origin = _KINDS[args.kind]
    with ctx.client() as client:
        matching = functools.partial(
            client.list,
            repo=at_hand(client, args.repo, every=args.all),
            statuses=statuses,
            categories=args.category,
            file=args.file,
            symbol=args.symbol,
            tags=args.tag,
        )
        found = matching(limit=args.limit, origin=origin)
        units_too = origin is Origin.NOTES and not args.json and bool(matching(limit=1, origin=Origin.KNOWLEDGE))
    if args.json:
        ctx.print_json(found)
        return 0
    if not found:
        ctx.note("no notes match" if origin is Origin.NOTES else "no observations match")
    for o in found:
        ctx.print(observation_row(o))
    if units_too:
        ctx.note(
            "units of knowledge files that match are not listed: --kind docs lists them; graphmem check reviews them"
        )
    return 0


def at_hand(client: GraphMem, repo: str, every: bool = False) -> str:
    """The repository a command covers (``show``, ``list``, ``events``, ``export``): ``repo``
    (``--repo``) when given; every one with ``every`` (``--all``: ""); else the registered
    repository containing the working directory, if any ("" when none does)."""
    if every:
        return ""
    if repo:
        return repo
    directory = client.working_directory()
    found = client.repo_containing(directory) if directory is not None else None
    return found.id if found is not None else ""


def cmd_recall(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem recall``: the observations relevant to text, files or symbols, ranked."""
    if not (args.text or args.file or args.symbol):
        raise usage("recall: give TEXT, --file or --symbol")
    with ctx.client() as client:
        result = client.recall(
            args.text,
            files=args.file,
            symbols=args.symbol,
            repo=args.repo,
            hops=args.hops,
            limit=args.limit,
            budget=args.budget,
            line=args.line,
            fresh_only=args.fresh_only,
        )
    if args.json:
        ctx.print_json(result)
        return 0
    if not result.results and result.excluded_stale:
        ctx.print(
            f"no fresh observations found; {plural(result.excluded_stale, 'stale or suspect one')} "
            "left out by --fresh-only"
        )
    elif not result.results:
        ctx.print("no observations found")
    for n, r in enumerate(result.results, 1):
        for line in render_recalled(n, r):
            ctx.print(line)
        ctx.print()
    if args.explain and result.results:
        for line in explain_table(result.results):
            ctx.print(line)
        ctx.print()
    summary = f"{plural(len(result.results), 'result')}, {result.total_tokens} tokens"
    if result.truncated:
        summary += " (truncated by limit or budget)"
    ctx.print(summary)
    ctx.print(freshness_line(result.freshness))
    for w in result.warnings:
        ctx.note(f"warning: {w}")
    return 0


def cmd_brief(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem brief``: a session brief within a token budget."""
    with ctx.client() as client:
        brief = client.brief(
            files=args.file,
            symbols=args.symbol,
            text=args.text,
            repo=args.repo,
            budget=args.budget,
            fresh_only=args.fresh_only,
        )
    if args.json:
        ctx.print_json(brief)
        return 0
    ctx.print(brief.text.rstrip("\n"))
    if brief.left_out and (args.file or args.symbol or args.text):  # a repository brief says it itself
        ctx.print(
            f"({plural(brief.left_out, 'more observation')} did not fit the budget of {args.budget} tokens; "
            f"raise --budget, or see them all with: {_recall_command(args)})"
        )
    print(f"({brief.tokens} tokens; {freshness_line(brief.freshness)})", file=ctx.err)
    return 0


#: The most results one recall returns (the daemon's limit).
_RECALL_MAX = 200


def _recall_command(args: argparse.Namespace) -> str:
    """The ``graphmem recall`` command line that shows what a brief left out."""
    import shlex

    parts = ["graphmem", "recall"]
    if args.text:
        parts.append(args.text)
    for flag, values in (("--file", args.file), ("--symbol", args.symbol)):
        if values:
            parts += [flag, *values]
    if args.fresh_only:
        parts.append("--fresh-only")
    if args.repo:
        parts += ["--repo", args.repo]
    parts += ["--limit", str(_RECALL_MAX)]
    return shlex.join(parts)


def cmd_confirm(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem confirm``: mark a stale or suspect observation still true."""
    with ctx.client() as client:
        here = at_hand(client, "")  # (a note stale only in this worktree is not confirmed in its home)
        obs = client.confirm(args.id, confirmed_by=args.by or local_actor("cli"), note=args.note, repo=here)
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(f"confirmed {obs.id} {marker(obs)}")
    return 0


def cmd_archive(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem archive``: archive an observation."""
    with ctx.client() as client:
        obs = client.archive(args.id, by=args.by or local_actor("cli"))
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(f"archived {obs.id}")
    return 0


def cmd_delete(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem delete``: delete an observation for good."""
    with ctx.client() as client:
        client.delete(args.id, by=args.by or local_actor("cli"))
    ctx.print(f"deleted {args.id}")
    return 0


def cmd_update(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem update``: change an observation's text, category, tags or confidence."""
    if args.clear_tags and args.tag:
        raise usage("update: --tag and --clear-tags exclude each other")
    tags: list[str] | None = [] if args.clear_tags else args.tag
    if args.text is None and args.category is None and tags is None and args.confidence is None:
        raise usage("update: nothing to change (give --text, --category, --tag, --clear-tags, --confidence)")
    with ctx.client() as client:
        obs = client.update(
            args.id,
            text=args.text,
            category=args.category,
            tags=tags,
            confidence=args.confidence,
            by=args.by or local_actor("cli"),
        )
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(f"updated {obs.id} {marker(obs)}")
    return 0
