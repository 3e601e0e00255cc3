"""Code examples of a knowledge file -> units with the names they use (tree-sitter: run in
the parse workers, ``ParsePool.read_examples``).

The blocks are found and bound by the pure ``ingest.knowledge.examples``; each block is
parsed here with its language's grammar and the language's example query
(``queries/examples/<language>.scm``: data, one per language). Capture vocabulary:
``@import.module`` (with ``@import.alias``), ``@import.name`` (a name imported from
``@import.module``), ``@use`` (a name as used: only the outermost of nested ``@use`` nodes
counts), ``@call.function`` + ``@call.arguments`` (a call), ``@call.keyword`` (a keyword
argument's name) and ``@call.splat`` (``*args``) inside the arguments, ``@class.name`` (a
class the example defines: its ``superclasses`` and the names its ``body`` defines are read
from the class node, ``@class``). Tag aliases and how
an import path is split are in ``queries/examples/languages.toml``.
"""

from __future__ import annotations

import functools
import importlib
import tomllib
from dataclasses import dataclass
from importlib import resources

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query, QueryCursor

from graphmemd.graph.model import Language
from graphmemd.ingest.knowledge.examples import (
    Captured,
    CaptureKind,
    Session,
    bind,
    example_unit,
    find_blocks,
    tag_languages,
)
from graphmemd.ingest.knowledge.model import CallShape, Unit
from graphmemd.ingest.parsing.languages import SPECS

__all__ = ["capture_example", "example_units", "language_of"]

#: the most blocks and bytes of code one file's examples are read for
MAX_BLOCKS = 2000
MAX_BLOCK_BYTES = 200_000


@dataclass(frozen=True, slots=True)
class _Compiled:
    parser: Parser
    query: Query
    module_sep: str


def _data_dir() -> resources.abc.Traversable:
    return resources.files("graphmemd.ingest.parsing").joinpath("queries").joinpath("examples")


@functools.cache
def _table() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(tag -> language name, language name -> module separator, language name -> query file)."""
    data = tomllib.loads(_data_dir().joinpath("languages.toml").read_text("utf-8"))
    tags = tag_languages({lang: row.get("tags", []) for lang, row in data.items()})
    seps = {lang: str(row.get("module_separator", ".")) for lang, row in data.items()}
    return tags, seps, {lang: str(row.get("query", f"{lang}.scm")) for lang, row in data.items()}


@functools.cache
def _compiled(language: Language) -> _Compiled | None:
    """The language's grammar, parser and example query (one parser per process: the
    workers parse one file at a time)."""
    source = _data_dir().joinpath(_table()[2].get(language.value, f"{language.value}.scm"))
    if not source.is_file():
        return None
    spec = SPECS[language]
    grammar = getattr(importlib.import_module(spec.grammar_module), spec.grammar_function)
    ts_language = TSLanguage(grammar())
    return _Compiled(
        Parser(ts_language), Query(ts_language, source.read_text("utf-8")), _table()[1].get(language.value, ".")
    )


def language_of(tag: str) -> Language | None:
    """The language a block's tag means, when examples in it are read."""
    name = _table()[0].get(tag.lower())
    if name is None:
        return None
    try:
        language = Language(name)
    except ValueError:
        return None
    return language if _compiled(language) is not None else None


def _cols(node: Node, lines: list[bytes]) -> tuple[int, int, int, int]:
    """A node's (row, char column, end row, end char column)."""
    (r0, c0), (r1, c1) = node.start_point, node.end_point
    return r0, len(lines[r0][:c0].decode("utf-8", "replace")), r1, len(lines[r1][:c1].decode("utf-8", "replace"))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _call_shape(args: Node, keywords: dict[int, str], splats: set[int]) -> CallShape:
    """The shape of a call from its arguments node (empty parentheses: no arguments; code
    calls what it calls, unlike prose, where ``get()`` is a mention)."""
    names: list[str] = []
    positionals = 0
    starred = False
    for child in args.named_children:
        if child.type == "comment":
            continue
        if child.id in splats:
            starred = True
            continue
        kw = next((keywords[n.id] for n in (child, *child.named_children) if n.id in keywords), None)
        if kw is not None:
            names.append(kw)
        else:
            positionals += 1
    return CallShape(tuple(names), positionals, starred)


def capture_example(code: str, language: Language) -> list[Captured]:
    """What an example's parse captures (empty for a language without an example query)."""
    compiled = _compiled(language)
    if compiled is None:
        return []
    source = code.encode("utf-8")
    lines = source.split(b"\n")
    root = compiled.parser.parse(source).root_node
    matches = QueryCursor(compiled.query).matches(root)
    uses: dict[int, Node] = {}
    calls: dict[int, Node] = {}  # function node id -> arguments node
    keywords: dict[int, str] = {}  # keyword argument node id -> its name
    splats: set[int] = set()
    out: list[Captured] = []
    for _, caps in matches:
        if "class.name" in caps and "class" in caps:
            n = caps["class.name"][0]
            bases, members = _class_parts(caps["class"][0])
            out.append(Captured(CaptureKind.CLASS, _text(n), *_cols(n, lines), bases=bases, members=members))
            continue
        if "import.module" in caps:
            module = _text(caps["import.module"][0])
            alias = _text(caps["import.alias"][0]) if "import.alias" in caps else ""
            if "import.name" in caps:
                for n in caps["import.name"]:
                    out.append(
                        Captured(CaptureKind.IMPORT_NAME, _text(n), *_cols(n, lines), module=module, alias=alias)
                    )
            else:
                n = caps["import.module"][0]
                out.append(Captured(CaptureKind.IMPORT, module, *_cols(n, lines), module=module, alias=alias))
            continue
        for n in caps.get("use", ()):
            uses[n.id] = n
        if "call.function" in caps and "call.arguments" in caps:
            calls[caps["call.function"][0].id] = caps["call.arguments"][0]
        for n in caps.get("call.keyword", ()):
            if n.parent is not None:
                keywords[n.parent.id] = _text(n)
        for n in caps.get("call.splat", ()):
            splats.add(n.id)
    for n in uses.values():
        if n.parent is not None and n.parent.id in uses:
            continue  # part of a longer name
        if n.parent is not None and n.parent.id in keywords and n.prev_named_sibling is None:
            continue  # a keyword argument's name
        if _in_import(n):
            continue
        args = calls.get(n.id)
        call = _call_shape(args, keywords, splats) if args is not None else None
        out.append(Captured(CaptureKind.USE, _text(n), *_cols(n, lines), call=call))
    return out


def _class_parts(node: Node) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A class definition's bases as written (keyword arguments such as ``metaclass=`` aside)
    and the names its body defines (methods, decorated or not, and assigned attributes)."""
    supers = node.child_by_field_name("superclasses")
    bases = tuple(_text(b) for b in (supers.named_children if supers is not None else ()) if b.type in _NAMES)
    members: list[str] = []
    body = node.child_by_field_name("body")
    for child in body.named_children if body is not None else ():
        if child.type == "decorated_definition":
            child = child.child_by_field_name("definition") or child
        name = child.child_by_field_name("name")
        if name is not None:
            members.append(_text(name))
        elif child.type == "expression_statement":
            for a in child.named_children:
                left = a.child_by_field_name("left") if a.type == "assignment" else None
                if left is not None and left.type == "identifier":
                    members.append(_text(left))
    return bases, tuple(members)


#: the nodes a base class is written as
_NAMES = frozenset({"identifier", "attribute"})


def _in_import(node: Node) -> bool:
    p = node.parent
    while p is not None:
        if "import" in p.type:
            return True
        p = p.parent
    return False


def example_units(path: str, text: str) -> list[Unit]:
    """The units of a knowledge file's code examples that use names bound by their imports
    (the imports of earlier examples of the file included), in source order."""
    src = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sessions: dict[Language, Session] = {}
    units: list[Unit] = []
    budget = MAX_BLOCK_BYTES
    for block in find_blocks(text, path)[:MAX_BLOCKS]:
        language = language_of(block.tag)
        code = block.code
        if language is None or len(code) > budget:
            continue
        budget -= len(code)
        refs = bind(block, capture_example(code, language), sessions.setdefault(language, Session()), _sep(language))
        if refs:
            units.append(example_unit(block, refs, src))
    return units


def _sep(language: Language) -> str:
    compiled = _compiled(language)
    return compiled.module_sep if compiled is not None else "."
