"""The append-only journal: one JSON object per line, fsync'd before ``append`` returns.

The journal is the source of truth for observations. The embedded graph store can lose
committed rows after WAL damage (or raise after committing), so the daemon rebuilds what it
knows from here. This module is generic: a record is any JSON object; what an observation
means lives elsewhere.

On-disk format (UTF-8, ``\\n``-terminated lines)::

    {"kind":"observation","seq":1,"text":"..."}

Each line is ``json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
allow_nan=False)``, so a line never contains a raw newline. The journal adds ``seq``, a
strictly increasing integer (a ``seq`` key in the input is replaced).

Durability: the file is opened with ``O_APPEND``; ``append``/``append_many`` write the
whole batch, then ``os.fsync`` it before returning (and the directory is fsync'd when the
file is created), so a record whose ``append`` returned survives ``kill -9`` and power loss.

Recovery rules (applied when the journal is opened and again by ``replay``):

* A last line without its ``\\n`` is a torn write (the writer died inside ``append``, which
  therefore never returned). If it still parses as a complete JSON object (only the
  newline is missing) it is completed with ``\\n``; otherwise it is truncated away. Either
  way a warning is logged.
* A corrupt line elsewhere (bad UTF-8, bad JSON, not an object) is logged as an error with
  its line number and byte offset and skipped. It stays in the file (nothing is silently
  dropped) until ``compact`` rewrites the file.

Only one process may write a journal at a time (the daemon's store lock guarantees it);
inside that process the journal is thread-safe.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from graphmem.errors import FailedPrecondition, InvalidArgument, ResourceExhausted, StoreError

__all__ = [
    "SEQ_KEY",
    "CorruptLine",
    "Journal",
    "JournalScan",
    "encode_record",
    "quarantine_lines",
    "restorable",
    "take_restorable",
]

logger = logging.getLogger(__name__)

#: The field the journal adds to every record.
SEQ_KEY: Final = "seq"

_READ_CHUNK: Final = 64 * 1024
#: A write is refused up front when less than this is free on the journal's file system.
DEFAULT_MIN_FREE: Final = 8 * 1024 * 1024
_FULL_ERRNOS: Final = (errno.ENOSPC, errno.EDQUOT)
#: Longest line quoted back in a log message.
_PREVIEW: Final = 120


def encode_record(record: Mapping[str, object]) -> bytes:
    """The canonical line for ``record`` (without the trailing newline).

    Raises ``InvalidArgument`` when the record is not JSON-serialisable (including NaN and
    infinities, and strings with lone surrogates, which are not valid UTF-8).
    """
    try:
        text = json.dumps(dict(record), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return text.encode("utf-8")
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise InvalidArgument(f"record is not JSON-serialisable: {exc}") from exc


def _decode_line(raw: bytes) -> dict[str, object]:
    """Parse one line (without its newline); ``ValueError`` when it is not a JSON object."""
    obj = json.loads(raw.decode("utf-8"))  # UnicodeDecodeError/JSONDecodeError are ValueErrors
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _seq_of(record: Mapping[str, object]) -> int | None:
    seq = record.get(SEQ_KEY)
    if isinstance(seq, int) and not isinstance(seq, bool):
        return seq
    return None


def _preview(raw: bytes) -> str:
    text = raw[:_PREVIEW].decode("utf-8", errors="replace")
    return text + ("…" if len(raw) > _PREVIEW else "")


@dataclass(frozen=True, slots=True)
class CorruptLine:
    """A journal line that is not a JSON object (bad UTF-8, bad JSON, bit flips)."""

    number: int  # 1-based line number in the file
    offset: int  # byte offset of the line
    raw: bytes
    reason: str


@dataclass(frozen=True, slots=True)
class JournalScan:
    """Every readable record of a journal, and the lines that could not be read."""

    records: list[dict[str, object]]
    corrupt: list[CorruptLine]
    existed: bool


def quarantine_lines(path: Path, journal_path: Path, lines: Iterable[CorruptLine | tuple[int, str, str]]) -> int:
    """Append damaged journal lines (or rejected records as ``(seq, reason, json)``) to the
    side file ``path``, one JSON object each, fsync'd; return how many were written.

    Nothing is lost: the raw bytes are kept (as text when they decode, else as hex)."""
    out: list[bytes] = []
    now = time.time()
    for item in lines:
        if isinstance(item, CorruptLine):
            try:
                text: dict[str, object] = {"text": item.raw.decode("utf-8")}
            except UnicodeDecodeError:
                text = {"hex": item.raw.hex()}
            rec = {
                "journal": str(journal_path),
                "line": item.number,
                "offset": item.offset,
                "reason": item.reason,
                "quarantined_at": now,
                **text,
            }
        else:
            seq, reason, raw = item
            rec = {"journal": str(journal_path), "seq": seq, "reason": reason, "quarantined_at": now, "text": raw}
        out.append(json.dumps(rec, ensure_ascii=True, sort_keys=True).encode() + b"\n")
    if not out:
        return 0
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        os.write(fd, b"".join(out))
        os.fsync(fd)
    finally:
        os.close(fd)
    return len(out)


def restorable(
    lines: Iterable[bytes], valid: Callable[[Mapping[str, Any]], bool]
) -> tuple[list[dict[str, Any]], list[bytes]]:
    """Split the quarantine file's ``lines``: the journal records quarantined as invalid that
    ``valid`` accepts now (a limit was too tight, then raised), in file order; and the lines
    that stay (damaged bytes, records still invalid, anything unreadable)."""
    back: list[dict[str, Any]] = []
    stay: list[bytes] = []
    for line in lines:
        try:
            entry = json.loads(line)
            record = json.loads(entry["text"]) if "seq" in entry else None
        except (ValueError, TypeError, KeyError):
            record = None
        if isinstance(record, dict) and valid(record):
            back.append(record)
        else:
            stay.append(line)
    return back, stay


def take_restorable(
    path: Path, valid: Callable[[Mapping[str, Any]], bool]
) -> tuple[list[dict[str, Any]], Callable[[], None]]:
    """The records of the quarantine file at ``path`` that ``valid`` accepts now (``restorable``),
    and a function that rewrites the file without them, atomically: call it once they are
    in the journal (until then they stay quarantined too: restoring twice is harmless, the
    journal's newer records fold over them)."""
    try:
        lines = [ln for ln in path.read_bytes().splitlines() if ln.strip()]
    except FileNotFoundError:
        return [], lambda: None
    back, stay = restorable(lines, valid)

    def done() -> None:
        if not back:
            return
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(b"".join(ln + b"\n" for ln in stay))
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)
        _fsync_dir(path.parent)

    return back, done


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    """An append-only JSON-lines file. See the module docstring for format and guarantees."""

    def __init__(
        self,
        path: Path,
        *,
        min_free_bytes: int = DEFAULT_MIN_FREE,
        inject_enospc: Callable[[], bool] | None = None,
    ) -> None:
        self._path = Path(path)
        self._min_free = min_free_bytes
        #: Tests: when it returns True, the next write fails with ENOSPC as on a full disk.
        self._inject_enospc = inject_enospc
        #: Why the last write was refused for lack of space ("" when writes go through).
        self._full_reason = ""
        self._full_sticky = False
        #: Whether the file existed when the journal was opened (a missing journal is reported).
        self.existed_at_open = self._path.exists()
        self._lock = threading.Lock()
        #: The last sequence number handed out, or None until the file has been scanned
        #: (lazily: by a complete ``replay`` or by the first append).
        self._last_seq: int | None = None
        self._fd: int | None = None
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._fd = self._open_locked()
            try:
                self._repair_tail_locked()
            except BaseException:
                os.close(self._fd)
                self._fd = None
                raise

    # ------------------------------------------------------------------ lifecycle

    @property
    def path(self) -> Path:
        """The journal file."""
        return self._path

    def close(self) -> None:
        """Close the journal file (idempotent)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _open_locked(self) -> int:
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        try:
            fd = os.open(self._path, flags | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return os.open(self._path, flags)
        # A new file: make its directory entry durable too.
        try:
            os.fsync(fd)
            _fsync_dir(self._path.parent)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _require_fd(self) -> int:
        if self._fd is None:
            raise ValueError(f"journal {self._path} is closed")
        return self._fd

    # ------------------------------------------------------------------ writing

    def append(self, record: Mapping[str, object]) -> int:
        """Append one record durably; return its sequence number."""
        return self.append_many([record])[0]

    def append_many(self, records: Iterable[Mapping[str, object]]) -> list[int]:
        """Append several records with one write and one fsync; return their sequence numbers.

        The batch is not atomic across a crash (a prefix of it may survive), but when this
        returns every record in it is durable. Nothing is written if any record fails to
        serialise (``InvalidArgument``).
        """
        batch = list(records)
        if not batch:
            return []
        with self._lock:
            fd = self._require_fd()
            last = self._ensure_last_seq_locked()
            seqs = list(range(last + 1, last + 1 + len(batch)))
            lines = [encode_record({**rec, SEQ_KEY: seq}) for rec, seq in zip(batch, seqs, strict=True)]
            data = b"".join(line + b"\n" for line in lines)
            self._check_space_locked(len(data))
            try:
                self._write_durably_locked(fd, data)
            except OSError as exc:
                if exc.errno in _FULL_ERRNOS:
                    self._full_reason = f"disk full: the journal {self._path} cannot grow ({exc.strerror})"
                    self._full_sticky = True  # until a write succeeds
                    raise ResourceExhausted(f"{self._full_reason}; nothing was saved, free space and retry") from exc
                raise StoreError(f"the journal {self._path} could not be written: {exc}") from exc
            self._last_seq = seqs[-1]
            if self._full_reason:
                logger.warning("journal %s: writes go through again (%s is over)", self._path, self._full_reason)
            self._full_reason = ""
            self._full_sticky = False
            return seqs

    def _free_bytes(self) -> int:
        st = os.statvfs(self._path.parent)
        return st.f_bavail * st.f_frsize

    def _check_space_locked(self, need: int) -> None:
        """Refuse a write up front (fast, nothing written) when the file system is nearly full."""
        try:
            free = self._free_bytes()
        except OSError:
            return
        if free < self._min_free + need:
            self._full_reason = (
                f"disk full: {free // 1024} KiB free where the journal {self._path} lives "
                f"(at least {self._min_free // 1024} KiB are kept in reserve)"
            )
            raise ResourceExhausted(f"{self._full_reason}; nothing was saved, free space and retry")

    def space_problem(self) -> str:
        """Why writes are being refused for lack of space, or "" (re-checked on each call, so
        it clears by itself once space returns)."""
        with self._lock:
            if not self._full_reason or self._full_sticky:
                return self._full_reason
            try:
                if self._free_bytes() >= self._min_free + _READ_CHUNK:
                    self._full_reason = ""
            except OSError:
                pass
            return self._full_reason

    def _write_durably_locked(self, fd: int, data: bytes) -> None:
        start = os.fstat(fd).st_size
        try:
            if self._inject_enospc is not None and self._inject_enospc():
                os.write(fd, data[: len(data) // 2])  # a partial write, as a full disk leaves it
                raise OSError(errno.ENOSPC, "No space left on device (injected)")
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        except OSError:
            # Best effort: leave no partial line behind (e.g. ENOSPC mid-write), so the
            # next append does not glue onto a torn line.
            logger.exception("journal %s: write failed, truncating back to %d bytes", self._path, start)
            try:
                os.ftruncate(fd, start)
                os.fsync(fd)
            except OSError:
                logger.exception("journal %s: could not truncate after a failed write", self._path)
            raise

    @property
    def last_seq(self) -> int:
        """The last sequence number handed out (0 for an empty journal)."""
        with self._lock:
            self._require_fd()
            return self._ensure_last_seq_locked()

    def compact(self, records: Iterable[Mapping[str, object]], *, expected_last_seq: int | None = None) -> int:
        """Atomically replace the journal's content with ``records``; return how many.

        ``records`` is typically a filtered ``replay()``; it is read completely before the
        journal is locked. To make sure no append slipped in between reading and compacting
        (it would be lost), pass the ``last_seq`` seen when reading as ``expected_last_seq``:
        ``FailedPrecondition`` is raised if the journal has moved on since.

        Records keep their ``seq`` when they have one (it must be strictly increasing);
        records without one get new numbers after everything handed out so far. Numbers are
        never reused within this process (after a restart the next number follows the
        highest one left in the file). The new content is written to a temporary file in
        the same directory, fsync'd, renamed over the journal, and the directory is fsync'd.
        """
        batch = list(records)
        with self._lock:
            self._require_fd()
            last = self._ensure_last_seq_locked()
            if expected_last_seq is not None and expected_last_seq != last:
                raise FailedPrecondition(
                    f"journal changed during compaction: last seq is {last}, expected {expected_last_seq}"
                )
            prev = 0
            lines: list[bytes] = []
            pending: list[Mapping[str, object]] = []
            for rec in batch:
                seq = _seq_of(rec)
                if seq is None:
                    pending.append(rec)
                    continue
                if seq <= prev:
                    raise InvalidArgument(f"compact: seq {seq} is not greater than the previous {prev}")
                prev = seq
                lines.append(encode_record(rec))
            top = max(last, prev)
            for rec in pending:
                top += 1
                lines.append(encode_record({**rec, SEQ_KEY: top}))

            fd_tmp, tmp_name = tempfile.mkstemp(dir=self._path.parent, prefix=f".{self._path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd_tmp, "wb") as tmp:
                    for line in lines:
                        tmp.write(line)
                        tmp.write(b"\n")
                    tmp.flush()
                    os.fsync(tmp.fileno())
                os.chmod(tmp_name, 0o600)
                os.replace(tmp_name, self._path)
            except BaseException:
                Path(tmp_name).unlink(missing_ok=True)
                raise
            _fsync_dir(self._path.parent)
            old_fd = self._fd
            self._fd = self._open_locked()
            if old_fd is not None:
                os.close(old_fd)
            self._last_seq = top
            logger.info("journal %s compacted to %d records", self._path, len(lines))
            return len(lines)

    # ------------------------------------------------------------------ reading

    def replay(self) -> Iterator[dict[str, object]]:
        """Yield every record in file order (a snapshot: appends made meanwhile are not seen).

        A torn last line is repaired or truncated (logged); corrupt lines are logged and
        skipped. Safe to call while other threads append.
        """
        with self._lock:
            self._require_fd()
            self._repair_tail_locked()
            size = os.fstat(self._require_fd()).st_size
        max_seq = 0
        for record in self._iter_records(size):
            seq = _seq_of(record)
            if seq is not None and seq > max_seq:
                max_seq = seq
            yield record
        with self._lock:
            if self._last_seq is None:
                self._last_seq = max_seq

    def scan(self) -> JournalScan:
        """Every readable record and every corrupt line (with its number and offset)."""
        with self._lock:
            self._require_fd()
            self._repair_tail_locked()
            size = os.fstat(self._require_fd()).st_size
        corrupt: list[CorruptLine] = []
        records = list(self._iter_records(size, corrupt))
        with self._lock:
            if self._last_seq is None:
                self._last_seq = max((_seq_of(r) or 0 for r in records), default=0)
        return JournalScan(records, corrupt, self.existed_at_open)

    def _iter_records(self, size: int, corrupt: list[CorruptLine] | None = None) -> Iterator[dict[str, object]]:
        """Records among the first ``size`` bytes (which end with a newline); corrupt lines
        are logged and, when ``corrupt`` is given, collected there."""
        with open(self._path, "rb") as f:
            offset = 0
            number = 0
            while offset < size:
                raw = f.readline(size - offset)
                if not raw:  # the file shrank under us (compacted): stop at what we have
                    break
                number += 1
                line_offset = offset
                offset += len(raw)
                body = raw.rstrip(b"\n")
                if not body.strip():
                    continue
                try:
                    yield _decode_line(body)
                except ValueError as exc:
                    if corrupt is not None:
                        corrupt.append(CorruptLine(number, line_offset, bytes(body), str(exc)))
                    logger.error(
                        "journal %s: skipping corrupt line %d at byte %d (%s): %r",
                        self._path,
                        number,
                        line_offset,
                        exc,
                        _preview(body),
                    )

    def _ensure_last_seq_locked(self) -> int:
        if self._last_seq is None:
            size = os.fstat(self._require_fd()).st_size
            self._last_seq = max((_seq_of(r) or 0 for r in self._iter_records(size)), default=0)
        return self._last_seq

    def _repair_tail_locked(self) -> None:
        """Complete or truncate a last line that lacks its newline (a torn write)."""
        fd = self._require_fd()
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return
        # Find the start of the last line, reading backwards chunk by chunk.
        start = 0
        pos = size
        while pos > 0:
            lo = max(0, pos - _READ_CHUNK)
            chunk = os.pread(fd, pos - lo, lo)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                start = lo + idx + 1
                break
            pos = lo
        tail = os.pread(fd, size - start, start)
        try:
            _decode_line(tail)
        except ValueError:
            logger.warning(
                "journal %s: truncating torn last line (%d bytes at byte %d): %r",
                self._path,
                len(tail),
                start,
                _preview(tail),
            )
            os.ftruncate(fd, start)
        else:
            logger.warning("journal %s: last line at byte %d lacked its newline; completing it", self._path, start)
            os.write(fd, b"\n")
        os.fsync(fd)
