"""What one resolution run records of the files it reads (see ``names.py``): a file's path
(all of it) or one name of it, added to ``seen``; the resolver keeps each file's record to
find the files a change must resolve again (``RepoResolver.dependents_of``)."""

from __future__ import annotations

import re
import sys

from graphmemd.graph.resolution.names import SEP, TYPED, name_key, top

_IDENT = re.compile(r"[^\W\d]\w*")


class Record:
    """The record of one resolution run (the base of ``lookup.Lookup``): ``seen`` is what the
    file being resolved read of other files, and memos of reads record apart (``begin`` /
    ``end``) to add what they recorded again on each hit."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def begin(self) -> set[str]:
        """Start recording apart (for a memo): returns what was recorded so far."""
        outer = self.seen
        self.seen = set()
        return outer

    def end(self, outer: set[str]) -> frozenset[str]:
        """Stop recording apart: what was recorded since ``begin``, added to ``outer`` again."""
        seen = frozenset(self.seen)
        outer |= seen
        self.seen = outer
        return seen

    def note(self, path: str, scope: str, text: str) -> None:
        """Record a read, in ``path``, of the text ``text`` written in ``scope`` (a base, a
        stated type, a value bound to a name): the scope's top-level name and every name
        the text could look up there (its identifiers: a name of the file, an import's), and
        whether each has a stated type in some scope of the file (``names.typed_key``)."""
        seen, pre = self.seen, path + SEP
        seen.add(name_key(path, top(scope)))  # ("" for the module level: read as such too)
        for n in _IDENT.findall(text):  # (name_key and typed_key, inlined: a hot path)
            seen.add(sys.intern(pre + n))
            seen.add(sys.intern(pre + TYPED + n))
