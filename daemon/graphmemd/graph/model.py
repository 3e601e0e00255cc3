"""Domain types of the daemon: plain frozen dataclasses and enums, no I/O.

Everything outside ``store.py`` (the one module that imports kuzu) and ``parsing/parser.py``
(the one module that imports tree_sitter) speaks these types.

Identity: a symbol's id is ``"{repo_id}:{path}::{qualname}#{kind}"``; it never contains a
line number. ``path`` is POSIX, relative to the repository root. ``qualname`` is the dotted
name inside the file (``AuthService.login``, ``outer.inner``; Go methods use the receiver
type: ``Server.Handle``; Rust impl methods use the impl type: ``Point.new``). When two
definitions in one file would get the same qualname and kind, the second gets ``~2``, the
third ``~3`` and so on, in source order (deterministic disambiguator), with two exceptions
(``parsing/overloads.py``): Python ``@overload`` stubs are ``f~overload1``, ``f~overload2``
... so the implementation keeps the plain ``f``; Java overloads after the first are
``name~<parameter count>``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
import sys
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, TypeVar, cast

from graphmem.types import EdgeConfidence

#: How an edge was resolved (``graphmem.types.EdgeConfidence``), re-exported for the daemon.
Confidence = EdgeConfidence


class Language(str, Enum):
    """A source language graphmem parses."""

    PYTHON = "python"
    JAVASCRIPT = "javascript"
    TYPESCRIPT = "typescript"
    TSX = "tsx"
    GO = "go"
    RUST = "rust"
    JAVA = "java"
    C = "c"
    CPP = "cpp"
    RUBY = "ruby"
    PHP = "php"
    CSHARP = "csharp"
    KOTLIN = "kotlin"
    SCALA = "scala"
    SWIFT = "swift"


class SymbolKind(str, Enum):
    """What kind of definition a symbol is."""

    MODULE = "module"  # an in-file module: Rust `mod x { }`, TypeScript `namespace X { }`
    CLASS = "class"
    STRUCT = "struct"
    INTERFACE = "interface"
    TRAIT = "trait"
    ENUM = "enum"
    FUNCTION = "function"
    METHOD = "method"


class InheritKind(str, Enum):
    """How one type derives from another."""

    INHERITS = "inherits"  # class Foo(Base), class A extends B, interface I extends J, struct embedding
    IMPLEMENTS = "implements"  # class A implements I, impl Trait for Type


#: The ``body_hash`` of a definition without a body (a prototype, a member declared in its
#: class, an abstract method): the hash of the empty token stream.
NO_BODY_HASH = hashlib.blake2b(b"", digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class ParsedSymbol:
    """One definition found in a file.

    ``parent`` is the qualname of the enclosing symbol, or None at top level (then the
    file itself contains it). Lines are 1-based inclusive; bytes are 0-based, end exclusive.

    Fingerprints are computed from the syntax tree, never from raw text (rules per
    language: ``parsing/fingerprint.py`` and ``parsing/fingerprints/*.toml``; scheme
    version ``FINGERPRINT_SCHEME``), as a stream of significant tokens: formatting,
    comments, docstrings, quote style, escape spelling, number spelling, trailing commas,
    redundant parentheses and optional semicolons do not change them; every character of a
    string's value, every number's value, operator, statement order and block membership do.

    * ``signature`` is the normalised text of the definition's head (name, parameters,
      return type, decorators/modifiers, base classes), for display; ``sig_hash`` hashes the
      head's token stream.
    * ``body_hash`` hashes the body's token stream *including everything nested in it*: a
      change inside a nested function, closure, lambda or inner class changes the body hash
      of every enclosing definition (so a class's body hash changes when one of its methods
      changes), while the nested definition keeps its own hashes and a sibling's hashes do
      not change.
    """

    name: str
    qualname: str
    kind: SymbolKind
    parent: str | None
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    signature: str
    sig_hash: str
    body_hash: str


@dataclass(frozen=True, slots=True)
class ImportRef:
    """An import statement, as written; resolution to files happens in ``graphmemd.graph.resolution``.

    ``module`` is the specifier as written, per language:

    * Python: dotted module, with leading dots kept for relative imports
      (``import a.b`` -> ``"a.b"``; ``from ..x import y`` -> ``"..x"``, names ``("y",)``;
      ``from . import y`` -> ``"."``, names ``("y",)``).
    * JavaScript/TypeScript: the string (``"./util"``, ``"react"``); names are the imported
      bindings (``"default"`` for a default import, ``"*"`` for a namespace import);
      ``require("x")`` counts as an import of ``"x"``.
    * Go: the import path (``"fmt"``, ``"example.com/app/auth"``), names empty.
    * Rust: the path before the last segment for ``use`` (``use crate::a::b::C`` ->
      ``"crate::a::b"``, names ``("C",)``; groups list every name), and ``mod x;`` ->
      module ``"x"`` with ``is_mod_decl=True``.
    * Java: the package (``import com.x.Foo`` -> ``"com.x"``, names ``("Foo",)``;
      ``import com.x.*`` -> names ``("*",)``).

    ``alias`` is the local name when the import is renamed (``import numpy as np``).
    ``scope`` is the qualname of the function the import is written in ("" at file level):
    a function-local import binds its names only inside that function.
    """

    module: str
    names: tuple[str, ...]
    line: int
    alias: str | None = None
    is_mod_decl: bool = False
    scope: str = ""


@dataclass(frozen=True, slots=True)
class CallRef:
    """A call site. ``caller`` is the qualname of the innermost enclosing symbol ("" at
    file/module level). ``callee`` is the called expression's dotted text as written,
    trimmed to names (``foo``, ``self.bar``, ``pkg.Func``, ``this.repo.save``,
    ``Foo::new``, ``new Foo`` -> ``Foo``); ``name`` is its last segment. ``args`` is the
    number of arguments where the language resolves overloads by arity (Java), else -1."""

    caller: str
    callee: str
    name: str
    line: int
    args: int = -1
    #: how the call passes its arguments (``CallShape.text``) where the language's query
    #: records it (Python), else "" (unknown: a caller that may leave a parameter out)
    shape: str = ""


@dataclass(frozen=True, slots=True)
class CallShape:
    """How a call passes its arguments: ``f(a, b, key=1)`` has ``positionals`` 2 and
    ``keywords`` ("key",). ``starred``: the call also passes ``*args`` or ``**kwargs`` (the
    counts are then lower bounds: only a keyword written by name can be found missing).
    A code example's empty parentheses are a call with no arguments (bound: a new required
    parameter breaks it); in prose ``httpx.get()`` is a mention and has no shape.

    A parsed call site keeps it as ``text`` (``CallRef.shape``: one interned string, e.g.
    ``"2"``, ``"1:key"``, ``"0*:a,b"``); ``parse`` reads it back."""

    keywords: tuple[str, ...] = ()
    positionals: int = 0
    starred: bool = False

    @property
    def text(self) -> str:
        """``<positionals>[*][:<keyword>,...]``: the compact form a ``CallRef`` holds."""
        head = f"{self.positionals}*" if self.starred else str(self.positionals)
        return f"{head}:{','.join(self.keywords)}" if self.keywords else head

    @staticmethod
    def parse(text: str) -> CallShape | None:
        """The shape ``text`` (``CallShape.text``) stands for; None for "" (not recorded) or
        a text no shape writes."""
        head, _, names = text.partition(":")
        starred = head.endswith("*")
        count = head[:-1] if starred else head
        if not count.isdigit():
            return None
        return CallShape(tuple(names.split(",")) if names else (), int(count), starred)


@dataclass(frozen=True, slots=True)
class InheritRef:
    """``child`` (a qualname in this file) inherits from/implements ``parent`` (as written,
    e.g. ``Base``, ``models.Model``, ``io.Reader``)."""

    child: str
    parent: str
    kind: InheritKind
    line: int


@dataclass(frozen=True, slots=True)
class TypeRef:
    """A name whose type the source states, for typing call receivers (no type checker).

    ``scope`` is the qualname of the innermost definition containing it ("" at file level).
    ``name`` is the variable, parameter or attribute as written (``x``, ``self.session``),
    or ``""`` for the return type of the function ``scope``. ``type`` is the type text
    (annotation, declared type, composite literal type) or, when ``from_call``, the called
    expression whose result was assigned (``Foo``, ``pkg.NewServer``), or, when ``attr``,
    the attribute chain whose value was assigned (``v.Block``, ``self.parent``).
    """

    scope: str
    name: str
    type: str
    from_call: bool
    line: int
    attr: bool = False


@dataclass(frozen=True, slots=True)
class ParsedFile:
    """The pure result of parsing one file's bytes."""

    path: str
    language: Language
    symbols: tuple[ParsedSymbol, ...] = ()
    imports: tuple[ImportRef, ...] = ()
    calls: tuple[CallRef, ...] = ()
    inherits: tuple[InheritRef, ...] = ()
    #: Typed names (variables, parameters, attributes, return types) for receiver typing.
    types: tuple[TypeRef, ...] = ()
    #: (qualname, parameter count) of methods, where overloads resolve by arity (Java).
    arities: tuple[tuple[str, int], ...] = ()
    #: Python ``__all__`` when it is a literal list/tuple of strings (None: not declared).
    exports: tuple[str, ...] | None = None
    #: Java package / Go package clause, when the language has one.
    package: str | None = None
    #: Number of ERROR/MISSING nodes; the file is still indexed as far as possible.
    syntax_errors: int = 0
    lines: int = 0
    #: Set when extraction stopped early (e.g. nesting deeper than the limit).
    truncated: str | None = None


def symbol_id(repo_id: str, path: str, qualname: str, kind: SymbolKind) -> str:
    """The interned id of a symbol: repository, path, qualified name and kind (never a line number)."""
    # Interned: the same id is held by the graph, the resolver and every edge touching it.
    return sys.intern(f"{repo_id}:{path}::{qualname}#{kind.value}")


def file_id(repo_id: str, path: str) -> str:
    """The interned id of a file: repository and path."""
    return sys.intern(f"{repo_id}:{path}")


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file the walker or parser did not index, and why (logged and reported)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class ResolvedEdges:
    """Edges between ids, produced by ``graphmemd.graph.resolution`` from parsed files. Every
    resolved edge carries the :class:`Confidence` saying how it was resolved.

    * ``imports``: (file_id, file_id, confidence) inside the repo.
    * ``external_imports``: (file_id, module name) for modules outside the repo.
    * ``calls``: (caller symbol_id, callee symbol_id, confidence). A call made at file level
      uses the file id as caller.
    * ``unresolved_calls``: (caller symbol_id or file_id, callee text) kept as references.
    * ``inherits``: (child symbol_id, parent symbol_id, kind, confidence).
    * ``unresolved_inherits``: (child symbol_id, parent text, kind).
    """

    imports: tuple[tuple[str, str, Confidence], ...] = ()
    external_imports: tuple[tuple[str, str], ...] = ()
    calls: tuple[tuple[str, str, Confidence], ...] = ()
    unresolved_calls: tuple[tuple[str, str], ...] = ()
    inherits: tuple[tuple[str, str, InheritKind, Confidence], ...] = ()
    unresolved_inherits: tuple[tuple[str, str, InheritKind], ...] = ()


# --------------------------------------------------------------------------- changes


class ChangeKind(str, Enum):
    """How a symbol changed between two parses. Severity: removed > signature > body >
    annotations > renamed. ``ANNOTATIONS_CHANGED``: only what the head's annotations say
    changed (``sig_halves``: the structure half is equal), the body did not."""

    UNCHANGED = "unchanged"
    ADDED = "added"
    REMOVED = "removed"
    SIGNATURE_CHANGED = "signature_changed"
    BODY_CHANGED = "body_changed"
    RENAMED = "renamed"  # renamed or moved: same body, new id (maybe another file)
    ANNOTATIONS_CHANGED = "annotations_changed"


SEVERITY: dict[ChangeKind, int] = {
    ChangeKind.REMOVED: 4,
    ChangeKind.SIGNATURE_CHANGED: 3,
    ChangeKind.BODY_CHANGED: 2,
    ChangeKind.ANNOTATIONS_CHANGED: 1,
    ChangeKind.RENAMED: 1,
    ChangeKind.ADDED: 0,
    ChangeKind.UNCHANGED: 0,
}


@dataclass(frozen=True, slots=True)
class SymbolState:
    """What the diff needs to know of a symbol: its id, where it is and its fingerprints."""

    id: str
    path: str
    qualname: str
    kind: SymbolKind
    signature: str
    sig_hash: str
    body_hash: str


@dataclass(frozen=True, slots=True)
class SymbolChange:
    """One symbol's change between two parses of a file: its state before and after."""

    kind: ChangeKind
    old: SymbolState | None
    new: SymbolState | None

    @property
    def id(self) -> str:
        """The symbol's id (from the old state, else the new one)."""
        state = self.old or self.new
        assert state is not None
        return state.id


@dataclass(frozen=True, slots=True)
class FileRecord:
    """A file row as the store keeps it; ``mtime_ns`` is the mtime the file was parsed at."""

    repo_id: str
    path: str
    language: Language
    content_hash: str
    size: int
    indexed_at: float
    syntax_errors: int = 0
    mtime_ns: int = 0


@dataclass(frozen=True, slots=True)
class SymbolInfo:
    """A symbol as the daemon holds it in memory and the store persists it."""

    id: str
    repo_id: str
    path: str
    name: str
    qualname: str
    kind: SymbolKind
    language: Language
    parent_id: str | None
    start_line: int
    end_line: int
    signature: str
    sig_hash: str
    body_hash: str

    @property
    def ref(self) -> str:
        """The symbol's ref: ``path::qualname``."""
        return f"{self.path}::{self.qualname}"

    def state(self) -> SymbolState:
        """The parts of the symbol a change is judged on (signature and hashes)."""
        return SymbolState(self.id, self.path, self.qualname, self.kind, self.signature, self.sig_hash, self.body_hash)


_D = TypeVar("_D")


_SLOT_FIELDS: dict[type[Any], tuple[str, ...]] = {}


def _slot_fields(cls: type[Any]) -> tuple[str, ...]:
    """The fields of a slots dataclass without ``__post_init__``, in declaration order (what
    ``from_columns`` may fill through the slots' descriptors)."""
    found = _SLOT_FIELDS.get(cls)
    if found is None:
        if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
            raise TypeError(f"{cls.__name__} is not a slots dataclass without __post_init__")
        found = _SLOT_FIELDS[cls] = tuple(f.name for f in fields(cls))
    return found


def columns_of(cls: type[_D], items: Iterable[_D]) -> list[list[object]]:
    """The field values of ``items`` (instances of ``cls``) column by column, in declaration
    order (``from_columns`` builds them back): how a warm restart's snapshot keeps symbols."""
    rows = list(items)
    return [list(map(operator.attrgetter(name), rows)) for name in _slot_fields(cls)]


def from_columns(cls: type[_D], columns: Sequence[Sequence[object]]) -> list[_D]:
    """Instances of ``cls`` (a frozen slots dataclass of this module) with the field values
    ``columns`` give, column by column in declaration order; equal to the ones the
    constructor would build. Each slot is filled through its descriptor, a C call per value,
    where the generated frozen ``__init__`` runs Python code per field (a 4.7 M-line
    snapshot's 387,352 symbols: 0.32 s against 0.75 s). The values are not checked, as the
    constructor does not check them either. Raises ValueError when the columns are not one
    per field, all of one length."""
    names = _slot_fields(cls)
    if len(columns) != len(names) or len({len(column) for column in columns}) > 1:
        raise ValueError(f"not the columns of {cls.__name__}")
    new = object.__new__
    out: list[_D] = [new(cls) for _ in range(len(columns[0]))]
    for name, column in zip(names, columns, strict=True):
        deque(map(getattr(cls, name).__set__, out, column), maxlen=0)
    return out


def renamed_symbols(symbols: Sequence[SymbolInfo], rename: Mapping[str, str], repo_id: str) -> list[SymbolInfo]:
    """``symbols`` as checkout ``repo_id`` holds them (a checkout derived from a sibling's equal
    files: ``codegraph.derive_files``): each id renamed by ``rename`` (which holds every one),
    each parent id too when ``rename`` holds it, every other field the same object. Equal to
    what the constructor builds, built column by column (``from_columns``: a C call per value
    where the frozen ``__init__`` runs Python code per field)."""
    names = _slot_fields(SymbolInfo)
    cols = columns_of(SymbolInfo, symbols)
    at_id, at_repo, at_parent = names.index("id"), names.index("repo_id"), names.index("parent_id")
    cols[at_id] = list(map(rename.__getitem__, cast("list[str]", cols[at_id])))
    cols[at_repo] = [repo_id] * len(symbols)
    got = rename.get
    cols[at_parent] = [got(p, p) if p else None for p in cast("list[str | None]", cols[at_parent])]
    return from_columns(SymbolInfo, cols)


@dataclass(frozen=True, slots=True)
class GraphEdges:
    """Every edge of a repository as the store returns it (see ``ResolvedEdges``)."""

    defines: tuple[tuple[str, str], ...]
    contains: tuple[tuple[str, str], ...]
    edges: ResolvedEdges


#: Length of one half of a ``sig_hash`` (hex digits).
SIG_HALF = 16


def sig_halves(sig_hash: str) -> tuple[str, str]:
    """A ``sig_hash``'s halves: the hash of the head without its annotations (the
    structure) and of the head with them (``parsing/fingerprint.py``). A head without
    annotations has one hash, both."""
    if len(sig_hash) == 2 * SIG_HALF:
        return sig_hash[:SIG_HALF], sig_hash[SIG_HALF:]
    return sig_hash, sig_hash


def annotations_only(old_sig_hash: str, new_sig_hash: str) -> bool:
    """Whether two different ``sig_hash`` differ only in what the annotations say."""
    old, new = sig_halves(old_sig_hash), sig_halves(new_sig_hash)
    return old_sig_hash != new_sig_hash and old[0] == new[0]


def file_fingerprint(symbols: Iterable[SymbolInfo], content_hash: str) -> str:
    """A file's structural fingerprint: its symbols' identities and hashes (formatting-blind).

    A file without symbols falls back to its content hash."""
    parts = sorted(f"{s.qualname}#{s.kind.value}:{s.sig_hash}:{s.body_hash}" for s in symbols)
    if not parts:
        return "content:" + content_hash
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()


def symbols_of(repo_id: str, parsed: ParsedFile) -> list[SymbolInfo]:
    """The SymbolInfo rows of one parsed file (parent qualnames turned into ids)."""
    prefix = f"{repo_id}:{parsed.path}::"
    ids = [sys.intern(f"{prefix}{s.qualname}#{s.kind.value}") for s in parsed.symbols]  # as symbol_id
    by_qual = {s.qualname: sid for s, sid in zip(parsed.symbols, ids, strict=True)}  # the last one wins
    return [
        SymbolInfo(
            id=sid,
            repo_id=repo_id,
            path=parsed.path,
            name=s.name,
            qualname=s.qualname,
            kind=s.kind,
            language=parsed.language,
            parent_id=by_qual.get(s.parent) if s.parent else None,
            start_line=s.start_line,
            end_line=s.end_line,
            signature=s.signature,
            sig_hash=s.sig_hash,
            body_hash=s.body_hash,
        )
        for s, sid in zip(parsed.symbols, ids, strict=True)
    ]
