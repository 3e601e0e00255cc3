"""The indexer's pure core: old graph + parse results -> an immutable graph delta.

No threads, no I/O, no store: ``build_delta`` compares what the graph holds for a
repository with freshly parsed files, diffs every symbol (``diff.py``), feeds the parses to
the repository's resolver (an in-memory structure) and returns a ``GraphDelta``: files
added/changed/removed with their symbols, each symbol's change kind, and the edges to put
in place of the outgoing edges of the changed files and of the files that depend on them.

``apply_delta`` puts a delta into a ``CodeGraph`` (the caller holds whatever lock guards
it). Memory (``staleness.py``) turns the same delta into observation state changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Protocol

from graphmem.types import EdgeKind

from graphmemd.graph.codegraph import CodeGraph, FileNode
from graphmemd.graph.diff import diff_symbols
from graphmemd.graph.model import (
    CallShape,
    ChangeKind,
    Language,
    ParsedFile,
    ResolvedEdges,
    SymbolChange,
    SymbolInfo,
    SymbolKind,
    SymbolState,
    file_fingerprint,
    file_id,
    symbols_of,
)
from graphmemd.graph.recent import RecentSymbols
from graphmemd.graph.resolution import RepoResolver
from graphmemd.graph.signatures import DefaultSeen, callers_unaffected, changed_defaults, sees_default


@dataclass(frozen=True, slots=True)
class ParsedUnit:
    """One freshly parsed file: the parse, its content hash and byte size."""

    parsed: ParsedFile
    content_hash: str
    size: int
    #: ``parsed`` as the parse cache's text when the worker sent it so (else encoded at store time)
    cache: str | None = None


@dataclass(frozen=True, slots=True)
class OldFile:
    """What the graph held for a file before the change."""

    path: str
    content_hash: str
    symbols: tuple[SymbolInfo, ...]


@dataclass(frozen=True, slots=True)
class FileUpdate:
    """A file added or changed by the delta, with its new symbols."""

    path: str
    language: Language
    content_hash: str
    size: int
    syntax_errors: int
    symbols: tuple[SymbolInfo, ...]


@dataclass(frozen=True, slots=True)
class Impact:
    """A node that depends on a symbol whose signature changed or that was removed.

    ``dependent`` is a symbol id (a caller, a subclass) or a file id (a file importing the
    symbol's file, or calling it at file level); ``via`` is the edge from it towards the
    changed symbol, ``hops`` how many such edges away it is."""

    dependent: str
    dependency: SymbolState
    change: ChangeKind
    new_signature: str
    via: EdgeKind
    hops: int
    #: how a direct caller sees a changed default (``signatures.sees_default``: the parameters
    #: it leaves out); None for any other impact, or when its call sites are not known
    caller: DefaultSeen | None = None


class EdgeView(Protocol):
    """The incoming edges of a node, as the graph held them before a delta."""

    def into(self, node: str, kind: EdgeKind) -> set[str]:
        """Sources of ``node``'s incoming edges of ``kind``."""
        ...


class CallSites(Protocol):
    """How callers pass their arguments (the repository's resolver: ``RepoResolver.call_sites``)."""

    def call_sites(self, caller: str, callee: str) -> tuple[tuple[str, bool], ...] | None:
        """Each call site's ``CallShape.text`` from ``caller`` to ``callee`` and whether it
        names the callee through a module or class; None when not known."""
        ...

    def reads(self, reader: str, path: str, qualname: str) -> bool | None:
        """Whether the file ``reader`` uses, of the file ``path``, the name the symbol
        ``qualname`` is under (or the whole file); None when not known."""
        ...


def caller_sees(sites: tuple[tuple[str, bool], ...] | None, sig: str, names: Sequence[str]) -> DefaultSeen | None:
    """Whether a caller whose call sites are ``sites`` sees the changed defaults of ``names``
    in the function ``sig`` (its new signature): how the first site that leaves one out does
    (``signatures.sees_default``), None when every site passes them all, ``DefaultSeen()``
    (no names) when the sites are not known (then it may: every caller is suspect, as for
    any other change)."""
    if not sites:
        return DefaultSeen()
    for text, through_name in sites:
        shape = CallShape.parse(text)
        seen = sees_default(shape, through_name, sig, names) if shape is not None else DefaultSeen()
        if seen is not None:
            return seen
    return None


_IMPACTING = (ChangeKind.SIGNATURE_CHANGED, ChangeKind.REMOVED)
_CALLABLE = (SymbolKind.FUNCTION, SymbolKind.METHOD)


def _impacting(c: SymbolChange) -> bool:
    """Whether a change can reach its dependents: a removal, or a signature change a caller
    can notice (a new optional parameter cannot; an annotation change is not a signature
    change, ``ANNOTATIONS_CHANGED``)."""
    if c.kind not in _IMPACTING or c.old is None:
        return False
    if c.kind is ChangeKind.SIGNATURE_CHANGED and c.new is not None and c.old.kind in _CALLABLE:
        return not callers_unaffected(c.old.signature, c.new.signature)
    return True


def impacts_of(graph: EdgeView, delta: GraphDelta, hops: int, sites: CallSites | None = None) -> tuple[Impact, ...]:
    """Who depends, ``hops`` edges away at most, on the symbols ``delta`` re-signed (in a way
    a caller can notice: ``_impacting``) or removed: callers and subclasses of the symbol,
    and files importing its file that use it (``_importers``). Read from the graph *before*
    the delta is applied (a removed symbol's callers are gone after).

    A function whose only change a caller can notice is changed defaults
    (``signatures.changed_defaults``) reaches only its callers, and of those, with ``sites``,
    only the ones with a call site that leaves such a parameter out (``caller_sees``; a
    caller whose sites are not known is reached)."""
    if hops <= 0:
        return ()
    out: dict[tuple[str, str], Impact] = {}
    for c in delta.changes:
        if not _impacting(c) or c.old is None:
            continue
        new_sig = c.new.signature if c.new is not None else ""
        defaults = changed_defaults(c.old.signature, new_sig) if c.kind is ChangeKind.SIGNATURE_CHANGED else ()
        seen_by: dict[str, DefaultSeen] = {}
        frontier: list[tuple[str, EdgeKind]]
        if defaults:
            for n in graph.into(c.old.id, EdgeKind.CALLS):
                seen = caller_sees(sites.call_sites(n, c.old.id) if sites is not None else None, new_sig, defaults)
                if seen is not None:
                    seen_by[n] = seen
            frontier = [(n, EdgeKind.CALLS) for n in seen_by]
        else:
            frontier = [
                *((n, EdgeKind.CALLS) for n in graph.into(c.old.id, EdgeKind.CALLS)),
                *((n, EdgeKind.INHERITS) for n in graph.into(c.old.id, EdgeKind.INHERITS)),
                *((n, EdgeKind.IMPORTS) for n in _importers(graph, delta.repo_id, c.old, sites)),
            ]
        for depth in range(1, hops + 1):
            nxt: list[tuple[str, EdgeKind]] = []
            for node, via in sorted(frontier):
                key = (node, c.old.id)
                if key in out or node == c.old.id:
                    continue
                caller = seen_by.get(node) if depth == 1 else None
                out[key] = Impact(node, c.old, c.kind, new_sig, via, depth, caller if caller and caller.names else None)
                nxt.extend((n, EdgeKind.CALLS) for n in graph.into(node, EdgeKind.CALLS))
                nxt.extend((n, EdgeKind.INHERITS) for n in graph.into(node, EdgeKind.INHERITS))
            frontier = nxt
    return tuple(sorted(out.values(), key=lambda i: (i.dependent, i.dependency.id)))


def _importers(graph: EdgeView, repo_id: str, old: SymbolState, sites: CallSites | None) -> list[str]:
    """The files importing ``old``'s file that use it: a file that imports other names of it
    (``from .environment import get_spontaneous_environment``) cannot notice a change of
    ``Environment.from_string``; one whose use is not known counts."""
    prefix = repo_id + ":"
    out = []
    for n in sorted(graph.into(file_id(repo_id, old.path), EdgeKind.IMPORTS)):
        uses = sites.reads(n[len(prefix) :], old.path, old.qualname) if sites and n.startswith(prefix) else None
        if uses is not False:
            out.append(n)
    return out


@dataclass(frozen=True, slots=True)
class GraphDelta:
    """An immutable change to one repository's code graph.

    ``cold``: the graph held nothing for the repository (a first index), so there is no
    symbol diff and every observation of the repository must be re-evaluated.
    ``edge_sources``: files whose outgoing edges ``edges`` replaces besides the changed ones
    (their dependents, re-resolved because a target may have moved).
    """

    repo_id: str
    cold: bool
    changed: tuple[FileUpdate, ...]
    removed: tuple[str, ...]
    changes: tuple[SymbolChange, ...]
    edges: ResolvedEdges
    edge_sources: tuple[str, ...]
    #: The parses come from a different parser than the graph's (an upgrade): fingerprints
    #: may differ without the code having changed. Memory re-anchors what still matched the
    #: old fingerprints instead of marking it stale (``staleness.rebase``).
    rebase: bool = False
    #: With ``rebase``: each changed file's structural fingerprint before the delta.
    old_fingerprints: tuple[tuple[str, str], ...] = ()
    #: With ``rebase``: symbols of files whose bytes did not change that the new parser names
    #: differently (e.g. overloads), paired by their place in the file: (before, after).
    renamed_by_parser: tuple[tuple[SymbolState, SymbolState], ...] = ()
    #: Dependents of re-signed or removed symbols (``impacts_of``), filled in by the indexer.
    impacts: tuple[Impact, ...] = ()
    #: Files depending on the changed ones whose outgoing edges are not resolved yet
    #: (``build_delta(..., dependents=False)`` when a change reaches dependents: ``impacts_of``
    #: then reads the changed files' call sites as their resolution left them): ``with_dependents``
    #: resolves them. Their re-resolution changes no symbol, no note's state and no impact
    #: (``impacts_of`` reads the graph before the delta), only those files' own outgoing edges.
    deferred: tuple[str, ...] = ()
    #: Built with ``build_delta(..., dependents=False)`` when no change reaches a dependent
    #: (``_impacting``): ``edges`` is empty, neither the changed files' own outgoing edges nor
    #: their dependents' are resolved yet (nor which files depend on them): ``with_dependents``
    #: resolves both. That changes no symbol, no note's state and no impact, only outgoing
    #: edges: ``apply_delta`` leaves the graph's edges alone meanwhile (a changed file's
    #: symbols that keep their id keep theirs).
    unresolved: bool = False

    @property
    def empty(self) -> bool:
        """Nothing changed."""
        return not self.changed and not self.removed

    @property
    def touched(self) -> frozenset[str]:
        """Paths of changed and removed files."""
        return frozenset(f.path for f in self.changed) | frozenset(self.removed)

    def node_ids(self) -> set[str]:
        """File ids of touched files and ids of every symbol that changed, on either side."""
        ids = {file_id(self.repo_id, p) for p in self.touched}
        for c in self.changes:
            ids.update(s.id for s in (c.old, c.new) if s is not None)
        return ids

    def changes_by_path(self) -> dict[str, list[SymbolChange]]:
        """The symbol changes grouped by the path of their newest side."""
        out: dict[str, list[SymbolChange]] = {}
        for c in self.changes:
            state = c.new or c.old
            if state is not None:
                out.setdefault(state.path, []).append(c)
        return out

    def count(self, path: str, kinds: Iterable[ChangeKind]) -> int:
        """How many symbol changes of ``kinds`` the delta has in ``path``."""
        wanted = set(kinds)
        return sum(c.kind in wanted for c in self.changes_by_path().get(path, []))


def build_delta(
    repo_id: str,
    old: Mapping[str, OldFile],
    parsed: Mapping[str, ParsedUnit],
    removed: Iterable[str],
    resolver: RepoResolver,
    *,
    cold: bool,
    full: bool = False,
    rebase: bool = False,
    prepared: Mapping[str, Sequence[SymbolInfo]] | None = None,
    dependents: bool = True,
    recent: RecentSymbols | None = None,
    now: float = 0.0,
) -> GraphDelta:
    """The delta from ``old`` (what the graph holds for the parsed and removed paths) to ``parsed``.

    ``cold``: the graph holds nothing for the repository. ``removed`` paths not in ``old``
    are ignored; a parsed file whose content hash equals the old one is unchanged unless
    ``full``. ``rebase``: the parses come from another parser than ``old`` (see
    ``GraphDelta.rebase``). ``resolver`` is updated with every parse (files
    whose parse was already handed to it, listed in ``prepared`` with their symbols, are not
    set again). The resolver's edges cover the changed files and their dependents; with
    ``dependents`` False, none (the delta is ``unresolved``: an edited file's notes need not
    wait for any edge), or, when a change can reach dependents (``impacts_of`` reads the
    changed files' call sites), only the changed files' (the dependents are listed in
    ``deferred``); ``with_dependents`` resolves the rest. ``recent``: what the checkout's
    recent deltas removed and added (at ``now``): the other half of a move this batch may
    complete; updated with this delta's, like ``resolver`` (``_symbol_changes``).
    """
    pre = prepared or {}
    changed: list[str] = []
    for path, unit in parsed.items():
        if path not in pre:
            resolver.set_file(unit.parsed)
        prev = old.get(path)
        if full or prev is None or prev.content_hash != unit.content_hash:
            changed.append(path)
    gone = sorted(p for p in set(removed) if p in old)
    for p in gone:
        resolver.remove_file(p)
    changed.sort()
    infos = {p: tuple(pre[p]) if p in pre else tuple(symbols_of(repo_id, parsed[p].parsed)) for p in changed}
    whole = cold or full or rebase
    changes = _symbol_changes(old, changed, gone, infos, cold=cold, whole=whole, recent=recent, now=now)
    # (``impacts_of`` reads the call sites of the changed files as their last resolution left them)
    unresolved = not dependents and not cold and bool(changed or gone) and not any(map(_impacting, changes))
    edges, sources = _edges(resolver, changed, gone, cold=cold, dependents=dependents, unresolved=unresolved)
    updates = tuple(
        FileUpdate(
            p,
            parsed[p].parsed.language,
            parsed[p].content_hash,
            parsed[p].size,
            parsed[p].parsed.syntax_errors,
            infos[p],
        )
        for p in changed
    )
    fingerprints = (
        tuple((p, file_fingerprint(old[p].symbols, old[p].content_hash)) for p in changed if p in old) if rebase else ()
    )
    same_bytes = [p for p in changed if p in old and old[p].content_hash == parsed[p].content_hash]
    renamed = tuple(pair for p in same_bytes for pair in _same_place(old[p].symbols, infos[p])) if rebase else ()
    return GraphDelta(
        repo_id,
        cold,
        updates,
        tuple(gone),
        tuple(changes),
        edges,
        tuple(sorted(sources)) if dependents else (),
        rebase,
        fingerprints,
        renamed,
        deferred=() if dependents else tuple(sorted(sources)),
        unresolved=unresolved,
    )


def _symbol_changes(
    old: Mapping[str, OldFile],
    changed: Sequence[str],
    gone: Sequence[str],
    infos: Mapping[str, Sequence[SymbolInfo]],
    *,
    cold: bool,
    whole: bool,
    recent: RecentSymbols | None,
    now: float,
) -> list[SymbolChange]:
    """The symbol changes of ``changed`` and ``gone`` (none for a ``cold`` delta: no diff),
    pairing the halves of a move across batches with ``recent``, which then holds this delta's
    removals and additions. A ``whole`` pass (cold, full or rebasing) is not one edit: it pairs
    nothing earlier, and ``recent`` is cleared."""
    changes: list[SymbolChange] = []
    if not cold and (changed or gone):
        lost, found = recent.candidates(now) if recent is not None and not whole else ([], [])
        before = [s.state() for p in (*changed, *gone) if p in old for s in old[p].symbols]
        after = [s.state() for syms in infos.values() for s in syms]
        changes = diff_symbols(before, after, earlier_removed=lost, earlier_added=found)
    if recent is not None and whole:
        recent.clear()
    elif recent is not None:
        recent.record(changes, (*changed, *gone), now)
    return changes


def _edges(
    resolver: RepoResolver, changed: list[str], gone: list[str], *, cold: bool, dependents: bool, unresolved: bool
) -> tuple[ResolvedEdges, set[str]]:
    """``build_delta``'s edges and the dependents they cover (``dependents`` False: the
    dependents found, their edges not resolved)."""
    if (not changed and not gone) or unresolved:
        return ResolvedEdges(), set()
    if cold:
        return resolver.all_edges(), set()
    return _resolved(resolver, changed, gone, dependents=dependents)


def _resolved(
    resolver: RepoResolver, changed: Sequence[str], gone: Sequence[str], *, dependents: bool = True
) -> tuple[ResolvedEdges, set[str]]:
    """The files depending on the ``changed`` and ``gone`` ones (``resolver`` holding the new
    parses), and the outgoing edges of the ``changed`` files and (``dependents``) of those."""
    touched = {*changed, *gone}
    sources = resolver.dependents_of(touched) - touched
    return resolver.edges_for(set(changed) | sources if dependents else set(changed)), sources


def with_dependents(delta: GraphDelta, resolver: RepoResolver) -> tuple[GraphDelta, ResolvedEdges, tuple[str, ...]]:
    """``delta`` resolved, if it is ``unresolved`` or has ``deferred`` dependents (``resolver``
    as ``build_delta`` left it): the delta ``build_delta`` would have built with ``dependents``
    (the dependents listed in ``edge_sources``); and what ``set_outgoing_edges`` puts into the graph:
    the edges resolved now and the files whose outgoing edges they are."""
    if delta.unresolved:
        changed = [f.path for f in delta.changed]
        edges, sources = _resolved(resolver, changed, delta.removed)
        full = replace(delta, edges=edges, edge_sources=tuple(sorted(sources)), unresolved=False)
        return full, edges, (*changed, *full.edge_sources)
    if not delta.deferred:
        return delta, ResolvedEdges(), ()
    extra = resolver.edges_for(delta.deferred)
    # (no edge is in both: each file's outgoing edges come from its own resolution)
    merged = ResolvedEdges(
        **{f.name: (*getattr(delta.edges, f.name), *getattr(extra, f.name)) for f in fields(ResolvedEdges)}
    )
    listed = tuple(sorted({*delta.edge_sources, *delta.deferred}))
    return replace(delta, edges=merged, edge_sources=listed, deferred=()), extra, delta.deferred


def set_outgoing_edges(graph: CodeGraph, repo_id: str, paths: Iterable[str], edges: ResolvedEdges) -> None:
    """Put ``edges``, the outgoing edges of the files ``paths`` of repository ``repo_id`` (a
    delta's, or those ``with_dependents`` resolved), into ``graph``, in place of theirs."""
    graph.set_edges([file_id(repo_id, p) for p in paths], edges)


def _same_place(before: Sequence[SymbolInfo], after: Sequence[SymbolInfo]) -> list[tuple[SymbolState, SymbolState]]:
    """Symbols of the same bytes that two parsers named differently, paired by line span and kind."""
    old_ids, new_ids = {s.id for s in before}, {s.id for s in after}
    place = {(s.start_line, s.end_line, s.kind): s for s in before if s.id not in new_ids}
    out: list[tuple[SymbolState, SymbolState]] = []
    for s in after:
        prev = place.get((s.start_line, s.end_line, s.kind)) if s.id not in old_ids else None
        if prev is not None:
            out.append((prev.state(), s.state()))
    return out


def old_files(graph: CodeGraph, repo_id: str, paths: Iterable[str]) -> dict[str, OldFile]:
    """What the graph holds for ``paths`` of a repository, as ``build_delta`` needs it."""
    out: dict[str, OldFile] = {}
    for p in paths:
        node = graph.files.get(file_id(repo_id, p))
        if node is not None:
            out[p] = OldFile(p, node.content_hash, tuple(graph.file_symbols(repo_id, p)))
    return out


def apply_delta(graph: CodeGraph, delta: GraphDelta) -> None:
    """Put ``delta`` into ``graph``: removed files out, changed files in, edges replaced."""
    rid = delta.repo_id
    for p in delta.removed:
        graph.remove_file(rid, p)
    for f in delta.changed:
        graph.put_file(FileNode(rid, f.path, f.language, f.content_hash), f.symbols)
    if not delta.empty and not delta.unresolved:
        set_outgoing_edges(graph, rid, (*(f.path for f in delta.changed), *delta.edge_sources), delta.edges)
