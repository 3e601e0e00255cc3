"""Symbol-level diff between two parses of a batch of files. Pure: no I/O, no logging.

``diff_symbols(old, new)`` compares the symbols of a batch (one file or many, so a function
moved to another file of the same batch is seen as moved, not as removed + added).

Matching, by symbol id (``repo:path::qualname#kind``):

* id on both sides: ``SIGNATURE_CHANGED`` if the structure of the head differs (whatever the
  body did), else ``BODY_CHANGED`` if ``body_hash`` differs, else ``ANNOTATIONS_CHANGED`` if
  only what the head's annotations say differs (``model.sig_halves``), else ``UNCHANGED``
  (reported only with ``include_unchanged=True``).
* id only in ``old``: ``REMOVED``; id only in ``new``: ``ADDED`` -- except that a removed
  and an added symbol of the same kind family with the same eligible body hash are reported
  as one ``RENAMED`` change (``old`` and ``new`` both set). The signature may differ too
  (the name is part of it); consumers can compare ``sig_hash`` themselves.

Kind families: ``function`` and ``method`` form one family (a function turned into a method
or back is still a move); every other kind is its own family.

Fingerprints are formatter-proof (``parsing/fingerprint.py``), so a function moved and
reformatted in one change keeps its body hash and is paired as a move.

Rename pairing rule:

1. A body hash is *pairable* if it is non-empty and not in the caller-supplied
   ``trivial_bodies`` (e.g. hashes known to be boilerplate).
2. It is *distinctive* if it is carried by at most ``max_shared_body`` symbols of the
   family on the old side **and** at most ``max_shared_body`` on the new side -- counting
   every symbol of the batch, changed or not. Any removed x added pair of a distinctive
   body is a candidate (two identical helpers moved together still pair).
3. A body shared by more symbols (``pass``, ``return None``, a delegating one-liner) is
   *ambiguous*: the body alone says nothing, so a pair is a candidate only when its names
   say so too -- the same simple name (last qualname segment: a file moved or renamed, a
   function moved into a class), or the same file and qualnames at least
   ``AMBIGUOUS_SIMILARITY`` alike (``difflib`` ratio: ``handle`` -> ``handle2``).
4. Within one (family, body hash) group, candidates are scored by, in order: same file,
   same simple name, qualname similarity, same kind; ties are broken by the ids. Pairs are
   taken greedily from the best score down, and a symbol is never paired twice. Leftovers
   stay REMOVED/ADDED.

The output is sorted by the change's id (the old id for renames), which is unique within a
result, so the same input always gives the same list.
"""

from __future__ import annotations

import difflib
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence

from graphmemd.graph.model import ChangeKind, SymbolChange, SymbolKind, SymbolState
from graphmemd.graph.signatures import head_change

__all__ = ["AMBIGUOUS_SIMILARITY", "DEFAULT_MAX_SHARED_BODY", "diff_symbols", "kind_family"]

#: A body hash carried by more symbols than this on either side is ambiguous.
DEFAULT_MAX_SHARED_BODY = 2
#: Least qualname similarity for a same-file pair of an ambiguous body.
AMBIGUOUS_SIMILARITY = 0.6

_CALLABLE_FAMILY = "callable"


def kind_family(kind: SymbolKind) -> str:
    """The family a kind belongs to for rename detection (function and method are one)."""
    if kind in (SymbolKind.FUNCTION, SymbolKind.METHOD):
        return _CALLABLE_FAMILY
    return str(kind.value)


def _index(states: Iterable[SymbolState], side: str) -> dict[str, SymbolState]:
    out: dict[str, SymbolState] = {}
    for state in states:
        if state.id in out:
            raise ValueError(f"duplicate symbol id on the {side} side: {state.id}")
        out[state.id] = state
    return out


def _simple_name(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def _similarity(old: SymbolState, new: SymbolState) -> float:
    return difflib.SequenceMatcher(None, old.qualname, new.qualname, autojunk=False).ratio()


def _pair_key(old: SymbolState, new: SymbolState) -> tuple[bool, bool, float, bool, str, str]:
    """Sort key for candidate pairs: smaller is better."""
    return (
        old.path != new.path,
        _simple_name(old.qualname) != _simple_name(new.qualname),
        -_similarity(old, new),
        old.kind != new.kind,
        old.id,
        new.id,
    )


def _named_alike(old: SymbolState, new: SymbolState) -> bool:
    """Whether the names alone make ``old`` -> ``new`` plausible (ambiguous bodies)."""
    if _simple_name(old.qualname) == _simple_name(new.qualname):
        return True
    return old.path == new.path and _similarity(old, new) >= AMBIGUOUS_SIMILARITY


def _moves(
    removed: Sequence[SymbolState],
    added: Sequence[SymbolState],
    distinctive: Callable[[tuple[str, str]], bool],
    trivial_bodies: Collection[str],
    earlier: Collection[str],
) -> list[SymbolChange]:
    """The RENAMED pairs of ``removed`` x ``added`` (the module docstring's rules); a pair of
    two ``earlier`` ids (both from recent batches) is none of this batch's."""
    removed_groups: defaultdict[tuple[str, str], list[SymbolState]] = defaultdict(list)
    for s in removed:
        if s.body_hash and s.body_hash not in trivial_bodies:
            removed_groups[(kind_family(s.kind), s.body_hash)].append(s)
    added_groups: defaultdict[tuple[str, str], list[SymbolState]] = defaultdict(list)
    for s in added:
        key = (kind_family(s.kind), s.body_hash)
        if key in removed_groups:
            added_groups[key].append(s)
    out: list[SymbolChange] = []
    paired: set[str] = set()  # ids (old ids and new ids never collide: they are disjoint)
    for key in sorted(added_groups):
        clear = distinctive(key)
        candidates = sorted(
            (
                (o, n)
                for o in removed_groups[key]
                for n in added_groups[key]
                if (o.id not in earlier or n.id not in earlier) and (clear or _named_alike(o, n))
            ),
            key=lambda pair: _pair_key(*pair),
        )
        for o, n in candidates:
            if o.id in paired or n.id in paired:
                continue
            paired.add(o.id)
            paired.add(n.id)
            out.append(SymbolChange(ChangeKind.RENAMED, o, n))
    return out


def diff_symbols(
    old: Iterable[SymbolState],
    new: Iterable[SymbolState],
    *,
    include_unchanged: bool = False,
    trivial_bodies: Collection[str] = frozenset(),
    max_shared_body: int = DEFAULT_MAX_SHARED_BODY,
    earlier_removed: Iterable[SymbolState] = (),
    earlier_added: Iterable[SymbolState] = (),
) -> list[SymbolChange]:
    """The changes from ``old`` to ``new`` (see the module docstring for the rules).

    ``earlier_removed`` / ``earlier_added``: symbols recent batches removed or added (a move
    whose two files were saved, or seen, in two batches: ``recent.RecentSymbols``). They pair
    with this batch's added or removed symbols by the same rules, one side at least of every
    pair being this batch's, and are never reported otherwise. One whose id this batch holds
    is left to the batch.

    Raises ``ValueError`` if an id occurs twice on one side.
    """
    before = _index(old, "old")
    after = _index(new, "new")

    changes: list[SymbolChange] = []
    removed: list[SymbolState] = []
    for sid, o in before.items():
        n = after.get(sid)
        if n is None:
            removed.append(o)
        elif (head := head_change(o.sig_hash, n.sig_hash, o.signature, n.signature)) is ChangeKind.SIGNATURE_CHANGED:
            changes.append(SymbolChange(ChangeKind.SIGNATURE_CHANGED, o, n))
        elif o.body_hash != n.body_hash:
            changes.append(SymbolChange(ChangeKind.BODY_CHANGED, o, n))
        elif head is ChangeKind.ANNOTATIONS_CHANGED:
            changes.append(SymbolChange(ChangeKind.ANNOTATIONS_CHANGED, o, n))
        elif include_unchanged:
            changes.append(SymbolChange(ChangeKind.UNCHANGED, o, n))
    added = [n for sid, n in after.items() if sid not in before]
    gone_before = [s for s in earlier_removed if s.id not in before and s.id not in after]
    new_before = [s for s in earlier_added if s.id not in before and s.id not in after]

    # Rename/move detection.
    old_counts = Counter((kind_family(s.kind), s.body_hash) for s in (*before.values(), *gone_before))
    new_counts = Counter((kind_family(s.kind), s.body_hash) for s in (*after.values(), *new_before))
    moves = _moves(
        (*removed, *gone_before),
        (*added, *new_before),
        lambda key: old_counts[key] <= max_shared_body and new_counts[key] <= max_shared_body,
        trivial_bodies,
        {s.id for s in (*gone_before, *new_before)},
    )
    changes.extend(moves)
    paired = {s.id for c in moves for s in (c.old, c.new) if s is not None}
    changes.extend(SymbolChange(ChangeKind.REMOVED, s, None) for s in removed if s.id not in paired)
    changes.extend(SymbolChange(ChangeKind.ADDED, None, s) for s in added if s.id not in paired)
    changes.sort(key=lambda c: (c.id, c.kind.value, c.new.id if c.new else ""))
    return changes
