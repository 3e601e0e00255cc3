"""``graphmem check [PATH…]``: the gate for CI and pre-commit over the knowledge files.

It asks a daemon for every reference to code in the repository's knowledge files that is
not OK (``CheckKnowledge``), prints the findings in the chosen format (``check.format``,
``check.sarif``: the pure renderers) and exits 1 when one is at or above ``--fail-on``.

Which daemon answers:

* a daemon that runs (``--home`` / ``--address`` / the environment, as for every command)
  and has the repository registered: that one, after it has caught up with the files;
* otherwise (CI, a fresh clone, a daemon that does not know this repository) a private,
  one-shot daemon: started on a temporary ``GRAPHMEM_HOME`` (short, for the Unix socket;
  no file watching), given only this repository, waited for until its index is current,
  asked, stopped, and its home removed. ``--one-shot`` asks for this even when a daemon
  runs. A daemon that runs but does not know the repository is left alone: checking never
  registers anything with it.

Like every command, the CLI never opens the store: both ways are gRPC calls.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Final, TextIO

from graphmem import __version__
from graphmem.check.format import (
    FailOn,
    ReportLevel,
    at_level,
    exit_status,
    github_lines,
    json_text,
    summary,
    text_lines,
)
from graphmem.check.sarif import sarif_log
from graphmem.client import GraphMem, deepest_repository
from graphmem.errors import FailedPrecondition, GraphMemError, InvalidArgument, Timeout
from graphmem.paths import resolve_paths, unix_target
from graphmem.types import IndexState, KnowledgeCheck, Repository

__all__ = [
    "DEFAULT_WAIT_S",
    "CheckOptions",
    "OutputFormat",
    "add_arguments",
    "ask",
    "find_root",
    "one_shot_daemon",
    "options_from_args",
    "render",
    "run_check",
]

#: How long a check waits, by default, for the index to be current (a cold one-shot index
#: of a large repository included).
DEFAULT_WAIT_S: Final = 600.0
#: How long the one-shot daemon gets to start serving, and to stop.
_START_S: Final = 60.0
_STOP_S: Final = 60.0
_POLL_S: Final = 0.1
#: The one-shot daemon's environment: nothing to watch, the index is taken once.
_ONE_SHOT_ENV: Final = {"GRAPHMEM_WATCH": "0"}


class OutputFormat(str, Enum):
    """``--format``: what ``graphmem check`` prints on stdout."""

    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"
    GITHUB = "github"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """The resolved arguments of one ``graphmem check``."""

    paths: tuple[str, ...] = ()
    output: OutputFormat = OutputFormat.TEXT
    fail_on: FailOn = FailOn.DANGLING
    level: ReportLevel = ReportLevel.DEPRECATED
    repo: str = ""
    one_shot: bool = False
    wait: float = DEFAULT_WAIT_S
    no_git: bool = False


def _choice(p: argparse.ArgumentParser, flag: str, default: Enum, text: str, dest: str | None = None) -> None:
    """An option whose values are an Enum's (``--format``, ``--fail-on``, ``--level``)."""
    kind = type(default)
    p.add_argument(
        flag,
        dest=dest or flag.lstrip("-").replace("-", "_"),
        type=kind,
        choices=list(kind),
        default=default,
        metavar="{" + ",".join(str(f.value) for f in kind) + "}",
        help=text,
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``graphmem check`` (registered by the CLI's parser)."""
    p.add_argument("paths", metavar="PATH", nargs="*", help="knowledge files or folders to check (default: all)")
    _choice(
        p,
        "--format",
        OutputFormat.TEXT,
        "text (default), json, sarif (SARIF 2.1.0, for GitHub code scanning) or github (Actions annotations)",
        dest="output",
    )
    _choice(
        p,
        "--fail-on",
        FailOn.DANGLING,
        "exit 1 when a finding is at or above this grade: dangling > stale > suspect > deprecated "
        "(default: dangling; never: report only)",
    )
    _choice(
        p,
        "--level",
        ReportLevel.DEPRECATED,
        "what to print: dangling; and stale; and suspect (what a maintainer must act on); and deprecated "
        "(default: names a module still serves, with a warning); all (and changes what the text uses still fits)",
    )
    p.add_argument("--repo", metavar="PATH", default="", help="the repository (default: the one around the cwd)")
    p.add_argument(
        "--no-git",
        action="store_true",
        help="check a folder that is not in a git repository (no history: references judged from now on)",
    )
    p.add_argument(
        "--one-shot",
        action="store_true",
        help="index the repository in a private temporary daemon even when a daemon runs",
    )
    p.add_argument(
        "--wait",
        metavar="SECONDS",
        type=float,
        default=DEFAULT_WAIT_S,
        help=f"how long to wait for the index to be current (default: {DEFAULT_WAIT_S:g})",
    )


def options_from_args(args: argparse.Namespace) -> CheckOptions:
    """``CheckOptions`` from the parsed arguments."""
    if args.wait <= 0:
        raise InvalidArgument(f"check: --wait must be positive, not {args.wait:g}")
    return CheckOptions(
        paths=tuple(args.paths),
        output=args.output,
        fail_on=args.fail_on,
        level=args.level,
        repo=args.repo,
        one_shot=args.one_shot,
        wait=args.wait,
        no_git=args.no_git,
    )


def find_root(start: Path) -> Path | None:
    """The repository around ``start``: the nearest directory holding ``.git`` (a folder,
    or a file in a worktree); None outside git."""
    start = start.resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _target_paths(paths: Sequence[str], root: Path) -> tuple[str, ...]:
    """The PATH arguments as absolute paths inside ``root`` (InvalidArgument otherwise)."""
    out: list[str] = []
    for text in paths:
        path = Path(text).expanduser()
        if not path.exists():
            raise InvalidArgument(f"check: no such file or directory: {text}")
        resolved = path.resolve()
        if resolved != root and root not in resolved.parents:
            raise InvalidArgument(f"check: {text} is outside the repository {root}")
        out.append(str(resolved))
    return tuple(out)


def render(check: KnowledgeCheck, options: CheckOptions, root: Path) -> str:
    """What ``check`` prints on stdout for ``options.output``."""
    if options.output is OutputFormat.JSON:
        return json_text(check, options.fail_on)
    if options.output is OutputFormat.SARIF:
        log = sarif_log(check, options.fail_on, tool_version=__version__, root=str(root))
        return json.dumps(log, indent=2, ensure_ascii=False)
    if options.output is OutputFormat.GITHUB:
        return "\n".join(github_lines(check, options.fail_on))
    return "\n".join(text_lines(check, options.fail_on))


def _short_temp_base() -> str:
    """Where the one-shot home goes: ``$TMPDIR`` unless too long for the socket path under it."""
    base = tempfile.gettempdir()
    return base if len(base) <= 48 else "/tmp"


def _wait_indexed(client: GraphMem, root: Path, deadline: float) -> None:
    """Until the private daemon's repository is READY with nothing pending."""
    while True:
        repo = deepest_repository(client.list_repos(), root)
        if repo is not None and repo.state is IndexState.ERROR:
            raise FailedPrecondition(f"indexing {root} failed: {repo.error or 'see the daemon log'}")
        if repo is not None and repo.state is IndexState.READY and repo.pending_changes == 0:
            return
        if time.monotonic() >= deadline:
            raise Timeout(f"the one-shot index of {root} was not current within the --wait deadline")
        time.sleep(_POLL_S)


@contextlib.contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, ``timeout``) as ``SystemExit(143)`` meanwhile, so that the
    private daemon is stopped and its home removed (by default SIGTERM ends the process on the
    spot); on the main thread only, where Python runs signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def one_shot_daemon(root: Path, wait: float) -> Iterator[GraphMem]:
    """A private daemon indexing only ``root``, on a temporary home removed afterwards;
    yields a client of it once its index is current. It exits with this process (``GRAPHMEM_EXIT_WITH``):
    a check killed before its end leaves no daemon running."""
    from graphmem.daemon_ctl import start_daemon, stop_daemon

    deadline = time.monotonic() + wait
    home = Path(tempfile.mkdtemp(prefix="gmchk-", dir=_short_temp_base()))
    with _terminated_as_exit():
        try:
            env = {**_ONE_SHOT_ENV, "GRAPHMEM_EXIT_WITH": str(os.getpid())}
            start_daemon(home, [root], timeout=_START_S, env=env)
            address = unix_target(resolve_paths(home).socket)
            with GraphMem(address, timeout=max(deadline - time.monotonic(), 1.0)) as client:
                _wait_indexed(client, root, deadline)
                yield client
        finally:
            with contextlib.suppress(GraphMemError):
                stop_daemon(home, timeout=_STOP_S)
            shutil.rmtree(home, ignore_errors=True)


def _current_check(client: GraphMem, repo: str, paths: Sequence[str], deadline: float) -> KnowledgeCheck:
    """``CheckKnowledge`` (asking the daemon to wait until its index is current), asked again
    until the answer says the index was current or the deadline passes (then the last
    answer, whose freshness the output reports)."""
    while True:
        client.timeout = max(deadline - time.monotonic(), 1.0)
        check = client.check_knowledge(paths, repo=repo, wait_current=True)
        if check.freshness is None or check.freshness.current or time.monotonic() >= deadline:
            return check
        time.sleep(_POLL_S)


def _registered(address: str, root: Path) -> Repository | None:
    """The running daemon's repository holding ``root``, or None (no daemon, or not registered)."""
    with GraphMem(address, timeout=5.0) as probe:
        if not probe.health():
            return None
        return deepest_repository(probe.list_repos(), root)


def ask(options: CheckOptions, address: str, root: Path, err: TextIO) -> KnowledgeCheck:
    """The daemon's answer for ``root``: the running daemon's when it knows the repository
    (and ``--one-shot`` is off), else a one-shot daemon's."""
    paths = _target_paths(options.paths, root)
    deadline = time.monotonic() + options.wait
    repo = None if options.one_shot else _registered(address, root)
    if repo is not None:
        with GraphMem(address, timeout=options.wait) as client:
            return _current_check(client, repo.id, paths, deadline)
    why = "--one-shot" if options.one_shot else "no running daemon has it registered"
    print(f"graphmem: check: indexing {root} in a one-shot daemon ({why})", file=err)
    with one_shot_daemon(root, options.wait) as client:
        return _current_check(client, str(root), paths, deadline)


def run_check(options: CheckOptions, *, address: str, out: TextIO, err: TextIO) -> int:
    """Run one check: ask, print, and return the exit status (0 passed, 1 failed)."""
    start = Path(options.repo).expanduser() if options.repo else Path.cwd()
    if not start.is_dir():
        raise InvalidArgument(f"check: --repo {options.repo} is not a directory")
    root = find_root(start)
    if root is None and not options.no_git:
        raise InvalidArgument(
            f"check: {start.resolve()} is not in a git repository: graphmem check judges each text by what "
            "the code was when its lines were committed; run it in a clone, or pass --no-git to check this "
            "folder without history"
        )
    root = root or start.resolve()
    check = ask(options, address, root, err)
    shown = at_level(check, options.level, options.fail_on)
    document = render(shown, options, root)
    if document:  # ``github`` with nothing to annotate prints nothing
        print(document, file=out)
    if options.output is not OutputFormat.TEXT:  # stdout is the document; the counts go to stderr
        print(f"graphmem: check: {summary(shown, options.fail_on)}", file=err)
    return exit_status(check, options.fail_on)
