"""Knowledge units as observations, and their staleness (pure).

A unit of a knowledge file becomes an observation whose ``knowledge`` is the file and lines
it comes from and whose anchors are the code its references named *as the unit was written*
(the fingerprints at the commit that last changed the unit's lines, or at the moment it was
first read outside git). A reference is graded by what its text uses (issue 42):

* its symbol or file is gone, or was renamed (the text still says the old name): **dangling**
  (REMOVED / RENAMED; the new name, or the successor a deprecation message names, with it);
  gone as a symbol but still served by a module's lazy hook with a warning (DEPRECATED,
  ``graph.served``): **suspect** — it works today — "is deprecated: `click.__getattr__` still
  serves it, with a warning, since c; use `x`";
* a name gone (dangling or deprecated) in a sentence that says it is old ("deprecated in
  favor of", "no longer": ``ingest.knowledge.historical``): **changed**, "historical: …";
* a deprecated name an autodoc directive documents (``.. autoclass:: BaseCommand``, still
  served): **changed**, "autodoc: …" — the page is its docstring's, and it still builds;
* the text writes a call with arguments (``get(url, proxies=...)``) that no longer binds to
  the current signature — a keyword it no longer takes, too many positionals: **stale**;
* the text names the code without arguments (``get``, ``get()``) and its signature changed
  in a way that breaks old callers (a parameter removed or renamed, positions moved, a new
  required one): **suspect** — unless all that breaks them is optional parameters removed or
  renamed that the unit's text does not name (``graph.signatures.fits_a_mention``);
* anything else that changed — a body, annotations, defaults, new optional parameters, bases,
  a call that still binds: **changed**, listed by ``check --level all`` only; a passing
  mention is a weaker anchor than a note written about the code. A mention of a class, a
  module or a file does not follow every change inside it (only its head or its removal).
  Shared notes (``.graphmem/notes``) are written about their anchors: every change of their
  code makes them STALE;
* a dependency of the named code changed its signature or went away: the unit is SUSPECT,
  as every note is (``list --suspect``, recall, events), but no *reference* of it changes
  state: a reference is judged by the code it names — all a check with no daemon knows (the
  code now and its history) — so ``check``, which reports references, gives the same findings
  from a running daemon that followed the changes one by one as from a cold run.

The unit's status follows its worst reference (dangling or stale: STALE; suspect: SUSPECT;
changed only: FRESH), so the language server, the hooks and ``list`` read the same grades
``check`` prints. ``grade`` recomputes the status and each reference's state from the anchors
and the code; it replaces ``staleness.reevaluate`` for knowledge observations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Final

from graphmem.changes import MAX_LINE, change_words, spaced, when_words
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    KnowledgeCheck,
    KnowledgeKind,
    KnowledgeReference,
    KnowledgeSource,
    Observation,
    ObservationStatus,
    ReferenceState,
    StaleReason,
)

from graphmemd.graph.knowledge_refs import CONTAINER_KINDS
from graphmemd.graph.signatures import binds, call_misfit, fits_a_mention
from graphmemd.ingest.knowledge.classify import WrittenCall, written_call
from graphmemd.ingest.knowledge.historical import says_old
from graphmemd.ingest.knowledge.model import RefKind, TargetKind, TextRef, Unit, UnitKind
from graphmemd.ingest.knowledge.notes import SharedNote
from graphmemd.memory.anchors import CodeView, dependency_holds, evaluate_anchor, persisting
from graphmemd.memory.obsdoc import MAX_DOC_ANCHORS, MAX_TEXT

__all__ = [
    "GRADING_CONFIDENCE",
    "PASSING_CONFIDENCE",
    "RefFinding",
    "UnitFinding",
    "check_references",
    "first_seen",
    "grade",
    "ref_confidence",
    "reference_states",
    "unit_observation",
]

_LIVE: Final = (ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT)
_DANGLING: Final = (ChangeKind.REMOVED, ChangeKind.RENAMED)
#: the reasons history gives a name gone as a symbol (dated by it; kept until the text is edited)
_GONE: Final = (*_DANGLING, ChangeKind.DEPRECATED)
_CATEGORY: Final = {
    KnowledgeKind.AGENT_INSTRUCTIONS: Category.CONVENTION,
    KnowledgeKind.DECISION_RECORD: Category.DECISION,
    KnowledgeKind.DOCUMENTATION: Category.OTHER,
    KnowledgeKind.SHARED_NOTE: Category.OTHER,
}
_RANK: Final = {
    ReferenceState.OK: 0,
    ReferenceState.CHANGED: 1,
    ReferenceState.SUSPECT: 2,
    ReferenceState.STALE: 3,
    ReferenceState.DANGLING: 4,
}
#: the longest signature a reference carries (JSON, SARIF properties)
MAX_SIGNATURE: Final = 2_000
#: the confidence of an anchor a unit makes by naming code in passing: a bare literal
#: (``app``), a module or a file mentioned. A role, a directive (a module they name too), a
#: qualified name, a name a code example imports and a shared note's declared anchor are sure
#: (1.0). Recall weighs the anchor's evidence by it (docs/ranking.md, "Knowledge units in
#: recall")
PASSING_CONFIDENCE: Final = 0.3
_SURE_KINDS: Final = (RefKind.ROLE, RefKind.DIRECTIVE, RefKind.ANCHOR, RefKind.EXAMPLE)
#: the confidence of an anchor a unit is graded by but does not name: a called class's
#: constructor (``RefFinding.named``). Recall weighs its evidence by it: next to nothing
GRADING_CONFIDENCE: Final = 0.01


@dataclass(frozen=True, slots=True)
class RefFinding:
    """What a written reference named: the anchor as written, and what history already says
    (a dangling reason, or a change since with its commit); close matches when dangling.
    ``named``: the code the text names when the anchor graded is other code — a class called
    with arguments, whose constructor (``anchor``) the call is bound against. The unit is
    anchored to both: ``named`` at the reference's confidence (what recall ranks it by), the
    constructor at ``GRADING_CONFIDENCE`` (it is graded by it, not about it)."""

    ref: TextRef
    anchor: Anchor
    reasons: tuple[StaleReason, ...] = ()
    close_matches: tuple[str, ...] = ()
    named: Anchor | None = None


@dataclass(frozen=True, slots=True)
class UnitFinding:
    """A unit, its observation id and its references to code (a shared note: its file's fields)."""

    unit: Unit
    obs_id: str
    refs: tuple[RefFinding, ...]
    note: SharedNote | None = None


def _anchor_key(a: Anchor) -> str:
    return a.symbol_id if a.kind is AnchorKind.SYMBOL else f"{a.repo_id}:{a.path}"


def ref_confidence(ref: TextRef, anchor: Anchor) -> float:
    """How surely ``ref`` names ``anchor``: full for a role, a directive, a shared note's
    declared anchor, a name a code example imports and a qualified name; ``PASSING_CONFIDENCE``
    for a file or a module mentioned (the anchor is a file) and a bare literal — but a module a
    role or a directive names (``:mod:`sphinx.ext.napoleon```, ``.. module:: marshmallow``) is
    named on purpose: full."""
    if ref.kind is RefKind.ANCHOR:
        return 1.0
    if ref.target_kind is TargetKind.PATH:
        return PASSING_CONFIDENCE
    if anchor.kind is AnchorKind.FILE:
        return 1.0 if ref.kind in (RefKind.ROLE, RefKind.DIRECTIVE) else PASSING_CONFIDENCE
    if ref.kind in _SURE_KINDS or "." in ref.target or "::" in ref.target:
        return 1.0
    return PASSING_CONFIDENCE


def _category(f: UnitFinding, kind: KnowledgeKind) -> Category:
    if f.note is not None:
        try:
            return Category(f.note.category)
        except ValueError:
            return Category.OTHER
    return _CATEGORY[kind]


def _call_text(ref: TextRef) -> str:
    """A code example's call of the name as ``written_call`` reads it (``get(_, proxies=_)``,
    ``get()`` for no arguments; ``*args``/``**kwargs`` passed: ``...`` and ``**_``, so only
    keywords written by name can be found missing), or "" when the reference is no call
    written in an example."""
    shape = ref.call
    if shape is None or ref.kind is not RefKind.EXAMPLE:
        return ""
    args = ["_"] * shape.positionals + [f"{k}=_" for k in shape.keywords] + (["...", "**_"] if shape.starred else [])
    return f"{ref.target.rpartition('.')[2] or ref.target}({', '.join(args)})"


def unit_observation(
    repo_id: str, path: str, kind: KnowledgeKind, f: UnitFinding, previous: Observation | None, now: float
) -> Observation:
    """The observation of a unit (not yet graded): its anchors, the reasons history found,
    its references with their spans, and what it keeps of ``previous`` (creation, confirmation)."""
    anchors: dict[str, Anchor] = {}
    reasons: dict[tuple[str, ChangeKind], StaleReason] = {}
    refs: list[KnowledgeReference] = []
    u = f.unit
    for rf in f.refs:
        named = (rf.named, ref_confidence(rf.ref, rf.named)) if rf.named is not None else None
        graded = GRADING_CONFIDENCE if named is not None else ref_confidence(rf.ref, rf.anchor)
        for anchor, conf in ((rf.anchor, graded), *((named,) if named is not None else ())):
            key = _anchor_key(anchor)
            had = anchors.get(key)
            if had is None or had.confidence < conf:  # the surest of the references naming it
                anchors[key] = replace(had or anchor, confidence=conf)
        for r in rf.reasons:
            reasons.setdefault((r.anchor_ref, r.change), r)
        s = rf.ref.span
        renamed = next(
            (
                r
                for r in rf.reasons
                if (r.change is ChangeKind.RENAMED and r.new_ref == rf.anchor.ref) or r.change is ChangeKind.DEPRECATED
            ),
            None,
        )
        refs.append(
            KnowledgeReference(
                rf.ref.text, path, s.line, s.column, s.end_line, s.end_column,
                target_ref=renamed.anchor_ref if renamed else rf.anchor.ref,  # what it named when written
                close_matches=rf.close_matches, observation_id=f.obs_id, call=_call_text(rf.ref),
                historical=says_old(u, s),
            )
        )  # fmt: skip
    note = f.note
    return Observation(
        id=f.obs_id,
        repo_id=repo_id,
        text=(u.text or path)[:MAX_TEXT],
        category=_category(f, kind),
        created_at=(note.created if note and note.created else None) or (previous.created_at if previous else now),
        updated_at=now,
        tags=note.tags if note else (),
        source=(note.author if note else "") or "file",
        anchors=tuple(anchors.values())[:MAX_DOC_ANCHORS],
        stale_reasons=tuple(reasons.values()),
        confirmed_by=note.confirmed_by if note else (previous.confirmed_by if previous else ""),
        confirmed_at=note.confirmed if note else (previous.confirmed_at if previous else None),
        knowledge=KnowledgeSource(path, u.start_line, u.end_line, u.heading_path, kind, u.kind is UnitKind.EXAMPLE,
                                  u.kind is UnitKind.HEADING),
        references=tuple(refs),
        history=previous.history if previous else (),  # the book adds what this read changed
    )


_GENERATED: Final = (".. auto", "```{auto", ":::{auto", ".. py:auto", ":members:")


def generated(o: Observation) -> bool:
    """Whether a unit is an autodoc directive (``.. autofunction:: attrs.define``) or its
    ``:members:`` list: what it shows is generated from the code, so only a reference gone
    dangling makes it wrong."""
    return o.knowledge is not None and o.text.lstrip().startswith(_GENERATED)


def _weak_body(o: Observation, a: Anchor, code: CodeView) -> bool:
    """Whether a body change of ``a`` does not count: a passing mention of a file, a class
    or another container in a document (shared notes are written about their anchors)."""
    if o.knowledge is None or o.knowledge.kind is KnowledgeKind.SHARED_NOTE:
        return False
    if a.kind is AnchorKind.FILE:
        return True
    s = code.symbol(a.symbol_id)
    return s is not None and s.kind in CONTAINER_KINDS


def grade(
    o: Observation,
    code: CodeView,
    now: float,
    commit: str,
    suspects: Sequence[StaleReason] = (),
    changed_now: Collection[str] = (),
) -> Observation:
    """A knowledge observation with its reasons, status and reference states recomputed
    against ``code``. Reasons that persist keep their commit and time, unless their symbol
    changed again just now (``changed_now``: symbol ids); a new or renewed one has the commit
    "" until history names it (a live change is not committed yet; then the commit that gave
    the symbol its current fingerprints, as a cold check names it); RENAMED stays until the
    text is edited (the reference still says the old name). A dependency reason (``suspects``,
    new ones) holds while the dependency's signature differs; it marks the unit, not its
    references (see the module docstring)."""
    previous = {(r.anchor_ref, r.change, r.dependency_id): r for r in o.stale_reasons}
    reasons = [r for r in o.stale_reasons if r.change in (ChangeKind.RENAMED, ChangeKind.DEPRECATED)]
    for a in o.anchors:
        r = evaluate_anchor(a, code, now, "", body=False)
        if r is None or (r.change is ChangeKind.BODY_CHANGED and _weak_body(o, a, code)):
            continue
        if r.change not in _DANGLING and generated(o):
            continue
        reasons.append(persisting(r, a, previous, changed_now))
    changed = {r.anchor_ref for r in reasons}
    deps = {(r.anchor_ref, r.dependency_id): r for r in o.stale_reasons}
    for r in suspects:  # a new one: its commit is named once the change is committed
        deps.setdefault((r.anchor_ref, r.dependency_id), replace(r, commit=""))
    for (anchor_ref, _), r in sorted(deps.items()):
        if r.change is ChangeKind.DEPENDENCY_CHANGED and anchor_ref not in changed and dependency_holds(r, code):
            reasons.append(r)
    graded = replace(o, stale_reasons=tuple(reasons))
    refs = reference_states(graded)
    status = o.status
    if status in _LIVE:
        worst = max((_RANK[r.state] for r in refs), default=0)
        dependency = any(r.change is ChangeKind.DEPENDENCY_CHANGED for r in reasons)
        stale = worst >= _RANK[ReferenceState.STALE]
        suspect = worst == _RANK[ReferenceState.SUSPECT] or dependency
        status = ObservationStatus.STALE if stale else ObservationStatus.SUSPECT if suspect else ObservationStatus.FRESH
    return replace(graded, status=status, references=refs)


def first_seen(o: Observation, before: Observation | None) -> Observation:
    """``o`` (a unit read again) with each reason ``before`` already had, the same but for
    when it was seen, keeping ``before``'s time: a file read again unchanged (after a
    restart, say) is no change of the unit, and a reason's time stays when it was first seen."""
    if before is None or not o.stale_reasons or not before.stale_reasons:
        return o
    seen = {replace(r, detected_at=0.0): r for r in before.stale_reasons}
    reasons = tuple(seen.get(replace(r, detected_at=0.0), r) for r in o.stale_reasons)
    return o if reasons == o.stale_reasons else replace(o, stale_reasons=reasons)


def _chain(target: str, reasons: Sequence[StaleReason]) -> set[str]:
    """``target`` and every ref a rename chain led it to."""
    out = {target}
    grew = True
    while grew:
        grew = False
        for r in reasons:
            if r.change is ChangeKind.RENAMED and r.anchor_ref in out and r.new_ref and r.new_ref not in out:
                out.add(r.new_ref)
                grew = True
    return out


def _state(r: StaleReason, strong: bool, call: WrittenCall | None, text: str) -> ReferenceState:
    """A reason's grade for a reference, by what its text uses (see the module docstring;
    ``text``: the unit's). For a shared note every change of its code is stale."""
    if r.change in _DANGLING:
        return ReferenceState.DANGLING
    if r.change is ChangeKind.DEPRECATED:
        return ReferenceState.SUSPECT  # it works today, with a warning: worth a look, not broken
    if strong and r.change in (ChangeKind.BODY_CHANGED, ChangeKind.SIGNATURE_CHANGED, ChangeKind.ANNOTATIONS_CHANGED):
        return ReferenceState.STALE
    if r.change is not ChangeKind.SIGNATURE_CHANGED:
        return ReferenceState.CHANGED  # a body, what annotations say: what the text uses still holds
    if call is not None:
        fits = binds(call.positional, call.keywords, call.more_positional, r.new_signature)
        if fits is not None:
            return ReferenceState.CHANGED if fits else ReferenceState.STALE
    return ReferenceState.CHANGED if fits_a_mention(r.old_signature, r.new_signature, text) else ReferenceState.SUSPECT


def _uncommitted(r: StaleReason) -> bool:
    """Whether the change ``r`` reports is not committed yet. A change of the code a unit
    names that history has not dated (no commit) is a live one, seen before it was committed;
    a name gone is dated by history, which says when it is not committed yet (``uncommitted``):
    one with no commit was committed where the search cannot see it (a merge), not "uncommitted"."""
    return r.uncommitted or (not r.commit and r.change not in _GONE)


def _sentence(ref: KnowledgeReference, r: StaleReason, state: ReferenceState, call: WrittenCall | None) -> str:
    """One line of at most ``MAX_LINE`` characters: what happened to what the reference
    names, in the words of the one renderer of a change (``graphmem.changes``), with the commit
    that made it (or ``uncommitted``); a long list of changes is cut, never the commit."""
    words = when_words(r.commit, _uncommitted(r))
    # " in 1a2b3c4" / ", uncommitted" / nothing (a name gone whose commit history did not find)
    tail = f" {words}" if r.commit and not r.uncommitted else f", {words}" if words else ""
    name = _name_of(ref, r.anchor_ref)
    if r.change is ChangeKind.DEPRECATED:  # "`x` is deprecated: `m.__getattr__` still serves it, …; use `y`"
        since = f", since {r.commit[:7]}" if r.commit and not r.uncommitted else f", {words}" if words else ""
        heir = f"; use `{r.new_ref}`" if r.new_ref else ""
        return f"`{name}` is {change_words(r)}{since}{heir}"[:MAX_LINE]
    if r.change is ChangeKind.REMOVED and r.new_ref:
        tail += f"; use `{r.new_ref.rpartition('::')[2] or r.new_ref}`"
    head = f"`{name}` "
    if r.change not in _DANGLING:
        why = ""
        if state is ReferenceState.STALE and call is not None and r.change is ChangeKind.SIGNATURE_CHANGED:
            why = call_misfit(call.positional, call.keywords, call.more_positional, r.new_signature)
        head = f"`{name}` {why}: " if why else f"`{name}`: "
    what = change_words(r)
    room = MAX_LINE - len(head) - len(tail)
    if len(what) > room:
        what = what[: max(room - 1, 0)].rstrip(" ,") + "…"
    return head + what + tail


def reference_states(o: Observation) -> tuple[KnowledgeReference, ...]:
    """Each reference with its state, reason, new name, commit and signatures from ``o``'s
    stale reasons, graded by what the reference's text uses (a call with arguments is bound
    against the current signature; a mention is judged by whether old callers still fit)."""
    strong = o.knowledge is not None and o.knowledge.kind is KnowledgeKind.SHARED_NOTE
    autodoc = generated(o)
    out: list[KnowledgeReference] = []
    for ref in o.references:
        chain = _chain(ref.target_ref, o.stale_reasons)
        # (a dependency's change marks the unit, not what it names: see the module docstring)
        mine = [r for r in o.stale_reasons if r.anchor_ref in chain and r.change is not ChangeKind.DEPENDENCY_CHANGED]
        if not mine:
            out.append(replace(ref, state=ReferenceState.OK, reason="", renamed_to="", commit="", old_signature="",
                               new_signature="", deprecated=False))  # fmt: skip
            continue
        call = written_call(ref.call, empty_is_call=True) if ref.call else written_call(ref.text)
        graded = [(_state(r, strong, call, o.text), r) for r in mine]
        state, worst = max(graded, key=lambda g: (_RANK[g[0]], g[1].change is ChangeKind.REMOVED))
        renamed = next((r.new_ref for r in mine if r.change in _DANGLING and r.new_ref), "")
        reason = _sentence(ref, worst, state, call)
        if ref.historical and worst.change in _GONE:  # the text says the name is old: it asks for nothing
            state, reason = ReferenceState.CHANGED, f"historical: {reason}"[:MAX_LINE]
        elif autodoc and worst.change is ChangeKind.DEPRECATED:
            # `.. autoclass:: BaseCommand` of a name still served: the page is its docstring's,
            # and documenting a deprecated name is the docs' choice (it still builds): nothing asked
            state, reason = ReferenceState.CHANGED, f"autodoc: {reason}"[:MAX_LINE]
        deprecated = state is ReferenceState.SUSPECT and worst.change is ChangeKind.DEPRECATED
        out.append(
            replace(
                ref,
                state=state,
                reason=reason,
                renamed_to=renamed if worst.change in _DANGLING else "",
                commit=worst.commit,
                old_signature=spaced(worst.old_signature)[:MAX_SIGNATURE],
                new_signature=spaced(worst.new_signature)[:MAX_SIGNATURE],
                deprecated=deprecated,
            )
        )
    return tuple(out)


def check_references(
    units: Sequence[Observation], files: int, close: Callable[[str], tuple[str, ...]]
) -> KnowledgeCheck:
    """The ``CheckKnowledge`` answer over ``units`` (the units in scope, live or not): every
    reference that is not OK, in file order, a dangling one with its close matches
    (``close`` finds them when the unit has none stored)."""
    out: list[KnowledgeReference] = []
    n = 0
    for o in units:
        for r in o.references:
            n += 1
            if r.state is ReferenceState.OK:
                continue
            if r.state is ReferenceState.DANGLING and not r.close_matches:
                r = replace(r, close_matches=close(_name_of(r)))
            out.append(r)
    out.sort(key=lambda r: (r.path, r.line, r.column, r.end_line, r.end_column, r.text))
    return KnowledgeCheck(tuple(out), files, len(units), n)


def _name_of(ref: KnowledgeReference, anchor_ref: str = "") -> str:
    """The name a reference stands for: as written, or for a path, a link (``x.go#L16``) or
    a member written relative to its section (``def .aiter_lines()``) the qualified name of
    the symbol it anchored, as for a member named on an instance (``UserSchema().load``: the
    code's ``Schema.load``)."""
    relative = _RELATIVE_TEXT.match(ref.text) is not None
    name = ref.text.split("(", 1)[0]  # (a call's arguments may hold a URL)
    if "/" in name or "#L" in name or relative or _ON_INSTANCE.search(ref.text):
        target = anchor_ref or ref.target_ref
        return target.rpartition("::")[2] or target
    return _written_name(ref.text)


#: a call inside a name chain (``Client().get``): a member of what the call returns
_ON_INSTANCE: Final = re.compile(r"^[\w.]+\([^()]*\)\s*(?:\.|::|->)\w")
_RELATIVE_TEXT: Final = re.compile(r"^`*\s*(?:(?:async\s+)?def\s+|property\s+)?\.\w")


def _written_name(text: str) -> str:
    """The name a reference's text spells (``:func:`x.y``` -> ``x.y``, ``f()`` -> ``f``)."""
    inner = text.split("`")[1] if text.count("`") >= 2 else text
    inner = inner.rsplit("<", 1)[-1].rstrip(">") if "<" in inner else inner
    return inner.strip().lstrip("~!.").split("(")[0].replace("::", ".").replace("#", ".")
