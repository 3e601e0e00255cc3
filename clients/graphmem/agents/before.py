"""PURE: whether an agent's edit changed a file, judged against the file's state *before* it.

The post-edit hook runs after a client's edit tool wrote files. It speaks only of what that
edit changed, so it needs the file as it was before the edit. The hook keeps, per session, the
content digest of each file as the session's last post-edit left it (``mine``), and, for all
sessions of this daemon, which session last reported each file and in what state (``last``).
A file's verdict, in order:

1. the session has a record of the file: changed when the digest differs from it, else not;
2. another session's hook last reported the file in its current state: that session made it so,
   not this edit (a new session does not inherit another session's edit);
3. the file was modified more than ``FRESH_WRITE_S`` before the hook started: this tool call did
   not write it (the change on disk is older: a checkout, another agent, an editor);
4. otherwise the edit wrote it: changed (the daemon then calls out only the uncommitted reasons
   it found since the file's modification time).

A file that is unchanged (1-3) is not sent to the daemon at all. No client sends the file's
content before the edit, so a session's first edit of a file that something else changed within
``FRESH_WRITE_S`` and this tool did not write (or wrote back byte for byte before the daemon
took the other change in) is the one case still told as the agent's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import NamedTuple

__all__ = ["FRESH_WRITE_S", "FileNow", "Verdict", "judge"]

#: A file modified longer ago than this when the post-edit hook starts was not written by the
#: tool call the hook follows (clients run the hook as soon as the tool returns).
FRESH_WRITE_S = 10.0


class Verdict(Enum):
    """What the edit did to one file."""

    CHANGED = "changed"
    SAME_AS_BEFORE = "same as this session last saw it"
    ANOTHER_SESSION = "as another session's edit left it"
    NOT_WRITTEN = "not written by this edit"


class FileNow(NamedTuple):
    """An edited file as it is now: its content digest ("" when it does not exist) and its
    modification time (seconds; 0 when it does not exist). (A ``NamedTuple``, not a dataclass:
    ``dataclasses`` costs a hook process ~40 M instructions to import.)"""

    path: str
    digest: str
    mtime: float


def judge(
    f: FileNow,
    *,
    session: str,
    mine: Mapping[str, str],
    last: Mapping[str, tuple[str, str]],
    now: float,
) -> Verdict:
    """The verdict on ``f`` for ``session`` (module docstring): ``mine`` path -> the digest this
    session last saw, ``last`` path -> (digest, session) of the last hook that reported it."""
    if f.path in mine:
        return Verdict.SAME_AS_BEFORE if mine[f.path] == f.digest else Verdict.CHANGED
    digest, who = last.get(f.path, ("", ""))
    if who and f.digest and digest == f.digest:
        return Verdict.SAME_AS_BEFORE if who == session else Verdict.ANOTHER_SESSION
    if f.digest and f.mtime < now - FRESH_WRITE_S:
        return Verdict.NOT_WRITTEN
    return Verdict.CHANGED
