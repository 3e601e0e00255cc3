"""Binary searches over a file's commits, run side by side (pure: no I/O).

A knowledge pass names the commit that made each change it reports (``knowledge_history``):
the first of the commits that touched a file whose version of a symbol has what the symbol
has now. Each step of such a search reads and parses one old version; run one after the
other, a pass waited for a parse worker's round trip per step of every search (attrs' docs:
170 versions, one at a time). Run together, each round asks for every search's next version
at once (``bisect_together``): the versions are read in one git call and parsed in parallel,
and a pass waits for as many rounds as its longest search has steps. Each search takes
exactly the steps it would take alone: the answers are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: a commit and the file's path at that commit
Version = tuple[str, str]


@dataclass(slots=True)
class Bisection:
    """The search for the first of ``commits`` (oldest first) whose version fits: versions
    before it do not, from it on they do (the search assumes so). ``found``: that commit,
    "" while none was seen to fit."""

    commits: Sequence[Version]
    lo: int = 0
    hi: int = -1
    found: str = ""

    def __post_init__(self) -> None:
        self.hi = len(self.commits) - 1

    @property
    def done(self) -> bool:
        """Whether the search has ended (to the end: cut short, it would answer by HEAD)."""
        return self.lo > self.hi

    @property
    def next(self) -> Version:
        """The version the next step reads (only while not ``done``)."""
        return self.commits[(self.lo + self.hi) // 2]

    def answer(self, fits: bool) -> None:
        """Take whether ``next`` fits."""
        mid = (self.lo + self.hi) // 2
        if fits:
            self.found, self.hi = self.commits[mid][0], mid - 1
        else:
            self.lo = mid + 1


def bisect_together(
    searches: Sequence[Bisection],
    read: Callable[[list[Version]], object],
    fits: Callable[[int, Version], bool],
) -> int:
    """Run ``searches`` to their end side by side: each round, ``read`` is given the versions
    every search still running reads next (at once), then ``fits(i, version)`` answers search
    ``i``'s step. Returns how many rounds it took."""
    rounds = 0
    while running := [i for i, s in enumerate(searches) if not s.done]:
        rounds += 1
        read(list(dict.fromkeys(searches[i].next for i in running)))
        for i in running:
            searches[i].answer(fits(i, searches[i].next))
    return rounds
