"""One resolution run over some files: calls, inheritance and their confidences.

Every resolved edge records how it was found (``model.Confidence``):

* ``SAME_MODULE``: a definition of the same file (nested function, top-level name,
  ``Class.method`` of a class in the file).
* ``IMPORT``: through an import binding (module, imported name, re-export chain, ``*``).
* ``SAME_PACKAGE``: a top-level name of another file of the package (Go directory, Java
  package) or a macro of the same crate (Rust).
* ``RECEIVER_TYPE``: a method of the receiver's known type: ``self``/``this``, a variable or
  parameter whose type is annotated/declared or assigned from a constructor (or from a
  function with a return annotation), ``self.attr`` typed in the class.
* ``INHERITANCE``: found in a base class (``super()``, an inherited method of a typed
  receiver), bases searched depth first in declaration order (Python's MRO for the usual
  single and non-diamond hierarchies).
* ``NAME_ONLY``: ``receiver.method()`` with an unknown receiver, linked because exactly one
  class defines ``method`` (in the file and its imports, else the repository). A guess.

The bulk of the algorithm is documented in ``graphmemd.resolution`` (package docstring).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmemd.model import Confidence, InheritKind, InheritRef, ResolvedEdges, SymbolKind, TypeRef
from graphmemd.resolution.index import (
    CALLABLE,
    CLASSLIKE,
    CallerInfo,
    FileIndex,
    ImportCtx,
    Mod,
    Sym,
    Target,
    segments,
)

if TYPE_CHECKING:
    from graphmemd.resolution.resolver import RepoResolver

_MAX_DEPTH = 8
_Resolved = tuple[Target | None, Confidence]
_NONE: _Resolved = (None, Confidence.NAME_ONLY)


class Acc:
    """Edges of one run, deduplicated at the end, plus per-file call statistics."""

    __slots__ = ("calls", "ext", "imports", "inherits", "unres_calls", "unres_inherits")

    def __init__(self) -> None:
        self.imports: list[tuple[str, str, Confidence]] = []
        self.ext: list[tuple[str, str]] = []
        self.calls: list[tuple[str, str, Confidence]] = []
        self.unres_calls: list[tuple[str, str]] = []
        self.inherits: list[tuple[str, str, InheritKind, Confidence]] = []
        self.unres_inherits: list[tuple[str, str, InheritKind]] = []

    def build(self) -> ResolvedEdges:
        return ResolvedEdges(
            imports=tuple(dict.fromkeys(self.imports)),
            external_imports=tuple(dict.fromkeys(self.ext)),
            calls=_best(self.calls),
            unresolved_calls=tuple(dict.fromkeys(self.unres_calls)),
            inherits=tuple(dict.fromkeys(self.inherits)),
            unresolved_inherits=tuple(dict.fromkeys(self.unres_inherits)),
        )


_ORDER = {c: i for i, c in enumerate(Confidence)}


def _best(calls: list[tuple[str, str, Confidence]]) -> tuple[tuple[str, str, Confidence], ...]:
    """One edge per (caller, callee): the most certain way it was found."""
    best: dict[tuple[str, str], Confidence] = {}
    for a, b, c in calls:
        old = best.get((a, b))
        if old is None or _ORDER[c] < _ORDER[old]:
            best[(a, b)] = c
    return tuple((a, b, c) for (a, b), c in best.items())


#: per-file call statistics: (call sites, unresolved sites, {confidence: sites})
FileStats = tuple[int, int, dict[Confidence, int]]


class Pass:
    """One resolution run (``edges_for``/``all_edges``) with its memo tables."""

    __slots__ = (
        "bases_memo",
        "dir_memo",
        "files",
        "guess_memo",
        "r",
        "reexport_memo",
        "seen",
        "type_memo",
    )

    def __init__(self, r: RepoResolver) -> None:
        self.r = r
        self.files = r.files
        self.bases_memo: dict[Sym, tuple[tuple[Sym, ...], frozenset[str]]] = {}
        self.dir_memo: dict[tuple[str, bool], tuple[str, ...]] = {}
        self.seen: set[str] = set()
        self.guess_memo: dict[tuple[str, str], Sym | None] = {}
        self.reexport_memo: dict[tuple[str, str], tuple[Target | None, frozenset[str]]] = {}
        self.type_memo: dict[tuple[str, str, str, bool, int], Sym | None] = {}

    # ----------------------------------------------------------------- per file

    def file_edges(self, fi: FileIndex, acc: Acc) -> FileStats:
        self.seen = set()
        ctx = self.r.ctx_of(fi)
        fid = fi.fid
        files = self.files
        for t in ctx.targets:
            acc.imports.append((fid, files[t].fid, Confidence.IMPORT))
        for m in ctx.externals:
            acc.ext.append((fid, m))
        sites = unresolved = 0
        by: dict[Confidence, int] = {}
        file_level = fi.caller_info[""]
        work = [(file_level, callee, args, callers) for callee, args, callers in fi.flat_calls]
        work.extend(fi.scoped_calls)
        for ci, callee, args, callers in work:
            use = ctx.local.get(ci[4], ctx) if ci[4] else ctx
            target, conf = self.resolve_call(fi, use, ci, callee, args)
            n = sum(c for _, c in callers)
            sites += n
            if target is None:
                unresolved += n
                acc.unres_calls.extend([(c, callee) for c, _ in callers])
            else:
                by[conf] = by.get(conf, 0) + n
                acc.calls.extend([(c, target, conf) for c, _ in callers])
        for ref in fi.parsed.inherits:
            self.inherit_edge(fi, ctx, ref, acc)
        return sites, unresolved, by

    def sid(self, t: Sym) -> str:
        return self.files[t[0]].sids[t[1]]

    def resolve_call(
        self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, callee: str, args: int
    ) -> tuple[str | None, Confidence]:
        segs = segments(callee)
        if not segs:
            return None, Confidence.NAME_ONLY
        if len(segs) == 1:
            t, conf = self.resolve_name(fi, ctx, ci[3], segs[0])
        else:
            t, conf, guess = self.resolve_dotted(fi, ctx, ci, callee, segs)
            if t is None and guess:
                t, conf = self.guess_method(fi, ctx, segs[-1]), Confidence.NAME_ONLY
        if not isinstance(t, tuple):
            return None, conf
        if args >= 0:
            t = self.overload(t, args)
        return self.sid(t), conf

    def overload(self, t: Sym, args: int) -> Sym:
        """The overload of ``t`` taking ``args`` arguments, when exactly one does."""
        fi = self.files[t[0]]
        group = fi.overloads.get(t[1])
        if not group:
            return t
        fits = [q for q in group if fi.arity.get(q) == args]
        return (t[0], fits[0]) if len(fits) == 1 else t

    def inherit_edge(self, fi: FileIndex, ctx: ImportCtx, ref: InheritRef, acc: Acc) -> None:
        child = fi.syms.get(ref.child)
        if child is not None:
            child_id = fi.sids[ref.child]
            scope = child.parent or ""
            exclude: str | None = ref.child
        else:
            ct = self.resolve_type(fi, ctx, "", ref.child, None)
            child_id = self.sid(ct[0]) if ct is not None else fi.fid
            scope, exclude = "", None
        t = self.resolve_type(fi, ctx, scope, ref.parent, exclude)
        if t is None or child_id == fi.fid:
            # (an impl for a type that is not in the repository is kept as a reference
            # from the file)
            acc.unres_inherits.append((child_id, ref.parent, ref.kind))
        else:
            acc.inherits.append((child_id, self.sid(t[0]), ref.kind, t[1]))

    def resolve_type(
        self, fi: FileIndex, ctx: ImportCtx, scope: str, text: str, exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A class-like symbol named by ``text`` as seen from ``scope`` of ``fi``."""
        t = text.strip()
        for prefix in ("dyn ", "impl ", "typeof "):
            if t.startswith(prefix):
                t = t[len(prefix) :]
        t = t.lstrip("*&").removeprefix("mut ").strip()
        segs = segments(t)
        if not segs:
            return None
        if len(segs) == 1:
            target, conf = self.resolve_name(fi, ctx, scope, segs[0], exclude)
        else:
            target, conf, _ = self.resolve_dotted(fi, ctx, (fi.fid, "", "", scope, ""), t, segs)
        if isinstance(target, tuple) and self.files[target[0]].syms[target[1]].kind in CLASSLIKE:
            return target, conf
        return None

    # ----------------------------------------------------------------- names

    def resolve_name(
        self, fi: FileIndex, ctx: ImportCtx, caller: str, name: str, exclude: str | None = None
    ) -> _Resolved:
        syms = fi.syms
        rules = fi.rules
        if caller and (fi.nested or rules.members_in_scope):
            q = caller
            while q:
                s = syms.get(q)
                if s is None:
                    break
                if s.kind in CALLABLE:
                    cand = f"{q}.{name}"
                    if cand in syms:
                        return (fi.path, cand), Confidence.SAME_MODULE
                elif rules.members_in_scope and s.kind in CLASSLIKE:
                    if s.name == name:  # the class itself, not its constructor
                        return (fi.path, q), Confidence.SAME_MODULE
                    m = self.member_of((fi.path, q), name, set())
                    if m is not None:
                        return m, self._via((fi.path, q), m, Confidence.SAME_MODULE)
                q = s.parent or ""
        s = syms.get(name)
        if s is not None and s.parent is None and name != exclude:
            return (fi.path, name), Confidence.SAME_MODULE
        bound = ctx.sym_bind.get(name)
        if bound is not None:
            for p in bound[0]:
                t = self.lookup(p, bound[1], 0, name)
                if t is not None:
                    return t, Confidence.IMPORT
            # a default import whose default export is not a known symbol (CommonJS
            # ``module.exports = {...}``): use the module itself.
            return (Mod(bound[0]) if bound[1] == "default" else None), Confidence.IMPORT
        mods = ctx.mod_bind.get(name)
        if mods is not None:
            return Mod(mods), Confidence.IMPORT
        if name in ctx.ext_names:
            return _NONE
        for p in ctx.star:
            t = self.lookup(p, name, 1)
            if t is not None:
                return t, Confidence.IMPORT
        if rules.package_scoped:
            for p in rules.package_files(self, fi):
                os_ = self.files[p].syms.get(name)
                if os_ is not None and os_.parent is None:
                    self.seen.add(p)
                    return (p, name), Confidence.SAME_PACKAGE
        t = rules.fallback_name(self, fi, name)
        if t is not None:
            return t, Confidence.SAME_PACKAGE
        return _NONE

    def _via(self, owner: Sym, found: Sym, direct: Confidence) -> Confidence:
        """``direct`` when ``found`` is a member of ``owner`` itself, else INHERITANCE."""
        if found[0] == owner[0] and found[1].startswith(owner[1] + "."):
            return direct
        if self.files[found[0]].rules.detached_methods and found[1].rsplit(".", 1)[0] == owner[1]:
            return direct  # a Go/Rust method of the same type declared in another file
        return Confidence.INHERITANCE

    def lookup(self, path: str, name: str, depth: int, local: str | None = None) -> Target | None:
        """``name`` (possibly dotted) as exported by the file ``path``."""
        fi = self.files.get(path)
        if fi is None:
            return None
        self.seen.add(path)
        syms = fi.syms
        if "." in name:
            if name in syms:
                return (path, name)
            head, _, rest = name.partition(".")
            t = self.lookup(path, head, depth)
            if isinstance(t, tuple):
                return self.resolve_member(t, rest.split("."))
            if isinstance(t, Mod):
                return self.resolve_in_files(t.paths, rest.split("."))
            return None
        if depth and fi.exports is not None and name not in fi.exports:
            return None  # `from m import *` imports only `__all__` when declared
        s = syms.get(name)
        if s is not None and s.parent is None:
            return (path, name)
        if name == "default":
            if local:
                s = syms.get(local)
                if s is not None and s.parent is None:
                    return (path, local)
            tops = [q for q, x in syms.items() if x.parent is None and "." not in q and x.kind is not SymbolKind.MODULE]
            return (path, tops[0]) if len(tops) == 1 else None
        if depth >= _MAX_DEPTH or not fi.rules.reexports:
            return None
        key = (path, name)
        got = self.reexport_memo.get(key)
        if got is not None:  # also breaks import cycles: in progress -> not found
            self.seen |= got[1]
            return got[0]
        self.reexport_memo[key] = (None, frozenset())
        outer = self.seen
        self.seen = set()
        res = self.reexported(fi, name, depth)
        seen = frozenset(self.seen)
        outer |= seen
        self.seen = outer
        self.reexport_memo[key] = (res, seen)
        return res

    def reexported(self, fi: FileIndex, name: str, depth: int) -> Target | None:
        """``name`` as bound in ``fi`` by its imports (re-exports, star imports)."""
        ctx = self.r.ctx_of(fi)
        bound = ctx.sym_bind.get(name)
        if bound is not None:
            for p in bound[0]:
                t = self.lookup(p, bound[1], depth + 1, name)
                if t is not None:
                    return t
        mods = ctx.mod_bind.get(name)
        if mods is not None:
            return Mod(mods)
        sub = fi.rules.submodule(fi, name)
        if sub is not None:
            return sub
        for p in ctx.star:
            t = self.lookup(p, name, depth + 1)
            if t is not None:
                return t
        return None

    def resolve_in_files(self, paths: tuple[str, ...], rest: Sequence[str]) -> Target | None:
        for p in paths:
            t = self.lookup(p, rest[0], 0)
            if t is None:
                continue
            if len(rest) == 1:
                return t
            t2 = self.resolve_in_files(t.paths, rest[1:]) if isinstance(t, Mod) else self.resolve_member(t, rest[1:])
            if t2 is not None:
                return t2
        return None

    def resolve_member(self, sym: Sym, rest: Sequence[str]) -> Sym | None:
        path, qual = sym
        syms = self.files[path].syms
        q = qual + "." + ".".join(rest)
        if q in syms:
            return (path, q)
        if len(rest) == 1:
            return self.member_of(sym, rest[0], set())
        head = self.member_of(sym, rest[0], set())
        return self.resolve_member(head, rest[1:]) if head is not None else None

    def member_of(self, sym: Sym, name: str, visited: set[Sym]) -> Sym | None:
        """Member ``name`` of class ``sym``, looking through its bases (and, for Go/Rust,
        methods of the type declared in other files)."""
        path, qual = sym
        q = f"{qual}.{name}"
        fi = self.files[path]
        if q in fi.syms:
            return (path, q)
        visited.add(sym)
        if fi.rules.detached_methods:
            t = self.type_method(fi, qual, name)
            if t is not None:
                return t
        if qual in fi.syms and fi.syms[qual].kind in CLASSLIKE:
            for base in self.bases(sym):
                if base not in visited:
                    t = self.member_of(base, name, visited)
                    if t is not None:
                        return t
        return None

    def type_method(self, fi: FileIndex, type_key: str, name: str) -> Sym | None:
        entries = self.r.methods.get(name)
        if not entries:
            return None
        found = [(p, q) for (p, owner), q in entries.items() if owner == type_key and fi.rules.method_visible(fi, p)]
        if len(found) == 1:
            self.seen.add(found[0][0])
            return found[0]
        return None

    def bases(self, sym: Sym) -> tuple[Sym, ...]:
        got = self.bases_memo.get(sym)
        if got is not None:
            self.seen |= got[1]
            return got[0]
        self.bases_memo[sym] = ((), frozenset())  # cycle guard
        outer = self.seen
        self.seen = {sym[0]}
        fi = self.files[sym[0]]
        out: list[Sym] = []
        refs = fi.inherits_by_child.get(sym[1])
        if refs:
            ctx = self.r.ctx_of(fi)
            s = fi.syms.get(sym[1])
            scope = (s.parent or "") if s is not None else ""
            for ref in refs:
                t = self.resolve_type(fi, ctx, scope, ref.parent, sym[1])
                if t is not None and t[0] != sym and t[0] not in out:
                    out.append(t[0])
        seen = frozenset(self.seen)
        outer |= seen
        self.seen = outer
        res = tuple(out)
        self.bases_memo[sym] = (res, seen)
        return res

    # ----------------------------------------------------------------- receivers

    def type_of(self, fi: FileIndex, t: TypeRef, depth: int = 0) -> Sym | None:
        """The class a stated type names: the annotation/declared type, or the class a
        constructor call builds, or (one level) the return annotation of the called function."""
        key = (fi.path, t.scope, t.type, t.from_call, depth)
        if key in self.type_memo:
            return self.type_memo[key]
        self.type_memo[key] = None  # cycle guard
        self.seen.add(fi.path)
        ctx = self.r.ctx_of(fi)
        ctx = ctx.local.get(fi.info_for(t.scope)[4], ctx) if fi.import_scopes else ctx
        out: Sym | None = None
        if not t.from_call:
            got = self.resolve_type(fi, ctx, t.scope, t.type, None)
            out = got[0] if got is not None else None
        else:
            segs = segments(t.type)
            target: Target | None = None
            if len(segs) == 1:
                target = self.resolve_name(fi, ctx, t.scope, segs[0])[0]
            elif segs:
                target = self.resolve_dotted(fi, ctx, fi.info_for(t.scope), t.type, segs)[0]
            if isinstance(target, tuple):
                other = self.files[target[0]]
                s = other.syms[target[1]]
                if s.kind in CLASSLIKE:
                    out = target
                elif s.kind in CALLABLE and depth == 0:
                    ret = other.returns.get(target[1])
                    if ret is not None and ret.type in other.rules.self_names and "." in target[1]:
                        # `fn new() -> Self`: the type the method belongs to
                        owner = target[1].rsplit(".", 1)[0]
                        got = self.resolve_type(other, self.r.ctx_of(other), "", owner, None)
                        out = got[0] if got is not None else None
                    elif ret is not None and not ret.from_call:
                        out = self.type_of(other, ret, depth + 1)
        self.type_memo[key] = out
        return out

    def attr_type(self, cls: Sym, attr: str, visited: set[Sym]) -> Sym | None:
        """The type of attribute/field ``attr`` of class ``cls`` (or of one of its bases)."""
        fi = self.files[cls[0]]
        t = fi.attr_types.get(cls[1], {}).get(attr)
        if t is not None:
            return self.type_of(fi, t)
        visited.add(cls)
        for base in self.bases(cls):
            if base not in visited:
                found = self.attr_type(base, attr, visited)
                if found is not None:
                    return found
        return None

    def receiver_type(self, fi: FileIndex, ci: CallerInfo, segs: Sequence[str]) -> Sym | None:
        """The class of the receiver expression ``segs`` (``self``, ``x``, ``self.a.b``)."""
        head = segs[0]
        cur: Sym | None = None
        if head in fi.rules.self_names:
            if ci[2] and ci[2] in fi.syms and fi.syms[ci[2]].kind in CLASSLIKE:
                cur = (fi.path, ci[2])
            elif ci[2] and fi.rules.detached_methods:  # impl/receiver type declared elsewhere
                got = self.resolve_type(fi, self.r.ctx_of(fi), "", ci[2], None)
                cur = got[0] if got is not None else None
        else:
            t = fi.var_type(ci[3], head)
            if t is not None:
                cur = self.type_of(fi, t)
        for attr in segs[1:]:
            if cur is None:
                return None
            cur = self.attr_type(cur, attr, set())
        return cur

    # ----------------------------------------------------------------- dotted & heuristics

    def resolve_dotted(
        self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, text: str, segs: tuple[str, ...]
    ) -> tuple[Target | None, Confidence, bool]:
        """Resolve ``a.b.c``; the flag says whether a name-only guess may still be tried."""
        rules = fi.rules
        caller, cls = ci[3], ci[2]
        handled, target = rules.path_call(self, fi, text, segs)
        if handled:
            return target, Confidence.IMPORT, False
        head = segs[0]
        if head in rules.self_names:
            return self._self_call(fi, ci, segs)
        if head in rules.super_names:
            if cls and len(segs) == 2 and cls in fi.syms:
                for base in self.bases((fi.path, cls)):
                    inherited = self.member_of(base, segs[1], set())
                    if inherited is not None:
                        return inherited, Confidence.INHERITANCE, False
            return None, Confidence.INHERITANCE, False
        mod_bind = ctx.mod_bind
        if mod_bind:
            for i in range(len(segs) - 1, 0, -1):
                paths = mod_bind.get(head if i == 1 else ".".join(segs[:i]))
                if paths is not None:
                    return self.resolve_in_files(paths, segs[i:]), Confidence.IMPORT, False
        if head in fi.typed_names and fi.var_type(caller, head) is not None:
            return self._typed_call(fi, ci, segs)
        if head in ctx.ext_names:
            return None, Confidence.IMPORT, False
        t, conf = self.resolve_name(fi, ctx, caller, head)
        if t is None:
            return None, conf, "::" not in text and not head[:1].isupper()
        if isinstance(t, Mod):
            return self.resolve_in_files(t.paths, segs[1:]), conf, False
        kind = self.files[t[0]].syms[t[1]].kind
        if kind in CLASSLIKE or kind is SymbolKind.MODULE:
            return self.resolve_member(t, segs[1:]), conf, False
        # a function or variable-like symbol used as a receiver: only the guess is left
        return None, conf, "::" not in text

    def _self_call(self, fi: FileIndex, ci: CallerInfo, segs: tuple[str, ...]) -> tuple[Target | None, Confidence, bool]:
        cls = ci[2]
        if not cls:
            return None, Confidence.NAME_ONLY, len(segs) > 2
        if len(segs) == 2:
            own = (fi.path, cls)
            found = self.self_method(fi, cls, segs[1])
            conf = self._via(own, found, Confidence.RECEIVER_TYPE) if found is not None else Confidence.RECEIVER_TYPE
            return found, conf, False
        return self._typed_call(fi, ci, segs)

    def _typed_call(self, fi: FileIndex, ci: CallerInfo, segs: tuple[str, ...]) -> tuple[Target | None, Confidence, bool]:
        """``recv.a.m()`` where the receiver's type is known (or unknown: a guess may follow)."""
        cls = self.receiver_type(fi, ci, segs[:-1])
        if cls is None:
            # a receiver annotated with a type outside the repository is not guessed at
            stated = fi.var_type(ci[3], segs[0]) if len(segs) == 2 else None
            return None, Confidence.NAME_ONLY, stated is None or stated.from_call
        found = self.member_of(cls, segs[-1], set())
        if found is None:
            return None, Confidence.RECEIVER_TYPE, False
        return found, self._via(cls, found, Confidence.RECEIVER_TYPE), False

    def self_method(self, fi: FileIndex, cls: str, name: str) -> Sym | None:
        q = f"{cls}.{name}"
        if q in fi.syms:
            return (fi.path, q)
        s = fi.syms.get(cls)
        if s is not None and s.kind in CLASSLIKE:
            return self.member_of((fi.path, cls), name, set())
        if fi.rules.detached_methods:
            return self.type_method(fi, cls, name)
        return None

    def guess_method(self, fi: FileIndex, ctx: ImportCtx, name: str) -> Sym | None:
        if name in fi.rules.common_methods:
            return None
        key = (fi.path, name)
        if key in self.guess_memo:
            return self.guess_memo[key]
        got = self.guess_memo[key] = self._guess_method(fi, ctx, name)
        return got

    def _guess_method(self, fi: FileIndex, ctx: ImportCtx, name: str) -> Sym | None:
        found: tuple[tuple[str, str], Sym] | None = None
        for p in (fi.path, *ctx.targets):
            entries = self.files[p].methods.get(name)
            if not entries:
                continue
            for owner, q in entries:
                if found is None:
                    found = ((p, owner), (p, q))
                elif found[0] != (p, owner):
                    return None
        if found is not None:
            return found[1]
        repo = self.r.methods.get(name)
        if repo is not None and len(repo) == 1:
            for (path, _owner), qual in repo.items():
                self.seen.add(path)
                return (path, qual)
        return None
