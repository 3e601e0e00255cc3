"""**Pure** view model of the review page: what the queue, a note's page, the overview, search
and the picture show, computed from domain objects. No client, no I/O, no web framework."""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from graphmem.changes import change_words, history_words, reason_detail, spaced
from graphmem.grading import RANK, Grade, describe, grade, needs_review
from graphmem.render import marker
from graphmem.types import (
    AnchorChange,
    ChangeKind,
    EdgeKind,
    KnowledgeReference,
    Neighbourhood,
    NeighbourNode,
    Observation,
    ObservationStatus,
    Recalled,
    StaleReason,
)

__all__ = [
    "PICTURE_KINDS",
    "REVIEWED",
    "BadFilter",
    "Facets",
    "Filters",
    "HistoryEntry",
    "ItemKind",
    "QueueItem",
    "SearchRow",
    "change_caption",
    "counted",
    "facets",
    "graph_elements",
    "history",
    "note_item",
    "queue_items",
    "search_rows",
    "worst_state",
]

#: the note states the queue shows
REVIEWED = (ObservationStatus.STALE, ObservationStatus.SUSPECT)
#: node state colours' order, worst first
_STATE_ORDER = ("stale", "suspect", "fresh")
#: the edge kinds the picture can show
PICTURE_KINDS = (EdgeKind.CALLS, EdgeKind.IMPORTS, EdgeKind.INHERITS, EdgeKind.CONTAINS)


class BadFilter(ValueError):
    """A filter value the page does not know (shown as a message, nothing else happens)."""


class ItemKind(str, Enum):
    """What a queue item is: a note (saved with observe, or a unit of a knowledge file) or a
    knowledge-file finding whose unit is not itself stale or suspect."""

    NOTE = "note"
    FINDING = "finding"


@dataclass(frozen=True, slots=True)
class QueueItem:
    """One item of the review queue."""

    id: str  # the observation id (a finding: its unit's)
    kind: ItemKind
    state: str  # stale, suspect; a finding: dangling, stale, suspect, deprecated
    category: str
    author: str
    when: float  # newest change detected (or the note's last update)
    text: str
    reason: str  # one line
    anchors: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    knowledge_file: str = ""
    knowledge_line: int = 0
    findings: tuple[KnowledgeReference, ...] = ()
    commit: str = ""  # the commit that made the change ("" when not known or not committed)
    editable: bool = True  # a knowledge unit is edited in its file, not here
    uncommitted: bool = False  # the newest change is in the working tree, not committed yet
    #: why the page offers no Confirm (shown in its place): the daemon's refusal of the note
    #: as this checkout shows it, or, for a finding, that its unit itself is not in review
    confirm_refused: str = ""


@dataclass(frozen=True, slots=True)
class Filters:
    """The queue's filters ("" = any)."""

    state: str = ""
    category: str = ""
    author: str = ""
    file: str = ""
    knowledge_file: str = ""

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> Filters:
        """Filters from the page's query string; BadFilter for a state that does not exist."""
        state = query.get("state", "").strip().lower()
        if state and state not in {"stale", "suspect", "dangling"}:
            raise BadFilter(f"unknown state {state!r}: choose stale, suspect or dangling")
        return cls(
            state=state,
            category=query.get("category", "").strip(),
            author=query.get("author", "").strip(),
            file=query.get("file", "").strip(),
            knowledge_file=query.get("knowledge_file", "").strip(),
        )

    def keep(self, item: QueueItem) -> bool:
        """Whether ``item`` passes every filter (file: a path prefix or the exact file)."""
        if self.state and item.state != self.state:
            return False
        if self.category and item.category != self.category:
            return False
        if self.author and item.author != self.author:
            return False
        if self.file and not any(f == self.file or f.startswith(self.file.rstrip("/") + "/") for f in item.files):
            return False
        return not self.knowledge_file or item.knowledge_file == self.knowledge_file

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return any((self.state, self.category, self.author, self.file, self.knowledge_file))


def _when(o: Observation) -> float:
    return max((r.detected_at for r in o.stale_reasons), default=o.updated_at)


def _newest(o: Observation) -> StaleReason | None:
    return max(o.stale_reasons, key=lambda r: r.detected_at, default=None)


def _reason(o: Observation, findings: Sequence[KnowledgeReference]) -> str:
    """The one-line reason: the note's marker; for a unit of a knowledge file, with its worst
    finding (which reference, and what became of the code it names)."""
    line = marker(o)
    if not findings:
        return line
    worst = _worst(findings)
    more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
    return f"{line} {describe(worst)}{more}"


def change_caption(o: Observation, c: AnchorChange) -> str:
    """What changed under one block of a note's change view (``c``), in the one renderer's words
    (``changes.change_words`` of the note's reason for it: ``calls `b.py::g` (2 hops away),
    which was removed``); the change's kind when the note has no such reason any more."""
    for r in o.stale_reasons:
        if (r.anchor_ref, r.change, r.dependency_ref) == (c.anchor_ref, c.change, c.dependency_ref):
            return change_words(r)
    return c.change.value.replace("_", " ")


def note_item(o: Observation) -> QueueItem:
    """The queue item of a stale or suspect note."""
    k = o.knowledge
    findings = tuple(r for r in o.references if needs_review(r))
    newest = _newest(o)
    # the commit that made the newest change: none while it is uncommitted (its reason then
    # carries the HEAD it was seen at, which did not make it)
    uncommitted = newest is not None and newest.uncommitted
    return QueueItem(
        id=o.id,
        kind=ItemKind.NOTE,
        state=o.status.value,
        category=o.category.value,
        author=o.source,
        when=_when(o),
        text=o.text,
        reason=_reason(o, findings),
        anchors=tuple(a.ref for a in o.anchors),
        files=tuple(dict.fromkeys(a.path for a in o.anchors)),
        knowledge_file=k.path if k is not None else "",
        knowledge_line=k.start_line if k is not None else 0,
        findings=findings,
        commit=newest.commit if newest is not None and not uncommitted else "",
        editable=k is None,
        uncommitted=uncommitted,
        confirm_refused=o.confirm_refused,
    )


def _finding_item(refs: Sequence[KnowledgeReference], unit: Observation | None) -> QueueItem:
    first = refs[0]
    worst = _worst(refs)
    return QueueItem(
        id=first.observation_id,
        kind=ItemKind.FINDING,
        state=grade(worst).value,
        category=unit.category.value if unit is not None else "",
        author=unit.source if unit is not None else "",
        when=unit.updated_at if unit is not None else 0.0,
        text=unit.text if unit is not None else "",
        reason=describe(worst),
        anchors=tuple(dict.fromkeys(r.target_ref for r in refs if r.target_ref)),
        files=(first.path,),
        knowledge_file=first.path,
        knowledge_line=first.line,
        findings=tuple(refs),
        commit=worst.commit,
        editable=False,
        confirm_refused=_finding_refusal(first, unit),
    )


def _finding_refusal(first: KnowledgeReference, unit: Observation | None) -> str:
    """Why a finding offers no Confirm: its unit is not stale or suspect, so confirming it
    changes nothing (the page refuses it); the daemon's own refusal of the unit when it has one."""
    if unit is not None and unit.confirm_refused:
        return unit.confirm_refused
    if unit is not None and unit.needs_review:
        return ""
    state = unit.status.value if unit is not None else "not read"
    return f"the note itself is {state}, so confirming changes nothing; fix the reference in {first.path}:{first.line}"



def _worst(refs: Sequence[KnowledgeReference]) -> KnowledgeReference:
    """The worst graded of ``refs`` (the first of equals)."""
    return max(refs, key=lambda r: RANK[grade(r)])


def findings_by_file(refs: Iterable[KnowledgeReference]) -> list[tuple[str, dict[str, int]]]:
    """Per knowledge file, how many of its references need a look, by grade (what ``check``
    reports by default), worst first; files with none are left out."""
    by_file: dict[str, Counter[Grade]] = {}
    for r in refs:
        if needs_review(r):
            by_file.setdefault(r.path, Counter())[grade(r)] += 1
    return [
        (path, {g.value: n for g, n in sorted(counts.items(), key=lambda gn: -RANK[gn[0]])})
        for path, counts in sorted(by_file.items())
    ]


def queue_items(
    notes: Iterable[Observation],
    findings: Iterable[KnowledgeReference] = (),
    units: Mapping[str, Observation] | None = None,
    item_of: Callable[[Observation], QueueItem] = note_item,
) -> list[QueueItem]:
    """Every stale and suspect note, and every knowledge-file finding whose unit is not one of
    them (grouped by unit), newest first (then by id). ``item_of`` makes a note's item
    (``note_item``, or one that reuses the item of a note that did not change)."""
    items = [item_of(o) for o in notes if o.status in REVIEWED]
    seen = {i.id for i in items}
    by_unit: dict[str, list[KnowledgeReference]] = {}
    for r in findings:
        if needs_review(r) and r.observation_id not in seen:
            by_unit.setdefault(r.observation_id or f"{r.path}:{r.line}", []).append(r)
    for refs in by_unit.values():
        items.append(_finding_item(refs, (units or {}).get(refs[0].observation_id)))
    return sorted(items, key=lambda i: (-i.when, i.id))


def patched(items: Sequence[QueueItem], notes: Iterable[tuple[Observation, bool]]) -> list[QueueItem]:
    """``items`` after the notes changed (each a note as it is now, and whether it is gone), in
    order: a stale or suspect note is (re)placed, any other one leaves the queue; newest first
    as ``queue_items`` orders them. Only for notes of no knowledge file (their findings are
    read again instead)."""
    by_id = {i.id: i for i in items}
    for o, gone in notes:
        if not gone and o.status in REVIEWED:
            by_id[o.id] = note_item(o)
        else:
            by_id.pop(o.id, None)
    return sorted(by_id.values(), key=lambda i: (-i.when, i.id))


@dataclass(frozen=True, slots=True)
class Facets:
    """The values each filter can take, with how many items have each."""

    states: tuple[tuple[str, int], ...]
    categories: tuple[tuple[str, int], ...]
    authors: tuple[tuple[str, int], ...]
    files: tuple[tuple[str, int], ...]
    knowledge_files: tuple[tuple[str, int], ...]


def counted(values: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """Each value with how many times it occurs, most frequent first ("" left out)."""
    return tuple(sorted(Counter(v for v in values if v).items(), key=lambda kv: (-kv[1], kv[0])))


def facets(items: Sequence[QueueItem]) -> Facets:
    """The filters' choices over ``items``."""
    return Facets(
        states=counted(i.state for i in items),
        categories=counted(i.category for i in items),
        authors=counted(i.author for i in items),
        files=counted(f for i in items for f in i.files),
        knowledge_files=counted(i.knowledge_file for i in items),
    )


# ---------------------------------------------------------------------------------- history


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One line of a note's history: when, what, who, at which commit."""

    at: float
    what: str
    who: str = ""
    commit: str = ""
    detail: str = ""
    #: the other note involved (linked on the page)
    related: str = ""


def history(o: Observation, related: Mapping[str, Observation] | None = None) -> list[HistoryEntry]:
    """The note's history, oldest first: what the daemon recorded (every change with who, when
    and the commit, in the one renderer's words), or, for a note saved before histories were
    kept, what it carries about its past (``_derived_history``)."""
    if o.history:
        return [HistoryEntry(e.at, history_words(e), e.by, e.commit, related=e.related) for e in o.history]
    return _derived_history(o, related)


def _derived_history(o: Observation, related: Mapping[str, Observation] | None) -> list[HistoryEntry]:
    """An older note's past from its fields: its creation (by which client or agent), what it
    superseded, each change under its anchors since it was last confirmed (with the commit),
    its last confirmation, and what superseded it."""
    out = [HistoryEntry(o.created_at, "created", o.source)]
    for old in o.supersedes:
        out.append(HistoryEntry(o.created_at, "superseded an older note", o.source, related=old))
    if o.confirmed_at is not None:
        out.append(HistoryEntry(o.confirmed_at, "confirmed", o.confirmed_by))
    for r in o.stale_reasons:
        what = "suspect" if r.change is ChangeKind.DEPENDENCY_CHANGED else "stale"
        words = change_words(r) + (", uncommitted" if r.uncommitted else "")
        commit = "" if r.uncommitted else r.commit  # an uncommitted change's reason carries the HEAD it was seen at
        out.append(HistoryEntry(r.detected_at, f"{what}: {words}", "", commit, reason_detail(r)))
    if o.status is ObservationStatus.ARCHIVED:
        out.append(HistoryEntry(o.updated_at, "archived"))
    if o.superseded_by:
        newer = (related or {}).get(o.superseded_by)
        at = newer.created_at if newer is not None else o.updated_at
        out.append(HistoryEntry(at, "superseded", newer.source if newer is not None else "", related=o.superseded_by))
    return sorted(out, key=lambda e: e.at)


# ---------------------------------------------------------------------------------- search


@dataclass(frozen=True, slots=True)
class SearchRow:
    """One recall result as the search page shows it."""

    id: str
    text: str
    state: str
    marker: str
    score: float
    why: str
    anchors: tuple[str, ...]
    components: tuple[tuple[str, float], ...]


#: the components the search page lists, in order (the CLI's --explain columns)
_COMPONENTS = (
    "relevance",
    "file_part",
    "proximity",
    "cochange",
    "focus",
    "centrality",
    "pagerank",
    "breadth",
    "reach",
    "text_part",
    "text",
    "text_proximity",
    "text_cochange",
    "text_breadth",
    "confidence",
    "recency",
    "confirmation",
    "status",
)


def search_rows(results: Iterable[Recalled]) -> list[SearchRow]:
    """The rows of a recall, in its order."""
    return [
        SearchRow(
            id=r.observation.id,
            text=r.observation.text,
            state=r.observation.status.value,
            marker=marker(r.observation),
            score=r.score,
            why=r.why,
            anchors=tuple(a.ref for a in r.observation.anchors),
            components=tuple((name, float(getattr(r.components, name))) for name in _COMPONENTS),
        )
        for r in results
    ]


# ---------------------------------------------------------------------------------- picture


def worst_state(notes: Iterable[Observation]) -> str:
    """The worst state among ``notes`` (stale, suspect, fresh), "" without notes."""
    states = {o.status.value for o in notes}
    return next((s for s in _STATE_ORDER if s in states), "")


def _label(n: NeighbourNode) -> str:
    if n.kind == "file":
        return posixpath.basename(n.path)
    return n.ref.split("::", 1)[-1]


def _node_data(n: NeighbourNode) -> dict[str, Any]:
    return {
        "id": n.id,
        "label": _label(n),
        "ref": n.ref,
        "kind": n.kind,
        "path": n.path,
        "dir": posixpath.dirname(n.path) or ".",
        "lines": f"{n.start_line}-{n.end_line}" if n.start_line else "",
        "signature": spaced(n.signature) if n.signature else "",
        "distance": n.distance,
        "state": worst_state(n.observations),
        "notes": [{"id": o.id, "text": o.text, "state": o.status.value} for o in n.observations],
    }


def graph_elements(
    n: Neighbourhood, kinds: Iterable[EdgeKind] = PICTURE_KINDS, collapse: bool = False
) -> list[dict[str, Any]]:
    """Cytoscape.js elements of a neighbourhood: nodes grouped in their directory (compound
    nodes), edges of ``kinds`` only. ``collapse``: each directory becomes one node (its notes'
    worst state, its nodes counted) and edges between directories are merged, counted; the
    centre nodes stay as they are."""
    wanted = set(kinds)
    data = {x.id: _node_data(x) for x in n.nodes}
    centre = {x.id for x in n.nodes if x.distance == 0}
    out: list[dict[str, Any]] = []
    dirs = sorted({d["dir"] for d in data.values()})
    if not collapse:
        out += [{"data": {"id": f"dir:{d}", "label": d + "/", "kind": "dir"}} for d in dirs]
        for nid, d in data.items():
            out.append({"data": {**d, "parent": f"dir:{d['dir']}"}, "classes": "centre" if nid in centre else ""})
        for i, e in enumerate(n.edges):
            if e.kind in wanted and e.source in data and e.target in data:
                out.append({"data": {"id": f"e{i}", "source": e.source, "target": e.target, "kind": e.kind.value}})
        return out
    owner = {nid: (nid if nid in centre else f"dir:{d['dir']}") for nid, d in data.items()}
    members: dict[str, list[dict[str, Any]]] = {}
    for nid, d in data.items():
        if nid not in centre:
            members.setdefault(f"dir:{d['dir']}", []).append(d)
    for nid in data:
        if nid in centre:
            out.append({"data": data[nid], "classes": "centre"})
    for did, ms in sorted(members.items()):
        notes = [note for m in ms for note in m["notes"]]
        state = next((s for s in _STATE_ORDER if any(x["state"] == s for x in notes)), "")
        label = f"{did[4:]}/ ({len(ms)})"
        out.append(
            {"data": {"id": did, "label": label, "kind": "dir", "state": state, "notes": notes, "count": len(ms)}}
        )
    merged: Counter[tuple[str, str, str]] = Counter()
    for e in n.edges:
        if e.kind in wanted and e.source in owner and e.target in owner:
            a, b = owner[e.source], owner[e.target]
            if a != b:
                merged[(a, b, e.kind.value)] += 1
    for i, ((a, b, kind), count) in enumerate(sorted(merged.items())):
        out.append({"data": {"id": f"e{i}", "source": a, "target": b, "kind": kind, "count": count}})
    return out
