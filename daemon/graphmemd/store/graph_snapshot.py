"""A warm restart's snapshot: each repository's in-memory graph, written at a clean close.

Rebuilding a repository's graph from its cached parses and stored edges (``restore.py``)
decodes every parse, derives every symbol id, stems every symbol's words for text search
and links every edge again: 1.4 s for 0.9 M lines, 6 s for 4.7 M. The graph it builds is the
one the daemon held when it stopped. So a daemon that stops cleanly writes each ready
repository's share of the graph (``CodeGraph.export_repo``: files, symbols, edges, text
index) to ``data/snapshots/<hash>.snap``, and the next start puts it back whole
(``import_repo``), about four times faster.

A snapshot is a cache of what the store already holds, trusted only as far as it is checked:

- It is written only when the store was closed cleanly, after every store write of the run
  succeeded and the indexer stopped with no job failed (``Core.close``), and before the
  store's clean-close marker. A start that does not find that marker intact removes every
  snapshot before reading any (``Core.open``).
- It is read at most once: ``take`` removes it.
- Its format, the parser version, the daemon version and the ``layout`` (the classes it
  holds and the source of the modules that build them) must be this daemon's, and its
  payload must match its checksum.
- Every file in it must have the content hash the store has (``restore.py``).
- Its edges are compared with the store's when the resolver gets the parses
  (``restore.hand_over``), and replaced in both where a new resolution differs.

Anything else, and the repository is rebuilt the slower way: nothing is lost.

Format: ``GMSNAP01``, ``<u32 length>`` and a JSON header, ``<u64 length><u32 crc32>`` of
the payload, then the payload pickled: the ``GraphPart`` without its symbols, their ids, and
the symbols' fields column by column (``model.columns_of``: built back without running
each symbol's constructor, half the time of unpickling 387,352 symbol objects), equal
strings written once (``_payload``), and the repository's edge count; then the repository
facts its edges were resolved with (``RepoFacts``: a restart from a snapshot does not walk
the tree for them; the index pass that follows reads them again from its own walk). The files are
the daemon's own, in its 0700 data directory (whoever can write them can write the store too).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import pickle
import struct
import sys
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import IO, Any, cast

from graphmem import types
from graphmem.types import EdgeConfidence, EdgeKind

from graphmemd import __version__
from graphmemd.graph import codegraph, model, text_index, tokens
from graphmemd.graph.codegraph import CodeGraph, FileNode, GraphPart
from graphmemd.graph.model import Language, SymbolInfo, SymbolKind, columns_of, from_columns
from graphmemd.graph.resolution import facts as repo_facts
from graphmemd.graph.resolution.facts import RepoFacts
from graphmemd.graph.text_index import text_layout
from graphmemd.ingest import parsecache
from graphmemd.ingest.parse_pack import repo_file_stem

logger = logging.getLogger(__name__)

MAGIC = b"GMSNAP01"
#: bump when what a snapshot holds changes in a way ``layout`` does not see
FORMAT = 2
_U32 = struct.Struct("<I")
_PAYLOAD = struct.Struct("<QI")
_CHUNK = 1 << 20
#: what a damaged or foreign payload can raise while it is unpickled
_UNPICKLE_ERRORS = (
    pickle.UnpicklingError,
    EOFError,
    AttributeError,
    ImportError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
)


@functools.cache
def layout() -> str:
    """A fingerprint of what shapes a snapshot's contents: the fields of the classes it holds,
    the values of its enums, and the source of the modules that define and build them (an
    upgrade that changes any of them, e.g. how symbol text is split into words, makes the
    next start rebuild instead of reading a snapshot the old code wrote)."""
    h = hashlib.blake2b(digest_size=8)
    for cls in (FileNode, SymbolInfo, GraphPart, RepoFacts):
        h.update(",".join(f.name for f in fields(cls)).encode("utf-8"))
    for enum in (EdgeKind, EdgeConfidence, SymbolKind, Language):
        h.update(",".join(m.value for m in enum).encode("utf-8"))
    h.update(text_layout().encode("utf-8"))
    for module in (codegraph, model, text_index, tokens, types, repo_facts, sys.modules[__name__]):
        h.update(Path(str(module.__file__)).read_bytes())
    return h.hexdigest()


def _header(repo_id: str) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "layout": layout(),
        "parser": parsecache.PARSER_VERSION,
        "daemon": __version__,
        "repo": repo_id,
    }


class _Summing:
    """A write-only file that passes bytes on and keeps their length and crc32."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self.length = 0
        self.crc = 0

    def write(self, data: bytes) -> int:
        """Write ``data`` on, counting it."""
        self.length += len(data)
        self.crc = zlib.crc32(data, self.crc)
        return self._out.write(data)


class Snapshots:
    """The snapshot directory: one file per repository (see the module docstring)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, repo_id: str) -> Path:
        """Where ``repo_id``'s snapshot lives."""
        return self.directory / f"{repo_file_stem(repo_id)}.snap"

    def clear(self) -> None:
        """Remove every snapshot (and any half-written one)."""
        if not self.directory.is_dir():
            return
        for p in self.directory.iterdir():
            if p.suffix in (".snap", ".know", ".tmp"):
                try:
                    p.unlink(missing_ok=True)
                except OSError as exc:  # ``take`` does not use a snapshot it cannot remove either
                    logger.warning("cannot remove the snapshot %s: %s", p, exc)

    def save(self, part: GraphPart, facts: RepoFacts) -> int:
        """Write ``part`` as its repository's snapshot, with the repository facts its edges were
        resolved with (a temporary file, synced, renamed); returns its size. Raises OSError;
        nothing is left half-written."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        header = json.dumps(_header(part.repo_id)).encode("utf-8")

        def write(f: IO[bytes]) -> int:
            f.write(MAGIC + _U32.pack(len(header)) + header)
            at = f.tell()
            f.write(_PAYLOAD.pack(0, 0))
            summing = _Summing(f)
            pickle.dump((*_payload(part), facts), summing, protocol=pickle.HIGHEST_PROTOCOL)
            f.seek(at)
            f.write(_PAYLOAD.pack(summing.length, summing.crc))
            return at + _PAYLOAD.size + summing.length

        return _write_whole(self.path(part.repo_id), write)

    def save_all(self, graph: CodeGraph, repos: Mapping[str, RepoFacts]) -> None:
        """Write the snapshot of each repository of ``repos`` (id -> its facts; a clean stop:
        the graph no longer changes). One that cannot be written is logged: the next start
        rebuilds it the slower way."""
        for rid, facts in repos.items():
            started = time.monotonic()
            try:
                size = self.save(graph.export_repo(rid), facts)
            except (OSError, pickle.PicklingError) as exc:
                logger.warning("cannot write the snapshot of %s: %s", rid, exc)
                continue
            logger.info("snapshot of %s written in %.2fs (%d KiB)", rid, time.monotonic() - started, size // 1024)

    def save_knowledge(self, repo_id: str, data: bytes) -> None:
        """Write what ``repo_id``'s knowledge files were (``ingest.knowledge.kept``) beside its
        snapshot, whole or not at all. Raises OSError."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_whole(self.directory / f"{repo_file_stem(repo_id)}.know", lambda f: f.write(data))

    def take_knowledge(self, repo_id: str) -> bytes | None:
        """What ``save_knowledge`` wrote for ``repo_id``, removed from disk (read at most once,
        as a snapshot is); None when there is none, or it cannot be read or removed."""
        path = self.directory / f"{repo_file_stem(repo_id)}.know"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            logger.warning("knowledge state of %s not used: %s", repo_id, exc)
            return None
        try:
            path.unlink()
        except OSError as exc:
            logger.warning("knowledge state of %s not used: it cannot be removed (%s)", repo_id, exc)
            return None
        return data

    def take(self, repo_id: str) -> tuple[GraphPart, RepoFacts] | None:
        """``repo_id``'s snapshot and the facts it was written with, removed from disk; None
        when there is none or it cannot be trusted (logged). One that cannot be removed is
        not used: left on disk, it could be read again at a later start, after the store
        moved on."""
        path = self.path(repo_id)
        part: tuple[GraphPart, RepoFacts] | None = None
        try:
            with open(path, "rb") as f:
                why = _check(f, repo_id)
                if not why:
                    part = _part(pickle.load(f))
        except FileNotFoundError:
            return None
        except (OSError, *_UNPICKLE_ERRORS) as exc:
            why = f"unreadable ({type(exc).__name__}: {exc})"
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            why = why or f"it cannot be removed ({exc})"
        if not why and not (part is not None and part[0].repo_id == repo_id):
            why = "not a snapshot of this repository"
        if why or part is None:
            logger.warning("snapshot of %s not used: %s", repo_id, why)
            return None
        return part


def _write_whole(target: Path, write: Callable[[IO[bytes]], int]) -> int:
    """Write ``target`` by ``write`` whole or not at all (a temporary file beside it, synced,
    renamed); returns what ``write`` returned. Raises OSError; nothing is left half-written."""
    tmp = target.with_name(target.name + ".tmp")
    try:
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
            n = write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return n


def _payload(part: GraphPart) -> tuple[GraphPart, list[str], list[list[object]]]:
    """What ``save`` pickles of ``part``: the part without its symbols, their ids, and their
    fields column by column, with equal strings made one object (pickle writes an object once
    and refers to it after; equal but separate strings it writes and a restart builds again
    each time). The graph holds equal strings apart where they came from different parses:
    a symbol's path and its file's, signatures and hashes that recur (``__init__(self)``,
    empty files, copied code), lowercased names; at 4.7 M lines (the stdlib copied: more
    recurrence than most code) 1.06 M of the 1.8 M strings a snapshot held, ~0.3 s of its
    read. Columns of anything but strings are kept as they are."""
    canon: dict[str, str] = {}
    share = canon.setdefault
    columns = columns_of(SymbolInfo, part.symbols.values())
    for i, column in enumerate(columns):
        if all(type(v) is str for v in column):
            strings = cast("list[str]", column)
            columns[i] = list(map(share, strings, strings))
    files = {
        fid: replace(n, path=share(n.path, n.path), content_hash=share(n.content_hash, n.content_hash))
        for fid, n in part.files.items()
    }
    names = {share(name, name): ids for name, ids in part.names.items()}
    return replace(part, symbols={}, files=files, names=names), list(part.symbols), columns


def _part(payload: object) -> tuple[GraphPart, RepoFacts] | None:
    """The ``GraphPart`` a payload holds, its symbols built back, and its facts (None: not a
    payload). Raises ValueError when the symbols' columns do not fit."""
    if not (
        isinstance(payload, tuple)
        and len(payload) == 4
        and isinstance(payload[0], GraphPart)
        and isinstance(payload[3], RepoFacts)
    ):
        return None
    part: GraphPart = payload[0]
    ids, columns = payload[1], payload[2]
    symbols = from_columns(SymbolInfo, columns)
    if len(symbols) != len(ids):
        raise ValueError("as many symbol ids as symbols")
    part.symbols = dict(zip(ids, symbols, strict=True))
    return part, payload[3]


def _check(f: IO[bytes], repo_id: str) -> str:
    """Why the snapshot open in ``f`` cannot be read ("" if it can: ``f`` is then at its
    payload, whose checksum matched)."""
    if f.read(len(MAGIC)) != MAGIC:
        return "not a snapshot file"
    raw = f.read(_U32.size)
    if len(raw) < _U32.size:
        return "cut short"
    try:
        header = json.loads(f.read(_U32.unpack(raw)[0]))
    except ValueError:
        return "damaged header"
    want = _header(repo_id)
    if header != want:
        differs = sorted(k for k in want if not isinstance(header, dict) or header.get(k) != want[k])
        return f"written by another daemon or for another repository ({', '.join(differs)} differ)"
    raw = f.read(_PAYLOAD.size)
    if len(raw) < _PAYLOAD.size:
        return "cut short"
    length, crc = _PAYLOAD.unpack(raw)
    start, seen, got = f.tell(), 0, 0
    while chunk := f.read(min(_CHUNK, length - seen)):
        seen += len(chunk)
        got = zlib.crc32(chunk, got)
    if seen != length or got != crc:
        return "damaged (checksum)"
    f.seek(start)
    return ""


__all__ = ["MAGIC", "Snapshots", "layout"]
