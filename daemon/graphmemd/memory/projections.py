"""The notes each checkout shows from the other checkouts of its repository.

A projection (``checkouts.project``) is a note saved in one checkout as another checkout of
the same repository shows it: its anchors in that checkout's ids, its state judged on that
checkout's code. They are derived from the notes and the code, held in memory only, and
indexed by the ids of what they are anchored to, like the book indexes the notes themselves,
so the read side finds them by the nodes of the checkout it reads.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import TypeVar

from graphmem.types import AnchorKind, Observation

T = TypeVar("T")


def anchored_pairs(by_target: Mapping[str, set[T]], nodes: Mapping[str, object]) -> Iterator[tuple[str, set[T]]]:
    """(node, what is anchored to it) for the ``nodes`` that have something anchored, walking
    whichever of the two is smaller."""
    if len(nodes) < len(by_target):
        pairs: Iterator[tuple[str, set[T] | None]] = ((n, by_target.get(n)) for n in nodes)
    else:
        pairs = ((t, ids) for t, ids in by_target.items() if t in nodes)
    return ((node, ids) for node, ids in pairs if ids)


def _targets(o: Observation) -> list[str]:
    return [a.symbol_id if a.kind is AnchorKind.SYMBOL else f"{a.repo_id}:{a.path}" for a in o.anchors]


class Projections:
    """Checkout -> note id -> the note as that checkout shows it; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._views: dict[str, dict[str, Observation]] = defaultdict(dict)
        self._by_target: dict[str, set[tuple[str, str]]] = defaultdict(set)

    def put(self, o: Observation) -> Observation | None:
        """Hold ``o`` (a projection: ``o.repo_id`` is the checkout showing it); returns the one
        it replaces."""
        with self._lock:
            old = self._drop_locked(o.repo_id, o.id)
            self._views[o.repo_id][o.id] = o
            for t in _targets(o):
                self._by_target[t].add((o.repo_id, o.id))
            return old

    def drop(self, checkout: str, obs_id: str) -> Observation | None:
        """Forget the projection of ``obs_id`` into ``checkout``; returns it."""
        with self._lock:
            return self._drop_locked(checkout, obs_id)

    def _drop_locked(self, checkout: str, obs_id: str) -> Observation | None:
        old = self._views.get(checkout, {}).pop(obs_id, None)
        if old is not None:
            for t in _targets(old):
                self._by_target[t].discard((checkout, obs_id))
                if not self._by_target[t]:
                    del self._by_target[t]
        return old

    def drop_note(self, obs_id: str) -> list[Observation]:
        """Forget every projection of a note (deleted); returns them."""
        with self._lock:
            checkouts = [c for c, views in self._views.items() if obs_id in views]
            return [o for c in checkouts if (o := self._drop_locked(c, obs_id)) is not None]

    def drop_checkout(self, checkout: str) -> None:
        """Forget everything ``checkout`` shows (it is unregistered)."""
        with self._lock:
            for oid in list(self._views.get(checkout, {})):
                self._drop_locked(checkout, oid)
            self._views.pop(checkout, None)

    def get(self, checkout: str, obs_id: str) -> Observation | None:
        """The projection of ``obs_id`` into ``checkout``, or None."""
        with self._lock:
            return self._views.get(checkout, {}).get(obs_id)

    def of_note(self, obs_id: str) -> list[Observation]:
        """Every projection of a note, by checkout id."""
        with self._lock:
            return sorted((v[obs_id] for v in self._views.values() if obs_id in v), key=lambda o: o.repo_id)

    def in_checkout(self, checkout: str) -> list[Observation]:
        """Every note ``checkout`` shows from its siblings."""
        with self._lock:
            return list(self._views.get(checkout, {}).values())

    def ids_in(self, checkout: str) -> set[str]:
        """The ids of the notes ``checkout`` shows from its siblings."""
        with self._lock:
            return set(self._views.get(checkout, {}))

    def anchored_in(self, nodes: Mapping[str, object]) -> dict[str, list[Observation]]:
        """Projections anchored to any of ``nodes``, by node."""
        out: dict[str, list[Observation]] = {}
        with self._lock:
            for node, ids in anchored_pairs(self._by_target, nodes):
                out[node] = [self._views[c][i] for c, i in ids]
        return out

    def anchored_in_file(self, checkout: str, path: str) -> list[Observation]:
        """Projections into ``checkout`` anchored to a file or to a symbol of it."""
        file_key = f"{checkout}:{path}"
        prefix = file_key + "::"
        with self._lock:
            return [
                o
                for o in self._views.get(checkout, {}).values()
                if any(t == file_key or t.startswith(prefix) for t in _targets(o))
            ]
