#!/usr/bin/env python3
"""Leave-one-history-out choice of the ranking constants, from ``bench_recall.py --dump``.

``bench_recall.py --dump FILE`` writes, for every query, what graphmem returned (limit 200)
with each result's score components. This re-scores those results with other constants
through the daemon's own pure functions (``ranking.file_part``, ``text_part``, ``fuse``), so
what is fitted is exactly what the daemon computes, over a small grid:

* ``breadth`` (the other anchors' share), ``fusion`` (the file part's share with text),
  ``text`` (the BM25 weight of the text part) and ``text_cochange`` (the weight of co-change
  with the text's symbols); the rest stay at their defaults.

Protocol: for each history H, the grid point with the best objective on the OTHER histories
(mean nDCG@10 over the query kinds file, text, file+text and symbols, each kind weighted
equally) is chosen, and its figures on H are reported (held out). The point chosen on every
history together is printed too: that is what the daemon's defaults should be when each
history's held-out choice agrees with it.

Approximations (stated): only the results the daemon returned (the best 200 under the
constants it ran with) are re-ranked, the best anchor of each part is the one chosen under
those constants, the other anchors' text evidence was summed with the text weights it ran
with, and each part's normalisation uses the best value among the returned results.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import math
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchlib import ROOT  # noqa: F401  (puts the daemon's packages on sys.path)
from graphmemd.retrieval import ranking

KINDS = ("file", "text", "file+text", "symbols")
GRID: dict[str, Sequence[object]] = {
    "spread": tuple(ranking.Spread),
    "breadth": (0.25, 0.5, 1.0),
    "fusion": (0.3, 0.4, 0.5, 0.6, 0.7),
    "text": (0.2, 0.4, 0.8),
    "text_cochange": (0.0, 0.45),
    "proximity": (0.2, 0.35, 0.5),
}


def ndcg(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    """Binary-relevance nDCG@k."""
    dcg = sum(1 / math.log2(i + 2) for i, x in enumerate(ranked[:k]) if x in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal else 0.0


def signals(r: dict[str, float]) -> ranking.Signals:
    """The ranking signals a result's components carry."""
    names = ("proximity", "cochange", "text", "pagerank", "centrality", "focus", "text_proximity", "text_cochange",
             "breadth", "text_breadth")
    return ranking.Signals(**{n: float(r.get(n, 0.0)) for n in names})


def prepare(queries: list[dict[str, object]]) -> None:
    """Each result's signals, computed once (``rescore`` reads them)."""
    for q in queries:
        q["signals"] = [signals(r) for r in q["results"]]  # type: ignore[union-attr]
        q["ids"] = [str(r["id"]) for r in q["results"]]  # type: ignore[union-attr]
        q["relevant_set"] = set(q["relevant"])  # type: ignore[arg-type]
        q["excluded_set"] = set(q["excluded"])  # type: ignore[arg-type]


def rescore(query: dict[str, object], w: ranking.Weights) -> float:
    """nDCG@10 of one query's returned results re-ranked under ``w`` (the daemon's own
    ``file_part``, ``text_part`` and ``fuse``)."""
    kind = str(query["kind"])
    base = ranking.Scale("file" in kind or kind == "symbols", "text" in kind)
    sigs: list[ranking.Signals] = query["signals"]  # type: ignore[assignment]
    parts = [(ranking.file_part(s, base, w), ranking.text_part(s, base, w)) for s in sigs]
    bf, bt = max((p[0] for p in parts), default=0.0), max((p[1] for p in parts), default=0.0)
    scale = ranking.Scale(base.has_file and bf > 0, base.has_text and bt > 0, bf, bt)
    fused = [ranking.fuse(f, t, scale, w) for f, t in parts]
    ids: list[str] = query["ids"]  # type: ignore[assignment]
    excluded: set[str] = query["excluded_set"]  # type: ignore[assignment]
    top = heapq.nsmallest(10 + len(excluded), range(len(ids)), key=lambda i: -fused[i])
    return ndcg([ids[i] for i in top if ids[i] not in excluded], query["relevant_set"])  # type: ignore[arg-type]


def figures(queries: Iterable[dict[str, object]], w: ranking.Weights) -> dict[str, float]:
    """Mean nDCG@10 per kind under ``w``."""
    acc: dict[str, list[float]] = defaultdict(list)
    for q in queries:
        acc[str(q["kind"])].append(rescore(q, w))
    return {k: sum(v) / len(v) for k, v in acc.items() if v}


def objective(f: dict[str, float]) -> float:
    """Mean nDCG@10 over the query kinds present."""
    present = [f[k] for k in KINDS if k in f]
    return sum(present) / len(present) if present else 0.0


def grid() -> list[ranking.Weights]:
    """Every grid point as weights (the other constants at their defaults)."""
    keys = list(GRID)
    return [ranking.Weights(**dict(zip(keys, values, strict=True))) for values in itertools.product(*GRID.values())]  # type: ignore[arg-type]


def marginals(table: dict[str, list[dict[str, float]]], points: list[ranking.Weights], histories: list[str]
              ) -> dict[str, dict[str, dict[str, float]]]:
    """Per history, per constant, per value: the best objective over the rest of the grid."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for h in histories:
        out[h] = {}
        for k, values in GRID.items():
            out[h][k] = {str(getattr(v, "value", v)): round(max(objective(table[h][i]) for i, p in enumerate(points)
                                                                 if getattr(p, k) == v), 4) for v in values}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dump", type=Path)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    queries = [json.loads(line) for line in args.dump.read_text().splitlines() if line.strip()]
    prepare(queries)
    histories = sorted({str(q["history"]) for q in queries})
    points = grid()
    train = {h: [q for q in queries if q["history"] == h] for h in histories}
    report = {h: [q for q in train[h] if q.get("drawn", True)] for h in histories}
    fit = {h: [figures(train[h], w) for w in points] for h in histories}
    out: dict[str, Any] = {"grid_points": len(points), "queries": {h: [len(train[h]), len(report[h])] for h in histories}}
    out["as_run"] = {h: figures(report[h], ranking.DEFAULT_WEIGHTS) for h in histories}
    out["held_out"] = {}
    for h in histories:
        others = [x for x in histories if x != h] or [h]
        best = max(range(len(points)), key=lambda i: (sum(objective(fit[t][i]) for t in others), -i))
        out["held_out"][h] = {"fitted_on": others, "chosen": _values(points[best]),
                              "figures": figures(report[h], points[best])}
    every = max(range(len(points)), key=lambda i: (sum(objective(fit[t][i]) for t in histories), -i))
    out["fit_on_all"] = _values(points[every])
    out["fit_on_all_figures"] = {h: figures(report[h], points[every]) for h in histories}
    out["marginals"] = marginals(fit, points, histories)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{len(points)} grid points; training / reported queries per history: {out['queries']}")
    print("nDCG@10 of the drawn (protocol) queries per kind:")
    for h in histories:
        print(f"  {h}, as the daemon ran: {_fmt(out['as_run'][h])}")
        held = out["held_out"][h]
        print(f"  {h}, held out (fitted on {', '.join(held['fitted_on'])}: {held['chosen']}):")
        print(f"      {_fmt(held['figures'])}")
    print(f"fitted on all: {out['fit_on_all']}")
    for h in histories:
        print(f"  {h}: {_fmt(out['fit_on_all_figures'][h])}")
    for h in histories:
        print(f"{h}: best training objective per value of each constant: {out['marginals'][h]}")
    return 0


def _values(w: ranking.Weights) -> dict[str, object]:
    return {k: (v.value if isinstance(v, ranking.Spread) else v) for k in GRID for v in (getattr(w, k),)}


def _fmt(f: dict[str, float]) -> str:
    return "  ".join(f"{k} {f.get(k, float('nan')):.3f}" for k in KINDS)


if __name__ == "__main__":
    sys.exit(main())
