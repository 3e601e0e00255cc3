"""The LadybugDB binding: the ONLY module that imports ``ladybug`` (contract
``one-engine-module``).

LadybugDB is Kùzu's maintained successor (the same engine and Cypher, renamed; MIT). Its
database file format is not Kùzu's: a Kùzu store is carried over by ``migration.py``. It
bundles no full-text extension (the store needs none: text search is in memory), and a
store of this engine never had fts indexes. Which of the store's Kùzu workarounds it still
needs was measured with ``scripts/soak.py`` (docs/benchmarks.md): ``WORKAROUNDS``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ladybug

NAME = "ladybug"
AT_CONNECT: tuple[str, ...] = ()
#: bulk loads COPY from a Parquet file, not from the in-memory Arrow table: in 0.22.0 a COPY
#: from an Arrow table keeps ~20 MB of the buffer pool that nothing returns until the
#: database closes (3-row COPYs filled a 512 MB pool after 56, RSS 1.2 GB), while the same
#: COPY from a Parquet file keeps nothing measurable (60 COPYs: RSS flat at ~130 MB)
COPY_FROM_FILE = True
HAD_FTS = False
#: only the reopens after bulk work. Neither the periodic reopen nor literal values:
#: ``scripts/soak.py`` (20,000 mixed RPCs from 16 clients, a file edited every 250 ms) drifted
#: by -3.3 MB with every workaround off and +12.1 MB with all on, where Kùzu 0.11.3 drifted
#: +188 MB with them off (+81.6 MB without the periodic reopen alone). But the reopens after a
#: bulk read and between a bulk load's chunks still return what a load took: at 0.9 M lines a
#: restart + 5,000-file checkout peaked at 669 MB without them, 581 MB with them (whole tree;
#: docs/benchmarks.md)
WORKAROUNDS: frozenset[str] = frozenset({"bulk-read", "chunks"})


def connect(
    path: Path, *, buffer_pool_bytes: int, max_db_bytes: int, checkpoint_bytes: int, threads: int
) -> tuple[Any, Any]:
    """Open the database at ``path`` and one connection to it."""
    db = ladybug.Database(
        str(path),
        buffer_pool_size=buffer_pool_bytes,
        max_db_size=max_db_bytes,
        checkpoint_threshold=checkpoint_bytes,
        max_num_threads=threads,
    )
    return db, ladybug.Connection(db)
