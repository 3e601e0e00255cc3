"""What the indexer is doing to a checkout, in everyday words (``graphmem status``, freshness).

The indexer sets a checkout's ``RepoRuntime.activity`` as a job moves from step to step; the
status and every freshness line read it, from any thread, and say it in one line with the
figures it has: ``indexing 1,204 of 9,933 files``, ``reading knowledge files (120 of 340)``,
``applying an edit batch (2 files)``. Pure: no I/O, no threads."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["IDLE", "Activity", "Doing", "why_not_current"]


class Doing(Enum):
    """A step of one of the indexer's jobs."""

    IDLE = "idle"
    #: a warm restart puts the graph back from its snapshot
    LOADING = "loading"
    #: an index pass walks the tree for files changed since the graph was written
    WALKING = "walking"
    #: an index pass parses the files it found changed (``done`` of ``total`` files)
    PARSING = "parsing"
    #: an index pass puts what it parsed into the graph and judges the notes on it
    APPLYING = "applying"
    #: a pass reads knowledge files (``done`` of ``total``)
    KNOWLEDGE = "knowledge"
    #: a batch of files saved while the daemon runs (``total`` files)
    EDIT_BATCH = "edit-batch"
    #: the resolver takes back the parses a warm restart read (before anything resolves)
    HANDING_OVER = "handing-over"


@dataclass(frozen=True, slots=True)
class Activity:
    """One step of a job and its figures (0 when it has none)."""

    doing: Doing
    done: int = 0
    total: int = 0

    def words(self) -> str:
        """The step in one line of everyday words; "" when idle."""
        d, n = self.done, self.total
        if self.doing is Doing.PARSING:
            return f"indexing {d:,} of {n:,} files" if n else "indexing"
        if self.doing is Doing.KNOWLEDGE:
            return f"reading knowledge files ({d:,} of {n:,})" if n else "reading knowledge files"
        if self.doing is Doing.EDIT_BATCH:
            return f"applying an edit batch ({n:,} file{'' if n == 1 else 's'})" if n else "applying an edit batch"
        return _WORDS[self.doing]


_WORDS = {
    Doing.IDLE: "",
    Doing.LOADING: "putting the graph back from its snapshot",
    Doing.WALKING: "looking for files changed since the last index",
    Doing.APPLYING: "putting the parsed files into the graph and judging the notes on them",
    Doing.HANDING_OVER: "handing the restored parses to the resolver",
}

IDLE = Activity(Doing.IDLE)


def why_not_current(activity: Activity, *, pending: int, queued: bool, rescan: bool, head_moved: bool = False) -> str:
    """Why a checkout is not current, in one line: what its job is doing, else what waits
    (``pending`` file changes seen, a batch ``queued``, a ``rescan`` queued, HEAD moved since
    the last full pass); "" when none of these holds."""
    parts = [activity.words()] if activity.doing is not Doing.IDLE else []
    if pending:
        parts.append(f"{pending:,} saved file{'' if pending == 1 else 's'} waiting to be indexed")
    elif queued and activity.doing is not Doing.EDIT_BATCH:
        parts.append("an edit batch is waiting")
    if head_moved:
        parts.append("HEAD moved: a rescan is " + ("queued" if rescan else "due"))
    elif rescan and activity.doing is Doing.IDLE:
        parts.append("a rescan is queued")
    return "; ".join(p for p in parts if p)
