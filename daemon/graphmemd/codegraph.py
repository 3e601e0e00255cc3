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
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from graphmem.types import EdgeConfidence, EdgeKind

from graphmemd.model import Language, ResolvedEdges, SymbolInfo, file_id
from graphmemd.text_index import TextIndex

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


_Out = dict[str, dict[EdgeKind, dict[str, EdgeConfidence | None]]]
_In = dict[str, dict[EdgeKind, set[str]]]


def _out_kinds() -> defaultdict[EdgeKind, dict[str, EdgeConfidence | None]]:
    return defaultdict(dict)


def _in_kinds() -> defaultdict[EdgeKind, set[str]]:
    return defaultdict(set)


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


class CodeGraph:
    """Files, symbols and typed edges of every registered repository."""

    def __init__(self) -> None:
        self.files: dict[str, FileNode] = {}
        self.symbols: dict[str, SymbolInfo] = {}
        #: a -> kind -> b -> how the edge was resolved (None for CONTAINS/DEFINES)
        self._out: _Out = defaultdict(_out_kinds)
        self._in: _In = defaultdict(_in_kinds)
        self._unresolved: dict[str, list[str]] = {}
        #: lowercased name -> the one symbol id with it, or a set when several share it (most
        #: names are unique: a set each would cost ~200 bytes more)
        self._by_name: dict[str, str | set[str]] = {}
        #: ``adjacency`` results, dropped for both ends whenever an edge changes; the dropped
        #: nodes wait in ``_unwarmed`` for ``warm`` to recompute them.
        self._adj: dict[str, tuple[Adjacent, ...]] = {}
        self._unwarmed: set[str] = set()
        #: BM25 over the symbols' identifier words, changed with the files (text search)
        self.text = TextIndex()

    # ------------------------------------------------------------------ updates

    def _link(self, a: str, kind: EdgeKind, b: str, confidence: EdgeConfidence | None = None) -> None:
        self._out[a][kind][b] = confidence
        self._in[b][kind].add(a)
        self._forget(a)
        self._forget(b)

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

    def _forget(self, node: str) -> None:
        self._adj.pop(node, None)
        self._unwarmed.add(node)

    def warm(self, limit: int) -> int:
        """Recompute the adjacency of up to ``limit`` nodes whose edges changed, so that
        queries do not pay for it (~10 MB and ~150 ms for a stdlib-sized graph from cold);
        returns how many were taken. Callers hold the lock, in slices."""
        taken = 0
        while self._unwarmed and taken < limit:
            node = self._unwarmed.pop()
            taken += 1
            if node in self._out or node in self._in:
                self.adjacency(node)
        return taken

    def _unlink_out(self, a: str, kinds: Iterable[EdgeKind]) -> None:
        out = self._out.get(a)
        if not out:
            return
        self._forget(a)
        for kind in kinds:
            for b in out.pop(kind, {}):
                self._forget(b)
                incoming = self._in.get(b)
                if incoming is not None:
                    incoming[kind].discard(a)

    def _drop_node(self, node: str) -> None:
        self._adj.pop(node, None)
        self._unwarmed.discard(node)
        for kind, targets in self._out.pop(node, {}).items():
            for b in targets:
                self._forget(b)
                if b in self._in:
                    self._in[b][kind].discard(node)
        for kind, sources in self._in.pop(node, {}).items():
            for a in sources:
                self._forget(a)
                if a in self._out:
                    self._out[a][kind].pop(node, None)
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
                    self._unlink_out(sid, (EdgeKind.CONTAINS,))
            self._unlink_out(fid, (EdgeKind.DEFINES,))
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
        touched: list[str] = []
        for node, syms in items:
            fid = file_id(node.repo_id, node.path)
            if fid in files:
                self.put_file(node, syms)
                continue
            node.symbol_ids = ids = [s.id for s in syms]
            files[fid] = node
            self.text.put(fid, node.repo_id, node.path, [(s.id, s.qualname) for s in syms])
            defines = out[fid][EdgeKind.DEFINES]
            for sym in syms:
                sid = sym.id
                symbols[sid] = sym
                self._name(sym.name.lower(), sid)
                defines[sid] = None
                inn[sid][EdgeKind.DEFINES].add(fid)
                if sym.parent_id:
                    out[sym.parent_id][EdgeKind.CONTAINS][sid] = None
                    inn[sid][EdgeKind.CONTAINS].add(sym.parent_id)
            touched.append(fid)
            touched.extend(ids)
        self._unwarmed.update(touched)  # nothing of theirs was cached (``_forget``)

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
            self._unlink_out(n, (EdgeKind.CALLS, EdgeKind.IMPORTS, EdgeKind.INHERITS))
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
        for a, text in edges.unresolved_calls:
            self._unresolved.setdefault(a, []).append(text)

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
        self._unwarmed.update(part.out)
        self._unwarmed.update(part.inn)

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
        for kind, targets in self._out.get(node, {}).items():
            for t in targets:
                yield kind, t
        for kind, sources in self._in.get(node, {}).items():
            rev = REVERSE[kind]
            for s in sources:
                yield rev, s

    def adjacency(self, node: str) -> tuple[Adjacent, ...]:
        """``neighbors`` as a tuple with each kind's order and the edge's resolution confidence
        (None for structural edges), cached per node until one of its edges changes (the
        walk's hot path: no generator, no per-edge lookups)."""
        adj = self._adj.get(node)
        if adj is None:
            items: list[Adjacent] = []
            for kind, targets in self._out.get(node, {}).items():
                order = KIND_ORDER[kind]
                items.extend([(order, kind, other, conf) for other, conf in targets.items()])
            outs = self._out
            for kind, sources in self._in.get(node, {}).items():
                rev = REVERSE[kind]
                order = KIND_ORDER[rev]
                items.extend([(order, rev, other, outs.get(other, {}).get(kind, {}).get(node)) for other in sources])
            adj = tuple(items)
            self._adj[node] = adj
        return adj

    def out(self, node: str, kind: EdgeKind) -> set[str]:
        """The nodes ``node`` points to by edges of ``kind``."""
        return set(self._out.get(node, {}).get(kind, ()))

    def confidence(self, a: str, kind: EdgeKind, b: str) -> EdgeConfidence | None:
        """How the edge ``a -kind-> b`` was resolved; ``kind`` may be a reverse kind (then
        the stored edge is ``b -> a``). None for structural edges or no such edge."""
        for forward, reverse in REVERSE.items():
            if kind is reverse:
                return self._out.get(b, {}).get(forward, {}).get(a)
        return self._out.get(a, {}).get(kind, {}).get(b)

    def into(self, node: str, kind: EdgeKind) -> set[str]:
        """The nodes pointing to ``node`` by edges of ``kind``."""
        return set(self._in.get(node, {}).get(kind, ()))

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
        """The number of outgoing edges, of ``repo_id``'s nodes or (empty) of every node."""
        prefix = f"{repo_id}:"
        return sum(
            len(t)
            for node, kinds in self._out.items()
            if not repo_id or node.startswith(prefix)
            for t in kinds.values()
        )

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
