"""The daemon's in-memory mirror of the code graph, for millisecond traversal.

Kùzu holds the durable graph; a 1-hop ``IN``-list traversal query there costs ~30 ms on a
stdlib-sized graph, too slow for retrieval's p50 < 10 ms. So the daemon keeps adjacency
lists here, updated in the same step as every store write, and rebuilt from the store at
start. Node ids are file ids (``repo:path``) and symbol ids (``repo:path::qualname#kind``).

Not thread-safe by itself: the engine guards it with its state lock.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice

from graphmem.types import EdgeConfidence, EdgeKind

from graphmemd.graph import edgebits
from graphmemd.graph.model import Language, ResolvedEdges, SymbolInfo, file_id, renamed_symbols
from graphmemd.graph.text_index import TextIndex

REVERSE = {
    EdgeKind.CALLS: EdgeKind.CALLED_BY,
    EdgeKind.IMPORTS: EdgeKind.IMPORTED_BY,
    EdgeKind.CONTAINS: EdgeKind.CONTAINED_IN,
    EdgeKind.INHERITS: EdgeKind.INHERITED_BY,
    EdgeKind.DEFINES: EdgeKind.DEFINED_IN,
}
#: A total order of edge kinds (by name): the walk's deterministic tie-break.
KIND_ORDER = {k: i for i, k in enumerate(sorted(EdgeKind, key=lambda k: k.value))}

#: One neighbour as the walk sees it: (``KIND_ORDER`` of the kind, kind as walked, node).
Adjacent = tuple[int, EdgeKind, str, EdgeConfidence | None]


@dataclass(slots=True)
class FileNode:
    """A file in the in-memory graph: its language, content hash, symbols and external imports."""

    repo_id: str
    path: str
    language: Language
    content_hash: str
    symbol_ids: list[str] = field(default_factory=list)
    external_imports: list[str] = field(default_factory=list)
    unresolved_calls: list[str] = field(default_factory=list)


#: a -> b -> the edges from a to b with their confidences (``edgebits.put``)
_Out = dict[str, dict[str, int]]
#: b -> a -> the kinds of the edges from a to b (``edgebits.bit``)
_In = dict[str, dict[str, int]]
_DEFINES = edgebits.put(0, EdgeKind.DEFINES, None)
_CONTAINS = edgebits.put(0, EdgeKind.CONTAINS, None)
_DEFINES_BIT = edgebits.bit(EdgeKind.DEFINES)
_CONTAINS_BIT = edgebits.bit(EdgeKind.CONTAINS)
_RESOLVED = edgebits.mask((EdgeKind.CALLS, EdgeKind.IMPORTS, EdgeKind.INHERITS))
_CONTAINS_MASK = edgebits.mask((EdgeKind.CONTAINS,))
_DEFINES_MASK = edgebits.mask((EdgeKind.DEFINES,))


def _clear(side: dict[str, dict[str, int]], node: str, other: str, bits: int) -> None:
    """Clear ``bits`` (-1: all) of ``side[node][other]``, dropping what becomes empty."""
    entries = side.get(node)
    if entries is None:
        return
    left = entries.get(other, 0) & ~bits
    if left:
        entries[other] = left
    else:
        entries.pop(other, None)
        if not entries:
            del side[node]


def _add_name(names: dict[str, str | set[str]], name: str, sid: str) -> None:
    """Add ``sid`` under ``name`` to a name index (one id, or a set when several share it)."""
    got = names.get(name)
    if got is None:
        names[name] = sid
    elif isinstance(got, str):
        if got != sid:
            names[name] = {got, sid}
    else:
        got.add(sid)


@dataclass(slots=True)
class GraphPart:
    """One repository's share of the graph, lifted out whole (``CodeGraph.export_repo``) to be
    put back whole (``import_repo``): a warm restart's snapshot (``graph_snapshot.py``)."""

    repo_id: str
    files: dict[str, FileNode]
    symbols: dict[str, SymbolInfo]
    out: _Out
    inn: _In
    unresolved: dict[str, list[str]]
    #: lowercased name -> the repository's symbol id(s) with it (as ``CodeGraph._by_name``)
    names: dict[str, str | set[str]]
    text: TextIndex
    #: how many edges leave its nodes (``CodeGraph.edge_count``): what ``status`` says
    edges: int


class CodeGraph:
    """Files, symbols and typed edges of every registered repository."""

    def __init__(self) -> None:
        self.files: dict[str, FileNode] = {}
        self.symbols: dict[str, SymbolInfo] = {}
        #: a -> b -> its edges to b and how each was resolved; b -> a -> the kinds from a
        #: (``edgebits``: one int per neighbour, not a set and a dict per kind)
        self._out: _Out = {}
        self._in: _In = {}
        self._unresolved: dict[str, list[str]] = {}
        #: lowercased name -> the one symbol id with it, or a set when several share it (most
        #: names are unique: a set each would cost ~200 bytes more)
        self._by_name: dict[str, str | set[str]] = {}
        #: BM25 over the symbols' identifier words, changed with the files (text search)
        self.text = TextIndex()

    # ------------------------------------------------------------------ updates

    def _link(self, a: str, kind: EdgeKind, b: str, confidence: EdgeConfidence | None = None) -> None:
        out = self._out.get(a)
        if out is None:
            out = self._out[a] = {}
        out[b] = edgebits.put(out.get(b, 0), kind, confidence)
        inn = self._in.get(b)
        if inn is None:
            inn = self._in[b] = {}
        inn[a] = inn.get(a, 0) | edgebits.bit(kind)

    def _name(self, name: str, sid: str) -> None:
        _add_name(self._by_name, name, sid)

    def _unname(self, name: str, sid: str) -> None:
        got = self._by_name.get(name)
        if got == sid:
            del self._by_name[name]
        elif isinstance(got, set):
            got.discard(sid)
            if len(got) == 1:
                self._by_name[name] = next(iter(got))

    def _unlink_out(self, a: str, masks: tuple[int, int]) -> None:
        """Drop ``a``'s outgoing edges of the kinds in ``masks`` (``edgebits.mask``)."""
        out = self._out.get(a)
        if not out:
            return
        nibbles, bits = masks
        for b, packed in [(b, p) for b, p in out.items() if p & nibbles]:
            if packed & ~nibbles:
                out[b] = packed & ~nibbles
            else:
                del out[b]
            _clear(self._in, b, a, bits)
        if not out:
            del self._out[a]

    def _drop_node(self, node: str) -> None:
        for b in self._out.pop(node, {}):
            _clear(self._in, b, node, -1)
        for a in self._in.pop(node, {}):
            _clear(self._out, a, node, -1)
        self._unresolved.pop(node, None)

    def remove_file(self, repo_id: str, path: str) -> list[SymbolInfo]:
        """Drop a file and its symbols with every edge touching them; returns the old symbols."""
        fid = file_id(repo_id, path)
        node = self.files.pop(fid, None)
        old: list[SymbolInfo] = []
        if node is None:
            return old
        self.text.remove(fid)
        for sid in node.symbol_ids:
            info = self.symbols.pop(sid, None)
            if info is not None:
                old.append(info)
                self._unname(info.name.lower(), sid)
            self._drop_node(sid)
        self._drop_node(fid)
        return old

    def put_file(self, node: FileNode, symbols: Iterable[SymbolInfo]) -> list[SymbolInfo]:
        """Insert or replace a file and its symbols (definitions and containment only).

        Incoming edges to symbols that keep their id survive; returns the old symbols."""
        fid = file_id(node.repo_id, node.path)
        previous = self.files.get(fid)
        new_syms = list(symbols)
        new_ids = {s.id for s in new_syms}
        old: list[SymbolInfo] = []
        if previous is not None:
            for sid in previous.symbol_ids:
                info = self.symbols.get(sid)
                if info is not None:
                    old.append(info)
                    self._unname(info.name.lower(), sid)
                if sid not in new_ids:
                    self.symbols.pop(sid, None)
                    self._drop_node(sid)
                else:
                    self._unlink_out(sid, _CONTAINS_MASK)
            self._unlink_out(fid, _DEFINES_MASK)
        node.symbol_ids = [s.id for s in new_syms]
        self.files[fid] = node
        self.text.put(fid, node.repo_id, node.path, ((s.id, s.qualname) for s in new_syms))
        for s in new_syms:
            self.symbols[s.id] = s
            self._name(s.name.lower(), s.id)
            self._link(fid, EdgeKind.DEFINES, s.id)
            if s.parent_id:
                self._link(s.parent_id, EdgeKind.CONTAINS, s.id)
        return old

    def load_files(self, items: Iterable[tuple[FileNode, Sequence[SymbolInfo]]]) -> None:
        """Insert files the graph does not hold yet, with their symbols (a warm restart):
        ``put_file`` without its replacement bookkeeping, ~20 % faster in bulk."""
        out, inn, symbols, files = self._out, self._in, self.symbols, self.files
        for node, syms in items:
            fid = file_id(node.repo_id, node.path)
            if fid in files:
                self.put_file(node, syms)
                continue
            node.symbol_ids = [s.id for s in syms]
            files[fid] = node
            self.text.put(fid, node.repo_id, node.path, [(s.id, s.qualname) for s in syms])
            defines = out.setdefault(fid, {})
            for sym in syms:
                sid = sym.id
                symbols[sid] = sym
                self._name(sym.name.lower(), sid)
                defines[sid] = defines.get(sid, 0) | _DEFINES
                into = inn.setdefault(sid, {})
                into[fid] = into.get(fid, 0) | _DEFINES_BIT
                parent = sym.parent_id
                if parent:
                    children = out.setdefault(parent, {})
                    children[sid] = children.get(sid, 0) | _CONTAINS
                    into[parent] = into.get(parent, 0) | _CONTAINS_BIT

    def set_edges(self, sources: Iterable[str], edges: ResolvedEdges) -> None:
        """Replace the outgoing CALLS/IMPORTS/INHERITS edges of ``sources`` (file ids; their
        symbols are included) with ``edges``."""
        nodes: set[str] = set()
        for fid in sources:
            node = self.files.get(fid)
            if node is None:
                continue
            nodes.add(fid)
            nodes.update(node.symbol_ids)
            node.external_imports = []
        for n in nodes:
            self._unlink_out(n, _RESOLVED)
            self._unresolved.pop(n, None)
        for a, b, conf in edges.imports:
            self._link(a, EdgeKind.IMPORTS, b, conf)
        for a, name in edges.external_imports:
            node = self.files.get(a)
            if node is not None:
                node.external_imports.append(name)
        for a, b, conf in edges.calls:
            if a in self.symbols or a in self.files:
                self._link(a, EdgeKind.CALLS, b, conf)
        for a, b, _kind, conf in edges.inherits:
            self._link(a, EdgeKind.INHERITS, b, conf)
        fresh: dict[str, list[str]] = {}
        for a, text in edges.unresolved_calls:
            fresh.setdefault(a, []).append(text)
        for a, texts in fresh.items():  # (a new list: a derived checkout may share the old one)
            old = self._unresolved.get(a)
            self._unresolved[a] = [*old, *texts] if old else texts

    def export_repo(self, repo_id: str) -> GraphPart:
        """``repo_id``'s files, symbols, edges and text documents, sharing this graph's objects
        (take it while no one writes; of a graph holding only ``repo_id``, its very dicts).
        Node ids start with ``<repo id>:`` and no edge crosses repositories (each is resolved
        on its own), so the part is closed under its edges."""
        if all(n.repo_id == repo_id for n in self.files.values()):
            return GraphPart(
                repo_id,
                self.files,
                self.symbols,
                self._out,
                self._in,
                self._unresolved,
                self._by_name,
                self.text.extract(self.files),
                self.edge_count(repo_id),
            )
        prefix = f"{repo_id}:"
        files = {fid: n for fid, n in self.files.items() if n.repo_id == repo_id}
        symbols = {sid: self.symbols[sid] for n in files.values() for sid in n.symbol_ids if sid in self.symbols}
        names: dict[str, str | set[str]] = {}
        for sid, info in symbols.items():
            _add_name(names, info.name.lower(), sid)
        return GraphPart(
            repo_id,
            files,
            symbols,
            {a: kinds for a, kinds in self._out.items() if a.startswith(prefix)},
            {b: kinds for b, kinds in self._in.items() if b.startswith(prefix)},
            {a: calls for a, calls in self._unresolved.items() if a.startswith(prefix)},
            names,
            self.text.extract(files),
            self.edge_count(repo_id),
        )

    def import_repo(self, part: GraphPart) -> None:
        """Put back a part ``export_repo`` lifted out (of a repository this graph does not hold)."""
        if any(n.repo_id == part.repo_id for n in self.files.values()):
            raise ValueError(f"the graph already holds {part.repo_id}")
        self.files.update(part.files)
        self.symbols.update(part.symbols)
        self._out.update(part.out)
        self._in.update(part.inn)
        self._unresolved.update(part.unresolved)
        if self._by_name:
            for name, got in part.names.items():
                for sid in (got,) if isinstance(got, str) else got:
                    self._name(name, sid)
        else:
            self._by_name = part.names
        self.text.absorb(part.text)

    def drop_repo(self, repo_id: str) -> None:
        """Remove every file of ``repo_id``, with its symbols and their edges."""
        for fid in [f for f, n in self.files.items() if n.repo_id == repo_id]:
            node = self.files[fid]
            self.remove_file(repo_id, node.path)

    # ------------------------------------------------------------------ queries

    def search_symbols(self, text: str, limit: int, repo_id: str = "") -> list[tuple[str, float]]:
        """BM25 hits (symbol id, score) over identifier words, best first (``text_index``)."""
        return self.text.search(text, limit, repo_id)

    def neighbors(self, node: str) -> Iterator[tuple[EdgeKind, str]]:
        """Every neighbour in both directions, with the edge kind as walked from ``node``."""
        for t, packed in self._out.get(node, {}).items():
            for kind, _conf in edgebits.edges(packed):
                yield kind, t
        for s, bits in self._in.get(node, {}).items():
            for kind in edgebits.kinds(bits):
                yield REVERSE[kind], s

    def adjacency(self, node: str) -> tuple[Adjacent, ...]:
        """``neighbors`` as a tuple with each kind's order and the edge's resolution confidence
        (None for structural edges): the walk's hot path. Computed on each call, not cached:
        a default two-hop walk on a 0.9 M-line graph took 0.10 ms at the median and 1.4 ms
        at p99 (0.04 / 0.8 ms from a cache that held 33 MB and took 2 s to fill)."""
        return tuple(self._adjacent(node, self._out.get(node, {}), self._in.get(node, {})))

    def adjacency_within(self, node: str, at_most: int) -> tuple[Adjacent, ...] | None:
        """``adjacency``, or None when ``node`` has more than ``at_most`` edges (a hub the walk
        does not go through: its edges are not listed when its neighbours alone are too many)."""
        outs, ins = self._out.get(node, {}), self._in.get(node, {})
        if len(outs) + len(ins) > at_most:
            return None
        items = self._adjacent(node, outs, ins)
        return None if len(items) > at_most else tuple(items)

    def _adjacent(self, node: str, outs: dict[str, int], ins: dict[str, int]) -> list[Adjacent]:
        items: list[Adjacent] = []
        edges, order, every = edgebits.edges, KIND_ORDER, self._out
        for other, packed in outs.items():
            for kind, conf in edges(packed):
                items.append((order[kind], kind, other, conf))
        for other in ins:
            # every in-entry has its out-entry, which holds the same kinds and their confidences
            for kind, conf in edges(every[other][node]):
                rev = REVERSE[kind]
                items.append((order[rev], rev, other, conf))
        return items

    def degree(self, node: str, at_most: int | None = None) -> int:
        """How many edges touch ``node`` (``len(adjacency(node))``, without building it).

        ``at_most``: the count stops there — a node with that many neighbours has at least
        that many edges, and is not summed (a module's file node can have thousands: retrieval
        only needs the degree up to its centrality cap)."""
        outs, ins = self._out.get(node, {}), self._in.get(node, {})
        if at_most is not None and len(outs) + len(ins) >= at_most:
            return at_most
        total = sum(map(edgebits.count, outs.values())) + sum(map(int.bit_count, ins.values()))
        return total if at_most is None else min(total, at_most)

    def out(self, node: str, kind: EdgeKind) -> set[str]:
        """The nodes ``node`` points to by edges of ``kind``."""
        return {b for b, packed in self._out.get(node, {}).items() if edgebits.has(packed, kind)}

    def confidence(self, a: str, kind: EdgeKind, b: str) -> EdgeConfidence | None:
        """How the edge ``a -kind-> b`` was resolved; ``kind`` may be a reverse kind (then
        the stored edge is ``b -> a``). None for structural edges or no such edge."""
        for forward, reverse in REVERSE.items():
            if kind is reverse:
                return edgebits.confidence(self._out.get(b, {}).get(a, 0), forward)
        return edgebits.confidence(self._out.get(a, {}).get(b, 0), kind)

    def into(self, node: str, kind: EdgeKind) -> set[str]:
        """The nodes pointing to ``node`` by edges of ``kind``."""
        bit = edgebits.bit(kind)
        return {a for a, bits in self._in.get(node, {}).items() if bits & bit}

    def unresolved(self, node: str) -> list[str]:
        """The callee texts ``node`` calls that resolution could not link to a symbol."""
        return list(self._unresolved.get(node, ()))

    def file_symbols(self, repo_id: str, path: str) -> list[SymbolInfo]:
        """The symbols of one file (empty: not indexed)."""
        node = self.files.get(file_id(repo_id, path))
        if node is None:
            return []
        return [self.symbols[s] for s in node.symbol_ids if s in self.symbols]

    def repo_files(self, repo_id: str) -> list[FileNode]:
        """Every file node of ``repo_id``."""
        return [n for n in self.files.values() if n.repo_id == repo_id]

    def counts(self, repo_id: str) -> tuple[int, int]:
        """(files, symbols) of ``repo_id``."""
        files = [n for n in self.files.values() if n.repo_id == repo_id]
        return len(files), sum(len(n.symbol_ids) for n in files)

    def edge_count(self, repo_id: str = "") -> int:
        """The number of outgoing edges, of ``repo_id``'s nodes or (empty) of every node.
        The packed values are tallied first (a graph holds a few dozen distinct ones) and
        each is counted once: ~0.05 s for 0.9 M edges, where a call per value took ~0.25 s."""
        out = self._out
        targets: Iterable[dict[str, int]]
        if repo_id and any(n.repo_id != repo_id for n in self.files.values()):
            # the repository's own nodes only (its files and their symbols: every node it
            # has), not a pass over every checkout's
            files = self.repo_files(repo_id)
            nodes = chain((file_id(repo_id, f.path) for f in files), chain.from_iterable(f.symbol_ids for f in files))
            targets = filter(None, map(out.get, nodes))
        else:  # (no edge crosses repositories: every node is ``repo_id``'s)
            targets = out.values()
        tally = Counter(chain.from_iterable(map(dict.values, targets)))
        return sum(edgebits.count(packed) * n for packed, n in tally.items())

    def ref_of(self, node: str) -> str:
        """Human reference of a node: ``path::qualname`` for symbols, ``path`` for files."""
        sym = self.symbols.get(node)
        if sym is not None:
            return sym.ref
        f = self.files.get(node)
        return f.path if f is not None else node

    def by_name(self, name: str) -> set[str]:
        """The ids of the symbols named ``name`` (case-insensitive)."""
        got = self._by_name.get(name.lower())
        return set() if got is None else {got} if isinstance(got, str) else set(got)

    def find(self, pattern: str, repo_id: str = "", kinds: Iterable[str] = (), limit: int = 50) -> list[SymbolInfo]:
        """Case-insensitive glob over name and qualname (or ``path::qualname`` when the
        pattern contains ``::`` or ``/``); exact names rank first."""
        pat = pattern.strip().lower()
        if not pat:
            return []
        kind_set = set(kinds)
        glob = f"*{pat}*" if not any(c in pat for c in "*?[") else pat
        rx = re.compile(fnmatch.translate(glob))
        use_ref = "::" in pat or "/" in pat
        hits: list[tuple[int, str, SymbolInfo]] = []
        for s in self.symbols.values():
            if repo_id and s.repo_id != repo_id:
                continue
            if kind_set and s.kind.value not in kind_set:
                continue
            target = s.ref.lower() if use_ref else None
            if target is not None:
                if not rx.match(target):
                    continue
            elif not (rx.match(s.name.lower()) or rx.match(s.qualname.lower())):
                continue
            rank = (
                0 if s.name.lower() == pat or s.qualname.lower() == pat else 1 if s.name.lower().startswith(pat) else 2
            )
            hits.append((rank, s.ref, s))
        hits.sort(key=lambda h: (h[0], len(h[1]), h[1]))
        return [h[2] for h in hits[:limit]]


@dataclass(frozen=True, slots=True)
class Derived:
    """What ``derive_files`` copied, and what it held back."""

    #: ``source`` id -> ``target`` id of every node copied
    rename: dict[str, str]
    #: ``source`` id -> ``target`` id of the nodes of the files held back (``later``: not copied)
    into: dict[str, str]
    #: the copied nodes' edges into those, renamed: (from, to, packed kinds and confidences);
    #: ``link_held`` adds them once the files are in again
    held: list[tuple[str, str, int]]


def derive_files(
    graph: CodeGraph, source: str, target: str, paths: Iterable[str], later: Iterable[str] = ()
) -> Derived:
    """Give checkout ``target`` of ``graph`` (which holds none of ``paths`` yet) the files ``paths`` of
    checkout ``source`` as they are: their nodes, symbols, text documents, names, and the
    edges between them, every id renamed from ``source``'s to ``target``'s (an id begins
    with its checkout's: ``model.symbol_id``). What a symbol holds besides its ids (names,
    signatures, hashes) is shared with ``source``'s. The edges into ``later`` (files of
    ``source`` that ``target`` holds another content of, put in next) are held back, renamed
    (``Derived.held``: ``link_held`` adds those whose target is still there); other edges to
    files not in ``paths`` are not copied: resolving ``target`` links them (``indexing/derive.py``)."""
    cut, prefix = len(source) + 1, f"{target}:"
    rename: dict[str, str] = {}
    into: dict[str, str] = {}
    nodes: list[FileNode] = []
    for p in paths:
        node = graph.files.get(file_id(source, p))
        if node is not None:
            nodes.append(node)
            for n in (file_id(source, p), *node.symbol_ids):
                rename[n] = sys.intern(prefix + n[cut:])
    for p in later:
        node = graph.files.get(file_id(source, p))
        if node is not None:
            for n in (file_id(source, p), *node.symbol_ids):
                into[n] = sys.intern(prefix + n[cut:])
    symbols, names, got = graph.symbols, graph._by_name, rename.get
    olds = [[s for sid in node.symbol_ids if (s := symbols.get(sid)) is not None] for node in nodes]
    copies = iter(renamed_symbols([s for of in olds for s in of], rename, target))
    for node, of in zip(nodes, olds, strict=True):
        fid = file_id(target, node.path)
        copied: list[str] = []
        for s in islice(copies, len(of)):
            symbols[s.id] = s
            copied.append(s.id)
            _add_name(names, s.name.lower(), s.id)
        graph.files[fid] = FileNode(target, node.path, node.language, node.content_hash, copied,
                                   list(node.external_imports), list(node.unresolved_calls))  # fmt: skip
        graph.text.copy_group(file_id(source, node.path), fid, target, lambda i: got(i, i))
    held: list[tuple[str, str, int]] = []
    for side in (graph._out, graph._in):
        for a, new_a in rename.items():
            edges = side.get(a)
            if edges:
                kept = {nb: v for b, v in edges.items() if (nb := got(b)) is not None}
                if kept:
                    side[new_a] = kept
                if into and side is graph._out:
                    held.extend((new_a, into[b], v) for b, v in edges.items() if b in into)
    for a, new_a in rename.items():
        calls = graph._unresolved.get(a)
        if calls:  # shared: a list here is replaced, never changed (``set_edges``)
            graph._unresolved[new_a] = calls
    return Derived(rename, into, held)


def link_held(graph: CodeGraph, held: Iterable[tuple[str, str, int]], again: Collection[str]) -> int:
    """Add the edges ``derive_files`` held back (``Derived.held``) whose target the graph holds
    now and whose source's file (its id) is not in ``again`` (files resolved again since: their
    edges are their resolution's); returns how many were added."""
    out, inn, n = graph._out, graph._in, 0
    for a, b, packed in held:
        if (b not in graph.symbols and b not in graph.files) or a.partition("::")[0] in again:
            continue
        mine = out.get(a)
        if mine is None:
            mine = out[a] = {}
        mine[b] = mine.get(b, 0) | packed
        bits = 0
        for kind, _conf in edgebits.edges(packed):
            bits |= edgebits.bit(kind)
        theirs = inn.get(b)
        if theirs is None:
            theirs = inn[b] = {}
        theirs[a] = theirs.get(a, 0) | bits
        n += 1
    return n
