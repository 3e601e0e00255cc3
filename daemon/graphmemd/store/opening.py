"""Opening the store without a human: probe in a child process, move damage aside, rebuild.

A damaged store (Kùzu or LadybugDB: ``engines.py``) can raise any exception type at open (RuntimeError, IndexError,
UnicodeDecodeError, ...) or kill the process outright (SIGSEGV/SIGABRT while replaying a
damaged WAL). So the store is first opened in a short-lived child process
(``python -m graphmemd.store.opening PATH POOL ENGINE``) that replays the WAL, reads every table with the
queries the daemon's start runs (so a store that would crash the restore is caught here) and
checkpoints (which also bounds a WAL left by an unclean stop). Only when the child exits
cleanly does the daemon open the store itself. Any failure, in the child or in the daemon's
own open, moves the database and its WAL aside with a timestamp and starts an empty store;
the caller rebuilds the graph from the source trees and the observations from the journal.
Never a crash loop: a store that failed is never reopened.

The probe costs a Python start and a read of every table (~0.25 s on a stdlib-sized store),
so it is skipped when the daemon itself closed the store cleanly last time: a clean close
checkpoints (no WAL is left) and writes ``<store>.clean`` with the database file's size and
mtime. The marker is removed before the store is opened again, so a daemon that dies while
the store is open leaves none, and any change to the file since (or a WAL) means a probe.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graphmem.errors import DaemonAlreadyRunning, StoreError

from graphmemd.store import engines
from graphmemd.store.engine import Store
from graphmemd.store.migration import migrate_kuzu_store

__all__ = ["OpenedStore", "mark_clean", "move_aside", "open_store", "probe_store"]

logger = logging.getLogger(__name__)

#: How long the probe may take (a large WAL replay is slow, a hang counts as damage).
PROBE_TIMEOUT_S = 300.0
#: A probe that runs out of its buffer pool is tried again with twice the pool, up to this
#: many times the daemon's pool (``GRAPHMEM_BUFFER_POOL_MB``) before the store is given up.
PROBE_POOL_GROWTH = 4
#: What the engines say when a query needs more than the buffer pool holds (not damage).
_EXHAUSTED = "buffer pool is full"


@dataclass(frozen=True, slots=True)
class OpenedStore:
    """The open store and, when it had to be replaced, what happened (for ``status``)."""

    store: Store
    recovered: str = ""
    moved_to: tuple[str, ...] = ()
    #: the daemon itself closed it cleanly last time (its clean-close marker matched)
    clean: bool = False


def _describe_exit(code: int, stderr: str) -> str:
    last = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the store crashed the probe process ({name}){': ' + last if last else ''}"
    return last or f"the probe exited with status {code}"


def probe_store(
    path: Path, *, buffer_pool_mb: int, engine: str = engines.DEFAULT_ENGINE, timeout_s: float = PROBE_TIMEOUT_S
) -> str:
    """Open, read and checkpoint the store in a child process; "" when it is sound, else why not.

    A store that does not exist yet (nothing on disk) is sound."""
    wal = Path(str(path) + ".wal")
    if not path.exists() and not wal.exists():
        return ""
    cmd = [sys.executable, "-m", "graphmemd.store.opening", str(path), str(buffer_pool_mb), engine]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, timeout=timeout_s, check=False, stdin=subprocess.DEVNULL, env=dict(os.environ)
        )
    except subprocess.TimeoutExpired:
        return f"opening the store took longer than {timeout_s:g} s"
    except OSError as exc:
        raise StoreError(f"cannot start the store probe: {exc}") from exc
    if proc.returncode == 0:
        return ""
    if proc.returncode == _LOCKED:
        raise DaemonAlreadyRunning(f"the store {path} is open in another process")
    return _describe_exit(proc.returncode, proc.stderr.decode("utf-8", errors="replace"))


def _clean_marker(path: Path) -> Path:
    return Path(str(path) + ".clean")


def _file_stamp(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size} {st.st_mtime_ns}"


def mark_clean(path: Path) -> None:
    """Record that the store at ``path`` was just closed cleanly (see the module docstring)."""
    if Path(str(path) + ".wal").exists() or not path.is_file():
        return  # not checkpointed (or not a single-file store): the next open probes
    marker = _clean_marker(path)
    tmp = Path(str(marker) + ".tmp")
    try:
        tmp.write_text(_file_stamp(path), encoding="utf-8")
        os.replace(tmp, marker)
    except OSError as exc:  # the next open probes: nothing is lost
        logger.warning("cannot record the clean close of %s: %s", path, exc)


def _closed_cleanly(path: Path) -> bool:
    """True when the marker of a clean close matches the database file and no WAL exists;
    the marker is consumed either way."""
    marker = _clean_marker(path)
    try:
        stamp = marker.read_text(encoding="utf-8")
    except OSError:
        return False
    marker.unlink(missing_ok=True)
    try:
        return not Path(str(path) + ".wal").exists() and _file_stamp(path) == stamp
    except OSError:
        return False


def move_aside(path: Path, stamp: str | None = None) -> list[str]:
    """Rename the database and its WAL to ``<name>.broken-<timestamp>``; returns the new paths."""
    stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
    moved: list[str] = []
    for p in (path, Path(str(path) + ".wal")):
        if p.exists() or p.is_symlink():
            target = p.with_name(f"{p.name}.broken-{stamp}")
            n = 1
            while target.exists():
                n += 1
                target = p.with_name(f"{p.name}.broken-{stamp}-{n}")
            try:
                p.rename(target)
            except OSError as err:
                raise StoreError(f"the damaged store {p} cannot be moved aside: {err}") from err
            moved.append(str(target))
    return moved


def open_store(
    path: Path,
    *,
    engine: str = engines.DEFAULT_ENGINE,
    workarounds: frozenset[str] | None = None,
    buffer_pool_mb: int = 512,
    max_db_size_gb: int = 64,
    probe: bool = True,
) -> OpenedStore:
    """The store at ``path`` on ``engine``, probed first; a damaged one is moved aside and
    replaced. On LadybugDB a Kùzu store beside it that it does not have yet is carried over
    first (``migration.py``)."""

    def open_() -> Store:
        return Store(
            path, engine=engine, workarounds=workarounds, buffer_pool_mb=buffer_pool_mb, max_db_size_gb=max_db_size_gb
        )

    migrated = migrate_kuzu_store(path, buffer_pool_mb=min(buffer_pool_mb, 256)) if engine == "ladybug" else ""
    clean = _closed_cleanly(path)
    problem = ""
    if probe and not clean:
        # the probe runs the reads the daemon's start runs, with the pool the daemon will have
        # (with 256 MB, a sound 4.7 M-line store was judged damaged, moved aside and rebuilt);
        # running out of that pool is not damage: the probe is tried again with a larger one
        pool = buffer_pool_mb
        problem = probe_store(path, buffer_pool_mb=pool, engine=engine)
        while _EXHAUSTED in problem and pool < buffer_pool_mb * PROBE_POOL_GROWTH:
            pool *= 2
            logger.warning("the store probe ran out of its %d MB buffer pool: trying again with %d MB", pool // 2, pool)
            problem = probe_store(path, buffer_pool_mb=pool, engine=engine)
    if not problem:
        try:
            return OpenedStore(open_(), recovered=migrated, clean=clean)
        except DaemonAlreadyRunning:
            raise
        except StoreError as exc:
            problem = exc.message
    moved = move_aside(path)
    where = ", ".join(moved) or "nothing to move"
    logger.error(
        "the store could not be opened (%s); moved aside to %s; rebuilding it from the journal and the repositories",
        problem,
        where,
    )
    note = f"store rebuilt after an open failure ({problem}); the damaged files were moved to {where}"
    return OpenedStore(open_(), recovered="; ".join(n for n in (migrated, note) if n), moved_to=tuple(moved))


_LOCKED = 3


def _probe_main(argv: Sequence[str]) -> int:
    """The child: open, read every table the way the daemon's start does (observations, and
    each repository's files, symbols and edges, as ``restore.py`` reads them),
    checkpoint, close. Exit 0 when all went well."""
    path, pool, engine = Path(argv[0]), int(argv[1]), argv[2]
    try:
        store = Store(path, engine=engine, buffer_pool_mb=pool)
    except DaemonAlreadyRunning as exc:
        sys.stderr.write(f"{exc}\n")
        return _LOCKED
    except StoreError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    try:
        store.counts()
        for _ in store.observations():
            pass
        for repo_id, *_ in store.repos():  # the reads of a warm restart (restore.py), each one
            store.file_hashes(repo_id)
            store.load_repo_graph(repo_id)  # (its edges are ``load_resolved_edges``' read)
            store.recycle_if_due()  # what the read touched is given back before the next one
        store.checkpoint()
    except StoreError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(_probe_main(sys.argv[1:]))
