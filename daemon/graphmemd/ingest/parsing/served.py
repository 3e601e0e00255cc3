"""Whether a module still serves a name it no longer defines, read with tree-sitter.

A name removed from a module often keeps working: the module answers for it lazily, usually
with a deprecation warning — Python's module-level ``__getattr__`` (PEP 562)::

    def __getattr__(name):
        if name == "get_binary_stream":
            from .utils import _get_binary_stream
            warnings.warn("'get_binary_stream' is deprecated ...", DeprecationWarning)
            return _get_binary_stream
        raise AttributeError(name)

``served`` parses one module's text (as it is now, at check time: never in the parse path)
with its language's grammar and runs the language's served query over it
(``queries/served/<language>.scm``: the hook, its ``if``/``elif`` branches, the tests that
select a name, collections, returns, imports); the rules that are not syntax (the hook's
name, a method's first parameters, what a warning looks like) are ``graph/data/served.toml``
(``graph.served``). It finds the first branch of the hook whose test selects the name — by
equality, a literal collection or a collection named at the module's level or in the hook
(a dictionary's keys, whose value then counts as the branch's message) — and reads whether
it warns, its text (adjacent literals joined), and what it returns and from which module.
A language without rules or a query serves nothing lazily.
"""

from __future__ import annotations

import functools
import importlib
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query, QueryCursor

from graphmemd.graph.model import Language
from graphmemd.graph.served import Served, ServeRules
from graphmemd.ingest.parsing.languages import SPECS

__all__ = ["served"]

_Captures = dict[str, list[Node]]


@dataclass(frozen=True, slots=True)
class _Compiled:
    parser: Parser
    query: Query


@functools.cache
def _compiled(language: Language) -> _Compiled | None:
    """The language's parser and served query (None: the language has no query)."""
    source = resources.files(__package__).joinpath("queries", "served", f"{language.value}.scm")
    if not source.is_file():
        return None
    spec = SPECS[language]
    grammar = getattr(importlib.import_module(spec.grammar_module), spec.grammar_function)
    ts_language = TSLanguage(grammar())
    return _Compiled(Parser(ts_language), Query(ts_language, source.read_text("utf-8")))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte and node.end_byte <= outer.end_byte


def _string_value(node: Node) -> str | None:
    """A plain string literal's content (None for an f-string or anything else)."""
    if node.type != "string" or any(c.type == "interpolation" for c in node.children):
        return None
    parts = [c for c in node.children if c.type not in ("string_start", "string_end")]
    return "".join(_text(c) for c in parts)


def _name_in(node: Node) -> str | None:
    value = _string_value(node)
    return value if value and value.isidentifier() else None


def _keys(collection: Node) -> dict[str, str]:
    """The names a literal collection holds (a dictionary's keys), each with its value's text
    when that is a string (a dictionary of messages), else ""."""
    out: dict[str, str] = {}
    for child in collection.named_children:
        key, value = (child.child_by_field_name("key"), child.child_by_field_name("value"))
        if child.type == "pair" and key is not None:
            name = _name_in(key)
            if name is not None:
                out[name] = (_string_value(value) or "") if value is not None else ""
        elif (name := _name_in(child)) is not None:
            out[name] = ""
    return out


def _is_module_level(node: Node) -> bool:
    """Whether a definition is at the module's level (under ``if``/``try`` at most), not in a
    class or another function."""
    parent = node.parent
    while parent is not None and parent.type != "module":
        if parent.type in ("class_definition", "function_definition", "lambda"):
            return False
        parent = parent.parent
    return True


def _hook(caps: _Captures, rules: ServeRules) -> tuple[Node, str, Node] | None:
    """The module's lazy hook: (its definition, its parameter, its body)."""
    for hook, name, param, body in zip(
        caps["hook"], caps["hook.name"], caps["hook.param"], caps["hook.body"], strict=True
    ):
        if _text(name) == rules.hook_name and _is_module_level(hook) and _text(param) not in rules.method_params:
            return hook, _text(param), body
    return None


def _pairs(caps: _Captures, left: str, right: str) -> list[tuple[Node, Node]]:
    """The (left, right) captures of one test shape, matched by their common parent."""
    by_parent = {n.parent.id: n for n in caps[right] if n.parent is not None}
    return [(n, by_parent[n.parent.id]) for n in caps[left] if n.parent is not None and n.parent.id in by_parent]


def _selects(test: Node, caps: _Captures, param: str, name: str, hook: Node) -> str | None:
    """Whether ``test`` selects ``name``: None if not, else the message the name's entry in a
    dictionary of messages carries ("" when none)."""
    for p, lit in _pairs(caps, "test.param", "test.name"):
        if _inside(p, test) and _text(p) == param and _name_in(lit) == name:
            return ""
    for p, coll in _pairs(caps, "test.param", "test.collection"):
        if _inside(p, test) and _text(p) == param and name in (keys := _keys(coll)):
            return keys[name]
    for p, table in _pairs(caps, "test.param", "test.table"):
        if not (_inside(p, test) and _text(p) == param):
            continue
        for defined, value in zip(caps["table.name"], caps["table.value"], strict=True):
            where = _inside(defined, hook) or _is_module_level(defined)
            if where and _text(defined) == _text(table) and name in (keys := _keys(value)):
                return keys[name]
    return None


def _joined(branch: Node, caps: _Captures) -> str:
    """The branch's text with each run of adjacent string literals written as one literal."""
    start, raw = branch.start_byte, branch.text or b""
    runs = sorted((n for n in caps["string.joined"] if _inside(n, branch)), key=lambda n: n.start_byte)
    out, at = [], 0
    for run in runs:
        if run.start_byte - start < at:
            continue  # inside a run already joined
        values = [_string_value(s) for s in run.named_children]
        if any(v is None for v in values):
            continue
        out.append(raw[at : run.start_byte - start].decode("utf-8", errors="replace"))
        out.append('"' + "".join(v or "" for v in values) + '"')
        at = run.end_byte - start
    out.append(raw[at:].decode("utf-8", errors="replace"))
    return "".join(out)


def _source(branch: Node, caps: _Captures, returns: str) -> str:
    """The module ``returns`` is imported from: in the branch, else anywhere in the module."""
    local = returns.split(".", 1)[0]
    imports: list[tuple[Node, str]] = []
    alias_of = {a.parent.id: _text(a) for a in caps["import.alias"] if a.parent is not None}
    for module, imported in zip(caps["import.module"], caps["import.name"], strict=True):
        bound = alias_of.get(imported.parent.id, _text(imported)) if imported.parent is not None else ""
        if bound == local:
            imports.append((module, _text(module)))
    imports.sort(key=lambda m: not _inside(m[0], branch))  # the branch's own import first
    return imports[0][1] if imports else ""


def _captures(compiled: _Compiled, root: Node) -> _Captures:
    """Every capture of the served query over the module, each name's nodes in source order
    (a pattern's captures stay aligned: one per match)."""
    caps: _Captures = defaultdict(list)
    for _, match in QueryCursor(compiled.query).matches(root):
        for capture, nodes in match.items():
            caps[capture].extend(nodes)
    return caps


def served(text: str, name: str, language: Language | None, rules: ServeRules) -> Served | None:
    """The branch of ``text``'s lazy hook that serves ``name`` (it returns something), or
    None (no hook, no test of the name, or a branch that only raises)."""
    compiled = _compiled(language) if language is not None else None
    if compiled is None:
        return None
    caps = _captures(compiled, compiled.parser.parse(text.encode("utf-8")).root_node)
    found = _hook(caps, rules)
    if found is None:
        return None
    hook, param, body = found
    branches = sorted(
        (b for b in zip(caps["branch"], caps["branch.test"], caps["branch.body"], strict=True) if _inside(b[0], body)),
        key=lambda b: b[0].start_byte,
    )
    for _, test, block in branches:
        message = _selects(test, caps, param, name, hook)
        if message is None:
            continue
        returned = sorted((r for r in caps["return"] if _inside(r, block)), key=lambda r: r.start_byte)
        if not returned:
            return None  # it answers for the name only to refuse it (raises)
        named = [r for r in caps["return.name"] if r.parent is not None and r.parent.id == returned[0].id]
        returns = _text(named[0]) if named else ""
        said = _joined(block, caps)
        whole = "\n".join(x for x in (message, _text(test), said) if x)
        return Served(
            name=name,
            hook=rules.hook_name,
            line=hook.start_point[0] + 1,
            warns=rules.warns.search(said) is not None or rules.warns.search(message) is not None,
            text=whole,
            returns=returns,
            source=_source(block, caps, returns) if returns else "",
        )
    return None
