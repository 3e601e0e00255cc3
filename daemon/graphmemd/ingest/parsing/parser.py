"""Generic, query-driven symbol extraction (the only module that imports tree_sitter).

Each language has one tree-sitter query file (``queries/<language>.scm``); this module
runs it once per file with a ``QueryCursor`` and turns the matches into model objects. It
never recurses over the syntax tree in Python and never renders nodes as text
(``str(node)``), so arbitrarily deep inputs cannot blow the Python stack.

Capture vocabulary
==================

Definitions (one match per definition)

``@definition.<kind>``
    The definition node; ``<kind>`` is a :class:`SymbolKind` value (``module``, ``class``,
    ``struct``, ``interface``, ``trait``, ``enum``, ``function``, ``method``). Its byte
    range is the symbol's range. A ``function`` directly inside a class-like definition
    (class/struct/interface/trait/enum) or a ``@scope`` becomes a ``method``.
    When two definition matches share the same ``@name`` node, the larger one wins (so a
    decorated definition includes its decorators).
``@name``
    The definition's name (required; matches without it are ignored).
``@body``
    The body (optional). The head (``signature``) is the text from the definition start to
    the body start; the body hash covers the body. Without a body the whole definition is
    the head and the body hash is the hash of nothing.
``@receiver``
    Qualifies the name with a type instead of the lexical scope (Go receivers:
    ``func (s *Server) Handle`` -> ``Server.Handle``).

Scopes

``@scope`` + ``@scope.name``
    A region that qualifies the names defined inside it without being a symbol itself
    (Rust ``impl Type`` / ``impl Trait for Type`` -> ``Type.method``).

Fingerprint helpers

``@comment``
    Removed from signatures and body hashes. (Leading docstrings are found from the
    ``@body`` node by the spec's ``docstring`` rule: an anchored query pattern for them
    cost a third of the whole query time.)

References

``@reference.call`` (+ optional ``@reference.call.receiver``)
    The called expression (``foo``, ``a.b``, ``Foo::new``, ``new Foo`` -> the ``Foo``
    node). With a receiver capture, the callee is ``receiver.call`` (Java
    ``obj.method()``). The caller is the innermost definition containing the call
    (decorators and default values included).
``@reference.call.arguments`` (+ ``(#set! reference.call.opaque "T")`` and the parts below)
    In a call pattern without receiver: the call's arguments, whose shape the call site
    records (``CallRef.shape``, ``CallShape``): their named children are positional
    arguments, except those of the types the pattern's settings name:
    ``reference.call.keyword`` (a keyword argument; its ``name`` field is the keyword),
    ``reference.call.splat`` (``*args``, ``**kwargs``) and ``reference.call.comment``.
    ``reference.call.marks`` lists the characters without which an argument list's text
    holds none of those (Python ``=*#``): only the argument lists holding one have their
    children looked at (a query pattern per keyword or splat cost more than all of it).
    Arguments of an opaque type (Python's generator argument, ``f(x for x in xs)``) record
    no shape. A language without these records no shapes (a changed default then reaches
    every caller).
``(#set! reference.call.except "a b")``
    The pattern's calls of these names (the ``@reference.call`` text) are not calls (Ruby
    ``require``, ``attr_reader``): checked here, a set lookup, instead of a ``#not-match?``
    predicate, which cost the binding a regular expression search per match.
``@inherits`` / ``@implements``
    A base type, attributed to the innermost definition or scope containing it.
``@package``
    The file's package name (Go package clause, Java package declaration).

Imports (one ImportRef per statement, module and alias; names of matches sharing those
are merged in order)

``@import``
    The import statement (grouping key and line).
``@import.module``
    The specifier as written (quotes stripped when the language spec says so).
``@import.name``
    One imported name. ``@import.alias`` is the local name when renamed.
``@import.path``
    A full path whose last segment is the name and the rest the module (Java
    ``com.x.Foo``, Rust ``crate::a::B``), split on the spec's ``path_separator``.
``@import.scope`` + ``@import.prefix``
    A nested import group (Rust ``a::{b, c}``): the prefix is prepended to every
    ``@import.path`` inside the group.
``(#set! import.name "...")`` / ``(#set! import.module "...")`` / ``(#set! import.mod_decl "")``
    Constant name (``"default"``, ``"*"``) / module for the pattern, or mark it a Rust
    ``mod x;`` declaration.

A match without names and without an alias is dropped when another match of the same
statement and module produced something (so a catch-all ``(import_statement source: ...)``
pattern only contributes bare ``import "x"`` statements).

Captures whose name starts with ``_`` are helpers for predicates and are ignored.

Fingerprints
============

Head (definition start to body start) and body bytes are taken with comment ranges cut
out; in the body the leading docstring is cut too and each directly nested definition is
replaced by ``kind:name:sig_hash``. The ``signature`` is the head normalised by collapsing
whitespace and keeping a single space only between two identifier characters, and
``sig_hash`` hashes it. ``body_hash`` hashes the body with *all* whitespace deleted
(``bytes.translate``; a regex over every body cost more than the rest of the Python work).
Hashes are 16-hex-digit blake2b digests; positions never enter them. Known edge cases:
whitespace changes inside string literals, edits that only join or split two identifier
tokens of a body (``a b`` -> ``ab``), and Python statements moved between indentation
levels without any other change leave the body hash unchanged.

Limits
======

Files over ``MAX_SOURCE_BYTES`` are cut at a line boundary, definitions nested deeper
than ``MAX_NESTING`` are skipped, and a query cursor exceeding ``MATCH_LIMIT`` in-progress
matches loses some; each sets ``ParsedFile.truncated``.
"""

from __future__ import annotations

import gc
import importlib
import re
import sys
import threading
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from operator import attrgetter, itemgetter

from tree_sitter import Language as TSLanguage
from tree_sitter import Node, Parser, Query, QueryCursor, Tree

from graphmemd.graph.model import (
    CallRef,
    CallShape,
    ImportRef,
    InheritKind,
    InheritRef,
    Language,
    ParsedFile,
    ParsedSymbol,
    SymbolKind,
    TypeRef,
)
from graphmemd.ingest.parsing.edits import edit_between
from graphmemd.ingest.parsing.fingerprint import (
    CAPTURE_PREFIX,
    FINGERPRINT_SCHEME,
    fingerprint,
    load_rules,
    pattern_roles,
)
from graphmemd.ingest.parsing.languages import SPECS, LanguageSpec, language_for_path
from graphmemd.ingest.parsing.legacy import LegacyDef, legacy_fingerprints
from graphmemd.ingest.parsing.overloads import STUB, overload_tags, qualify_duplicate
from graphmemd.ingest.parsing.records import call_ref, def_span, inherit_ref, parsed_symbol, type_ref
from graphmemd.ingest.parsing.textscan import Scan, occurrences

__all__ = ["LiveTrees", "bare_parse", "parse_source", "warm"]

#: Only this many leading bytes of a larger file are parsed (at a line boundary); the file
#: is marked truncated. Keeps one pathological generated file to a few seconds.
MAX_SOURCE_BYTES = 4 * 1024 * 1024
#: In-progress match limit of the query cursor; exceeding it marks the file truncated.
MATCH_LIMIT = 512
#: Most matches processed per file; the rest are ignored and the file marked truncated.
MAX_MATCHES = 2_000_000
#: Definitions (and scopes) nested deeper than this are skipped; the file is marked truncated.
MAX_NESTING = 100
#: Callee/base-type expressions longer than this are only looked at by their tail.
_TAIL_BYTES = 256


_CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
_CLASS_LIKE = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM})
_DEF_CAPTURES: dict[str, SymbolKind] = {f"definition.{k.value}": k for k in SymbolKind}
_FIRST = itemgetter(0)  # (sort keys: C-level, no lambda call per item)
_START = attrgetter("start")

# pattern roles
_R_CALL = 1
_R_COMMENT = 2
_R_DEF = 3
_R_INHERITS = 4
_R_IMPLEMENTS = 5
_R_IMPORT = 6
_R_IMPORT_SCOPE = 7
_R_SCOPE = 8
_R_PACKAGE = 9
_R_IGNORE = 10
_R_FINGERPRINT = 11
_R_TYPE = 12
_R_RETURNS = 13
_R_ARITY = 14
_R_EXPORT = 15
_R_CALL_PLAIN = 16  # a call pattern with neither receiver nor argument-list capture
_R_COMMENT_NODE = 17  # a comment pattern capturing exactly one node
_R_CALL_BARE = 18
_R_LOCAL = 19
_R_CALL_EXCEPT = 20  # a call pattern with a ``reference.call.except`` setting
_R_CALL_SHAPED = 21  # a plain call pattern with a ``reference.call.arguments`` capture

# ----------------------------------------------------------------------------- text helpers

_IDENT = rb"A-Za-z0-9_$\x80-\xff"
#: A space not between two identifier characters (in text whose whitespace runs are single spaces).
_DROP_SPACE = re.compile(rb" (?:(?![" + _IDENT + rb"])|(?<![" + _IDENT + rb"] ))")
_SIMPLE_CALLEE = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:(?:\.|::)(?:[^\W\d]|\$)[\w$]*)*")
_TAIL_CALLEE = re.compile(r"(?:[^\W\d]|\$)[\w$]*(?:(?:\.|::)(?:[^\W\d]|\$)[\w$]*)*\Z")
_GENERIC = re.compile(r"(?:::)?<[^<>]*>")
_BRACKETED = re.compile(r"\[[^\[\]]*\]")
_SPACE = re.compile(r"\s+")
_CHAIN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.:"
_INDEXED = re.compile(r"(?<=[\w\]])\[[^\[\]()]*\]")
_SUPER_CALL = re.compile(r"^super\([^()]*\)\.")
_NEW = re.compile(r"(?<![\w$.])new\s+")  # `new Foo().bar` -> `Foo().bar`
_DUPLICATE = re.compile(r"(?:~\d+)+\Z")  # the disambiguator of a duplicate qualname


def _normalise(text: bytes) -> bytes:
    """Collapse whitespace; keep one space only between two identifier characters."""
    return _DROP_SPACE.sub(b"", b" ".join(text.split()))


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _callee(text: str) -> str:
    """Trim a called expression to its trailing dotted/``::`` name chain ("" if none)."""
    if text.replace(".", "_").replace("::", "_").isidentifier() or _SIMPLE_CALLEE.fullmatch(text):
        return text
    text = _NEW.sub("", text) if "new" in text else text
    text = _SPACE.sub("", text).replace("?.", ".").replace("->", ".").replace("!", "")
    if _SIMPLE_CALLEE.fullmatch(text):  # (`a->b`, `a. b`: no step below changes a plain chain)
        return text
    text = _SUPER_CALL.sub("super.", text)  # super().m / super(C, self).m -> super.m
    while "<" in text:
        stripped = _GENERIC.sub("", text)
        if stripped == text:
            break
        text = stripped
    while "]" in text and not text.endswith("]"):  # index expressions: `b.Succs[0].Block` -> `b.Succs.Block`
        stripped = _INDEXED.sub("", text)
        if stripped == text:
            break
        text = stripped
    if not text or not (text[-1].isalnum() or text[-1] in "_$"):  # (`f?`: no chain ends it)
        return ""
    # (the chain is in the text's last run of name characters: searched alone, not from
    # every position of a long text)
    run = len(text) - len(text.rstrip(_CHAIN_CHARS)) if text.isascii() else len(text)
    match = _TAIL_CALLEE.search(text, len(text) - run)
    if match is None:
        return ""
    start = match.start()
    if start > 1 and text[start - 2 : start] == ").":  # `Foo(x).bar`, `get().m` -> `Foo().bar`
        receiver = _called_receiver(text[: start - 1])
        if receiver:
            return f"{receiver}().{match.group(0)}"
    return match.group(0)


def _called_receiver(text: str) -> str:
    """The callee of the call ``text`` ends with (``a.f(x, g(y))`` -> ``a.f``), "" if unclear."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                head = text[:i]
                return _callee(head) if head and (head[-1].isalnum() or head[-1] in "_$)") else ""
    return ""


def _type_ref(text: str) -> str:
    """A base type as written, without whitespace, type arguments or pointer sigils."""
    text = _SPACE.sub("", text)
    for pattern in (_GENERIC, _BRACKETED):
        while True:
            stripped = pattern.sub("", text)
            if stripped == text:
                break
            text = stripped
    return text.lstrip("*&")


# ----------------------------------------------------------------------------- compiled cache


@dataclass(frozen=True, slots=True)
class _Compiled:
    spec: LanguageSpec
    language: TSLanguage
    query: Query
    settings: tuple[dict[str, str | None], ...]
    roles: tuple[int, ...]
    fingerprint_patterns: tuple[tuple[str, str] | None, ...]
    #: per pattern, the capture names it can have (its matches have no others)
    captures: tuple[frozenset[str], ...]
    #: per definition pattern, its one ``@definition.<kind>`` capture (None: look it up)
    def_captures: tuple[tuple[str, SymbolKind] | None, ...]
    #: per pattern, the callee names that are no call (``reference.call.except``; None: none)
    call_excepts: tuple[frozenset[bytes] | None, ...]
    #: per pattern, the node types its definition's parent must have (``def.parents``; None: any)
    def_parents: tuple[frozenset[str] | None, ...]
    #: the spec's ``blanks``, compiled, each with the words one of which a source must hold
    #: for it to be run (its ``(?#needs:A,B)`` comment; empty: always run)
    blanks: tuple[tuple[re.Pattern[bytes], tuple[bytes, ...]], ...]
    #: stated types never kept (a language's built-in scalar and string types)
    builtin_types: frozenset[str]
    #: the spec's ``unwrap_types``, compiled
    unwrap: re.Pattern[str] | None
    #: the kinds of definition a function directly inside becomes a method of
    method_containers: frozenset[SymbolKind]
    #: drops the spec's ``sigils`` and writes its ``separator_alias`` as ``::`` (None: neither)
    clean: Callable[[bytes], bytes] | None
    #: the fingerprint rewrites tried only at some calls (``Rules.call_query_source``; None:
    #: none), their patterns' roles, and the callee names (last segment) they are tried at
    call_query: Query | None = None
    call_roles: tuple[tuple[str, str] | None, ...] = ()
    callees: frozenset[bytes] = frozenset()
    #: the rewrites run around words (``Rules.word_scans``/``word_roots``): the scans, and the
    #: node type each word's patterns are rooted at
    word_scans: tuple[Scan, ...] = ()
    word_roots: dict[bytes, str] = field(default_factory=dict)
    #: per pattern, the kind ids of its ``reference.call.opaque`` arguments
    call_opaque: tuple[frozenset[int], ...] = ()
    #: what tells the arguments' keywords, splats and comments apart in the language's shaped
    #: call patterns (None: it shapes no call)
    call_parts: _CallParts | None = None


@dataclass(frozen=True, slots=True)
class _CallParts:
    """A shaped call pattern's settings: the argument node types that are no positional
    argument, and the characters one of which an argument list holding one must hold."""

    keyword: frozenset[str]
    splat: frozenset[str]
    comment: frozenset[str]
    marks: re.Pattern[bytes]


def _call_parts(settings: list[dict[str, str | None]]) -> _CallParts | None:
    """The language's ``reference.call.keyword``/``splat``/``comment``/``marks`` settings (one
    set for all its patterns that state them)."""
    found = {
        tuple(pattern.get(f"reference.call.{key}") or "" for key in ("keyword", "splat", "comment", "marks"))
        for pattern in settings
        if pattern.get("reference.call.marks")
    }
    if len(found) > 1:
        raise ValueError(f"a language's call patterns state one set of argument parts, not {sorted(found)}")
    if not found:
        return None
    keyword, splat, comment, marks = found.pop()
    return _CallParts(
        keyword=frozenset(keyword.split()),
        splat=frozenset(splat.split()),
        comment=frozenset(comment.split()),
        marks=re.compile(b"[" + re.escape(marks.encode()) + b"]"),
    )


_compiled: dict[Language, _Compiled] = {}
_compiled_lock = threading.Lock()
_local = threading.local()


_CAPTURE_NAME = re.compile(r"@([\w.]+)")
_QUERY_COMMENT = re.compile(r"(?m)^\s*;.*$")


def _role(captures: set[str]) -> int:
    """A pattern's role, from the primary capture it contains."""
    if any(name.startswith(CAPTURE_PREFIX) for name in captures):
        return _R_FINGERPRINT
    if "reference.call" in captures:
        return _R_CALL
    if "comment" in captures:
        return _R_COMMENT
    if captures & _DEF_CAPTURES.keys():
        return _R_DEF
    for key, role in (
        ("inherits", _R_INHERITS),
        ("implements", _R_IMPLEMENTS),
        ("import.scope", _R_IMPORT_SCOPE),
        ("scope", _R_SCOPE),
        ("package", _R_PACKAGE),
        ("type.var", _R_TYPE),
        ("type.returns", _R_RETURNS),
        ("type.returns.call", _R_RETURNS),
        ("type.returns.value", _R_RETURNS),
        ("arity", _R_ARITY),
        ("export", _R_EXPORT),
        ("reference.call.bare", _R_CALL_BARE),
        ("local", _R_LOCAL),
    ):
        if key in captures:
            return role
    if any(name.startswith("import") for name in captures):
        return _R_IMPORT
    return _R_IGNORE


def _pattern_sources(query: Query, source: str) -> list[str]:
    data = source.encode("utf-8")
    return [
        _QUERY_COMMENT.sub("", data[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)].decode("utf-8"))
        for i in range(query.pattern_count)
    ]


_QUANTIFIED = re.compile(r"[)\]\"][+*?]")


def _pattern_roles(
    sources: list[str], captures: tuple[frozenset[str], ...], excepts: tuple[frozenset[bytes] | None, ...]
) -> tuple[int, ...]:
    roles: list[int] = []
    for text, names, excluded in zip(sources, captures, excepts, strict=True):
        role = _role(set(names))
        if role == _R_CALL and excluded is not None:
            role = _R_CALL_EXCEPT
        elif role == _R_CALL and not names & {"reference.call.receiver", "reference.call.args"}:
            role = _R_CALL_SHAPED if "reference.call.arguments" in names else _R_CALL_PLAIN
        if role == _R_COMMENT and names == {"comment"} and not _QUANTIFIED.search(text):
            role = _R_COMMENT_NODE
        roles.append(role)
    return tuple(roles)


def _call_except(settings: dict[str, str | None]) -> frozenset[bytes] | None:
    names = settings.get("reference.call.except")
    return frozenset(name.encode() for name in names.split()) if names else None


def _def_capture(names: frozenset[str]) -> tuple[str, SymbolKind] | None:
    found = [(name, _DEF_CAPTURES[name]) for name in names if name in _DEF_CAPTURES]
    return found[0] if len(found) == 1 else None


def _cleaner(spec: LanguageSpec) -> Callable[[bytes], bytes] | None:
    """The text fix of a language with ``sigils`` or a ``separator_alias`` (see the spec)."""
    if not spec.sigils and not spec.separator_alias:
        return None
    drop = spec.sigils.encode()
    alias = spec.separator_alias.encode()

    def clean(text: bytes) -> bytes:
        if drop:
            text = text.translate(None, drop)
        return text.replace(alias, b"::") if alias else text

    return clean


def _kind_ids(language: TSLanguage, settings: dict[str, str | None]) -> frozenset[int]:
    names = (settings.get("reference.call.opaque") or "").split()
    return frozenset(language.id_for_node_kind(name, True) or -1 for name in names)


def _def_parents(settings: dict[str, str | None]) -> frozenset[str] | None:
    allowed = settings.get("def.parents")
    return frozenset(allowed.split()) if allowed else None


def _compile(language: Language) -> _Compiled:
    found = _compiled.get(language)
    if found is not None:
        return found
    with _compiled_lock:
        found = _compiled.get(language)
        if found is not None:
            return found
        spec = SPECS[language]
        grammar = getattr(importlib.import_module(spec.grammar_module), spec.grammar_function)
        ts_language = TSLanguage(grammar())
        queries = resources.files("graphmemd.ingest.parsing").joinpath("queries")
        source = "\n".join(queries.joinpath(name).read_text("utf-8") for name in spec.query_files)
        rules = load_rules(language)
        source += "\n" + rules.query_source  # fingerprint rules: same pass
        query = Query(ts_language, source)
        call_source = rules.call_query_source
        call_query = Query(ts_language, call_source) if call_source else None
        sources = _pattern_sources(query, source)
        captures = tuple(frozenset(_CAPTURE_NAME.findall(text)) for text in sources)
        call_excepts = tuple(_call_except(query.pattern_settings(i)) for i in range(query.pattern_count))
        found = _Compiled(
            spec=spec,
            language=ts_language,
            query=query,
            settings=tuple(query.pattern_settings(i) for i in range(query.pattern_count)),
            roles=_pattern_roles(sources, captures, call_excepts),
            call_excepts=call_excepts,
            fingerprint_patterns=pattern_roles(sources),
            captures=captures,
            def_captures=tuple(_def_capture(names) for names in captures),
            def_parents=tuple(_def_parents(query.pattern_settings(i)) for i in range(query.pattern_count)),
            blanks=tuple((re.compile(b), _needs(b)) for b in spec.blanks),
            builtin_types=_PRIMITIVE_TYPES if spec.builtin_types is None else spec.builtin_types,
            unwrap=re.compile(spec.unwrap_types) if spec.unwrap_types else None,
            method_containers=_CLASS_LIKE | frozenset(SymbolKind(k) for k in spec.method_containers),
            clean=_cleaner(spec),
            call_query=call_query,
            call_roles=pattern_roles(_pattern_sources(call_query, call_source)) if call_query is not None else (),
            callees=rules.callees,
            word_scans=rules.word_scans,
            word_roots=rules.word_roots,
            call_opaque=tuple(_kind_ids(ts_language, query.pattern_settings(i)) for i in range(query.pattern_count)),
            call_parts=_call_parts([query.pattern_settings(i) for i in range(query.pattern_count)]),
        )
        _compiled[language] = found
        return found


def _parser(compiled: _Compiled) -> Parser:
    """One Parser per thread and language (Parser objects are not thread-safe)."""
    parsers: dict[Language, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(compiled.spec.language)
    if parser is None:
        parser = Parser(compiled.language)
        parsers[compiled.spec.language] = parser
    return parser


# ----------------------------------------------------------------------------- public API


def warm(language: Language) -> None:
    """Compile ``language``'s grammar and queries now (once per process), not on its first file."""
    _compile(language)


def bare_parse(source: bytes, language: Language) -> int:
    """Parse only (the benchmark floor); returns the root's descendant count."""
    compiled = _compile(language)
    return _parser(compiled).parse(source).root_node.descendant_count


def _count_lines(source: bytes) -> int:
    if not source:
        return 0
    return source.count(b"\n") + (0 if source.endswith(b"\n") else 1)


@dataclass(slots=True)
class _Def:
    start: int
    end: int
    kind: SymbolKind
    name: str
    name_start: int
    body_start: int  # -1: no body
    body_end: int
    doc_start: int  # leading docstring, -1: none
    doc_end: int
    receiver: str | None
    start_line: int
    end_line: int
    qualname: str = ""
    scope_qual: str | None = None  # receiver/scope qualifier to look up as parent
    parent_index: int = -1  # enclosing definition (lexical), -1 if none
    sig_hash: str = ""
    toplevel: bool = False  # named at file level wherever it stands (``def.toplevel``: a C macro)


@dataclass(slots=True)
class _RawImport:
    key: int  # grouping: start byte of the statement / outermost import group
    order: int
    line: int
    module: str | None
    names: list[str]
    alias: str | None
    mod_decl: bool
    path: str | None = None
    path_start: int = 0
    pos: int = 0  # start byte, to find the enclosing function


def _docstring(body: Node, rule: tuple[str, str]) -> tuple[int, int]:
    """Byte range of the body's leading docstring, or (-1, -1)."""
    for index in range(min(body.named_child_count, 8)):
        child = body.named_child(index)
        if child.is_extra:  # comments
            continue
        if child.type == rule[0] and child.named_child_count == 1 and child.named_child(0).type == rule[1]:
            return child.start_byte, child.end_byte
        break
    return -1, -1


#: A call as collected: start, callee text, line, arity or -1, shape or "", the called
#: expression's node (None: a bare call).
_RawCall = tuple[int, bytes, int, int, str, Node | None]


@dataclass(slots=True)
class _Collected:
    """What one file's query matches yield, before qualification."""

    defs: list[_Def] = field(default_factory=list)
    scopes: list[tuple[int, int, str]] = field(default_factory=list)
    raw_calls: list[_RawCall] = field(default_factory=list)
    cuts: list[tuple[int, int]] = field(default_factory=list)
    bases: list[tuple[int, str, InheritKind, int]] = field(default_factory=list)
    raw_imports: list[_RawImport] = field(default_factory=list)
    import_scopes: list[tuple[int, int, str, int]] = field(default_factory=list)
    package: str | None = None
    raw_types: list[tuple[int, str, str, bool, int, bool]] = field(default_factory=list)
    arities: list[tuple[int, int]] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    #: bare names that call a method unless a local of the definition holds them (Ruby)
    bare_calls: list[tuple[int, bytes, int]] = field(default_factory=list)
    locals: list[tuple[int, bytes]] = field(default_factory=list)
    #: the fingerprint rules' captured nodes, by role
    fingerprint_captures: defaultdict[str, list[Node]] = field(default_factory=lambda: defaultdict(list))
    #: the shaped calls' arguments: (the node, the call's index in ``raw_calls``)
    shaped: list[tuple[Node, int]] = field(default_factory=list)


def parse_source(
    path: str,
    source: bytes,
    language: Language | None = None,
    *,
    scheme: int = FINGERPRINT_SCHEME,
    trees: LiveTrees | None = None,
) -> ParsedFile:
    """Extract symbols, imports, calls and inheritance from one file's bytes.

    ``scheme=1`` computes fingerprints (and overload qualnames) the pre-upgrade way
    (``legacy.py``), to recognise stored anchors; the default is the current scheme.
    With ``trees`` (a live edit's re-parse, see :class:`LiveTrees`) the syntax tree is
    parsed incrementally from the one kept for ``path``, and kept for the next version;
    the result is the same. Never raises on bad input (syntax errors, invalid UTF-8,
    binary data); raises ValueError only when ``language`` is None and cannot be derived
    from ``path``.
    """
    if language is None:
        language = language_for_path(path)
        if language is None:
            raise ValueError(f"cannot tell the language of {path!r}")
    # One file allocates ~10^3-10^5 acyclic objects (query matches, nodes, events): cyclic
    # GC passes over them are pure overhead (~7 % of the parse), as in the indexer's pass.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(path, bytes(source), language, scheme, trees)
    finally:
        _callees.clear()
        _type_texts.clear()
        if enabled:
            gc.enable()


def _parse(path: str, source: bytes, language: Language, scheme: int, trees: LiveTrees | None) -> ParsedFile:
    """``parse_source`` with the language known (cyclic GC off)."""
    lines = _count_lines(source)
    truncated: str | None = None
    if len(source) > MAX_SOURCE_BYTES:
        cut = source.rfind(b"\n", 0, MAX_SOURCE_BYTES) + 1 or MAX_SOURCE_BYTES
        source = source[:cut]
        truncated = f"file larger than {MAX_SOURCE_BYTES} bytes: only the first {cut} bytes indexed"
    compiled = _compile(language)
    blanked = _blanked(compiled, source)
    tree = trees.parse(path, compiled, blanked) if trees is not None else _parser(compiled).parse(blanked)
    root, matches, syntax_errors, limited = _run_query(compiled, tree.root_node)
    truncated = limited or truncated
    found = _collect(source, compiled, matches)
    defs = found.defs
    defs.sort(key=_START)
    found.cuts.sort()
    found_defs = len(defs)
    overloads = load_rules(language).overloads if scheme != 1 else None
    found.arities.sort()
    tags = overload_tags(root, source, [(d.start, d.end, d.name) for d in defs], overloads, found.arities)
    all_defs = defs
    merge = overloads.merge if overloads is not None else frozenset()
    hosts = compiled.method_containers
    defs, parents, containers, merged = _qualify(defs, found.scopes, tags, merge, hosts)
    if overloads is not None and overloads.drop_declarations:
        kept = _drop_declared(all_defs, defs, tags)
        if kept is not None:
            found_defs -= len(all_defs) - len(kept[0])
            defs, parents, containers, merged = _qualify(kept[0], found.scopes, kept[1], merge, hosts)
    if len(defs) + merged < found_defs:
        truncated = f"definitions nested deeper than {MAX_NESTING} levels skipped"
    calls, called = _attribute_calls(defs, _with_bare_calls(defs, found), compiled.callees)
    if called:
        _call_rewrites(compiled, called, found.fingerprint_captures)
    if compiled.word_scans:
        _word_rewrites(compiled, source, root, found.fingerprint_captures)
    signatures, body_hashes = _fingerprint(source, defs, found.cuts, found.fingerprint_captures, language, scheme, root)
    functions = _Intervals([(d.start, d.end, d.qualname) for d in defs if d.kind in _CALLABLE])
    scopes_of = _Intervals(containers) if found.raw_types or found.arities or found.bases else None
    return ParsedFile(
        path=path,
        language=language,
        symbols=_symbols(defs, parents, signatures, body_hashes),
        imports=_finish_imports(found.raw_imports, found.import_scopes, compiled.spec, functions),
        calls=calls,
        inherits=_attribute_bases(scopes_of, found.bases),
        types=_attribute_types(scopes_of, found.raw_types),
        arities=_arities(defs, scopes_of, found.arities, _tag_arities(all_defs, tags)),
        exports=tuple(found.exports) if found.exports else None,
        package=found.package,
        syntax_errors=syntax_errors,
        lines=lines,
        truncated=truncated,
    )


def _tag_arities(defs: list[_Def], tags: list[str | None]) -> dict[int, int]:
    """id(def) -> its parameter count, for the overloads whose tag is their arity."""
    return {id(d): int(tag) for d, tag in zip(defs, tags, strict=True) if tag is not None and tag.isdigit()}


def _arities(
    defs: list[_Def], scopes: _Intervals | None, found: list[tuple[int, int]], tagged: dict[int, int]
) -> tuple[tuple[str, int], ...]:
    """(qualname, parameter count) of each callable whose parameter list was captured, then
    of each overload whose count only its overload tag gives (Swift: no parameter list node)."""
    callables = {d.qualname for d in defs if d.kind in _CALLABLE}
    out = [(q, n) for q, n in ((scopes.innermost(pos), n) for pos, n in found) if q in callables] if scopes else []
    if tagged:
        have = {q for q, _n in out}
        out.extend(
            (d.qualname, tagged[id(d)])
            for d in defs
            if id(d) in tagged and d.kind in _CALLABLE and d.qualname not in have
        )
    return tuple(out)


def _drop_declared(
    all_defs: list[_Def], qualified: list[_Def], tags: list[str | None]
) -> tuple[list[_Def], list[str | None]] | None:
    """The definitions (and their overload tags) left when each declaration without a body
    whose definition is in the file too (same qualname before ``~``, kind and overload tag)
    is dropped; None when there is none (``drop_declarations`` rules)."""
    tag_of = {id(d): tag for d, tag in zip(all_defs, tags, strict=True)}
    defined = {(_undisambiguated(d.qualname), d.kind, tag_of[id(d)]) for d in qualified if d.body_start >= 0}
    if not defined:
        return None
    drop = {
        id(d)
        for d in qualified
        if d.body_start < 0 and (_undisambiguated(d.qualname), d.kind, tag_of[id(d)]) in defined
    }
    if not drop:
        return None
    kept = [d for d in all_defs if id(d) not in drop]
    return kept, [tag_of[id(d)] for d in kept]


def _undisambiguated(qualname: str) -> str:
    """``qualname`` without the disambiguator of a duplicate (``f~2`` -> ``f``)."""
    return _DUPLICATE.sub("", qualname) if "~" in qualname else qualname


_NEEDS = re.compile(rb"\(\?#needs:([^)]*)\)")


def _needs(pattern: bytes) -> tuple[bytes, ...]:
    """The words of a blank pattern's ``(?#needs:A,B)`` comment (a regex comment: ignored by
    the pattern itself): a source holding none of them cannot match, so it is not scanned."""
    found = _NEEDS.search(pattern)
    return tuple(w.strip() for w in found.group(1).split(b",") if w.strip()) if found else ()


def _blanked(compiled: _Compiled, source: bytes) -> bytes:
    """``source`` with the spec's ``blanks`` replaced by spaces (same length: every node's
    byte range is the same in both)."""
    if not compiled.blanks:
        return source
    spans = [
        m.span(1)
        for pattern, needs in compiled.blanks
        if not needs or any(word in source for word in needs)
        for m in pattern.finditer(source)
    ]
    if not spans:
        return source
    out = bytearray(source)
    for start, end in spans:
        line = source.rfind(b"\n", 0, start) + 1
        while line > 1 and source[max(0, line - 3) : line].rstrip(b"\r\n").endswith(b"\\"):  # continued
            line = source.rfind(b"\n", 0, line - 1) + 1
        if not source[line:start].lstrip().startswith(b"#"):  # (a directive or a #define stays)
            out[start:end] = b" " * (end - start)
    return bytes(out)


#: a kept tree costs about this many bytes per node (``descendant_count``; measured with
#: tracemalloc on stdlib Python files: 108-112)
_TREE_NODE_BYTES = 128


@dataclass(frozen=True, slots=True)
class _KeptTree:
    language: Language
    source: bytes  # the bytes parsed (blanked)
    tree: Tree
    cost: int  # estimated bytes: the tree's and the source's


class LiveTrees:
    """The syntax trees of the last few live-edited files, kept to re-parse their next
    version incrementally (tree-sitter's ``Tree.edit`` + ``Parser.parse(new, old_tree)``:
    the same tree as a fresh parse, in a fraction of its time).

    Bounded: at most ``max_files`` files and ``max_bytes`` (each tree's size estimated from
    its node count, plus its source), least recently parsed dropped first. Only error-free
    trees are kept and only an error-free incremental result is used: tree-sitter's error
    recovery may take another path when it reuses subtrees, so a version with a syntax error
    is parsed fresh. For one thread (a parse worker's); a bulk pass never uses one.
    """

    def __init__(self, max_files: int, max_bytes: int) -> None:
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._kept: dict[str, _KeptTree] = {}  # insertion order: least recently parsed first
        #: re-parses done incrementally / fresh, since this was made (for tests and benchmarks)
        self.reused = 0
        self.fresh = 0

    def __len__(self) -> int:
        return len(self._kept)

    @property
    def held_bytes(self) -> int:
        """The kept trees' and sources' estimated size."""
        return sum(k.cost for k in self._kept.values())

    def clear(self) -> None:
        """Drop every kept tree."""
        self._kept.clear()

    def parse(self, path: str, compiled: _Compiled, source: bytes) -> Tree:
        """``source``'s tree (``path``'s new bytes, blanked): incremental from the kept one when
        there is one, else fresh. An error-free tree is kept for the next version; after one
        with a syntax error the earlier error-free tree stays kept (a repair re-parses from it)."""
        language = compiled.spec.language
        kept = self._kept.pop(path, None)
        if kept is not None and kept.language is not language:
            kept = None
        tree = self._incremental(kept, compiled, source) if kept is not None else None
        if tree is None:
            tree = _parser(compiled).parse(source)
            self.fresh += 1
        else:
            self.reused += 1
        if not tree.root_node.has_error:
            cost = len(source) + tree.root_node.descendant_count * _TREE_NODE_BYTES
            self._keep(path, _KeptTree(language, source, tree, cost))
        elif kept is not None:
            self._keep(path, kept)
        return tree

    @staticmethod
    def _incremental(kept: _KeptTree, compiled: _Compiled, source: bytes) -> Tree | None:
        """``source``'s tree re-parsed from ``kept``'s (left as it was: a copy is edited), or
        None when the result has a syntax error (parsed fresh instead)."""
        edit = edit_between(kept.source, source)
        if edit is None:
            return kept.tree
        old = kept.tree.copy()
        old.edit(
            edit.start_byte,
            edit.old_end_byte,
            edit.new_end_byte,
            edit.start_point,
            edit.old_end_point,
            edit.new_end_point,
        )
        tree = _parser(compiled).parse(source, old)
        return None if tree.root_node.has_error else tree

    def _keep(self, path: str, kept: _KeptTree) -> None:
        if kept.cost > self.max_bytes or self.max_files < 1:
            return
        self._kept[path] = kept
        total = self.held_bytes
        while len(self._kept) > self.max_files or total > self.max_bytes:
            oldest = next(iter(self._kept))
            total -= self._kept.pop(oldest).cost


def _run_query(
    compiled: _Compiled, root: Node
) -> tuple[Node, list[tuple[int, dict[str, list[Node]]]], int, str | None]:
    """Run the language's query over a parsed tree: the root, the matches, the number of
    syntax errors, and why the matches are incomplete (None: they are not)."""
    syntax_errors = _count_errors(root) if root.has_error else 0
    truncated: str | None = None
    cursor = QueryCursor(compiled.query, match_limit=MATCH_LIMIT)
    matches = cursor.matches(root)
    if cursor.did_exceed_match_limit:
        truncated = "query match limit exceeded"
    if len(matches) > MAX_MATCHES:
        truncated = f"more than {MAX_MATCHES} query matches"
        del matches[MAX_MATCHES:]
    return root, matches, syntax_errors, truncated


def _count_errors(root: Node) -> int:
    """The ERROR and MISSING nodes of the tree, found by descending only into the subtrees
    that have one (a query over the whole tree cost a tenth of a C file's parse)."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            count += 1
        stack.extend([child for child in node.children if child.has_error])
    return count


def _symbols(
    defs: list[_Def], parents: list[str | None], signatures: list[str], body_hashes: list[str]
) -> tuple[ParsedSymbol, ...]:
    return tuple(
        [
            parsed_symbol(
                d.name,
                d.qualname,
                d.kind,
                parent,
                d.start_line,
                d.end_line,
                d.start,
                d.end,
                signature,
                d.sig_hash,
                body_hash,
            )
            for d, parent, signature, body_hash in zip(defs, parents, signatures, body_hashes, strict=True)
        ]
    )


def _collect(source: bytes, compiled: _Compiled, matches: list[tuple[int, dict[str, list[Node]]]]) -> _Collected:
    """Sort the query's matches by role into raw definitions, references and fingerprint captures."""
    out = _Collected()
    settings, roles, opaque = compiled.settings, compiled.roles, compiled.call_opaque
    marked = compiled.call_parts.marks.search if compiled.call_parts is not None else None
    raw_calls, shaped, positional = out.raw_calls, out.shaped, _POSITIONAL_SHAPES
    comments: list[Node] = []
    targets = _targets(compiled, out.fingerprint_captures, comments)
    def_by_name: dict[int, int] = {}
    for pattern, caps in matches:
        target = targets[pattern]
        if target is not None:
            target[0].extend(caps[target[1]])
            continue
        role = roles[pattern]
        if role in (_R_CALL_PLAIN, _R_CALL_SHAPED):
            node = caps["reference.call"][0]
            end = node.end_byte
            start = node.start_byte
            text = source[start:end] if end - start <= _TAIL_BYTES else source[end - _TAIL_BYTES : end]
            shape = ""
            if role == _R_CALL_SHAPED:  # (inline: this runs once per call)
                held = caps["reference.call.arguments"][0]
                if held.kind_id not in opaque[pattern]:
                    named = held.named_child_count
                    shape = positional[named] if named < _MANY else str(named)
                    # (only a list holding a mark can hold a keyword, splat or comment)
                    if named and marked is not None and marked(source, end, held.end_byte) is not None:
                        shaped.append((held, len(raw_calls)))
            raw_calls.append((start, text, node.start_point[0] + 1, -1, shape, node))
        elif role in (_R_CALL, _R_CALL_EXCEPT):
            node = caps["reference.call"][0]
            start = node.start_byte
            end = node.end_byte
            text = source[start:end] if end - start <= _TAIL_BYTES else source[end - _TAIL_BYTES : end]
            if role == _R_CALL_EXCEPT:
                excluded = compiled.call_excepts[pattern]
                if excluded is not None and text in excluded:
                    continue
            receivers = caps.get("reference.call.receiver")
            if receivers:
                receiver = receivers[0]
                start = receiver.start_byte
                rend = receiver.end_byte
                text = source[max(start, rend - _TAIL_BYTES) : rend] + b"." + text
            arg_lists = caps.get("reference.call.args")
            count = _count_named(arg_lists[0], source) if arg_lists else -1
            raw_calls.append((start, text, node.start_point[0] + 1, count, "", node))
        elif role == _R_COMMENT:
            node = caps["comment"][0]
            out.cuts.append((node.start_byte, node.end_byte))
        elif role == _R_DEF:
            _collect_def(source, caps, compiled, pattern, out.defs, def_by_name)
        elif role in (_R_TYPE, _R_RETURNS):
            _collect_type(source, caps, settings[pattern], compiled, pattern, out.raw_types)
        elif role == _R_ARITY:
            node = caps["arity"][0]
            out.arities.append((node.start_byte, _count_named(node, source)))
        elif role == _R_CALL_BARE:
            node = caps["reference.call.bare"][0]
            out.bare_calls.append((node.start_byte, source[node.start_byte : node.end_byte], node.start_point[0] + 1))
        elif role == _R_LOCAL:
            out.locals.extend((n.start_byte, source[n.start_byte : n.end_byte]) for n in caps["local"])
        else:
            _collect_other(source, compiled, pattern, role, caps, out)
    if comments:
        out.cuts.extend([(n.start_byte, n.end_byte) for n in comments])
    if shaped and compiled.call_parts is not None:
        _shape_calls(source, raw_calls, shaped, compiled.call_parts)
    clean = compiled.clean
    if clean is not None and raw_calls:
        out.raw_calls = [
            (pos, clean(text), line, args, shape, node) for pos, text, line, args, shape, node in raw_calls
        ]
    return out


#: the shapes of calls passing only a few positional arguments
_MANY = 16
_POSITIONAL_SHAPES = tuple(sys.intern(str(n)) for n in range(_MANY))


def _shape_calls(source: bytes, raw_calls: list[_RawCall], shaped: list[tuple[Node, int]], parts: _CallParts) -> None:
    """Correct the shape of each call whose arguments hold keywords, splats or comments
    (``parts``): every call was first given as many positional arguments as its arguments
    have named children (its shape's text). ``shaped``: the calls whose arguments' text
    holds one of ``parts.marks`` (``_collect``), the only ones that can hold one."""
    keyword, splat, comment = parts.keyword, parts.splat, parts.comment
    for held, i in shaped:
        keywords: list[str] = []
        others = 0
        star = False
        for child in held.named_children:
            kind = child.type
            if kind in keyword:
                name = child.child_by_field_name("name")
                if name is not None:
                    keywords.append(_decode(source[name.start_byte : name.end_byte]))
                    continue
            if kind in splat:
                others += 1
                star = True
            elif kind in comment:
                others += 1
        if keywords or others:
            call = raw_calls[i]
            shape = CallShape(tuple(keywords), max(int(call[4]) - len(keywords) - others, 0), star)
            raw_calls[i] = (*call[:4], sys.intern(shape.text), call[5])


#: Bytes a called expression's last name never starts with but its text after the last dot
#: may (``x. \\`` + newline + ``format``, a comment in parentheses).
_NOT_A_NAME_START = frozenset(b" \t\r\n\f\\#")


def _calls_one_of(node: Node, names: frozenset[bytes]) -> bool:
    """Whether the called expression ``node``, whose text after its last dot is not a bare
    name, ends with one of ``names`` (its ``attribute`` field)."""
    attribute = node.child_by_field_name("attribute")
    return attribute is not None and attribute.text in names


def _call_rewrites(compiled: _Compiled, called: list[Node], captures: defaultdict[str, list[Node]]) -> None:
    """Run the fingerprint rewrites kept for some calls (``_Compiled.call_query``) at each
    call whose called expression is in ``called``, at that call only (start depth 0: a call
    nested in its arguments is tried on its own turn); their nodes go to ``captures``."""
    query = compiled.call_query
    if query is None:
        return
    roles = compiled.call_roles
    cursor = QueryCursor(query, match_limit=MATCH_LIMIT)
    cursor.set_max_start_depth(0)
    seen: set[tuple[int, int]] = set()
    for node in called:
        call = node.parent
        if call is None:
            continue
        key = (call.start_byte, call.end_byte)
        if key in seen:  # (two patterns capturing one call)
            continue
        seen.add(key)
        for pattern, caps in cursor.matches(call):
            role = roles[pattern]
            if role is not None:
                captures[role[0]].extend(caps[role[1]])


def _word_rewrites(compiled: _Compiled, source: bytes, root: Node, captures: defaultdict[str, list[Node]]) -> None:
    """Run the fingerprint rewrites kept for some words (``_Compiled.word_scans``) at the
    innermost node of their type around each occurrence of a word in ``source`` (start depth
    0, each node once); their nodes go to ``captures``. A file without the words pays one
    scan per key."""
    query = compiled.call_query
    found = occurrences(source, compiled.word_scans, 0, len(source))
    if query is None or not found:
        return
    roles = compiled.call_roles
    cursor = QueryCursor(query, match_limit=MATCH_LIMIT)
    cursor.set_max_start_depth(0)
    seen: set[tuple[int, int]] = set()
    for start, word in found:
        at = compiled.word_roots[word]
        node = root.named_descendant_for_byte_range(start, start + len(word))
        while node is not None and node.type != at:
            node = node.parent
        if node is None or (node.start_byte, node.end_byte) in seen:
            continue
        seen.add((node.start_byte, node.end_byte))
        for pattern, caps in cursor.matches(node):
            role = roles[pattern]
            if role is not None:
                captures[role[0]].extend(caps[role[1]])


def _collect_other(
    source: bytes, compiled: _Compiled, pattern: int, role: int, caps: dict[str, list[Node]], out: _Collected
) -> None:
    """The roles a file has few matches of: bases, imports, scopes, the package, exports."""
    if role in (_R_INHERITS, _R_IMPLEMENTS):
        node = caps["inherits" if role == _R_INHERITS else "implements"][0]
        written = source[node.start_byte : node.end_byte]
        ref = _type_ref(_decode(compiled.clean(written) if compiled.clean is not None else written))
        if ref:
            inherit_kind = InheritKind.INHERITS if role == _R_INHERITS else InheritKind.IMPLEMENTS
            out.bases.append((node.start_byte, ref, inherit_kind, node.start_point[0] + 1))
    elif role == _R_IMPORT:
        _collect_import(source, compiled.spec, caps, compiled.settings[pattern], out.raw_imports)
    elif role == _R_IMPORT_SCOPE:
        node = caps["import.scope"][0]
        prefixes = caps.get("import.prefix")
        if prefixes:
            prefix = _node_text(source, prefixes[0])
            out.import_scopes.append((node.start_byte, node.end_byte, prefix, node.start_point[0] + 1))
    elif role == _R_SCOPE:
        node = caps["scope"][0]
        scope_names = caps.get("scope.name")
        if scope_names:
            scope_name = _type_ref(_node_text(source, scope_names[0]))
            if scope_name:
                out.scopes.append((node.start_byte, node.end_byte, scope_name))
    elif role == _R_PACKAGE:
        package = _node_text(source, caps["package"][0])
        sep = compiled.spec.package_separator
        out.package = ".".join(p for p in package.split(sep) if p) if sep else package
    elif role == _R_EXPORT:
        out.exports.extend(_decode(source[n.start_byte : n.end_byte]) for n in caps["export"])


def _targets(
    compiled: _Compiled, fingerprint_captures: defaultdict[str, list[Node]], comments: list[Node]
) -> list[tuple[list[Node], str] | None]:
    """Per pattern, the list its one capture's nodes go to (fingerprint rules, comments)."""
    return [
        (fingerprint_captures[rule[0]], rule[1])
        if rule is not None
        else (comments, "comment")
        if role == _R_COMMENT_NODE
        else None
        for rule, role in zip(compiled.fingerprint_patterns, compiled.roles, strict=True)
    ]


def _collect_def(
    source: bytes,
    caps: dict[str, list[Node]],
    compiled: _Compiled,
    pattern: int,
    defs: list[_Def],
    def_by_name: dict[int, int],
) -> None:
    """One definition match of ``pattern``; of two sharing a ``@name`` node the larger one
    wins. A pattern with ``(#set! def.parents "a b")`` counts only under such parents."""
    names = caps.get("name")
    if not names:
        return
    def_capture = compiled.def_captures[pattern]
    name_node = names[0]
    kind = SymbolKind.FUNCTION
    node = name_node
    if def_capture is not None:
        def_nodes = caps.get(def_capture[0])
        if def_nodes:
            kind = def_capture[1]
            node = def_nodes[0]
    else:
        for key, nodes in caps.items():
            found_kind = _DEF_CAPTURES.get(key)
            if found_kind is not None:
                kind = found_kind
                node = nodes[0]
                break
    allowed = compiled.def_parents[pattern]
    if allowed is not None and ((parent := node.parent) is None or parent.type not in allowed):  # (parent: one walk)
        return
    start = node.start_byte
    end = node.end_byte
    name_start = name_node.start_byte
    previous = def_by_name.get(name_start)
    if previous is not None:
        old = defs[previous]
        if old.end - old.start >= end - start:
            return
    bodies = caps.get("body")
    body_start = body_end = doc_start = doc_end = -1
    if bodies:
        body = bodies[0]
        body_start = body.start_byte
        body_end = body.end_byte
        docstring_rule = compiled.spec.docstring
        if docstring_rule is not None:
            doc_start, doc_end = _docstring(body, docstring_rule)
    receivers = caps.get("receiver")
    name = _decode(source[name_start : name_node.end_byte])
    strip = compiled.spec.name_strip
    if strip:
        name = name.strip(strip)
    receiver = _type_ref(_decode(source[receivers[0].start_byte : receivers[0].end_byte])) if receivers else None
    separator = compiled.spec.scope_separator
    if separator is not None:
        name, receiver = _split_scoped(name, receiver, separator)
    item = _Def(  # (positional: a dozen keywords cost more than the call)
        start,
        end,
        kind,
        name,
        name_start,
        body_start,
        body_end,
        doc_start,
        doc_end,
        receiver,
        node.start_point[0] + 1,
        node.end_point[0] + 1,
    )
    if "def.toplevel" in compiled.settings[pattern]:
        item.toplevel = True
    if previous is not None:
        defs[previous] = item
    else:
        def_by_name[name_start] = len(defs)
        defs.append(item)


_OPERATOR_SPACE = re.compile(r"\boperator (?=[^\w\s])")


def _split_scoped(name: str, receiver: str | None, separator: str) -> tuple[str, str | None]:
    """``app::Store::save`` -> (``save``, ``app.Store``): a name written with its scope
    (template arguments dropped, whitespace normalised), the scope joined to ``receiver``."""
    if " " in name or "\n" in name or "\t" in name:
        name = " ".join(name.split()).replace(" <", "<").replace("< ", "<").replace(" >", ">")
        name = name.replace(f" {separator}", separator).replace(f"{separator} ", separator)
        name = _OPERATOR_SPACE.sub("operator", name)  # `operator ()` is `operator()`
    plain = name
    while "<" in plain and ">" in plain and not plain.startswith("operator"):
        stripped = _GENERIC.sub("", plain)
        if stripped == plain:
            break
        plain = stripped
    if separator not in plain:
        return plain, receiver
    head, _, last = plain.rpartition(separator)
    scope = ".".join(part for part in head.split(separator) if part)
    if not last:
        return name, receiver
    if not scope:  # `::f`: the global namespace
        return last, receiver
    return last, f"{receiver}.{scope}" if receiver else scope


# ----------------------------------------------------------------------------- qualification


def _qualify(
    defs: list[_Def],
    scopes: list[tuple[int, int, str]],
    tags: list[str | None],
    merge: frozenset[SymbolKind] = frozenset(),
    method_containers: frozenset[SymbolKind] = _CLASS_LIKE,
) -> tuple[list[_Def], list[str | None], list[tuple[int, int, str]], int]:
    """Assign qualnames, kinds (method promotion) and parents, in source order.

    Duplicates are disambiguated by ``overloads.qualify_duplicate`` with each callable's
    overload tag (``tags``, by index into ``defs``). A definition of a kind in ``merge``
    opened again (a C++ namespace block, a reopened Ruby class) is no new symbol: it
    qualifies what it holds like the first.

    Definitions nested deeper than ``MAX_NESTING`` (with everything inside them) are
    dropped. Returns the kept definitions (``parent_index`` renumbered), each one's parent
    qualname, the containers (definitions and scopes) as ``(start, end, qualname)`` and the
    number of modules merged into an earlier one.
    """
    # (start, -end, is_def, index); a scope sorts before a definition with the same range
    items = [(d.start, -d.end, 1, i) for i, d in enumerate(defs)]
    items.extend((s, -e, 0, i) for i, (s, e, _name) in enumerate(scopes))
    items.sort()
    # stack entries: (end, qualname, container kind or None for a scope, nearest def index)
    stack: list[tuple[int, str, SymbolKind | None, int]] = []
    seen: dict[tuple[str, SymbolKind], int] = {}
    stubs: dict[tuple[str, SymbolKind], int] = {}
    taken: set[str] = set()
    containers: list[tuple[int, int, str]] = []
    kept_index: dict[int, int] = {}
    kept: list[_Def] = []
    opened: dict[tuple[str, SymbolKind], int] = {}  # merge: (qualname, kind) -> its first definition
    merged = 0
    for start, neg_end, is_def, index in items:
        end = -neg_end
        while stack and stack[-1][0] < end:
            stack.pop()
        if len(stack) >= MAX_NESTING:
            stack.append((end, "", None, -1))  # dropped, and so is everything inside
            continue
        prefix = stack[-1][1] if stack else ""
        container_kind = stack[-1][2] if stack else None
        nearest_def = stack[-1][3] if stack else -1
        if not is_def:
            name = scopes[index][2]
            qual = f"{prefix}.{name}" if prefix else name
            stack.append((end, qual, None, nearest_def))
            containers.append((start, end, qual))
            continue
        d = defs[index]
        if d.toplevel:  # (a macro: the preprocessor knows no namespace or class)
            prefix, container_kind, nearest_def = "", None, -1
        d.parent_index = kept_index[nearest_def] if nearest_def >= 0 else -1
        qual = _place(d, prefix, bool(prefix) or (bool(stack) and not d.toplevel), container_kind, method_containers)
        if d.kind in merge:
            first = opened.setdefault((qual, d.kind), index)
            if first != index:  # the same one again: a scope of the first one's name
                stack.append((end, qual, d.kind, first))
                containers.append((start, end, qual))
                merged += 1
                continue
        key = (qual, d.kind)
        tag = tags[index] if d.kind in _CALLABLE else None
        counter = stubs if tag == STUB else seen
        count = counter.get(key, 0) + 1
        counter[key] = count
        qual = qualify_duplicate(qual, tag, count, count, taken)
        taken.add(qual)
        d.qualname = qual
        kept_index[index] = len(kept)
        kept.append(d)
        stack.append((end, qual, d.kind, index))
        containers.append((start, end, qual))
    return kept, _parents(kept), containers, merged


def _place(
    d: _Def, prefix: str, inside: bool, container: SymbolKind | None, method_containers: frozenset[SymbolKind]
) -> str:
    """``d``'s plain qualname inside ``prefix`` (``inside`` a container of kind ``container``,
    None for a scope); sets its receiver/scope qualifier and promotes a function to a method
    inside a scope or a definition of one of ``method_containers``."""
    d.scope_qual = None  # (set again below: a second pass starts afresh)
    if d.receiver:
        scope_qual = f"{prefix}.{d.receiver}" if prefix else d.receiver
        d.scope_qual = scope_qual
        if d.kind is SymbolKind.FUNCTION:
            d.kind = SymbolKind.METHOD
        return f"{scope_qual}.{d.name}"
    if inside and container is None:
        d.scope_qual = prefix
    if d.kind is SymbolKind.FUNCTION and inside and (container is None or container in method_containers):
        d.kind = SymbolKind.METHOD
    return f"{prefix}.{d.name}" if prefix else d.name


def _parents(kept: list[_Def]) -> list[str | None]:
    """Each kept definition's parent qualname: its receiver or scope when that is a symbol
    of the file, else its enclosing definition."""
    qualnames = {d.qualname for d in kept}
    parents: list[str | None] = []
    for d in kept:
        if d.scope_qual is not None:
            parents.append(d.scope_qual if d.scope_qual in qualnames else None)
        elif d.parent_index >= 0:
            parents.append(kept[d.parent_index].qualname)
        else:
            parents.append(None)
    return parents


# ----------------------------------------------------------------------------- fingerprints


def _fingerprint(
    source: bytes,
    defs: list[_Def],
    cuts: list[tuple[int, int]],
    captures: dict[str, list[Node]],
    language: Language,
    scheme: int,
    root: Node | None = None,
) -> tuple[list[str], list[str]]:
    """Signatures (the head, comments cut, whitespace-normalised: shown to users) and the
    token-stream hashes of ``fingerprint.py`` (``sig_hash`` set on each def)."""
    cut_starts = [c[0] for c in cuts]
    signatures = _signatures(
        [_cut(source, d.start, d.body_start if d.body_start >= 0 else d.end, cuts, cut_starts, []) for d in defs]
    )
    if scheme == 1:
        legacy = [
            LegacyDef(
                d.start, d.end, d.kind.value, d.name, d.body_start, d.body_end, d.doc_start, d.doc_end, d.parent_index
            )
            for d in defs
        ]
        hashes = legacy_fingerprints(source, legacy, cuts)
    else:
        spans = [def_span(d.start, d.end, d.body_start, d.body_end, d.doc_start, d.doc_end) for d in defs]
        hashes = fingerprint(language, source, spans, captures, cuts, root)
    for d, (sig_hash, _body) in zip(defs, hashes, strict=True):
        d.sig_hash = sig_hash
    return signatures, [body for _sig, body in hashes]


def _signatures(heads: list[bytes]) -> list[str]:
    """The heads normalised and decoded: in one pass over them all, joined by NUL (neither
    whitespace nor an identifier character, so no head's normalisation sees its neighbours),
    unless a head holds a NUL itself."""
    joined = b"\0".join(heads)
    if joined.count(b"\0") != len(heads) - 1:
        return [_decode(_normalise(head)) for head in heads]
    return _decode(_normalise(joined)).split("\0") if heads else []


def _cut(
    source: bytes,
    start: int,
    end: int,
    cuts: list[tuple[int, int]],
    cut_starts: list[int],
    replaced: list[tuple[int, int, bytes]],
) -> bytes:
    """``source[start:end]`` without the cut ranges (comments, each left as one space), and
    with the ``replaced`` ranges (sorted, disjoint) swapped for their replacement bytes.
    Comments inside a replaced range are skipped by bisection, not visited."""
    i = bisect_left(cut_starts, start)
    if not replaced and (i == len(cut_starts) or cut_starts[i] >= end):
        return source[start:end]
    count = len(cut_starts)
    parts: list[bytes] = []
    pos = start
    for seg_start, seg_end, replacement in [*replaced, (end, end, b"")]:
        if seg_start < pos:
            continue
        i = bisect_left(cut_starts, pos, i)
        while i < count and cut_starts[i] < seg_start:
            comment_start, comment_end = cuts[i]
            parts.append(source[pos:comment_start])
            parts.append(b" ")
            pos = min(comment_end, seg_start)
            i += 1
        parts.append(source[pos:seg_start])
        parts.append(replacement)
        pos = seg_end
    return b"".join(parts)


# ----------------------------------------------------------------------------- references


class _Intervals:
    """Laminar (nested or disjoint) byte ranges; finds the innermost one containing a byte."""

    __slots__ = ("_enclosing", "_ends", "_labels", "_starts")

    def __init__(self, ranges: list[tuple[int, int, str]]) -> None:
        ranges.sort(key=lambda r: (r[0], -r[1]))
        self._starts = [r[0] for r in ranges]
        self._ends = [r[1] for r in ranges]
        self._labels = [r[2] for r in ranges]
        self._enclosing: list[int] = []
        stack: list[int] = []
        ends = self._ends
        for end in ends:
            while stack and ends[stack[-1]] < end:
                stack.pop()
            self._enclosing.append(stack[-1] if stack else -1)
            stack.append(len(self._enclosing) - 1)

    def innermost(self, pos: int) -> str:
        ends = self._ends
        enclosing = self._enclosing
        i = bisect_right(self._starts, pos) - 1
        while i >= 0 and ends[i] <= pos:
            i = enclosing[i]
        return self._labels[i] if i >= 0 else ""


#: Callee text -> (callee, last segment, the bytes after the last dot or ``_UNCLEAR``), for
#: the file being parsed: ``parse_source`` empties it after each file. (Kept across files, it
#: pinned the allocator's arenas: a parse worker grew by ~45 MB over the standard library,
#: and the hits saved no measurable time.)
_callees: dict[bytes, tuple[str, str, bytes]] = {}
#: The text after a called expression's last dot is no bare name (``x. \\`` + newline +
#: ``format``): its last name is the node's ``attribute`` field.
_UNCLEAR = b"\0"


def _callee_of(text: bytes) -> tuple[str, str, bytes]:
    """``_callee`` of a called expression's bytes, its last segment and the bytes after its
    last dot (``_UNCLEAR``: no bare name; cached per file)."""
    found = _callees.get(text)
    if found is None:
        callee = _callee(_decode(text))
        tail = text[text.rfind(b".") + 1 :]
        found = _callees[text] = (
            callee,
            callee[max(callee.rfind("."), callee.rfind(":")) + 1 :],
            _UNCLEAR if tail and tail[0] in _NOT_A_NAME_START else tail,
        )
    return found


def _with_bare_calls(defs: list[_Def], found: _Collected) -> list[_RawCall]:
    """The raw calls, and the ``@reference.call.bare`` names that no ``@local`` of their
    innermost function (its parameters, assignments, block parameters) holds."""
    if not found.bare_calls:
        return found.raw_calls
    functions = _Intervals([(d.start, d.end, d.qualname) for d in defs if d.kind in _CALLABLE])
    held: set[tuple[str, bytes]] = {(functions.innermost(pos), name) for pos, name in found.locals}
    found.raw_calls.extend(
        (pos, name, line, -1, "", None)
        for pos, name, line in found.bare_calls
        if (functions.innermost(pos), name) not in held
    )
    return found.raw_calls


def _attribute_calls(
    defs: list[_Def], raw_calls: list[_RawCall], names: frozenset[bytes]
) -> tuple[tuple[CallRef, ...], list[Node]]:
    """CallRefs in source order; the caller is found by sweeping calls and definitions
    (both sorted by start) with a stack of the definitions open at the call. And the called
    expressions whose last name is one of ``names`` (``_Compiled.callees``: the calls the
    rewrites of ``_call_rewrites`` are tried at), told by the last name ``_callee_of``
    found once per callee text (of the calls collected: a call a pattern's
    ``reference.call.except`` drops is not tried)."""
    if not raw_calls:
        return (), []
    raw_calls.sort(key=_FIRST)
    starts = [d.start for d in defs]
    ends = [d.end for d in defs]
    quals = [d.qualname for d in defs]
    count = len(defs)
    refs: list[CallRef] = []
    called: list[Node] = []
    triggers = names | {_UNCLEAR} if names else names
    stack: list[int] = []
    j = 0
    for pos, text, line, args, shape, node in raw_calls:
        while j < count and starts[j] <= pos:
            while stack and ends[stack[-1]] <= starts[j]:
                stack.pop()
            stack.append(j)
            j += 1
        while stack and ends[stack[-1]] <= pos:
            stack.pop()
        found = _callees.get(text) or _callee_of(text)
        if found[0]:
            refs.append(call_ref(quals[stack[-1]] if stack else "", found[0], found[1], line, args, shape))
        if found[2] in triggers and node is not None and (found[2] is not _UNCLEAR or _calls_one_of(node, names)):
            called.append(node)
    return tuple(refs), called


def _attribute_bases(
    scopes: _Intervals | None, bases: list[tuple[int, str, InheritKind, int]]
) -> tuple[InheritRef, ...]:
    if scopes is None or not bases:
        return ()
    bases.sort(key=_FIRST)
    refs: list[InheritRef] = []
    for pos, parent, kind, line in bases:
        child = scopes.innermost(pos)
        if child:
            refs.append(inherit_ref(child, parent, kind, line))
    return tuple(refs)


# ----------------------------------------------------------------------------- typed names


def _count_named(node: Node, source: bytes) -> int:
    """Named children that are not comments (arguments, parameters); without a comment
    character in its text, every named child counts."""
    start, end = node.start_byte, node.end_byte
    if source.find(b"#", start, end) < 0 and source.find(b"/", start, end) < 0 and source.find(b"--", start, end) < 0:
        return node.named_child_count
    # (one list of the children: ``named_child(i)`` walks from the first child each time)
    return sum(1 for child in node.named_children if not child.is_extra)


_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(.*)\]$")


_PLAIN_TYPE = re.compile(r"[*&]*((?:[^\W\d]\w*\.)*[^\W\d]\w*)\Z")
#: Predeclared scalar types of the first six languages: never a repository type, not kept
#: (a language spec may name its own: ``LanguageSpec.builtin_types``).
_PRIMITIVE_TYPES = frozenset(
    [
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "byte",
        "rune",
        "string",
        "bool",
        "error",
        "any",
        "str",
        "float",
        "bytes",
        "complex",
        "None",
        "object",
        "void",
        "boolean",
        "long",
        "short",
        "double",
        "char",
        "number",
        "bigint",
        "symbol",
        "unknown",
        "never",
        "undefined",
        "null",
        "usize",
        "isize",
        "u8",
        "u16",
        "u32",
        "u64",
        "u128",
        "i8",
        "i16",
        "i32",
        "i64",
        "i128",
        "f32",
        "f64",
        "String",
        "Object",
        "Integer",
        "Long",
        "Boolean",
        "Double",
    ]
)


def _type_text(text: str) -> str:
    """A stated type reduced to the one type it names (``""`` when it names several):
    quotes, ``Optional[X]``, ``X | None``, Go result lists ``(*X, error)`` and pointer,
    reference and generic decorations are removed."""
    plain = _PLAIN_TYPE.match(text)
    if plain:
        return plain.group(1)
    text = _SPACE.sub(" ", text).strip().strip("\"'")
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1].split(",", 1)[0].strip()
        text = text.rsplit(" ", 1)[-1] if " " in text and not text.startswith(("*", "[")) else text
    match = _OPTIONAL.match(text)
    if match:
        text = match.group(1)
    if "|" in text:
        parts = [p.strip() for p in text.split("|") if p.strip() not in ("None", "null", "undefined")]
        if len(parts) != 1:
            return ""
        text = parts[0]
    for prefix in ("&mut ", "&", "mut ", "*", "?"):
        text = text.removeprefix(prefix)
    return _type_ref(text)


#: Stated type text (sigils dropped, separator written ``::``) -> ``_type_text`` of it, for the
#: file being parsed (emptied after each file, as ``_callees``): a file states the same few
#: types over and over (Go's and Rust's parameters, fields and locals).
_type_texts: dict[bytes, str] = {}


def _type_text_of(written: bytes) -> str:
    """``_type_text`` of a stated type's bytes (cached per file)."""
    found = _type_texts.get(written)
    if found is None:
        found = _type_texts[written] = _type_text(_decode(written))
    return found


def _collect_type(
    source: bytes,
    caps: dict[str, list[Node]],
    setting: dict[str, str | None],
    compiled: _Compiled,
    pattern: int,
    raw: list[tuple[int, str, str, bool, int, bool]],
) -> None:
    """One ``@type.var`` (+ ``@type.annotation`` or ``@type.call``) or ``@type.returns`` match
    of ``pattern`` (only the captures the pattern can have are looked up)."""
    builtins = compiled.builtin_types
    if not compiled.captures[pattern].isdisjoint(_RETURNS_CAPTURES) and _collect_returned(source, caps, raw, compiled):
        return
    var = caps["type.var"][0]
    raw_name = source[var.start_byte : var.end_byte]
    name = _decode(raw_name) if raw_name.isascii() and raw_name.isalnum() else _node_text(source, var)
    sigils = compiled.spec.sigils
    if sigils:
        name = name.lstrip(sigils)
    prefix = setting.get("type.prefix")
    if prefix:
        name = prefix + name
    annotations = caps.get("type.annotation")
    calls = caps.get("type.call")
    values = caps.get("type.value")
    if values:
        text = _callee_of(source[values[0].start_byte : values[0].end_byte])[0]
        if text and name and text != name:
            raw.append((var.start_byte, name, text, False, var.start_point[0] + 1, True))
        return
    stated = annotations or calls
    unwrapped = _unwrapped(compiled, source, stated[0]) if stated and compiled.unwrap is not None else None
    if unwrapped is not None:
        text, from_call = unwrapped, False
    elif annotations:
        text = _type_text_of(_cleaned(compiled, source[annotations[0].start_byte : annotations[0].end_byte]))
        if text in builtins:
            return
        from_call = False
    elif calls:
        text = _callee_of(_cleaned(compiled, _called_text(source, calls[0])))[0]
        from_call = True
    else:
        return
    if text and name:
        raw.append((var.start_byte, name, text, from_call, var.start_point[0] + 1, False))


_RETURNS_CAPTURES = frozenset({"type.returns", "type.returns.call", "type.returns.value"})


def _cleaned(compiled: _Compiled, text: bytes) -> bytes:
    """``text`` with the language's sigils dropped and its separator alias made ``::``."""
    return compiled.clean(text) if compiled.clean is not None else text


def _called_text(source: bytes, node: Node) -> bytes:
    """The called part of a captured call: up to its ``arguments``/``block`` when the node
    is a whole call with those fields (Ruby ``build(1)``), else the node's text."""
    end = node.end_byte
    for name in ("arguments", "block"):
        child = node.child_by_field_name(name)
        if child is not None:
            end = min(end, child.start_byte)
    return source[node.start_byte : end]


def _unwrapped(compiled: _Compiled, source: bytes, node: Node) -> str | None:
    """The type a stated wrapper type stands for (``unwrap_types``), or None."""
    assert compiled.unwrap is not None
    match = compiled.unwrap.match(_decode(source[node.start_byte : node.end_byte]))
    return match.group(1) if match else None


def _collect_returned(
    source: bytes,
    caps: dict[str, list[Node]],
    raw: list[tuple[int, str, str, bool, int, bool]],
    compiled: _Compiled,
) -> bool:
    """A ``@type.returns`` (``.call``/``.value``) match; False when the match has none."""
    returns = caps.get("type.returns")
    if returns:
        node = returns[0]
        unwrapped = _unwrapped(compiled, source, node) if compiled.unwrap is not None else None
        text = unwrapped or _type_text_of(_cleaned(compiled, source[node.start_byte : node.end_byte]))
        if text and text not in compiled.builtin_types:
            raw.append((node.start_byte, "", text, False, node.start_point[0] + 1, False))
        return True
    for key, attr in (("type.returns.call", False), ("type.returns.value", True)):
        returned = caps.get(key)
        if returned:  # `return Foo(...)` / `return x`: what that call / value is
            node = returned[0]
            called = _called_text(source, node) if not attr else source[node.start_byte : node.end_byte]
            text = _callee_of(_cleaned(compiled, called))[0]
            if text:
                raw.append((node.start_byte, "", text, not attr, node.start_point[0] + 1, attr))
            return True
    return False


def _attribute_types(
    scopes: _Intervals | None, raw: list[tuple[int, str, str, bool, int, bool]]
) -> tuple[TypeRef, ...]:
    if scopes is None or not raw:
        return ()
    raw.sort(key=_FIRST)
    innermost = scopes.innermost
    return tuple(
        [type_ref(innermost(pos), name, text, from_call, line, attr) for pos, name, text, from_call, line, attr in raw]
    )


# ----------------------------------------------------------------------------- imports


def _node_text(source: bytes, node: Node) -> str:
    return _SPACE.sub("", _decode(source[node.start_byte : node.end_byte]))


def _collect_import(
    source: bytes,
    spec: LanguageSpec,
    caps: dict[str, list[Node]],
    setting: dict[str, str | None],
    raw: list[_RawImport],
) -> None:
    statements = caps.get("import")
    modules = caps.get("import.module")
    paths = caps.get("import.path")
    aliases = caps.get("import.alias")
    anchors = statements or paths or modules or caps.get("import.name")
    if not anchors:
        return
    anchor = anchors[0]
    module = setting.get("import.module")
    if module is None and modules:
        # (a quantified capture: the segments of a path written without a node of its own)
        module = (
            _node_text(source, modules[0]) if len(modules) == 1 else ".".join(_node_text(source, n) for n in modules)
        )
        if spec.quoted_modules:
            module = module.strip("\"'`")
    names = [_node_text(source, n) for n in caps.get("import.name", ())]
    constant_name = setting.get("import.name")
    if constant_name is not None:
        names.append(constant_name)
    item = _RawImport(
        key=anchor.start_byte if statements else -1,
        order=len(raw),
        line=anchor.start_point[0] + 1,
        module=module,
        names=names,
        alias=_node_text(source, aliases[0]) if aliases else None,
        mod_decl="import.mod_decl" in setting,
        pos=anchor.start_byte,
    )
    if paths:
        item.path = (
            _node_text(source, paths[0])
            if len(paths) == 1
            else spec.path_separator.join(_node_text(source, n) for n in paths)
        )
        item.path_start = paths[0].start_byte
        if not statements:
            item.key = -1 - paths[0].start_byte
    raw.append(item)


def _finish_imports(
    raw: list[_RawImport], import_scopes: list[tuple[int, int, str, int]], spec: LanguageSpec, functions: _Intervals
) -> tuple[ImportRef, ...]:
    if not raw:
        return ()
    sep = spec.path_separator
    import_scopes.sort(key=lambda s: (s[0], -s[1]))
    for item in raw:
        if item.path is None:
            continue
        enclosing = [s for s in import_scopes if s[0] <= item.path_start < s[1]]
        if enclosing and item.key < 0:
            item.key = enclosing[0][0]
            item.line = enclosing[0][3]
        full = sep.join([s[2] for s in enclosing] + [item.path])
        module, _, name = full.rpartition(sep)
        item.module = module
        item.names.append(name)
    with_content = {(item.key, item.module) for item in raw if item.names or item.alias is not None}
    groups: dict[tuple[int, str, str | None, bool], _RawImport] = {}
    for item in raw:
        if item.module is None:
            continue
        if not item.names and item.alias is None and (item.key, item.module) in with_content:
            continue
        group_key = (item.key, item.module, item.alias, item.mod_decl)
        group = groups.get(group_key)
        if group is None:
            groups[group_key] = item
        else:
            group.names.extend(n for n in item.names if n not in group.names)
    ordered = sorted(groups.values(), key=lambda g: (g.line, g.order))
    return tuple(
        ImportRef(
            module=g.module or "",
            names=tuple(dict.fromkeys(g.names)),
            line=g.line,
            alias=g.alias,
            is_mod_decl=g.mod_decl,
            scope=functions.innermost(g.pos),
        )
        for g in ordered
    )
