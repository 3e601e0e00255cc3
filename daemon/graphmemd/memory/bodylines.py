"""How many lines a body change touched: "body changed: 3 lines" (pure: no I/O).

An anchor keeps its symbol's fingerprints, not its text, so the count is made when the reason is
recorded, and only for the reasons recorded just now (``detected_at == now``) that say a
symbol's body changed: ``queries`` lists them with the symbol's lines in the file now; the shell
reads the file's text before the change from git (the file in the commit the daemon had indexed
before this pass: HEAD for a change in the working tree, the commit HEAD was on for a change
that came with a checkout, merge or pull) and the text now, and ``count_changed`` diffs the two
(difflib, line by line) and counts the changed lines that fall in the symbol. ``with_counts``
puts the counts on the reasons. A reason the shell could not measure keeps ``lines_changed = 0``
and is said as "body changed".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from graphmem.types import AnchorKind, ChangeKind, Observation

from graphmemd.memory.anchors import CodeView

__all__ = ["BodyQuery", "count_changed", "counted", "queries", "with_counts"]


@dataclass(frozen=True, slots=True)
class BodyQuery:
    """A body change to measure: the anchored symbol (``anchor_ref``), its file and its lines
    now (1-based, inclusive)."""

    anchor_ref: str
    path: str
    start_line: int
    end_line: int


def queries(notes: Sequence[Observation], now: float, code: CodeView) -> list[BodyQuery]:
    """The body changes of ``notes`` recorded at ``now`` on a symbol that still exists."""
    found: dict[str, BodyQuery] = {}
    for o in notes:
        anchors = {a.ref: a for a in o.anchors if a.kind is AnchorKind.SYMBOL}
        for r in o.stale_reasons:
            if r.change is not ChangeKind.BODY_CHANGED or r.detected_at != now or r.anchor_ref in found:
                continue
            a = anchors.get(r.anchor_ref)
            s = code.symbol(a.symbol_id) if a is not None else None
            if s is not None and s.end_line >= s.start_line > 0:
                found[r.anchor_ref] = BodyQuery(r.anchor_ref, s.path, s.start_line, s.end_line)
    return list(found.values())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def count_changed(old: str, new: str, start_line: int, end_line: int) -> int:
    """The lines of the symbol at ``start_line..end_line`` of ``new`` that a line diff of the
    whole file from ``old`` changed: for each differing block inside the symbol the larger of
    its old and new line counts (a block reaching outside it counts its new lines inside);
    lines removed between two of its lines, or right after its last one while indented deeper
    than its first (the end of a body), count as changed."""
    a, b = old.splitlines(), new.splitlines()
    lo, hi = start_line - 1, min(end_line, len(b))
    if lo >= hi:
        return 0
    head = _indent(b[lo])
    n = 0
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b).get_opcodes():
        if tag == "equal":
            continue
        if tag == "delete":
            if lo < j1 < hi:
                n += i2 - i1
            elif j1 == hi:
                n += sum(1 for line in a[i1:i2] if line.strip() and _indent(line) > head)
            continue
        inside = max(0, min(j2, hi) - max(j1, lo))
        if inside:
            n += max(inside, i2 - i1) if lo <= j1 and j2 <= hi else inside
    return n


def with_counts(o: Observation, now: float, counts: Mapping[str, int]) -> Observation:
    """``o`` with its body changes recorded at ``now`` saying how many lines they touched
    (``counts``: anchor ref -> lines; a ref left out or counted 0 stays unknown)."""
    reasons = tuple(
        replace(r, lines_changed=counts[r.anchor_ref])
        if r.change is ChangeKind.BODY_CHANGED and r.detected_at == now and counts.get(r.anchor_ref, 0) > 0
        else r
        for r in o.stale_reasons
    )
    return o if reasons == o.stale_reasons else replace(o, stale_reasons=reasons)


def counted(
    notes: Sequence[Observation],
    now: float,
    code: CodeView,
    measure: Callable[[Sequence[BodyQuery]], Mapping[str, int]],
) -> list[Observation]:
    """``notes`` with the body changes recorded at ``now`` counted in lines: ``measure`` (the
    shell's reading of the text before and after) is asked only when there are such changes."""
    wanted = queries(notes, now, code)
    if not wanted:
        return list(notes)
    counts = measure(wanted)
    return [with_counts(o, now, counts) for o in notes]
