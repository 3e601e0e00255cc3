"""Whether the text around a reference says the name it writes is old (pure).

Prose about history names old code on purpose: "The :exc:`MarshallingError` and
:exc:`UnmarshallingError` exceptions are deprecated in favor of …", "Serialized output is no
longer an `OrderedDict` by default". A reference to a name gone from the code in such a
sentence asks for no change. The words are data (``data/historical.toml``, English).

The window read: the sentence holding the reference (up to the nearest ``.``, ``!`` or ``?``
followed by a space, or a blank line, either side) and the title of the unit's section; in
a code example, only the reference's own line (a comment there: ``f()  # deprecated``).
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import resources
from typing import Final

from graphmemd.ingest.knowledge.model import Span, Unit, UnitKind

__all__ = ["says_old"]

_END: Final = re.compile(r"[.!?](?=\s)|\n[ \t]*\n")


@cache
def _words() -> re.Pattern[str]:
    text = resources.files(__package__).joinpath("data", "historical.toml").read_text("utf-8")
    phrases = [p for t in tomllib.loads(text).values() for p in t.get("phrases", ())]
    alternatives = "|".join(r"\s+".join(map(re.escape, p.split())) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


def _offset(unit: Unit, span: Span) -> int | None:
    """Where ``span`` starts in ``unit.text`` (None: outside it)."""
    lines = unit.text.split("\n")
    i = span.line - unit.start_line
    if not 0 <= i < len(lines):
        return None
    return sum(len(line) + 1 for line in lines[:i]) + max(span.column - 1, 0)


def window(unit: Unit, span: Span) -> str:
    """The text read around a reference at ``span`` (see the module docstring)."""
    at = _offset(unit, span)
    if at is None:
        return ""
    text = unit.text
    if unit.kind is UnitKind.EXAMPLE:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        return text[start : end if end >= 0 else len(text)]
    before = [m.end() for m in _END.finditer(text, 0, at)]
    after = _END.search(text, at)
    sentence = text[before[-1] if before else 0 : after.start() if after is not None else len(text)]
    title = unit.heading_path[-1] if unit.heading_path else ""
    return f"{title}\n{sentence}"


def says_old(unit: Unit, span: Span) -> bool:
    """Whether the text around the reference at ``span`` of ``unit`` says a name is old."""
    return _words().search(window(unit, span)) is not None
