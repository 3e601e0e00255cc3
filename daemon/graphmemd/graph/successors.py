"""Where a deprecation message says a name went (pure).

A name removed from the code often leaves a message behind, in the old class before it went
or in the module ``__getattr__`` that still serves it: ``warnings.warn("'RequestContext' has
merged with 'AppContext' ... Use 'AppContext' instead.", DeprecationWarning)``. Read near a
warning or a deprecation that mentions the old name, such a message names the successor a
reader should use; whether that name is code is for the resolution to decide.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["successors"]

_HINT: Final = re.compile(
    r"\b(?:use|replaced\s+by|renamed\s+to|merged\s+(?:with|into)|superseded\s+by|in\s+favou?r\s+of|moved\s+to)"
    r"\s+(?:the\s+)?[`'\"]?([A-Za-z_][\w.]*)",
    re.IGNORECASE,
)
_NEAR: Final = re.compile(r"warn|deprecat", re.IGNORECASE)
#: lines around a warning read as one message (a message split over concatenated literals)
_WINDOW: Final = 3


def successors(text: str, old: str) -> list[str]:
    """The names deprecation messages near a mention of ``old`` (its last dotted part) in
    ``text`` point to, in order of appearance; never ``old`` itself."""
    last = old.rsplit(".", 1)[-1]
    word = re.compile(rf"(?<![\w.]){re.escape(last)}\b")
    lines = text.split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        if not _NEAR.search(line):
            continue
        window = "\n".join(lines[max(0, i - _WINDOW) : i + _WINDOW + 1])
        if not word.search(window):
            continue
        for m in _HINT.finditer(window):
            name = m.group(1).rstrip(".")
            if name.rsplit(".", 1)[-1] != last and name not in out:
                out.append(name)
    return out
