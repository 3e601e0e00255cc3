"""``graphmem``: the command line of the graphmem daemon.

Every command talks to the daemon over gRPC (``graphmem.client``); the CLI never opens
the store and never imports the daemon's code. Output: a human rendering on stdout, or
with ``--json`` (every read command) machine-readable JSON (dataclasses as objects, enums
as their values, times as epoch seconds). Messages and errors go to stderr as
``graphmem: <message>``.

Exit codes: 0 ok; 1 error (and ``status``: running but degraded / not serving);
2 daemon not running; 3 daemon already running; 64 usage error / invalid argument;
65 already exists; 66 not found; 69 failed precondition; 70 store error; 75 timeout;
130 interrupted. They come from the exception classes (``exit_code``) in ``main``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import stat
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

from graphmem import __version__, convert
from graphmem.check import add_arguments as check_arguments
from graphmem.client import GraphMem, normalize_address
from graphmem.errors import (
    DaemonAlreadyRunning,
    DaemonNotRunning,
    FailedPrecondition,
    GraphMemError,
    InvalidArgument,
    NotFound,
    Timeout,
)
from graphmem.explain import explain_table
from graphmem.paths import Paths, resolve_paths, unix_target
from graphmem.render import marker
from graphmem.types import (
    Brief,
    Category,
    Event,
    EventKind,
    Freshness,
    Hop,
    ImportResult,
    IndexProgress,
    IndexState,
    Observation,
    ObservationStatus,
    Recalled,
    RecallResult,
    Repository,
    Status,
    Symbol,
    SymbolDetail,
)

__all__ = ["EX_USAGE", "build_parser", "freshness_line", "main", "marker", "to_jsonable"]

EX_USAGE = 64
EX_INTERRUPTED = 130
STATUS_TIMEOUT = 2.0
COMPLETION_SHELLS = ("bash", "zsh", "fish")
START_HINT = "start it with: graphmem daemon start --repo PATH"

_E = TypeVar("_E", bound=Enum)



# ---------------------------------------------------------------------------- parser


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors exiting 64 (EX_USAGE) and ``graphmem:`` messages."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sub = self.prog.removeprefix("graphmem").strip()
        self.exit(EX_USAGE, f"graphmem: {sub + ': ' if sub else ''}{message}\n")


def _enum_arg(cls: type[_E]) -> Callable[[str], _E]:
    """An argparse ``type`` accepting an enum's value or name, any case, ``-`` or ``_``."""

    def parse(text: str) -> _E:
        key = text.strip().lower().replace("_", "-")
        for member in cls:
            if key in (str(member.value).lower().replace("_", "-"), member.name.lower().replace("_", "-")):
                return member
        choices = ", ".join(str(m.value) for m in cls)
        raise argparse.ArgumentTypeError(f"invalid choice {text!r} (choose from {choices})")

    parse.__name__ = cls.__name__
    return parse


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text}")
    return value


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {text}")
    return value


def _choices(cls: type[Enum]) -> str:
    return "{" + ",".join(str(m.value) for m in cls) + "}"


def build_parser() -> argparse.ArgumentParser:
    """The ``graphmem`` argument parser (global options work before or after the verb)."""
    common = _Parser(add_help=False)
    g = common.add_argument_group("global options")
    g.add_argument(
        "--home",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="graphmem home directory (default: $GRAPHMEM_HOME, else XDG directories)",
    )
    g.add_argument(
        "--address",
        metavar="ADDR",
        default=argparse.SUPPRESS,
        help="daemon address: unix:/path or host:port (default: $GRAPHMEM_ADDRESS, else the socket)",
    )
    g.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=argparse.SUPPRESS,
        help="deadline of each call to the daemon (default: 10)",
    )

    parser = _Parser(
        prog="graphmem",
        parents=[common],
        description="Code-graph memory for coding assistants: a client of the graphmem daemon.",
        epilog="Exit codes: 0 ok, 1 error/degraded, 2 daemon not running, 3 already running, "
        "64 usage, 65 exists, 66 not found, 69 precondition, 70 store, 75 timeout.",
    )
    parser.add_argument("--version", action="version", version=f"graphmem {__version__}")
    verbs = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)

    def verb(
        name: str,
        func: Callable[[argparse.Namespace, _Ctx], int],
        help: str,
        sub: argparse._SubParsersAction[_Parser] | None = None,
    ) -> _Parser:
        p = (sub or verbs).add_parser(name, parents=[common], help=help, description=help)
        p.set_defaults(func=func)
        return p

    def json_flag(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")

    def stale_flags(p: argparse.ArgumentParser) -> None:
        p.add_argument("--fresh-only", action="store_true", help="leave out stale and suspect observations")
        p.add_argument("--include-stale", action="store_true", help="deprecated, no effect: they are included")

    def all_flag(p: argparse.ArgumentParser) -> None:
        p.add_argument("--all", action="store_true", help="every repository (default: the one at hand, if any)")

    def daemon_opts(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--repo",
            metavar="PATH",
            action="extend",
            nargs="+",
            default=[],
            help="repository to register and watch (repeatable)",
        )
        p.add_argument("--tcp", metavar="HOST:PORT", help="also listen on this loopback TCP address")
        p.add_argument("--log-level", metavar="LEVEL", help="daemon log level (DEBUG, INFO, WARNING, ...)")

    # daemon
    daemon = verbs.add_parser("daemon", parents=[common], help="start, stop or run the daemon")
    daemon_verbs = daemon.add_subparsers(title="daemon commands", metavar="ACTION", required=True)
    p = verb("start", cmd_daemon_start, "start the daemon in the background", daemon_verbs)
    daemon_opts(p)
    p.add_argument(
        "--wait", metavar="SECONDS", type=float, default=20.0, help="how long to wait until it serves (default: 20)"
    )
    p = verb("stop", cmd_daemon_stop, "stop the daemon gracefully", daemon_verbs)
    p.add_argument(
        "--wait", metavar="SECONDS", type=float, default=20.0, help="how long to wait until it exited (default: 20)"
    )
    daemon_opts(verb("run", cmd_daemon_run, "run the daemon in the foreground", daemon_verbs))
    p = verb(
        "install",
        cmd_daemon_install,
        "start the daemon at login and restart it on failure (systemd user unit / launchd agent)",
        daemon_verbs,
    )
    p.add_argument("--repo", metavar="PATH", action="extend", nargs="+", default=[], help="also register these")
    p.add_argument("--no-enable", action="store_true", help="only write the file; print the commands to run")
    p = verb("uninstall", cmd_daemon_uninstall, "stop the login service and remove its unit/agent", daemon_verbs)
    p.add_argument("--no-enable", action="store_true", help="only remove the file; print the commands to run")

    p = verb("completion", cmd_completion, "print the shell completion script for bash, zsh or fish")
    p.add_argument("shell", choices=COMPLETION_SHELLS, help="the shell to complete in")
    p.epilog = (
        "bash: eval \"$(graphmem completion bash)\" in ~/.bashrc; "
        "zsh: eval \"$(graphmem completion zsh)\" in ~/.zshrc (after compinit); "
        "fish: graphmem completion fish > ~/.config/fish/completions/graphmem.fish"
    )
    p = verb("status", cmd_status, "daemon health, store and repositories (exit 0 healthy, 1 degraded, 2 down)")
    json_flag(p)

    # repositories
    repo = verbs.add_parser("repo", parents=[common], help="register, remove or list repositories")
    repo_verbs = repo.add_subparsers(title="repo commands", metavar="ACTION", required=True)
    p = verb("add", cmd_repo_add, "register a repository (indexed in the background, then watched)", repo_verbs)
    p.add_argument("path", metavar="PATH")
    json_flag(p)
    p = verb(
        "remove", cmd_repo_remove, "unregister a repository (its observations are kept unless --purge)", repo_verbs
    )
    p.add_argument("repo", metavar="REPO", help="repository id or its root path")
    p.add_argument("--purge", action="store_true", help="also delete its observations for good (asks first)")
    p.add_argument("--yes", action="store_true", help="with --purge: do not ask")
    p = verb("list", cmd_repo_list, "list registered repositories", repo_verbs)
    json_flag(p)

    p = verb("index", cmd_index, "re-index a repository (or all), showing progress")
    p.add_argument("repo", metavar="REPO", nargs="?", default="", help="id or path (default: every repository)")
    p.add_argument("paths", metavar="PATH", nargs="*", help="only these files")
    p.add_argument("--full", action="store_true", help="re-parse files even when unchanged")
    p.add_argument("--json", action="store_true", help="stream progress as JSON objects, one per line, on stdout")

    # observations
    p = verb("observe", cmd_observe, "save an observation anchored to code; prints its id")
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
        type=_enum_arg(Category),
        default=Category.OTHER,
        metavar=_choices(Category),
        help="default: other",
    )
    p.add_argument("--tag", metavar="T", action="extend", nargs="+", default=[])
    p.add_argument("--source", metavar="S", default="cli", help="who saves it (default: cli)")
    p.add_argument(
        "--shared",
        action="store_true",
        help="write it into the repository as .graphmem/notes/<id>.md (travels with git)",
    )
    p.add_argument("--confidence", metavar="X", type=_confidence, help="0 < X <= 1 (default: 1)")
    p.add_argument("--supersedes", metavar="ID", action="extend", nargs="+", default=[])
    p.add_argument("--contradicts", metavar="ID", action="extend", nargs="+", default=[])
    p.add_argument("--repo", metavar="R", default="", help="repository id or path")
    json_flag(p)

    p = verb("show", cmd_show, "show one observation")
    p.add_argument("id", metavar="ID")
    json_flag(p)

    p = verb("list", cmd_list, "list observations")
    p.add_argument("--stale", action="store_true", help="only stale observations")
    p.add_argument("--suspect", action="store_true", help="only suspect observations (a dependency changed)")
    p.add_argument(
        "--status",
        metavar=_choices(ObservationStatus),
        type=_enum_arg(ObservationStatus),
        action="extend",
        nargs="+",
        default=[],
        help="default: all but archived",
    )
    p.add_argument("--category", metavar=_choices(Category), type=_enum_arg(Category), action="append", default=[])
    p.add_argument("--file", metavar="F", default="", help="anchored to this file or a symbol in it")
    p.add_argument("--symbol", metavar="S", default="", help="anchored to this symbol")
    p.add_argument("--tag", metavar="T", action="append", default=[], help="having this tag (repeatable)")
    p.add_argument("--repo", metavar="R", default="")
    all_flag(p)
    p.add_argument("--limit", metavar="N", type=_positive_int, default=100, help="default: 100 (0: all)")
    json_flag(p)

    p = verb("recall", cmd_recall, "observations relevant to files, symbols or text, with why")
    p.add_argument("text", metavar="TEXT", nargs="?", default="")
    p.add_argument("--file", metavar="F", action="extend", nargs="+", default=[])
    p.add_argument("--symbol", metavar="S", action="extend", nargs="+", default=[])
    p.add_argument(
        "--hops", metavar="N", type=_positive_int, default=2, help="graph distance (default: 2; 0: the anchors only)"
    )
    p.add_argument("--line", metavar="N", type=_positive_int, default=0, help="cursor line in the first --file")
    p.add_argument("--limit", metavar="N", type=_positive_int, default=20, help="default: 20")
    p.add_argument("--budget", metavar="TOKENS", type=_positive_int, default=0, help="token budget (0: none)")
    stale_flags(p)
    p.add_argument("--repo", metavar="R", default="")
    p.add_argument("--explain", action="store_true", help="print each result's score components as a table")
    json_flag(p)

    p = verb("brief", cmd_brief, "prompt-ready brief for a working set; without one, the repository's brief")
    p.add_argument("--file", metavar="F", action="extend", nargs="+", default=[])
    p.add_argument("--symbol", metavar="S", action="extend", nargs="+", default=[])
    p.add_argument("--text", metavar="T", default="")
    p.add_argument("--budget", metavar="N", type=_positive_int, default=1000, help="tokens (default: 1000)")
    stale_flags(p)
    p.add_argument("--repo", metavar="R", default="")
    json_flag(p)

    p = verb("confirm", cmd_confirm, "mark a (stale) observation as checked: re-anchor it, fresh")
    p.add_argument("id", metavar="ID")
    p.add_argument("--by", metavar="NAME", default="", help="who checked it")
    p.add_argument("--note", metavar="TEXT", default="")
    json_flag(p)

    p = verb("archive", cmd_archive, "keep an observation but stop recalling it")
    p.add_argument("id", metavar="ID")
    json_flag(p)

    p = verb("delete", cmd_delete, "delete an observation (the journal keeps its history)")
    p.add_argument("id", metavar="ID")

    p = verb("update", cmd_update, "change an observation's text, category, tags or confidence")
    p.add_argument("id", metavar="ID")
    p.add_argument("--text", metavar="T")
    p.add_argument("--category", metavar=_choices(Category), type=_enum_arg(Category))
    p.add_argument("--tag", metavar="T", action="extend", nargs="+", help="replace the tags with these")
    p.add_argument("--clear-tags", action="store_true", help="remove every tag")
    p.add_argument("--confidence", metavar="X", type=_confidence)
    json_flag(p)

    # code
    p = verb("symbols", cmd_symbols, "find symbols by name pattern (* and ? wildcards)")
    p.add_argument("pattern", metavar="PATTERN")
    p.add_argument(
        "--kind",
        metavar="K",
        action="append",
        default=[],
        help="module, class, struct, interface, trait, enum, function, method (repeatable)",
    )
    p.add_argument("--repo", metavar="R", default="")
    p.add_argument("--limit", metavar="N", type=_positive_int, default=50, help="default: 50")
    json_flag(p)

    p = verb("resolve", cmd_resolve, "what a short symbol reference means (name, Class.method, file.py::name)")
    p.add_argument("ref", metavar="REF")
    p.add_argument("--repo", metavar="R", default="")
    p.add_argument("--limit", metavar="N", type=_positive_int, default=10, help="default: 10")
    json_flag(p)

    p = verb("symbol", cmd_symbol, "one symbol with callers, callees and observations")
    p.add_argument("ref", metavar="REF", help="'path::qualname' or a symbol id")
    p.add_argument("--repo", metavar="R", default="")
    json_flag(p)

    p = verb("events", cmd_events, "follow live events until Ctrl-C")
    p.add_argument("--repo", metavar="R", default="")
    all_flag(p)
    p.add_argument("--kind", metavar=_choices(EventKind), type=_enum_arg(EventKind), action="append", default=[])
    p.add_argument(
        "--after-seq", metavar="SEQ", type=_positive_int, help="resume: first the buffered events after this seq"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per line")

    p = verb("export", cmd_export, "write the observation journal as JSON lines")
    p.add_argument("file", metavar="FILE", nargs="?", default="-", help="default: stdout")
    p.add_argument("--repo", metavar="R", default="")
    all_flag(p)

    p = verb("import", cmd_import, "import JSON lines written by export (from any clone of the repository)")
    p.add_argument("file", metavar="FILE", help="'-' reads stdin")
    p.add_argument(
        "--repo",
        default="",
        help="the repository (id or path) they belong to; default: the registered clone of the one they came from",
    )
    json_flag(p)

    verb("mcp", cmd_mcp, "serve the Model Context Protocol on stdio (bridge to the daemon)")
    from graphmem.agents.commands import register as register_agent_verbs

    register_agent_verbs(verb)
    verb("lsp", cmd_lsp, "serve the Language Server Protocol on stdio: notes in any editor (docs/editors.md)")

    p = verb("check", cmd_check, "report dangling and stale code references in knowledge files (CI, pre-commit)")
    p.epilog = "Exit codes: 0 passed, 1 a finding at or above --fail-on, 64 usage; see docs/check.md."
    check_arguments(p)
    return parser


# ---------------------------------------------------------------------------- context


@dataclasses.dataclass
class _Ctx:
    """Global options, resolved once: flag, then environment, then default."""

    home: str | None
    address_flag: str | None
    timeout: float
    out: TextIO
    err: TextIO

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> _Ctx:
        home = getattr(args, "home", None) or os.environ.get("GRAPHMEM_HOME") or None
        address = getattr(args, "address", None) or os.environ.get("GRAPHMEM_ADDRESS") or None
        return cls(home, address, getattr(args, "timeout", 10.0), sys.stdout, sys.stderr)

    @property
    def paths(self) -> Paths:
        return resolve_paths(self.home)

    @property
    def address(self) -> str:
        if self.address_flag:
            return normalize_address(self.address_flag)
        return unix_target(self.paths.socket)

    def client(self, timeout: float | None = None) -> GraphMem:
        return GraphMem(self.address, timeout=self.timeout if timeout is None else timeout)

    def print(self, text: str = "") -> None:
        print(text, file=self.out)

    def note(self, text: str) -> None:
        print(f"graphmem: {text}", file=self.err)

    def print_json(self, obj: object, *, indent: int | None = 2) -> None:
        print(json.dumps(to_jsonable(obj), indent=indent, ensure_ascii=False), file=self.out)


# ---------------------------------------------------------------------------- formatting


def _wire_converters() -> dict[type, Callable[[object], Message]]:
    """Domain type -> its protobuf message (the converters the daemon answers with)."""
    table: dict[type, Callable[[Any], Message]] = {
        Observation: convert.observation_to_proto,
        Repository: convert.repository_to_proto,
        Status: convert.status_to_proto,
        Symbol: convert.symbol_to_proto,
        SymbolDetail: convert.symbol_detail_to_proto,
        RecallResult: convert.recall_result_to_proto,
        Brief: convert.brief_to_proto,
        IndexProgress: convert.index_progress_to_proto,
        Event: convert.event_to_proto,
        ImportResult: convert.import_result_to_proto,
    }
    return table


_WIRE = _wire_converters()


def to_jsonable(obj: object) -> object:
    """The JSON of ``--json``: for each object the daemon sends, exactly the protobuf JSON
    mapping of its message (``json_format``, with the .proto field names and every field
    printed: ``{"status": "OBSERVATION_STATUS_FRESH", "created_at": "2026-…Z", …}``), i.e.
    what grpcurl or a client using the JSON mapping sees; lists of them as JSON arrays."""
    to_wire = _WIRE.get(type(obj))
    if to_wire is not None:
        return json_format.MessageToDict(
            to_wire(obj), preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, list | tuple):
        return [to_jsonable(x) for x in obj]
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    return obj


def _fmt_time(t: float | None) -> str:
    if not t:
        return "-"
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def _fmt_duration(seconds: float) -> str:
    s = int(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d{hours}h"
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{s:02d}s"
    return f"{seconds:.1f}s"


def _fmt_bytes(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def _short(commit: str) -> str:
    return commit[:7]


def _first_line(text: str, width: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 3] + "..."


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def freshness_line(f: Freshness) -> str:
    """``index current (HEAD abc1234)`` or ``index NOT current: 3 pending changes``."""
    if f.current:
        heads = []
        for r in f.repositories:
            if r.head_commit:
                head = f"HEAD {_short(r.head_commit)}{'-dirty' if r.working_tree_dirty else ''}"
                heads.append(head if len(f.repositories) == 1 else f"{r.repo_id} {head}")
        return "index current" + (f" ({', '.join(heads)})" if heads else "")
    parts: list[str] = []
    pending = sum(r.pending_changes for r in f.repositories)
    if pending:
        parts.append(_plural(pending, "pending change"))
    for r in f.repositories:
        if r.state is IndexState.INDEXING:
            parts.append(f"{r.repo_id} is indexing")
        elif r.state is IndexState.PENDING:
            parts.append(f"{r.repo_id} not indexed yet")
        elif r.state is IndexState.ERROR:
            parts.append(f"{r.repo_id} index error")
        if r.indexed_commit and r.head_commit and r.indexed_commit != r.head_commit:
            indexed, head = _short(r.indexed_commit), _short(r.head_commit)
            parts.append(f"{r.repo_id} indexed at {indexed}, HEAD is {head}")
    return "index NOT current" + (f": {', '.join(parts)}" if parts else "")


def _render_observation(o: Observation) -> list[str]:
    lines = [
        f"id:         {o.id}",
        f"status:     {marker(o)}",
        f"category:   {o.category.value}    confidence: {o.confidence:g}    source: {o.source or '-'}",
        f"repository: {o.repo_id or '-'}",
        f"created:    {_fmt_time(o.created_at)}    updated: {_fmt_time(o.updated_at)}",
    ]
    if o.tags:
        lines.append(f"tags:       {', '.join(o.tags)}")
    lines.extend(_knowledge_lines(o))
    if o.anchors:
        lines.append("anchors:")
        for a in o.anchors:
            sig = f"    {a.signature}" if a.signature else ""
            lines.append(f"  - {a.ref} ({a.kind.value}){sig}")
    if o.stale_reasons:
        lines.append("suspect because:" if o.status is ObservationStatus.SUSPECT else "stale because:")
        for r in o.stale_reasons:
            bits = [r.change.value.replace("_", " "), _fmt_time(r.detected_at)]
            if r.commit:
                bits.append(f"commit {_short(r.commit)}")
            lines.append(f"  - {r.anchor_ref}: {', '.join(bits)}")
            if r.old_signature or r.new_signature:
                lines.append(f"      was: {r.old_signature}")
                lines.append(f"      now: {r.new_signature}")
            if r.new_ref:
                lines.append(f"      now at: {r.new_ref}")
            if r.detail:
                lines.append(f"      {r.detail}")
    for label, ids in (("supersedes", o.supersedes), ("contradicts", o.contradicts)):
        if ids:
            lines.append(f"{label + ':':<12}{', '.join(ids)}")
    if o.superseded_by:
        lines.append(f"superseded by: {o.superseded_by}")
    if o.confirmed_by or o.confirmed_at:
        lines.append(f"confirmed:  by {o.confirmed_by or '-'} at {_fmt_time(o.confirmed_at)}")
    lines.append("")
    lines.extend(o.text.splitlines() or [""])
    return lines


def _knowledge_lines(o: Observation) -> list[str]:
    """Where a unit of a knowledge file comes from, and the state of each of its references."""
    k = o.knowledge
    if k is None:
        return []
    heading = f"    ({' > '.join(h for h in k.heading_path if h)})" if any(k.heading_path) else ""
    lines = [f"file:       {k.path}:{k.start_line}-{k.end_line} ({k.kind.value.replace('_', ' ')}){heading}"]
    lines.append("            read-only through graphmem: edit the file to change it")
    if o.references:
        lines.append("references:")
    for r in o.references:
        state = r.state.value.upper()
        lines.append(f"  - {r.path}:{r.line}:{r.column} {r.text} -> {r.target_ref or '?'} [{state}]")
        if r.reason:
            lines.append(f"      {r.reason}")
        if r.close_matches:
            lines.append(f"      close matches: {', '.join(r.close_matches)}")
    return lines


def _observation_row(o: Observation) -> str:
    anchors = ", ".join(a.ref for a in o.anchors)
    where = f"  [{o.knowledge.path}:{o.knowledge.start_line}]" if o.knowledge is not None else ""
    row = f"{o.id}  {marker(o)}  {o.category.value}  {_first_line(o.text, 70)}{where}"
    return row + (f"  @ {anchors}" if anchors else "")


def _render_recalled(n: int, r: Recalled) -> list[str]:
    o = r.observation
    lines = [f"{n}. [{r.score:.3f}] {marker(o)} {o.category.value}  {o.id}  (distance {r.distance})"]
    wrapped = textwrap.wrap(o.text.strip(), width=96) or [""]
    lines.extend(f"   {ln}" for ln in wrapped)
    if r.why:
        lines.append(f"   why: {r.why}")
    elif r.path:
        lines.append("   why: " + " ".join(_hop_text(h) for h in r.path))
    if r.matched_terms:
        lines.append(f"   matched: {', '.join(r.matched_terms)}")
    c = r.components
    names = ("proximity", "cochange", "breadth", "reach", "text", "text_proximity", "text_cochange", "text_breadth",
             "pagerank", "centrality", "focus")  # fmt: skip
    signals = [(k.replace("_", " "), getattr(c, k)) for k in names]
    shown = ", ".join(f"{k} {v:.2f}" for k, v in signals if v)
    if shown:
        lines.append(f"   score: {shown}")
    if o.anchors:
        lines.append(f"   anchors: {', '.join(a.ref for a in o.anchors)}")
    return lines


def _hop_text(h: Hop) -> str:
    """``a -calls-> b``; a guessed edge says so: ``a -calls(name_only?)-> b``."""
    conf = h.confidence
    if conf is None:
        label = h.edge.value
    elif conf.certain:
        label = f"{h.edge.value}({conf.value})"
    else:
        label = f"{h.edge.value}({conf.value}?)"
    return f"{h.from_ref} -{label}-> {h.to_ref}"


def _resolution_lines(r: Repository) -> list[str]:
    """One line per language: call sites, share resolved, by method, unresolved."""
    lines = []
    for lr in r.resolution:
        if not lr.call_sites:
            continue
        pct = 100.0 * lr.resolved / lr.call_sites
        by = ", ".join(f"{c.value} {n}" for c, n in sorted(lr.resolved_by, key=lambda x: -x[1]) if n)
        lines.append(
            f"    calls {lr.language}: {lr.call_sites} sites, {pct:.1f}% resolved"
            + (f" ({by})" if by else "")
            + f", {lr.unresolved} unresolved"
        )
    return lines


def _repo_lines(r: Repository) -> list[str]:
    counts = (
        f"{_plural(r.files, 'file')}, {_plural(r.symbols, 'symbol')}, {_plural(r.edges, 'edge')}, "
        f"{_plural(r.observations, 'observation')} ({r.stale_observations} stale, {r.suspect_observations} suspect)"
    )
    state = r.state.value
    if r.state is IndexState.INDEXING and r.files_total:
        pct = 100 * r.files_done // max(r.files_total, 1)
        state += f" {r.files_done}/{r.files_total} files ({pct}%)"
    extra = []
    if r.pending_changes:
        extra.append(_plural(r.pending_changes, "pending change"))
    if r.skipped_files:
        extra.append(f"{r.skipped_files} skipped")
    if r.head_commit:
        extra.append(f"HEAD {_short(r.head_commit)}")
    if r.last_indexed_at:
        extra.append(f"indexed {_fmt_time(r.last_indexed_at)}")
    lines = [f"  {r.id}  {r.root}", f"    {state}: {counts}" + (f"; {', '.join(extra)}" if extra else "")]
    lines.extend(_resolution_lines(r))
    if r.error:
        lines.append(f"    error: {r.error}")
    return lines


def _render_status(s: Status) -> list[str]:
    health = "healthy" if s.healthy else ("degraded" if s.serving else "NOT serving")
    lines = [
        f"graphmemd {s.version}  pid {s.pid}  up {_fmt_duration(s.uptime_seconds)}  {health}",
        f"socket:   {s.socket_path or '-'}",
    ]
    if s.tcp_address:
        lines.append(f"tcp:      {s.tcp_address}")
    lines.append(f"store:    {s.store_path or '-'} ({_fmt_bytes(s.store_size_bytes)})")
    if s.journal_path:
        lines.append(f"journal:  {s.journal_path}")
    if s.watcher is not None:
        w = s.watcher
        state = "healthy" if w.healthy else f"degraded: {w.degraded_reason or 'unknown reason'}"
        lines.append(f"watcher:  {w.mode} ({state}, {_plural(w.restarts, 'restart')})")
    lines.append(
        f"observations: {s.observations} ({s.stale_observations} stale, {s.suspect_observations} suspect)"
    )
    if s.repositories:
        lines.append(f"repositories ({len(s.repositories)}):")
        for r in s.repositories:
            lines.extend(_repo_lines(r))
    else:
        lines.append("repositories: none (add one with: graphmem repo add PATH)")
    for reason in s.degraded_reasons:
        lines.append(f"degraded: {reason}")
    if s.last_error:
        lines.append(f"last error: {s.last_error}")
    return lines


def _symbol_row(s: Symbol) -> str:
    return f"{s.kind or '?':<9} {s.ref}  (lines {s.start_line}-{s.end_line})"


def _render_symbol_detail(d: SymbolDetail) -> list[str]:
    s = d.symbol
    lines = [f"{s.kind} {s.ref}  ({s.language}, lines {s.start_line}-{s.end_line})"]
    if s.signature:
        lines.append(f"  {s.signature}")
    lines.append(f"  id: {s.id}")
    if d.container is not None:
        lines.append(f"in: {d.container.kind} {d.container.ref}")

    def group(title: str, items: Sequence[str]) -> None:
        if items:
            lines.append(f"{title} ({len(items)}):")
            lines.extend(f"  {x}" for x in items)

    group("callers", [x.ref for x in d.callers])
    group("callees", [x.ref for x in d.callees])
    group("unresolved calls", list(d.unresolved_calls))
    group("contains", [f"{x.kind} {x.ref}" for x in d.contains])
    group("inherits", [x.ref for x in d.inherits])
    group("inherited by", [x.ref for x in d.inherited_by])
    group("file imports", list(d.file_imports))
    group("file imported by", list(d.file_imported_by))
    group("observations", [_observation_row(o) for o in d.observations])
    if d.freshness is not None:
        lines.append(freshness_line(d.freshness))
    return lines


def _render_event(e: Event) -> str:
    when = datetime.fromtimestamp(e.at).strftime("%H:%M:%S") if e.at else "--:--:--"
    head = f"#{e.seq} {when}  {e.kind.value:<19} {e.repo_id or '-'}"
    if e.observation is not None:
        o = e.observation
        action = f"{e.action.value} " if e.action is not None else ""
        return f"{head}  {action}{o.id} {marker(o)} {_first_line(o.text, 60)}"
    if e.progress is not None:
        p = e.progress
        return f"{head}  {p.state.value} {p.files_done}/{p.files_total} files, {p.symbols} symbols"
    if e.path or e.detail:
        d = e.detail
        if d.get("removed"):
            return f"{head}  {e.path} removed"
        return (
            f"{head}  {e.path}: {d.get('symbols', 0)} symbols "
            f"(+{d.get('added', 0)} -{d.get('removed_symbols', 0)} ~{d.get('changed', 0)})"
        )
    return f"{head}  {e.message}"


class _Progress:
    """Index progress on stderr: on a terminal one line redrawn in place (``\\r``, cut to the
    terminal's width so it never wraps into new lines); otherwise plain lines, one per state
    change and at most one every 2 s in between. The elapsed time keeps the line moving while
    the daemon works on a phase without file counts (storing, resolving)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self._last_state: IndexState | None = None
        self._last_time = 0.0
        self._drawn = False

    def _width(self) -> int:
        try:
            return max(os.get_terminal_size(self.stream.fileno()).columns - 1, 20)
        except (OSError, ValueError):
            return 79

    @staticmethod
    def text(p: IndexProgress, bar_width: int = 0) -> str:
        """``repo [####....] 12/40 files, 310 symbols, 3s (indexing)``; no bar when ``bar_width`` is 0."""
        counts = f"{p.files_done}/{p.files_total} files, {_plural(p.symbols, 'symbol')}, {p.elapsed_seconds:.1f}s"
        if bar_width <= 0:
            return f"{p.repo_id} {counts} ({p.state.value})"
        frac = min(p.files_done / p.files_total, 1.0) if p.files_total else 0.0
        bar = "#" * int(frac * bar_width) + "." * (bar_width - int(frac * bar_width))
        return f"{p.repo_id} [{bar}] {counts} ({p.state.value})"

    def update(self, p: IndexProgress) -> None:
        if self.tty:
            width = self._width()
            bare = len(self.text(p))
            line = self.text(p, min(30, width - bare - 3)) if width - bare - 3 >= 10 else self.text(p)
            self.stream.write("\r\x1b[K" + line[:width])
            self.stream.flush()
            self._drawn = True
            return
        now = time.monotonic()
        if p.state is not self._last_state or now - self._last_time >= 2.0:
            print(self.text(p), file=self.stream, flush=True)
            self._last_state, self._last_time = p.state, now

    def finish(self) -> None:
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


# ---------------------------------------------------------------------------- commands


def _check_repo_dirs(repos: Sequence[str]) -> None:
    for repo in repos:
        if not Path(repo).expanduser().is_dir():
            raise NotFound(f"not a directory: {repo}")


def cmd_daemon_start(args: argparse.Namespace, ctx: _Ctx) -> int:
    """Start the daemon; when one is already running, register the ``--repo`` paths with it
    (exit 0), or exit 3 when there is nothing to register."""
    from graphmem.daemon_ctl import start_daemon

    _check_repo_dirs(args.repo)
    try:
        pid = start_daemon(ctx.home, args.repo, args.tcp, args.log_level, timeout=args.wait)
    except DaemonAlreadyRunning:
        if not args.repo:
            raise
        with ctx.client() as client:
            for path in args.repo:
                repo = client.add_repo(path)
                ctx.print(f"graphmemd is already running; registered {repo.id}  {repo.root}  ({repo.state.value})")
        return 0
    ctx.print(f"graphmemd started (pid {pid}), listening on {unix_target(ctx.paths.socket)}")
    return 0


def cmd_daemon_stop(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem daemon stop``: stop the running daemon and wait for it to exit."""
    from graphmem.daemon_ctl import stop_daemon

    try:
        pid = stop_daemon(ctx.home, timeout=args.wait)
    except DaemonNotRunning:
        ctx.note("graphmemd is not running")
        return 0
    ctx.print(f"graphmemd stopped (pid {pid})" if pid else "graphmemd stopped")
    return 0


def cmd_daemon_run(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem daemon run``: replace this process with the daemon in the foreground."""
    from graphmem.daemon_ctl import daemon_command

    _check_repo_dirs(args.repo)
    cmd = daemon_command(ctx.home, args.repo, args.tcp, args.log_level)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


def cmd_daemon_install(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem daemon install``: write (and enable) a user service that starts the daemon at login."""
    from graphmem.autostart import install

    _check_repo_dirs(args.repo)
    with ctx.client(timeout=STATUS_TIMEOUT) as client:
        running_before = client.health()
    done = install(ctx.home, args.repo, enable=not args.no_enable)
    ctx.print(f"wrote {done.path}")
    for cmd in done.ran:
        ctx.print(f"ran: {cmd}")
    if done.to_run:
        ctx.print("to start it now and at every login, run:")
        for cmd in done.to_run:
            ctx.print(f"  {cmd}")
    if running_before and done.ran:
        ctx.note(
            "a daemon started by `graphmem daemon start` is still running, so the service's own start "
            "exited 3; hand over with: graphmem daemon stop, then start the service"
        )
    return 0


def cmd_daemon_uninstall(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem daemon uninstall``: disable and remove the user service."""
    from graphmem.autostart import uninstall

    done = uninstall(enable=not args.no_enable)
    ctx.print(f"removed {done.path}")
    for cmd in done.ran:
        ctx.print(f"ran: {cmd}")
    if done.to_run:
        ctx.print("to stop the running service, run:")
        for cmd in done.to_run:
            ctx.print(f"  {cmd}")
    return 0


def cmd_status(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem status``: the health check; exits non-zero when the daemon is down, not answering or degraded."""
    address = ctx.address
    try:
        with ctx.client(timeout=STATUS_TIMEOUT) as client:
            status = client.status()
    except DaemonNotRunning as exc:
        if args.json:
            ctx.print_json({"running": False, "address": address})
        ctx.note(str(exc))
        print(START_HINT, file=ctx.err)
        return DaemonNotRunning.exit_code
    except Timeout:
        if args.json:
            ctx.print_json({"running": True, "answering": False, "address": address})
        ctx.note(f"graphmemd at {address} is running but did not answer within {STATUS_TIMEOUT:g} s")
        return 1
    if args.json:
        data = to_jsonable(status)
        assert isinstance(data, dict)
        ctx.print_json({"running": True, "address": address, "healthy": status.healthy, **data})
    else:
        for line in _render_status(status):
            ctx.print(line)
    return 0 if status.healthy else 1


def cmd_repo_add(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem repo add``: register a repository with the daemon."""
    _check_repo_dirs([args.path])
    with ctx.client() as client:
        repo = client.add_repo(args.path)
    if args.json:
        ctx.print_json(repo)
    else:
        ctx.print(f"added {repo.id}  {repo.root}  ({repo.state.value})")
    return 0


def cmd_repo_remove(args: argparse.Namespace, ctx: _Ctx) -> int:
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


def cmd_repo_list(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem repo list``: the registered repositories."""
    with ctx.client() as client:
        repos = client.list_repos()
    if args.json:
        ctx.print_json(repos)
    elif not repos:
        ctx.note("no repositories registered (add one with: graphmem repo add PATH)")
    else:
        for r in repos:
            for line in _repo_lines(r):
                ctx.print(line.removeprefix("  "))
    return 0


def cmd_index(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem index``: (re)index one or every repository, showing progress; fails if any failed."""
    failed: list[str] = []
    with ctx.client() as client:
        repos = [args.repo] if args.repo else [r.id for r in client.list_repos()]
        if not repos:
            raise FailedPrecondition("no repositories registered; add one with: graphmem repo add PATH")
        for repo in repos:
            progress = _Progress(ctx.err)
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
                f"{last.repo_id}: {last.state.value}, {_plural(last.files_total, 'file')}, "
                f"{_plural(last.symbols, 'symbol')}, {last.skipped} skipped in {last.elapsed_seconds:.1f}s"
            )
    if failed:
        raise GraphMemError(f"indexing failed: {', '.join(failed)} (see graphmem status)")
    return 0


def cmd_observe(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem observe``: save an observation (text from the argument or ``-`` for stdin)."""
    text = sys.stdin.read() if args.text == "-" else args.text
    if not text.strip():
        raise _usage("observe: TEXT is empty")
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


def cmd_show(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem show``: one observation in full."""
    with ctx.client() as client:
        obs = client.get(args.id)
    if args.json:
        ctx.print_json(obs)
    else:
        for line in _render_observation(obs):
            ctx.print(line)
    return 0


def cmd_list(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem list``: observations filtered by status, category, file, symbol, tag or repository."""
    statuses = list(
        dict.fromkeys(
            ([ObservationStatus.STALE] if args.stale else [])
            + ([ObservationStatus.SUSPECT] if args.suspect else [])
            + args.status
        )
    )
    with ctx.client() as client:
        found = client.list(
            repo=_at_hand(client, args),
            statuses=statuses,
            categories=args.category,
            file=args.file,
            symbol=args.symbol,
            tags=args.tag,
            limit=args.limit,
        )
    if args.json:
        ctx.print_json(found)
    elif not found:
        ctx.note("no observations match")
    else:
        for o in found:
            ctx.print(_observation_row(o))
    return 0


def _at_hand(client: GraphMem, args: argparse.Namespace) -> str:
    """The repository a ``list``/``events``/``export`` covers: ``--repo``; every one with
    ``--all``; else the registered repository containing the working directory, if any."""
    if args.repo or args.all:
        return str(args.repo) if not args.all else ""
    directory = client.working_directory()
    found = client.repo_containing(directory) if directory is not None else None
    return found.id if found is not None else ""


def cmd_recall(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem recall``: the observations relevant to text, files or symbols, ranked."""
    if not (args.text or args.file or args.symbol):
        raise _usage("recall: give TEXT, --file or --symbol")
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
        ctx.print(f"no fresh observations found; {_plural(result.excluded_stale, 'stale or suspect one')} "
                  "left out by --fresh-only")
    elif not result.results:
        ctx.print("no observations found")
    for n, r in enumerate(result.results, 1):
        for line in _render_recalled(n, r):
            ctx.print(line)
        ctx.print()
    if args.explain and result.results:
        for line in explain_table(result.results):
            ctx.print(line)
        ctx.print()
    summary = f"{_plural(len(result.results), 'result')}, {result.total_tokens} tokens"
    if result.truncated:
        summary += " (truncated by limit or budget)"
    ctx.print(summary)
    ctx.print(freshness_line(result.freshness))
    for w in result.warnings:
        ctx.note(f"warning: {w}")
    return 0


def cmd_brief(args: argparse.Namespace, ctx: _Ctx) -> int:
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
            f"({_plural(brief.left_out, 'more observation')} did not fit the budget of {args.budget} tokens; "
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


def cmd_confirm(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem confirm``: mark a stale or suspect observation still true."""
    with ctx.client() as client:
        obs = client.confirm(args.id, confirmed_by=args.by, note=args.note)
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(f"confirmed {obs.id} {marker(obs)}")
    return 0


def cmd_archive(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem archive``: archive an observation."""
    with ctx.client() as client:
        obs = client.archive(args.id)
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(f"archived {obs.id}")
    return 0


def cmd_delete(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem delete``: delete an observation for good."""
    with ctx.client() as client:
        client.delete(args.id)
    ctx.print(f"deleted {args.id}")
    return 0


def cmd_update(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem update``: change an observation's text, category, tags or confidence."""
    if args.clear_tags and args.tag:
        raise _usage("update: --tag and --clear-tags exclude each other")
    tags: list[str] | None = [] if args.clear_tags else args.tag
    if args.text is None and args.category is None and tags is None and args.confidence is None:
        raise _usage("update: nothing to change (give --text, --category, --tag, --clear-tags, --confidence)")
    with ctx.client() as client:
        obs = client.update(args.id, text=args.text, category=args.category, tags=tags, confidence=args.confidence)
    if args.json:
        ctx.print_json(obs)
    else:
        ctx.print(f"updated {obs.id} {marker(obs)}")
    return 0


def cmd_symbols(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem symbols``: symbols matching a wildcard pattern."""
    with ctx.client() as client:
        found = client.find_symbols(args.pattern, repo=args.repo, kinds=args.kind, limit=args.limit)
    if args.json:
        ctx.print_json(found)
    elif not found:
        ctx.note(f"no symbols match {args.pattern!r}")
    else:
        for s in found:
            ctx.print(_symbol_row(s))
    return 0


def cmd_resolve(args: argparse.Namespace, ctx: _Ctx) -> int:
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
            ctx.print(_symbol_row(s))
    return 0


def cmd_symbol(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem symbol``: one symbol with its callers, callees, members and observations."""
    with ctx.client() as client:
        detail = client.symbol(args.ref, repo=args.repo)
    if args.json:
        ctx.print_json(detail)
    else:
        for line in _render_symbol_detail(detail):
            ctx.print(line)
    return 0


def cmd_events(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem events``: print the daemon's events as they happen."""
    with ctx.client() as client:
        stream = client.events(repo=_at_hand(client, args), kinds=args.kind, after_seq=args.after_seq)
        try:
            for event in stream:
                if args.json:
                    ctx.print_json(event, indent=None)
                else:
                    ctx.print(_render_event(event))
                ctx.out.flush()
        except KeyboardInterrupt:
            stream.cancel()
    return 0


def cmd_export(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem export``: every observation as journal lines, to a file (written atomically) or stdout."""
    with ctx.client() as client:
        lines = client.export(repo=_at_hand(client, args))
        if args.file == "-":
            count = _write_lines(ctx.out, lines)
        else:
            target = Path(args.file).expanduser()
            count = _write_file_atomically(target, lines)
            ctx.note(f"exported {_plural(count, 'record')} to {target}")
    return 0


def _write_lines(out: TextIO, lines: Iterator[str]) -> int:
    count = 0
    for line in lines:
        out.write(line + "\n")
        count += 1
    out.flush()
    return count


def _write_file_atomically(target: Path, lines: Iterator[str]) -> int:
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    except OSError as exc:
        raise GraphMemError(f"cannot write {target}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            count = _write_lines(f, lines)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise GraphMemError(f"cannot write {target}: {exc.strerror or exc}") from exc
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


#: The largest import read (from a file or stdin).
MAX_IMPORT_BYTES = 512 * 1024 * 1024


def _read_import(name: str) -> list[str]:
    """The lines of an export: a regular file (never a device or FIFO: ``/dev/zero`` would
    never end), or stdin with ``-``, at most ``MAX_IMPORT_BYTES`` either way."""
    if name == "-":
        data = sys.stdin.buffer.read(MAX_IMPORT_BYTES + 1)
    else:
        path = Path(name).expanduser()
        try:
            st = path.stat()
        except FileNotFoundError:
            raise NotFound(f"no such file: {name}") from None
        except OSError as exc:
            raise GraphMemError(f"cannot read {name}: {exc}") from exc
        if not stat.S_ISREG(st.st_mode):
            raise InvalidArgument(f"{name} is not a regular file; import reads an export file (or - for stdin)")
        if st.st_size > MAX_IMPORT_BYTES:
            raise InvalidArgument(f"{name} is {st.st_size} bytes; an import is at most {MAX_IMPORT_BYTES}")
        try:
            with path.open("rb") as f:
                data = f.read(MAX_IMPORT_BYTES + 1)
        except OSError as exc:
            raise GraphMemError(f"cannot read {name}: {exc}") from exc
    if len(data) > MAX_IMPORT_BYTES:
        raise InvalidArgument(f"the import is larger than {MAX_IMPORT_BYTES} bytes")
    try:
        return data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise InvalidArgument(f"{name} is not UTF-8 text: {exc}") from exc


def cmd_import(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem import``: import exported lines from a regular file or stdin."""
    lines = _read_import(args.file)
    with ctx.client() as client:
        result = client.import_lines(lines, repo=args.repo)
    if args.json:
        ctx.print_json(result)
        return 0
    ctx.print(
        f"imported {_plural(result.imported, 'record')}, skipped {_plural(result.skipped_duplicates, 'duplicate')}"
    )
    for e in result.errors:
        ctx.note(f"warning: {e}")
    return 0


def cmd_check(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem check``: knowledge files against the code (``graphmem.check``)."""
    from graphmem.check import options_from_args, run_check

    return run_check(options_from_args(args), address=ctx.address, out=ctx.out, err=ctx.err)


def cmd_mcp(args: argparse.Namespace, ctx: _Ctx) -> int:
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


def cmd_lsp(args: argparse.Namespace, ctx: _Ctx) -> int:
    """``graphmem lsp``: run the language server with the settings the flags resolved."""
    if ctx.home:
        os.environ["GRAPHMEM_HOME"] = ctx.home
    if ctx.address_flag:
        os.environ["GRAPHMEM_ADDRESS"] = ctx.address_flag
    from graphmem.lsp.features import main as serve

    return serve()


class _UsageError(GraphMemError):
    grpc_status = "INVALID_ARGUMENT"
    exit_code = EX_USAGE


def _usage(message: str) -> _UsageError:
    return _UsageError(message)


# ---------------------------------------------------------------------------- main


def cmd_completion(args: argparse.Namespace, ctx: _Ctx) -> int:
    """Print the completion script for ``args.shell`` (argcomplete's, registered for ``graphmem``)."""
    from argcomplete.shell_integration import shellcode

    print(shellcode(["graphmem"], shell=args.shell), file=ctx.out)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one ``graphmem`` command; returns the exit code."""
    parser = build_parser()
    if "_ARGCOMPLETE" in os.environ:  # a shell asks for completions (graphmem completion SHELL)
        import argcomplete

        argcomplete.autocomplete(parser)  # prints the completions and exits
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help/--version (0) and usage errors (64)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EX_USAGE)
    func: Callable[[argparse.Namespace, _Ctx], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return EX_USAGE
    ctx = _Ctx.from_args(args)
    try:
        return func(args, ctx)
    except GraphMemError as exc:
        ctx.note(str(exc))
        if exc.close_matches:
            ctx.note("did you mean: " + "  ".join(exc.close_matches))
        if isinstance(exc, DaemonNotRunning):
            print(START_HINT, file=ctx.err)
        return exc.exit_code
    except KeyboardInterrupt:
        return EX_INTERRUPTED
    except BrokenPipeError:
        # stdout was closed early (e.g. `| head`): silence the flush at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
