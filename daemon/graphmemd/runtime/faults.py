"""Fault injection for the supervision tests: raise an unexpected exception at a named point.

Configured once at start from ``GRAPHMEM_INJECT_FAULTS`` (``point[:count],...``, e.g.
``indexer:1,store-writer:1``); empty in normal operation, where ``check`` is a dict lookup.
The points are the units of work of the supervised loops: ``indexer`` (an index job),
``store-writer`` (a store write), ``parse-pool`` (the parse dispatcher), ``parse-start`` (the
start of the parse workers when the daemon opens) and ``watcher`` (a change batch handed over
by the watcher); ``journal-enospc`` makes a journal write fail with ENOSPC, as on a full disk
(``fires``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from graphmem.errors import InvalidArgument

POINTS = frozenset({"indexer", "store-writer", "parse-pool", "parse-start", "watcher", "journal-enospc"})


class InjectedFault(RuntimeError):
    """The exception an armed fault point raises (deliberately not a GraphMemError)."""


class Faults:
    """Armed fault points and how many more times each fires."""

    def __init__(self, armed: Mapping[str, int] | None = None) -> None:
        self._left = dict(armed or {})
        self._lock = threading.Lock()

    @classmethod
    def parse(cls, spec: str) -> Faults:
        """``"indexer:1,store-writer"`` -> armed points (count defaults to 1)."""
        armed: dict[str, int] = {}
        for item in filter(None, (s.strip() for s in spec.split(","))):
            name, _, count = item.partition(":")
            if name not in POINTS:
                raise InvalidArgument(f"unknown fault point {name!r}; known: {', '.join(sorted(POINTS))}")
            try:
                armed[name] = int(count or "1")
            except ValueError as exc:
                raise InvalidArgument(f"fault count must be an integer: {item!r}") from exc
        return cls(armed)

    def fires(self, point: str) -> bool:
        """Whether ``point`` is armed (counting it down): for faults that are not exceptions."""
        if not self._left:
            return False
        with self._lock:
            left = self._left.get(point, 0)
            if left <= 0:
                return False
            self._left[point] = left - 1
            return True

    def check(self, point: str) -> None:
        """Raise ``InjectedFault`` if ``point`` is armed (and count it down)."""
        if not self._left:
            return
        with self._lock:
            left = self._left.get(point, 0)
            if left <= 0:
                return
            self._left[point] = left - 1
        raise InjectedFault(f"injected fault at {point}")


NO_FAULTS = Faults()
