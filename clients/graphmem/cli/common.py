"""What every command shares: the resolved global options (``Ctx``), argument types, the
registrar commands add their verbs with, ``--json``'s conversion and small formatting helpers."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

from graphmem import convert
from graphmem.client import GraphMem, normalize_address
from graphmem.errors import (
    GraphMemError,
    NotFound,
)
from graphmem.paths import Paths, resolve_paths, unix_target
from graphmem.render import plural
from graphmem.types import (
    Brief,
    Event,
    Freshness,
    ImportResult,
    IndexProgress,
    IndexState,
    Observation,
    RecallResult,
    Repository,
    Status,
    Symbol,
    SymbolDetail,
)

EX_USAGE = 64
EX_INTERRUPTED = 130
STATUS_TIMEOUT = 2.0
START_HINT = "start it with: graphmem daemon start --repo PATH"

_E = TypeVar("_E", bound=Enum)


class Parser(argparse.ArgumentParser):
    """argparse with usage errors exiting 64 (EX_USAGE) and ``graphmem:`` messages."""

    def error(self, message: str) -> NoReturn:
        """Exit 64 with the usage line and the message (argparse's default is 2)."""
        self.print_usage(sys.stderr)
        sub = self.prog.removeprefix("graphmem").strip()
        self.exit(EX_USAGE, f"graphmem: {sub + ': ' if sub else ''}{message}\n")


def enum_arg(cls: type[_E]) -> Callable[[str], _E]:
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


def positive_int(text: str) -> int:
    """An ``int`` argument that is 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {text}")
    return value


def confidence(text: str) -> float:
    """A confidence argument: 0 < X <= 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {text}")
    return value


def choices(cls: type[Enum]) -> str:
    """An enum's values as a metavar: ``{a,b,c}``."""
    return "{" + ",".join(str(m.value) for m in cls) + "}"


@dataclasses.dataclass
class Ctx:
    """Global options, resolved once: flag, then environment, then default."""

    home: str | None
    address_flag: str | None
    timeout: float
    out: TextIO
    err: TextIO

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Ctx:
        """The global options of ``args``: flag, then environment, then default."""
        home = getattr(args, "home", None) or os.environ.get("GRAPHMEM_HOME") or None
        address = getattr(args, "address", None) or os.environ.get("GRAPHMEM_ADDRESS") or None
        return cls(home, address, getattr(args, "timeout", 10.0), sys.stdout, sys.stderr)

    @property
    def paths(self) -> Paths:
        """The graphmem home's paths."""
        return resolve_paths(self.home)

    @property
    def address(self) -> str:
        """The daemon's address: the flag's, else the home's socket."""
        if self.address_flag:
            return normalize_address(self.address_flag)
        return unix_target(self.paths.socket)

    def client(self, timeout: float | None = None) -> GraphMem:
        """A client of the daemon (``timeout``: this call's deadline, default the global one)."""
        return GraphMem(self.address, timeout=self.timeout if timeout is None else timeout)

    def print(self, text: str = "") -> None:
        """A line on stdout."""
        print(text, file=self.out)

    def note(self, text: str) -> None:
        """A message on stderr: ``graphmem: <text>``."""
        print(f"graphmem: {text}", file=self.err)

    def print_json(self, obj: object, *, indent: int | None = 2) -> None:
        """``obj`` as ``--json`` prints it."""
        print(json.dumps(to_jsonable(obj), indent=indent, ensure_ascii=False), file=self.out)


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


def fmt_time(t: float | None) -> str:
    """Epoch seconds as local ``YYYY-MM-DD HH:MM:SS`` (``-`` for none)."""
    if not t:
        return "-"
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def fmt_duration(seconds: float) -> str:
    """A duration as ``2d3h``, ``4h05m``, ``3m07s`` or ``1.5s``."""
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


def fmt_bytes(n: int) -> str:
    """A size in B, KiB, MiB or GiB."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover


def short(commit: str) -> str:
    """A commit's short form (7 characters)."""
    return commit[:7]


def first_line(text: str, width: int = 80) -> str:
    """The first line of ``text``, cut to ``width`` with ``...``."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 3] + "..."


def freshness_line(f: Freshness) -> str:
    """``index current (HEAD abc1234)`` or ``index NOT current: 3 pending changes``."""
    if f.current:
        heads = []
        for r in f.repositories:
            if r.head_commit:
                head = f"HEAD {short(r.head_commit)}{'-dirty' if r.working_tree_dirty else ''}"
                heads.append(head if len(f.repositories) == 1 else f"{r.repo_id} {head}")
        return "index current" + (f" ({', '.join(heads)})" if heads else "")
    parts: list[str] = []
    pending = sum(r.pending_changes for r in f.repositories)
    if pending:
        parts.append(plural(pending, "pending change"))
    for r in f.repositories:
        if r.activity:  # (what the daemon is doing, or what waits: in its words)
            parts.append(f"{r.repo_id}: {r.activity}" if len(f.repositories) > 1 else r.activity)
            continue
        if r.state is IndexState.INDEXING:
            parts.append(f"{r.repo_id} is indexing")
        elif r.state is IndexState.PENDING:
            parts.append(f"{r.repo_id} not indexed yet")
        elif r.state is IndexState.ERROR:
            parts.append(f"{r.repo_id} index error")
        if r.indexed_commit and r.head_commit and r.indexed_commit != r.head_commit:
            indexed, head = short(r.indexed_commit), short(r.head_commit)
            parts.append(f"{r.repo_id} indexed at {indexed}, HEAD is {head}")
    return "index NOT current" + (f": {', '.join(parts)}" if parts else "")


class UsageError(GraphMemError):
    """A usage error found after parsing (exit 64)."""

    grpc_status = "INVALID_ARGUMENT"
    exit_code = EX_USAGE


def usage(message: str) -> UsageError:
    """A usage error with ``message``."""
    return UsageError(message)


def check_repo_dirs(repos: Sequence[str]) -> None:
    """Raise ``NotFound`` for a ``--repo`` path that is not a directory."""
    for repo in repos:
        if not Path(repo).expanduser().is_dir():
            raise NotFound(f"not a directory: {repo}")


Verb = Callable[[argparse.Namespace, "Ctx"], int]


@dataclasses.dataclass(frozen=True)
class Registrar:
    """How a command module adds its verbs to the parser (each module's ``register(r)``):
    ``r.verb(name, func, help)`` for a top-level verb, ``r.group(name, help)`` for a verb
    with actions (``graphmem repo add``), whose subparsers ``r.verb(..., sub)`` takes."""

    common: Parser
    verbs: argparse._SubParsersAction[Parser]

    def verb(self, name: str, func: Verb, help: str, sub: argparse._SubParsersAction[Parser] | None = None) -> Parser:
        """Add the verb ``name`` (with the global options) running ``func(args, ctx)``."""
        p = (sub or self.verbs).add_parser(name, parents=[self.common], help=help, description=help)
        p.set_defaults(func=func)
        return p

    def group(self, name: str, help: str) -> argparse._SubParsersAction[Parser]:
        """Add the verb ``name`` whose actions the returned subparsers take."""
        p = self.verbs.add_parser(name, parents=[self.common], help=help)
        return p.add_subparsers(title=f"{name} commands", metavar="ACTION", required=True)


def json_flag(p: argparse.ArgumentParser) -> None:
    """``--json``: machine-readable output."""
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def stale_flags(p: argparse.ArgumentParser) -> None:
    """``--fresh-only`` (and the deprecated ``--include-stale``)."""
    p.add_argument("--fresh-only", action="store_true", help="leave out stale and suspect observations")
    p.add_argument("--include-stale", action="store_true", help="deprecated, no effect: they are included")


def all_flag(p: argparse.ArgumentParser) -> None:
    """``--all``: every repository instead of the one at hand."""
    p.add_argument("--all", action="store_true", help="every repository (default: the one at hand, if any)")


#: The options whose value is a code reference (an anchor, a symbol, a file).
_REF_OPTIONS = ("anchor", "symbol", "file")


def pick_hint(args: argparse.Namespace, exc: GraphMemError) -> str:
    """The one line after an error that names candidates: how to pick one with the option that
    carried the reference (``e.g. --anchor app/auth/crypto.py::hash_password``); else the
    candidates, when the message does not already list them; "" when there is nothing to add."""
    if not exc.close_matches:
        return ""
    for name in _REF_OPTIONS:
        value = getattr(args, name, None)
        if exc.reference and (value == exc.reference or (isinstance(value, list) and exc.reference in value)):
            return f"e.g. --{name} {shlex.quote(exc.close_matches[0])}"
    if all(c in exc.message for c in exc.close_matches):
        return ""
    return "did you mean: " + "  ".join(exc.close_matches)
