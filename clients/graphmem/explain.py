"""``recall --explain``: each result's score components as one short table (pure rendering).

One row per result, so two results can be compared column by column::

  score = relevance x multipliers; relevance fuses the file part and the text part (docs/ranking.md)
   #   score  relev.  x mult |   file   prox  co-ch  focus   cent     PR  brdth  reach |   text   bm25   prox ...
  *1   0.846   0.846   1.000 |  0.700   1.00   0.40      -   0.31   0.20   0.62      - |  0.400   0.80      - ...

The file part comes from the files and symbols a recall was given, the text part from its text
(the notes' words, and the code its words name); ``-`` is zero. ``x mult`` is confidence x
recency x confirmation x status. ``*`` marks a note anchored to a symbol the recall named (or
the one under its cursor): those come first, whatever their score.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.types import Recalled, ScoreComponents

__all__ = ["explain_table"]

#: (header, component) of the file part's and the text part's signal columns
_FILE = (("prox", "proximity"), ("co-ch", "cochange"), ("focus", "focus"), ("cent", "centrality"),
         ("PR", "pagerank"), ("brdth", "breadth"), ("reach", "reach"))  # fmt: skip
_TEXT = (("bm25", "text"), ("prox", "text_proximity"), ("co-ch", "text_cochange"), ("brdth", "text_breadth"))
_W = 6


def _cell(value: float, digits: int = 2) -> str:
    return f"{'-' if value == 0 else f'{value:.{digits}f}':>{_W}}"


def multiplier(c: ScoreComponents) -> float:
    """The product of a result's multipliers (confidence, recency, confirmation, status)."""
    return c.confidence * c.recency * c.confirmation * c.status


def explain_table(results: Sequence[Recalled]) -> list[str]:
    """The lines of the table (a legend, a header and one row per result); none without results."""
    if not results:
        return []
    head = (
        f"{'#':>3} {'score':>7} {'relev.':>7} {'x mult':>7} |{'file':>7}"
        + "".join(f"{h:>{_W + 1}}" for h, _ in _FILE)
        + f" |{'text':>7}"
        + "".join(f"{h:>{_W + 1}}" for h, _ in _TEXT)
    )
    lines = [
        "score = relevance x multipliers; relevance fuses the file part and the text part (docs/ranking.md)",
        head,
    ]
    if any(r.components.on_query for r in results):
        lines.insert(1, "* anchored to a symbol the recall named (or the one under its cursor): listed first")
    for n, r in enumerate(results, 1):
        c = r.components
        mark = ("*" if c.on_query else "") + str(n)
        row = (
            f"{mark:>3} {r.score:>7.3f} {c.relevance:>7.3f} {multiplier(c):>7.3f} |{_cell(c.file_part, 3):>7}"
            + "".join(f" {_cell(getattr(c, name))}" for _, name in _FILE)
            + f" |{_cell(c.text_part, 3):>7}"
            + "".join(f" {_cell(getattr(c, name))}" for _, name in _TEXT)
        )
        lines.append(row)
    return lines
