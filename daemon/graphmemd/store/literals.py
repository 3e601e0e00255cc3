"""Query parameters written into the query text as Cypher literals. Pure, no database.

Kùzu 0.11.3 leaks memory for every query executed with parameters (≈5 KB for a read, up to
≈60 KB for a write, never returned; measured in isolation), while the same query with its
values written as literals leaks nothing. A daemon that runs for weeks cannot afford that,
so the store inlines the values it can write exactly: strings (only ``\\`` and ``'`` need an
escape; every other character, NUL and newlines included, round-trips as it is), integers in
the int64 range, finite floats whose ``repr`` (which round-trips) has no exponent, booleans, NULL, and short non-empty
lists of those. Anything else keeps the parameter path (``inline`` returns None).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_INT64 = (-(2**63), 2**63 - 1)
#: longer lists stay parameters: one bulk query's leak is nothing, a long query text costs parsing
MAX_LIST = 1000


def literal(value: Any) -> str | None:
    """``value`` as a Cypher literal, or None when it cannot be written exactly."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if _INT64[0] <= value <= _INT64[1] else None
    if isinstance(value, float):
        text = repr(value)  # Cypher has no exponent notation: 1e-07, 1e+300 stay parameters
        return text if math.isfinite(value) and "e" not in text else None
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list | tuple) and 0 < len(value) <= MAX_LIST:
        items = [literal(v) for v in value]
        if any(i is None for i in items) or len({type(v) for v in value}) != 1:
            return None
        return "[" + ", ".join(i for i in items if i is not None) + "]"
    return None


def inline(query: str, params: Mapping[str, Any]) -> str | None:
    """``query`` with each ``$name`` replaced by the literal of ``params[name]``; None when a
    value has no exact literal or the query names a parameter that is not given."""
    lits: dict[str, str] = {}
    for name, value in params.items():
        lit = literal(value)
        if lit is None:
            return None
        lits[name] = lit
    missing = False

    def sub(m: re.Match[str]) -> str:
        nonlocal missing
        if m.group(1) not in lits:
            missing = True
            return m.group(0)
        return lits[m.group(1)]

    out = _PARAM.sub(sub, query)
    return None if missing else out
