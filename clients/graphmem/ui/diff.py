"""**Pure**: the anchored code before and after as a highlighted unified diff.

Each side is highlighted whole with Pygments (so a string or comment spanning lines is
coloured right), cut into lines of HTML where no ``<span>`` crosses a line end, then laid out
as unified-diff rows: unchanged context, removed, added, with their line numbers in their own
version of the file, long unchanged runs folded into a gap row.
"""

from __future__ import annotations

import difflib
import html
from dataclasses import dataclass
from enum import Enum
from functools import cache

from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.token import STANDARD_TYPES, _TokenType
from pygments.util import ClassNotFound

__all__ = ["CSS_SCOPE", "DiffRow", "RowKind", "diff_rows", "highlight_lines", "stylesheet"]

#: the CSS class the highlighted code lives under
CSS_SCOPE = ".hl"
#: unchanged lines kept around each change
CONTEXT = 3


class RowKind(str, Enum):
    """What a diff row is."""

    CONTEXT = "ctx"
    REMOVED = "del"
    ADDED = "add"
    GAP = "gap"  # unchanged lines folded away


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One row: its kind, its line numbers in the old and new version (0: none), its HTML."""

    kind: RowKind
    old_no: int
    new_no: int
    html: str


@cache
def _lexer(path: str) -> Lexer:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def _css_class(t: _TokenType) -> str:
    while t not in STANDARD_TYPES:
        t = t.parent
    return str(STANDARD_TYPES[t])


def highlight_lines(text: str, path: str) -> list[str]:
    """``text`` highlighted for ``path``'s language, one HTML string per line."""
    if not text:
        return []
    lines: list[list[str]] = [[]]
    for ttype, value in _lexer(path).get_tokens(text):
        cls = _css_class(ttype)
        for i, piece in enumerate(value.split("\n")):
            if i:
                lines.append([])
            if piece:
                esc = html.escape(piece, quote=False)
                lines[-1].append(f'<span class="{cls}">{esc}</span>' if cls else esc)
    out = ["".join(parts) for parts in lines]
    n = len(text.split("\n"))
    return (out + [""] * n)[:n]


def diff_rows(before: str, after: str, path: str, old_start: int = 1, new_start: int = 1) -> list[DiffRow]:
    """The unified diff of ``before`` and ``after`` (either may be empty: added, removed),
    highlighted for ``path``'s language; line numbers count from ``old_start``/``new_start``."""
    old, new = before.split("\n") if before else [], after.split("\n") if after else []
    old_html, new_html = highlight_lines(before, path), highlight_lines(after, path)
    rows: list[DiffRow] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            n = i2 - i1
            before_change, after_change = i1 > 0 or j1 > 0, i2 < len(old) or j2 < len(new)
            keep = [
                k
                for k in range(n)
                if (before_change and k < CONTEXT)
                or (after_change and k >= n - CONTEXT)
                or i1 + k == 0  # the definition's head
                or not (before_change or after_change)  # nothing changed: show it all
            ]
            last = -1
            for k in keep:
                if k != last + 1:
                    rows.append(DiffRow(RowKind.GAP, 0, 0, _unchanged(k - last - 1)))
                rows.append(DiffRow(RowKind.CONTEXT, old_start + i1 + k, new_start + j1 + k, old_html[i1 + k]))
                last = k
            if last != n - 1:
                rows.append(DiffRow(RowKind.GAP, 0, 0, _unchanged(n - 1 - last)))
            continue
        rows += [DiffRow(RowKind.REMOVED, old_start + i, 0, old_html[i]) for i in range(i1, i2)]
        rows += [DiffRow(RowKind.ADDED, 0, new_start + j, new_html[j]) for j in range(j1, j2)]
    return rows


def _unchanged(n: int) -> str:
    return f"{n} unchanged line{'' if n == 1 else 's'}"


def stylesheet(style: str = "default") -> str:
    """The CSS of the highlighting classes under ``CSS_SCOPE``."""
    return str(HtmlFormatter(style=style).get_style_defs(CSS_SCOPE))
