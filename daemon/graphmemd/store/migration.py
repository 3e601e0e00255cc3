"""Carrying a Kùzu store over to LadybugDB when the store's engine changes to it.

The two engines write different database files (``graph.kuzu``, ``graph.lbug``) and cannot
be loaded into one process (``engines.py``). So when the daemon runs on LadybugDB, finds no
store of its own and a Kùzu store beside it, a child process opens the Kùzu store with the
Kùzu binding (which brings it to the current schema) and exports it
(``EXPORT DATABASE ... (format='parquet')``); the daemon imports that into a new LadybugDB
database (``IMPORT DATABASE``), built under a temporary name and renamed into place when
complete, so a crash midway leaves no half store. Every row comes over: observation copies
with their idempotency keys, repositories, files, symbols, edges; the parse cache and the
journal are files of their own and stay as they are. The Kùzu store is kept, renamed
``graph.kuzu.migrated-<time>`` (delete it once satisfied). If the carry-over fails, the Kùzu
store is renamed ``graph.kuzu.unmigrated-<time>``, the new store starts empty (observations
from the journal, the code graph indexed again) and ``status`` says so.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from graphmem.errors import StoreError

from graphmemd.store import engines
from graphmemd.store.engine import Store

__all__ = ["MIGRATE_TIMEOUT_S", "migrate_kuzu_store"]

logger = logging.getLogger(__name__)

#: how long the child may take to read and export the Kùzu store
MIGRATE_TIMEOUT_S = 1800.0


def migrate_kuzu_store(target: Path, *, buffer_pool_mb: int) -> str:
    """Carry the Kùzu store beside ``target`` (a LadybugDB store path that does not exist
    yet) over into ``target``; returns what happened for ``status`` ("" when there was
    nothing to carry over)."""
    source = engines.store_path(target.parent, "kuzu")
    if target.exists() or not source.exists():
        return ""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    started = time.monotonic()
    export = target.with_name(target.name + ".export")
    building = target.with_name(target.name + ".migrating")
    for leftover in (export, building, Path(str(building) + ".wal")):
        _remove(leftover)
    try:
        _export(source, export, buffer_pool_mb)
        _import(export, building, buffer_pool_mb)
        os.replace(building, target)
    except StoreError as exc:
        for p in (building, Path(str(building) + ".wal"), target, Path(str(target) + ".wal")):
            _remove(p)
        kept = _rename(source, f"unmigrated-{stamp}")
        logger.error("the Kùzu store could not be carried over to LadybugDB (%s); kept as %s", exc.message, kept)
        return (
            f"the Kùzu store could not be carried over to LadybugDB ({exc.message}); it was kept as {kept}; "
            "observations come from the journal and the code graph is indexed again"
        )
    finally:
        _remove(export)
    kept = _rename(source, f"migrated-{stamp}")
    took = time.monotonic() - started
    logger.warning("the Kùzu store was carried over to LadybugDB in %.1f s; the old one is kept as %s", took, kept)
    return f"the Kùzu store was carried over to LadybugDB in {took:.1f} s; the old one is kept as {kept}"


def _export(source: Path, export: Path, buffer_pool_mb: int) -> None:
    """Export the Kùzu store in a child process (this one may hold LadybugDB)."""
    cmd = [sys.executable, "-m", "graphmemd.store.migration", str(source), str(export), str(buffer_pool_mb)]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, timeout=MIGRATE_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StoreError(f"the export of {source} did not finish: {exc}") from exc
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise StoreError(f"the export of {source} failed ({err[-1] if err else f'exit {proc.returncode}'})")


def _import(export: Path, building: Path, buffer_pool_mb: int) -> None:
    """Import an export into a new LadybugDB database at ``building``."""
    engine = engines.load("ladybug")
    try:
        db, conn = engine.connect(
            building,
            buffer_pool_bytes=buffer_pool_mb * 2**20,
            max_db_bytes=64 * 2**30,
            checkpoint_bytes=32 * 2**20,
            threads=1,
        )
    except Exception as exc:  # the binding raises RuntimeError and more
        raise StoreError(f"cannot create {building}: {exc}") from exc
    try:
        path = str(export).replace("\\", "\\\\").replace("'", "\\'")
        conn.execute(f"IMPORT DATABASE '{path}'")
        conn.execute("CHECKPOINT")
    except Exception as exc:  # the binding raises RuntimeError and more
        raise StoreError(f"the import into LadybugDB failed: {exc}") from exc
    finally:
        conn.close()
        db.close()


def _rename(path: Path, tag: str) -> str:
    """Rename a store and its WAL to ``<name>.<tag>``; the new name of the store."""
    target = path.with_name(f"{path.name}.{tag}")
    for p, t in ((path, target), (Path(str(path) + ".wal"), Path(str(target) + ".wal"))):
        if p.exists():
            p.rename(t)
    Path(str(path) + ".clean").unlink(missing_ok=True)
    return str(target)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _export_main(argv: Sequence[str]) -> int:
    """The child: open the Kùzu store (bringing it to the current schema) and export it."""
    source, export, pool = Path(argv[0]), Path(argv[1]), int(argv[2])
    try:
        store = Store(source, engine="kuzu", buffer_pool_mb=pool)
    except StoreError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    try:
        store.export_to(export)
    except StoreError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(_export_main(sys.argv[1:]))
