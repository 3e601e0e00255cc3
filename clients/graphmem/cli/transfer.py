"""``graphmem export`` and ``graphmem import``: the observation journal as JSON lines."""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from graphmem.cli.common import Ctx, Registrar, all_flag, json_flag
from graphmem.cli.notes import at_hand
from graphmem.errors import (
    GraphMemError,
    InvalidArgument,
    NotFound,
)
from graphmem.render import plural


def register(r: Registrar) -> None:
    """``export`` and ``import``."""
    p = r.verb("export", cmd_export, "write the observation journal as JSON lines")
    p.add_argument("file", metavar="FILE", nargs="?", default="-", help="default: stdout")
    p.add_argument("--repo", metavar="R", default="")
    all_flag(p)

    p = r.verb("import", cmd_import, "import JSON lines written by export (from any clone of the repository)")
    p.add_argument("file", metavar="FILE", help="'-' reads stdin")
    p.add_argument(
        "--repo",
        default="",
        help="the repository (id or path) they belong to; default: the registered clone of the one they came from",
    )
    json_flag(p)


def cmd_export(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem export``: every observation as journal lines, to a file (written atomically) or stdout."""
    with ctx.client() as client:
        lines = client.export(repo=at_hand(client, args.repo, every=args.all))
        if args.file == "-":
            count = _write_lines(ctx.out, lines)
        else:
            target = Path(args.file).expanduser()
            count = _write_file_atomically(target, lines)
            ctx.note(f"exported {plural(count, 'record')} to {target}")
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


def cmd_import(args: argparse.Namespace, ctx: Ctx) -> int:
    """``graphmem import``: import exported lines from a regular file or stdin."""
    lines = _read_import(args.file)
    with ctx.client() as client:
        result = client.import_lines(lines, repo=args.repo)
    if args.json:
        ctx.print_json(result)
        return 0
    ctx.print(f"imported {plural(result.imported, 'record')}, skipped {plural(result.skipped_duplicates, 'duplicate')}")
    for e in result.errors:
        ctx.note(f"warning: {e}")
    return 0
