"""Parsing in long-lived worker processes.

tree-sitter holds the GIL while it parses and can crash on pathological input, so the
daemon never parses in its own threads: a :class:`ParsePool` owns ``workers`` processes
started with the *forkserver* context (*spawn* where forkserver is unavailable; never
*fork*, the daemon runs gRPC threads). Each worker reads its file itself (bytes are never
shipped to it), checks size and binary-ness, hashes the bytes and calls
``graphmemd.ingest.parsing.parse_source``; the :class:`ParseOutcome` travels back over a
``multiprocessing`` pipe. :meth:`ParsePool.read_examples` sends knowledge files instead: the
worker parses their code examples (``parsing.examples.example_units``) and returns the units.

Concurrency: one dispatcher thread owns the workers and their pipes. Callers of
:meth:`ParsePool.parse_many`/:meth:`ParsePool.parse_one` from any number of threads submit
jobs to it and read their own results from a queue; the dispatcher hands out the files of
all active jobs round-robin, so a one-file re-parse from the watcher is not stuck behind
a cold index. Each worker holds up to two files (the one it parses and the next), so it
never idles waiting for a round trip. The files of a job are handed out largest first,
which keeps all workers busy until the end of a batch.

Failure handling: a worker acknowledges each file when it starts on it. A worker still on
a file after ``timeout_s`` of its own CPU time is killed and respawned, and the file becomes
a ``SkippedFile("parse timed out after Ns")``. Its CPU time, not the clock's: a worker niced
below a busy machine's other work can wait longer than that for a CPU on a small file, which
is no reason to skip it (where ``/proc`` cannot tell a process's CPU time, and after
``HARD_TIMEOUT_FACTOR`` times the timeout on the clock whatever its CPU, the clock decides).
A worker that dies (segfault, abort, kill, ``RLIMIT_AS``) is respawned, and the file it had
started is skipped with the exit code or signal; files sent to it but not started are handed
out again. A ``MemoryError`` raised inside the worker skips the file and retires the worker
(a fresh one replaces it). The pool keeps serving afterwards.

Idle workers: with ``idle_s`` set (the daemon's ``GRAPHMEM_PARSE_IDLE_S``, 1 s by default),
once no file has been pending or in flight for that long the workers that parsed exit (a
worker that parsed a large tree holds tens of MB it no longer needs, and the daemon's own
peak comes right after the parsing: the store write of a large batch), and one worker stays
or takes their place: the *standby*. The next file goes to it at once; the other workers
start again only when more files are waiting than it takes. The standby is, in this order:

* a worker that parsed only live edits (jobs of at most ``LIVE_FILES`` files, so never
  niced) and whose peak RSS grew at most ``STANDBY_KEEP_MB`` since its first file (the
  worker reports it with each result): it stays, warm. At an agent's pace (an edit every
  few seconds, the workers idle in between) one such worker parses every edit, as a busy
  pool's would, instead of a new process each time;
* else a worker that parsed nothing (at most one is kept);
* else a fresh one, forked from the forkserver (~6 ms) and told to compile the queries of
  the languages the pool has parsed (Python's take 50-120 ms of CPU, which a fresh worker
  would otherwise spend on the first file: an edit's re-parse, which an agent's hook waits
  for).

A live edit's file is parsed incrementally: each worker keeps the syntax trees of the last
``LIVE_TREE_FILES`` files of live jobs (at most ``LIVE_TREE_BYTES``, estimated), and the next
version of one of them is re-parsed from its tree (``parsing.parser.LiveTrees``: the same
``ParsedFile`` as a cold parse; tree-sitter's parse of ``_pydecimal.py``, 40 ms of CPU, becomes
~5). A bulk job's file neither uses nor fills them, and a worker drops them when given one.
The kept trees count in the worker's RSS growth, so a kept standby still holds at most
``STANDBY_KEEP_MB`` more than a fresh one.

A fresh worker's first parse of a file costs ~1-4 ms (5-10 %) more CPU than the same parse
on a worker that has parsed before (first-touch page faults as its heap grows, bytecode
specialisation); a standby that is kept saves that and the new process's queries.

Priority: a worker parses below the daemon (``os.nice(WORKER_NICENESS)``, so that a health
check or a query is not queued behind a large tree's parse), from its first file of a job
of more than ``LIVE_FILES`` files on (a process cannot raise its priority again, so it
stays niced until it exits). A live edit's few files are parsed at the daemon's priority:
someone waits for them, and they take milliseconds.

Like any spawn/forkserver user, the program's ``__main__`` module must be importable
without side effects (``if __name__ == "__main__":`` guard): workers import it. The
forkserver preload list is set to this module (process-wide), so workers fork with the
grammars already loaded and a respawn costs milliseconds.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import multiprocessing
import os
import queue
import resource
import select
import selectors
import signal
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext, SpawnContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from graphmem.errors import FailedPrecondition, InvalidArgument

from graphmemd.graph.model import Language, ParsedFile, SkippedFile
from graphmemd.ingest import parsecache
from graphmemd.ingest.knowledge.model import Unit
from graphmemd.ingest.knowledge.read import decode
from graphmemd.ingest.parsing import LiveTrees, bare_parse, language_for_path, parse_source, warm
from graphmemd.ingest.parsing.examples import example_units
from graphmemd.runtime.faults import NO_FAULTS, Faults
from graphmemd.runtime.supervisor import name_os_thread

__all__ = ["BINARY_SNIFF_BYTES", "DEFAULT_MAX_FILE_SIZE", "ParseOutcome", "ParsePool", "content_hash", "hashed_file"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_FILE_SIZE: Final = 2 * 1024 * 1024
#: A NUL byte in this many leading bytes marks a file as binary.
BINARY_SNIFF_BYTES: Final = 8192

#: how much lower than the daemon the parse workers run (``os.nice``) once given a bulk job
WORKER_NICENESS: Final = 5
#: a job of at most this many files is a live edit's: parsed at the daemon's priority
LIVE_FILES: Final = 4
#: an idle pool keeps a worker that parsed only live edits while its peak RSS grew at most this
#: much since its first file (a 100 KB Python file grows a worker ~6 MB, a 1.5 MB one ~36 MB)
STANDBY_KEEP_MB: Final = 16
#: a worker keeps the syntax trees of the last this many files of live jobs, to re-parse their
#: next version incrementally (``parsing.parser.LiveTrees``) ...
LIVE_TREE_FILES: Final = 8
#: ... and at most this many bytes of them (estimated; a 229 KB Python file's tree ~4 MB): well
#: inside ``STANDBY_KEEP_MB`` with a large file's parse on top
LIVE_TREE_BYTES: Final = 6 * 1024 * 1024
_PER_WORKER_INFLIGHT: Final = 2
_STARTUP_TIMEOUT_S: Final = 60.0
_STOP_GRACE_S: Final = 2.0
_MAX_STARTUP_FAILURES: Final = 3
_RESPAWN_BACKOFF_S: Final = 1.0

# Messages worker -> dispatcher (tuples, first item is the kind).
_MSG_READY: Final = 0  # (READY, pid)
_MSG_STARTED: Final = 1  # (STARTED, task_id, the worker's CPU seconds then)
_MSG_RESULT: Final = 2  # (RESULT, task_id, encoded ParseOutcome (_encode_outcome), peak RSS growth KiB, worker_ms,
#                          re-parsed incrementally)
_MSG_RETIRE: Final = 3  # (RETIRE,) the worker exits after this message
_MSG_WARMED: Final = 4  # (WARMED, tuple of Language) the queries the worker compiled when told to

_EXIT_MEMORY_ERROR: Final = 3

# Message dispatcher -> worker besides a task and None (stop): compile these languages' queries.
_MSG_WARM: Final = "warm"  # (WARM, tuple of Language)


def content_hash(data: bytes) -> str:
    """The content hash stored for a file: blake2b (64-byte digest), hex."""
    return hashlib.blake2b(data).hexdigest()


def hashed_file(path: Path, max_file_size: int) -> tuple[str, int] | None:
    """A file's (``content_hash``, size) as read now; None when it is over ``max_file_size``
    or cannot be read (the parse workers report either when they get it)."""
    try:
        if path.stat().st_size > max_file_size:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return content_hash(data), len(data)


@dataclass(frozen=True, slots=True)
class ParseOutcome:
    """What became of one file.

    Exactly one of ``parsed`` and ``skipped`` is set, except after a bare parse
    (``parse_many(bare=True)``), where both are None on success. ``content_hash`` is the
    blake2b of the bytes (see :func:`content_hash`) whenever the worker read and hashed
    them: parsed files and binary files; None for bare parses and files skipped before or
    while reading, or lost to a timeout or a worker crash. ``size`` is the byte size when
    known (also for files over the limit), else 0.
    """

    path: str
    parsed: ParsedFile | None
    content_hash: str | None
    size: int
    skipped: SkippedFile | None
    #: ``parsed`` as the parse cache's text (``parsecache.encode``), when it came from a worker
    cache: str | None = None
    #: a knowledge file's code examples that use names (``ParsePool.read_examples``)
    examples: tuple[Unit, ...] | None = None
    #: (wall, CPU) milliseconds the worker spent reading, parsing and encoding it (None: not
    #: a worker's); the daemon's log of a watcher batch sums them (``BatchTiming``)
    worker_ms: tuple[float, float] | None = field(default=None, compare=False)
    #: the worker re-parsed it incrementally from the tree it kept of the file's previous
    #: version (a live edit's, ``LiveTrees``); the daemon's log of a watcher batch counts them
    incremental: bool = field(default=False, compare=False)


# --------------------------------------------------------------------------- wire format

# A parse travels as the parse cache's JSON text (``parsecache.encode``): the worker encodes
# it once, the dispatcher decodes it, and the store keeps the same text as the file's cached
# parse, so the daemon's single-threaded store write never encodes it again. (Pickled
# dataclasses cost ~5x more in the worker; the JSON text decodes as fast as pickled tuples.)
_Encoded = tuple[Any, ...]


def _encode_outcome(outcome: ParseOutcome) -> _Encoded:
    text = outcome.cache
    if outcome.parsed is not None and text is None:
        text = parsecache.encode(outcome.parsed)
    reason = outcome.skipped.reason if outcome.skipped is not None else None
    return (outcome.path, text, outcome.content_hash, outcome.size, reason, outcome.examples)


def _decode_outcome(
    row: _Encoded, worker_ms: tuple[float, float] | None = None, incremental: bool = False
) -> ParseOutcome:
    path, text, digest, size, reason, examples = row
    return ParseOutcome(
        path,
        parsecache.decode(text) if text is not None else None,
        digest,
        size,
        SkippedFile(path, reason) if reason is not None else None,
        text,
        examples,
        worker_ms,
        incremental,
    )


# --------------------------------------------------------------------------- worker side


def _apply_memory_limit(memory_limit_mb: int) -> None:
    limit = memory_limit_mb * 1024 * 1024
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError) as exc:
        logger.warning("parse worker %d: cannot set RLIMIT_AS to %d MB: %s", os.getpid(), memory_limit_mb, exc)


def _read_file(rel_path: str, abs_path: str, max_file_size: int) -> tuple[bytes | None, ParseOutcome | None]:
    """The file's bytes, or the outcome explaining why there are none."""
    try:
        fd = os.open(abs_path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, _skip(rel_path, "file not found")
    except OSError as exc:
        return None, _skip(rel_path, f"cannot read file: {exc.strerror or exc}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, _skip(rel_path, "not a regular file")
        if st.st_size > max_file_size:
            return None, _skip(
                rel_path, f"file is {st.st_size} bytes, over the {max_file_size}-byte limit", size=st.st_size
            )
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_file_size + 1)
    except OSError as exc:
        return None, _skip(rel_path, f"cannot read file: {exc.strerror or exc}")
    finally:
        os.close(fd)
    if len(data) > max_file_size:  # grew since fstat
        return None, _skip(rel_path, f"file is over the {max_file_size}-byte limit", size=len(data))
    return data, None


def _skip(rel_path: str, reason: str, *, size: int = 0, digest: str | None = None) -> ParseOutcome:
    return ParseOutcome(rel_path, None, digest, size, SkippedFile(rel_path, reason))


class _Mode(str, Enum):
    """What a worker does with a file."""

    PARSE = "parse"  # parse_source: symbols, references, fingerprints
    BARE = "bare"  # parse only (the benchmark's floor)
    EXAMPLES = "examples"  # a knowledge file: parse its code examples (``example_units``)


def _examples(rel_path: str, abs_path: str, max_file_size: int) -> ParseOutcome:
    data, failed = _read_file(rel_path, abs_path, max_file_size)
    if failed is not None:
        return failed
    assert data is not None
    return ParseOutcome(rel_path, None, None, len(data), None, examples=tuple(example_units(rel_path, decode(data))))


def _process(
    rel_path: str, abs_path: str, mode: _Mode, max_file_size: int, trees: LiveTrees | None = None
) -> ParseOutcome:
    if mode is _Mode.EXAMPLES:
        return _examples(rel_path, abs_path, max_file_size)
    bare = mode is _Mode.BARE
    language: Language | None = language_for_path(rel_path)
    if language is None:
        return _skip(rel_path, "unsupported file type")
    data, failed = _read_file(rel_path, abs_path, max_file_size)
    if failed is not None:
        return failed
    assert data is not None
    if bare:
        bare_parse(data, language)
        return ParseOutcome(rel_path, None, None, len(data), None)
    digest = content_hash(data)
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return _skip(rel_path, "binary file (NUL byte in the first 8 KiB)", size=len(data), digest=digest)
    parsed = parse_source(rel_path, data, language, trees=trees)
    return ParseOutcome(rel_path, parsed, digest, len(data), None)


def _worker_main(conn: Connection, memory_limit_mb: int | None, max_file_size: int) -> None:
    """Entry point of a worker process: parse files until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the daemon decides when workers stop
    if memory_limit_mb is not None:
        _apply_memory_limit(memory_limit_mb)
    conn.send((_MSG_READY, os.getpid()))
    niced = False
    base_kb: int | None = None  # peak RSS before the first file
    trees = LiveTrees(LIVE_TREE_FILES, LIVE_TREE_BYTES)  # live jobs' files only; dropped at a bulk job
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        if message[0] == _MSG_WARM:
            conn.send((_MSG_WARMED, _warm(conn, message[1])))
            continue
        task_id, rel_path, abs_path, mode, bulk = message
        if bulk and not niced:
            # A large tree's parse is background work: below the daemon's threads, so that a
            # health check or a query is not queued behind the workers for a CPU.
            with contextlib.suppress(OSError):
                os.nice(WORKER_NICENESS)
            niced = True
        conn.send((_MSG_STARTED, task_id, time.process_time()))
        base_kb = _peak_rss_kb() if base_kb is None else base_kb
        started, cpu = time.monotonic(), time.process_time()
        try:
            if bulk:
                trees.clear()  # a bulk job's worker holds no live tree (nor does it fill them)
            reused = trees.reused
            outcome = _process(rel_path, abs_path, mode, max_file_size, None if bulk else trees)
        except MemoryError:
            outcome = _skip(rel_path, "out of memory while parsing")
            conn.send((_MSG_RESULT, task_id, _encode_outcome(outcome), 0, None, False))
            conn.send((_MSG_RETIRE,))
            os._exit(_EXIT_MEMORY_ERROR)  # the heap may be in a bad state: leave at once
        except Exception as exc:
            # parse_source promises not to raise; if it does, report the file as skipped
            # (with the traceback logged here) instead of losing the worker.
            logger.exception("parse worker: parsing %s failed", rel_path)
            outcome = _skip(rel_path, f"parser failed: {type(exc).__name__}: {str(exc)[:200]}")
        encoded = _encode_outcome(outcome)
        took = ((time.monotonic() - started) * 1000, (time.process_time() - cpu) * 1000)
        conn.send((_MSG_RESULT, task_id, encoded, _peak_rss_kb() - base_kb, took, trees.reused > reused))


def _peak_rss_kb() -> int:
    """This process's peak resident set size so far, in KiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # (bytes there, KiB on Linux)


def _warm(conn: Connection, languages: Sequence[Language]) -> tuple[Language, ...]:
    """Compile ``languages``' queries, one after the other until a file or a stop arrives (it
    would wait behind them); the languages compiled."""
    done: list[Language] = []
    for language in languages:
        if conn.poll():
            break
        warm(language)
        done.append(language)
    return tuple(done)


# --------------------------------------------------------------------------- pool side


class _Closed:
    """Queue marker: the pool closed before the job finished."""


_CLOSED: Final = _Closed()


@dataclass(eq=False)
class _Job:
    pending: deque[_Task]
    #: number of files the caller waits for
    total: int
    #: files neither delivered nor dropped (owned by the dispatcher thread)
    outstanding: int
    results: queue.SimpleQueue[ParseOutcome | _Closed] = field(default_factory=queue.SimpleQueue)
    cancelled: bool = False


@dataclass(eq=False)
class _Task:
    job: _Job
    rel_path: str
    abs_path: str
    mode: _Mode
    task_id: int = 0


@dataclass(eq=False)
class _Worker:
    slot: int
    process: BaseProcess
    conn: Connection
    inflight: deque[_Task] = field(default_factory=deque)
    #: monotonic time the worker acknowledged starting inflight[0], or None if not started
    started_at: float | None = None
    #: the worker's CPU seconds then (its ``process_time``), and when it is judged next (0.0:
    #: when its timeout is up on the clock, ``_deadline``)
    started_cpu: float = 0.0
    deadline: float = 0.0
    #: zero-timeout readability check of ``conn`` (Connection.poll builds a selector per call)
    poller: select.poll = field(default_factory=select.poll)
    #: given no file yet (an idle pool keeps one such worker: the standby)
    fresh: bool = True
    #: the languages whose queries it compiled when told to (a standby)
    warmed: tuple[Language, ...] = ()
    #: the languages of the files it was given
    parsed: set[Language] = field(default_factory=set)
    #: given a file of a bulk job (more than ``LIVE_FILES`` files): it niced itself
    bulk: bool = False
    #: how much its peak RSS grew since its first file (KiB), as of its last result
    grown_kb: int = 0

    def readable(self) -> bool:
        return bool(self.poller.poll(0))


def _describe_exit(exitcode: int | None) -> str:
    if exitcode is None:
        return "parse worker stopped responding"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = str(-exitcode)
        return f"parse worker died with signal {name}"
    if exitcode == _EXIT_MEMORY_ERROR:
        return "parse worker ran out of memory"
    return f"parse worker exited with code {exitcode}"


def _make_context(start_method: str | None) -> SpawnContext | ForkServerContext:
    if start_method == "spawn" or (
        start_method is None and "forkserver" not in multiprocessing.get_all_start_methods()
    ):
        return multiprocessing.get_context("spawn")
    if start_method in (None, "forkserver"):
        ctx = multiprocessing.get_context("forkserver")
        # Workers fork from a server that has the parsers loaded already (fast respawn), and
        # the Markdown reader their code examples need (the daemon imports it only when it
        # reads a knowledge file). The preload list is process-wide; it only takes effect if
        # the forkserver has not been started yet.
        ctx.set_forkserver_preload([__name__, "markdown_it"])
        return ctx
    raise InvalidArgument(f"start_method must be 'spawn' or 'forkserver', got {start_method!r}")


def _spawn(
    ctx: SpawnContext | ForkServerContext, slot: int, memory_limit_mb: int | None, max_file_size: int
) -> _Worker:
    """Start one parse worker process (not yet known to be ready)."""
    parent_conn, child_conn = ctx.Pipe(duplex=True)
    process = ctx.Process(
        target=_worker_main,
        args=(child_conn, memory_limit_mb, max_file_size),
        name=f"graphmem-parse-{slot}",
        daemon=True,
    )
    try:
        process.start()
    finally:
        child_conn.close()
    worker = _Worker(slot, process, parent_conn)
    worker.poller.register(parent_conn.fileno(), select.POLLIN)
    return worker


def _await_ready(worker: _Worker, deadline: float) -> bool:
    """Whether ``worker`` says it is ready before ``deadline`` (False: it failed or hung)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            logger.error("parse worker %s did not start in %.0fs", worker.process.pid, _STARTUP_TIMEOUT_S)
            return False
        ready = wait([worker.conn, worker.process.sentinel], remaining)
        if worker.conn in ready:
            try:
                message = worker.conn.recv()
            except (EOFError, OSError):
                message = None
            if isinstance(message, tuple) and message[0] == _MSG_READY:
                return True
        if ready:
            worker.process.join(_STOP_GRACE_S)
            logger.error("parse worker failed to start: %s", _describe_exit(worker.process.exitcode))
            return False


#: A worker on one file this many times the timeout on the clock is killed whatever its CPU
#: time (stopped, or stuck waiting on something that is not a CPU).
HARD_TIMEOUT_FACTOR: Final = 6.0
#: After a deadline found the worker short of CPU, it is judged again at least this much later.
_RECHECK_S: Final = 0.25
_TICK_S: Final = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


def _cpu_seconds(pid: int | None) -> float | None:
    """The CPU seconds (user + system) process ``pid`` has used, from ``/proc``; None where
    that cannot be read (not Linux, the process gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields_ = f.read().rsplit(b")", 1)[1].split()
        return (int(fields_[11]) + int(fields_[12])) * _TICK_S
    except (OSError, IndexError, ValueError):
        return None


def _deadline(worker: _Worker, timeout_s: float) -> float:
    """When ``worker`` (on a file) is judged next."""
    assert worker.started_at is not None
    return worker.deadline or worker.started_at + timeout_s


def _timed_out(worker: _Worker, timeout_s: float, now: float) -> bool:
    """Whether ``worker``, still on its file at ``now``, is to be killed for it."""
    return worker.started_at is not None and now >= _deadline(worker, timeout_s) and not _waited_for_cpu(
        worker, timeout_s, now
    )


def _waited_for_cpu(worker: _Worker, timeout_s: float, now: float) -> bool:
    """At ``worker``'s deadline: whether it has used less than its timeout of CPU time on its
    file (a busy machine kept it waiting), and so is given until it could have (its deadline
    moved on); False when it must be killed (its CPU time is up, cannot be read, or the clock
    passed ``HARD_TIMEOUT_FACTOR`` times the timeout)."""
    assert worker.started_at is not None
    if now - worker.started_at >= HARD_TIMEOUT_FACTOR * timeout_s:
        return False
    cpu = _cpu_seconds(worker.process.pid)
    used = None if cpu is None else cpu - worker.started_cpu
    if used is None or used >= timeout_s:
        return False
    worker.deadline = now + max(timeout_s - used, _RECHECK_S)
    logger.debug("parse worker %s: %.1fs on one file but %.2f CPU-s (the machine is busy): waiting",
                 worker.process.pid, now - worker.started_at, used)
    return True


def _drain(worker: _Worker) -> bool:
    """Read every message the worker has sent; False once its pipe is closed."""
    conn = worker.conn
    try:
        while worker.readable():
            message = conn.recv()
            kind = message[0]
            if kind == _MSG_STARTED:
                worker.started_at, worker.started_cpu, worker.deadline = time.monotonic(), message[2], 0.0
            elif kind == _MSG_RESULT:
                task = worker.inflight.popleft()
                worker.started_at = None
                worker.grown_kb = message[3]
                if task.task_id != message[1]:
                    raise AssertionError(f"worker answered task {message[1]}, expected {task.task_id}")
                _deliver(task, _decode_outcome(message[2], message[4], message[5]))
            elif kind == _MSG_RETIRE:
                return False
            elif kind == _MSG_WARMED:
                worker.warmed = tuple(sorted({*worker.warmed, *message[1]}))
    except (EOFError, OSError):
        return False
    return True


def _deliver(task: _Task, outcome: ParseOutcome) -> None:
    """Hand ``outcome`` to the caller waiting for ``task`` (unless it gave up)."""
    job = task.job
    job.outstanding -= 1
    if not job.cancelled:
        job.results.put(outcome)


def _prune_jobs(jobs: list[_Job]) -> list[_Job]:
    """The jobs still running: unstarted files of cancelled jobs dropped, finished jobs gone."""
    kept: list[_Job] = []
    for job in jobs:
        if job.cancelled:
            job.outstanding -= len(job.pending)
            job.pending.clear()
        if job.outstanding > 0:
            kept.append(job)
    return kept


def _fail_pending(jobs: list[_Job], reason: str) -> None:
    """Every unstarted file of ``jobs`` skipped with ``reason``."""
    for job in jobs:
        while job.pending:
            task = job.pending.popleft()
            _deliver(task, _skip(task.rel_path, reason))


def _largest_first(tasks: list[tuple[str, str]]) -> None:
    """Sort ``(rel_path, abs_path)`` pairs by file size, largest first (missing files last)."""

    def size_of(item: tuple[str, str]) -> int:
        try:
            return os.stat(item[1]).st_size
        except OSError:
            return 0

    if len(tasks) > 1:
        tasks.sort(key=size_of, reverse=True)


def _next_task(jobs: list[_Job], rr: int) -> tuple[_Task | None, int]:
    """The next file to hand out, taking the jobs in turn from ``rr``, and the next turn."""
    count = len(jobs)
    for offset in range(count):
        job = jobs[(rr + offset) % count]
        if job.pending and not job.cancelled:
            return job.pending.popleft(), (rr + offset + 1) % count
    return None, rr


def _start_workers(
    ctx: SpawnContext | ForkServerContext, count: int, memory_limit_mb: int | None, max_file_size: int
) -> list[_Worker | None]:
    """Start ``count`` workers and wait until each is ready (None: that one failed)."""
    slots: list[_Worker | None] = [_spawn(ctx, slot, memory_limit_mb, max_file_size) for slot in range(count)]
    deadline = time.monotonic() + _STARTUP_TIMEOUT_S
    for slot, worker in enumerate(slots):
        if worker is not None and not _await_ready(worker, deadline):
            _reap_worker(worker)
            slots[slot] = None
    return slots


def _to_stop(slots: list[_Worker | None]) -> list[_Worker]:
    """The workers an idle pool stops: all but the one it keeps (``_keeper``)."""
    live = [w for w in slots if w is not None]
    keep = _keeper(live)
    return [w for w in live if w is not keep]


def _keeper(live: list[_Worker]) -> _Worker | None:
    """The worker an idle pool keeps as its standby (module docstring): the first that parsed
    only live edits and grew at most ``STANDBY_KEEP_MB``, else the first that parsed nothing."""
    warm = next((w for w in live if not w.fresh and not w.bulk and w.grown_kb <= STANDBY_KEEP_MB * 1024), None)
    return warm if warm is not None else next((w for w in live if w.fresh), None)


def _compiled_by(worker: _Worker) -> tuple[Language, ...]:
    """The languages whose queries ``worker`` has compiled: told to, or for a file it was given."""
    return tuple(sorted({*worker.warmed, *worker.parsed}))


def _standby(slots: list[_Worker | None]) -> tuple[int, tuple[Language, ...]] | None:
    """The standby among ``slots`` (the one live worker of an idle pool, ``_keeper``): its
    process id and the languages it has compiled; None when there is none."""
    live = [w for w in list(slots) if w is not None]
    worker = _keeper(live) if len(live) == 1 else None
    if worker is None or worker.process.pid is None:
        return None
    return worker.process.pid, _compiled_by(worker)


def _standby_due(
    slots: list[_Worker | None], parked: set[int], respawn_at: dict[int, float], now: float, languages: set[Language]
) -> None:
    """After an idle pool stopped its workers: start a fresh one (the standby) if none is left;
    a worker kept is told to compile the queries of those of ``languages`` (the pool's) it has not."""
    live = [w for w in slots if w is not None]
    if not live and not respawn_at and parked:
        standby = min(parked)
        parked.discard(standby)
        respawn_at[standby] = now
    elif len(live) == 1 and (missing := languages - set(_compiled_by(live[0]))):
        with contextlib.suppress(OSError):  # (a worker gone already is replaced as ever)
            live[0].conn.send((_MSG_WARM, tuple(sorted(missing))))


def _warm_standby(worker: _Worker, languages: set[Language], jobs: list[_Job]) -> None:
    """A worker started with no file waiting is the standby: have it compile ``languages``."""
    if languages and not any(job.pending for job in jobs):
        with contextlib.suppress(OSError):  # (a worker gone already is replaced as ever)
            worker.conn.send((_MSG_WARM, tuple(sorted(languages))))


def _task_message(task: _Task) -> tuple[int, str, str, _Mode, bool]:
    """``task`` as a worker receives it; the last item: whether its job is bulk (the worker nices itself)."""
    return (task.task_id, task.rel_path, task.abs_path, task.mode, task.job.total > LIVE_FILES)


def _close_pipe(*fds: int) -> int:
    """Close the wake-up pipe's descriptors (those still open); -1, for both."""
    for fd in fds:
        if fd >= 0:
            os.close(fd)
    return -1


def _handed(worker: _Worker, task: _Task, languages: set[Language]) -> None:
    """``task`` was handed to ``worker``: it is no longer fresh (nor live-only, for a bulk job's
    file), and the language of its file is remembered (a standby compiles the queries of each)."""
    worker.fresh = False
    worker.bulk = worker.bulk or task.job.total > LIVE_FILES
    if task.mode is not _Mode.EXAMPLES:
        language = language_for_path(task.rel_path)
        if language is not None:
            languages.add(language)
            worker.parsed.add(language)


def _busy(jobs: list[_Job], slots: list[_Worker | None]) -> bool:
    """Whether any file is waiting or in flight."""
    return any(job.pending for job in jobs) or any(w is not None and w.inflight for w in slots)


def _reap_worker(worker: _Worker) -> None:
    """Kill ``worker`` if it still runs, wait for it and release its pipe and process."""
    if worker.process.is_alive():
        worker.process.kill()
    worker.process.join(_STOP_GRACE_S)
    worker.conn.close()
    with contextlib.suppress(ValueError):
        worker.process.close()


def _ask_to_stop(workers: list[_Worker]) -> None:
    """Tell ``workers`` to exit and give them ``_STOP_GRACE_S`` in all to do so."""
    for worker in workers:
        with contextlib.suppress(OSError):
            worker.conn.send(None)
    deadline = time.monotonic() + _STOP_GRACE_S
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))


class ParsePool:
    """A pool of parse worker processes; thread-safe (see the module docstring).

    ``memory_limit_mb`` caps each worker's address space (``RLIMIT_AS``); None disables
    the cap. ``start_method`` may force ``"spawn"`` or ``"forkserver"`` (never ``"fork"``).
    """

    def __init__(
        self,
        workers: int,
        *,
        timeout_s: float = 10.0,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        memory_limit_mb: int | None = 1024,
        start_method: str | None = None,
        on_crash: Callable[[BaseException], None] | None = None,
        faults: Faults = NO_FAULTS,
        idle_s: float | None = None,
    ) -> None:
        """``on_crash`` is told when the dispatcher dies of an unexpected exception (the pool
        is closed then and every pending request fails; the owner starts a new pool).
        ``idle_s``: stop the workers once the pool has been idle this long (None: never);
        the next file starts them again."""
        if workers < 1:
            raise InvalidArgument(f"workers must be at least 1, got {workers}")
        if timeout_s <= 0:
            raise InvalidArgument(f"timeout_s must be positive, got {timeout_s}")
        if idle_s is not None and idle_s < 0:
            raise InvalidArgument(f"idle_s must not be negative, got {idle_s}")
        self.idle_s = idle_s
        self.workers = workers
        self.timeout_s = timeout_s
        self.max_file_size = max_file_size
        self.memory_limit_mb = memory_limit_mb
        self._ctx = _make_context(start_method)
        self._on_crash = on_crash
        self._faults = faults

        self._lock = threading.Lock()
        self._started = False
        self._closing = False
        self._incoming: deque[_Job] = deque()
        self._thread: threading.Thread | None = None
        self._wake_r = -1
        self._wake_w = -1
        self._selector: selectors.BaseSelector | None = None

        # Owned by the dispatcher thread after start().
        self._slots: list[_Worker | None] = []
        self._respawn_at: dict[int, float] = {}
        #: slots whose worker was stopped for idleness (started again with the next file)
        self._parked: set[int] = set()
        #: the languages of the files handed out so far (the standby compiles their queries)
        self._languages: set[Language] = set()
        #: workers started after the pool's own start (stopped ones again, the standby, replacements)
        self.started_workers = 0
        #: monotonic time since which nothing was pending or in flight (None: busy)
        self._idle_since: float | None = None
        self._jobs: list[_Job] = []
        self._rr = 0
        self._next_task_id = 0
        self._startup_failures = 0
        self._broken: str | None = None
        self._pids: tuple[int, ...] = ()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the workers (waits until each is ready) and the dispatcher thread."""
        with self._lock:
            if self._started:
                raise FailedPrecondition("parse pool already started")
            if self._closing:
                raise FailedPrecondition("parse pool is closed")
            self._started = True
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._slots = _start_workers(self._ctx, self.workers, self.memory_limit_mb, self.max_file_size)
        self._respawn_at = {slot: time.monotonic() for slot, w in enumerate(self._slots) if w is None}
        if all(worker is None for worker in self._slots):
            self._shutdown_workers()
            with self._lock:
                self._closing = True
                self._wake_r = self._wake_w = _close_pipe(self._wake_r, self._wake_w)  # (no _wake() now)
            raise FailedPrecondition("no parse worker could start")
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        for worker in self._slots:
            if worker is not None:
                self._watch(worker)
        self._publish_pids()
        self._thread = threading.Thread(target=self._run, name="graphmem-parse-dispatch", daemon=True)
        self._thread.start()
        logger.debug("parse pool started: %d workers (%s)", self.workers, self._ctx.get_start_method())

    def close(self) -> None:
        """Stop the workers. Callers still waiting for results get ``FailedPrecondition``."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            started = self._started
        if not started:
            return
        self._wake()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._wake_r = self._wake_w = _close_pipe(self._wake_r, self._wake_w)  # (under the lock: no _wake())

    def __enter__(self) -> ParsePool:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def alive(self) -> bool:
        """Whether the pool is started, not closed and its dispatcher is running."""
        with self._lock:
            closing = self._closing
        return not closing and self._thread is not None and self._thread.is_alive()

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (for status reports, and tests)."""
        return list(self._pids)

    def standby(self) -> tuple[int, tuple[Language, ...]] | None:
        """The idle pool's standby worker: its process id and the languages it has compiled."""
        return _standby(self._slots)

    # ------------------------------------------------------------------ public API

    def parse_many(
        self, files: Iterable[tuple[str, Path]], *, bare: bool = False
    ) -> Generator[ParseOutcome, None, None]:
        """Parse ``(rel_path, abs_path)`` pairs on all workers; yield outcomes as they complete.

        With ``bare=True`` workers only read and parse (``bare_parse``) and return outcomes
        without ``parsed``/``content_hash`` (the benchmark's floor). Closing the generator
        early cancels the files not yet handed out.
        """
        return _outcomes(self, files, _Mode.BARE if bare else _Mode.PARSE)

    def parse_now(self, files: Iterable[tuple[str, Path]]) -> Iterator[ParseOutcome]:
        """Like ``parse_many``, but the workers start at once, not on the first ``next``: for a
        caller with other work to do meanwhile, which then reads every outcome."""
        tasks = [(rel, str(abs_path)) for rel, abs_path in files]
        return _delivered(self, self._submit(tasks, _Mode.PARSE)) if tasks else iter(())

    def read_examples(self, files: Iterable[tuple[str, Path]]) -> Generator[ParseOutcome, None, None]:
        """Like ``parse_many`` for knowledge files: outcomes with ``examples``, the units of
        their code examples that use names (tree-sitter holds the GIL: read in the workers)."""
        return _outcomes(self, files, _Mode.EXAMPLES)

    def parse_one(self, rel_path: str, abs_path: Path) -> ParseOutcome:
        """Parse a single file (gets its turn among the files of concurrent batches)."""
        for outcome in self.parse_many([(rel_path, abs_path)]):
            return outcome
        raise AssertionError("unreachable: parse_many yields one outcome per file")

    # ------------------------------------------------------------------ submission

    def _submit(self, tasks: list[tuple[str, str]], mode: _Mode) -> _Job:
        _largest_first(tasks)
        job = _Job(pending=deque(), total=len(tasks), outstanding=len(tasks))
        job.pending.extend(_Task(job, rel, abs_path, mode) for rel, abs_path in tasks)
        with self._lock:
            if not self._started:
                raise FailedPrecondition("parse pool is not started")
            if self._closing:
                raise FailedPrecondition("parse pool is closed")
            self._incoming.append(job)
        self._wake()
        return job

    def _wake(self) -> None:
        with self._lock, contextlib.suppress(BlockingIOError):  # full pipe: a wake-up is pending
            if self._wake_w >= 0:
                os.write(self._wake_w, b"\0")

    # ------------------------------------------------------------------ workers

    def _watch(self, worker: _Worker) -> None:
        assert self._selector is not None
        self._selector.register(worker.conn.fileno(), selectors.EVENT_READ, worker)
        self._selector.register(worker.process.sentinel, selectors.EVENT_READ, worker)

    def _unwatch(self, worker: _Worker) -> None:
        if self._selector is None:
            return
        for fd in (worker.conn.fileno(), worker.process.sentinel):
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(fd)

    def _reap(self, worker: _Worker) -> None:
        self._unwatch(worker)
        _reap_worker(worker)

    def _publish_pids(self) -> None:
        self._pids = tuple(w.process.pid for w in self._slots if w is not None and w.process.pid is not None)

    def _replace(self, worker: _Worker) -> None:
        """Reap a dead/killed worker, hand its unstarted files out again, spawn a new one."""
        self._reap(worker)
        for task in reversed(worker.inflight):
            task.job.pending.appendleft(task)
        worker.inflight.clear()
        self._slots[worker.slot] = None
        self._respawn_at[worker.slot] = time.monotonic()
        self._publish_pids()

    def _respawn_due(self) -> None:
        now = time.monotonic()
        for slot, when in list(self._respawn_at.items()):
            if when > now or self._broken is not None:
                continue
            del self._respawn_at[slot]
            try:
                worker = _spawn(self._ctx, slot, self.memory_limit_mb, self.max_file_size)
            except OSError as exc:
                logger.error("cannot start a parse worker: %s", exc)
                self._respawn_at[slot] = now + _RESPAWN_BACKOFF_S
                continue
            if _await_ready(worker, now + _STARTUP_TIMEOUT_S):
                self._startup_failures = 0
                self.started_workers += 1
                self._slots[slot] = worker
                self._watch(worker)
                _warm_standby(worker, self._languages, self._jobs)
            else:
                self._reap(worker)
                self._startup_failures += 1
                if self._startup_failures >= _MAX_STARTUP_FAILURES and all(w is None for w in self._slots):
                    self._broken = "parse workers cannot start"
                    logger.error("parse pool broken: %s", self._broken)
                else:
                    self._respawn_at[slot] = now + _RESPAWN_BACKOFF_S
        self._publish_pids()

    # ------------------------------------------------------------------ dispatcher

    def _run(self) -> None:
        name_os_thread("gm-parse-disp")
        try:
            while True:
                with self._lock:
                    closing = self._closing
                    while self._incoming:
                        self._jobs.append(self._incoming.popleft())
                if closing:
                    return
                self._assign()  # (the standby first: the stopped workers start only for what it cannot take)
                if self._parked and any(job.pending for job in self._jobs):  # start the idle-stopped workers again
                    self._respawn_at.update(dict.fromkeys(self._parked - self._respawn_at.keys(), time.monotonic()))
                    self._parked.clear()
                if self._respawn_at:
                    self._respawn_due()
                if self._broken is not None:
                    _fail_pending(self._jobs, self._broken)
                self._jobs = _prune_jobs(self._jobs)
                self._assign()
                self._park_if_idle()
                self._poll(self._wait_timeout())
        except BaseException as exc:
            logger.exception("parse pool dispatcher failed; the pool is closed")
            if self._on_crash is not None and isinstance(exc, Exception):
                self._on_crash(exc)
                return  # reported: the owner replaces the pool
            raise
        finally:
            with self._lock:
                self._closing = True  # later submissions fail instead of waiting forever
            self._shutdown_workers()
            for job in self._jobs:
                if job.outstanding:
                    job.results.put(_CLOSED)
            self._jobs.clear()
            with self._lock:
                for job in self._incoming:
                    job.results.put(_CLOSED)
                self._incoming.clear()

    def _assign(self) -> None:
        for worker in self._slots:
            if worker is None:
                continue
            while len(worker.inflight) < _PER_WORKER_INFLIGHT:
                task, self._rr = _next_task(self._jobs, self._rr)
                if task is None:
                    return
                self._faults.check("parse-pool")
                self._next_task_id += 1
                task.task_id = self._next_task_id
                try:
                    worker.conn.send(_task_message(task))
                except OSError:
                    task.job.pending.appendleft(task)
                    self._handle_death(worker)
                    break
                worker.inflight.append(task)
                _handed(worker, task, self._languages)

    def _park_if_idle(self) -> None:
        """Once the pool has been idle ``idle_s``, stop the workers that parsed (module docstring)."""
        if _busy(self._jobs, self._slots):
            self._idle_since = None
            return
        now = time.monotonic()
        self._idle_since = self._idle_since or now
        idle = _to_stop(self._slots)
        if self.idle_s is None or now - self._idle_since < self.idle_s or not idle:
            return
        _ask_to_stop(idle)
        for worker in idle:
            self._reap(worker)
            self._slots[worker.slot] = None
            self._parked.add(worker.slot)
        if self._broken is None:
            _standby_due(self._slots, self._parked, self._respawn_at, now, self._languages)
        self._publish_pids()
        logger.debug("parse pool idle for %.1fs: %d workers stopped", now - self._idle_since, len(idle))

    def _wait_timeout(self) -> float | None:
        deadlines = [_deadline(w, self.timeout_s) for w in self._slots if w is not None and w.started_at is not None]
        deadlines.extend(self._respawn_at.values())
        if self.idle_s is not None and self._idle_since is not None and _to_stop(self._slots):
            deadlines.append(self._idle_since + self.idle_s)
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def _poll(self, timeout: float | None) -> None:
        assert self._selector is not None
        events = self._selector.select(timeout)
        readable: list[_Worker] = []
        exited: list[_Worker] = []
        for key, _mask in events:
            worker_or_none: _Worker | None = key.data
            if worker_or_none is None:
                with contextlib.suppress(BlockingIOError):
                    while os.read(self._wake_r, 4096):
                        pass
            elif key.fd == worker_or_none.process.sentinel:
                exited.append(worker_or_none)
            else:
                readable.append(worker_or_none)
        dead: list[_Worker] = []
        for worker in readable:
            if not _drain(worker) and worker not in dead:
                dead.append(worker)
        for worker in exited:
            if worker not in dead:
                _drain(worker)
                dead.append(worker)
        for worker in dead:
            self._handle_death(worker)
        now = time.monotonic()
        for busy in self._slots:
            if busy is None or busy.started_at is None or now < _deadline(busy, self.timeout_s):
                continue
            # The result may have arrived since select() returned: read it before judging.
            if not _drain(busy):
                self._handle_death(busy)
            elif _timed_out(busy, self.timeout_s, now):
                self._handle_timeout(busy)

    def _handle_death(self, worker: _Worker) -> None:
        if self._slots[worker.slot] is not worker:
            return  # already replaced
        worker.process.join(_STOP_GRACE_S)
        reason = _describe_exit(worker.process.exitcode)
        if worker.inflight and worker.started_at is not None:
            task = worker.inflight.popleft()
            logger.warning("%s while parsing %s; file skipped", reason, task.rel_path)
            _deliver(task, _skip(task.rel_path, f"{reason} while parsing this file"))
        elif worker.process.exitcode != _EXIT_MEMORY_ERROR:
            logger.warning("%s (idle); restarting it", reason)
        worker.started_at = None
        self._replace(worker)

    def _handle_timeout(self, worker: _Worker) -> None:
        task = worker.inflight.popleft()
        logger.warning("parsing %s timed out after %gs; restarting the worker", task.rel_path, self.timeout_s)
        worker.started_at = None
        worker.process.kill()
        _deliver(task, _skip(task.rel_path, f"parse timed out after {self.timeout_s:g}s"))
        self._replace(worker)

    def _shutdown_workers(self) -> None:
        live = [w for w in self._slots if w is not None]
        _ask_to_stop(live)
        for worker in live:
            self._reap(worker)
        self._slots = [None] * len(self._slots)
        self._pids = ()
        if self._selector is not None:
            self._selector.close()
            self._selector = None


def _outcomes(pool: ParsePool, files: Iterable[tuple[str, Path]], mode: _Mode) -> Generator[ParseOutcome, None, None]:
    """The outcomes of one job of ``pool`` as they complete (submitted on the first ``next``);
    closing the generator early cancels the files not yet handed out."""
    tasks = [(rel, str(abs_path)) for rel, abs_path in files]
    if tasks:
        yield from _delivered(pool, pool._submit(tasks, mode))


def _delivered(pool: ParsePool, job: _Job) -> Generator[ParseOutcome, None, None]:
    """The outcomes of ``job`` as they complete; closing the generator early cancels the files
    not yet handed out."""
    delivered = 0
    try:
        while delivered < job.total:
            item = job.results.get()
            if isinstance(item, _Closed):
                raise FailedPrecondition("parse pool closed")
            delivered += 1
            yield item
    finally:
        if delivered < job.total:
            job.cancelled = True
            pool._wake()
