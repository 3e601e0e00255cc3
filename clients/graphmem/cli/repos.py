"""``graphmem repo add|remove|list`` and ``graphmem index``."""

from __future__ import annotations

import argparse
import sys

from graphmem.cli.common import Ctx, Registrar, check_repo_dirs, json_flag
from graphmem.cli.views import Progress, repo_lines
from graphmem.errors import (
    FailedPrecondition,
    GraphMemError,
    InvalidArgument,
)
from graphmem.render import plural
from graphmem.types import (
    IndexProgress,
    IndexState,
)


def register(r: Registrar) -> None:
    """``repo …`` and ``index``."""
    # repositories
    repo_verbs = r.group("repo", "register, remove or list repositories")
    p = r.verb("add", cmd_repo_add, "register a repository (indexed in the background, then watched)", repo_verbs)
    p.add_argument("path", metavar="PATH")
    json_flag(p)
    p = r.verb(
        "remove", cmd_repo_remove, "unregister a repository (its observations are kept unless --purge)", repo_verbs
    )
    p.add_argument("repo", metavar="REPO", help="repository id or its root path")
    p.add_argument("--purge", action="store_true", help="also delete its observations for good (asks first)")
    p.add_argument("--yes", action="store_true", help="with --purge: do not ask")
    p = r.verb("list", cmd_repo_list, "list registered repositories", repo_verbs)
    json_flag(p)
    p = r.verb(
        "link",
        cmd_repo_link,
        "make a separate clone a checkout of another repository: each then shows the other's notes",
        repo_verbs,
    )
    p.add_argument("path", metavar="PATH", help="the registered clone: its root or id")
    p.add_argument("--to", required=True, metavar="REPO", help="the repository to join: an id or a path in it")
    json_flag(p)

    p = r.verb("index", cmd_index, "re-index a repository (or all), showing progress")
    p.add_argument("repo", metavar="REPO", nargs="?", default="", help="id or path (default: every repository)")
    p.add_argument("paths", metavar="PATH", nargs="*", help="only these files")
    p.add_argument("--full", action="store_true", help="re-parse files even when unchanged")
    p.add_argument("--json", action="store_true", help="stream progress as JSON objects, one per line, on stdout")


def cmd_repo_add(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem repo add``: register a repository with the daemon."""
    check_repo_dirs([args.path])
    with ctx.client() as client:
        repo = client.add_repo(args.path)
    if args.json:
        ctx.print_json(repo)
        return 0
    ctx.print(f"added {repo.id}  {repo.root}  ({repo.state.value})")
    if len(repo.checkouts) > 1:
        others = plural(len(repo.checkouts) - 1, "other checkout")
        ctx.print(f"a checkout of repository {repo.repository_id} (with {others}): notes are shared")
    for clone in repo.possible_clones:
        ctx.note(
            f"{clone} looks like a clone of the same project (same first commit and origin); to share notes: "
            f"graphmem repo link {repo.root} --to {clone}"
        )
    return 0


def cmd_repo_link(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem repo link PATH --to REPO``: join a separate clone to a repository."""
    with ctx.client() as client:
        repo = client.link_repo(args.path, args.to)
    if args.json:
        ctx.print_json(repo)
    else:
        ctx.print(f"{repo.id} ({repo.root}) is now a checkout of {repo.repository_id}: notes are shared")
    return 0


def cmd_repo_remove(args: argparse.Namespace, ctx: Ctx) -> int:
    """Unregister a repository; ``--purge`` deletes its observations after a confirmation."""
    if args.purge and not args.yes:
        if not sys.stdin.isatty():
            raise InvalidArgument("--purge deletes observations for good: confirm with --yes")
        answer = input(f"delete every observation of {args.repo} for good? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            ctx.print("nothing removed")
            return 1
    with ctx.client() as client:
        purged = client.remove_repo(args.repo, purge=args.purge)
    ctx.print(f"removed {args.repo}" + (f"; {purged} observations deleted" if args.purge else "; observations kept"))
    return 0


def cmd_repo_list(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem repo list``: the registered repositories."""
    with ctx.client() as client:
        repos = client.list_repos()
    if args.json:
        ctx.print_json(repos)
    elif not repos:
        ctx.note("no repositories registered (add one with: graphmem repo add PATH)")
    else:
        for r in repos:
            for line in repo_lines(r):
                ctx.print(line.removeprefix("  "))
    return 0


def cmd_index(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem index``: (re)index one or every repository, showing progress; fails if any failed."""
    failed: list[str] = []
    with ctx.client() as client:
        repos = [args.repo] if args.repo else [r.id for r in client.list_repos()]
        if not repos:
            raise FailedPrecondition("no repositories registered; add one with: graphmem repo add PATH")
        for repo in repos:
            progress = Progress(ctx.err)
            last: IndexProgress | None = None
            try:
                for p in client.index(repo, args.paths, args.full):
                    if args.json:
                        ctx.print_json(p, indent=None)
                        ctx.out.flush()
                    else:
                        progress.update(p)
                    last = p
            finally:
                progress.finish()
            if last is None:
                if not args.json:
                    ctx.print(f"{repo}: nothing to index")
                continue
            if last.state is IndexState.ERROR:
                failed.append(last.repo_id)
            if args.json:
                continue
            ctx.print(
                f"{last.repo_id}: {last.state.value}, {plural(last.files_total, 'file')}, "
                f"{plural(last.symbols, 'symbol')}, {last.skipped} skipped in {last.elapsed_seconds:.1f}s"
            )
    if failed:
        raise GraphMemError(f"indexing failed: {', '.join(failed)} (see graphmem status)")
    return 0
