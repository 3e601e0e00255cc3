"""The commit that made a change a knowledge pass reports (``knowledge_history``).

The commit after the one a unit's lines were written in that gave a symbol what it has now:
a binary search over the commits that touched the symbol's file (followed through renames),
each version parsed once, for the first whose symbol has today's signature and body — or the
part that changed (``Want``): so an edit of a docstring or a comment since is not named, and a
daemon that saw the change live names the same commit as a cold check. The searches a pass
needs for a group of files run side by side (``commit_search``): each round's versions are
read in one git call and parsed in parallel, where one search after the other waited for a
parse worker's round trip per step of each.

On the indexer thread (every knowledge pass runs there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from graphmem.types import ChangeKind, StaleReason

from graphmemd.graph.model import SymbolInfo
from graphmemd.graph.signatures import parameter_names
from graphmemd.indexing.commit_search import Bisection, Version, bisect_together
from graphmemd.indexing.old_versions import OldVersions
from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.gitparse import BlameLine, LoggedCommit

UnitCommit = tuple[str, int] | None  # (commit, committer time); None: written now


class Part(Enum):
    """Which part of a symbol a version must have as it is now."""

    #: its signature and its body (any change)
    WHOLE = "whole"
    #: its signature's hash
    SIGNATURE = "signature"
    #: its parameters' names
    PARAMETERS = "parameters"


@dataclass(frozen=True, slots=True)
class Want:
    """What the version searched for has of a symbol as it is now (``value``: that part)."""

    part: Part
    value: tuple[str, ...] | None

    @classmethod
    def whole(cls, s: SymbolInfo) -> Want:
        """The version that has ``s``'s signature and body."""
        return cls(Part.WHOLE, (s.sig_hash, s.body_hash))

    @classmethod
    def of_reason(cls, s: SymbolInfo, r: StaleReason) -> Want:
        """The version that made the change ``r`` reports of ``s``: for a signature change, the
        one that gave ``s`` its current parameters (when those changed; else its current
        signature) — not a later edit of an annotation or of the body."""
        if r.change is not ChangeKind.SIGNATURE_CHANGED:
            return cls.whole(s)
        names = parameter_names(s.signature)
        if names != parameter_names(r.old_signature):
            return cls(Part.PARAMETERS, names)
        return cls(Part.SIGNATURE, (s.sig_hash,))

    def fits(self, then: SymbolInfo) -> bool:
        """Whether ``then`` (the symbol in an old version) has it."""
        if self.part is Part.PARAMETERS:
            return parameter_names(then.signature) == self.value
        if self.part is Part.SIGNATURE:
            return (then.sig_hash,) == self.value
        return (then.sig_hash, then.body_hash) == self.value


#: a search's question: the symbol, the commit its unit was written in, what the version has
Ask = tuple[SymbolInfo, UnitCommit, Want]


class ChangeCommits:
    """One pass's change commits, each found once (see the module doc)."""

    def __init__(self, git: GitHistory, versions: OldVersions) -> None:
        self.git = git
        self.versions = versions
        self._found: dict[tuple[str, int, int, UnitCommit, Want], str] = {}
        self._after: dict[UnitCommit, list[LoggedCommit]] = {}
        #: rounds of side-by-side searches run (for tests and the log)
        self.rounds = 0

    def find(self, asks: Sequence[Ask]) -> list[str]:
        """The commit of each ask: "" when one of the symbol's lines is not committed (a live
        change); the newest commit among its lines when the search finds none."""
        keys = [(s.id, s.start_line, s.end_line, when, want) for s, when, want in asks]
        todo: dict[tuple[str, int, int, UnitCommit, Want], tuple[Ask, list[BlameLine | None]]] = {}
        for key, ask in zip(keys, asks, strict=True):
            if key in self._found or key in todo:
                continue
            s = ask[0]
            blame = self.git.blame(s.path)
            lines = [blame.get(n) for n in range(s.start_line, s.end_line + 1)]
            if not blame or any(b is not None and not b.committed for b in lines):
                self._found[key] = ""
            else:
                todo[key] = (ask, lines)
        items = list(todo.items())
        searches = [Bisection(self.commits_to(ask[0].path, ask[1])) for _, (ask, _) in items]

        def fits(i: int, version: Version) -> bool:
            s, _, want = items[i][1][0]
            syms = self.versions.symbols([version])[version] or []
            then = next((o for o in syms if o.qualname == s.qualname and o.kind is s.kind), None)
            return then is not None and want.fits(then)

        self.rounds += bisect_together(searches, self.versions.symbols, fits)
        for (key, ((_, when, _), lines)), search in zip(items, searches, strict=True):
            self._found[key] = search.found or _newest(lines, when)
        return [self._found[k] for k in keys]

    def after(self, when: UnitCommit) -> list[LoggedCommit]:
        """The commits since ``when`` (its second included, its own commit not), oldest first;
        every commit with no ``when``."""
        got = self._after.get(when)
        if got is None:
            since, own = (when[1], when[0]) if when is not None else (-1, "")
            got = self._after[when] = [c for c in reversed(self.git.timeline()) if c.time >= since and c.commit != own]
        return got

    def commits_to(self, path: str, when: UnitCommit) -> list[Version]:
        """(commit, the file's path then) for each commit after ``when`` that made the file
        what it is now at ``path``, oldest first, following its renames backwards."""
        out: list[Version] = []
        current = path
        for c in reversed(self.after(when)):  # newest first
            for status, old, new in c.changes:
                if new == current:
                    out.append((c.commit, current))
                    current = old if status == "R" else current
                    break
        out.reverse()
        return out


def _newest(lines: list[BlameLine | None], when: UnitCommit) -> str:
    """The newest commit among ``lines`` after ``when`` ("" when none is)."""
    since, own = (when[1], when[0]) if when is not None else (-1, "")
    newer = [b for b in lines if b is not None and (b.time > since or (b.time == since and b.commit != own))]
    return max(newer, key=lambda b: b.time).commit if newer else ""
