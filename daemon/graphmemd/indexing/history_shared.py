"""What git's history answered for a repository, kept for the next knowledge pass of any of its
checkouts (worktrees share one git common directory, so one history).

A knowledge pass (``knowledge_history``) judges each unit from the commit its lines were last
changed in: it blames files, asks the blob of a file at a commit and parses old versions (in
the parse workers, a round trip per step of a binary search over a file's commits). Each of
those answers depends only on what it is kept under here — a commit and a path, a blob and a
path, HEAD and the working file's bytes — so a worktree added beside an indexed checkout asks
none of them again: on attrs' 15 docs, 236 git runs and 170 old parses, ~6 s of the pass's
~8 s, for every worktree added. A name like ``HEAD`` moves: blob ids are kept for full commit
ids only (``githistory.fixed_commit``).

Bounded: the last used ``KEPT_PARSES`` parses (an old version's symbols, the largest part),
``KEPT_BLAMES`` blames and ``KEPT_IDS`` blob ids, over every repository together. Keys are
scoped by the repository's common directory and the registered folder in it (``scope``): a
folder registered inside a working tree sees paths relative to itself.

On the indexer thread only (every knowledge pass runs there): not thread-safe.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from graphmemd.graph.model import ImportRef, SymbolInfo, renamed_symbols
from graphmemd.ingest.gitparse import BlameLine

#: old versions' parses kept (attrs' docs need 170; a version of a large file is ~0.1-0.3 MB)
KEPT_PARSES = 256
#: blames of working files kept (one per file a pass reads the history of)
KEPT_BLAMES = 128
#: (commit, path) -> blob ids kept (a few hundred bytes each)
KEPT_IDS = 20_000

_K = TypeVar("_K")
_V = TypeVar("_V")


class Kept(MutableMapping[_K, _V]):
    """A mapping that keeps its ``most`` last used items (a read or a write uses one)."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._items: OrderedDict[_K, _V] = OrderedDict()

    def __getitem__(self, key: _K) -> _V:
        value = self._items[key]
        self._items.move_to_end(key)
        return value

    def __setitem__(self, key: _K, value: _V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._most:
            self._items.popitem(last=False)

    def __delitem__(self, key: _K) -> None:
        del self._items[key]

    def __iter__(self) -> Iterator[_K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items


class Scoped(MutableMapping[_K, _V], Generic[_K, _V]):
    """One repository's part of a ``Kept`` shared by every repository: keys ``(scope, key)``."""

    def __init__(self, kept: Kept[tuple[str, _K], _V], scope: str) -> None:
        self._kept = kept
        self._scope = scope

    def __getitem__(self, key: _K) -> _V:
        return self._kept[(self._scope, key)]

    def __setitem__(self, key: _K, value: _V) -> None:
        self._kept[(self._scope, key)] = value

    def __delitem__(self, key: _K) -> None:
        del self._kept[(self._scope, key)]

    def __iter__(self) -> Iterator[_K]:
        return (k for s, k in list(self._kept) if s == self._scope)

    def __len__(self) -> int:
        return sum(1 for s, _ in list(self._kept) if s == self._scope)

    def __contains__(self, key: object) -> bool:
        return (self._scope, key) in self._kept


@dataclass(frozen=True, slots=True)
class OldParse:
    """An old version of a file as a knowledge pass reads it: its symbols (with the ids of the
    checkout ``repo_id`` that parsed it), its imports, and its module-level names bound by
    value to another name (``with_ = WithExtension``)."""

    repo_id: str
    symbols: tuple[SymbolInfo, ...]
    imports: tuple[ImportRef, ...]
    bound: Mapping[str, str]

    def symbols_for(self, repo_id: str) -> list[SymbolInfo]:
        """The symbols as checkout ``repo_id`` holds them (an id begins with its checkout's)."""
        if repo_id == self.repo_id:
            return list(self.symbols)
        cut = len(self.repo_id)
        rename = {s.id: repo_id + s.id[cut:] for s in self.symbols}
        return renamed_symbols(self.symbols, rename, repo_id)


@dataclass(frozen=True, slots=True)
class RepoHistory:
    """One repository's view of the kept answers (``SharedHistory.of``): blob ids by (commit,
    path), blames by (HEAD, path, digest of the working file), old parses by ``blob:path``."""

    ids: MutableMapping[tuple[str, str], str | None]
    blames: MutableMapping[tuple[str, str, str], dict[int, BlameLine]]
    parses: MutableMapping[str, OldParse]


class SharedHistory:
    """The answers kept for every repository, bounded together (see the module doc)."""

    def __init__(self, parses: int = KEPT_PARSES, blames: int = KEPT_BLAMES, ids: int = KEPT_IDS) -> None:
        self._ids: Kept[tuple[str, tuple[str, str]], str | None] = Kept(ids)
        self._blames: Kept[tuple[str, tuple[str, str, str]], dict[int, BlameLine]] = Kept(blames)
        self._parses: Kept[tuple[str, str], OldParse] = Kept(parses)

    def of(self, scope: str) -> RepoHistory:
        """The view of the repository ``scope`` names (its common directory and the registered
        folder's place in its working tree)."""
        return RepoHistory(Scoped(self._ids, scope), Scoped(self._blames, scope), Scoped(self._parses, scope))

    def __len__(self) -> int:
        """How many parses are kept."""
        return len(self._parses)


def scope(common_dir: str, prefix: str) -> str:
    """The scope of a registered folder: its repository's common directory, its place in the
    working tree (checkouts registered at the same place see the same paths)."""
    return f"{common_dir}\0{prefix}"
