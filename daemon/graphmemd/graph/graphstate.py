"""The shared in-memory code graph and the one lock that guards it.

The indexer is the graph's only writer: it reads without the lock on its own thread and
takes it only to swap a delta in (``writing``). Everyone else reads through ``reading``
(the read view does this for retrieval and the service). Also the ``CodeView`` that
staleness and anchoring evaluate against.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from graphmemd.graph.codegraph import CodeGraph
from graphmemd.graph.model import SymbolInfo, file_fingerprint, file_id


class GraphState:
    """The code graph of every repository, with its lock."""

    def __init__(self) -> None:
        self.graph = CodeGraph()
        self._lock = threading.RLock()
        #: how many times ``writing`` was entered: a count taken of the graph at one version
        #: (read under the lock) holds as long as the version does
        self.version = 0

    @contextmanager
    def reading(self) -> Iterator[CodeGraph]:
        """The graph, for reading, while the indexer cannot swap a change in."""
        with self._lock:
            yield self.graph

    @contextmanager
    def writing(self) -> Iterator[CodeGraph]:
        """The graph, for the indexer's swap (readers wait)."""
        with self._lock:
            self.version += 1
            yield self.graph

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        """The symbol with this id, or None."""
        return self.graph.symbols.get(symbol_id)

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        """A file's structural fingerprint (see ``staleness.file_fingerprint``), or None."""
        node = self.graph.files.get(file_id(repo_id, path))
        if node is None:
            return None
        return file_fingerprint(self.graph.file_symbols(repo_id, path), node.content_hash)
