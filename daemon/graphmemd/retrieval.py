"""Dependency-traversal retrieval: seeds -> N-hop walk -> anchored observations -> ranking.

Seeds are the given symbols, the files given (and the symbols they define), and the symbols
whose names match the text (BM25 over identifier words, Kùzu fts). From the seeds a
breadth-first walk follows CALLS (callees and callers), IMPORTS (both ways), CONTAINS,
INHERITS and DEFINES up to ``hops``; every observation anchored to a node reached is a
candidate, and so is every observation whose text/tags match the text (BM25).

Ranking (deterministic) of a candidate reached at distance d through first edge e:

    base  = edge_weight(e) / (1 + d)             CALLS 1.0, INHERITS 0.9, CONTAINS/DEFINES 0.85, IMPORTS 0.7
    pr    = personalised PageRank of its anchor node over the path-union subgraph (networkx
            DiGraph; at most 15 power iterations, stopping when the L1 change < 1e-3, damping 0.85,
            restart on the seeds), max-normalised
    text  = BM25 score / best BM25 score in this query
    score = (0.55 base + 0.15 pr + 0.30 text) x (0.6 + 0.4 confidence) x recency x status

where recency decays linearly from 1.0 (updated within 30 days) to 0.8 (a year or older)
and status is 1.0 for fresh and 0.5 for stale (stale ones only appear with include_stale).
Superseded observations are replaced by their successor; archived ones never appear.

Token estimate (documented, deterministic): ``ceil(utf8_bytes / 4)`` of the result's
rendering (the line ``render_line`` produces). Results are packed greedily in rank order:
one that does not fit the remaining budget is skipped and the next is tried.
"""

from __future__ import annotations

import math
import operator
import re
import time
from collections.abc import Callable, Iterable, Sequence

import networkx as nx
from graphmem.errors import InvalidArgument, NotFound
from graphmem.types import (
    AnchorKind,
    Brief,
    EdgeKind,
    Hop,
    Observation,
    ObservationStatus,
    Recalled,
    RecallResult,
    Symbol,
    SymbolDetail,
)

from graphmemd.model import SymbolInfo, file_id
from graphmemd.readview import GraphReader, ReadView
from graphmemd.registry import RepoRuntime

MAX_HOPS = 6
MAX_LIMIT = 200
#: The walk stops once this many nodes are reached (nearest first; the last layer is cut in id order).
MAX_VISITED = 2_500
#: Nodes with more neighbours than this (a module imported everywhere, a class with hundreds of
#: callers) are reached but not expanded through, unless they are seeds: a path through a hub
#: says little about relevance and would flood the walk.
HUB_DEGREE = 200
#: PageRank and why-paths are computed for this many candidates (times the limit) at most.
RERANK_FACTOR = 2
EDGE_WEIGHT = {
    EdgeKind.CALLS: 1.0,
    EdgeKind.CALLED_BY: 1.0,
    EdgeKind.INHERITS: 0.9,
    EdgeKind.INHERITED_BY: 0.9,
    EdgeKind.CONTAINS: 0.85,
    EdgeKind.CONTAINED_IN: 0.85,
    EdgeKind.DEFINES: 0.85,
    EdgeKind.DEFINED_IN: 0.85,
    EdgeKind.IMPORTS: 0.7,
    EdgeKind.IMPORTED_BY: 0.7,
}
STALE_FACTOR = 0.5


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


def render_line(o: Observation, why: str = "") -> str:
    """One observation as a line of text (what the token estimate measures)."""
    marker = ""
    if o.status is ObservationStatus.STALE and o.stale_reasons:
        r = o.stale_reasons[0]
        marker = f" [STALE: {r.change.value.replace('_', ' ')} at {r.anchor_ref}]"
    elif o.status is ObservationStatus.STALE:
        marker = " [STALE]"
    anchors = ", ".join(a.ref for a in o.anchors)
    tags = f" #{' #'.join(o.tags)}" if o.tags else ""
    via = f" (via {why})" if why else ""
    return f"- [{o.category.value}] {o.text}{tags} @ {anchors}{marker}{via}"


def to_symbol(s: SymbolInfo) -> Symbol:
    return Symbol(
        id=s.id,
        repo_id=s.repo_id,
        path=s.path,
        name=s.name,
        qualname=s.qualname,
        kind=s.kind.value,
        language=s.language.value,
        start_line=s.start_line,
        end_line=s.end_line,
        signature=s.signature,
    )


#: How the walk reached a node: (distance, parent, edge from the parent, first edge walked from
#: the seed (the ranking weight), KIND_ORDER of the edge (the tie-break between equally short
#: paths)). A plain tuple: the walk creates thousands per query.
_Reach = tuple[int, str | None, EdgeKind | None, EdgeKind | None, int]


def _pagerank(g: nx.DiGraph, seeds: Iterable[str], alpha: float = 0.85, iters: int = 15) -> dict[str, float]:
    """Personalised PageRank by power iteration, restarting on the seeds (networkx's own
    ``pagerank`` needs scipy, which we don't ship). Nodes are numbered once so that each
    iteration is list arithmetic."""
    nodes = list(g.nodes)
    if not nodes:
        return {}
    index = {n: i for i, n in enumerate(nodes)}
    succ = [[index[m] for m in g.successors(n)] for n in nodes]
    seed_idx = [index[s] for s in dict.fromkeys(seeds) if s in index]
    size = len(nodes)
    if seed_idx:
        restart = [0.0] * size
        for i in seed_idx:
            restart[i] = 1.0 / len(seed_idx)
    else:
        seed_idx = list(range(size))
        restart = [1.0 / size] * size
    rank = list(restart)
    for _ in range(iters):
        nxt = [(1 - alpha) * x for x in restart]
        dangling = 0.0
        for i, r in enumerate(rank):
            if not r:
                continue
            out = succ[i]
            if out:
                share = alpha * r / len(out)
                for j in out:
                    nxt[j] += share
            else:
                dangling += r
        if dangling:
            for i in seed_idx:
                nxt[i] += alpha * dangling * restart[i]
        delta = sum(map(abs, map(operator.sub, nxt, rank)))
        rank = nxt
        if delta < 1e-3:
            break
    return dict(zip(nodes, rank, strict=True))


class Retriever:
    """Seeds -> walk -> anchored observations -> ranking, over the read view."""

    def __init__(self, view: Callable[[], ReadView]) -> None:
        self._view = view

    # ------------------------------------------------------------------ seeds

    def _seeds(
        self,
        g: GraphReader,
        repos: list[RepoRuntime],
        files: Sequence[str],
        symbols: Sequence[str],
        text: str,
        symbol_hits: list[str] | None,
        warnings: list[str],
    ) -> list[str]:
        """The walk's start nodes, read from ``g``. ``symbol_hits`` are the text's symbol-name
        matches (None while that index is being rebuilt)."""
        e = self._view()
        seeds: list[str] = []
        repo_hint = repos[0].id if len(repos) == 1 else ""
        for f in files:
            try:
                rt, rel = e.locate(f, repo_hint)
            except InvalidArgument as exc:
                warnings.append(str(exc))
                continue
            fid = file_id(rt.id, rel)
            if fid not in g.files:
                warnings.append(f"{rel} is not indexed in {rt.id}" + (" (yet)" if rt.state.value != "ready" else ""))
                continue
            seeds.append(fid)
            seeds.extend(s.id for s in g.file_symbols(rt.id, rel))
        for ref in symbols:
            anchor = e.resolve_anchor(ref, repo_hint)
            seeds.append(anchor.symbol_id if anchor.kind is AnchorKind.SYMBOL else file_id(anchor.repo_id, anchor.path))
        if text.strip():
            scope = {rt.id for rt in repos}
            if symbol_hits is None:  # FTS index rebuilding after a bulk load: exact names from memory
                ids = [i for w in re.findall(r"\w+", text) for i in sorted(g.by_name(w))][:10]
            else:
                ids = symbol_hits
            for sid in ids:
                if sid in g.symbols and g.symbols[sid].repo_id in scope:
                    seeds.append(sid)
        return list(dict.fromkeys(seeds))

    # ------------------------------------------------------------------ walk

    def _walk(self, g: GraphReader, seeds: Sequence[str], hops: int) -> dict[str, _Reach]:
        """Breadth-first walk. Among equally short paths the parent is chosen by the smallest
        (edge kind, parent id), so the why-path does not depend on set iteration order."""
        adjacency = g.adjacency
        seed_set = set(seeds)
        reached: dict[str, _Reach] = {s: (0, None, None, None, -1) for s in seeds}
        get = reached.get
        frontier = sorted(seeds)
        for depth in range(hops):
            nxt: list[str] = []
            d1 = depth + 1
            for node in frontier:
                if len(reached) >= MAX_VISITED:
                    break
                adj = adjacency(node)
                if len(adj) > HUB_DEGREE and node not in seed_set:
                    continue
                first = reached[node][3]
                for order, kind, other in adj:
                    r = get(other)
                    if r is None:
                        nxt.append(other)
                    elif not (r[0] == d1 and (order < r[4] or (order == r[4] and node < (r[1] or "")))):
                        continue
                    reached[other] = (d1, node, kind, first or kind, order)
            if len(reached) >= MAX_VISITED:
                break
            frontier = sorted(nxt)
        return reached

    def _path(self, g: GraphReader, node: str, reached: dict[str, _Reach]) -> list[Hop]:
        hops: list[Hop] = []
        cur = node
        while True:
            _, parent, edge, _, _ = reached[cur]
            if parent is None or edge is None:
                break
            hops.append(Hop(g.ref_of(parent), edge, g.ref_of(cur)))
            cur = parent
        hops.reverse()
        return hops

    # ------------------------------------------------------------------ retrieve

    def retrieve(
        self,
        *,
        repo: str = "",
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        text: str = "",
        hops: int = 2,
        limit: int = 20,
        budget: int = 0,
        include_stale: bool = False,
    ) -> RecallResult:
        if hops < 0 or hops > MAX_HOPS:
            raise InvalidArgument(f"hops must be between 0 and {MAX_HOPS}, not {hops}")
        if limit < 1 or limit > MAX_LIMIT:
            raise InvalidArgument(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
        if not files and not symbols and not text.strip():
            raise InvalidArgument("give at least one of files, symbols or text")
        e = self._view()
        repos = e.repos(repo)
        symbol_hits: list[str] | None = []
        text_scores: dict[str, float] = {}
        if text.strip():  # the store's text indexes are searched before taking the graph lock
            found = e.search_symbols(text, 10, repos[0].id if len(repos) == 1 else "")
            symbol_hits = None if found is None else [sid for sid, _score in found]
            text_scores = dict(e.search_observations(text, 50))
        with e.reading() as g:  # the indexer cannot swap a change in meanwhile
            return self._answer(
                g, repos, files, symbols, text, symbol_hits, text_scores, hops, limit, budget, include_stale
            )

    def _answer(
        self,
        g: GraphReader,
        repos: list[RepoRuntime],
        files: Sequence[str],
        symbols: Sequence[str],
        text: str,
        symbol_hits: list[str] | None,
        text_scores: dict[str, float],
        hops: int,
        limit: int,
        budget: int,
        include_stale: bool,
    ) -> RecallResult:
        e = self._view()
        warnings: list[str] = []
        seeds = self._seeds(g, repos, files, symbols, text, symbol_hits, warnings)
        reached = self._walk(g, seeds, hops) if seeds else {}
        # candidates: (observation id) -> best (distance, node), and the observation itself
        best: dict[str, tuple[int, str]] = {}
        found: dict[str, Observation] = {}
        for node, anchored in e.anchored_in(reached).items():
            d = reached[node][0]
            for o in anchored:
                prev = best.get(o.id)
                if prev is None or (d, node) < prev:
                    best[o.id] = (d, node)
                    found[o.id] = o
        for oid in text_scores:
            if oid not in found:
                try:
                    found[oid] = e.observation(oid)
                except NotFound:  # deleted between the search and now
                    continue
        terms = sorted(set(re.findall(r"\w+", text.lower())))
        scope = {rt.id for rt in repos}
        fresh, stale = ObservationStatus.FRESH, ObservationStatus.STALE
        candidates: dict[str, Observation] = {}
        for oid, o in found.items():
            current = o if o.status is fresh else self._successor(o)
            if current is None or current.repo_id not in scope:
                continue
            if current.status is stale and not include_stale:
                continue
            if current.id not in candidates:
                candidates[current.id] = current
                if oid != current.id and oid in best and current.id not in best:
                    best[current.id] = best[oid]
        max_text = max(text_scores.values(), default=0.0) or 1.0
        now = time.time()
        unreached = (hops + 1, "")

        def partial(o: Observation) -> float:
            dist, node = best.get(o.id, unreached)
            base = 0.0
            if node:
                first = reached[node][3]
                base = (EDGE_WEIGHT[first] if first else 1.0) / (1 + dist)
            t = text_scores.get(o.id, 0.0) / max_text
            age_days = (now - o.updated_at) / 86400
            recency = 1.0 if age_days <= 30 else max(0.8, 1.0 - 0.2 * (age_days - 30) / 335)
            status = STALE_FACTOR if o.status is stale else 1.0
            return (0.55 * base + 0.30 * t) * (0.6 + 0.4 * o.confidence) * recency * status

        pre = sorted(((-partial(o), o.id, o) for o in candidates.values()), key=lambda x: (x[0], x[1]))
        top = pre[: max(RERANK_FACTOR * limit, 20)]
        # personalised PageRank over the union of the top candidates' paths
        sub = nx.DiGraph()
        sub.add_nodes_from(seeds)
        for _, oid, _o in top:
            if oid not in best:
                continue
            cur = best[oid][1]
            while True:
                parent = reached[cur][1]
                if parent is None or sub.has_edge(parent, cur):
                    break
                sub.add_edge(parent, cur)
                sub.add_edge(cur, parent)
                cur = parent
        pr = _pagerank(sub, seeds)
        max_pr = max(pr.values(), default=0.0) or 1.0
        final: list[tuple[float, int, str, str, Observation]] = []
        for neg, oid, o in top:
            dist, node = best.get(oid, unreached)
            p = pr.get(node, 0.0) / max_pr if node else 0.0
            status = STALE_FACTOR if o.status is stale else 1.0
            score = round(-neg + 0.15 * p * (0.6 + 0.4 * o.confidence) * status, 6)
            final.append((-score, dist if node else 0, oid, node, o))
        final.sort(key=lambda x: (x[0], x[1], x[2]))
        # Why-paths, renderings and token counts only for what is packed (in rank order).
        results: list[Recalled] = []
        total = 0
        truncated = len(pre) > len(top)
        for neg, dist, _oid, node, o in final:
            if len(results) >= limit:
                truncated = True
                break
            path = self._path(g, node, reached) if node else []
            matched = [w for w in terms if w in o.text.lower() or any(w in tag.lower() for tag in o.tags)]
            if node:
                why = (
                    path[0].from_ref + "".join(f" -{h.edge.value}-> {h.to_ref}" for h in path)
                    if path
                    else f"anchored to {g.ref_of(node)}"
                )
            else:
                why = "matched " + ", ".join(matched) if matched else "matched text"
            tokens = estimate_tokens(render_line(o, why))
            if budget and total + tokens > budget:
                truncated = True
                continue
            results.append(Recalled(o, -neg, dist, why, tuple(path), tuple(matched), tokens))
            total += tokens
        return RecallResult(
            tuple(results), e.freshness(repos), len(seeds), len(reached), total, truncated, tuple(warnings)
        )

    def _successor(self, o: Observation) -> Observation | None:
        if o.status is ObservationStatus.FRESH or o.status is ObservationStatus.STALE:
            return o
        seen = {o.id}
        while o.status is ObservationStatus.SUPERSEDED and o.superseded_by:
            try:
                nxt = self._view().observation(o.superseded_by)
            except NotFound:  # successor deleted: keep nothing
                return None
            if nxt.id in seen:
                return None
            seen.add(nxt.id)
            o = nxt
        if o.status in (ObservationStatus.ARCHIVED, ObservationStatus.SUPERSEDED):
            return None
        return o

    def brief(
        self,
        *,
        repo: str = "",
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        text: str = "",
        budget: int = 1000,
        include_stale: bool = False,
    ) -> Brief:
        result = self.retrieve(
            repo=repo,
            files=files,
            symbols=symbols,
            text=text,
            hops=2,
            limit=MAX_LIMIT,
            budget=max(1, budget - 40),
            include_stale=include_stale,
        )
        fresh = result.freshness
        state = (
            "index current"
            if fresh.current
            else "index NOT current ("
            + ", ".join(f"{r.repo_id}: {r.pending_changes} pending, {r.state.value}" for r in fresh.repositories)
            + ")"
        )
        head = f"# graphmem: what is known about {', '.join(files) or ', '.join(symbols) or text!r} ({state})"
        lines = [head] + [render_line(r.observation, r.why) for r in result.results]
        if not result.results:
            lines.append("- nothing recorded yet for this code")
        body = "\n".join(lines)
        return Brief(body, tuple(r.observation.id for r in result.results), fresh, estimate_tokens(body))

    # ------------------------------------------------------------------ symbols

    def find_symbols(self, pattern: str, *, repo: str = "", kinds: Sequence[str] = (), limit: int = 50) -> list[Symbol]:
        view = self._view()
        repo_id = view.repo(repo).id if repo else ""
        with view.reading() as g:
            return [to_symbol(s) for s in g.find(pattern, repo_id, [k for k in kinds if k], limit)]

    def symbol_detail(self, ref: str, *, repo: str = "") -> SymbolDetail:
        e = self._view()
        anchor = e.resolve_anchor(ref, repo)
        if anchor.kind is not AnchorKind.SYMBOL:
            raise InvalidArgument(f"{ref!r} names a file; give 'path::qualname' for a symbol")
        with e.reading() as g:
            s = g.symbols[anchor.symbol_id]

            def syms(ids: Iterable[str]) -> tuple[Symbol, ...]:
                return tuple(sorted((to_symbol(g.symbols[i]) for i in ids if i in g.symbols), key=lambda x: x.id))

            fid = file_id(s.repo_id, s.path)
            fnode = g.files.get(fid)
            imports = sorted(g.ref_of(f) for f in g.out(fid, EdgeKind.IMPORTS))
            imports += sorted(fnode.external_imports) if fnode else []
            detail = SymbolDetail(
                symbol=to_symbol(s),
                callers=syms(g.into(s.id, EdgeKind.CALLS)),
                callees=syms(g.out(s.id, EdgeKind.CALLS)),
                unresolved_calls=tuple(sorted(set(g.unresolved(s.id)))),
                contains=syms(g.out(s.id, EdgeKind.CONTAINS)),
                container=to_symbol(g.symbols[s.parent_id]) if s.parent_id and s.parent_id in g.symbols else None,
                inherits=syms(g.out(s.id, EdgeKind.INHERITS)),
                inherited_by=syms(g.into(s.id, EdgeKind.INHERITS)),
                file_imports=tuple(imports),
                file_imported_by=tuple(sorted(g.ref_of(f) for f in g.into(fid, EdgeKind.IMPORTS))),
                observations=tuple(sorted(e.anchored_to(s.id), key=lambda o: o.id)),
                freshness=e.freshness([e.repo(s.repo_id)]),
            )
        return detail
