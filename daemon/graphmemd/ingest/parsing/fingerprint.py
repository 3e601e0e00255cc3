"""Formatter-proof fingerprints: a definition's significant tokens, hashed.

A fingerprint is computed from the syntax tree, per language, by rules kept as data in
``parsing/fingerprints/<language>.toml`` (beside the extraction queries). The rules name
node types by role; the engine turns them into one tree-sitter query, runs it once per
file (in C, no Python recursion: arbitrarily deep files are safe) and rewrites the source
text into a token stream:

``skip``
    Comments, line continuations, statement semicolons (by pattern): dropped.
``strings``
    Replaced by their *value*: quote style, prefix case (``u``/``R``/``F``), escape
    spelling (``\\x41`` = ``A``) and implicit concatenation do not matter; every character
    of the value does, whitespace included. Only bytes-vs-text is kept from the prefix.
    f-string/template interpolations are fingerprinted as code.
``numbers_nodes``
    Replaced by their value (``0XFF`` = ``255``, ``1E5`` = ``1e5``, ``1_000`` = ``1000``);
    Python keeps int/float/complex apart, JavaScript numbers are all doubles.
``unwrap``
    The node's bracket tokens are dropped (grouping parentheses).
``group`` / ``tuples``
    The node is bracketed by markers in the stream, so the tree's shape survives without
    parentheses or indentation: ``(a + b) * c`` differs from ``a + b * c`` but ``(a * b) + c``
    equals ``a * b + c``; a statement moved out of a Python ``block`` changes the stream.
    ``tuples`` are also unwrapped (``return (a, b)`` = ``return a, b``).
``ends``
    Only the end of the node is marked: enough where the start is fixed by the syntax
    (a Python ``block`` starts after the ``:`` of its header).
``rewrites``
    Forms that mean the same as another, each a ``[[rewrites]]`` entry: a query pattern
    capturing ``@node`` (helper captures start with ``_``, for predicates), an ``op`` the
    engine implements once, generically, and its parameters (``text``, ``literal``). An
    entry whose pattern is rooted at a call lists the names the call's callee ends with
    (``calls``): its pattern then runs only at those calls (``Rules.callees``), not over the
    whole tree; what it matches is the same. An entry whose pattern is rooted at a node type
    (``at``) and matches only where one of its ``words`` is written inside that node runs
    only at the innermost such node around each occurrence of a word in the file
    (``Rules.word_scans``: ``__metaclass__ = type`` and ``metaclass=type``, rooted at the
    class).
    Ops: ``skip`` (drop), ``drop_empty``, ``text`` (rendered as ``text``), ``drop_arg``
    (an argument and its comma), ``unwrap_call`` (a call rendered as its only argument),
    ``literal`` (rendered as the literal ``literal``), ``callee`` (a call rendered as its
    callee, the last name replaced by ``text``), ``bytes_literal`` (``"a".encode()`` as
    ``b"a"``), ``format`` (``"{} {x}".format(a, x=b)`` as the f-string with the same
    fields), ``super_args`` (``super(C, self)`` in a method of ``C`` as ``super()``),
    ``dedupe`` (a tuple of alternatives with a repeated member, after aliases, as the
    tuple without it), ``annotation`` (a type annotation, see below).
``aliases``
    Names (or dotted names) that mean another one: ``IOError = "OSError"``.
``annotations``
    A type annotation is rendered as its canonical text (``parsing/annotations.py``:
    ``Optional[X]`` = ``X | None``, ``List`` = ``list``, quoted = unquoted), bracketed by
    annotation markers. The ``sig_hash`` of a head with annotations is two halves: the
    hash of the stream without them (and their ``:``/``->``) and the hash of the stream
    with them, so equal hashes still mean "nothing changed" and an annotation-only change
    is told apart (``graph.model.sig_halves``); a head without annotations has one half
    (its structure is its whole). In a body the annotations are plain code.
``patterns``
    Context-dependent rules as query patterns (``@skip``, ``@unwrap``, ``@nogroup``,
    ``@nogroup_single``, ``@drop_empty``, ``@replace``, ``@unquote``), e.g. a statement's
    semicolon, ``f((x for x in y))``, ``{'a': 1}`` = ``{a: 1}``.

What remains of the text is compared token-wise: whitespace is dropped except one space
between two identifier characters, and a comma directly before a closing bracket (a
trailing comma) is dropped. Leading docstrings of every definition are cut.

The head (definition start to body start) gives ``sig_hash``; the body gives
``body_hash``. A body includes everything nested in it: a change inside a nested
function, closure, lambda or method changes the body hash of every enclosing definition
(a class's body hash changes when one of its methods changes), while a sibling's hashes
do not change. Positions never enter a hash.

``FINGERPRINT_SCHEME`` versions this definition: stored hashes computed under another
scheme are not comparable and must be recomputed (re-anchored), never compared.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import threading
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from string import Formatter
from typing import Any

from tree_sitter import Node

from graphmemd.graph.model import Language, SymbolKind, sig_halves
from graphmemd.ingest.parsing.annotations import AnnotationRules, canonical, rules_from_table
from graphmemd.ingest.parsing.overloads import OverloadRules
from graphmemd.ingest.parsing.rules_file import ROLE_LISTS, read_rules_file
from graphmemd.ingest.parsing.textscan import Scan, occurrences, plan

__all__ = [
    "CAPTURE_PREFIX",
    "FINGERPRINT_SCHEME",
    "DefSpan",
    "Rules",
    "fingerprint",
    "load_rules",
    "pattern_roles",
    "sig_halves",
    "split_matches",
    "token_streams",
]

#: Version of the fingerprint definition. 1: whitespace-stripped text with nested
#: definitions replaced by markers; 2: significant-token stream from the syntax tree;
#: 3: equivalent forms rewritten (``rewrites``, ``aliases``), annotations canonical and a
#: head's hash in two halves (structure, with annotations).
FINGERPRINT_SCHEME = 3

#: f-string interpolations nested deeper than this are hashed as raw text.
_MAX_STRING_DEPTH = 16

_WHITESPACE = b" \t\n\r\f\v"
#: Identifier characters: whitespace between two of them is significant (``return x``).
_IDENT = rb"A-Za-z0-9_$\x80-\xff"
#: A trailing comma: a comma before a closing bracket or group marker.
_TRAILING_COMMA = re.compile(rb",(?=[\)\]\}\x03])")

# stream markers (never produced by source text: strings are hex-encoded, and control
# characters in code outside strings and comments are a syntax error)
_OPEN = b"\x02"
_CLOSE = b"\x03"
_BOUNDARY = b"\x05"
_KEEP_SPACE = b"\x06"
_STR = b"\x01"
_TUPLE = b"\x04"
_ANNOTATION = b"\x07"
#: An annotation in a stream: marker, text, marker.
_ANNOTATED = re.compile(rb"\x07[^\x07]*\x07")

# Single bytes are looked up as ints: ``b"x" in data`` first tries ``b"x"`` as an int, and
# the TypeError it raises and clears costs ~8x the lookup (thousands per file).
_B = ord("b")
_F = ord("f")
_R = ord("r")
_LBRACE = ord("{")
_BACKSLASH = ord("\\")
_DOT = ord(".")
#: the bytes a name goes on with on either side (``_IDENT``): a hit beside one is in a longer name
_NAME_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$" + bytes(range(0x80, 0x100)))

# event kinds, in their order at one position: group closes and definition boundaries
# (interleaved: a boundary follows the closes of the nodes inside its definition and
# precedes those of the nodes around it), group opens, replacements (outer first)
_E_CLOSE = 0
_E_OPEN = 2
_E_REPLACE = 3


def _hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class DefSpan:
    """Byte ranges of one definition: whole, body (``-1``: none), leading docstring (``-1``: none)."""

    start: int
    end: int
    body_start: int
    body_end: int
    doc_start: int
    doc_end: int


@dataclass(frozen=True, slots=True)
class Rules:
    """One language's fingerprint rules (see the module docstring for the roles).

    ``query_source`` holds the rules as query patterns whose captures are named
    ``fp.<role>``; the extractor runs them in its own query (one pass over the tree) and
    hands the captured nodes to :func:`fingerprint`."""

    language: Language
    query_source: str
    numbers: str
    escapes: str
    number_types: frozenset[str]
    concatenation: frozenset[str]
    prefix: frozenset[str]
    interpolation: frozenset[str]
    #: ``#{...}`` interpolates in double-quoted strings (Ruby)
    hash_interpolation: bool
    replace: dict[bytes, bytes]
    overloads: OverloadRules | None
    #: ``skip_in``: token -> the parent node types in which it is dropped
    skip_in: dict[str, frozenset[str]]
    #: the ``[[rewrites]]`` entries, by index (capture ``fp.rw<index>``)
    rewrites: tuple[Rewrite, ...] = ()
    #: ``[aliases]``: name -> the name it means
    aliases: dict[bytes, bytes] | None = None
    #: ``[alias_nodes]``: the node type of a plain name and of a dotted one
    alias_nodes: tuple[str, str] = ("", "")
    #: how the ``aliases`` are searched for in a source (``textscan.plan``), those of
    #: ``[aliases_where]`` apart: (the word a source must hold for them to apply, or b"" for
    #: every source; their scans)
    alias_scans: tuple[tuple[bytes, tuple[Scan, ...]], ...] = ()
    annotations: AnnotationRules | None = None
    #: canonical annotation texts already computed (``_canonical``)
    canonical: dict[bytes, bytes] = field(default_factory=dict)
    #: the patterns of the rewrites that name a ``callee`` (captures ``fp.rw<index>``): not in
    #: ``query_source``, the extractor runs them only at the calls whose callee's last name
    #: is in ``callees``, each call alone (in the file's query, a dozen call-rooted patterns
    #: were tried at every call of every file)
    call_query_source: str = ""
    callees: frozenset[bytes] = frozenset()
    #: the rewrites that name ``words`` and the node type they are rooted ``at``: their
    #: patterns are in ``call_query_source`` too, run only at the innermost node of that type
    #: around each occurrence of one of the words in the source (``word_scans``; a pattern
    #: over every class body in the file's query cost more than all the rest of its rule)
    word_scans: tuple[Scan, ...] = ()
    word_roots: dict[bytes, str] = field(default_factory=dict)
    #: the ``[[rewrites]]`` by their captures' role (``rw<index>``), in order (a name built
    #: per file and rewrite cost more than looking the roles up)
    rewrite_roles: tuple[tuple[str, Rewrite], ...] = ()


@dataclass(frozen=True, slots=True)
class Rewrite:
    """One ``[[rewrites]]`` entry: what its ``@node`` captures is rendered as."""

    rule: str
    op: str
    #: ``text`` op: the replacement; ``callee``: the callee's new last name
    text: bytes = b""
    #: ``literal`` op: the value token of the literal, by the text of the node's callee
    #: (``b""``: whatever the callee)
    literal: dict[bytes, bytes] = field(default_factory=dict)


_OPS = frozenset(
    {
        "skip", "drop_empty", "text", "drop_arg", "unwrap_call", "literal", "callee", "bytes_literal",
        "format", "super_args", "dedupe", "annotation", "type_expression", "field", "member",
    }
)  # fmt: skip


_PATTERN_CAPTURE = re.compile(r"@(?!_)(\w+)")
#: The capture a rewrite's pattern names its node with.
_NODE_CAPTURE = re.compile(r"@node\b")
_CAPTURE_NAME = re.compile(r"@([\w.]+)")
#: Prefix of the rules' capture names inside the extractor's combined query.
CAPTURE_PREFIX = "fp."
_rules: dict[Language, Rules] = {}
_rules_lock = threading.Lock()


def _token_list(tokens: Sequence[str], capture: str) -> str:
    quoted = " ".join('"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"' for t in tokens)
    return f"[{quoted}] @{CAPTURE_PREFIX}{capture}\n" if tokens else ""


def _node_list(types: Sequence[str], capture: str) -> str:
    return f"[{' '.join(f'({t})' for t in types)}] @{CAPTURE_PREFIX}{capture}\n" if types else ""


def load_rules(language: Language) -> Rules:
    """The rules of ``language`` (read once per process)."""
    found = _rules.get(language)
    if found is not None:
        return found
    with _rules_lock:
        found = _rules.get(language)
        if found is not None:
            return found
        data = read_rules_file(language.value)
        source = "".join(_node_list(data.get(key, []), capture) for key, capture in ROLE_LISTS)
        skip_in = {str(token): frozenset(parents) for token, parents in data.get("skip_in", {}).items()}
        source += _token_list(sorted(skip_in), "skip_in")
        patterns = str(data.get("patterns", {}).get("query", ""))
        source += _PATTERN_CAPTURE.sub(lambda m: f"@{CAPTURE_PREFIX}{m.group(1)}", patterns)
        rewrites = tuple(_rewrite(entry, str(data.get("numbers", "generic"))) for entry in data.get("rewrites", []))
        call_source = ""
        callees: set[bytes] = set()
        word_roots: dict[bytes, str] = {}
        for k, entry in enumerate(data.get("rewrites", [])):
            pattern = _NODE_CAPTURE.sub(f"@{CAPTURE_PREFIX}rw{k}", str(entry["query"])) + "\n"
            if entry.get("calls"):  # run only on the calls of those names (see ``Rules.callees``)
                call_source += pattern
                callees.update(str(name).encode() for name in entry["calls"])
            elif entry.get("words"):  # run only around those words (see ``Rules.word_scans``)
                call_source += pattern
                for word, at in _word_roots(entry).items():
                    if word_roots.setdefault(word, at) != at:
                        raise ValueError(f"the word {word!r} of two fingerprint rewrites is rooted at two node types")
            else:
                source += pattern
        aliases = {str(k): str(v) for k, v in data.get("aliases", {}).items()}
        groups = [("", list(aliases))]
        for word, table in data.get("aliases_where", {}).items():  # (only in a source naming ``word``)
            groups.append((str(word), [str(k) for k in table]))
            aliases.update((str(k), str(v)) for k, v in table.items())
        nodes = data.get("alias_nodes", {})
        parts = data.get("string_parts", {})
        found = Rules(
            language=language,
            query_source=source,
            numbers=str(data.get("numbers", "generic")),
            escapes=str(data.get("escapes", "c")),
            number_types=frozenset(data.get("numbers_nodes", [])),
            concatenation=frozenset(parts.get("concatenation", [])),
            prefix=frozenset(parts.get("prefix", [])),
            interpolation=frozenset(parts.get("interpolation", [])),
            hash_interpolation=bool(parts.get("hash_interpolation", False)),
            replace={k.encode(): str(v).encode() for k, v in data.get("replace", {}).items()},
            overloads=_overload_rules(data.get("overloads")),
            skip_in=skip_in,
            rewrites=rewrites,
            aliases={k.encode(): v.encode() for k, v in aliases.items()} or None,
            alias_nodes=(str(nodes.get("name", "")), str(nodes.get("dotted", ""))),
            alias_scans=tuple((w.encode(), _alias_plan(w, names)) for w, names in groups if names),
            annotations=rules_from_table(data.get("annotations")),
            call_query_source=call_source,
            callees=frozenset(callees),
            word_scans=plan(list(word_roots)),
            word_roots=word_roots,
            rewrite_roles=tuple((f"rw{k}", rewrite) for k, rewrite in enumerate(rewrites)),
        )
        _rules[language] = found
        return found


def _word_roots(entry: dict[str, Any]) -> dict[bytes, str]:
    """A ``words`` rewrite's words, each with the node type its pattern is rooted ``at``."""
    at = str(entry.get("at", ""))
    query = str(entry.get("query", ""))
    if not at or not re.match(rf"\(*{re.escape(at)}\b", query.strip()):
        raise ValueError(f"a fingerprint rewrite with words names the node type its pattern is rooted at: {query!r}")
    return {str(word).encode(): at for word in entry["words"]}


def _rewrite(entry: dict[str, Any], numbers: str) -> Rewrite:
    op = str(entry.get("op", ""))
    query = str(entry.get("query", ""))
    if op not in _OPS:
        raise ValueError(f"unknown fingerprint rewrite op {op!r} (one of {sorted(_OPS)})")
    if not _NODE_CAPTURE.search(query):
        raise ValueError(f"a fingerprint rewrite captures @node: {query!r}")
    literal = entry.get("literal", {})
    literals = {b"": literal} if isinstance(literal, str) else {str(k): str(v) for k, v in literal.items()}
    return Rewrite(
        rule=str(entry.get("rule", "")),
        op=op,
        text=str(entry.get("text", "")).encode(),
        literal={str(k).encode(): _literal_token(str(v), numbers) for k, v in literals.items()},
    )


def _literal_token(literal: str, numbers: str) -> bytes:
    """The value token a literal written in the rules renders as (a string's, a number's or,
    for a name such as ``False``, the name)."""
    quote = literal.lstrip("bBrRuU")
    if quote[:1] in ("'", '"'):
        prefix = literal[: len(literal) - len(quote)].lower()
        return _STR + (b"b" if "b" in prefix else b"s") + quote[1:-1].encode().hex().encode() + _STR
    if literal[:1].isdigit():
        return b" " + number_value(literal, numbers).encode() + b" "
    return b" " + literal.encode() + b" "


def _overload_rules(table: dict[str, Any] | None) -> OverloadRules | None:
    if not table:
        return None
    return OverloadRules(
        stub_decorator=str(table.get("stub_decorator", "")),
        decorator_type=str(table.get("decorator_type", "decorator")),
        by_arity=table.get("by") == "arity",
        parameters=str(table.get("parameters", "parameters")),
        parameter_list=str(table.get("parameter_list", "")),
        parameter_children=str(table.get("parameter_children", "")),
        drop_declarations=bool(table.get("drop_declarations", False)),
        merge=frozenset(SymbolKind(k) for k in table.get("merge", [])),
    )


# ----------------------------------------------------------------------------- literals

_PY_INT = re.compile(r"(0[xob][0-9a-f]+|\d+)")
_GENERIC_NUMBER = re.compile(r"(0x[0-9a-f]+|0o[0-7]+|0b[01]+|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)([a-z]\w*)?")


def number_value(text: str, style: str) -> str:
    """A numeric literal's canonical value (its text, lower-cased, when it cannot be read)."""
    t = text.replace("_", "").replace("'", "").lower()
    try:
        if style == "python":
            if t.endswith("j"):
                return "j" + repr(float(t[:-1]))
            if _PY_INT.fullmatch(t):
                return "i" + str(int(t, 0) if t[:2] in ("0x", "0o", "0b") else int(t))
            return "f" + repr(float(t))
        if style == "js":
            if t.endswith("n"):
                return "n" + str(int(t[:-1], 0))
            if t[:2] in ("0x", "0o", "0b"):
                return repr(float(int(t, 0)))
            if len(t) > 1 and t[0] == "0" and t.isdigit():  # legacy octal
                return repr(float(int(t, 8)))
            return repr(float(t))
        m = _GENERIC_NUMBER.fullmatch(t)
        if m is None:
            return t
        digits, suffix = m.group(1), m.group(2) or ""
        if digits[:2] in ("0x", "0o", "0b"):
            return str(int(digits, 0)) + suffix
        if "." in digits or "e" in digits:
            return repr(float(digits)) + suffix
        return str(int(digits)) + suffix
    except (ValueError, OverflowError):
        return t


_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "0": "\0",
    "a": "\a",
    "e": "\x1b",
    "\n": "",
    "\r\n": "",
}
_PY_SIMPLE = frozenset("\\'\"abfnrtv\n\r")
_PY_ESCAPE = re.compile(r"\\(N\{[^}]*\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\r\n|[\s\S])")
_C_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\r\n|[\s\S])")
_LETTERS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ#@"


def escape_value(text: str, style: str, is_bytes: bool) -> str:
    """The characters one escape sequence stands for (``\\x41`` -> ``A``)."""
    body = text[1:]
    try:
        if style == "python":
            lead = body[:1]
            if is_bytes and lead in ("u", "U", "N"):
                return text  # not an escape in bytes
            if lead not in _PY_SIMPLE and not lead.isdigit() and lead not in ("x", "u", "U", "N"):
                return text  # an unknown escape keeps its backslash
            return str(codecs.decode(text.encode("ascii"), "unicode_escape"))
        if body in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[body]
        if body[:2] == "u{" and body.endswith("}"):
            return chr(int(body[2:-1], 16))
        if body[:1] in ("x", "u", "U"):
            return chr(int(body[1:], 16))
        if body[:1].isdigit():
            return chr(int(body, 8))
        return body
    except (ValueError, UnicodeError, OverflowError):
        return text


def decode_escapes(text: str, style: str, is_bytes: bool) -> str:
    """A literal part of a string with every escape sequence decoded."""
    pattern = _PY_ESCAPE if style == "python" else _C_ESCAPE
    return pattern.sub(lambda m: escape_value(m.group(0), style, is_bytes), text)


# ----------------------------------------------------------------------------- the stream


@dataclass(slots=True)
class _Events:
    """Edits of the source text: ``keys`` sorted packed ints (see ``_events``), and the
    replacement payloads (bytes) and literal nodes they index."""

    keys: list[int]
    data: list[bytes | Node | _Plan]


@dataclass(frozen=True, slots=True)
class _Plan:
    """A rewrite's rendering: bytes as they are, ``(start, end)`` source ranges rendered."""

    parts: tuple[bytes | tuple[int, int], ...]


class _Renderer:
    """Rewrites a byte range of the source into the token stream (before whitespace
    normalisation): skipped ranges become a space, strings and numbers value tokens,
    groups get markers, and each boundary position a boundary marker."""

    def __init__(self, source: bytes, rules: Rules, events: _Events) -> None:
        self.source = source
        self.rules = rules
        self.events = events
        # literal value tokens by source text, for this file only (a cache kept across files
        # pinned the allocator's arenas in the parse workers)
        self.numbers: dict[bytes, bytes] = {}
        self.strings: dict[bytes, bytes] = {}

    def render(self, start: int, end: int, depth: int = 0, tags: list[int] | None = None) -> bytes:
        """The stream for ``source[start:end]``; the boundary tags met (emitted or inside a
        replaced range), in stream order, are appended to ``tags``."""
        source = self.source
        keys = self.events.keys
        data = self.events.data
        parts: list[bytes] = []
        append = parts.append
        literal = self._literal
        # (the constants as locals: this loop runs once per event)
        pos_shift, kind_shift, sub_shift, tie_shift = _POS_SHIFT, _KIND_SHIFT, _SUB_SHIFT, _TIE_SHIFT
        index_mask, tie_mask, tie_bias, marks, boundary = _INDEX_MASK, _TIE_MASK, _TIE_BIAS, _MARKS, _BOUNDARY
        pos = start
        replaced = replaced_end = -1  # the range of the last replacement
        first = bisect_left(keys, start << pos_shift)
        for k in keys[first : bisect_left(keys, (end + 1) << pos_shift, first)]:
            at = k >> pos_shift
            kind = k >> kind_shift & 3
            if at < pos:  # inside a range already replaced
                if tags is not None and kind != _E_REPLACE and k >> sub_shift & 3 != 1:
                    tags.append(k & index_mask)
                continue
            if at == end and (kind != _E_CLOSE or tie_bias - (k >> tie_shift & tie_mask) < start):
                break  # (closes at the end of the range: only of nodes that start inside it)
            if kind == _E_REPLACE:
                stop = tie_bias - (k >> tie_shift & tie_mask)
                if stop <= end:  # (a replacement crossing the range end keeps its text)
                    append(source[pos:at])
                    item = data[k & index_mask]
                    append(item if item.__class__ is bytes else literal(item, at, stop, depth))  # type: ignore[arg-type]
                    pos = stop
                    replaced, replaced_end = at, stop
                continue
            if depth and at == start and kind == _E_OPEN and tie_bias - (k >> tie_shift & tie_mask) > end:
                continue  # (a rewrite's part: the open of a node around it, already emitted)
            if at == replaced_end and kind == _E_CLOSE and replaced < tie_bias - (k >> tie_shift & tie_mask) < pos:
                continue  # the close of a node inside the range just replaced
            append(source[pos:at])
            pos = at
            if k >> sub_shift & 3 == 1:
                append(marks[k & 3])
            else:
                append(boundary)
                if tags is not None:
                    tags.append(k & index_mask)
        append(source[pos:end])
        return b"".join(parts)

    def _plan(self, plan: _Plan, depth: int) -> bytes:
        """A rewrite's rendering."""
        return b"".join(p if isinstance(p, bytes) else self.render(p[0], p[1], depth + 1) for p in plan.parts)

    def _literal(self, node: Node | _Plan, start: int, end: int, depth: int) -> bytes:
        """A string's or number's value token (cached by text when it depends on nothing
        else), or a rewrite's rendering (``node`` is a ``_Plan``)."""
        if node.__class__ is _Plan:  # (not isinstance: this runs once per literal)
            return self._plan(node, depth)
        string: Node = node  # type: ignore[assignment]
        text = self.source[start:end]
        rules = self.rules
        kind = string.type
        if kind in rules.number_types:
            found = self.numbers.get(text)
            if found is None:
                number = number_value(text.decode("ascii", "replace"), rules.numbers)
                found = self.numbers[text] = b" " + number.encode() + b" "
            return found
        if kind in rules.concatenation:
            return self._string(string, depth)
        found = self.strings.get(text)
        if found is None:
            value = self._plain_string(text)
            if value is None:
                return self._string(string, depth)
            found = self.strings[text] = value
        return found

    def _plain_string(self, text: bytes) -> bytes | None:
        """One string literal without interpolations as its value token (None: it has some)."""
        found = plain_string(text, self.rules)
        if found is None:
            return None
        prefix, value = found
        return _STR + (b"b" if _B in prefix else b"s") + value.hex().encode() + _STR

    def _string(self, node: Node, depth: int) -> bytes:
        """``\\x01``, kind (``s`` text, ``b`` bytes), the value (hex, adjacent literal parts
        joined) with interpolations as ``\\x02 code \\x03``, ``\\x01``."""
        rules = self.rules
        pieces: list[bytes] = []
        literal: list[str] = []
        kind = "s"
        strings = [c for c in node.children if not c.is_extra] if node.type in rules.concatenation else [node]
        for string in strings:
            if string.child_count == 0:  # a macro between the parts (C: `"%" PRIu64 "\\n"`): code
                pieces.append(_hex(literal))
                literal.clear()
                pieces.append(_OPEN + self.source[string.start_byte : string.end_byte] + _CLOSE)
                continue
            flags, start, end = self._delimiters(string)
            if "b" in flags:
                kind = "b"
            pos = start
            for child in string.children:
                if child.type not in rules.interpolation or child.start_byte < start or child.end_byte > end:
                    continue
                literal.append(self._text(pos, child.start_byte, flags))
                code = self._interpolation(child, literal, depth)
                pieces.append(_hex(literal))
                literal.clear()
                pieces.append(_OPEN + code + _CLOSE)
                pos = child.end_byte
            literal.append(self._text(pos, end, flags))
        pieces.append(_hex(literal))
        return _STR + kind.encode() + b"".join(pieces) + _STR

    def _interpolation(self, node: Node, literal: list[str], depth: int) -> bytes:
        """An interpolation as code. A self-documenting one (``{x=}``) is its text as a
        literal followed by ``{x!r}`` (no conversion or format given), as Python reads it."""
        if depth >= _MAX_STRING_DEPTH:
            return self.source[node.start_byte : node.end_byte]
        children = node.children
        equals = next((c for c in children if c.type == "=" and not c.is_named), None)
        if equals is None or len(children) < 3:
            return self.render(node.start_byte, node.end_byte, depth + 1)
        after = children[children.index(equals) + 1].start_byte if equals is not children[-1] else equals.end_byte
        literal.append(self.source[children[0].end_byte : after].decode("utf-8", "replace"))
        explicit = any(c.type in ("type_conversion", "format_specifier") for c in children)
        head = self.render(node.start_byte, equals.start_byte, depth + 1)
        return head + (b"" if explicit else b"!r") + self.render(equals.end_byte, node.end_byte, depth + 1)

    def _delimiters(self, string: Node) -> tuple[str, int, int]:
        """Prefix letters (lower case) and the byte range of the value between the quotes.

        The opening delimiter is the first child (``r'``, ``f\"\"\"``, a quote, a backtick);
        the closing one is as long as the opening one without its prefix letters."""
        source = self.source
        first = string.child(0) if string.child_count else None
        if first is None or (first.is_named and first.type not in self.rules.prefix):
            opening = source[string.start_byte : string.start_byte + 1]
        else:
            opening = source[first.start_byte : first.end_byte]
        quote = opening.lstrip(_LETTERS)
        flags = opening[: len(opening) - len(quote)].decode("ascii", "replace").lower()
        start = string.start_byte + len(opening)
        end = max(start, string.end_byte - len(quote))
        return flags, start, end

    def _text(self, start: int, end: int, flags: str) -> str:
        """A literal part of a string's value, escapes decoded (unless raw)."""
        text = self.source[start:end].decode("utf-8", "replace")
        if "r" not in flags and "\\" in text:
            text = decode_escapes(text, self.rules.escapes, "b" in flags)
        if "f" in flags:
            text = text.replace("{{", "{").replace("}}", "}")
        return text


def plain_string(text: bytes, rules: Rules) -> tuple[bytes, bytes] | None:
    """A string literal's prefix (lower case) and value (escapes decoded), or None when it
    has interpolations (or is not a quoted literal)."""
    quote = text.lstrip(_LETTERS)
    prefix = text[: len(text) - len(quote)].lower()
    q = quote[:1]
    width = 3 if quote[:3] == q * 3 and len(quote) >= 6 else 1
    value = quote[width : len(quote) - width]
    if not q or not quote.endswith(q * width) or (_LBRACE in value and (_F in prefix or q == b"`")):
        return None
    if q == b'"' and value.find(b"#{") >= 0 and rules.hash_interpolation:
        return None
    if _BACKSLASH in value and _R not in prefix:
        value = decode_escapes(value.decode("utf-8", "replace"), rules.escapes, _B in prefix).encode(
            "utf-8", "surrogatepass"
        )
    return prefix, value


def _hex(literal: list[str]) -> bytes:
    return "".join(literal).encode("utf-8", "surrogatepass").hex().encode()


# An event is one int, so that sorting plain ints orders them (low to high bits):
# index (24 bits: payload/literal index in ``_Events.data`` for a replacement, boundary
# tag, or marker in ``_MARKS``), sub (2: the boundary/group order at one place), tie
# (26: ``_TIE_BIAS - end`` of the node for opens and replacements, outer first, and
# ``_TIE_BIAS - start`` for closes, inner first), kind (2), position (24).
_INDEX_BITS = 24
_INDEX_MASK = (1 << _INDEX_BITS) - 1
_SUB_SHIFT = _INDEX_BITS
_TIE_SHIFT = _SUB_SHIFT + 2
_TIE_BIAS = 1 << 25
_TIE_MASK = (1 << 26) - 1
_KIND_SHIFT = _TIE_SHIFT + 26
_POS_SHIFT = _KIND_SHIFT + 2
_GROUP_SUB = 1 << _SUB_SHIFT  # a group marker (not a boundary)
#: Group markers by index: a close, an open, a tuple's open.
_MARKS = (_CLOSE, _OPEN, _OPEN + _TUPLE)
_REPLACE_HEAD = _E_REPLACE << _KIND_SHIFT
_BIASED = _TIE_BIAS << _TIE_SHIFT
_OPEN_HEAD = _E_OPEN << _KIND_SHIFT


class _EventList:
    """Builds the packed event keys and the data their replacements index."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.data: list[bytes | Node | _Plan] = []

    # The hot methods compute ``a << _POS_SHIFT | head | (_TIE_BIAS - b) << _TIE_SHIFT`` as
    # ``(a << p) - (b << t) + (head + _BIASED)``: the fields do not overlap (``b`` < the
    # bias), so the sum is the same int with fewer operations.

    def replace(self, ranges: Sequence[tuple[int, int]], payload: bytes | _Plan, sub: int = 1) -> None:
        """Replace each range by ``payload`` (one shared data entry)."""
        head = (_REPLACE_HEAD | sub << _SUB_SHIFT | len(self.data)) + _BIASED
        self.data.append(payload)
        p, t = _POS_SHIFT, _TIE_SHIFT
        self.keys.extend([(s << p) - (e << t) + head for s, e in ranges])

    def literals(self, nodes: Sequence[Node]) -> None:
        """Replace each node by its value token (rendered lazily)."""
        base = len(self.data)
        self.data.extend(nodes)
        p, t = _POS_SHIFT, _TIE_SHIFT
        first = (_REPLACE_HEAD | _GROUP_SUB) + _BIASED + base  # (+ the node's index)
        self.keys.extend([(n.start_byte << p) - (n.end_byte << t) + i for i, n in enumerate(nodes, first)])

    def groups(self, ranges: Sequence[tuple[int, int]], mark: int) -> None:
        """Bracket each range by markers (``mark``: index of the open marker; 0: only the close)."""
        p, t = _POS_SHIFT, _TIE_SHIFT
        if mark:
            head = (_OPEN_HEAD | _GROUP_SUB | mark) + _BIASED
            self.keys.extend([(s << p) - (e << t) + head for s, e in ranges])
        tail = _GROUP_SUB + _BIASED
        self.keys.extend([(e << p) - (s << t) + tail for s, e in ranges])

    def boundaries(self, spans: Sequence[DefSpan]) -> None:
        """Definition boundaries (index: tag = 4 * span index + role). A group with the range
        of a definition encloses it (a class block around its only method); one with the
        range of a body is inside the body (a Python block)."""
        keys = self.keys
        head = _OPEN_HEAD | 2 << _SUB_SHIFT
        keys.extend(
            [s.start << _POS_SHIFT | head | (_TIE_BIAS - s.end) << _TIE_SHIFT | 4 * k for k, s in enumerate(spans)]
        )
        keys.extend(
            [s.end << _POS_SHIFT | (_TIE_BIAS - s.start) << _TIE_SHIFT | 4 * k + 3 for k, s in enumerate(spans)]
        )
        bodies = [(4 * k, s.body_start, s.body_end) for k, s in enumerate(spans) if s.body_start >= 0]
        head = _OPEN_HEAD
        keys.extend([s << _POS_SHIFT | head | (_TIE_BIAS - e) << _TIE_SHIFT | t + 1 for t, s, e in bodies])
        tail = 2 << _SUB_SHIFT
        keys.extend([e << _POS_SHIFT | tail | (_TIE_BIAS - s) << _TIE_SHIFT | t + 2 for t, s, e in bodies])


def _events(
    source: bytes,
    rules: Rules,
    spans: Sequence[DefSpan],
    caps: Mapping[str, Sequence[Node]],
    comments: Sequence[tuple[int, int]],
    lo: int,
    hi: int,
    root: Node | None = None,
) -> _Events:
    """Collect the edits of ``source[lo:hi]`` from the rules' captures, the comment ranges
    and the definitions. Replacements of one range are applied in the order they are
    added here (the first wins)."""
    events = _EventList()
    nogroup = {(n.start_byte, n.end_byte) for n in caps.get("nogroup", ())}
    for n in caps.get("nogroup_single", ()):
        if sum(1 for c in n.named_children if not c.is_extra) == 1:
            nogroup.add((n.start_byte, n.end_byte))
    events.replace([c for c in comments if lo <= c[0] < hi], b" ")
    skipped = list(caps.get("skip", ()))
    tokens = caps.get("skip_in")
    if tokens:  # a token dropped only under some parents
        skip_in = rules.skip_in
        skipped.extend(n for n in tokens if (p := n.parent) is not None and p.type in skip_in.get(n.type, ()))
    events.replace([(n.start_byte, n.end_byte) for n in skipped], b" ")
    if rules.rewrites or rules.aliases:
        _rewrites(events, source, rules, caps, nogroup, (lo, hi, root))
    events.literals(caps.get("string", ()))
    events.literals(caps.get("number", ()))
    for n in caps.get("replace", ()):
        text = source[n.start_byte : n.end_byte]
        events.replace([(n.start_byte, n.end_byte)], b" " + rules.replace.get(text, text) + b" ")
    events.replace(
        [(n.start_byte, n.end_byte) for n in caps.get("drop_empty", ()) if all(c.is_extra for c in n.named_children)],
        b" ",
    )
    # a quoted property name that needs no quotes is the bare name ({'a': 1} is {a: 1});
    # sorts before the string capture of the same node
    for n in caps.get("unquote", ()):
        bare = source[n.start_byte + 1 : n.end_byte - 1]
        if _BARE_NAME.fullmatch(bare):
            events.replace([(n.start_byte, n.end_byte)], b" " + bare + b" ", 0)
    events.replace(_brackets(caps), b" ")
    for name, mark in (("group", 1), ("tuple", 2), ("end", 0)):
        if name == "tuple":  # `for (x) in`: a parenthesised name, not a tuple
            ranges = [
                (n.start_byte, n.end_byte)
                for n in caps.get(name, ())
                if n.named_child_count != 1 or any(c.type == "," for c in n.children)
            ]
        else:
            ranges = [(n.start_byte, n.end_byte) for n in caps.get(name, ())]
        if nogroup:
            ranges = [r for r in ranges if r not in nogroup]
        events.groups(ranges, mark)
    events.boundaries(spans)
    # docstrings sort before a string starting at the same byte
    events.replace([(s.doc_start, s.doc_end) for s in spans if s.doc_start >= 0], b" ", 0)
    events.keys.sort()
    return _Events(events.keys, events.data)


def _alias_plan(word: str, names: Sequence[str]) -> tuple[Scan, ...]:
    """The scans for the aliases ``names``: those of an ``[aliases_where]`` group (``word``)
    one per plain name, which finds its dotted forms too (``Dict``: ``t.Dict``, ``typing.Dict``;
    the longest first: ``DefaultDict`` before ``Dict``)."""
    keys = sorted((n.encode() for n in names if "." not in n), key=lambda k: (-len(k), k)) if word else []
    return plan([n.encode() for n in names], keys=keys)


def _rewrites(
    events: _EventList,
    source: bytes,
    rules: Rules,
    caps: Mapping[str, Sequence[Node]],
    nogroup: set[tuple[int, int]],
    span: tuple[int, int, Node | None],
) -> None:
    """The replacements of the ``[[rewrites]]`` and ``[aliases]`` captures (added before the
    literals': a rewrite of a string wins over its value token). ``span``: the range to
    search for aliased names and the tree's root."""
    lo, hi, root = span
    aliases = rules.aliases
    if aliases and root is not None:
        # (found by text: a query pattern over every identifier cost more; the texts in a
        # few shared scans, ``textscan``: one scan per alias cost ~3 instructions a byte each)
        plain, dotted = rules.alias_nodes
        size = len(source)
        for word, scans in rules.alias_scans:
            if word and word not in source:
                continue  # (`Dict` means `typing.Dict` only in a source that imports from typing)
            for start, text in occurrences(source, scans, lo, hi):
                end = start + len(text)
                if (start and source[start - 1] in _NAME_BYTES) or (end < size and source[end] in _NAME_BYTES):
                    continue  # part of a longer name (`TypeError` for `Type`): no node of its own
                n = root.named_descendant_for_byte_range(start, end)
                wanted = dotted if _DOT in text else plain
                # (not in a string or a comment, nor part of a longer name)
                if n is not None and n.type == wanted and n.start_byte == start and n.end_byte == end:
                    events.replace([(start, end)], b" " + aliases[text] + b" ")
    for role, rewrite in rules.rewrite_roles:
        nodes = caps.get(role)
        if nodes:
            for n in nodes:
                found = _apply(rewrite, n, source, rules, nogroup)
                if found is not None:
                    start, end, payload = found
                    events.replace([(start, end)], payload)


def _apply(
    rewrite: Rewrite, n: Node, source: bytes, rules: Rules, nogroup: set[tuple[int, int]]
) -> tuple[int, int, bytes | _Plan] | None:
    """The range ``n``'s rewrite replaces and what it renders as (None: it does not apply)."""
    op = rewrite.op
    start, end = n.start_byte, n.end_byte
    if op == "skip":
        return start, end, b" "
    if op == "drop_empty":
        return (start, end, b" ") if all(c.is_extra for c in n.named_children) else None
    if op == "text":
        return start, end, b" " + rewrite.text + b" "
    if op == "literal":
        function = n.child_by_field_name("function")
        token = rewrite.literal.get(_text(source, function) if function is not None else b"", rewrite.literal.get(b""))
        return None if token is None else (start, end, token)
    if op == "drop_arg":
        after, before = n.next_sibling, n.prev_sibling
        if after is not None and after.type == ",":
            return start, after.end_byte, b" "
        if before is not None and before.type == ",":
            return before.start_byte, end, b" "
        return start, end, b" "
    if op == "annotation":
        return _annotation(n, source, rules)
    if op == "type_expression":
        return (start, end, b" " + _canonical(_text(source, n), rules) + b" ") if rules.annotations else None
    if op == "field":
        child = n.child_by_field_name(rewrite.text.decode())
        return None if child is None else (start, end, _Plan(((child.start_byte, child.end_byte),)))
    if op == "member":
        return _member(n, source, rules)
    if op == "dedupe":
        return _dedupe(n, source, rules, nogroup)
    plan = _callee(n, rewrite.text) if op == "callee" else _PLANS[op](n, source, rules)
    return None if plan is None else (start, end, plan)


def _member(n: Node, source: bytes, rules: Rules) -> tuple[int, int, _Plan] | None:
    """``o["name"]`` is ``o.name`` when the key is a plain identifier (``n``: the subscript;
    its ``object`` and ``index`` fields)."""
    obj, index = n.child_by_field_name("object"), n.child_by_field_name("index")
    if obj is None or index is None:
        return None
    found = plain_string(_text(source, index), rules)
    if found is None or _B in found[0] or not _BARE_NAME.fullmatch(found[1]):
        return None
    between = source[obj.end_byte : index.start_byte]
    if between.strip() != b"[":
        return None  # (an optional chain: o?.["a"])
    return n.start_byte, n.end_byte, _Plan(((obj.start_byte, obj.end_byte), b"." + found[1]))


def _args(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    return [] if arguments is None else [c for c in arguments.named_children if not c.is_extra]


def _unwrap_call(n: Node, source: bytes, rules: Rules) -> _Plan | None:
    """``str("a")`` is ``"a"``: the call rendered as its only argument."""
    args = _args(n)
    return _Plan(((args[0].start_byte, args[0].end_byte),)) if len(args) == 1 else None


def _callee(n: Node, text: bytes) -> _Plan | None:
    """``lru_cache(maxsize=None)`` is ``cache``: the callee, its last name replaced."""
    function = n.child_by_field_name("function")
    if function is None:
        return None
    last = function.child_by_field_name("attribute") if function.type == "attribute" else function
    if last is None:
        return None
    return _Plan(((function.start_byte, last.start_byte), b" " + text + b" "))


def _bytes_literal(n: Node, source: bytes, rules: Rules) -> _Plan | None:
    """``"a".encode()`` (or with ``"utf-8"``) is ``b"a"`` when the text is ASCII."""
    function = n.child_by_field_name("function")
    string = function.child_by_field_name("object") if function is not None else None
    if string is None or string.type != "string":
        return None
    found = plain_string(source[string.start_byte : string.end_byte], rules)
    if found is None or _B in found[0] or not found[1].isascii():
        return None
    args = _args(n)
    if args:
        arg = args[0].child_by_field_name("value") if args[0].type == "keyword_argument" else args[0]
        encoding = plain_string(source[arg.start_byte : arg.end_byte], rules) if arg is not None else None
        if len(args) > 1 or encoding is None or encoding[1].lower().replace(b"-", b"") != b"utf8":
            return None
    return _Plan((_STR + b"b" + found[1].hex().encode() + _STR,))


def _super_args(n: Node, source: bytes, rules: Rules) -> _Plan | None:
    """``super(C, self)`` in a method of class ``C`` whose first parameter is ``self`` is
    ``super()`` (``n``: the argument list)."""
    args = [source[c.start_byte : c.end_byte] for c in n.named_children if not c.is_extra]
    function = n.parent
    while function is not None and function.type not in ("function_definition", "lambda", "class_definition"):
        function = function.parent
    if len(args) != 2 or function is None or function.type != "function_definition":
        return None
    holder = function.parent
    if holder is not None and holder.type == "decorated_definition":
        holder = holder.parent
    cls = holder.parent if holder is not None else None
    name = cls.child_by_field_name("name") if cls is not None and cls.type == "class_definition" else None
    params = function.child_by_field_name("parameters")
    first = next((c for c in params.named_children if not c.is_extra), None) if params is not None else None
    if first is not None and first.type != "identifier":
        first = None
    if name is None or first is None or args != [source[name.start_byte : name.end_byte], _text(source, first)]:
        return None
    return _Plan((b"()",))


def _text(source: bytes, n: Node) -> bytes:
    return source[n.start_byte : n.end_byte]


#: what an argument that ``format`` does not use may be for the call to be its f-string (ruff's
#: UP032 drops it): read without an effect (a name, an attribute: as a repeated argument)
_NO_EFFECT = frozenset({"identifier", "attribute", "string", "integer", "float", "true", "false", "none"})


def _format(n: Node, source: bytes, rules: Rules) -> _Plan | None:
    """``"{} {x}".format(a, x=b)`` is ``f"{a} {x}"`` with ``x`` = ``b``: the call rendered as
    the f-string's stream, when every argument is used or is read without an effect (a name,
    an attribute, a literal: ``'Not valid.'.format(value)`` is ``'Not valid.'``), by plain
    fields (a name, an index, attributes), no argument but a name or attribute twice, and no
    ``*``/``**``."""
    function = n.child_by_field_name("function")
    string = function.child_by_field_name("object") if function is not None else None
    if string is not None and string.type == "parenthesized_expression":
        string = string.named_children[0] if string.named_child_count == 1 else None
    if string is None:
        return None
    parts = [c for c in string.named_children if not c.is_extra] if string.type == "concatenated_string" else [string]
    value = b""
    for part in parts:
        found = plain_string(_text(source, part), rules) if part.type == "string" else None
        if found is None or _B in found[0]:
            return None
        value += found[1]
    positional: list[Node] = []
    keywords: dict[str, Node] = {}
    for arg in _args(n):
        if arg.type == "keyword_argument":
            name, val = arg.child_by_field_name("name"), arg.child_by_field_name("value")
            if name is None or val is None:
                return None
            keywords[_text(source, name).decode("utf-8", "replace")] = val
        elif arg.type in ("list_splat", "dictionary_splat", "generator_expression"):
            return None
        else:
            positional.append(arg)
    try:
        fields = list(_formatter_parser(value.decode("utf-8", "surrogatepass")))
    except (ValueError, UnicodeError):
        return None
    out: list[bytes | tuple[int, int]] = [_STR + b"s"]
    literal: list[str] = []
    auto = 0
    numbered = False
    used: dict[int, int] = {}
    for text, field_name, spec, conversion in fields:
        literal.append(text)
        if field_name is None:
            continue
        m = _FIELD.fullmatch(field_name)
        if m is None or "{" in (spec or ""):
            return None
        key, attributes = m.group(1), m.group(2)
        if key == "":
            if numbered:
                return None
            key, auto = str(auto), auto + 1
        elif key.isdigit():
            if auto:
                return None  # (mixing "{}" and "{0}" is an error when it runs)
            numbered = True
        value_of = positional[int(key)] if key.isdigit() and int(key) < len(positional) else keywords.get(key)
        if value_of is None:
            return None
        used[value_of.start_byte] = used.get(value_of.start_byte, 0) + 1
        if used[value_of.start_byte] > 1 and value_of.type not in ("identifier", "attribute"):
            return None
        out.append(_hex(literal))
        literal.clear()
        tail = attributes + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
        out.extend((_OPEN + b"{", (value_of.start_byte, value_of.end_byte), tail.encode() + b"}" + _CLOSE))
    unused = [a for a in (*positional, *keywords.values()) if a.start_byte not in used]
    if any(a.type not in _NO_EFFECT for a in unused):
        return None  # an argument the string does not use is still evaluated: a call's effect stays
    out.extend((_hex(literal), _STR))
    return _Plan(tuple(out))


#: A plain replacement field: a name or index and attributes (``0.real``), no ``[key]``.
_FIELD = re.compile(r"(\w*)((?:\.[A-Za-z_]\w*)*)")


def _formatter_parser(value: str) -> list[tuple[str, str | None, str | None, str | None]]:
    return list(Formatter().parse(value))


_PLANS = {
    "unwrap_call": _unwrap_call,
    "bytes_literal": _bytes_literal,
    "super_args": _super_args,
    "format": _format,
}


def _annotation(n: Node, source: bytes, rules: Rules) -> tuple[int, int, bytes] | None:
    """An annotation with its ``:``/``->``: its canonical text between annotation markers."""
    annotations = rules.annotations
    if annotations is None:
        return None
    start = n.start_byte
    before = n.prev_sibling
    lead = b""
    if before is not None and not before.is_named and before.type in (":", "->"):
        start, lead = before.start_byte, before.type.encode()
    return start, n.end_byte, b" " + _ANNOTATION + lead + _canonical(_text(source, n), rules) + _ANNOTATION + b" "


def _canonical(text: bytes, rules: Rules) -> bytes:
    """An annotation's canonical text, remembered per language (annotations repeat: ``str``,
    ``Optional[str]``; at most ``_CANONICAL_MAX`` kept)."""
    cache = rules.canonical
    found = cache.get(text)
    if found is None:
        if len(cache) >= _CANONICAL_MAX:
            cache.clear()
        annotations = rules.annotations
        assert annotations is not None
        value = canonical(text.decode("utf-8", "replace"), annotations).encode("utf-8", "surrogatepass")
        found = cache[text] = value.replace(_ANNOTATION, b"")
    return found


_CANONICAL_MAX = 4096


def _dedupe(
    n: Node, source: bytes, rules: Rules, nogroup: set[tuple[int, int]]
) -> tuple[int, int, bytes | _Plan] | None:
    """A tuple of alternatives (``except (OSError, IOError)``) with a member repeated after
    aliases: the tuple without the repeats (one member left: that member, no tuple)."""
    members = [c for c in n.named_children if not c.is_extra]
    aliases = rules.aliases or {}
    seen: dict[bytes, Node] = {}
    for c in members:
        key = b"".join(_text(source, c).split())
        seen.setdefault(aliases.get(key, key), c)
    if len(seen) == len(members):
        return None
    kept = list(seen.values())
    parts: list[bytes | tuple[int, int]] = []
    for c in kept:
        parts.extend(((c.start_byte, c.end_byte), b","))
    if len(kept) == 1:
        nogroup.add((n.start_byte, n.end_byte))
    return n.start_byte, n.end_byte, _Plan(tuple(parts[:-1]))


def _brackets(caps: Mapping[str, Sequence[Node]]) -> list[tuple[int, int]]:
    """The bracket tokens of the ``unwrap`` and ``tuple`` captures."""
    brackets: list[tuple[int, int]] = []
    for name in ("unwrap", "tuple"):
        for n in caps.get(name, ()):
            count = n.child_count
            first = n.child(0)
            last = n.child(count - 1)
            if count < 2 or first is None or last is None or first.is_named or last.is_named:
                continue
            if first.type in _OPENERS and last.type in _CLOSERS:
                brackets.append((first.start_byte, first.end_byte))
                brackets.append((last.start_byte, last.end_byte))
    return brackets


_OPENERS = frozenset({"(", "[", "{"})
_BARE_NAME = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_CLOSERS = frozenset({")", "]", "}"})
#: A whitespace run between two identifier characters.
_IDENT_SPACE = re.compile(rb"(?<=[" + _IDENT + rb"])\s+(?=[" + _IDENT + rb"])")
#: A space (the only whitespace left after ``split``/``join``) between two identifier characters.
_IDENT_GAP = re.compile(rb" (?<=[" + _IDENT + rb"] )(?=[" + _IDENT + rb"])")


def normalise(stream: bytes) -> bytes:
    """Whitespace-insensitive form of a stream: one space only between identifier
    characters, no trailing commas."""
    if _BACKSLASH in stream:  # (strings are hex-encoded: a backslash is rare)
        stream = stream.replace(b"\\\r\n", b" ").replace(b"\\\n", b" ")  # line continuations
    if _KEEP_SPACE[0] in stream:  # (raw control characters in the code: never in valid code)
        stream = _IDENT_SPACE.sub(_KEEP_SPACE, stream).translate(None, _WHITESPACE)
    else:  # every whitespace run becomes one space, those between identifiers a kept one, the rest go
        stream = _IDENT_GAP.sub(_KEEP_SPACE, b" ".join(stream.split())).translate(None, b" ")
    return _TRAILING_COMMA.sub(b"", stream)


def pattern_roles(pattern_sources: Sequence[str]) -> tuple[tuple[str, str] | None, ...]:
    """For each pattern of a combined query (its source text): ``(role, capture name)`` when
    it is one of the rules' patterns (one ``fp.<role>`` capture), else None."""
    out: list[tuple[str, str] | None] = []
    for text in pattern_sources:
        names = {n for n in _CAPTURE_NAME.findall(text) if n.startswith(CAPTURE_PREFIX)}
        if len(names) > 1:
            raise ValueError(f"a fingerprint pattern has one capture: {text!r}")
        name = names.pop() if names else None
        out.append((name[len(CAPTURE_PREFIX) :], name) if name else None)
    return tuple(out)


def split_matches(
    matches: list[tuple[int, dict[str, list[Node]]]], roles: Sequence[tuple[str, str] | None]
) -> tuple[list[tuple[int, dict[str, list[Node]]]], dict[str, list[Node]]]:
    """Separate the rules' matches (``roles[i]``: ``pattern_roles`` of pattern ``i``) from a
    combined query's; the rules' captured nodes by role."""
    captures: defaultdict[str, list[Node]] = defaultdict(list)
    others: list[tuple[int, dict[str, list[Node]]]] = []
    keep = others.append
    for match in matches:
        role = roles[match[0]]
        if role is None:
            keep(match)
        else:
            captures[role[0]].extend(match[1][role[1]])
    return others, captures


def token_streams(
    language: Language,
    source: bytes,
    spans: Sequence[DefSpan],
    captures: Mapping[str, Sequence[Node]],
    comments: Sequence[tuple[int, int]] = (),
    root: Node | None = None,
) -> list[tuple[bytes, bytes | None]]:
    """The normalised head and body streams (None: no body) of each definition in ``spans``.

    ``captures`` are the nodes the rules' query captured, by role (``split_matches``);
    ``comments`` byte ranges to drop (the extractor's ``@comment``); ``root`` the syntax
    tree's root (``[aliases]`` are found by text, then checked in the tree). What
    ``fingerprint`` hashes; useful to see why two versions differ."""
    if not spans:
        return []
    rules = load_rules(language)
    lo = min(s.start for s in spans)
    hi = max(s.end for s in spans)
    events = _events(source, rules, spans, captures, comments, lo, hi, root)
    renderer = _Renderer(source, rules, events)
    boundaries: list[int] = []
    stream = b"".join([renderer.render(start, end, 0, boundaries) for start, end in _outermost(source, spans)])
    segments = normalise(stream).split(_BOUNDARY)
    if len(segments) != len(boundaries) + 1:  # a boundary inside a skipped range
        return [_alone(renderer, span) for span in spans]
    # the k-th boundary marker sits between segments[k] and segments[k + 1]
    marker = [0] * (4 * len(spans))
    for k, tag in enumerate(boundaries):
        marker[tag] = k + 1
    out: list[tuple[bytes, bytes | None]] = []
    for k, span in enumerate(spans):
        start, body_start, body_end, end = marker[4 * k : 4 * k + 4]
        if span.body_start >= 0:
            out.append((b"".join(segments[start:body_start]), b"".join(segments[body_start:body_end])))
        else:
            out.append((b"".join(segments[start:end]), None))
    return out


def _outermost(source: bytes, spans: Sequence[DefSpan]) -> list[tuple[int, int]]:
    """The ranges to render: those of the outermost definitions (the union of the spans).
    The text between two of them is in no definition's streams: rendering it (a table of
    numbers between two functions, a Rust ``impl`` block's own text) was wasted. Each range
    starts and ends with a definition boundary, so no normalisation reaches across a gap;
    only a raw ``_KEEP_SPACE`` byte in a gap (never in valid code) would change how the
    stream is normalised, and then everything is rendered in one range as before."""
    ranges: list[tuple[int, int]] = []
    start = end = -1
    for span in sorted(spans, key=_SPAN_START):
        if span.start >= end:
            if end >= 0:
                ranges.append((start, end))
            start, end = span.start, span.end
        elif span.end > end:
            end = span.end
    ranges.append((start, end))
    if any(source.find(_KEEP_SPACE, ranges[i][1], ranges[i + 1][0]) >= 0 for i in range(len(ranges) - 1)):
        return [(ranges[0][0], max(e for _s, e in ranges))]
    return ranges


_SPAN_START = attrgetter("start")


def _alone(renderer: _Renderer, span: DefSpan) -> tuple[bytes, bytes | None]:
    """One definition's streams rendered on their own (slower; never misaligned)."""

    def stream(start: int, end: int) -> bytes:
        return normalise(renderer.render(start, end)).replace(_BOUNDARY, b"")

    if span.body_start < 0:
        return stream(span.start, span.end), None
    return stream(span.start, span.body_start), stream(span.body_start, span.body_end)


def fingerprint(
    language: Language,
    source: bytes,
    spans: Sequence[DefSpan],
    captures: Mapping[str, Sequence[Node]],
    comments: Sequence[tuple[int, int]] = (),
    root: Node | None = None,
) -> list[tuple[str, str]]:
    """``(sig_hash, body_hash)`` of each definition in ``spans`` (no body: the hash of
    nothing). ``sig_hash`` of a head with annotations is two halves (``graph.model.sig_halves``)."""
    out: list[tuple[str, str]] = []
    for head, body in token_streams(language, source, spans, captures, comments, root):
        if _ANNOTATION[0] in head:
            sig = _hash(_ANNOTATED.sub(b"", head)) + _hash(head.replace(_ANNOTATION, b""))
        else:
            sig = _hash(head)
        if body is None:
            out.append((sig, _EMPTY))
        else:
            out.append((sig, _hash(body.replace(_ANNOTATION, b"") if _ANNOTATION[0] in body else body)))
    return out


_EMPTY = _hash(b"")
