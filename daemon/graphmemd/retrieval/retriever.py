"""Dependency-traversal retrieval: seeds -> walk (+ git co-change) -> anchored notes -> fused rank.

Seeds are the given symbols, the files given (with every symbol they define, or, with a cursor
``line``, only the symbols under it: the file's other symbols are then one DEFINES hop away),
and the symbols whose names match the text (BM25 over identifier words, ``text_index``). From the
seeds a breadth-first walk follows CALLS (callees and callers), IMPORTS (both ways), CONTAINS,
INHERITS and DEFINES up to ``hops`` (default ``DEFAULT_HOPS`` = 2; 0: the seeds only, no walk
and no co-change neighbours). The files and symbols that changed together with the seed files
and the given symbols in git (``cochange.py``) join the reached nodes. Every observation
anchored to a reached node is a candidate, and so is every observation whose text/tags match
the text (BM25).

Each candidate is scored by ``ranking.py`` (one fused score: graph proximity, co-change, text,
personalised PageRank, centrality, cursor focus; times confidence, recency, confirmation and
status) and carries its score components. Superseded observations are replaced by their
successor; archived ones never appear; stale and suspect ones are included, ranked lower by
their status multiplier, unless ``fresh_only`` (then counted in ``excluded_stale``).

Token estimate (documented, deterministic): ``ceil(utf8_bytes / 4)`` of the result's
rendering (the line ``render_line`` produces). Results are packed greedily in rank order:
one that does not fit the remaining budget is skipped and the next is tried.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from graphmem.errors import InvalidArgument, NotFound
from graphmem.render import brief_line
from graphmem.types import (
    EdgeKind,
    Hop,
    Observation,
    ObservationStatus,
    Recalled,
    RecallResult,
    ScoreComponents,
)

from graphmemd.graph.model import file_id
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.retrieval import ranking
from graphmemd.retrieval.cochange import CoChange
from graphmemd.retrieval.cosignal import CoSignal, cochange_signals, node_signal
from graphmemd.retrieval.readview import GraphReader, ReadView
from graphmemd.retrieval.symbols import resolve_ref

MAX_HOPS = 6
DEFAULT_HOPS = 2
MAX_LIMIT = 200
#: The walk stops once this many nodes are reached (nearest first; the last layer is cut in id order).
MAX_VISITED = 2_500
#: Nodes with more neighbours than this (a module imported everywhere, a class with hundreds of
#: callers) are reached but not expanded through, unless they are seeds: a path through a hub
#: says little about relevance and would flood the walk.
HUB_DEGREE = 200
#: PageRank and why-paths are computed for this many candidates (times the limit) at most.
RERANK_FACTOR = 2
#: Symbols of this many of the strongest co-changed files join the candidates' anchors.
PARTNER_FILE_SYMBOLS = 12
_WORD = re.compile(r"[a-z0-9]+")


class CoChangeSource(Protocol):
    """Where retrieval gets a repository's co-change (None: not a git tree, or not mined yet)."""

    def get(self, repo_id: str) -> CoChange | None:
        """The current co-change of ``repo_id`` (None: not a git repository, or not mined yet)."""


#: Resolution confidence of an edge (from, kind as walked, to): a multiplier on proximity.
def estimate_tokens(text: str) -> int:
    """A cheap token estimate: one token per four bytes of UTF-8 (at least one)."""
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


def _edge_label(h: Hop) -> str:
    """The edge kind; a guessed (name-only) edge is marked ``calls?``, never shown as certain."""
    return h.edge.value if h.confidence is None or h.confidence.certain else h.edge.value + "?"


#: One observation as a line of text (what the token estimate measures): the shared renderer.
render_line = brief_line


#: How the walk reached a node: (distance, parent, edge from the parent, KIND_ORDER of that
#: edge (the tie-break between equally short paths), proximity (product of the edge decays and
#: confidences along the path)). A plain tuple: the walk creates thousands per query.
_Reach = tuple[int, str | None, EdgeKind | None, int, float]


@dataclass
class _Seeds:
    """What a request starts from. ``focus`` maps a file id to the line range(s) the request
    focuses on (cursor line, or a given symbol's lines); ``co_files``/``co_symbols`` are the
    co-change keys per repository."""

    nodes: list[str] = field(default_factory=list)
    focus: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    co_files: dict[str, list[str]] = field(default_factory=dict)
    co_symbols: dict[str, list[str]] = field(default_factory=dict)


@dataclass(slots=True)
class _Cand:
    """One candidate observation with its best anchor's graph signals."""

    obs: Observation
    node: str = ""
    node_rel: float = -1.0
    proximity: float = 0.0
    co: CoSignal | None = None
    focus: float = 0.0
    centrality: float = 0.0
    text: float = 0.0
    pagerank: float = 0.0


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def walk(g: GraphReader, seeds: Sequence[str], hops: int) -> dict[str, _Reach]:
    """Breadth-first walk from ``seeds``. Each reached node's proximity decays per hop by the
    edge kind (``ranking.EDGE_DECAY``) and by how the edge was resolved
    (``ranking.CONFIDENCE_WEIGHT``: a name-only guess counts half). Among equally short paths
    the parent is chosen by the smallest (edge kind, parent id), so the why-path does not depend
    on set iteration order."""
    adjacency, degree = g.adjacency, g.degree
    decay = ranking.EDGE_DECAY
    weight = ranking.CONFIDENCE_WEIGHT
    seed_set = set(seeds)
    reached: dict[str, _Reach] = {s: (0, None, None, -1, 1.0) for s in seeds}
    get = reached.get
    frontier = sorted(seeds)
    for depth in range(hops):
        nxt: list[str] = []
        d1 = depth + 1
        for node in frontier:
            if len(reached) >= MAX_VISITED:
                break
            if node not in seed_set and degree(node) > HUB_DEGREE:
                continue
            adj = adjacency(node)
            base = reached[node][4]
            for order, kind, other, conf in adj:
                r = get(other)
                if r is None:
                    nxt.append(other)
                elif not (r[0] == d1 and (order < r[3] or (order == r[3] and node < (r[1] or "")))):
                    continue
                prox = base * decay[kind] * weight.get(conf, 1.0)
                reached[other] = (d1, node, kind, order, prox)
        if len(reached) >= MAX_VISITED:
            break
        frontier = sorted(nxt)
    return reached


def why_path(g: GraphReader, node: str, reached: dict[str, _Reach]) -> list[Hop]:
    """The hops from a seed to ``node`` along the walk's parents."""
    hops: list[Hop] = []
    cur = node
    while True:
        _, parent, edge, _, _ = reached[cur]
        if parent is None or edge is None:
            break
        hops.append(Hop(g.ref_of(parent), edge, g.ref_of(cur), g.confidence(parent, edge, cur)))
        cur = parent
    hops.reverse()
    return hops


def successor(view: ReadView, o: Observation) -> Observation | None:
    """The live observation standing for ``o``: itself, or what superseded it (None when
    archived, deleted or in a supersession cycle)."""
    if o.status in (ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT):
        return o
    seen = {o.id}
    while o.status is ObservationStatus.SUPERSEDED and o.superseded_by:
        try:
            nxt = view.observation(o.superseded_by)
        except NotFound:  # successor deleted: keep nothing
            return None
        if nxt.id in seen:
            return None
        seen.add(nxt.id)
        o = nxt
    if o.status in (ObservationStatus.ARCHIVED, ObservationStatus.SUPERSEDED):
        return None
    return o


class Retriever:
    """Seeds -> walk (+ co-change) -> anchored observations -> fused ranking, over the read view.

    ``cochange``: where co-change comes from (a ``CoChangeKeeper``; None: no co-change)."""

    def __init__(
        self,
        view: Callable[[], ReadView],
        cochange: CoChangeSource | None = None,
    ) -> None:
        self._view = view
        self.cochange = cochange

    # ------------------------------------------------------------------ seeds

    def _seeds(
        self,
        g: GraphReader,
        repos: list[RepoRuntime],
        files: Sequence[str],
        symbols: Sequence[str],
        text: str,
        line: int,
        warnings: list[str],
    ) -> _Seeds:
        """The walk's start nodes, read from ``g`` (with the text's best symbol-name matches)."""
        e = self._view()
        out = _Seeds()
        repo_hint = repos[0].id if len(repos) == 1 else ""
        for i, f in enumerate(files):
            try:
                rt, rel = e.locate(f, repo_hint)
            except InvalidArgument as exc:
                warnings.append(str(exc))
                continue
            fid = file_id(rt.id, rel)
            if fid not in g.files:
                warnings.append(f"{rel} is not indexed in {rt.id}" + (" (yet)" if rt.state.value != "ready" else ""))
                continue
            out.nodes.append(fid)
            out.co_files.setdefault(rt.id, []).append(rel)
            syms = g.file_symbols(rt.id, rel)
            if line and i == 0:
                under = [s for s in syms if s.start_line <= line <= s.end_line]
                out.focus.setdefault(fid, []).append((line, line))
                out.nodes.extend(s.id for s in under)
                out.co_symbols.setdefault(rt.id, []).extend(f"{s.path}::{s.name}" for s in under)
            else:
                out.nodes.extend(s.id for s in syms)
        for ref in symbols:
            sid = resolve_ref(self._view(), g, ref, repo_hint)
            sym = g.symbols.get(sid)
            out.nodes.append(sid)
            if sym is not None:
                out.co_symbols.setdefault(sym.repo_id, []).append(f"{sym.path}::{sym.name}")
                if files:  # a symbol next to files focuses the file query on it
                    out.focus.setdefault(file_id(sym.repo_id, sym.path), []).append((sym.start_line, sym.end_line))
        if text.strip():
            scope = {rt.id for rt in repos}
            for sid, _score in g.search_symbols(text, 10, repo_hint):
                if sid in g.symbols and g.symbols[sid].repo_id in scope:
                    out.nodes.append(sid)
        out.nodes = list(dict.fromkeys(out.nodes))
        return out

    # ------------------------------------------------------------------ walk

    # ------------------------------------------------------------------ co-change

    def _cochange(self, g: GraphReader, seeds: _Seeds, hops: int) -> tuple[dict[str, CoSignal], list[str]]:
        """Co-change signals of graph nodes with the seeds, and the extra nodes (partner files,
        their symbols, partner symbols) whose notes become candidates (none when hops == 0)."""
        signals: dict[str, CoSignal] = {}
        extra: list[str] = []
        if self.cochange is None:
            return signals, extra
        for repo_id in sorted(set(seeds.co_files) | set(seeds.co_symbols)):
            co = self.cochange.get(repo_id)
            if co is None:
                continue

            def file_node(path: str, rid: str = repo_id) -> str | None:
                fid = file_id(rid, path)
                return fid if fid in g.files else None

            def symbol_nodes(path: str, name: str, rid: str = repo_id) -> list[str]:
                return [s.id for s in g.file_symbols(rid, path) if s.name == name]

            sig, partner_files = cochange_signals(
                co, seeds.co_files.get(repo_id, ()), seeds.co_symbols.get(repo_id, ()), file_node, symbol_nodes
            )
            for node, s in sig.items():
                prev = signals.get(node)
                if prev is None or (s.strength, s.together) > (prev.strength, prev.together):
                    signals[node] = s
            if hops:
                extra.extend(sig)
                for fid in partner_files[:PARTNER_FILE_SYMBOLS]:
                    fnode = g.files.get(fid)
                    if fnode is not None:
                        extra.extend(fnode.symbol_ids)
        return signals, extra

    @staticmethod
    def _file_of(g: GraphReader, node: str) -> str | None:
        s = g.symbols.get(node)
        if s is not None:
            return file_id(s.repo_id, s.path)
        return node if node in g.files else None

    @staticmethod
    def _focus(g: GraphReader, node: str, focus: dict[str, list[tuple[int, int]]]) -> float:
        if not focus:
            return 0.0
        s = g.symbols.get(node)
        if s is None:
            return 0.0
        spans = focus.get(file_id(s.repo_id, s.path))
        if not spans:
            return 0.0
        gap = min(max(0, a - s.end_line, s.start_line - b) for a, b in spans)
        return ranking.focus(gap)

    # ------------------------------------------------------------------ retrieve

    def retrieve(
        self,
        *,
        repo: str = "",
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        text: str = "",
        hops: int = DEFAULT_HOPS,
        limit: int = 20,
        budget: int = 0,
        fresh_only: bool = False,
        line: int = 0,
    ) -> RecallResult:
        """Observations relevant to ``files``/``symbols``/``text``, best first (module docstring)."""
        if hops < 0 or hops > MAX_HOPS:
            raise InvalidArgument(f"hops must be between 0 and {MAX_HOPS}, not {hops}")
        if limit < 1 or limit > MAX_LIMIT:
            raise InvalidArgument(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
        if line < 0:
            raise InvalidArgument(f"line must be positive, not {line}")
        if line and not files:
            raise InvalidArgument("a cursor line needs a file")
        if not files and not symbols and not text.strip():
            raise InvalidArgument("give at least one of files, symbols or text")
        e = self._view()
        repos = e.repos(repo)
        text_scores: dict[str, float] = {}
        if text.strip():  # the store's observation index is searched before taking the graph lock
            text_scores = dict(e.search_observations(text, 50))
        with e.reading() as g:  # the indexer cannot swap a change in meanwhile
            warnings: list[str] = []
            seeds = self._seeds(g, repos, files, symbols, text, line, warnings)
            reached = walk(g, seeds.nodes, hops) if seeds.nodes else {}
            signals, extra = self._cochange(g, seeds, hops)
            cands = self._candidates(g, repos, reached, signals, extra, seeds, text_scores)
            excluded = 0
            if fresh_only:
                kept = {k: c for k, c in cands.items() if c.obs.status is ObservationStatus.FRESH}
                excluded, cands = len(cands) - len(kept), kept
            ranked = self._rank(cands, seeds.nodes, reached, text, text_scores, limit)
            result = self._pack(g, ranked, reached, text, limit, budget, len(seeds.nodes), warnings, repos)
            return replace(result, excluded_stale=excluded) if excluded else result

    def _candidates(
        self,
        g: GraphReader,
        repos: list[RepoRuntime],
        reached: dict[str, _Reach],
        signals: dict[str, CoSignal],
        extra: list[str],
        seeds: _Seeds,
        text_scores: dict[str, float],
    ) -> dict[str, _Cand]:
        """Every candidate observation (current version) with its best anchor's signals."""
        e = self._view()
        nodes: dict[str, object] = dict.fromkeys(reached)
        nodes.update(dict.fromkeys(extra))
        found: dict[str, _Cand] = {}
        for node, anchored in e.anchored_in(nodes).items():
            r = reached.get(node)
            prox = r[4] if r is not None else 0.0
            co = node_signal(signals, node, lambda n: self._file_of(g, n))
            foc = self._focus(g, node, seeds.focus)
            cent = ranking.centrality(g.degree(node))
            rel = (
                ranking.W_PROXIMITY * prox
                + ranking.W_COCHANGE * (co.strength if co is not None else 0.0)
                + ranking.W_FOCUS * foc
                + ranking.W_CENTRALITY * cent
            )
            for o in anchored:
                c = found.get(o.id)
                if c is None or rel > c.node_rel or (rel == c.node_rel and node < c.node):
                    found[o.id] = _Cand(o, node, rel, prox, co, foc, cent)
        for oid in text_scores:
            if oid not in found:
                try:
                    found[oid] = _Cand(e.observation(oid))
                except NotFound:  # deleted between the search and now
                    continue
        scope = {rt.id for rt in repos}
        out: dict[str, _Cand] = {}
        for c in found.values():
            current = c.obs if c.obs.status is ObservationStatus.FRESH else successor(self._view(), c.obs)
            if current is None or current.repo_id not in scope:
                continue
            c.obs = current
            prev = out.get(current.id)
            if prev is None or c.node_rel > prev.node_rel:
                out[current.id] = c
        return out

    def _rank(
        self,
        cands: dict[str, _Cand],
        seeds: Sequence[str],
        reached: dict[str, _Reach],
        text: str,
        text_scores: dict[str, float],
        limit: int,
    ) -> tuple[list[tuple[float, ScoreComponents, _Cand]], bool]:
        """Candidates in rank order (the top ones, with PageRank) and whether some were cut."""
        max_text = max(text_scores.values(), default=0.0) or 1.0
        terms = _words(text)
        now = time.time()
        for c in cands.values():
            t = text_scores.get(c.obs.id, 0.0) / max_text
            if terms:
                names: set[str] = set()
                for a in c.obs.anchors:
                    names |= _words(a.ref.rpartition("::")[2] if "::" in a.ref else Path(a.ref).stem)
                t += ranking.ANCHOR_NAME_WEIGHT * len(terms & names) / len(terms)
            c.text = min(1.0, t)

        def scored(c: _Cand) -> tuple[tuple[float | str, ...], float, ScoreComponents, _Cand]:
            o = c.obs
            status = ranking.STALE_FACTOR if o.status is ObservationStatus.STALE else 1.0
            if o.status is ObservationStatus.SUSPECT:
                status = ranking.SUSPECT_FACTOR
            touched = max(o.updated_at, o.confirmed_at or 0.0)
            sig = ranking.Signals(
                proximity=c.proximity,
                cochange=c.co.strength if c.co is not None else 0.0,
                text=c.text,
                pagerank=c.pagerank,
                centrality=c.centrality,
                focus=c.focus,
                confidence=o.confidence,
                age_days=(now - touched) / 86400,
                confirmed=bool(o.confirmed_by),
                status=status,
                together=c.co.together if c.co is not None else 0,
                total=c.co.total if c.co is not None else 0,
            )
            comps = ranking.components(sig)
            sc = ranking.score(comps)
            return ranking.sort_key(sc, comps, o.updated_at, o.text), sc, comps, c

        def quick(c: _Cand) -> tuple[float, float, str]:
            """The score without PageRank, cheaply (the multipliers but recency/confirmation):
            which candidates get the full treatment."""
            o = c.obs
            rel = c.node_rel + ranking.W_TEXT * c.text
            stale = ranking.STALE_FACTOR if o.status is ObservationStatus.STALE else 1.0
            return (-rel * (0.6 + 0.4 * o.confidence) * stale, -o.updated_at, o.text)

        n_top = max(RERANK_FACTOR * limit, 20)
        pool = sorted(cands.values(), key=quick)
        top = pool[:n_top]
        # personalised PageRank over the union of the top candidates' walked paths (both ways)
        succ: dict[str, set[str]] = {s: set() for s in seeds}
        for c in top:
            cur = c.node
            while cur in reached:
                parent = reached[cur][1]
                if parent is None or cur in succ.get(parent, ()):
                    break
                succ.setdefault(parent, set()).add(cur)
                succ.setdefault(cur, set()).add(parent)
                cur = parent
        pr = ranking.pagerank(succ, seeds)
        max_pr = max(pr.values(), default=0.0) or 1.0
        for c in top:
            c.pagerank = pr.get(c.node, 0.0) / max_pr if c.node in reached else 0.0
        final = sorted((scored(c) for c in top), key=lambda x: x[0])
        return [(sc, comps, c) for _, sc, comps, c in final], len(pool) > len(top)

    def _pack(
        self,
        g: GraphReader,
        ranked: tuple[list[tuple[float, ScoreComponents, _Cand]], bool],
        reached: dict[str, _Reach],
        text: str,
        limit: int,
        budget: int,
        n_seeds: int,
        warnings: list[str],
        repos: list[RepoRuntime],
    ) -> RecallResult:
        """Why-paths, renderings and token counts only for what is packed (in rank order)."""
        terms = sorted(set(re.findall(r"\w+", text.lower())))
        results: list[Recalled] = []
        total = 0
        final, truncated = ranked
        for sc, comps, c in final:
            if len(results) >= limit:
                truncated = True
                break
            o, node = c.obs, c.node
            walked = node in reached
            path = why_path(g, node, reached) if walked else []
            matched = [w for w in terms if w in o.text.lower() or any(w in tag.lower() for tag in o.tags)]
            co = c.co
            if co is not None and (not walked or ranking.W_COCHANGE * co.strength > ranking.W_PROXIMITY * c.proximity):
                why = co.why(g.ref_of(node))
            elif walked:
                why = (
                    path[0].from_ref + "".join(f" -{_edge_label(h)}-> {h.to_ref}" for h in path)
                    if path
                    else f"anchored to {g.ref_of(node)}"
                )
            else:
                why = "matched " + ", ".join(matched) if matched else "matched text"
            tokens = estimate_tokens(render_line(o, why))
            if budget and total + tokens > budget:
                truncated = True
                continue
            dist = reached[node][0] if walked else 0
            results.append(Recalled(o, sc, dist, why, tuple(path), tuple(matched), tokens, comps))
            total += tokens
        return RecallResult(
            tuple(results), self._view().freshness(repos), n_seeds, len(reached), total, truncated, tuple(warnings)
        )
