"""The parse cache on disk: each repository's cached parses in one append-only pack file.

A warm restart reads every file's last parse back instead of parsing it (``restore.py``,
``parsecache.py``). The parses are kept here rather than in the graph store: a cached parse
is a text of ~12 KB on average, and Kùzu 0.11.3 keeps ~10 MB of its buffer pool per COPY of
such strings that no checkpoint gives back, so a large first index filled the pool and lost
its cached parses (at 4.7 M lines). A cache needs none of a database's guarantees: a parse
that is missing, torn or from another parser only means that file is parsed again.

Format: an 8-byte magic, then records ``<u32 payload length><u32 crc32 of payload><payload>``;
a payload is ``<u8 op><i64 size><i64 mtime_ns><u32 x4 lengths>`` then the path, content
hash, parser version and parse text as UTF-8. ``op`` puts the path's parse or removes it;
the last record of a path wins. A record that is cut short or fails its checksum ends the
file: it and anything after it are dropped (truncated) when the file is next read, so a
crash or a full disk during an append loses at most those files' cached parses. When the
superseded records outweigh the live ones the file is rewritten (to a temporary file,
synced, renamed). ``records``/``heads``/``encode_put``/``encode_remove`` are the pure codec.

A restart whose graph comes back from its snapshot needs only each file's size, mtime,
content hash and parser version before it answers; the parse texts (nine tenths of the
file) are read when the resolver gets them (``restore.hand_over``). So ``ParsePack.heads``
reads the records' framing and small fields only (from a memory map: the texts' pages are
not touched) and ``ParsePack.text`` reads one record's text later, checking its checksum
then: a record that fails it is reported as damaged, and its file is parsed again. Records
after a damaged one stay usable this way (a full read, ``load``, still ends the file there).
"""

from __future__ import annotations

import hashlib
import logging
import mmap
import os
import struct
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from graphmem.errors import StoreError

from graphmemd.graph.model import FileRecord, ParsedFile
from graphmemd.ingest import parsecache

logger = logging.getLogger(__name__)

MAGIC = b"GMPARSE1"
_HEAD = struct.Struct("<II")
_FIXED = struct.Struct("<BqqIIII")
_PUT, _REMOVE = 1, 2
#: rewrite a pack once its superseded records exceed both its live ones and this many bytes
COMPACT_MIN_DEAD = 16 * 1024 * 1024


def repo_file_stem(repo_id: str) -> str:
    """The name (without suffix) of a repository's file in a per-repository directory: a
    hash, since an id may hold any character a file name must not."""
    return hashlib.blake2b(repo_id.encode("utf-8"), digest_size=12).hexdigest()


@dataclass(frozen=True, slots=True)
class CachedParse:
    """A file's last parse as the cache keeps it: the size, mtime and content hash it was
    parsed at, the parser version that made it, and the encoded ``ParsedFile``."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str
    version: str
    data: str


@dataclass(frozen=True, slots=True)
class CachedHead:
    """A cached parse without its text (``ParsePack.heads``): what a warm restart needs before
    it answers; ``ParsePack.text`` reads the text when it is needed."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str
    version: str


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded record: where it lies in the file, and the parse it puts (None: removes ``path``)."""

    start: int
    end: int
    path: str
    parse: CachedParse | None


def _encode(op: int, path: str, size: int, mtime_ns: int, content_hash: str, version: str, data: str) -> bytes:
    parts = [s.encode("utf-8") for s in (path, content_hash, version, data)]
    payload = b"".join([_FIXED.pack(op, size, mtime_ns, *map(len, parts)), *parts])
    return _HEAD.pack(len(payload), zlib.crc32(payload)) + payload


def encode_put(parse: CachedParse) -> bytes:
    """The record that caches ``parse``."""
    return _encode(_PUT, parse.path, parse.size, parse.mtime_ns, parse.content_hash, parse.version, parse.data)


def encode_remove(path: str) -> bytes:
    """The record that forgets ``path``'s cached parse."""
    return _encode(_REMOVE, path, 0, 0, "", "", "")


def records(buf: bytes | memoryview, start: int = len(MAGIC)) -> Iterator[Record]:
    """The sound records of a pack's bytes from ``start``, in order; stops at the first record
    that is cut short, fails its checksum or does not decode (``Record.end`` of the last one
    yielded is where the sound part of the file ends)."""
    view = memoryview(buf)
    pos, n = start, len(view)
    while pos + _HEAD.size <= n:
        length, crc = _HEAD.unpack_from(view, pos)
        body = pos + _HEAD.size
        if length < _FIXED.size or body + length > n or zlib.crc32(view[body : body + length]) != crc:
            return
        op, size, mtime_ns, *lengths = _FIXED.unpack_from(view, body)
        if op not in (_PUT, _REMOVE) or _FIXED.size + sum(lengths) != length:
            return
        at = body + _FIXED.size
        try:
            texts = []
            for n_bytes in lengths:
                texts.append(str(view[at : at + n_bytes], "utf-8"))
                at += n_bytes
        except UnicodeDecodeError:
            return
        path, content_hash, version, data = texts
        end = body + length
        parse = CachedParse(path, size, mtime_ns, content_hash, version, data) if op == _PUT else None
        yield Record(pos, end, path, parse)
        pos = end


def heads(
    buf: bytes | memoryview | mmap.mmap, start: int = len(MAGIC)
) -> Iterator[tuple[int, int, str, CachedHead | None]]:
    """``(start, end, path, head)`` of each well-framed record of a pack's bytes from
    ``start`` (head None: ``path`` removed), without reading the parse texts or checking the
    checksums (see the module docstring); stops at the first record that is cut short or
    whose framing or small fields do not decode (the end of the last one yielded is where
    the sound framing ends)."""
    view = memoryview(buf)
    pos, n = start, len(view)
    try:
        while pos + _HEAD.size + _FIXED.size <= n:
            length = _HEAD.unpack_from(view, pos)[0]
            body = pos + _HEAD.size
            if length < _FIXED.size or body + length > n:
                return
            op, size, mtime_ns, n_path, n_hash, n_version, n_data = _FIXED.unpack_from(view, body)
            if op not in (_PUT, _REMOVE) or _FIXED.size + n_path + n_hash + n_version + n_data != length:
                return
            at = body + _FIXED.size
            try:
                path = str(view[at : at + n_path], "utf-8")
                content_hash = str(view[at + n_path : at + n_path + n_hash], "utf-8")
                version = str(view[at + n_path + n_hash : at + n_path + n_hash + n_version], "utf-8")
            except UnicodeDecodeError:
                return
            end = body + length
            yield pos, end, path, CachedHead(path, size, mtime_ns, content_hash, version) if op == _PUT else None
            pos = end
    finally:
        view.release()


class _Pack:
    """One repository's pack file and, once read, where each path's live record lies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.live: dict[str, tuple[int, int]] | None = None  # path -> (start, end)
        self.size = 0

    @property
    def dead(self) -> int:
        """Bytes of records that a later record superseded."""
        live = sum(end - start for start, end in (self.live or {}).values())
        return self.size - len(MAGIC) - live


_Row = TypeVar("_Row", CachedParse, CachedHead)


def _index(pack: _Pack, items: Iterable[tuple[int, int, str, _Row | None]]) -> tuple[dict[str, _Row], int]:
    """Apply a pack's records in order (``(start, end, path, parse)``; parse None: a removal)
    to ``pack.live`` and to the parses found: the last record of a path wins, a removal
    forgets it. Returns those parses by path and where the last record ends."""
    assert pack.live is not None
    found: dict[str, _Row] = {}
    end = len(MAGIC)
    for start, end, path, row in items:
        if row is None:
            found.pop(path, None)
            pack.live.pop(path, None)
        else:
            found[path] = row
            pack.live[path] = (start, end)
    return found, end


class ParsePack:
    """The parse cache of every repository: one pack file each under ``directory``.

    Thread-safe; the daemon writes on the store writer's thread and reads at a restore."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._packs: dict[str, _Pack] = {}
        self._lock = threading.Lock()

    def _pack(self, repo_id: str) -> _Pack:
        pack = self._packs.get(repo_id)
        if pack is None:
            pack = self._packs[repo_id] = _Pack(self.directory / f"{repo_file_stem(repo_id)}.pack")
        return pack

    # ------------------------------------------------------------------ reading

    def load(self, repo_id: str) -> list[CachedParse]:
        """Every cached parse of a repository (none when its pack is missing or unreadable)."""
        with self._lock:
            pack = self._pack(repo_id)
            found = self._read(pack)
            return list(found.values())

    def heads(self, repo_id: str) -> list[CachedHead]:
        """Every cached parse of a repository without its text (see the module docstring):
        the records' framing and small fields only; none when the pack is missing or
        unreadable. A tail whose framing is broken is cut off, as ``load`` does."""
        with self._lock:
            pack = self._pack(repo_id)
            pack.live, pack.size = {}, 0
            try:
                with pack.path.open("rb") as f:
                    length = os.fstat(f.fileno()).st_size
                    if length < len(MAGIC):
                        return self._not_a_pack(pack, length)
                    with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
                        if buf[: len(MAGIC)] != MAGIC:
                            return self._not_a_pack(pack, length)
                        found, end = _index(pack, heads(buf))
            except FileNotFoundError:
                return []
            except (OSError, ValueError) as exc:  # (mmap raises ValueError for an empty file)
                logger.warning("parse cache %s unreadable (%s): its files are parsed again", pack.path, exc)
                pack.live = None
                return []
            self._cut_tail(pack, end, length)
            return list(found.values())

    def _not_a_pack(self, pack: _Pack, length: int) -> list[CachedHead]:
        if length:
            logger.warning("parse cache %s is not a pack: its files are parsed again", pack.path)
        return []

    def text(self, repo_id: str, head: CachedHead) -> str | None:
        """The parse text of ``head`` (from ``heads``), read now and checked against its
        record's checksum; None when the pack no longer holds that parse (the file was parsed
        again or removed since). Raises ValueError when the record is damaged or cannot be
        read (the file is to be parsed again)."""
        with self._lock:
            pack = self._pack(repo_id)
            where = self._indexed(pack).get(head.path)
            if where is None:
                return None
            start, end = where
            try:
                fd = os.open(pack.path, os.O_RDONLY)
                try:
                    blob = os.pread(fd, end - start, start)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise ValueError(f"parse cache unreadable: {exc}") from exc
        rec = next(records(blob, 0), None)
        if rec is None or rec.parse is None or rec.end != len(blob) or rec.path != head.path:
            raise ValueError("its record in the parse cache is damaged")
        parse = rec.parse
        if (parse.content_hash, parse.version) != (head.content_hash, head.version):
            return None
        return parse.data

    def _read(self, pack: _Pack) -> dict[str, CachedParse]:
        """Read ``pack`` and index its live records; cut off a damaged tail."""
        pack.live, pack.size = {}, 0
        try:
            buf = pack.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            logger.warning("parse cache %s unreadable (%s): its files are parsed again", pack.path, exc)
            return {}
        if not buf.startswith(MAGIC):  # the next write starts the file again
            logger.warning("parse cache %s is not a pack: its files are parsed again", pack.path)
            return {}
        found, end = _index(pack, ((rec.start, rec.end, rec.path, rec.parse) for rec in records(buf)))
        self._cut_tail(pack, end, len(buf))
        return found

    def _cut_tail(self, pack: _Pack, end: int, length: int) -> None:
        """``pack``'s sound records end at ``end`` of its ``length`` bytes: drop the rest."""
        pack.size = end
        if end < length:
            logger.warning(
                "parse cache %s: %d damaged bytes at its end dropped (those files are parsed again)",
                pack.path,
                length - end,
            )
            self._truncate(pack, end)

    def prune(self, keep: Iterable[str]) -> list[Path]:
        """Delete the packs of repositories other than ``keep`` (removed while the daemon was
        down, or from a store that was replaced) and any half-written rewrite; returns them."""
        with self._lock:
            wanted = {self._pack(repo_id).path for repo_id in keep}
            gone: list[Path] = []
            for path in [*self.directory.glob("*.pack"), *self.directory.glob("*.tmp")]:
                if path not in wanted:
                    try:
                        path.unlink()
                        gone.append(path)
                    except OSError as exc:
                        logger.warning("cannot remove the stale parse cache %s: %s", path, exc)
            return gone

    def size_bytes(self) -> int:
        """The parse cache's size on disk."""
        try:
            return sum(p.stat().st_size for p in self.directory.glob("*.pack"))
        except OSError:
            return 0

    # ------------------------------------------------------------------ writing

    def put(
        self,
        repo_id: str,
        files: Sequence[tuple[FileRecord, ParsedFile]],
        texts: Mapping[str, str | None] | None = None,
    ) -> None:
        """Cache the parses of ``files``, replacing their previous ones; ``texts``: the encoded
        parse by path where the worker already encoded it."""
        if not files:
            return
        known = texts or {}
        version = parsecache.PARSER_VERSION
        rows = [
            CachedParse(
                rec.path,
                rec.size,
                rec.mtime_ns,
                rec.content_hash,
                version,
                known.get(rec.path) or parsecache.encode(parsed),
            )
            for rec, parsed in files
        ]
        self.put_rows(repo_id, rows)

    def put_rows(self, repo_id: str, rows: Sequence[CachedParse]) -> None:
        """Cache ``rows`` as they are, replacing their paths' previous ones."""
        if rows:
            self._append(repo_id, [(r.path, encode_put(r)) for r in rows])

    def remove(self, repo_id: str, paths: Iterable[str]) -> None:
        """Forget the cached parses of ``paths`` (removed files)."""
        paths = list(paths)
        if not paths:  # most batches remove nothing: no need to read the pack for its index
            return
        with self._lock:
            live = self._indexed(self._pack(repo_id))
            gone = [p for p in paths if p in live]
        if gone:
            self._append(repo_id, [(p, encode_remove(p)) for p in gone])

    def drop(self, repo_id: str) -> None:
        """Forget a repository's parse cache."""
        with self._lock:
            pack = self._pack(repo_id)
            try:
                pack.path.unlink(missing_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot remove the parse cache {pack.path}: {exc}") from exc
            del self._packs[repo_id]

    def _indexed(self, pack: _Pack) -> dict[str, tuple[int, int]]:
        if pack.live is None:
            self._read(pack)
        assert pack.live is not None
        return pack.live

    def _append(self, repo_id: str, items: list[tuple[str, bytes]]) -> None:
        with self._lock:
            pack = self._pack(repo_id)
            live = self._indexed(pack)
            if pack.size == 0:  # no file yet (or not a pack)
                self._rewrite(pack, [])
                live = self._indexed(pack)
            start = pos = pack.size
            try:
                with pack.path.open("r+b") as f:
                    f.seek(start)
                    for _path, blob in items:
                        f.write(blob)
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as exc:
                self._truncate(pack, start)  # a partial append would hide what follows it
                raise StoreError(f"cannot write the parse cache {pack.path}: {exc}") from exc
            for path, blob in items:
                if blob[_HEAD.size] == _PUT:
                    live[path] = (pos, pos + len(blob))
                else:
                    live.pop(path, None)
                pos += len(blob)
            pack.size = pos
            if pack.dead > max(COMPACT_MIN_DEAD, pack.size - pack.dead):
                self._compact(pack)

    def _truncate(self, pack: _Pack, size: int) -> None:
        try:
            os.truncate(pack.path, size)
            pack.size = size
        except OSError as exc:  # the next read cuts it off again
            logger.warning("cannot truncate the parse cache %s: %s", pack.path, exc)

    def _compact(self, pack: _Pack) -> None:
        """Rewrite ``pack`` with its live records only, copied one at a time (read whole, a
        0.9 M-line tree's 43 MB pack was in memory at once)."""
        live = sorted(self._indexed(pack).items(), key=lambda item: item[1][0])
        with pack.path.open("rb") as f:

            def blobs() -> Iterator[tuple[str, bytes]]:
                for path, (start, end) in live:
                    f.seek(start)
                    yield path, f.read(end - start)

            self._rewrite(pack, blobs())

    def _rewrite(self, pack: _Pack, blobs: Iterable[tuple[str, bytes]]) -> None:
        """Replace ``pack``'s file with one holding ``blobs`` (atomically: a crash leaves the
        old file or the new one)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = pack.path.with_suffix(".tmp")
        live: dict[str, tuple[int, int]] = {}
        pos = len(MAGIC)
        try:
            with tmp.open("wb") as f:
                f.write(MAGIC)
                for path, blob in blobs:
                    f.write(blob)
                    live[path] = (pos, pos + len(blob))
                    pos += len(blob)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, pack.path)
            dir_fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(f"cannot write the parse cache {pack.path}: {exc}") from exc
        pack.live, pack.size = live, pos
