"""Name lookup shared by every language: top-level names, imports and re-exports,
class members through bases, detached methods (Go/Rust). See ``passes.py`` for confidences."""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphmemd.graph.model import Confidence, SymbolKind, TypeRef
from graphmemd.graph.resolution.index import (
    CALLABLE,
    CallerInfo,
    FileIndex,
    ImportCtx,
    Mod,
    ResolverState,
    Sym,
    Target,
    segments,
)
from graphmemd.graph.resolution.names import name_key, top
from graphmemd.graph.resolution.record import Record

_MAX_DEPTH = 8
_IDENT = re.compile(r"[^\W\d]\w*")
#: prefix of the consulted-file keys standing for "the subclasses of a class named ..."
SUBCLASS_KEY = "\0subclasses:"
Resolved = tuple[Target | None, Confidence]
NONE: Resolved = (None, Confidence.NAME_ONLY)


class Lookup(Record):
    """Names, members and bases as one resolution run sees them (memoised per run);
    ``passes.Pass`` adds calls, receivers and guesses on top."""

    __slots__ = (
        "alias_memo",
        "anc_memo",
        "bases_memo",
        "desc_memo",
        "dir_memo",
        "files",
        "guess_memo",
        "r",
        "reexport_memo",
        "sub_memo",
        "type_memo",
    )

    def __init__(self, r: ResolverState) -> None:
        self.r = r
        self.files = r.files
        self.bases_memo: dict[Sym, tuple[tuple[Sym, ...], frozenset[str]]] = {}
        self.dir_memo: dict[tuple[str, bool], tuple[str, ...]] = {}
        super().__init__()
        self.guess_memo: dict[tuple[str, str], Sym | None] = {}
        self.reexport_memo: dict[tuple[str, str], tuple[Target | None, frozenset[str]]] = {}
        #: (each memo of a read of another file keeps what it recorded: added again on a hit)
        self.type_memo: dict[tuple[str, str, str, bool, int], tuple[Sym | None, frozenset[str]]] = {}
        self.alias_memo: dict[tuple[str, str, str], tuple[tuple[Sym | None, Confidence], frozenset[str]]] = {}
        self.sub_memo: dict[tuple[Sym, str], Sym | None] = {}
        self.anc_memo: dict[Sym, tuple[frozenset[Sym], frozenset[str]]] = {}
        self.desc_memo: dict[Sym, tuple[tuple[Sym, ...], frozenset[Sym]]] = {}

    def sid(self, t: Sym) -> str:
        """The symbol id of ``t``."""
        return self.files[t[0]].sids[t[1]]

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
        elif fi.rules.scoped_names:
            got = fi.rules.scoped_name(self, fi, scope, segs, exclude)
            target, conf = got if got is not None else (None, Confidence.NAME_ONLY)
        else:
            target, conf, _ = self.resolve_dotted(fi, ctx, (fi.fid, "", "", scope, ""), t, segs)
        if isinstance(target, tuple):
            other = self.files[target[0]]
            if other.syms[target[1]].kind in other.rules.type_kinds:
                return target, conf
        return None

    # ----------------------------------------------------------------- names

    def resolve_name(
        self, fi: FileIndex, ctx: ImportCtx, caller: str, name: str, exclude: str | None = None
    ) -> Resolved:
        """A bare ``name`` as seen from ``caller`` in ``fi``: enclosing scopes, the file, its imports,
        its package; with the confidence of the binding found."""
        syms = fi.syms
        rules = fi.rules
        if rules.scoped_names:
            scoped = rules.scoped_name(self, fi, caller, (name,), exclude)
            if scoped is not None:
                return scoped
        if caller and (fi.fn_parents or rules.members_in_scope):
            q = caller
            while q:
                s = syms.get(q)
                if s is None:
                    break
                if s.kind in CALLABLE:
                    cand = f"{q}.{name}"
                    if cand in syms:
                        return (fi.path, cand), Confidence.SAME_MODULE
                elif rules.members_in_scope and s.kind in rules.type_kinds:
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
            return NONE
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
        return NONE

    def member_confidence(self, owner: Sym, found: Sym, direct: Confidence) -> Confidence:
        """INHERITANCE when ``found`` is a member of one of ``owner``'s bases, else ``direct``."""
        return self._via(owner, found, direct)

    def _via(self, owner: Sym, found: Sym, direct: Confidence) -> Confidence:
        """INHERITANCE when ``found`` is a member of one of ``owner``'s bases, else ``direct``
        (a member of ``owner`` itself, or what one of its attributes is bound to)."""
        if (found[0] == owner[0] and found[1].startswith(owner[1] + ".")) or "." not in found[1]:
            return direct
        found_owner = found[1].rsplit(".", 1)[0]
        detached = self.files[found[0]].rules.detached_methods
        if detached and found_owner == owner[1]:
            return direct  # a Go/Rust method of the same type declared in another file
        ancestors = self.ancestors(owner)
        if (found[0], found_owner) in ancestors or (detached and any(a[1] == found_owner for a in ancestors)):
            return Confidence.INHERITANCE
        return direct

    def ancestors(self, cls: Sym) -> frozenset[Sym]:
        """Every base of ``cls``, direct or not (memoised)."""
        got = self.anc_memo.get(cls)
        if got is not None:
            self.seen |= got[1]
            return got[0]
        outer = self.begin()
        todo = list(self.bases(cls))
        done = set(todo)
        while todo:
            for b in self.bases(todo.pop()):
                if b not in done:
                    done.add(b)
                    todo.append(b)
        self.anc_memo[cls] = (frozenset(done), self.end(outer))
        return frozenset(done)

    def lookup(self, path: str, name: str, depth: int, local: str | None = None) -> Target | None:
        """``name`` (possibly dotted) as exported by the file ``path``."""
        fi = self.files.get(path)
        if fi is None:
            return None
        # by name: what this lookup, and what reads the symbol it finds, sees (``names.py``)
        self.seen.add(name_key(path, top(name)))
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
        bound_by_value = fi.module_vars.get(name)
        if bound_by_value is not None and bound_by_value.attr:  # `main = TestProgram`
            aliased = self.alias_target(fi, bound_by_value)[0]
            if aliased is not None:
                return aliased
        if name == "default":
            self.seen.add(path)  # (the file's only top-level name: read across all of them)
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
        outer = self.begin()
        res = self.reexported(fi, name, depth)
        self.reexport_memo[key] = (res, self.end(outer))
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
        """The dotted path ``rest`` as exported by the first of ``paths`` that has it."""
        for p in paths:
            t = self.lookup(p, rest[0], 0)
            if t is None:
                continue
            if len(rest) == 1:
                return t
            t2 = self.resolve_in_files(t.paths, rest[1:]) if isinstance(t, Mod) else self.resolve_member(t, rest[1:])
            if t2 is not None:
                return t2
        return self.typed_global(paths, rest) if len(rest) > 1 else None

    def typed_global(self, paths: tuple[str, ...], rest: Sequence[str]) -> Sym | None:
        """A method reached through a module-level variable of a stated type (implemented
        by ``passes.Pass``)."""
        return None

    def resolve_member(self, sym: Sym, rest: Sequence[str]) -> Sym | None:
        """The member ``rest`` (possibly dotted) of class ``sym``, looking through its bases."""
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
        bound_by_value = fi.attr_types.get(qual, {}).get(name) if fi.attr_types else None
        if bound_by_value is not None and bound_by_value.attr:  # `pack = pack_configure`
            aliased = self.alias_target(fi, bound_by_value)[0]
            if aliased is not None:
                return aliased
        visited.add(sym)
        if fi.rules.detached_methods:
            t = self.type_method(fi, qual, name)
            if t is not None:
                return t
        if qual in fi.syms and fi.syms[qual].kind in fi.rules.type_kinds:
            for base in self.bases(sym):
                if base not in visited:
                    t = self.member_of(base, name, visited)
                    if t is not None:
                        return t
        return None

    def type_method(self, fi: FileIndex, type_key: str, name: str) -> Sym | None:
        """The one method ``name`` declared for ``type_key`` outside its body and visible from ``fi``
        (None: none or several)."""
        entries = self.r.methods.get(name)
        if not entries:
            return None
        found = [(p, q) for (p, owner), q in entries.items() if owner == type_key and fi.rules.method_visible(fi, p)]
        if len(found) > 1 and len({q for _, q in found}) == 1:
            found = [min(found)]  # the same method in build variants (Go files per OS/arch)
        if len(found) == 1:
            self.seen.add(found[0][0])
            return found[0]
        return None

    def subclass_member(self, cls: Sym, name: str) -> Sym | None:
        """``self.name`` in class ``cls`` that neither defines nor inherits it (a mixin, an
        abstract base): the one definition every subclass in the repository reaches through
        its bases. None when ``cls`` or a subclass lacking it has a base outside the
        repository (which may define it), or when the subclasses disagree (memoised)."""
        key = (cls, name)
        if key in self.sub_memo:
            return self.sub_memo[key]
        found: Sym | None = None
        if self._bases_known(cls) and not self._file_binds(cls[0], name):
            # (walked when no method has the name too: its record is what a method added changes)
            ds, inner = self.descendants(cls)
            for d in ds if name in self.r.methods else ():
                m = self.member_of(d, name, set())
                # a subclass without it must be abstract itself: have subclasses, and no
                # base outside the repository
                lacking = m is None and (d not in inner or not self._bases_known(d))
                if lacking or (m is not None and found not in (None, m)):
                    found = None
                    break
                found = m or found
        self.sub_memo[key] = found
        return found

    def _file_binds(self, path: str, name: str) -> bool:
        """Whether ``name`` is a top-level name of ``path`` (perhaps imported into the class
        body, which the import scopes do not tell apart)."""
        s = self.files[path].syms.get(name)
        ctx = self.r.ctx_of(self.files[path])
        return (s is not None and s.parent is None) or name in ctx.sym_bind or name in ctx.mod_bind

    def _bases_known(self, cls: Sym) -> bool:
        refs = self.files[cls[0]].inherits_by_child.get(cls[1], ())
        return len(self.bases(cls)) == sum(1 for r in refs if r.parent != "object")

    def descendants(self, cls: Sym) -> tuple[tuple[Sym, ...], frozenset[Sym]]:
        """Every class of the repository deriving from ``cls`` (directly or not), and those
        of them that have subclasses themselves (memoised: ``cls`` is in the file being resolved)."""
        got = self.desc_memo.get(cls)
        if got is not None:
            return got
        out: list[Sym] = []
        inner: set[Sym] = set()
        todo = [cls]
        done = {cls}
        while todo:
            c = todo.pop()
            name = c[1].rsplit(".", 1)[-1].split("~", 1)[0]
            self.seen.add(SUBCLASS_KEY + name)  # a new subclass anywhere re-resolves this file
            for child in self.r.subclasses.get(name, ()):
                self.seen.add(name_key(child[0], top(child[1])))  # (whether it defines the class)
                if child not in done and child[1] in self.files[child[0]].syms and c in self.bases(child):
                    done.add(child)
                    inner.add(c)
                    out.append(child)
                    todo.append(child)
        got = self.desc_memo[cls] = (tuple(out), frozenset(inner))
        return got

    def bases(self, sym: Sym) -> tuple[Sym, ...]:
        """The resolved base classes of ``sym`` (memoised; a cycle is cut)."""
        got = self.bases_memo.get(sym)
        if got is not None:
            self.seen |= got[1]
            return got[0]
        self.bases_memo[sym] = ((), frozenset())  # cycle guard
        outer, first = self.begin(), self.files[sym[0]]
        # read by name (its bases as written, below), unless its parts span files
        self.seen.add(sym[0] if first.rules.detached_methods else name_key(sym[0], top(sym[1])))
        out: list[Sym] = []
        parts = first.rules.type_parts(self, sym) if first.rules.detached_methods else ()
        for path, qual in (sym, *(p for p in parts if p != sym)):  # (a partial/reopened type: every part's)
            fi = self.files[path]
            refs = fi.inherits_by_child.get(qual)
            if not refs:
                continue
            ctx = self.r.ctx_of(fi)
            s = fi.syms.get(qual)
            scope = (s.parent or "") if s is not None else ""
            for ref in refs:
                self.note(path, scope, ref.parent)
                t = self.resolve_type(fi, ctx, scope, ref.parent, qual)
                if t is not None and t[0] not in (sym, *parts) and t[0] not in out:
                    out.append(t[0])
        res = tuple(out)
        self.bases_memo[sym] = (res, self.end(outer))
        return res

    def resolve_dotted(
        self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, text: str, segs: tuple[str, ...]
    ) -> tuple[Target | None, Confidence, bool]:
        """Resolve a dotted name (implemented by ``passes.Pass``)."""
        raise NotImplementedError

    def alias_target(self, fi: FileIndex, t: TypeRef) -> tuple[Sym | None, Confidence]:
        """The callable a name bound by value names (implemented by ``passes.Pass``)."""
        raise NotImplementedError

    def owner_type(self, fi: FileIndex, caller: str) -> Sym | None:
        """The type a method belongs to (implemented by ``receivers.Receivers``)."""
        raise NotImplementedError
