"""reStructuredText (with Sphinx roles and directives, no Sphinx needed) -> units with the
references they contain, at exact line:column spans (pure: text in, units out).

docutils parses; Sphinx's roles (``:func:`` …) and directives (``autofunction`` …) are
registered as stand-ins that keep their target, other Sphinx directives either keep their
content as rST (``versionadded``, ``note`` …) or as code (``code-block``, ``doctest`` …).
docutils reports a line per block but no columns, so the inliner's dispatch is wrapped to
record each inline node's offsets in the text it parsed, mapped back to the source through
each text line's place in its source line. System messages are silenced; nothing is read
from disk (``include`` and ``raw`` are disabled). Not re-entrant across threads (docutils
keeps its role registry global): the daemon reads knowledge files on its indexer thread.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final

import docutils.frontend
import docutils.utils
from docutils import nodes
from docutils.parsers.rst import Directive, Parser, directives, roles, states
from docutils.utils import escape2null, unescape

from graphmemd.ingest.knowledge.classify import classify_code, clean_name, in_section
from graphmemd.ingest.knowledge.model import RefKind, Span, TargetKind, TextRef, Unit, UnitKind
from graphmemd.ingest.knowledge.roles import (
    CLASS_DIRECTIVES,
    CODE_DIRECTIVES,
    CODE_ROLES,
    FILE_ROLES,
    MODULE_DIRECTIVES,
    OTHER_ROLES,
    role_target,
)

__all__ = ["extract_rst"]


class xref(nodes.Inline, nodes.TextElement):
    """Stand-in for Sphinx's ``pending_xref``: a role's target."""


class objdirective(nodes.Element):
    """Stand-in for an autodoc / py-domain directive."""


def _xref_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    return [xref(rawtext, unescape(text), role=name, raw=rawtext)], []


_CODE_BLOCKS = (
    "code-block", "sourcecode", "code", "doctest", "testcode", "testoutput", "testsetup", "testcleanup",
    "ipython", "literalinclude", "highlight", "click:example", "click:run", "jupyter-execute", "graphviz",
    "mermaid", "math", "raw", "include", "csv-table", "toctree", "autosummary", "tabularcolumns",
    "productionlist", "index",
)  # fmt: skip
_CONTAINERS = (
    "versionadded", "versionchanged", "deprecated", "versionremoved", "seealso", "tabs", "tab",
    "group-tab", "code-tab", "only", "ifconfig", "glossary", "rubric", "centered", "hlist", "card",
    "grid", "grid-item-card", "dropdown", "tab-set", "tab-item", "todo",
)  # fmt: skip


class _AnyOptions(dict[str, Any]):
    """An option spec accepting every option (``:members:``, ``:noindex:`` …)."""

    def __missing__(self, key: str) -> Callable[[str], str]:
        return directives.unchanged

    def __bool__(self) -> bool:
        return True


class _Base(Directive):
    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[Any] = _AnyOptions()
    has_content = True

    def _node(self, kind: str) -> objdirective:
        arg = self.arguments[0] if self.arguments else ""
        members = self.options.get("members") or ""
        return objdirective(
            self.block_text, kind=kind, dname=self.name, argument=arg, start_line=self.lineno, members=members
        )


class _ObjectDirective(_Base):
    def run(self) -> list[nodes.Node]:
        n = self._node("object")
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, n)
        return [n]


class _CodeDirective(_Base):
    def run(self) -> list[nodes.Node]:
        return [self._node("code")]


class _ContainerDirective(_Base):
    optional_arguments = 0  # the argument line is then content, parsed at its own lines

    def run(self) -> list[nodes.Node]:
        n = self._node("container")
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, n)
        return [n]


@functools.cache
def _register() -> None:
    """Register the Sphinx stand-ins with docutils (once per process)."""
    for r in (*CODE_ROLES, *FILE_ROLES, *OTHER_ROLES):
        roles.register_local_role(r, _xref_role)  # type: ignore[arg-type]
        if ":" not in r:
            roles.register_local_role("py:" + r, _xref_role)  # type: ignore[arg-type]
    for d in (*CODE_DIRECTIVES, *MODULE_DIRECTIVES):
        directives.register_directive(d, _ObjectDirective)
        directives.register_directive("py:" + d, _ObjectDirective)
    for d in _CODE_BLOCKS:
        directives.register_directive(d, _CodeDirective)
    for d in _CONTAINERS:
        directives.register_directive(d, _ContainerDirective)


@functools.cache
def _settings() -> Any:
    settings = docutils.frontend.get_default_settings(Parser)
    values = {
        "report_level": 5, "halt_level": 5, "warning_stream": False, "file_insertion_enabled": False,
        "raw_enabled": False, "syntax_highlight": "none", "smart_quotes": False,
        "character_level_inline_markup": False, "pep_references": False, "rfc_references": False,
        "line_length_limit": 1_000_000,
    }  # fmt: skip
    for k, v in values.items():
        setattr(settings, k, v)
    return settings


class _Positions:
    """The inliner's record of where each inline node is in the text it parsed."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, int]] = []
        self.texts: list[tuple[str, int]] = []  # (text, lineno) per parse call

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def method(inliner: Any, match: re.Match[str], lineno: int) -> Any:
            full, tid = self.stack[-1]
            base = len(full) - len(match.string)  # match.string is the text still to parse
            before, inlines, remaining, msgs = fn(inliner, match, lineno)
            start, end = base + len(before), len(full) - len(remaining)
            for n in inlines:
                if isinstance(n, nodes.Element) and "span" not in n:
                    n["span"], n["text_id"] = (start, end), tid
            return before, inlines, remaining, msgs

        return method

    def inliner(self) -> states.Inliner:
        inl = states.Inliner()
        inl.dispatch = {k: self.wrap(v) for k, v in states.Inliner.dispatch.items()}
        parse = inl.parse

        def recorded(text: str, lineno: int, memo: Any, parent: Any) -> Any:
            self.stack.append((escape2null(text), len(self.texts)))
            self.texts.append((text, lineno))
            try:
                return parse(text, lineno, memo, parent)
            finally:
                self.stack.pop()

        inl.parse = recorded  # type: ignore[method-assign]
        return inl


def _line_col0(s: str, tl: str) -> int:
    """Where the indent-stripped text line ``tl`` starts in source line ``s`` (-1: not there)."""
    core, rs = tl.rstrip(), s.rstrip()
    if rs.endswith(core):
        return len(rs) - len(core)
    if rs.endswith("::"):  # 'text ::' became 'text', 'text::' became 'text:'
        base = rs[:-1] if core.endswith(":") else rs[:-2].rstrip()
        if base.endswith(core):
            return len(base) - len(core)
    return s.find(core) if core else -1


def _block_start(src: Sequence[str], text_lines: Sequence[str], hint: int) -> int | None:
    """The 0-based first source line of a block whose stripped lines are ``text_lines``."""
    n = len(text_lines)
    for first in (hint, hint - (n - 1), hint - 1, hint + 1, hint - 2, hint + 2):
        fits = first >= 0 and first + n <= len(src)
        if fits and all(_line_col0(src[first + k], tl) >= 0 for k, tl in enumerate(text_lines)):
            return first
    return None


def _locate(src: Sequence[str], text: str, lineno: int, off: int) -> tuple[int, int] | None:
    """(1-based line, 1-based column) of offset ``off`` of a text the inliner parsed."""
    tl = text.split("\n")
    first = _block_start(src, tl, lineno - 1)
    if first is None:
        return None
    k = text.count("\n", 0, off)
    line_start = text.rfind("\n", 0, off) + 1
    return first + k + 1, _line_col0(src[first + k], tl[k]) + (off - line_start) + 1


@dataclass(frozen=True, slots=True)
class _Ctx:
    src: Sequence[str]
    pos: _Positions
    doc_path: str


def _span(ctx: _Ctx, node: nodes.Element, trim: tuple[int, int] = (0, 0)) -> tuple[Span, str] | None:
    tid = node.get("text_id")
    if tid is None:
        return None
    text, lineno = ctx.pos.texts[tid]
    s, e = node["span"]
    s, e = s + trim[0], e - trim[1]
    a, b = _locate(ctx.src, text, lineno, s), _locate(ctx.src, text, lineno, e)
    if a is None or b is None:
        return None
    return Span(a[0], a[1], b[0], b[1]), text[s:e]


def _inline_ref(ctx: _Ctx, node: nodes.Element, module: str) -> TextRef | None:
    """The reference an inline node makes: a role, a ``literal`` or a `default-role` text."""
    if isinstance(node, xref):
        role = str(node["role"]) or "any"  # the document's default-role
        got = role_target(role, node.astext())
        where = _span(ctx, node)
        if got is None or where is None:
            return None
        return TextRef(RefKind.ROLE, got[0], where[1], got[1], where[0], role=role, module=module)
    trim = (2, 2) if isinstance(node, nodes.literal) else (1, 1)
    found = classify_code(node.astext())
    where = _span(ctx, node, trim)
    if found is None or where is None or where[1].strip() != node.astext().strip():
        return None
    return TextRef(RefKind.CODE, found[0], where[1], found[1], where[0], line=found[2], module=module)


_UNIT_NODES = (
    nodes.paragraph,
    nodes.title,
    nodes.definition_list_item,
    nodes.field,
    nodes.entry,
    nodes.line,
)
_KIND_OF = {
    nodes.paragraph: UnitKind.PARAGRAPH,
    nodes.title: UnitKind.HEADING,
    nodes.definition_list_item: UnitKind.DEFINITION,
    nodes.field: UnitKind.DEFINITION,
    nodes.entry: UnitKind.TABLE_ROW,
    nodes.line: UnitKind.PARAGRAPH,
}


def _unit_node(node: nodes.Node) -> nodes.Element | None:
    p: nodes.Node | None = node
    while p is not None and not isinstance(p, _UNIT_NODES):
        p = p.parent
    return p if isinstance(p, nodes.Element) else None


def _term_line(owner: nodes.Element) -> int | None:
    """The line of the term a definition's first paragraph defines (None for any other unit):
    Sphinx's "**location**" over "Where the message emitted." was a unit without the word it
    defines."""
    item = owner.parent.parent if owner.parent is not None else None
    if not isinstance(item, nodes.definition_list_item) or _first_paragraph(item) is not owner:
        return None
    return item.line if isinstance(item.line, int) else None


def _first_paragraph(item: nodes.definition_list_item) -> nodes.paragraph | None:
    """The first paragraph of a definition list item's definition, if it starts with one."""
    definition = next((c for c in item.children if isinstance(c, nodes.definition)), None)
    if definition is None or not definition.children or not isinstance(definition[0], nodes.paragraph):
        return None
    return definition[0]


def _headings(node: nodes.Node) -> tuple[str, ...]:
    out: list[str] = []
    p = node.parent
    while p is not None:
        if isinstance(p, nodes.section) and p.children and isinstance(p[0], nodes.title):
            out.append(p[0].astext())
        p = p.parent
    return tuple(reversed(out))


def _unit_lines(ctx: _Ctx, node: nodes.Element, refs: Sequence[TextRef]) -> tuple[int, int]:
    """The 1-based first and last line of a unit node (its refs' lines when docutils has none)."""
    raw = node.rawsource.rstrip("\n") if node.rawsource else node.astext()
    n = raw.count("\n") + 1
    line = node.line or next((c.line for c in node.findall(nodes.Element) if c.line), None)
    lo = min(r.span.line for r in refs)
    hi = max(r.span.end_line for r in refs)
    if line is None:
        return lo, hi
    hint = line - 2 if isinstance(node, nodes.title) else line - 1
    first = _block_start(ctx.src, raw.split("\n")[:1], hint)
    start = first + 1 if first is not None else lo
    return min(start, lo), max(start + n - 1, hi)


def _scope(node: nodes.Node) -> str:
    """The class whose directive body (``.. autoclass:: Foo`` / ``.. class:: Foo`` with
    content) ``node`` is in: its members are documented relative to it."""
    p = node.parent
    while p is not None:
        if isinstance(p, objdirective) and str(p["dname"]).split(":")[-1] in CLASS_DIRECTIVES:
            arg = str(p["argument"]).split("\n")[0].strip()
            name = clean_name(arg.split("(")[0].split()[0]) if arg.split() else None
            return name or ""
        p = p.parent
    return ""


def _directive_ref(ctx: _Ctx, node: objdirective, module: str) -> TextRef | None:
    ln = int(node["start_line"])
    arg = str(node["argument"]).split("\n")[0].strip()
    if not arg or ln > len(ctx.src):
        return None
    s = ctx.src[ln - 1]
    col = s.find(arg, s.find("::") + 2)
    name = clean_name(arg.split("(")[0].split()[0]) if arg.split() else None
    if col < 0 or name is None:
        return None
    word = arg.split("(")[0].split()[0]
    span = Span(ln, col + 1, ln, col + 1 + len(word))
    return TextRef(RefKind.DIRECTIVE, TargetKind.SYMBOL, word, name, span, role=str(node["dname"]), module=module)


#: autodoc directives whose ``:members:`` option may list the members it documents
_MEMBER_LISTS: Final = frozenset({"autoclass", "autoexception", "automodule"})
_OPTION: Final = re.compile(r"^\s+:([\w-]+):")
_MEMBER_NAME: Final = re.compile(r"[A-Za-z_]\w*")


def _member_unit(ctx: _Ctx, node: objdirective, module: str) -> Unit | None:
    """The unit of an autodoc directive's explicit ``:members: a, b`` list: a reference to each
    member it names (relative to the class, or in the module), for Sphinx documents exactly
    those (a member gone from the code is a hole in the docs)."""
    name = str(node["dname"]).split(":")[-1]
    if name not in _MEMBER_LISTS or not str(node.get("members", "")).strip():
        return None
    arg = str(node["argument"]).split("\n")[0].strip()
    word = arg.split("(")[0].split()[0] if arg.split() else ""
    if name == "automodule":
        scope, module = "", word
    else:
        scope = clean_name(word) or ""
        if not scope:
            return None
    lines = _option_lines(ctx.src, int(node["start_line"]), "members")
    refs: list[TextRef] = []
    for ln in lines:
        s = ctx.src[ln - 1]
        start = s.find(":members:") + len(":members:") if ln == lines[0] else 0
        for m in _MEMBER_NAME.finditer(s, start):
            target = "." + m.group() if scope else m.group()
            span = Span(ln, m.start() + 1, ln, m.end() + 1)
            refs.append(TextRef(RefKind.DIRECTIVE, TargetKind.SYMBOL, m.group(), target, span,
                                role=f"{name}:members", module=module, scope=scope))  # fmt: skip
    if not refs:
        return None
    body = "\n".join(ctx.src[ln - 1] for ln in lines).strip()
    return Unit(UnitKind.DIRECTIVE, lines[0], lines[-1], _headings(node), body, tuple(refs))


def _option_lines(src: Sequence[str], directive_line: int, option: str) -> list[int]:
    """The 1-based lines of a directive's ``:option:`` (its value may go on over more indented
    lines), found among the option lines right after the directive's line; [] when absent."""
    out: list[int] = []
    indent = -1
    for ln in range(directive_line + 1, len(src) + 1):
        s = src[ln - 1]
        m = _OPTION.match(s)
        if out:
            if m is None and s.strip() and len(s) - len(s.lstrip()) > indent:
                out.append(ln)  # the value goes on
                continue
            break
        if m is None:
            if s.strip():
                break  # the options end at the first line that is not one
            continue
        if m.group(1) == option:
            out.append(ln)
            indent = len(s) - len(s.lstrip())
    return out


def extract_rst(text: str, doc_path: str) -> list[Unit]:
    """The units of a reStructuredText file that contain references, in source order."""
    _register()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    roles._roles.pop("", None)  # type: ignore[attr-defined]  # a default-role of the last file
    pos = _Positions()
    doc = docutils.utils.new_document(doc_path, copy.copy(_settings()))
    Parser(inliner=pos.inliner()).parse(text, doc)
    ctx = _Ctx(text.split("\n"), pos, doc_path)
    module = ""
    grouped: dict[int, tuple[nodes.Element, list[TextRef]]] = {}
    units: list[Unit] = []
    kinds = (xref, nodes.literal, nodes.title_reference, objdirective)
    for node in doc.findall(lambda n: isinstance(n, kinds)):
        assert isinstance(node, nodes.Element)
        if isinstance(node, objdirective):
            name = str(node["dname"]).split(":")[-1]
            member_list = _member_unit(ctx, node, module)
            if member_list is not None:
                units.append(member_list)
            if name in MODULE_DIRECTIVES:
                module = str(node["argument"]).strip()
            elif node["kind"] == "object":
                ref = _directive_ref(ctx, node, module)
                scope = _scope(node)
                if ref is not None and scope:  # a member documented in its class's body
                    ref = replace(ref, scope=scope, target="." + ref.target if "." not in ref.target else ref.target)
                if ref is not None:
                    ln = ref.span.line
                    units.append(Unit(UnitKind.DIRECTIVE, ln, ln, _headings(node), ctx.src[ln - 1].strip(), (ref,)))
            continue
        ref = _inline_ref(ctx, node, module)
        owner = _unit_node(node)
        if isinstance(owner, nodes.definition_list_item):  # a term's reference: one unit with its definition's
            owner = _first_paragraph(owner) or owner  # first paragraph (``_term_line``)
        if ref is not None and owner is not None:
            listed = isinstance(owner.parent, nodes.list_item) or isinstance(owner, nodes.entry)
            ref = in_section(ref, module, _scope(node), listed)
            grouped.setdefault(id(owner), (owner, []))[1].append(ref)
    for owner, refs in grouped.values():
        start, end = _unit_lines(ctx, owner, refs)
        kind = _KIND_OF.get(type(owner), UnitKind.PARAGRAPH)
        term = _term_line(owner)
        if term is not None:  # a definition's first paragraph: with its term
            start, kind = min(start, term), UnitKind.DEFINITION
        body = "\n".join(ctx.src[start - 1 : end]).strip()
        if isinstance(owner.parent, nodes.list_item) and kind is UnitKind.PARAGRAPH:
            kind = UnitKind.LIST_ITEM
        units.append(Unit(kind, start, end, _headings(owner), body, tuple(refs)))
    units.sort(key=lambda u: (u.start_line, u.end_line))
    return units
