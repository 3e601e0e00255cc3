"""The registry's checkouts as memory sees them (``memory.checkout_views.CheckoutMap``).

Which checkouts share a repository (the registry), where each one's HEAD is (read from
``.git``), whether a commit is an ancestor of it (``git merge-base --is-ancestor``, asked
only for a note whose anchors a checkout lacks, and remembered per commit pair) and whether any
ref still holds a commit (``git for-each-ref --contains``: a branch deleted unmerged).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TypeVar

from graphmem.types import IndexState

from graphmemd.ingest.gitinfo import head_commit, is_ancestor, on_some_ref, refs_signature, uncommitted_paths
from graphmemd.ingest.registry import RepoRegistry

_K = TypeVar("_K", bound=tuple[object, ...])

#: answers remembered per cache (a commit pair's ancestry never changes)
_ANCESTRY_CACHE = 4096
#: how long a repository's refs as read (``refs_signature``) are taken as they are: one
#: refresh of a checkout's views asks for them per note "on branch" (a listing of every loose
#: ref: ~9 ms at 3,000 remote-tracking branches); a branch made or deleted is read at once
#: all the same (``refs_now``, when the common directory's watch sees it)
REFS_TTL_S = 1.0


class RegistryCheckouts:
    """``CheckoutMap`` over the registry."""

    def __init__(self, registry: RepoRegistry) -> None:
        self._registry = registry
        self._lock = threading.Lock()
        self._ancestry: OrderedDict[tuple[str, str], bool] = OrderedDict()
        #: (commit, the repository's refs as they were) -> whether a ref holds it
        self._on_refs: OrderedDict[tuple[str, tuple[str, ...]], bool] = OrderedDict()
        #: common directory -> (when its refs were read, ``refs_signature``)
        self._refs: dict[Path, tuple[float, tuple[str, ...]]] = {}

    def refs_now(self, common_dir: Path) -> tuple[str, ...]:
        """The repository's refs read now (``refs_signature``), and kept as its latest: the
        caller judges notes again because they changed."""
        signature = refs_signature(common_dir)
        with self._lock:
            self._refs[common_dir] = (time.monotonic(), signature)
        return signature

    def _refs_of(self, common_dir: Path) -> tuple[str, ...]:
        """The repository's refs as read within ``REFS_TTL_S``, else read now."""
        with self._lock:
            kept = self._refs.get(common_dir)
        if kept is not None and time.monotonic() - kept[0] < REFS_TTL_S:
            return kept[1]
        return self.refs_now(common_dir)

    def repository_of(self, checkout_id: str) -> str:
        """The repository of a checkout registered now or before."""
        return self._registry.repository_of(checkout_id)

    def showing(self, checkout_id: str) -> list[str]:
        """The other checkouts of the repository whose code is indexed."""
        return [rt.id for rt in self._registry.siblings(checkout_id) if self.is_indexed(rt.id)]

    def is_indexed(self, checkout_id: str) -> bool:
        """Whether the checkout is registered and its code is in the graph."""
        rt = self._registry.get(checkout_id)
        return rt is not None and (rt.n_files > 0 or rt.state is IndexState.READY)

    def shares(self, checkout_id: str) -> bool:
        """Whether the checkout's repository has (or had) another checkout."""
        return len(self._registry.members(self._registry.repository_of(checkout_id))) > 1

    def head(self, checkout_id: str) -> str:
        """The commit the checkout's HEAD is at."""
        rt = self._registry.get(checkout_id)
        return head_commit(rt.root) if rt is not None else ""

    def uncommitted(self, checkout_id: str, paths: Collection[str]) -> frozenset[str]:
        """Those of ``paths`` whose file in the checkout's working tree differs from its HEAD."""
        rt = self._registry.get(checkout_id)
        return uncommitted_paths(rt.root, paths) if rt is not None else frozenset()

    def gone(self, checkout_id: str) -> bool:
        """Whether the checkout is no longer registered (a worktree removed)."""
        return self._registry.get(checkout_id) is None

    def abandoned(self, checkout_id: str, commit: str) -> bool:
        """Whether no branch, remote-tracking branch or tag of the checkout's repository holds
        ``commit`` any more (its branch deleted unmerged: its code will not arrive), nor the
        HEAD of any of its checkouts (a worktree at a detached HEAD, as some agents' are: its
        commits are on no branch while it holds them). Asked of git once per commit while the
        refs stay as they are (and, for a HEAD, while it stays where it is)."""
        rt = self._registry.get(checkout_id)
        if rt is None or rt.common_dir is None or not commit:
            return False
        root, key = rt.root, (commit, self._refs_of(rt.common_dir))
        if self._remembered(self._on_refs, key, lambda: on_some_ref(root, commit)):
            return False
        return not any(self.contains(each.id, commit) for each in (rt, *self._registry.siblings(checkout_id)))

    def contains(self, checkout_id: str, commit: str) -> bool:
        """Whether ``commit`` is an ancestor of the checkout's HEAD."""
        rt = self._registry.get(checkout_id)
        if rt is None:
            return False
        head, root = head_commit(rt.root), rt.root
        return self._remembered(self._ancestry, (commit, head), lambda: is_ancestor(root, commit, head))

    def _remembered(self, cache: OrderedDict[_K, bool], key: _K, ask: Callable[[], bool]) -> bool:
        """``cache``'s answer for ``key``, else ``ask``'s (git's), kept (the oldest dropped past
        ``_ANCESTRY_CACHE``)."""
        with self._lock:
            known = cache.get(key)
        if known is None:
            known = ask()
            with self._lock:
                cache[key] = known
                while len(cache) > _ANCESTRY_CACHE:
                    cache.popitem(last=False)
        return known
