"""PURE: a repository's brief when no files, symbols or text are given (a session start).

Four sections, in this order, each line marked the way every brief marks it
(``graphmem.render.brief_line``):

1. **Constraints and decisions** that hold (fresh): what an agent must not break; the ones
   people or agents saved first, then the knowledge files' (decision records, ...).
2. **Notes**: the other fresh notes people or agents saved (shared notes in
   ``.graphmem/notes`` included), newest confirmation or change first.
3. **Needs a look**: stale and suspect saved notes, each with its reason, most recently affected first;
   a note the daemon would refuse to confirm from this checkout says why (``seen`` sets its
   ``confirm_refused``, only for the notes a pass reaches; ``graphmem.render.refusal_line``), and
   when every note shown is such a note, the heading does not say to confirm (``LOOK_NO_CONFIRM``).
4. **From the project's docs**: units of the other knowledge files, most relevant first (how
   central the code they name is; each file's best before any file's second), each cut to one
   short line with its place in the file.
   Indexing a file is not a change: a unit is never dated by when it was read. A unit that
   disagrees with the code is not shown (``graphmem check`` lists those; the footer counts
   them), nor an autodoc directive (``.. autofunction:: x``: the code says it), nor a
   directive's line alone (``.. function:: x``: its text is the next unit), nor an autodoc
   ``:members:`` list, nor a code example (flattened into a line it reads as noise; recall
   shows examples as code), nor a heading or a lead-in ending in a colon (``fragment``: the
   passage is what follows them).

The budget is shared so that no section starves the others: each gets a share first
(``SHARES``), then what a section left unused goes to the others in section order. A note that
does not fit is skipped and the next one tried (greedy, like retrieval's packing; a section is
given up after ``MAX_MISSES`` misses in a row, so only the notes near the top are rendered). The brief
says how many notes it left out, per section, and how to see them.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from graphmem.render import brief_line
from graphmem.types import Category, KnowledgeKind, Observation, ObservationStatus

from graphmemd.memory.knowledge import generated

__all__ = [
    "LOOK_NO_CONFIRM", "SHARES", "Overview", "Section", "bare_directive", "fragment", "heading", "is_doc",
    "names_only", "overview", "section_of",
]  # fmt: skip


class Section(Enum):
    """The parts of a repository brief, in the order they are shown."""

    RULES = "Constraints and decisions"
    RECENT = "Notes (newest first)"
    LOOK = "Needs a look (stale or suspect: verify, then confirm or supersede)"
    DOCS = "From the project's docs (most relevant first)"


#: The heading of ``Section.LOOK`` when none of the notes it shows can be confirmed here.
LOOK_NO_CONFIRM = "Needs a look (stale or suspect: verify, then supersede or fix the code)"
#: Each section's first share of the token budget (what it leaves unused goes to the others).
SHARES: Mapping[Section, float] = {Section.RULES: 0.35, Section.RECENT: 0.25, Section.LOOK: 0.15, Section.DOCS: 0.25}
#: A docs unit's text is cut to this many characters in the brief.
DOC_CHARS = 160
_DOC_KIND_RANK: Mapping[KnowledgeKind, int] = {
    KnowledgeKind.AGENT_INSTRUCTIONS: 0,
    KnowledgeKind.DECISION_RECORD: 1,
    KnowledgeKind.DOCUMENTATION: 2,
}

_RULES = (Category.CONSTRAINT, Category.DECISION)
_LIVE = (ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT)


@dataclass(frozen=True, slots=True)
class Overview:
    """A rendered repository brief: its text, the notes shown (in order), how many were left
    out per section, and the text's token estimate."""

    text: str
    shown: tuple[str, ...]
    left_out: Mapping[Section, int]
    tokens: int

    @property
    def total_left_out(self) -> int:
        """The notes left out, over every section."""
        return sum(self.left_out.values())


def estimate_tokens(text: str) -> int:
    """One token per four bytes of UTF-8, at least one (retrieval's estimate)."""
    return max(1, math.ceil(len(text.encode("utf-8")) / 4))


def is_doc(o: Observation) -> bool:
    """Whether a note is a unit of a knowledge file other than a shared note (which people or
    agents saved, like a note saved through graphmem)."""
    return o.knowledge is not None and o.knowledge.kind is not KnowledgeKind.SHARED_NOTE


#: A directive's first line in reStructuredText or MyST (``.. function:: attrs``,
#: ``.. py:class:: Schema``, ```` ```{function} attrs ````, ``:::{note}``).
_DIRECTIVE: Final = re.compile(r"(\.\. [\w:-]+::|```\{[\w:-]+\}|:::\{[\w:-]+\})")


def bare_directive(o: Observation) -> bool:
    """Whether a unit is a directive's line and nothing else (``.. function:: attrs``, whose
    text is the next unit): it names the code and says nothing about it."""
    text = o.text.strip()
    return "\n" not in text and _DIRECTIVE.match(text) is not None


def names_only(o: Observation) -> bool:
    """Whether ``o`` is a unit of a knowledge file that only names code: an autodoc directive
    or its ``:members:`` list (the code says it), or a directive's line alone (its text is the
    next unit). Neither the brief nor a recall shows one."""
    return is_doc(o) and (generated(o) or bare_directive(o))


def heading(o: Observation) -> bool:
    """Whether ``o`` is a section heading of a knowledge file: a label for the units under it.
    Neither the brief nor a recall shows one (the passages under it say what it names)."""
    return o.knowledge is not None and o.knowledge.heading


def fragment(o: Observation) -> bool:
    """Whether a docs unit is not a passage of its own: a section heading (a label for the units
    under it: Sphinx's "``:mod:`sphinx.ext.autodoc` -- Include documentation from docstrings``")
    or a lead-in whose content follows it ("For example, the following code activates the
    extension:", then a code block or a list)."""
    return heading(o) or (o.knowledge is not None and o.text.rstrip().endswith(":"))


def section_of(o: Observation) -> Section | None:
    """Where a note belongs in a repository brief (None: not shown: archived or superseded, or
    a docs unit that disagrees with the code)."""
    if o.status not in _LIVE:
        return None
    if is_doc(o):
        example = o.knowledge is not None and o.knowledge.example  # code to read in its file, not a line
        if o.status is not ObservationStatus.FRESH or names_only(o) or example or fragment(o):
            return None  # an autodoc directive restates the code; a directive's line alone only names it
        return Section.RULES if o.category in _RULES else Section.DOCS
    if o.status is not ObservationStatus.FRESH:
        return Section.LOOK
    return Section.RULES if o.category in _RULES else Section.RECENT


def _touched(o: Observation) -> float:
    return max(o.updated_at, o.confirmed_at or 0.0)


def _affected(o: Observation) -> float:
    return max((r.detected_at for r in o.stale_reasons), default=o.updated_at)


def _ordered(section: Section, notes: list[Observation], weight: Callable[[Observation], float]) -> list[Observation]:
    """Most important first: rules by confidence and weight (how central their code is), then
    recency; recent ones by when they were confirmed or changed; stale ones by when."""
    if section is Section.RULES:
        return sorted(notes, key=lambda o: (is_doc(o), -round(o.confidence * (1.0 + weight(o)), 6), -_touched(o), o.id))
    if section is Section.DOCS:
        return _file_by_file(sorted(notes, key=lambda o: (-round(weight(o), 6), _doc_rank(o), _place(o), o.id)))
    if section is Section.RECENT:
        return sorted(notes, key=lambda o: (-_touched(o), o.id))
    return sorted(notes, key=lambda o: (o.status is not ObservationStatus.STALE, -_affected(o), o.id))


def _file_by_file(ranked: list[Observation]) -> list[Observation]:
    """``ranked`` with each file's best passage before any file's second, and so on (in rank
    order within a round): one page must not fill the brief. pytest's ``deprecations.rst``
    names its most central classes in dozens of paragraphs and took every line of it."""
    seen: dict[str, int] = {}
    rounds: list[tuple[int, int]] = []
    for i, o in enumerate(ranked):
        path = _place(o)[0]
        rounds.append((seen.get(path, 0), i))
        seen[path] = seen.get(path, 0) + 1
    return [ranked[i] for _, i in sorted(rounds)]


#: No note's line costs less than this many tokens: a pass stops once less is left.
MIN_LINE_TOKENS = 6
#: A pass gives up on a section after this many notes in a row did not fit.
MAX_MISSES = 12


class _Lines:
    """The notes of each section in order, rendered only when a pass reaches them (a repository
    with thousands of notes renders the few dozen that can fit)."""

    def __init__(
        self, ordered: Mapping[Section, list[Observation]], seen: Callable[[Observation], Observation]
    ) -> None:
        self.ordered = ordered
        self._seen = seen
        self._cache: dict[tuple[Section, int], tuple[str, int]] = {}
        #: the notes rendered that the daemon would refuse to confirm here
        self.refused: set[tuple[Section, int]] = set()

    def line(self, s: Section, i: int) -> tuple[str, int]:
        """Note ``i`` of section ``s``: its line and its cost in tokens (with the newline)."""
        key = (s, i)
        got = self._cache.get(key)
        if got is None:
            o = self.ordered[s][i]
            if s is Section.LOOK:
                o = self._seen(o)
                if o.confirm_refused:
                    self.refused.add(key)
            text = _line(s, o)
            got = self._cache[key] = (text, estimate_tokens(text) + 1)
        return got

    def fill(self, s: Section, budget: int, taken: set[int]) -> int:
        """Greedily take (in order) the notes not yet ``taken`` that fit ``budget``; returns what is spent."""
        spent = misses = 0
        for i in range(len(self.ordered[s])):
            if budget - spent < MIN_LINE_TOKENS or misses >= MAX_MISSES:
                break
            if i in taken:
                continue
            cost = self.line(s, i)[1]
            if spent + cost <= budget:
                taken.add(i)
                spent += cost
                misses = 0
            else:
                misses += 1
        return spent


def overview(
    notes: Sequence[Observation],
    *,
    title: str,
    budget: int,
    weight: Callable[[Observation], float] = lambda o: 0.0,
    seen: Callable[[Observation], Observation] = lambda o: o,
) -> Overview:
    """The repository brief of ``notes`` within ``budget`` tokens (module docstring).
    ``weight``: 0..1, how central a note's code is (ranks rules); ``title``: the first line;
    ``seen``: a stale or suspect note with ``confirm_refused`` set as the checkout it is shown
    in would answer (called only for the notes a pass reaches)."""
    by_section: dict[Section, list[Observation]] = {s: [] for s in Section}
    disagreeing = 0
    for o in notes:
        s = section_of(o)
        if s is not None:
            by_section[s].append(o)
        elif is_doc(o) and o.status in (ObservationStatus.STALE, ObservationStatus.SUSPECT):
            disagreeing += 1
    ordered = {s: _ordered(s, group, weight) for s, group in by_section.items()}
    lines = _Lines(ordered, seen)
    head_cost = estimate_tokens(title) + sum(estimate_tokens(f"## {_longest(s)}") + 1 for s in Section if ordered[s])
    room = max(0, budget - head_cost - 40)  # 40: the footer
    taken: dict[Section, set[int]] = {s: set() for s in Section}
    spent = 0
    for s in Section:  # first pass: each section within its share
        spent += lines.fill(s, int(room * SHARES[s]), taken[s])
    for s in Section:  # second pass: what is left, in section order
        spent += lines.fill(s, room - spent, taken[s])
    out = [title]
    shown: list[str] = []
    for s in Section:
        if not taken[s]:
            continue
        no_confirm = s is Section.LOOK and all((s, i) in lines.refused for i in taken[s])
        out.append(f"## {LOOK_NO_CONFIRM if no_confirm else s.value}")
        for i in sorted(taken[s]):
            out.append(lines.line(s, i)[0])
            shown.append(ordered[s][i].id)
    left = {s: len(ordered[s]) - len(taken[s]) for s in Section}
    if not any(ordered.values()):
        out.append("- nothing recorded yet for this repository")
    elif sum(left.values()):
        parts = ", ".join(f"{n} {_short(s)}" for s, n in left.items() if n)
        n = sum(left.values())
        unshown = [o for s in Section for i, o in enumerate(ordered[s]) if i not in taken[s]]
        out.append(f"({n} more not shown within the budget of {budget} tokens: {parts}; see {_listing(unshown)})")
    if disagreeing:
        out.append(
            f"({disagreeing} passage{'s' if disagreeing != 1 else ''} of the docs disagree with the code: "
            "see graphmem check)"
        )
    text = "\n".join(out)
    return Overview(text, tuple(shown), left, estimate_tokens(text))


def _longest(s: Section) -> str:
    """A section's heading as the budget counts it: the longer of its two for ``LOOK``."""
    heading: str = s.value
    return max(heading, LOOK_NO_CONFIRM, key=len) if s is Section.LOOK else heading


def _day(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _doc_rank(o: Observation) -> int:
    return _DOC_KIND_RANK.get(o.knowledge.kind, 3) if o.knowledge is not None else 3


def _place(o: Observation) -> tuple[str, int]:
    return (o.knowledge.path, o.knowledge.start_line) if o.knowledge is not None else ("", 0)


def _listing(unshown: Sequence[Observation]) -> str:
    """The command that lists what a brief left out: ``graphmem list`` lists saved notes,
    ``--kind docs`` units of knowledge files, ``--kind all`` both."""
    docs = sum(map(is_doc, unshown))
    if docs == len(unshown):
        return "graphmem list --kind docs"
    return "graphmem list" if not docs else "graphmem list --kind all"


def _doc_line(o: Observation) -> str:
    """A docs unit in one short line: its text cut to ``DOC_CHARS`` and where it is."""
    text = " ".join(o.text.split())
    if len(text) > DOC_CHARS:
        text = text[: DOC_CHARS - 1].rstrip() + "…"
    path, line = _place(o)
    return f"- [{o.category.value}] {text} ({path}:{line})"


def _line(section: Section, o: Observation) -> str:
    """A note's line: ``brief_line`` (which marks stale and suspect ones with their reason), a
    docs unit's ``_doc_line``; in the notes section, when it was confirmed (and by whom), last
    changed or saved (a shared note's file being read again is not a change)."""
    if is_doc(o):
        return _doc_line(o)
    line = brief_line(o)
    if section is not Section.RECENT:
        return line
    if o.confirmed_at and o.confirmed_at >= o.updated_at:
        by = f" by {o.confirmed_by}" if o.confirmed_by else ""
        return f"{line} [confirmed {_day(o.confirmed_at)}{by}]"
    if o.updated_at > o.created_at and o.knowledge is None:
        return f"{line} [changed {_day(o.updated_at)}]"
    return f"{line} [saved {_day(o.created_at)}]"


def _short(s: Section) -> str:
    return {
        Section.RULES: "constraints/decisions",
        Section.RECENT: "other notes",
        Section.LOOK: "stale/suspect",
        Section.DOCS: "docs passages",
    }[s]
