"""**Pure**: what the code under an anchor was when it was anchored (issue 44, the review
page's "code change that caused it").

An anchor keeps the fingerprints its symbol had (signature and body hash), not its text. The
text comes back from git: the shell (``app/codechange.py``) parses the versions of the file at
the recent commits that touched it, newest first, and this core picks the version whose
symbol carries the anchored fingerprints (``exact``), or else the newest version that differs
from the code now (the anchored code was never committed, or is older than the search).
No git, no parsing, no I/O here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmemd.graph.model import SymbolInfo

__all__ = ["Found", "Wanted", "lines_of", "pick_version", "split_symbol_id"]


@dataclass(frozen=True, slots=True)
class Wanted:
    """The symbol looked for: its place (qualname and kind in a file) and the fingerprints it
    had when anchored (``body_hash`` empty: match on the signature alone; ``sig_hash`` empty:
    on the body alone, as for a renamed symbol whose head changed with its name)."""

    qualname: str
    kind: str
    sig_hash: str
    body_hash: str = ""

    def matches(self, s: SymbolInfo) -> bool:
        """Whether ``s`` is this symbol with the anchored fingerprints."""
        if self.sig_hash and s.sig_hash != self.sig_hash:
            return False
        return not self.body_hash or s.body_hash == self.body_hash


@dataclass(frozen=True, slots=True)
class Found:
    """The version picked: its position among the versions given, the symbol in it, and
    whether its fingerprints are the anchored ones."""

    index: int
    symbol: SymbolInfo
    exact: bool


def split_symbol_id(symbol_id: str) -> tuple[str, str, str]:
    """``repo:path::qualname#kind`` → (path, qualname, kind) ("" parts when it is not one)."""
    head, sep, kind = symbol_id.rpartition("#")
    if not sep:
        return "", "", ""
    where, sep, qualname = head.partition("::")
    if not sep:
        return "", "", ""
    _, _, path = where.partition(":")
    return path, qualname, kind


def _same_place(s: SymbolInfo, w: Wanted) -> bool:
    return s.qualname == w.qualname and (not w.kind or s.kind.value == w.kind)


def pick_version(
    wanted: Wanted, versions: Sequence[Sequence[SymbolInfo] | None], now: SymbolInfo | None
) -> Found | None:
    """The version (newest first in ``versions``; None: the file was not there) whose symbol
    has the anchored fingerprints; else the newest whose symbol differs from ``now`` (the
    symbol today, None when it is gone); else None."""
    fallback: Found | None = None
    for i, symbols in enumerate(versions):
        for s in symbols or ():
            if not _same_place(s, wanted):
                continue
            if wanted.matches(s):
                return Found(i, s, True)
            differs = now is None or (s.sig_hash, s.body_hash) != (now.sig_hash, now.body_hash)
            if fallback is None and differs:
                fallback = Found(i, s, False)
    return fallback


def lines_of(data: bytes, start: int, end: int) -> str:
    """Lines ``start``..``end`` (1-based, inclusive) of ``data``, decoded (bad bytes replaced)."""
    if start <= 0 or end < start:
        return ""
    lines = data.decode("utf-8", "replace").splitlines()
    return "\n".join(lines[start - 1 : end])
