"""Which database engine the store runs on: Kùzu or LadybugDB, chosen once by configuration
(``--store-engine``, ``GRAPHMEM_STORE_ENGINE``, default ``DEFAULT_ENGINE``).

Each engine has one binding module, the only importer of its package (``kuzu_engine.py``,
``ladybug_engine.py``); ``engine.py`` speaks Cypher to whichever this module loads. The two
packages cannot live in one process (their native bindings register the same types), so a
binding is imported on first use (``load``) and a process only ever loads one: the
migration of a Kùzu store reads it in a child process (``migration.py``).

The store's workarounds for Kùzu 0.11.3's defects can be switched one by one
(``GRAPHMEM_STORE_WORKAROUNDS``, for the soak measurements in docs/benchmarks.md); by default
each engine runs with the ones its binding lists.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmemd.runtime.config import DEFAULT_STORE_ENGINE, STORE_ENGINES, STORE_WORKAROUNDS, parse_engine, store_file

__all__ = ["DEFAULT_ENGINE", "ENGINES", "WORKAROUNDS", "Engine", "load", "parse_engine", "store_path"]

#: every engine the store runs on, and the file name suffix of its database
ENGINES = STORE_ENGINES
DEFAULT_ENGINE = DEFAULT_STORE_ENGINE
_MODULES = {"kuzu": "graphmemd.store.kuzu_engine", "ladybug": "graphmemd.store.ladybug_engine"}
#: the workarounds the store can apply (``runtime/config.py`` says what each one does)
WORKAROUNDS = STORE_WORKAROUNDS


@dataclass(frozen=True, slots=True)
class Engine:
    """A loaded engine binding: how to open a database, and what the store does around it."""

    name: str
    #: opens (path, buffer_pool_bytes, max_db_bytes, checkpoint_bytes, threads) -> (database, connection)
    connect: Callable[..., tuple[Any, Any]]
    #: statements run on every new connection
    at_connect: tuple[str, ...]
    #: stores of this engine may hold full-text indexes of older releases (dropped at open)
    had_fts: bool
    #: the workarounds the store applies on this engine
    workarounds: frozenset[str]
    #: bulk loads COPY from a Parquet file written beside the store, not from memory
    copy_from_file: bool = False


def load(name: str, workarounds: frozenset[str] | None = None) -> Engine:
    """The binding of engine ``name`` (imported now if it was not: never two in a process)."""
    module = importlib.import_module(_MODULES[parse_engine(name)])
    return Engine(
        name=module.NAME,
        connect=module.connect,
        at_connect=tuple(module.AT_CONNECT),
        had_fts=bool(module.HAD_FTS),
        workarounds=frozenset(module.WORKAROUNDS) if workarounds is None else workarounds,
        copy_from_file=bool(module.COPY_FROM_FILE),
    )


def store_path(data_dir: Path, name: str) -> Path:
    """Where engine ``name`` keeps the store in the data directory (``graph.kuzu``, ``graph.lbug``)."""
    return store_file(data_dir, name)
