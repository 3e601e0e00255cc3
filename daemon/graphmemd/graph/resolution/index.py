"""Per-file name indexes and import contexts, shared by every language.

Pure data built once per ``set_file``: nothing here knows a language; the differences come
from the file's :class:`~graphmemd.graph.resolution.rules.LanguageRules` (``rules`` argument).
"""

from __future__ import annotations

import functools
import marshal
import operator
import posixpath
import re
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Protocol

from graphmemd.graph.model import (
    CallRef,
    Confidence,
    ImportRef,
    InheritRef,
    Language,
    ParsedFile,
    ParsedSymbol,
    SymbolKind,
    TypeRef,
    file_id,
    symbol_id,
)
from graphmemd.graph.resolution.facts import RepoFacts


class LookupRun(Protocol):
    """What a language's rules use of one resolution run's lookup
    (:class:`~graphmemd.graph.resolution.lookup.Lookup`)."""

    dir_memo: dict[tuple[str, bool], tuple[str, ...]]
    seen: set[str]
    files: dict[str, FileIndex]

    def resolve_in_files(self, paths: tuple[str, ...], rest: Sequence[str]) -> Target | None:
        """The dotted path ``rest`` as exported by the first of ``paths`` that has it."""

    def member_of(self, sym: Sym, name: str, visited: set[Sym]) -> Sym | None:
        """Member ``name`` of the type ``sym``, looking through its bases."""

    def member_confidence(self, owner: Sym, found: Sym, direct: Confidence) -> Confidence:
        """INHERITANCE when ``found`` is a member of one of ``owner``'s bases, else ``direct``."""

    def bases(self, sym: Sym) -> tuple[Sym, ...]:
        """The resolved bases of the type ``sym``."""

    def owner_type(self, fi: FileIndex, caller: str) -> Sym | None:
        """The type the method ``caller`` belongs to, wherever it is declared."""

    def subclass_member(self, cls: Sym, name: str) -> Sym | None:
        """The one definition of ``name`` every subclass of ``cls`` reaches (a mixin's call)."""


class FileRules(Protocol):
    """The interface of a language family's rules, as the shared code sees it. Declared here,
    beside the index it reads, so that the index, the lookup and the rules import downwards
    only; :class:`~graphmemd.graph.resolution.rules.LanguageRules` implements it."""

    family: ClassVar[str]
    languages: ClassVar[tuple[Language, ...]]
    self_names: ClassVar[frozenset[str]]
    super_names: ClassVar[frozenset[str]]
    common_methods: ClassVar[frozenset[str]]
    reexports: ClassVar[bool]
    members_in_scope: ClassVar[bool]
    detached_methods: ClassVar[bool]
    overloads_by_arity: ClassVar[bool]
    package_scoped: ClassVar[bool]
    subclass_dispatch: ClassVar[bool]
    scoped_names: ClassVar[bool]
    type_kinds: ClassVar[frozenset[SymbolKind]]
    repo_wide_guess: ClassVar[bool]

    def is_test(self, path: str) -> bool:
        """Whether ``path`` is a test file of this language."""

    def struct_key(self, fi: FileIndex) -> tuple[object, ...]:
        """What of ``fi`` other files' resolution depends on."""

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """The keys whose change makes ``fi`` resolve again."""

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The keys a change of ``path`` (now ``fi``, or gone) changes."""

    def index(self, fi: FileIndex) -> None:
        """Add ``fi`` to the family's own indexes."""

    def unindex(self, fi: FileIndex) -> None:
        """Remove ``fi`` from the family's own indexes."""

    def appeared_or_vanished(self, fi: FileIndex) -> bool:
        """Whether adding or removing ``fi`` changes how other files resolve."""

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Record the import ``imp`` of ``fi`` in its context builder."""

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """Whether a call ``segs`` resolves differently by the scope it is made from."""

    def package_files(self, run: LookupRun, fi: FileIndex) -> tuple[str, ...]:
        """The other files whose names ``fi`` sees without an import."""

    def path_call(
        self, run: LookupRun, fi: FileIndex, caller: str, text: str, segs: tuple[str, ...]
    ) -> tuple[bool, Target | None, Confidence]:
        """A path-qualified call (``crate::a::f``) from ``caller``: whether the rules handled
        it, its target and how it was found."""

    def scoped_name(
        self, run: LookupRun, fi: FileIndex, caller: str, segs: tuple[str, ...], exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A name or type path found in a scope enclosing ``caller`` (``scoped_names`` rules)."""

    def type_parts(self, run: LookupRun, sym: Sym) -> tuple[Sym, ...]:
        """The other definitions of the type ``sym`` (partial, reopened)."""

    def definition(self, run: LookupRun, target: Sym) -> Sym:
        """The definition a resolved target stands for (a declaration's definition)."""

    def method_visible(self, fi: FileIndex, path: str) -> bool:
        """Whether a detached method declared in ``path`` is visible from ``fi``."""

    def submodule(self, fi: FileIndex, name: str) -> Target | None:
        """The submodule ``name`` of the module ``fi``."""

    def fallback_name(self, run: LookupRun, fi: FileIndex, name: str) -> Target | None:
        """A last resort for a bare name nothing else resolved."""


class ResolverState(Protocol):
    """What lookups and language rules read of the repository's resolver
    (:class:`~graphmemd.graph.resolution.resolver.RepoResolver`)."""

    files: dict[str, FileIndex]
    dirs: dict[str, set[str]]
    methods: dict[str, dict[tuple[str, str], str]]
    subclasses: dict[str, set[tuple[str, str]]]
    go_modules: list[tuple[str, str]]
    facts: RepoFacts
    gen: int

    def ctx_of(self, fi: FileIndex) -> ImportCtx:
        """``fi``'s import context, rebuilt when stale."""


CLASSLIKE = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM})
CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
#: When two symbols share a qualname (different kinds), name lookups prefer the lower rank.
RANK: dict[SymbolKind, int] = {
    SymbolKind.CLASS: 0,
    SymbolKind.STRUCT: 0,
    SymbolKind.ENUM: 0,
    SymbolKind.FUNCTION: 0,
    SymbolKind.METHOD: 0,
    SymbolKind.INTERFACE: 1,
    SymbolKind.TRAIT: 1,
    SymbolKind.MODULE: 2,
}

#: (caller id, memo scope key, enclosing class key, caller qualname, local import scope)
CallerInfo = tuple[str, str, str, str, str]
#: (caller info, callee, arity or -1, {caller id: call sites}): one resolution of a file's calls
Planned = tuple[CallerInfo, str, int, dict[str, int]]
Sym = tuple[str, str]  # (path, qualname)


@dataclass(frozen=True, slots=True)
class Mod:
    """A module reference: one file, or every file of a Go package."""

    paths: tuple[str, ...]


Target = Sym | Mod

_CLEAN_RE = re.compile(r"\([^()]*\)|<[^<>]*>|\[[^\[\]]*\]")
_SEG_RE = re.compile(r"[\w$]+")
_DOTTED_RE = re.compile(r"[^\W\d]\w*(?:(?:\.|::)[^\W\d]\w*)*")
_OVERLOAD_RE = re.compile(r"~\d+$")
#: a TypeRef's fields as a tuple, in ``TypeRef(*fields)`` order (its compact form)
_TYPE_FIELDS = operator.attrgetter(*(f.name for f in fields(TypeRef)))


@functools.lru_cache(maxsize=1 << 16)
def segments(text: str) -> tuple[str, ...]:
    """``a.b::c`` -> ``("a", "b", "c")``; ``()`` when not a plain name path (macros, ...)."""
    if text.isidentifier():
        return (text,)
    if _DOTTED_RE.fullmatch(text):
        return tuple(text.replace("::", ".").split("."))
    t = text.strip()
    if "(" in t or "<" in t or "[" in t:
        prev = ""
        while prev != t:
            prev, t = t, _CLEAN_RE.sub("", t)
    t = t.replace("::", ".").replace("?.", ".").replace("!.", ".")
    segs = [s.strip() for s in t.split(".")]
    segs = [s for s in segs if s]
    if not segs or not all(s.isidentifier() or _SEG_RE.fullmatch(s) for s in segs):
        return ()
    return tuple(segs)


class FileIndex:
    """Name indexes of one parsed file, built once in ``set_file``."""

    __slots__ = (
        "_blob",
        "_info_memo",
        "_local_vars",
        "_planned",
        "_rename",
        "_shapes",
        "_shapes_blob",
        "_vars_blob",
        "arity",
        "attr_types",
        "dir",
        "exports",
        "family",
        "fid",
        "fn_parents",
        "import_scopes",
        "inherits_by_child",
        "is_test",
        "module_vars",
        "nested_names",
        "overloads",
        "package",
        "parsed",
        "path",
        "returns",
        "rules",
        "sids",
        "struct_key",
        "syms",
        "top_types",
        "typed_names",
    )

    def __init__(self, repo_id: str, parsed: ParsedFile, rules: FileRules) -> None:
        path = parsed.path
        # the calls and typed names live on as ``planned`` and the type maps below: the file's
        # parse is kept without them (they are most of a parse's objects)
        self.parsed = replace(parsed, calls=(), types=())
        self.path = path
        self.rules = rules
        self.fid = file_id(repo_id, path)
        self.family = rules.family
        self.dir = posixpath.dirname(path)
        self.is_test = rules.is_test(path)
        self.package = parsed.package
        self.exports = frozenset(parsed.exports) if parsed.exports is not None else None

        syms: dict[str, ParsedSymbol] = {}
        for s in parsed.symbols:
            cur = syms.get(s.qualname)
            if cur is None or RANK[s.kind] < RANK[cur.kind]:
                syms[s.qualname] = s
        self.syms = syms
        self.sids = {q: symbol_id(repo_id, path, q, s.kind) for q, s in syms.items()}
        #: base qualname -> overload qualnames (``m``, ``m~2``, ...) when there are several
        overloads: dict[str, list[str]] = {}
        for q in syms:
            if "~" in q:
                base = _OVERLOAD_RE.sub("", q)
                if base in syms:
                    overloads.setdefault(base, [base]).append(q)
        self.overloads = overloads

        fn_parents: set[str] = set()  # functions with nested definitions
        nested_names: set[str] = set()
        for s in syms.values():
            if s.parent is not None:
                ps = syms.get(s.parent)
                if ps is not None and ps.kind in CALLABLE:
                    fn_parents.add(s.parent)
                    nested_names.add(s.name)
        #: the functions with nested definitions (empty: nothing is nested in a function)
        self.fn_parents = frozenset(fn_parents)
        self.nested_names = frozenset(nested_names)
        self.import_scopes = tuple(sorted({i.scope for i in parsed.imports if i.scope}))
        self._index_types(parsed.types)

        self._info_memo: dict[str, CallerInfo] | None = None
        info: dict[str, CallerInfo] = {"": self.file_level}
        for q, s in syms.items():
            info[q] = self._info_of(q, s)
        self.arity = dict(parsed.arities)
        self._blob = self._vars_blob = self._shapes_blob = b""
        #: (length of the repository prefix of the ids in ``_blob``, the prefix they get when decoded):
        #: set on a copy made for another checkout (:meth:`renamed`), which shares the blob
        self._rename: tuple[int, str] | None = None
        self._plan_calls(parsed.calls, info)

        by_child: dict[str, list[InheritRef]] = {}
        for ref in parsed.inherits:
            by_child.setdefault(ref.child, []).append(ref)
        self.inherits_by_child = by_child

        self.top_types: tuple[str, ...] = tuple(
            sorted(q for q, s in syms.items() if s.parent is None and "." not in q and s.kind in CLASSLIKE)
        )
        self.struct_key = rules.struct_key(self)

    def _index_types(self, types: Iterable[TypeRef]) -> None:
        """Variable types per scope, attribute types per class, return types per function.
        Conflicting statements of one name in one scope cancel out (no flow analysis)."""
        var_types: dict[str, dict[str, TypeRef | None]] = {}
        attr_types: dict[str, dict[str, TypeRef | None]] = {}
        returns: dict[str, TypeRef | None] = {}
        self_names = self.rules.self_names
        for t in types:
            if not t.name:
                _put(returns, t.scope, t)
                continue
            head, dot, attr = t.name.partition(".")
            if dot and head in self_names and "." not in attr:
                cls = self._class_of_scope(t.scope)
                if cls:
                    _put(attr_types.setdefault(cls, {}), attr, t)
                continue
            if dot:
                continue
            s = self.syms.get(t.scope)
            if s is not None and s.kind in self.rules.type_kinds:  # a field / class-level annotation
                _put(attr_types.setdefault(t.scope, {}), t.name, t)
            _put(var_types.setdefault(t.scope, {}), t.name, t)
        kept = {k: {n: t for n, t in v.items() if t is not None} for k, v in var_types.items()}
        #: the types of the file's module-level names (other files read them: bindings by value)
        self.module_vars: dict[str, TypeRef] = kept.pop("", {})
        #: the types of names inside definitions (only this file's resolution reads them)
        self._local_vars: dict[str, dict[str, TypeRef]] | None = kept
        self.attr_types = {k: {n: t for n, t in v.items() if t is not None} for k, v in attr_types.items()}
        self.returns = {k: t for k, t in returns.items() if t is not None}
        self.typed_names = frozenset(n for v in (self.module_vars, *kept.values()) for n in v)

    def _class_of_scope(self, scope: str) -> str:
        s = self.syms.get(scope)
        return self._enclosing_class(s) if s is not None else ""

    def _import_scope(self, qual: str) -> str:
        for sc in self.import_scopes:
            if qual == sc or qual.startswith(sc + "."):
                return sc
        return ""

    @property
    def file_level(self) -> CallerInfo:
        """The caller info of code outside any definition."""
        return (self.fid, "", "", "", "")

    def _info_of(self, q: str, s: ParsedSymbol) -> CallerInfo:
        """The caller info of the definition ``q`` (``s``): its id, the scope its calls are
        memoised in (the class of its members, or itself when nested in a function), its class
        and its local import scope."""
        cls = self._enclosing_class(s)
        # shared by the class's members (scoped names: by the members of one namespace)
        scope = sys.intern("c:" + (cls or (q.rpartition(".")[0] if self.rules.scoped_names else "")))
        if self.fn_parents:
            a: ParsedSymbol | None = s
            while a is not None:
                if a.qualname in self.fn_parents:
                    scope = "q:" + q
                    break
                a = self.syms.get(a.parent) if a.parent is not None else None
        return (self.sids[q], scope, cls, q, self._import_scope(q))

    def _plan_calls(self, calls: Sequence[CallRef], info: dict[str, CallerInfo]) -> None:
        """Group the calls by what their resolution depends on, so that ``edges_for``
        resolves each distinct callee once per file (or once per scope, see
        ``LanguageRules.scope_dependent``) and emits it for every distinct caller. Each
        entry keeps how many call sites it stands for (resolution statistics)."""
        rules = self.rules
        deps: dict[str, int] = {}  # 0: per file, 1: per scope, 2: per caller
        flat: dict[tuple[str, int], dict[str, int]] = {}
        scoped: dict[tuple[str, str, int], tuple[CallerInfo, dict[str, int]]] = {}
        by_arity = rules.overloads_by_arity
        for c in calls:
            callee = c.callee
            ci = info.get(c.caller) or self.info_for(c.caller)
            args = c.args if by_arity else -1
            dep = deps.get(callee)
            if dep is None:
                segs = segments(callee)
                dep = deps[callee] = 2 if segs and segs[0] in self.typed_names else rules.scope_dependent(self, segs)
            if not dep and not ci[4]:
                callers = flat.setdefault((callee, args), {})
                callers[ci[0]] = callers.get(ci[0], 0) + 1
            else:
                # a typed head (`x.m()`) depends on the caller itself (its variables); other
                # scope-dependent callees on the enclosing class or function (``ci[1]``)
                key = (("q:" + ci[3] if dep == 2 else ci[1]) + "\0" + ci[4], callee, args)
                entry = scoped.get(key)
                if entry is None:
                    scoped[key] = (ci, {ci[0]: 1})
                else:
                    entry[1][ci[0]] = entry[1].get(ci[0], 0) + 1
        file_level = info[""]
        planned = [(file_level, callee, args, callers) for (callee, args), callers in flat.items()]
        planned.extend([(ci, callee, args, callers) for (_s, callee, args), (ci, callers) in scoped.items()])
        self._planned: tuple[Planned, ...] | None = tuple(planned)
        shapes = [c.shape for c in calls]
        #: each call site's caller qualname, callee as written and shape (none: no shape recorded)
        self._shapes: tuple[list[str], list[str], list[str]] | None = (
            ([c.caller for c in calls], [c.callee for c in calls], shapes) if any(shapes) else ([], [], [])
        )

    def call_shapes(self) -> dict[tuple[str, str], tuple[str, ...]]:
        """How each caller of the file passes its arguments to each callee as written: (caller
        id, callee text) -> the ``CallShape.text`` of those call sites, "" where none was
        recorded (empty for a language that records none). Built from the compact form after
        :meth:`freeze`: asked only when a changed default is judged."""
        columns = self._shapes
        if columns is None:
            columns = marshal.loads(zlib.decompress(self._shapes_blob)) if self._shapes_blob else ([], [], [])
        out: dict[tuple[str, str], set[str]] = {}
        for caller, callee, shape in zip(*columns, strict=True):
            out.setdefault((self.info_for(caller)[0], callee), set()).add(shape)
        return {site: tuple(sorted(held)) for site, held in out.items()}

    @property
    def planned(self) -> tuple[Planned, ...]:
        """The file's calls grouped for resolution: (caller info, callee, arity or -1,
        {caller id: call sites}), one resolution each. Decoded from the compact form (see
        :meth:`freeze`) when the file is not thawed."""
        if self._planned is not None:
            return self._planned
        planned: tuple[Planned, ...] = marshal.loads(zlib.decompress(self._blob))
        return _renamed_plan(planned, *self._rename) if self._rename is not None else planned

    def renamed(self, repo_id: str, rules: FileRules) -> FileIndex:
        """This file's index as checkout ``repo_id`` holds the same file (a worktree derived
        from this one's, ``RepoResolver.derive``): its ids renamed (an id begins with its
        checkout's), ``rules`` the new checkout's; the rest — the parse, the name indexes, the
        compact planned calls — shared (none of it is changed in place once built)."""
        new: FileIndex = object.__new__(FileIndex)
        for name in _SHARED_SLOTS:
            setattr(new, name, getattr(self, name))
        cut, prefix = len(self.fid) - len(self.path), f"{repo_id}:"
        new.rules, new.fid, new._info_memo = rules, file_id(repo_id, self.path), None
        new.sids = {q: sys.intern(prefix + sid[cut:]) for q, sid in self.sids.items()}
        new._planned = _renamed_plan(self._planned, cut, prefix) if self._planned is not None else None
        new._rename = (self._rename[0] if self._rename is not None else cut, prefix) if self._blob else None
        return new

    def local_vars(self) -> dict[str, dict[str, TypeRef]]:
        """The stated types of the names inside each definition (scope qualname -> name -> type)."""
        return self._locals()

    def _locals(self) -> dict[str, dict[str, TypeRef]]:
        """The types of names inside definitions (decoded on first use, kept while thawed)."""
        if self._local_vars is not None:
            return self._local_vars
        stored = marshal.loads(zlib.decompress(self._vars_blob))
        got = {q: {n: TypeRef(*t) for n, t in v.items()} for q, v in stored.items()}
        if self._planned is not None:  # thawed for a resolution: keep them for its duration
            self._local_vars = got
        return got

    def freeze(self) -> None:
        """Keep the planned calls and the types of names inside definitions as compressed
        bytes (about a tenth of their objects' memory; only a resolution of this file reads
        them) and forget the memoised caller infos. :meth:`thaw` undoes it for one resolution."""
        if not self._blob and self._planned is not None and self._local_vars is not None:
            local_vars = {q: {n: _TYPE_FIELDS(t) for n, t in v.items()} for q, v in self._local_vars.items()}
            self._blob = zlib.compress(marshal.dumps(self._planned), 1)
            self._vars_blob = zlib.compress(marshal.dumps(local_vars), 1)
        if self._shapes is not None:
            self._shapes_blob = zlib.compress(marshal.dumps(self._shapes), 1) if self._shapes[0] else b""
        self._planned = self._local_vars = self._shapes = None
        self._info_memo = None

    def thaw(self) -> None:
        """Decode the planned calls :meth:`freeze` compacted, for a resolution of the file
        (the local types follow on first use)."""
        if self._planned is None:
            self._planned = self.planned

    def _enclosing_class(self, s: ParsedSymbol) -> str:
        a: ParsedSymbol | None = s
        kinds = self.rules.type_kinds
        while a is not None:
            if a.kind in kinds:
                return a.qualname
            a = self.syms.get(a.parent) if a.parent is not None else None
        if s.kind is SymbolKind.METHOD and "." in s.qualname:
            # Go receiver / Rust impl type declared in another file: ``Server.Handle``.
            return s.qualname.rsplit(".", 1)[0]
        return ""

    def methods(self) -> Iterator[tuple[str, str, str]]:
        """(name, owner class key, qualname) of each method of the file, in definition order
        (derived on demand: the resolver indexes them once, ``RepoResolver.methods``)."""
        for q, s in self.syms.items():
            if s.kind in CALLABLE:
                owner = self._method_owner(s)
                if owner:
                    yield (_OVERLOAD_RE.sub("", s.name) if "~" in s.name else s.name), owner, q

    def _method_owner(self, s: ParsedSymbol) -> str:
        if s.parent is not None:
            ps = self.syms.get(s.parent)
            if ps is not None and ps.kind in self.rules.type_kinds:
                return s.parent
        if s.kind is SymbolKind.METHOD and "." in s.qualname:
            return s.qualname.rsplit(".", 1)[0]
        return ""

    def info_for(self, caller: str) -> CallerInfo:
        """The caller info of ``caller``, else of its nearest known enclosing scope (memoised)."""
        memo = self._info_memo
        if memo is None:
            memo = self._info_memo = {}
        ci = memo.get(caller)
        if ci is not None:
            return ci
        q = caller
        while True:
            s = self.syms.get(q) if q else None
            if s is not None:
                ci = self._info_of(q, s)
                break
            if "." not in q:  # e.g. a lambda or a symbol the parser did not report
                ci = self.file_level
                break
            q = q.rsplit(".", 1)[0]
        memo[caller] = ci
        return ci

    def var_type(self, caller: str, name: str) -> TypeRef | None:
        """The stated type of variable ``name`` as seen from ``caller`` (innermost scope first)."""
        q = caller
        while True:
            table = self._locals().get(q) if q else self.module_vars
            found = table.get(name) if table else None
            if found is not None:
                return found
            if not q:
                return None
            s = self.syms.get(q)
            q = (s.parent or "") if s is not None else (q.rsplit(".", 1)[0] if "." in q else "")


#: the slots :meth:`FileIndex.renamed` shares with the original (the others hold ids or rules)
_SHARED_SLOTS = tuple(
    s for s in FileIndex.__slots__ if s not in {"rules", "fid", "sids", "_info_memo", "_planned", "_rename"}
)


def _renamed_plan(planned: tuple[Planned, ...], cut: int, prefix: str) -> tuple[Planned, ...]:
    """``planned`` with its caller ids renamed: ``prefix`` instead of their first ``cut`` characters."""
    ids = {c: sys.intern(prefix + c[cut:]) for _ci, _callee, _args, callers in planned for c in callers}
    return tuple(
        ((ids.get(ci[0]) or sys.intern(prefix + ci[0][cut:]), ci[1], ci[2], ci[3], ci[4]), callee, args,
         {ids[c]: n for c, n in callers.items()})
        for ci, callee, args, callers in planned
    )  # fmt: skip


def _strength(t: TypeRef) -> int:
    return 0 if t.attr else 1 if t.from_call else 2


def _put(table: dict[str, TypeRef | None], name: str, t: TypeRef) -> None:
    """An annotation beats a constructor call, which beats an assigned value; two
    different statements of the same strength leave the name's type unknown."""
    if name not in table:
        table[name] = t
        return
    old = table[name]
    if old is None or old.type == t.type:
        return
    if _strength(old) != _strength(t):
        table[name] = old if _strength(old) > _strength(t) else t
    else:
        table[name] = None


# --------------------------------------------------------------------------- imports


@dataclass(slots=True)
class ImportCtx:
    """Resolved imports of one file (or one function with local imports), valid for one
    structural generation of the repository."""

    gen: int
    targets: tuple[str, ...]
    externals: tuple[str, ...]
    mod_bind: dict[str, tuple[str, ...]]
    sym_bind: dict[str, tuple[tuple[str, ...], str]]
    star: tuple[str, ...]
    ext_names: frozenset[str]
    keys: frozenset[str]
    #: function qualname -> context of that function (its local imports over the file's)
    local: dict[str, ImportCtx] = field(default_factory=dict)


class CtxBuilder:
    """Collects one file's resolved imports. The first binding of a local name wins
    (``try: from _c import x`` / ``except: from _py import x``, ``if posix: import posixpath
    as path`` ...), except where a language's rules say otherwise (Python: a later ``from m
    import x`` rebinds ``x``, as the interpreter runs it: ``attrs.asdict`` is the one
    ``from attr._next_gen import asdict`` binds after ``from attr import (asdict, ...)``);
    a binding into the repository always beats an external one."""

    __slots__ = ("ext_names", "externals", "files", "keys", "mod_bind", "star", "sym_bind", "targets")

    def __init__(self, files: Mapping[str, Any]) -> None:
        self.files = files
        self.targets: dict[str, None] = {}
        self.externals: dict[str, None] = {}
        self.mod_bind: dict[str, tuple[str, ...]] = {}
        self.sym_bind: dict[str, tuple[tuple[str, ...], str]] = {}
        self.star: dict[str, None] = {}
        self.ext_names: set[str] = set()
        self.keys: set[str] = set()

    def probe(self, candidates: Iterable[str]) -> str | None:
        """First existing candidate; every candidate probed is watched for dependents_of."""
        for c in candidates:
            c = sys.intern(c)  # the same paths are probed from many files: held once
            self.keys.add(c)
            if c in self.files:
                return c
        return None

    def target(self, path: str) -> None:
        """Record ``path`` as a file the import context resolves into."""
        self.targets[path] = None

    def build(self, gen: int, own: str) -> ImportCtx:
        """The finished ``ImportCtx`` of generation ``gen`` (the file ``own`` left out of its targets)."""
        self.targets.pop(own, None)
        return ImportCtx(
            gen=gen,
            targets=tuple(self.targets),
            externals=tuple(self.externals),
            mod_bind=self.mod_bind,
            sym_bind=self.sym_bind,
            star=tuple(p for p in self.star if p != own),
            ext_names=frozenset(self.ext_names - self.sym_bind.keys() - self.mod_bind.keys()),
            keys=frozenset(self.keys),
        )


def overlay(base: ImportCtx, local: ImportCtx) -> ImportCtx:
    """``local`` bindings (a function's own imports) over the file's ``base`` bindings."""
    return ImportCtx(
        gen=base.gen,
        targets=base.targets,
        externals=base.externals,
        mod_bind={**base.mod_bind, **local.mod_bind},
        sym_bind={**base.sym_bind, **local.sym_bind},
        star=(*local.star, *base.star),
        ext_names=(base.ext_names | local.ext_names) - local.sym_bind.keys() - local.mod_bind.keys(),
        keys=base.keys,
    )


def norm(path: str) -> str:
    """Normalise a relative POSIX path; the repository root is ``""``."""
    out = posixpath.normpath(path) if path else ""
    return "" if out == "." else out


def discard(index: dict[Any, set[str]], key: Any, value: str) -> None:
    """Remove ``value`` from the set at ``key``, dropping the key when the set becomes empty."""
    s = index.get(key)
    if s is not None:
        s.discard(value)
        if not s:
            del index[key]
