"""Receiver typing: the class an expression denotes (a stated or constructed type, a
return type one level deep, an attribute's type), shared by calls and chained calls."""

from __future__ import annotations

from collections.abc import Sequence

from graphmemd.graph.model import Confidence, TypeRef
from graphmemd.graph.resolution.index import (
    CALLABLE,
    CallerInfo,
    FileIndex,
    ImportCtx,
    Sym,
    Target,
    segments,
)
from graphmemd.graph.resolution.lookup import Lookup
from graphmemd.graph.resolution.names import name_key, top


class Receivers(Lookup):
    """What a receiver is: ``passes.Pass`` resolves calls on top of it."""

    __slots__ = ()

    def type_of(self, fi: FileIndex, t: TypeRef, depth: int = 0) -> Sym | None:
        """The class a stated type names: the annotation/declared type, or the class a
        constructor call builds, or (one level) the return annotation of the called function."""
        key = (fi.path, t.scope, t.type, t.from_call, depth)
        memo = self.type_memo.get(key)
        if memo is not None:
            self.seen |= memo[1]
            return memo[0]
        self.type_memo[key] = (None, frozenset())  # cycle guard
        outer = self.begin()
        self.note(fi.path, t.scope, t.type)
        ctx = self.r.ctx_of(fi)
        ctx = ctx.local.get(fi.info_for(t.scope)[4], ctx) if fi.import_scopes else ctx
        out: Sym | None = None
        if t.attr:
            segs = segments(t.type)
            out = self.receiver_type(fi, fi.info_for(t.scope), segs) if segs and depth < 2 else None
            if out is None and segs and segs[0] not in fi.rules.self_names and segs[0] not in fi.typed_names:
                got = self.resolve_type(fi, ctx, t.scope, t.type, None)  # `x = Foo`: the class itself
                out = got[0] if got is not None else None
        elif not t.from_call:
            got = self.resolve_type(fi, ctx, t.scope, t.type, None)
            out = got[0] if got is not None else None
        else:
            target = self.call_target(fi, ctx, fi.info_for(t.scope), t.type)
            if isinstance(target, tuple):
                out = self.returned_type(target, depth)
        self.type_memo[key] = (out, self.end(outer))
        return out

    def returned_type(self, target: Sym, depth: int) -> Sym | None:
        """The class a call of ``target`` returns: the class itself (a constructor) or, for a
        function at ``depth`` 0, its return annotation or what it returns (one level)."""
        other = self.files[target[0]]
        kind = other.syms[target[1]].kind
        if kind in other.rules.type_kinds:
            return target
        ret = other.returns.get(target[1]) if kind in CALLABLE and depth == 0 else None
        if ret is None:
            return None
        if ret.type in other.rules.self_names and "." in target[1]:
            # `fn new() -> Self`: the type the method belongs to
            owner = target[1].rsplit(".", 1)[0]
            got = self.resolve_type(other, self.r.ctx_of(other), "", owner, None)
            return got[0] if got is not None else None
        return self.type_of(other, ret, depth + 1)  # an annotation, or `return Foo(...)`

    def call_target(self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, text: str) -> Target | None:
        """What the called expression ``text`` names from ``ci``: ``f``, ``a.b``, ``f().g``."""
        if "(" in text:
            return self.chain_call(fi, ctx, ci, text)[0]
        segs = segments(text)
        if len(segs) == 1:
            return self.resolve_name(fi, ctx, ci[3], segs[0])[0]
        return self.resolve_dotted(fi, ctx, ci, text, segs)[0] if segs else None

    def chain_call(self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, text: str) -> tuple[Sym | None, Confidence]:
        """``Foo().bar``, ``get_x().m``, ``self.make().attr.m``: a member of the class the
        receiver call returns (a constructor, or one level of return type). Never guessed."""
        recv, _, tail = text.rpartition("().")
        names = segments(tail)
        target = self.call_target(fi, ctx, ci, recv)
        cls = self.returned_type(target, 0) if isinstance(target, tuple) else None
        for attr in names[:-1]:
            cls = self.attr_type(cls, attr, set()) if cls is not None else None
        found = self.member_of(cls, names[-1], set()) if cls is not None and names else None
        if cls is None or found is None:
            return None, Confidence.RECEIVER_TYPE
        return found, self._via(cls, found, Confidence.RECEIVER_TYPE)

    def typed_global(self, paths: tuple[str, ...], rest: Sequence[str]) -> Sym | None:
        """``mod.var.m()`` / ``pkg.Var.M()``: a module-level variable of a stated type."""
        cls = self.global_type(paths, rest[0], 0)
        for attr in rest[1:-1]:
            cls = self.attr_type(cls, attr, set()) if cls is not None else None
        return self.member_of(cls, rest[-1], set()) if cls is not None else None

    def global_type(self, paths: tuple[str, ...], name: str, depth: int) -> Sym | None:
        """The stated type of the module-level variable ``name`` of the first of ``paths``
        that has it, following re-exports (``from .config import idleConf``)."""
        for p in paths:
            fi = self.files.get(p)
            if fi is None:
                continue
            self.seen.add(name_key(p, top(name)))
            t = fi.module_vars.get(name)
            if t is not None:
                return self.type_of(fi, t)
            bound = self.r.ctx_of(fi).sym_bind.get(name) if depth < 4 else None
            got = self.global_type(bound[0], bound[1], depth + 1) if bound is not None else None
            if got is not None:
                return got
        return None

    def attr_type(self, cls: Sym, attr: str, visited: set[Sym]) -> Sym | None:
        """The type of attribute/field ``attr`` of class ``cls`` (or of one of its bases)."""
        fi = self.files[cls[0]]
        t = fi.attr_types.get(cls[1], {}).get(attr)
        if t is not None:
            return self.type_of(fi, t)
        prop = fi.syms.get(f"{cls[1]}.{attr}")
        if prop is not None and prop.kind in CALLABLE:  # a property: what its getter returns
            return self.returned_type((fi.path, prop.qualname), 0)
        visited.add(cls)
        for base in self.bases(cls):
            if base not in visited:
                found = self.attr_type(base, attr, visited)
                if found is not None:
                    return found
        return None

    def own_class(self, fi: FileIndex, ci: CallerInfo) -> Sym | None:
        """The class the caller ``ci`` is a member of (``self``/``this``), when known."""
        if ci[2] and ci[2] in fi.syms and fi.syms[ci[2]].kind in fi.rules.type_kinds:
            return (fi.path, ci[2])
        if ci[2] and fi.rules.detached_methods:  # impl/receiver type declared elsewhere
            got = self.resolve_type(fi, self.r.ctx_of(fi), "", ci[2], None)
            return got[0] if got is not None else None
        return None

    def owner_type(self, fi: FileIndex, caller: str) -> Sym | None:
        """The type the method ``caller`` of ``fi`` belongs to, wherever it is declared."""
        return self.own_class(fi, fi.info_for(caller))

    def receiver_type(self, fi: FileIndex, ci: CallerInfo, segs: Sequence[str]) -> Sym | None:
        """The class of the receiver expression ``segs`` (``self``, ``x``, ``self.a.b``)."""
        head = segs[0]
        cur: Sym | None = None
        if head in fi.rules.self_names:
            cur = self.own_class(fi, ci)
        else:
            t = fi.var_type(ci[3], head)
            if t is not None:
                cur = self.type_of(fi, t)
            elif fi.rules.members_in_scope and ci[2]:  # a field of the caller's class: implicit `this`
                own = self.own_class(fi, ci)
                cur = self.attr_type(own, head, set()) if own is not None else None
        for attr in segs[1:]:
            if cur is None:
                return None
            cur = self.attr_type(cur, attr, set())
        return cur

    def member_field(self, fi: FileIndex, ci: CallerInfo, name: str) -> bool:
        """Whether ``name`` is a typed field of the caller's class (or one of its bases)."""
        own = self.own_class(fi, ci)
        return own is not None and self.attr_type(own, name, set()) is not None
