"""The read side's narrow, read-only view of the daemon's state.

Retrieval and the service read through this and nothing else: the graph (only inside
``reading()``, which keeps the indexer from swapping a change in meanwhile), the
repositories, the observations, the text indexes and the index freshness. They never see
the lock, the store or a mutable graph.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

from graphmem.errors import InvalidArgument
from graphmem.types import Anchor, EdgeConfidence, EdgeKind, Freshness, Observation

from graphmemd.graph.codegraph import Adjacent, FileNode
from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.model import SymbolInfo
from graphmemd.graph.symbol_match import Matches, close_matches
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.memory.observations import ObservationBook
from graphmemd.memory.projections import Projections
from graphmemd.memory.staleness import file_anchor, symbol_anchor


class GraphReader(Protocol):
    """The read-only part of the code graph."""

    @property
    def files(self) -> Mapping[str, FileNode]:
        """File nodes by file id."""
        ...

    @property
    def symbols(self) -> Mapping[str, SymbolInfo]:
        """Symbols by id."""
        ...

    def adjacency(self, node: str) -> tuple[Adjacent, ...]:
        """Every neighbour of ``node`` with the edge kind as walked from it."""
        ...

    def adjacency_within(self, node: str, at_most: int) -> tuple[Adjacent, ...] | None:
        """``adjacency``, or None when ``node`` has more than ``at_most`` edges."""
        ...

    def degree(self, node: str, at_most: int | None = None) -> int:
        """How many edges touch ``node`` (``at_most``: at most that many are counted)."""
        ...

    def out(self, node: str, kind: EdgeKind) -> set[str]:
        """Targets of ``node``'s outgoing edges of ``kind``."""
        ...

    def into(self, node: str, kind: EdgeKind) -> set[str]:
        """Sources of ``node``'s incoming edges of ``kind``."""
        ...

    def unresolved(self, node: str) -> list[str]:
        """Call texts of ``node`` that resolved to nothing in the repository."""
        ...

    def confidence(self, a: str, kind: EdgeKind, b: str) -> EdgeConfidence | None:
        """How the edge ``a -kind-> b`` (``kind`` as walked) was resolved."""
        ...

    def file_symbols(self, repo_id: str, path: str) -> list[SymbolInfo]:
        """The symbols defined in a file."""
        ...

    def repo_files(self, repo_id: str) -> list[FileNode]:
        """Every file of a repository."""
        ...

    def ref_of(self, node: str) -> str:
        """``path::qualname`` of a symbol, ``path`` of a file."""
        ...

    def by_name(self, name: str) -> set[str]:
        """Ids of the symbols with this name (case-insensitive)."""
        ...

    def find(self, pattern: str, repo_id: str = "", kinds: Iterable[str] = (), limit: int = 50) -> list[SymbolInfo]:
        """Symbols whose name, qualname or ref match a glob."""
        ...

    def search_symbols(self, text: str, limit: int, repo_id: str = "") -> list[tuple[str, float]]:
        """BM25 hits (symbol id, score) over identifier words, best first."""
        ...


#: How many candidates an ambiguous reference's error lists.
_LISTED = 8


class ReadView:
    """Everything the read side may read, and nothing it may change."""

    def __init__(
        self,
        state: GraphState,
        registry: RepoRegistry,
        book: ObservationBook,
        freshness: Callable[[Iterable[RepoRuntime]], Freshness],
        projections: Projections | None = None,
    ) -> None:
        self._state = state
        self._registry = registry
        self._book = book
        self._freshness = freshness
        #: the notes each checkout shows from its siblings (``memory/checkouts.py``)
        self._projections = projections or Projections()

    # ------------------------------------------------------------------ graph

    @contextmanager
    def reading(self) -> Iterator[GraphReader]:
        """The code graph, consistent for the duration of the block."""
        with self._state.reading() as graph:
            yield graph

    def resolve_anchor(self, ref: str, repo_hint: str = "") -> Anchor:
        """An anchor for ``path::qualname``, a file path or a symbol id, with its current
        fingerprints. A shorter reference (``hash_password``, ``AppContext.push``,
        ``crypto.py::hash_password``) that names exactly one symbol of the repositories in scope
        is that symbol (``symbol_match``); otherwise InvalidArgument listing the candidates once
        (the ones it names when ambiguous, else the close matches)."""
        ref = ref.strip()
        if not ref:
            raise InvalidArgument("an anchor reference is empty")
        with self._state.reading() as graph:
            try:
                return self._literal_anchor(graph, ref, repo_hint)
            except InvalidArgument as exc:
                scope = {rt.id for rt in self._registry.scope(repo_hint)}
                found = close_matches(ref, (s for s in graph.symbols.values() if s.repo_id in scope), limit=5)
                if found.exact:
                    return symbol_anchor(found.symbols[0])
                raise self._unresolved(graph, ref, repo_hint, found, exc) from None

    def _literal_anchor(self, graph: GraphReader, ref: str, repo_hint: str) -> Anchor:
        """``ref`` as written: a symbol id, ``path::qualname`` or a file path."""
        if "#" in ref and ref in graph.symbols:
            return symbol_anchor(graph.symbols[ref])
        path_part, _, qual = ref.partition("::")
        rt, rel = self._registry.locate(path_part, repo_hint)
        if not qual:
            fp = self._state.file_fingerprint(rt.id, rel)
            if fp is None:
                raise InvalidArgument(f"anchor {ref!r} does not resolve in repository {rt.id}")
            return file_anchor(rt.id, rel, fp)
        matches = [s for s in graph.file_symbols(rt.id, rel) if s.qualname == qual]
        if not matches:
            raise InvalidArgument(f"anchor {ref!r} does not resolve in repository {rt.id}")
        return symbol_anchor(sorted(matches, key=lambda s: s.kind.value == "module")[0])

    def _unresolved(
        self, graph: GraphReader, ref: str, repo_hint: str, found: Matches, literal: InvalidArgument
    ) -> InvalidArgument:
        """The error of a reference that names no one symbol: the symbols it names when it is
        ambiguous; else the closest symbols of the file it names, its close matches anywhere,
        or the closest files (a file path)."""
        if len({s.repo_id for s in found.named}) > 1:
            return literal  # the same name in several repositories: the repository is what to name
        if len(found.named) > 1:
            named = [s.ref for s in found.named[:_LISTED]]
            more = f" and {len(found.named) - _LISTED} more" if len(found.named) > _LISTED else ""
            return InvalidArgument(f"anchor {ref!r} names {len(found.named)} symbols; give one in full: "
                                   f"{', '.join(named)}{more}", reference=ref, close_matches=named)
        path_part, sep, _ = ref.partition("::")
        pool: list[str] = []
        try:
            rt, rel = self._registry.locate(path_part, repo_hint)
            pool = [s.ref for s in graph.file_symbols(rt.id, rel)] if sep else []
        except InvalidArgument:
            pass
        refs = difflib.get_close_matches(ref, pool, n=5, cutoff=0.4) if pool else [s.ref for s in found.symbols]
        refs = list(dict.fromkeys(refs))  # one ref per line of code, whatever the repositories holding it
        if not refs and not sep:
            files = [n.path for rt in self._registry.scope(repo_hint) for n in graph.repo_files(rt.id)]
            refs = difflib.get_close_matches(ref, files, n=5, cutoff=0.4)
        hint = f"; close matches: {', '.join(refs)}" if refs else ""
        return InvalidArgument(f"{literal.message}{hint}", reference=ref, close_matches=refs)

    def current_anchor(self, a: Anchor) -> Anchor | None:
        """``a`` re-taken on the current code (same symbol or file), or None when it is gone."""
        with self._state.reading() as graph:
            if a.symbol_id:
                s = graph.symbols.get(a.symbol_id)
                return symbol_anchor(s) if s is not None else None
            fp = self._state.file_fingerprint(a.repo_id, a.path)
            return file_anchor(a.repo_id, a.path, fp) if fp is not None else None

    # ------------------------------------------------------------------ repositories

    def repo(self, hint: str) -> RepoRuntime:
        """A repository by id or path inside it ("" with one registered)."""
        return self._registry.find(hint)

    def registered(self, checkout: str) -> bool:
        """Whether the checkout ``checkout`` is registered now (not a worktree since removed)."""
        return self._registry.get(checkout) is not None

    def heir(self, checkout: str, preferred: str = "") -> str:
        """A registered checkout of the repository the gone checkout ``checkout`` belonged to:
        ``preferred`` when it is one, else the repository's main working tree when registered,
        else the first by id ("": none)."""
        ids = [rt.id for rt in self._registry.siblings(checkout)]  # (of a gone checkout: all of them, by id)
        return next((c for c in (preferred, self._registry.repository_of(checkout)) if c in ids), ids[0] if ids else "")

    def repos(self, hint: str = "") -> list[RepoRuntime]:
        """The repositories a query covers: the one named, or every one."""
        return self._registry.scope(hint)

    def locate(self, path: str, repo_hint: str) -> tuple[RepoRuntime, str]:
        """(repository, relative path) of a file path."""
        return self._registry.locate(path, repo_hint)

    def freshness(self, repos: Iterable[RepoRuntime]) -> Freshness:
        """How current the index of ``repos`` is."""
        return self._freshness(repos)

    # ------------------------------------------------------------------ observations

    def full_id(self, ref: str) -> str:
        """The observation id ``ref`` stands for (a unique start of one: ``ObservationBook.full_id``)."""
        return self._book.full_id(ref)

    def observation(self, obs_id: str) -> Observation:
        """One observation (NotFound when there is none)."""
        return self._book.get(obs_id)

    def observation_in(self, obs_id: str, checkouts: Iterable[str]) -> Observation:
        """One observation as the first of ``checkouts`` that shows it from a sibling shows it,
        else as saved (NotFound when there is none)."""
        for checkout in checkouts:
            p = self._projections.get(checkout, obs_id)
            if p is not None:
                return p
        return self._book.get(obs_id)

    def observations(self) -> list[Observation]:
        """Every observation (a snapshot), as saved."""
        return self._book.all()

    def observations_in(self, checkout: str) -> list[Observation]:
        """Every observation ``checkout`` shows: its own and its siblings' (judged on its code)."""
        return self.observations_shown((checkout,))

    def observations_shown(self, checkouts: Iterable[str]) -> list[Observation]:
        """Every observation ``checkouts`` show (``observations_in`` of each), a note shown by
        several of them once: as its home checkout shows it when that is one of them, else as
        the first of them shows it."""
        ids = list(dict.fromkeys(checkouts))
        home = set(ids)
        own = [o for o in self._book.all() if o.repo_id in home]
        seen = {o.id for o in own}
        shown = list(own)
        for checkout in ids:
            for p in self._projections.in_checkout(checkout):
                if p.id not in seen:
                    seen.add(p.id)
                    shown.append(p)
        return shown

    def anchored_in(self, nodes: Mapping[str, object]) -> dict[str, list[Observation]]:
        """Observations anchored to any of ``nodes``, by node (those a checkout shows from its
        siblings included: their anchors are in its ids)."""
        out = self._book.anchored_in(nodes)
        for node, shown in self._projections.anchored_in(nodes).items():
            out.setdefault(node, []).extend(shown)
        return out

    def anchored_in_file(self, repo_id: str, path: str) -> list[Observation]:
        """Observations anchored to a file or to one of its symbols (present or gone)."""
        return self._book.anchored_in_file(repo_id, path) + self._projections.anchored_in_file(repo_id, path)

    def anchored_to(self, node: str) -> list[Observation]:
        """Observations anchored to ``node``."""
        return self._book.anchored_to(node) + self._projections.anchored_in({node: None}).get(node, [])

    # ------------------------------------------------------------------ text

    def search_observations(self, text: str, limit: int) -> list[tuple[str, float]]:
        """BM25 hits (observation id, score) over observation text and tags."""
        return self._book.search(text, limit)
