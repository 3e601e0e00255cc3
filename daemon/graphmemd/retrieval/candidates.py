"""Candidates of one retrieval and the evidence each collects from its anchors (pure).

Retrieval reaches graph nodes two ways: from the query's files and symbols (the file part),
and from the symbols its text names (the text part). Each anchored node of a note gives the
note that part's evidence (``ranking.evidence`` / ``ranking.text_evidence``); a note keeps,
per part, its best anchor (its signals are what the score shows and the why explains) and
the sum over its anchors, so ``ranking`` can count the other anchors' evidence too
(``breadth``: only anchors outside the opened code, the seeds and the files they are in, count:
every function of an opened file is a seed, so summing them would rank a note by how many of
the opened file's functions it names, which says nothing about the rest of the code), and
the chance that some anchor outside the opened code changes with it (``reach``: noisy-or of
the anchors' co-change). A unit of a knowledge file that only names code (an autodoc directive
or its ``:members:`` list, a directive's line alone: ``overview.names_only``) or is a section
heading (``overview.heading``: the passages under it say what it names) is no candidate.
No I/O, no graph: the caller gives the signals of each node.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.types import Observation

from graphmemd.retrieval import ranking
from graphmemd.retrieval.cosignal import CoSignal
from graphmemd.retrieval.overview import heading, is_doc, names_only


@dataclass(frozen=True, slots=True)
class NodeSignals:
    """What one anchored node says for a query: its proximity and co-change from each part's
    seeds, its cursor focus and its centrality; ``make`` fills in the weighted evidence."""

    proximity: float = 0.0
    cochange: CoSignal | None = None
    focus: float = 0.0
    centrality: float = 0.0
    text_proximity: float = 0.0
    text_cochange: CoSignal | None = None
    #: evidence for the file part (``ranking.evidence``; centrality only orders, see ``file_rank``)
    file_evidence: float = 0.0
    #: how a note picks its best anchor for the file part: evidence plus weighted centrality
    file_rank: float = 0.0
    #: evidence for the text part (``ranking.text_evidence``)
    text_evidence: float = 0.0
    #: the node's co-change strength when it is outside the seeds and the seed files (else 0):
    #: what the note's ``reach`` is made of
    reach: float = 0.0
    #: the node is neither a seed nor in a seed's file: its evidence counts for ``breadth``
    outside: bool = True
    #: the file-part evidence for a knowledge unit anchored here: its proximity through the
    #: edges a unit follows (``ranking.UNIT_EDGE_FACTOR``: not through imports)
    unit_evidence: float = 0.0
    #: that proximity
    unit_proximity: float = 0.0

    @classmethod
    def make(
        cls,
        proximity: float = 0.0,
        cochange: CoSignal | None = None,
        focus: float = 0.0,
        centrality: float = 0.0,
        text_proximity: float = 0.0,
        text_cochange: CoSignal | None = None,
        outside: bool = True,
        unit_proximity: float | None = None,
    ) -> NodeSignals:
        """The signals with their weighted evidence computed once (every note on the node reads
        it); ``outside``: the node is neither a seed nor in a seed file (it counts for reach and
        breadth); ``unit_proximity``: the proximity a knowledge unit gets (None: ``proximity``)."""
        co = cochange.strength if cochange is not None else 0.0
        fe = ranking.evidence(proximity, co, focus)
        te = ranking.text_evidence(text_proximity, text_cochange.strength if text_cochange is not None else 0.0)
        rank = fe + ranking.W_CENTRALITY * centrality
        reach = co if outside else 0.0
        up = proximity if unit_proximity is None else unit_proximity
        ue = fe if up == proximity else ranking.evidence(up, co, focus)
        return cls(
            proximity, cochange, focus, centrality, text_proximity, text_cochange, fe, rank, te, reach, outside, ue, up
        )


_NONE = NodeSignals()


@dataclass(slots=True)
class Candidate:
    """One candidate observation: its best anchor per part and the evidence summed over all."""

    obs: Observation
    node: str = ""
    best: NodeSignals = _NONE
    best_rank: float = -1.0
    file_sum: float = 0.0
    #: the file-part evidence summed over the anchors outside the opened code
    outside_sum: float = 0.0
    tnode: str = ""
    tbest: NodeSignals = _NONE
    tbest_value: float = -1.0
    text_sum: float = 0.0
    text: float = 0.0
    pagerank: float = 0.0
    #: the product of (1 - reach) over the anchors: the chance that none changes with the seeds
    unreached: float = 1.0
    #: anchored to a symbol the request named (or the one under its cursor)
    on_query: bool = False
    #: the file-part evidence of the best anchor, as counted (weighed by its confidence)
    best_evidence: float = 0.0
    #: a knowledge unit: its anchors' weights (confidence) and the proximity a unit gets
    unit: bool = False
    best_weight: float = 1.0
    tbest_weight: float = 1.0

    def add(self, node: str, s: NodeSignals, weight: float = 1.0, unit: bool = False) -> None:
        """Count one anchored node (each node of a note once). ``weight``: the anchor's
        confidence; ``unit``: the note is a knowledge unit (its proximity is ``unit_evidence``'s)."""
        self.unit = self.unit or unit
        fe = s.unit_evidence if unit else s.file_evidence
        rank = s.file_rank if fe == s.file_evidence else fe + ranking.W_CENTRALITY * s.centrality
        te, reach = s.text_evidence, s.reach
        if weight != 1.0:
            fe, rank, te, reach = fe * weight, rank * weight, te * weight, reach * weight
        self.file_sum += fe
        if s.outside:
            self.outside_sum += fe
        self.unreached *= 1.0 - min(1.0, reach)
        if rank > self.best_rank or (rank == self.best_rank and node < self.node):
            self.node, self.best, self.best_rank, self.best_evidence, self.best_weight = node, s, rank, fe, weight
        self.text_sum += te
        if te > self.tbest_value or (te == self.tbest_value and node < self.tnode):
            self.tnode, self.tbest, self.tbest_value, self.tbest_weight = node, s, te, weight

    @property
    def pagerank_weight(self) -> float:
        """What the best anchor's PageRank counts for: a unit's, by its confidence and by how
        much of its walked path a unit may follow (none through an import)."""
        if not self.unit:
            return 1.0
        b = self.best
        path = b.unit_proximity / b.proximity if b.proximity > 0 else 1.0
        return self.best_weight * path

    @property
    def breadth(self) -> float:
        """The file-part evidence of every anchor but the best, outside the opened code."""
        if not self.node:
            return 0.0
        others = max(0.0, self.outside_sum - (self.best_evidence if self.best.outside else 0.0))
        # a unit names code in passing: it is not about each name it uses
        return ranking.UNIT_BREADTH * others if self.unit else others

    @property
    def reach(self) -> float:
        """The chance that some anchor outside the seeds changes with them (noisy-or)."""
        return 1.0 - self.unreached

    @property
    def text_breadth(self) -> float:
        """The text-part evidence of every anchor but the best."""
        return max(0.0, self.text_sum - self.tbest_value) if self.tnode else 0.0

    def parts(self, has_file: bool, has_text: bool) -> tuple[float, float]:
        """The file part and the text part (``ranking.file_value`` / ``text_value``) with the
        current PageRank, straight from the collected evidence (no ``Signals`` built)."""
        pr = self.pagerank * self.pagerank_weight
        f = ranking.file_value(max(self.best_rank, 0.0), self.breadth, pr, self.reach) if has_file else 0.0
        t = 0.0
        if has_text:
            best = max(self.tbest_value, 0.0)
            t = ranking.text_value(self.text, best, self.text_breadth, 0.0 if has_file else pr)
        return f, t

    def signals(self, confidence: float, age_days: float, confirmed: bool, status: float) -> ranking.Signals:
        """The ranking signals of this candidate, with the observation's multipliers given (a
        knowledge unit's best anchor as it counts: weighed by its confidence, its proximity the
        one a unit gets)."""
        b, t = self.best, self.tbest
        w, tw = self.best_weight, self.tbest_weight
        return ranking.Signals(
            proximity=(b.unit_proximity if self.unit else b.proximity) * w,
            cochange=(b.cochange.strength if b.cochange is not None else 0.0) * w,
            text=self.text,
            pagerank=self.pagerank * self.pagerank_weight,
            centrality=b.centrality * w,
            focus=b.focus * w,
            confidence=confidence,
            age_days=age_days,
            confirmed=confirmed,
            status=status,
            together=b.cochange.together if b.cochange is not None else 0,
            total=b.cochange.total if b.cochange is not None else 0,
            text_proximity=t.text_proximity * tw,
            text_cochange=(t.text_cochange.strength if t.text_cochange is not None else 0.0) * tw,
            breadth=self.breadth,
            text_breadth=self.text_breadth,
            reach=self.reach,
            on_query=self.on_query,
        )


def collect(
    anchored: dict[str, list[Observation]], signals_of: dict[str, NodeSignals], named: frozenset[str] = frozenset()
) -> dict[str, Candidate]:
    """Candidates by observation id from the observations anchored to each node and each
    node's signals (the nodes are visited in id order, so ties resolve the same every time);
    a note anchored to one of ``named`` (the symbols the request named) is ``on_query`` (a
    knowledge unit only when it names it surely: its anchor's confidence is full)."""
    found: dict[str, Candidate] = {}
    for node in sorted(anchored):
        s = signals_of.get(node, _NONE)
        asked = node in named
        said = [o for o in anchored[node] if not names_only(o) and not heading(o)]  # (they say nothing of the code)
        share = ranking.unit_share(sum(1 for o in said if is_doc(o)))  # units naming one node share it
        for o in said:
            c = found.get(o.id)
            if c is None:
                c = found[o.id] = Candidate(o)
            unit = is_doc(o)
            sure = anchor_confidence(o, node) if unit else 1.0
            c.add(node, s, sure * share if unit else 1.0, unit)
            c.on_query = c.on_query or (asked and sure == 1.0)  # (not a unit's passing mention)
    return found


def anchor_confidence(o: Observation, node: str) -> float:
    """The confidence of ``o``'s anchor on graph node ``node`` (a symbol id, or a file's
    ``repo:path``): how surely its text names that code (``Anchor.confidence``)."""
    for a in o.anchors:
        if a.confidence < 1.0 and (a.symbol_id == node if a.symbol_id else f"{a.repo_id}:{a.path}" == node):
            return a.confidence
    return 1.0
