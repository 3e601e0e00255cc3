"""What a checkout's recent deltas removed and added: the other half of a move seen in two batches.

A function moved to another file is one change when both files arrive in one batch
(``diff.py`` pairs the removed and the added symbol of the same body as ``RENAMED``, and notes
follow it). The watcher's batches are not transactions, though: a refactoring tool's two
writes a little apart on a loaded machine, or a person who cuts a function, saves, pastes it
into another file and saves that one, give two batches. The first says REMOVED (or ADDED),
and nothing paired the second with it: the note stayed stale "removed" of code that still
exists.

``RecentSymbols`` keeps, for ``WINDOW_S`` seconds, the symbols each delta removed and the
ones it added, and hands them to the next delta's diff as pairing candidates
(``diff_symbols(earlier_removed=…, earlier_added=…)``). Pure: the caller gives the time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graphmemd.graph.model import ChangeKind, SymbolChange, SymbolState

__all__ = ["LIMIT", "WINDOW_S", "RecentSymbols"]

#: How long a removed or added symbol may still pair with the other half of its move.
WINDOW_S = 60.0
#: At most this many symbols are kept on each side (the newest).
LIMIT = 2000


@dataclass
class RecentSymbols:
    """The symbols recent deltas removed and added, newest last, each with when."""

    removed: list[tuple[float, SymbolState]] = field(default_factory=list)
    added: list[tuple[float, SymbolState]] = field(default_factory=list)

    def candidates(self, now: float) -> tuple[list[SymbolState], list[SymbolState]]:
        """The removed and the added symbols still within ``WINDOW_S`` of ``now``."""
        self._prune(now)
        return [s for _, s in self.removed], [s for _, s in self.added]

    def record(self, changes: Sequence[SymbolChange], paths: Iterable[str], now: float) -> None:
        """After a delta over ``paths`` (its changed and removed files) with ``changes``: what
        it removed and added becomes a candidate; a candidate it paired, or whose file it
        parsed again (the graph holds that file as it is now), is dropped."""
        touched = set(paths)
        used = {c.old.id for c in changes if c.kind is ChangeKind.RENAMED and c.old is not None}
        used |= {c.new.id for c in changes if c.kind is ChangeKind.RENAMED and c.new is not None}
        gone = [c.old for c in changes if c.kind is ChangeKind.REMOVED and c.old is not None]
        new = [c.new for c in changes if c.kind is ChangeKind.ADDED and c.new is not None]
        back = {s.id for s in new}
        self.removed = [(t, s) for t, s in self.removed if s.id not in used and s.id not in back]
        self.added = [(t, s) for t, s in self.added if s.id not in used and s.path not in touched]
        self.removed += [(now, s) for s in gone]
        self.added += [(now, s) for s in new]
        self._prune(now)

    def clear(self) -> None:
        """Forget everything (a branch switch, a full pass: not one person's edit)."""
        self.removed, self.added = [], []

    def _prune(self, now: float) -> None:
        self.removed = [(t, s) for t, s in self.removed if now - t <= WINDOW_S][-LIMIT:]
        self.added = [(t, s) for t, s in self.added if now - t <= WINDOW_S][-LIMIT:]
