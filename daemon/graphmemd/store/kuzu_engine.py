"""The Kùzu binding: the ONLY module that imports ``kuzu`` (contract ``one-engine-module``).

Kùzu 0.11.3 is the engine's last release (the project is archived). What the store does
about its defects (``engine.py``): every query value that has an exact Cypher literal is
written into the query text (``literals.py``: parameterised queries leak ≈5-60 KB each), and
the database is closed and reopened every ``RECYCLE_QUERIES`` queries, after bulk reads and
between the chunks of a bulk load (it keeps ~40 MB per COPY and the pages a read touched
until it closes). The fts extension is loaded at each open: stores written before text
search moved into memory still hold fts indexes, which are dropped at open.

Kùzu and LadybugDB cannot be loaded into one process (their bindings register the same
types), so ``engines.py`` imports one of the two binding modules, never both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kuzu

NAME = "kuzu"
#: statements run on every new connection
AT_CONNECT: tuple[str, ...] = ("LOAD EXTENSION fts",)
#: bulk loads COPY from the in-memory Arrow table (no file written)
COPY_FROM_FILE = False
#: stores of this engine may hold full-text indexes from older releases (dropped at open)
HAD_FTS = True
#: the workarounds this engine needs (``engines.WORKAROUNDS``): all of them, measured by
#: ``scripts/soak.py`` with each one switched off (docs/benchmarks.md)
WORKAROUNDS: frozenset[str] = frozenset({"recycle", "bulk-read", "chunks", "literals"})


def connect(
    path: Path, *, buffer_pool_bytes: int, max_db_bytes: int, checkpoint_bytes: int, threads: int
) -> tuple[Any, Any]:
    """Open the database at ``path`` and one connection to it."""
    db = kuzu.Database(
        str(path),
        buffer_pool_size=buffer_pool_bytes,
        max_db_size=max_db_bytes,
        checkpoint_threshold=checkpoint_bytes,
        max_num_threads=threads,
    )
    return db, kuzu.Connection(db)
