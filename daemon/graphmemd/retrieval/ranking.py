"""The fused retrieval score (pure: signals in, score components and order out).

    relevance = W_PROXIMITY * proximity + W_COCHANGE * cochange + W_TEXT * text
              + W_PAGERANK * pagerank + W_CENTRALITY * centrality + W_FOCUS * focus
    score     = relevance * confidence * recency * confirmation * status

* proximity: 1.0 for an anchor that is a seed; each edge walked multiplies it by
  ``EDGE_DECAY[kind]`` (the per-hop decay of that edge kind) and by the edge's resolution
  confidence (``CONFIDENCE_WEIGHT``: a name-only guess counts half).
* cochange: git co-change strength of the anchor (its symbol, else its file) with the seeds
  (``cochange.py``), 0..1.
* text: the note's BM25 score over text and tags divided by the best in the query, plus
  ``ANCHOR_NAME_WEIGHT`` times the share of query words found in the anchors' names; capped at 1.
* pagerank: personalised PageRank (restart on the seeds) over the walked paths of the top
  candidates, max-normalised.
* centrality: ``log(1 + degree) / log(1 + CENTRALITY_CAP)`` of the anchored node, capped at 1.
* focus: with a cursor line (or a focus symbol), 1.0 for the symbol under it (or containing
  it), ``1 / (1 + gap / FOCUS_LINES)`` for other symbols of that file by line gap, 0 elsewhere.
* confidence = ``0.6 + 0.4 * observation confidence``; recency from 1.0 (updated or confirmed
  within ``RECENT_DAYS``) down to ``RECENCY_FLOOR`` at a year; confirmation ``CONFIRMED_BONUS``
  when someone confirmed it; status 1.0 fresh, ``SUSPECT_FACTOR`` (0.8) suspect, ``STALE_FACTOR`` stale.

Weights were chosen on ``scripts/bench_quality.py`` (click's history; see docs/ranking.md):
a coarse grid over W_COCHANGE, W_PROXIMITY and W_TEXT with the rest fixed, picking the
setting with the best mean nDCG@10 over the four query kinds that also kept file + text at or
above text alone; the small ones (pagerank, centrality, focus) mainly order notes that tie on
the big three. Order: score, then the components (relevance signals first), then the newer
note, then the text; never an id.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from graphmem.types import EdgeConfidence, EdgeKind, ScoreComponents

W_PROXIMITY = 0.35
W_COCHANGE = 0.45
W_TEXT = 0.40
W_PAGERANK = 0.05
W_CENTRALITY = 0.04
W_FOCUS = 0.30

#: Per-hop decay of each edge kind, as walked (a call says more than an import).
#: How much an edge counts by how it was resolved (issue 13's confidence): a name-only guess
#: half, an edge from a store written before confidences existed a little less than certain.
CONFIDENCE_WEIGHT: Mapping[EdgeConfidence | None, float] = {
    EdgeConfidence.NAME_ONLY: 0.5,
    EdgeConfidence.UNKNOWN: 0.8,
}

EDGE_DECAY: Mapping[EdgeKind, float] = {
    EdgeKind.CALLS: 0.6,
    EdgeKind.CALLED_BY: 0.6,
    EdgeKind.INHERITS: 0.55,
    EdgeKind.INHERITED_BY: 0.55,
    EdgeKind.CONTAINS: 0.5,
    EdgeKind.CONTAINED_IN: 0.5,
    EdgeKind.DEFINES: 0.5,
    EdgeKind.DEFINED_IN: 0.5,
    EdgeKind.IMPORTS: 0.35,
    EdgeKind.IMPORTED_BY: 0.35,
}
ANCHOR_NAME_WEIGHT = 0.3
CENTRALITY_CAP = 64
FOCUS_LINES = 40.0
RECENT_DAYS = 30.0
RECENCY_FLOOR = 0.8
CONFIRMED_BONUS = 1.1
STALE_FACTOR = 0.5
#: SUSPECT observations (a dependency of the anchor changed its signature or went away).
SUSPECT_FACTOR = 0.8


@dataclass(frozen=True, slots=True)
class Signals:
    """The raw signals of one candidate (before weighting)."""

    proximity: float = 0.0
    cochange: float = 0.0
    text: float = 0.0
    pagerank: float = 0.0
    centrality: float = 0.0
    focus: float = 0.0
    confidence: float = 1.0
    age_days: float = 0.0
    confirmed: bool = False
    status: float = 1.0
    together: int = 0
    total: int = 0


def recency(age_days: float) -> float:
    """1.0 within ``RECENT_DAYS``, then linearly down to ``RECENCY_FLOOR`` at a year."""
    if age_days <= RECENT_DAYS:
        return 1.0
    return max(RECENCY_FLOOR, 1.0 - (1.0 - RECENCY_FLOOR) * (age_days - RECENT_DAYS) / (365.0 - RECENT_DAYS))


def centrality(degree: int) -> float:
    """A node's degree mapped to 0..1 on a log scale, saturating at ``CENTRALITY_CAP``."""
    return min(1.0, math.log1p(degree) / math.log1p(CENTRALITY_CAP))


def focus(gap_lines: int) -> float:
    """Nearness of a symbol to the cursor (0 lines: under it)."""
    return 1.0 / (1.0 + max(0, gap_lines) / FOCUS_LINES)


def components(s: Signals) -> ScoreComponents:
    """The weighted relevance and the other factors of a score, from the raw signals."""
    relevance = (
        W_PROXIMITY * s.proximity
        + W_COCHANGE * s.cochange
        + W_TEXT * s.text
        + W_PAGERANK * s.pagerank
        + W_CENTRALITY * s.centrality
        + W_FOCUS * s.focus
    )
    return ScoreComponents(
        proximity=round(s.proximity, 6),
        cochange=round(s.cochange, 6),
        text=round(s.text, 6),
        pagerank=round(s.pagerank, 6),
        centrality=round(s.centrality, 6),
        focus=round(s.focus, 6),
        recency=round(recency(s.age_days), 6),
        confirmation=CONFIRMED_BONUS if s.confirmed else 1.0,
        status=s.status,
        confidence=round(0.6 + 0.4 * s.confidence, 6),
        relevance=round(relevance, 6),
        cochange_together=s.together,
        cochange_total=s.total,
    )


def score(c: ScoreComponents) -> float:
    """The final score: relevance times confidence, recency, confirmation and status factors."""
    return round(c.relevance * c.confidence * c.recency * c.confirmation * c.status, 6)


def sort_key(score_: float, c: ScoreComponents, updated_at: float, text: str) -> tuple[float | str, ...]:
    """Best first: score, then each component, then the newer note, then its text."""
    return (
        -score_,
        -c.relevance,
        -c.proximity,
        -c.cochange,
        -c.text,
        -c.focus,
        -c.pagerank,
        -c.centrality,
        -c.status,
        -c.recency,
        -updated_at,
        text,
    )


def pagerank(
    succ: Mapping[str, Iterable[str]], seeds: Iterable[str], alpha: float = 0.85, iters: int = 15
) -> dict[str, float]:
    """Personalised PageRank by power iteration, restarting on the seeds (at most ``iters``
    iterations, stopping when the L1 change < 1e-3). ``succ`` maps every node to its successors."""
    nodes = sorted(succ)
    if not nodes:
        return {}
    index = {n: i for i, n in enumerate(nodes)}
    out = [[index[m] for m in succ[n] if m in index] for n in nodes]
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
            targets = out[i]
            if targets:
                share = alpha * r / len(targets)
                for j in targets:
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
