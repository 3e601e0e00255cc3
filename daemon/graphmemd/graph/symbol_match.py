"""Close matches for short symbol references (pure: symbols in, ranked matches out).

A reference may be a full ref (``app/auth/crypto.py::hash_password``), a path suffix with a
qualname (``crypto.py::hash_password``), a qualname or its dotted suffix (``AppContext.push``,
``ctx.AppContext.push`` is not a qualname and falls to the fuzzy tier), or a bare name
(``hash_password``). Tiers, best first:

0. the ref itself (``path::qualname``), case-sensitive;
1. the path part is a suffix of the path (at a ``/``) and the qualname matches;
2. the qualname equals the reference (``echo`` is the module-level ``echo`` before a helper
   nested in a test, ``test_prompts_eof.echo``);
3. the qualname ends with ``.`` + reference;
4. the name equals the reference's last dotted segment;
5. the same as 2-4, ignoring case;
6. fuzzy: ``difflib`` ratio >= 0.6 against the qualname or the name.

Within a tier: functions and classes before modules, shorter refs first, then the ref text.
``named`` holds the symbols of the best non-empty tier among 0-4 (the ones the reference
names outright); ``exact`` is true when that is exactly one symbol.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from graphmemd.graph.model import SymbolInfo, SymbolKind

FUZZY_CUTOFF = 0.6
#: The first tier that does not name a symbol outright (case-insensitive matches; fuzzy is below).
_CASELESS = 5


@dataclass(frozen=True, slots=True)
class Matches:
    """Ranked matches of one reference."""

    symbols: tuple[SymbolInfo, ...]
    exact: bool
    named: tuple[SymbolInfo, ...] = ()


def _tier(ref: str, s: SymbolInfo) -> int | None:
    path_part, sep, qual = ref.rpartition("::")
    if sep:
        if s.ref == ref:
            return 0
        if s.qualname == qual and (s.path == path_part or s.path.endswith("/" + path_part.lstrip("/"))):
            return 1
        if s.qualname.lower() == qual.lower() and s.path.lower().endswith(path_part.lower()):
            return _CASELESS
        return None
    if s.qualname == ref:
        return 2
    if s.qualname.endswith("." + ref):
        return 3
    last = ref.rsplit(".", 1)[-1]
    if s.name == last and "." not in ref:
        return 4
    low = ref.lower()
    if s.qualname.lower() == low or s.qualname.lower().endswith("." + low) or s.name.lower() == low:
        return _CASELESS
    return None


def close_matches(ref: str, symbols: Iterable[SymbolInfo], limit: int = 10) -> Matches:
    """The symbols ``ref`` most plausibly means, best first (see the module docstring)."""
    ref = ref.strip()
    if not ref:
        return Matches((), False)
    pool = list(symbols)
    tiers: dict[int, list[SymbolInfo]] = {}
    for s in pool:
        t = _tier(ref, s)
        if t is not None:
            tiers.setdefault(t, []).append(s)
    if not tiers:
        return Matches(_fuzzy(ref.rpartition("::")[2].lower(), pool, limit), False)
    best = min(tiers)
    ranked: list[SymbolInfo] = []
    for t in sorted(tiers):
        ranked.extend(sorted(tiers[t], key=_order))
    named = tuple(sorted(tiers[best], key=_order)) if best < _CASELESS else ()
    return Matches(tuple(ranked[:limit]), len(named) == 1, named)


def _fuzzy(target: str, pool: list[SymbolInfo], limit: int) -> tuple[SymbolInfo, ...]:
    """``difflib`` ratio against each distinct qualname and name (quick bounds first)."""
    sm = difflib.SequenceMatcher()
    sm.set_seq2(target)
    ratios: dict[str, float] = {}

    def ratio(text: str) -> float:
        r = ratios.get(text)
        if r is None:
            sm.set_seq1(text)
            r = 0.0
            if sm.real_quick_ratio() >= FUZZY_CUTOFF and sm.quick_ratio() >= FUZZY_CUTOFF:
                r = sm.ratio()
            ratios[text] = r
        return r

    scored = [(max(ratio(s.qualname.lower()), ratio(s.name.lower())), s) for s in pool]
    scored = [x for x in scored if x[0] >= FUZZY_CUTOFF]
    scored.sort(key=lambda x: (-x[0], _order(x[1])))
    return tuple(s for _, s in scored[:limit])


def _order(s: SymbolInfo) -> tuple[int, int, str]:
    return (1 if s.kind is SymbolKind.MODULE else 0, len(s.ref), s.ref)
