"""The fused retrieval score (pure: signals in, score components and order out).

A query has up to two parts, each scored on its own, then fused:

    evidence(anchor)  = W_PROXIMITY * proximity + W_COCHANGE * cochange + W_FOCUS * focus
                                                                     (from the files/symbols)
    text_evidence(a)  = W_TEXT_PROXIMITY * text_proximity + W_TEXT_COCHANGE * text_cochange
                                                                     (from the text's symbols)
    file part  = best evidence + W_CENTRALITY * its centrality
                 + BREADTH * spread(sum of the other anchors' evidence) + W_PAGERANK * pagerank
                 + W_REACH * reach
    text part  = W_TEXT * text + best text_evidence
                 + TEXT_BREADTH * spread(the other anchors' text evidence)
    relevance  = FUSION * file part / its best + (1 - FUSION) * text part / its best
                 (when the query has both parts; else the one part, as it is)
    score      = relevance * confidence * recency * confirmation * status

* proximity: 1.0 for an anchor that is a seed; each edge walked multiplies it by
  ``EDGE_DECAY[kind]`` (the per-hop decay of that edge kind) and by the edge's resolution
  confidence (``CONFIDENCE_WEIGHT``: a name-only guess counts half).
* cochange: git co-change strength of the anchor with the seed files and symbols: its symbol's
  own, else its file's times how often the symbol changes when its file does (the chain rule;
  ``cochange.py``, ``cosignal.py``), 0..1: an estimate of P(anchor changes | seeds change).
* reach: ``1 - prod(1 - cochange)`` over the note's anchors outside the seeds and the files
  they are in (noisy-or): the chance that some code the note is about, other than the opened
  code, changes together with it. The opened files' own symbols change "with" them trivially,
  so they are left out (proximity already counts them).
* text_proximity / text_cochange: the same two signals from the text's seeds instead (the
  symbols whose names best match the text), so co-change serves text queries too.
* text: the note's BM25 over its text, tags and anchors' names and paths (``text_index``,
  identifier-aware ``tokens``) divided by the best in the query, 0..1.
* breadth: a note anchored to several functions collects the evidence of each, the best in
  full and the others' sum shaped by ``SPREAD`` (saturating: ``x / (1 + x)``) at ``BREADTH``
  (a note on five functions that all change with the opened file says more than a note on
  one of them, but not five times more). In the file part only the anchors outside the opened
  code (the seeds and their files) are summed: every function of an opened file is a seed, so
  their sum would only count how many of them a note names (``candidates.py``).
* pagerank: personalised PageRank (restart on the seeds) over the walked paths of the top
  candidates, max-normalised; it counts in the file part (the text part without files).
* centrality: ``log(1 + degree) / log(1 + CENTRALITY_CAP)`` of the anchored node, capped at 1.
* focus: with a cursor line (or a focus symbol), 1.0 for the symbol under it (or containing
  it), ``1 / (1 + gap / FOCUS_LINES)`` for other symbols of that file by line gap, 0 elsewhere.
* fusion: each part is divided by its best value among the query's candidates, so neither
  part's scale decides; ``FUSION`` is the file part's share, fixed by design (not fitted) at
  0.2: the text is the primary key and the file context re-orders only its near-ties, notes
  whose normalised text parts are within ``near_tie()`` (a quarter of the best) of each other.
* confidence = ``0.6 + 0.4 * observation confidence``; recency from 1.0 (updated or confirmed
  within ``RECENT_DAYS``) down to ``RECENCY_FLOOR`` at a year; confirmation ``CONFIRMED_BONUS``
  when someone confirmed it; status 1.0 fresh, ``SUSPECT_FACTOR`` (0.8) suspect, ``STALE_FACTOR`` stale.
* knowledge units (the repository's docs): each anchor's evidence is weighed by its
  ``Anchor.confidence``, its proximity follows no import edge (``UNIT_EDGE_FACTOR``) and its
  other anchors give no breadth (``UNIT_BREADTH``): docs/ranking.md, "Knowledge units in recall".

What is fixed by design and what is fitted (``W_PROXIMITY`` and ``W_REACH`` only, leave-one-
history-out on ``scripts/bench_recall.py``): see ``docs/ranking.md``. Order: the notes anchored
to a symbol the request named (or the one under its cursor: ``on_query``) first, then score,
then a saved note before a doc unit of the same score, then the components (relevance signals
first), then the newer note, then the text; never an id. A note on the code asked about is about
it; the signals weigh what the code around it says (reach, breadth: fitted on other files'
knowledge), which must not put a neighbour's note before it.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from graphmem.types import EdgeConfidence, EdgeKind, ScoreComponents

W_PROXIMITY = 0.5
W_COCHANGE = 0.45
W_TEXT = 0.40
W_TEXT_PROXIMITY = 0.35
W_TEXT_COCHANGE = 0.45
W_PAGERANK = 0.05
W_CENTRALITY = 0.04
W_FOCUS = 0.30
#: Share of each further anchor's evidence in the file part (the best anchor's counts in full).
BREADTH = 0.25
#: The same share in the text part (its own constant: the text part is not refitted).
TEXT_BREADTH = 0.5
#: Share of the file part in the fused relevance when a query has files (or symbols) and text.
#: Fixed by design, not fitted: the text says what the user is after, so it is the primary key
#: and the file context only re-orders near-ties of it (``near_tie``).
FUSION = 0.2
#: Weight of the reach (noisy-or co-change of the note's code outside the opened files).
W_REACH = 2.0


class Spread(str, Enum):
    """How the other anchors' summed evidence ``x`` counts (before ``BREADTH``)."""

    SUM = "sum"  # x
    SATURATING = "saturating"  # x / (1 + x): never more than one more anchor's worth
    LOG = "log"  # log(1 + x)
    RELATIVE = "relative"  # best * y / (1 + y), y = x / best: at most BREADTH times the best anchor's


SPREAD = Spread.SATURATING

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
#: A knowledge unit (a block of the repository's docs) reaches code by what it names, not
#: through the imports of what it names: the proximity of a unit's anchor is multiplied by
#: this factor for each edge of these kinds on the walk's path to it (``app.py`` imports
#: ``sessions.py``, so every paragraph that says ``app`` would otherwise reach ``sessions.py``).
#: Each anchor's evidence is also weighed by its ``Anchor.confidence`` (a bare literal, a module
#: or file mentioned in passing: ``memory.knowledge.PASSING_CONFIDENCE``). docs/ranking.md,
#: "Knowledge units in recall".
UNIT_EDGE_FACTOR: Mapping[EdgeKind, float] = {
    EdgeKind.IMPORTS: 0.0,
    EdgeKind.IMPORTED_BY: 0.0,
}
#: How much a knowledge unit's other anchors count (``breadth``): a page of examples names
#: twenty API functions in passing, where a note anchored to twenty functions is about each.
UNIT_BREADTH = 0.0
#: How many knowledge units may name one symbol or file before they share what it gives them:
#: a node named by ``n`` > ``UNIT_CROWD`` units gives each ``UNIT_CROWD / n`` of its evidence
#: (``unit_share``). Jinja's docs name the class ``Environment`` with a role in dozens of
#: paragraphs ("The :class:`Environment` that created the bucket."), each a sure reference at
#: distance 0 of ``environment.py`` with the class's PageRank: they put a note saved on
#: ``Environment.compile_expression`` 27th in ``recall --file src/jinja2/environment.py``. A
#: note is written about its anchor and never shares it.
UNIT_CROWD = 3
CENTRALITY_CAP = 64
FOCUS_LINES = 40.0
RECENT_DAYS = 30.0
RECENCY_FLOOR = 0.8
CONFIRMED_BONUS = 1.1
STALE_FACTOR = 0.5
#: SUSPECT observations (a dependency of the anchor changed its signature or went away).
SUSPECT_FACTOR = 0.8


@dataclass(frozen=True, slots=True)
class Weights:
    """Every constant of the fused relevance (the defaults are the module's constants; a
    benchmark refits them offline from the components a recall returns)."""

    proximity: float = W_PROXIMITY
    cochange: float = W_COCHANGE
    focus: float = W_FOCUS
    centrality: float = W_CENTRALITY
    pagerank: float = W_PAGERANK
    text: float = W_TEXT
    text_proximity: float = W_TEXT_PROXIMITY
    text_cochange: float = W_TEXT_COCHANGE
    breadth: float = BREADTH
    text_breadth: float = TEXT_BREADTH
    fusion: float = FUSION
    spread: Spread = SPREAD
    reach: float = W_REACH


DEFAULT_WEIGHTS = Weights()


@dataclass(frozen=True, slots=True)
class Signals:
    """The raw signals of one candidate (before weighting): the best anchor's graph signals
    for the file part, the best anchor's for the text part, and the other anchors' evidence
    summed (``breadth``, ``text_breadth``)."""

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
    text_proximity: float = 0.0
    text_cochange: float = 0.0
    breadth: float = 0.0
    text_breadth: float = 0.0
    reach: float = 0.0
    #: the note is anchored to a symbol the request named (or the one under its cursor)
    on_query: bool = False


@dataclass(frozen=True, slots=True)
class Scale:
    """What the query has and the best part values among its candidates (the fusion's norms)."""

    has_file: bool = True
    has_text: bool = False
    best_file: float = 1.0
    best_text: float = 1.0


def spread(x: float, shape: Spread, best: float = 1.0) -> float:
    """The other anchors' summed evidence ``x``, shaped (``Spread``; ``best``: the best
    anchor's evidence, for the relative shape)."""
    if x <= 0:
        return 0.0
    if shape is Spread.SATURATING:
        return x / (1.0 + x)
    if shape is Spread.LOG:
        return math.log1p(x)
    if shape is Spread.RELATIVE:
        return best * x / (best + x) if best > 0 else 0.0
    return x


def evidence(proximity: float, cochange: float, focus: float, w: Weights = DEFAULT_WEIGHTS) -> float:
    """One anchor's evidence from the query's files and symbols."""
    return w.proximity * proximity + w.cochange * cochange + w.focus * focus


def text_evidence(text_proximity: float, text_cochange: float, w: Weights = DEFAULT_WEIGHTS) -> float:
    """One anchor's evidence from the symbols the query's text names."""
    return w.text_proximity * text_proximity + w.text_cochange * text_cochange


def file_value(
    best: float, breadth: float, pagerank: float, reach: float = 0.0, w: Weights = DEFAULT_WEIGHTS
) -> float:
    """The file part from its best anchor's evidence (with its centrality), the other anchors'
    summed evidence, the PageRank and the reach."""
    return best + w.breadth * spread(breadth, w.spread, best) + w.pagerank * pagerank + w.reach * reach


def text_value(text: float, best: float, breadth: float, pagerank: float, w: Weights = DEFAULT_WEIGHTS) -> float:
    """The text part from the BM25 share, the best anchor's text evidence, the other anchors'
    summed text evidence and the PageRank (counted here only without files)."""
    return w.text * text + best + w.text_breadth * spread(breadth, w.spread, best) + w.pagerank * pagerank


def file_part(s: Signals, scale: Scale, w: Weights = DEFAULT_WEIGHTS) -> float:
    """The file (and symbol) part of a candidate's relevance, before normalisation."""
    if not scale.has_file:
        return 0.0
    best = evidence(s.proximity, s.cochange, s.focus, w) + w.centrality * s.centrality
    return file_value(best, s.breadth, s.pagerank, s.reach, w)


def text_part(s: Signals, scale: Scale, w: Weights = DEFAULT_WEIGHTS) -> float:
    """The text part of a candidate's relevance, before normalisation."""
    if not scale.has_text:
        return 0.0
    best = text_evidence(s.text_proximity, s.text_cochange, w)
    return text_value(s.text, best, s.text_breadth, 0.0 if scale.has_file else s.pagerank, w)


def fuse(file_value: float, text_value: float, scale: Scale, w: Weights = DEFAULT_WEIGHTS) -> float:
    """The relevance: with both parts, each divided by its best value, mixed ``FUSION`` to
    ``1 - FUSION``; with one part, that part."""
    if scale.has_file and scale.has_text:
        f = file_value / scale.best_file if scale.best_file > 0 else 0.0
        t = text_value / scale.best_text if scale.best_text > 0 else 0.0
        return w.fusion * f + (1.0 - w.fusion) * t
    return file_value + text_value


def near_tie(w: Weights = DEFAULT_WEIGHTS) -> float:
    """The widest lead in the normalised text part (a share of the best text part) that the file
    context can overturn in a query with both parts: ``FUSION / (1 - FUSION)`` (a quarter at
    0.2). A note further ahead on the text stays ahead whatever the files say (equal multipliers)."""
    return w.fusion / (1.0 - w.fusion) if w.fusion < 1.0 else math.inf


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


def components(s: Signals, scale: Scale = Scale(), w: Weights = DEFAULT_WEIGHTS) -> ScoreComponents:
    """The weighted relevance (its two parts, fused) and the other factors of a score."""
    fp, tp = file_part(s, scale, w), text_part(s, scale, w)
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
        relevance=round(fuse(fp, tp, scale, w), 6),
        cochange_together=s.together,
        cochange_total=s.total,
        text_proximity=round(s.text_proximity, 6),
        text_cochange=round(s.text_cochange, 6),
        breadth=round(s.breadth, 6),
        text_breadth=round(s.text_breadth, 6),
        file_part=round(fp, 6),
        text_part=round(tp, 6),
        reach=round(s.reach, 6),
        on_query=s.on_query,
    )


def score(c: ScoreComponents) -> float:
    """The final score: relevance times confidence, recency, confirmation and status factors."""
    return round(c.relevance * c.confidence * c.recency * c.confirmation * c.status, 6)


def group(on_query: bool) -> float:
    """The first part of every sort key: the notes on the symbols the request named come
    before the others (``sort_key``, and retrieval's cheaper first cut)."""
    return 0.0 if on_query else 1.0


def sort_key(
    score_: float, c: ScoreComponents, updated_at: float, text: str, unit: bool = False
) -> tuple[float | str, ...]:
    """Best first: the notes on the symbols the request named (``on_query``), then score, then
    at the same score a note someone saved before a unit of the repository's docs (``unit``:
    a unit is re-dated whenever its file is read again, so "the newer" would put any doc
    paragraph first), then each component, then the newer note, then its text."""
    return (
        group(c.on_query),
        -score_,
        1.0 if unit else 0.0,
        -c.relevance,
        -c.proximity,
        -c.cochange,
        -c.reach,
        -c.text,
        -c.text_proximity,
        -c.text_cochange,
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


def unit_share(units: int) -> float:
    """What one of ``units`` knowledge units naming the same node gets of that node's evidence
    (``UNIT_CROWD``)."""
    return 1.0 if units <= UNIT_CROWD else UNIT_CROWD / units
