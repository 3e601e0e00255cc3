"""Dependency-traversal retrieval: seeds -> walks (+ git co-change) -> anchored notes -> fused rank.

A query has a file part (the given files, with every symbol they define, or, with a cursor
``line``, only the symbols under it: the file's other symbols are then one DEFINES hop away;
and the given symbols) and a text part (the text: BM25 over the notes' text, tags and
anchors' names, and the symbols whose names best match it, ``text_index``). From each part's
seeds a breadth-first walk follows CALLS (callees and callers), IMPORTS (both ways),
CONTAINS, INHERITS and DEFINES up to ``hops`` (default ``DEFAULT_HOPS`` = 2; 0: the seeds
only, no walk and no co-change neighbours), and the files and symbols that changed together
with the part's seed files and symbols in git (``cochange.py``) join the reached nodes. Every
observation anchored to a reached node is a candidate, and so is every observation whose
text matches (BM25); each collects evidence from all its anchors (``candidates.py``).

Each candidate is scored by ``ranking.py`` (the file part and the text part, each
normalised by its best value in the query and fused; times confidence, recency,
confirmation and status) and carries its score components. Superseded observations are
replaced by their successor; archived ones never appear; stale and suspect ones are
included, ranked lower by their status multiplier, unless ``fresh_only`` (then counted in
``excluded_stale``).

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
from graphmemd.retrieval.candidates import Candidate, NodeSignals, collect
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
#: The symbols whose names best match the text: the text part's seeds.
TEXT_SEEDS = 10
#: Notes the text search returns (each a candidate).
TEXT_HITS = 50


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
    #: the symbols the request named, and the ones under its cursor: their notes come first
    named: set[str] = field(default_factory=set)
    focus: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    co_files: dict[str, list[str]] = field(default_factory=dict)
    co_symbols: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class _Walks:
    """Both parts of a query, walked: seeds, reached nodes and co-change signals per part."""

    seeds: _Seeds
    tseeds: _Seeds
    reached: dict[str, _Reach]
    treached: dict[str, _Reach]
    signals: dict[str, CoSignal]
    tsignals: dict[str, CoSignal]
    share: Callable[[str], float]
    #: the file part's seeds and their files (a node in them counts for neither reach nor breadth)
    inside: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Ranked:
    """The ranked candidates (score, components, candidate), whether some were cut, the scale."""

    items: list[tuple[float, ScoreComponents, Candidate]]
    truncated: bool
    scale: ranking.Scale


def _symbol_lookup(g: GraphReader, repo_id: str) -> Callable[[str, str], list[str]]:
    """``(path, name) -> symbol ids`` in one repository, each file's symbols read once."""
    names: dict[str, dict[str, list[str]]] = {}

    def symbol_nodes(path: str, name: str) -> list[str]:
        by_name = names.get(path)
        if by_name is None:
            by_name = names[path] = {}
            for s in g.file_symbols(repo_id, path):
                by_name.setdefault(s.name, []).append(s.id)
        return by_name.get(name, [])

    return symbol_nodes


def walk(g: GraphReader, seeds: Sequence[str], hops: int) -> dict[str, _Reach]:
    """Breadth-first walk from ``seeds``. Each reached node's proximity decays per hop by the
    edge kind (``ranking.EDGE_DECAY``) and by how the edge was resolved
    (``ranking.CONFIDENCE_WEIGHT``: a name-only guess counts half). Among equally short paths
    the parent is chosen by the smallest (edge kind, parent id), so the why-path does not depend
    on set iteration order."""
    adjacency, within = g.adjacency, g.adjacency_within
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
            adj = adjacency(node) if node in seed_set else within(node, HUB_DEGREE)
            if adj is None:  # a hub: not walked through
                continue
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


def _unit_proximity(node: str, reached: dict[str, _Reach]) -> float:
    """The proximity of ``node`` for a knowledge unit: the walk's, times
    ``ranking.UNIT_EDGE_FACTOR`` of each edge on its path (a unit reaches code by what it
    names, not through imports)."""
    r = reached.get(node)
    if r is None:
        return 0.0
    prox = r[4]
    factor = ranking.UNIT_EDGE_FACTOR
    while r is not None and r[1] is not None and r[2] is not None and prox > 0.0:
        prox *= factor.get(r[2], 1.0)
        r = reached.get(r[1])
    return prox


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
            nxt = view.observation_in(o.superseded_by, (o.repo_id,))
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
        line: int,
        warnings: list[str],
    ) -> _Seeds:
        """The file part's start nodes (the given files and symbols), read from ``g``."""
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
                out.named.update(s.id for s in under)
                out.co_symbols.setdefault(rt.id, []).extend(f"{s.path}::{s.name}" for s in under)
            else:
                out.nodes.extend(s.id for s in syms)
        for ref in symbols:
            sid = resolve_ref(self._view(), g, ref, repo_hint)
            sym = g.symbols.get(sid)
            out.nodes.append(sid)
            out.named.add(sid)
            if sym is not None:
                out.co_symbols.setdefault(sym.repo_id, []).append(f"{sym.path}::{sym.name}")
                if files:  # a symbol next to files focuses the file query on it
                    out.focus.setdefault(file_id(sym.repo_id, sym.path), []).append((sym.start_line, sym.end_line))
        out.nodes = list(dict.fromkeys(out.nodes))
        return out

    @staticmethod
    def _text_seeds(g: GraphReader, repos: list[RepoRuntime], text: str) -> _Seeds:
        """The text part's start nodes: the ``TEXT_SEEDS`` symbols whose names best match the
        text, and their files and names as co-change seeds."""
        out = _Seeds()
        if not text.strip():
            return out
        scope = {rt.id for rt in repos}
        for sid, _score in g.search_symbols(text, TEXT_SEEDS, repos[0].id if len(repos) == 1 else ""):
            sym = g.symbols.get(sid)
            if sym is None or sym.repo_id not in scope:
                continue
            out.nodes.append(sid)
            out.co_symbols.setdefault(sym.repo_id, []).append(f"{sym.path}::{sym.name}")
            paths = out.co_files.setdefault(sym.repo_id, [])
            if sym.path not in paths:
                paths.append(sym.path)
        return out

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

            sig, partner_files = cochange_signals(
                co,
                seeds.co_files.get(repo_id, ()),
                seeds.co_symbols.get(repo_id, ()),
                file_node,
                _symbol_lookup(g, repo_id),
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

    def _share(self, g: GraphReader) -> Callable[[str], float]:
        """How often a symbol node changes when its file does (``CoChange.symbol_share``; each
        repository's co-change read once per query)."""
        cos: dict[str, CoChange | None] = {}

        def share(node: str) -> float:
            s = g.symbols.get(node)
            if s is None:
                return 0.0
            co = cos.get(s.repo_id)
            if s.repo_id not in cos:
                co = cos[s.repo_id] = self.cochange.get(s.repo_id) if self.cochange is not None else None
            return co.symbol_share(f"{s.path}::{s.name}") if co is not None else 0.0

        return share

    @classmethod
    def _inside(cls, g: GraphReader, seeds: Sequence[str]) -> frozenset[str]:
        """The seeds and the files they are in: the opened code, whose own co-change with
        itself says nothing (reach counts the code outside it)."""
        files = {cls._file_of(g, s) for s in seeds}
        return frozenset(seeds) | {f for f in files if f is not None}

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
            text_scores = dict(e.search_observations(text, TEXT_HITS))
        with e.reading() as g:  # the indexer cannot swap a change in meanwhile
            warnings: list[str] = []
            seeds = self._seeds(g, repos, files, symbols, line, warnings)
            tseeds = self._text_seeds(g, repos, text)
            signals, extra = self._cochange(g, seeds, hops)
            tsignals, textra = self._cochange(g, tseeds, hops)
            w = _Walks(
                seeds,
                tseeds,
                walk(g, seeds.nodes, hops) if seeds.nodes else {},
                walk(g, tseeds.nodes, hops) if tseeds.nodes else {},
                signals,
                tsignals,
                self._share(g),
                self._inside(g, seeds.nodes),
            )
            cands = self._candidates(g, repos, w, extra + textra, text_scores)
            excluded = 0
            if fresh_only:
                kept = {k: c for k, c in cands.items() if c.obs.status is ObservationStatus.FRESH}
                excluded, cands = len(cands) - len(kept), kept
            ranked = self._rank(cands, w, text, text_scores, limit)
            n_seeds = len(set(seeds.nodes) | set(tseeds.nodes))
            result = self._pack(g, ranked, w, text, limit, budget, n_seeds, warnings, repos)
            return replace(result, excluded_stale=excluded) if excluded else result

    def _node_signals(self, g: GraphReader, node: str, w: _Walks) -> NodeSignals:
        """What ``node`` says for the query, from both parts' walks and co-change."""
        r, tr = w.reached.get(node), w.treached.get(node)
        fid = self._file_of(g, node)
        file_of = lambda _n: fid  # noqa: E731
        share = w.share
        outside = node not in w.inside and (fid or "") not in w.inside
        return NodeSignals.make(
            proximity=r[4] if r is not None else 0.0,
            unit_proximity=_unit_proximity(node, w.reached),
            cochange=node_signal(w.signals, node, file_of, share) if w.signals else None,
            focus=self._focus(g, node, w.seeds.focus),
            centrality=ranking.centrality(g.degree(node, ranking.CENTRALITY_CAP)),
            text_proximity=tr[4] if tr is not None else 0.0,
            text_cochange=node_signal(w.tsignals, node, file_of, share) if w.tsignals else None,
            outside=outside,
        )

    def _candidates(
        self,
        g: GraphReader,
        repos: list[RepoRuntime],
        w: _Walks,
        extra: list[str],
        text_scores: dict[str, float],
    ) -> dict[str, Candidate]:
        """Every candidate observation (current version) with the evidence of its anchors."""
        e = self._view()
        nodes: dict[str, object] = dict.fromkeys(w.reached)
        nodes.update(dict.fromkeys(w.treached))
        nodes.update(dict.fromkeys(extra))
        anchored = e.anchored_in(nodes)
        signals = {node: self._node_signals(g, node, w) for node in anchored}
        found = collect(anchored, signals, frozenset(w.seeds.named))
        scope = {rt.id for rt in repos}
        for oid in text_scores:
            if oid not in found:
                try:
                    found[oid] = Candidate(e.observation_in(oid, sorted(scope)))
                except NotFound:  # deleted between the search and now
                    continue
        out: dict[str, Candidate] = {}
        for c in found.values():
            current = c.obs if c.obs.status is ObservationStatus.FRESH else successor(self._view(), c.obs)
            # a note made on a branch this checkout does not contain is not about its code
            if current is None or current.repo_id not in scope or current.on_branch:
                continue
            c.obs = current
            prev = out.get(current.id)
            if prev is None or c.file_sum + c.text_sum > prev.file_sum + prev.text_sum:
                out[current.id] = c
        return out

    @staticmethod
    def _signals(c: Candidate, now: float) -> ranking.Signals:
        o = c.obs
        status = ranking.STALE_FACTOR if o.status is ObservationStatus.STALE else 1.0
        if o.status is ObservationStatus.SUSPECT:
            status = ranking.SUSPECT_FACTOR
        touched = max(o.updated_at, o.confirmed_at or 0.0)
        return c.signals(o.confidence, (now - touched) / 86400, bool(o.confirmed_by), status)

    def _rank(
        self,
        cands: dict[str, Candidate],
        w: _Walks,
        text: str,
        text_scores: dict[str, float],
        limit: int,
    ) -> _Ranked:
        """Candidates in rank order (the top ones, with PageRank), whether some were cut, and
        the fusion's scale (the best value of each part among the candidates)."""
        max_text = max(text_scores.values(), default=0.0) or 1.0
        for c in cands.values():
            c.text = text_scores.get(c.obs.id, 0.0) / max_text
        now = time.time()
        has_file, has_text = bool(w.seeds.nodes), bool(text.strip())
        parts = {oid: c.parts(has_file, has_text) for oid, c in cands.items()}
        best_file = max((f for f, _ in parts.values()), default=0.0)
        best_text = max((t for _, t in parts.values()), default=0.0)
        scale = ranking.Scale(has_file and best_file > 0, has_text and best_text > 0, best_file, best_text)

        def quick(oid: str) -> tuple[float, float, float, float, str]:
            """The score without PageRank, recency and confirmation: which candidates get the
            full treatment."""
            c = cands[oid]
            o = c.obs
            status = ranking.STALE_FACTOR if o.status is ObservationStatus.STALE else 1.0
            fused = ranking.fuse(*parts[oid], scale) * (0.6 + 0.4 * o.confidence) * status
            return (ranking.group(c.on_query), -fused, 1.0 if c.unit else 0.0, -o.updated_at, o.text)

        pool = sorted(cands, key=quick)
        top = [cands[oid] for oid in pool[: max(RERANK_FACTOR * limit, 20)]]
        self._pagerank(top, w, has_file)
        final = []
        for c in top:
            comps = ranking.components(self._signals(c, now), scale)
            sc = ranking.score(comps)
            final.append((ranking.sort_key(sc, comps, c.obs.updated_at, c.obs.text, c.unit), sc, comps, c))
        final.sort(key=lambda x: x[0])
        return _Ranked([(sc, comps, c) for _, sc, comps, c in final], len(pool) > len(top), scale)

    @staticmethod
    def _pagerank(top: list[Candidate], w: _Walks, has_file: bool) -> None:
        """Personalised PageRank over the union of the top candidates' walked paths (both
        ways), from the file part's seeds (the text part's without files)."""
        reached, seeds = (w.reached, w.seeds.nodes) if has_file else (w.treached, w.tseeds.nodes)
        succ: dict[str, set[str]] = {s: set() for s in seeds}
        for c in top:
            cur = c.node if has_file else c.tnode
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
            node = c.node if has_file else c.tnode
            c.pagerank = pr.get(node, 0.0) / max_pr if node in reached else 0.0

    def _why(
        self, g: GraphReader, c: Candidate, comps: ScoreComponents, w: _Walks, scale: ranking.Scale, matched: list[str]
    ) -> tuple[str, list[Hop], int]:
        """Why a result was found (a path, a co-change, or the matched words), its path and distance."""
        file_share = comps.file_part / scale.best_file if scale.has_file and scale.best_file else 0.0
        text_share = (comps.text_part - ranking.W_TEXT * comps.text) / scale.best_text if scale.best_text else 0.0
        if file_share > 0 and file_share >= text_share:
            node, reached, co, prox = c.node, w.reached, c.best.cochange, c.best.proximity
        elif text_share > 0:
            node, reached, co, prox = c.tnode, w.treached, c.tbest.text_cochange, c.tbest.text_proximity
        else:
            return ("matched " + ", ".join(matched) if matched else "matched text"), [], 0
        walked = node in reached
        path = why_path(g, node, reached) if walked else []
        if co is not None and not walked:  # only the history relates it (``why`` says when that is thin)
            return co.why(g.ref_of(node)), path, 0
        co = co if co is not None and co.explains else None  # too little history to prefer to a path
        if co is not None and ranking.W_COCHANGE * co.strength > ranking.W_PROXIMITY * prox:
            return co.why(g.ref_of(node)), path, reached[node][0]
        if path:
            return path[0].from_ref + "".join(f" -{_edge_label(h)}-> {h.to_ref}" for h in path), path, reached[node][0]
        return f"anchored to {g.ref_of(node)}", path, 0

    def _pack(
        self,
        g: GraphReader,
        ranked: _Ranked,
        w: _Walks,
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
        truncated = ranked.truncated
        for sc, comps, c in ranked.items:
            if len(results) >= limit:
                truncated = True
                break
            o = c.obs
            words = " ".join((o.text, *o.tags, *(a.ref for a in o.anchors))).lower()
            matched = [t for t in terms if t in words]
            why, path, dist = self._why(g, c, comps, w, ranked.scale, matched)
            tokens = estimate_tokens(render_line(o, why))
            if budget and total + tokens > budget:
                truncated = True
                continue
            results.append(Recalled(o, sc, dist, why, tuple(path), tuple(matched), tokens, comps))
            total += tokens
        reached = len(w.reached) + sum(1 for n in w.treached if n not in w.reached)
        return RecallResult(
            tuple(results), self._view().freshness(repos), n_seeds, reached, total, truncated, tuple(warnings)
        )
