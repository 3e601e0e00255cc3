"""Markdown (CommonMark, GFM tables, front matter, MyST roles and directive fences) -> units
with the references they contain, at exact line:column spans (pure: text in, units out).

markdown-it-py maps blocks to lines but not inline tokens to columns, so every inline rule
is wrapped to record the content offsets of the tokens it pushes (``_record_positions``);
an offset is then mapped back to the source through each content line's origin in the
source line (containers strip indentation, ``>`` and list markers). Units: headings,
paragraphs outside lists, list items (up to their first nested list), table rows, MyST
directive fences naming code (```{autofunction} attr.define```); ```{eval-rst}``` fences
are read by the reStructuredText reader at their own lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from markdown_it import MarkdownIt
from markdown_it.helpers import parseLinkDestination, parseLinkLabel
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from graphmemd.ingest.knowledge.classify import classify_code, clean_name, in_section, link_target
from graphmemd.ingest.knowledge.model import RefKind, Span, TargetKind, TextRef, Unit, UnitKind
from graphmemd.ingest.knowledge.roles import CODE_DIRECTIVES, MODULE_DIRECTIVES, role_target

__all__ = ["extract_markdown"]


def _record_positions(fn: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """An inline rule that also records [start, end) content offsets of the tokens it pushes."""

    def rule(state: StateInline, silent: bool) -> bool:
        start, n = state.pos, len(state.tokens)
        ok = fn(state, silent)
        if ok and not silent:
            for t in state.tokens[n:]:
                if t.type != "text" and "pos" not in t.meta:
                    t.meta = {**t.meta, "pos": (start, state.pos)}
        return ok

    return rule


@functools.cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"inline_definitions": True}).enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(myst_role_plugin)
    for r in list(md.inline.ruler.__rules__):  # after every plugin: wrap them all
        md.inline.ruler.at(r.name, _record_positions(r.fn), {"alt": r.alt})
    return md


@dataclass(slots=True)
class _Open:
    """A unit being built while the tokens stream by."""

    kind: UnitKind
    start: int  # 0-based first line
    end: int  # 0-based line after the last
    heading_path: tuple[str, ...]
    refs: list[TextRef] = field(default_factory=list)
    truncated: bool = False


class _Origins:
    """Where each line of an inline token's content starts in the source (0-based line,
    0-based column), with a character map for a table cell whose ``\\|`` became ``|``."""

    def __init__(self, tok: Token, lines: Sequence[str], cursor: dict[int, int]) -> None:
        assert tok.map is not None
        l0, l1 = tok.map
        self.content = tok.content
        self.origins: list[tuple[int, int, list[int] | None]] = []
        for k, cl in enumerate(tok.content.split("\n")):
            ln = min(l0 + k, l1 - 1)
            s = lines[ln] if ln < len(lines) else ""
            core = cl.rstrip()
            chars: list[int] | None = None
            if core and s.rstrip().endswith(core) and ln not in cursor:
                col = len(s.rstrip()) - len(core)
            else:  # a table cell, a heading with closing #s: search left to right
                col = s.find(cl, cursor.get(ln, 0)) if cl else -1
                if col < 0 and "|" in cl:
                    chars = _align_escaped(cl, s, cursor.get(ln, 0))
                    col = chars[0] if chars else -1
                if col < 0:
                    col = len(s) - len(s.lstrip())
            cursor[ln] = chars[-1] if chars else col + len(cl)
            self.origins.append((ln, col, chars))

    def at(self, off: int) -> tuple[int, int]:
        """(1-based line, 1-based column) of content offset ``off``."""
        k = self.content.count("\n", 0, off)
        line_start = self.content.rfind("\n", 0, off) + 1
        ln, col, chars = self.origins[k]
        if chars is not None:
            return ln + 1, chars[off - line_start] + 1
        return ln + 1, col + (off - line_start) + 1

    def span(self, start: int, end: int) -> Span:
        """The source span of content offsets [start, end)."""
        a, b = self.at(start), self.at(end)
        return Span(a[0], a[1], b[0], b[1])


def _align_escaped(cl: str, s: str, start: int) -> list[int] | None:
    """The source column of each character of a table cell's content (and one past its end),
    where each ``|`` of the content is written ``\\|``; None when it is not there."""
    for c0 in range(start, len(s)):
        out: list[int] = []
        j = c0
        for ch in cl:
            if j < len(s) and s[j] == ch:
                out.append(j)
                j += 1
            elif ch == "|" and s.startswith("\\|", j):
                out.append(j + 1)
                j += 2
            else:
                break
        else:
            out.append(j)
            return out
    return None


def _code_ref(tok: Token, child: Token, origins: _Origins, start: int, end: int) -> TextRef | None:
    """A code span (the span of its content, without the backticks) or a MyST role (the
    whole role, ``{func}`x``` as written)."""
    if child.type == "myst_role":
        role = str(child.meta.get("name", ""))
        got = role_target(role, child.content)
        if got is None:
            return None
        return TextRef(RefKind.ROLE, got[0], tok.content[start:end], got[1], origins.span(start, end), role=role)
    ticks = len(child.markup)
    cs, ce = start + ticks, end - ticks
    inner = tok.content[cs:ce]
    if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip(" "):
        cs, ce = cs + 1, ce - 1
    found = classify_code(child.content)
    if found is None:
        return None
    return TextRef(RefKind.CODE, found[0], tok.content[cs:ce], found[1], origins.span(cs, ce), line=found[2])


def _link_ref(tok: Token, child: Token, origins: _Origins, start: int, end: int, doc_path: str) -> TextRef | None:
    """A link to a repository file: the span of its destination (the whole link when it is
    a reference link)."""
    href = str(child.attrs.get("href") or child.attrs.get("src") or "")
    target = link_target(href, doc_path)
    if target is None:
        return None
    ds, de = start, end
    if child.markup != "autolink":
        content = tok.content
        at = start + (1 if child.type == "image" else 0)
        state = StateInline(content, _parser(), {}, [])
        label_end = parseLinkLabel(state, at, True)
        if label_end >= 0 and label_end + 1 < end and content[label_end + 1] == "(":
            p = label_end + 2
            while p < end and content[p] in " \t\n":
                p += 1
            found = parseLinkDestination(content, p, end)
            if found.ok:
                ds, de = p, found.pos
    span = origins.span(ds, de)
    return TextRef(RefKind.LINK, TargetKind.PATH, tok.content[ds:de], target[0], span, line=target[1])


def _inline_refs(tok: Token, lines: Sequence[str], cursor: dict[int, int], doc_path: str) -> list[TextRef]:
    origins = _Origins(tok, lines, cursor)
    refs: list[TextRef] = []
    for child in tok.children or ():
        pos = child.meta.get("pos")
        if pos is None:
            continue
        start, end = pos
        ref: TextRef | None = None
        if child.type in ("code_inline", "myst_role"):
            ref = _code_ref(tok, child, origins, start, end)
        elif child.type in ("link_open", "image"):
            ref = _link_ref(tok, child, origins, start, end, doc_path)
        if ref is not None:
            refs.append(ref)
    return refs


def _directive_fence(tok: Token, lines: Sequence[str]) -> TextRef | None:
    """```{autofunction} attr.define``` (a MyST directive naming code): its argument."""
    info = tok.info.strip()
    name, _, arg = info[1:].partition("}")
    arg = arg.strip()
    if name.split(":")[-1] not in CODE_DIRECTIVES or not arg or tok.map is None:
        return None
    target = clean_name(arg.split("(")[0].split()[0])
    if target is None:
        return None
    ln = tok.map[0]
    col = lines[ln].find(arg) if ln < len(lines) else -1
    if col < 0:
        return None
    span = Span(ln + 1, col + 1, ln + 1, col + 1 + len(arg.split()[0]))
    return TextRef(RefKind.DIRECTIVE, TargetKind.SYMBOL, arg.split()[0], target, span, role=name)


def _named(inline: Token) -> str:
    """The class or module a heading names: its first code span or role written as a name
    (``## `Response` class``), else the whole title when it is one name (``## Response``)."""
    for child in inline.children or ():
        got = role_target(str(child.meta.get("name", "")), child.content) if child.type == "myst_role" else None
        if child.type == "code_inline":
            found = classify_code(child.content)
            got = (found[0], found[1]) if found is not None else None
        if got is not None and got[0] is TargetKind.SYMBOL and not got[1].startswith("."):
            return got[1]
    title = inline.content.strip()
    return title if _ONE_NAME.fullmatch(title) else ""


_ONE_NAME: Final = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


class _Builder:
    """Walks the token stream and collects units."""

    def __init__(self, lines: Sequence[str], doc_path: str) -> None:
        self.lines = lines
        self.doc_path = doc_path
        self.units: list[_Open] = []
        self.headings: list[str] = []
        self.items: list[_Open] = []
        self.row: _Open | None = None
        self.cursor: dict[int, int] = {}
        self.eval_rst: list[tuple[int, int, tuple[str, ...], str]] = []
        self.module = ""  # a MyST ```{currentmodule} x``` fence in force
        self.scopes: list[str] = []  # per heading level: the class or module the heading names

    def open(self, kind: UnitKind, tok: Token) -> _Open:
        assert tok.map is not None
        u = _Open(kind, tok.map[0], tok.map[1], tuple(self.headings))
        self.units.append(u)
        return u

    def owner(self) -> _Open | None:
        if self.row is not None:
            return self.row
        if self.items:
            return self.items[-1]
        return self.units[-1] if self.units else None

    def token(self, tokens: Sequence[Token], i: int) -> None:
        tok = tokens[i]
        t = tok.type
        if t == "heading_open":
            level = int(tok.tag[1])
            title = tokens[i + 1].content
            self.headings = [*self.headings[: level - 1], *[""] * max(0, level - 1 - len(self.headings)), title]
            self.scopes = [
                *self.scopes[: level - 1],
                *[""] * max(0, level - 1 - len(self.scopes)),
                _named(tokens[i + 1]),
            ]
            self.open(UnitKind.HEADING, tok)
        elif t == "list_item_open":
            self.items.append(self.open(UnitKind.LIST_ITEM, tok))
        elif t == "list_item_close":
            self.items.pop()
        elif t in ("bullet_list_open", "ordered_list_open") and self.items and tok.map is not None:
            outer = self.items[-1]
            if not outer.truncated:
                outer.end, outer.truncated = max(outer.start + 1, tok.map[0]), True
        elif t == "paragraph_open" and not self.items and self.row is None:
            self.open(UnitKind.PARAGRAPH, tok)
        elif t == "tr_open":
            self.row = self.open(UnitKind.TABLE_ROW, tok)
            self.cursor = {}
        elif t == "tr_close":
            self.row = None
        elif t == "fence":
            self.fence(tok)
        elif t == "inline" and tok.map:
            owner = self.owner()
            if owner is not None:
                cursor = self.cursor if self.row is not None else {}  # cells of a row share lines
                refs = _inline_refs(tok, self.lines, cursor, self.doc_path)
                scope = next((x for x in reversed(self.scopes) if x), "")
                listed = owner.kind in (UnitKind.LIST_ITEM, UnitKind.TABLE_ROW)
                owner.refs.extend(in_section(r, self.module, scope, listed) for r in refs)

    def fence(self, tok: Token) -> None:
        info = tok.info.strip()
        name, _, arg = info[1:].partition("}")
        if info.startswith("{eval-rst}") and tok.map is not None:
            self.eval_rst.append((tok.map[0] + 1, tok.map[1] - 1, tuple(self.headings), self.module))
        elif info.startswith("{") and name.split(":")[-1] in MODULE_DIRECTIVES:
            self.module = arg.strip()
        elif info.startswith("{"):
            ref = _directive_fence(tok, self.lines)
            if ref is not None:
                self.open(UnitKind.DIRECTIVE, tok).refs.append(replace(ref, module=self.module))


def _finish(u: _Open, lines: Sequence[str]) -> Unit:
    end = max(u.start + 1, min(u.end, len(lines)))
    while end > u.start + 1 and not lines[end - 1].strip():
        end -= 1
    text = "\n".join(lines[u.start : end]).strip()
    return Unit(u.kind, u.start + 1, end, u.heading_path, text, tuple(u.refs))


def extract_markdown(text: str, doc_path: str, rst_reader: Callable[..., list[Unit]] | None = None) -> list[Unit]:
    """The units of a Markdown file that contain references, in source order. ``rst_reader``
    (``rst.extract_rst``) reads ```{eval-rst}``` fences; without it they are skipped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    tokens = _parser().parse(text)
    b = _Builder(lines, doc_path)
    for i in range(len(tokens)):
        b.token(tokens, i)
    units = [_finish(u, lines) for u in b.units if u.refs]
    if b.eval_rst and rst_reader is not None:
        units.extend(_eval_rst_units(b.eval_rst, lines, doc_path, rst_reader))
        units.sort(key=lambda u: (u.start_line, u.end_line))
    return units


def _eval_rst_units(
    fences: list[tuple[int, int, tuple[str, ...], str]], lines: Sequence[str], doc_path: str, reader: Callable[..., Any]
) -> list[Unit]:
    """Every ```{eval-rst}``` fence body read in one rST parse, every other line blanked, so
    lines and columns are the Markdown file's own (the Markdown ``currentmodule`` applies)."""
    keep: dict[int, tuple[tuple[str, ...], str]] = {}
    for first, last, headings, module in fences:
        for ln in range(first, last):
            keep[ln] = (headings, module)
    masked = "\n".join(line if i in keep else "" for i, line in enumerate(lines))
    out: list[Unit] = []
    for u in reader(masked, doc_path):
        headings, module = keep.get(u.start_line - 1, ((), ""))
        refs = tuple(replace(r, module=r.module or module) for r in u.refs)
        out.append(Unit(u.kind, u.start_line, u.end_line, headings + u.heading_path, u.text, refs))
    return out
