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

The bulk of the algorithm is documented in ``graphmemd.graph.resolution`` (package docstring).
"""

from __future__ import annotations

from graphmemd.graph.model import Confidence, InheritKind, InheritRef, ResolvedEdges, SymbolKind, TypeRef
from graphmemd.graph.resolution.index import (
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
from graphmemd.graph.resolution.names import method_key, name_key, top
from graphmemd.graph.resolution.receivers import Receivers

#: what a name bound by value may call: a function, a method or a class (its constructor)
_ALIASABLE = CALLABLE | CLASSLIKE
#: `self = object.__new__(cls)`, `cls = self.__class__`: still the enclosing class
_SAME_CLASS = ("__new__", "__class__")


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
        """The run's edges, deduplicated (the best confidence kept per call)."""
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


class Pass(Receivers):
    """One resolution run (``edges_for``/``all_edges``): calls, receivers, guesses."""

    __slots__ = ()

    # ----------------------------------------------------------------- per file

    def file_edges(self, fi: FileIndex, acc: Acc) -> FileStats:
        """Add ``fi``'s import, call and inheritance edges to ``acc``; returns its call statistics."""
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
        for ci, callee, args, callers in fi.planned:
            use = ctx.local.get(ci[4], ctx) if ci[4] else ctx
            target, conf = self.resolve_call(fi, use, ci, callee, args)
            if target is not None and conf is Confidence.NAME_ONLY and target in callers:
                # `self.inner.m()` inside `m` delegates to another type: never guessed as recursion
                lost = callers[target]
                sites += lost
                unresolved += lost
                acc.unres_calls.append((target, callee))
                callers = {c: k for c, k in callers.items() if c != target}
            n = sum(callers.values())
            sites += n
            if target is None:
                unresolved += n
                acc.unres_calls.extend([(c, callee) for c in callers])
            else:
                by[conf] = by.get(conf, 0) + n
                acc.calls.extend([(c, target, conf) for c in callers])
        for ref in fi.parsed.inherits:
            self.inherit_edge(fi, ctx, ref, acc)
        return sites, unresolved, by

    def resolve_call(
        self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, callee: str, args: int
    ) -> tuple[str | None, Confidence]:
        """The symbol a call of ``callee`` from ``ci`` resolves to, with its confidence (None: unresolved)."""
        segs = segments(callee)
        if not segs:
            return None, Confidence.NAME_ONLY
        t: Target | None
        if "(" in callee and not (segs[0] in fi.rules.super_names and callee.count("(") == 1):
            # a chained call: `Foo().bar()`, `get_x().method()` (`super().m()` is not one)
            t, conf = self.chain_call(fi, ctx, ci, callee)
        elif len(segs) == 1:
            t, conf = self.resolve_name(fi, ctx, ci[3], segs[0])
            if t is None and segs[0] in fi.typed_names:
                bound = fi.var_type(ci[3], segs[0])
                if bound is not None and bound.attr:
                    t, conf = self.alias_target(fi, bound)
        else:
            t, conf, guess = self.resolve_dotted(fi, ctx, ci, callee, segs)
            if t is None and guess:
                t, conf = self.guess_method(fi, ctx, segs[-1]), Confidence.NAME_ONLY
        if not isinstance(t, tuple):
            return None, conf
        if args >= 0:
            t = self.overload(t, args)
        return self.sid(self.files[t[0]].rules.definition(self, t)), conf

    def alias_target(self, fi: FileIndex, t: TypeRef) -> tuple[Sym | None, Confidence]:
        """The function, method or class a name bound by value calls: ``eq = self.assertEqual``,
        ``self.write = self.framer.write``, ``info = _global_log.info`` and, outside functions
        (where the value cannot be a parameter), ``main = TestProgram`` or, in a class body,
        ``pack = pack_configure``. Memoised (and cycle-guarded) per run."""
        key = (fi.path, t.scope, t.type)
        got = self.alias_memo.get(key)
        if got is not None:
            self.seen |= got[1]
            return got[0]
        self.alias_memo[key] = ((None, Confidence.NAME_ONLY), frozenset())
        outer = self.begin()
        self.note(fi.path, t.scope, t.type)
        segs = segments(t.type)
        target: Target | None = None
        conf = Confidence.NAME_ONLY
        scope = fi.syms.get(t.scope)
        in_class = scope is not None and scope.kind in CLASSLIKE
        if len(segs) == 1 and in_class:
            target = self.member_of((fi.path, t.scope), segs[0], set())
            conf = Confidence.SAME_MODULE
        if target is None and segs and (len(segs) > 1 or not t.scope or in_class):
            ctx = self.r.ctx_of(fi)
            ctx = ctx.local.get(fi.info_for(t.scope)[4], ctx) if fi.import_scopes else ctx
            if len(segs) == 1:
                target, conf = self.resolve_name(fi, ctx, "", segs[0])
            else:
                target, conf, _ = self.resolve_dotted(fi, ctx, fi.info_for(t.scope), t.type, segs)
        out: tuple[Sym | None, Confidence] = (None, conf)
        if isinstance(target, tuple) and self.files[target[0]].syms[target[1]].kind in _ALIASABLE:
            out = (target, conf)
        self.alias_memo[key] = (out, self.end(outer))
        return out

    def overload(self, t: Sym, args: int) -> Sym:
        """The overload of ``t`` taking ``args`` arguments, when exactly one does."""
        fi = self.files[t[0]]
        group = fi.overloads.get(t[1])
        if not group:
            return t
        fits = [q for q in group if fi.arity.get(q) == args]
        return (t[0], fits[0]) if len(fits) == 1 else t

    def inherit_edge(self, fi: FileIndex, ctx: ImportCtx, ref: InheritRef, acc: Acc) -> None:
        """Add the inheritance edge of ``ref`` to ``acc``, or record it as unresolved."""
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

    # ----------------------------------------------------------------- dotted & heuristics

    def resolve_dotted(
        self, fi: FileIndex, ctx: ImportCtx, ci: CallerInfo, text: str, segs: tuple[str, ...]
    ) -> tuple[Target | None, Confidence, bool]:
        """Resolve ``a.b.c``; the flag says whether a name-only guess may still be tried."""
        rules = fi.rules
        caller, cls = ci[3], ci[2]
        handled, target, how = rules.path_call(self, fi, caller, text, segs)
        if handled:
            return target, how, False
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
        if rules.members_in_scope and cls and self.member_field(fi, ci, head):
            return self._typed_call(fi, ci, segs)
        if head in ctx.ext_names:
            return None, Confidence.IMPORT, False
        t, conf = self.resolve_name(fi, ctx, caller, head)
        bound = ctx.sym_bind.get(head) if t is None else None
        if bound is not None:  # `from config import idleConf; idleConf.SetOption()`
            found = self.typed_global(bound[0], (bound[1], *segs[1:]))
            if found is not None:
                return found, Confidence.RECEIVER_TYPE, False
        if t is None:
            return None, conf, "::" not in text and not head[:1].isupper()
        if isinstance(t, Mod):
            return self.resolve_in_files(t.paths, segs[1:]), conf, False
        kind = self.files[t[0]].syms[t[1]].kind
        if kind in CLASSLIKE or kind is SymbolKind.MODULE:
            return self.resolve_member(t, segs[1:]), conf, False
        # a function or variable-like symbol used as a receiver: only the guess is left
        return None, conf, "::" not in text

    def _self_call(
        self, fi: FileIndex, ci: CallerInfo, segs: tuple[str, ...]
    ) -> tuple[Target | None, Confidence, bool]:
        cls = ci[2]
        if not cls:
            return None, Confidence.NAME_ONLY, len(segs) > 2
        rebound = fi.var_type(ci[3], segs[0]) if segs[0] in fi.typed_names else None
        if rebound is not None and not self._same_instance(fi, rebound):
            # `cls = type(obj)`, `cls = JSONEncoder`: not (necessarily) the enclosing class
            other = self.type_of(fi, rebound) if len(segs) == 2 else None
            found = self.member_of(other, segs[1], set()) if other is not None else None
            if other is None or found is None:
                return None, Confidence.RECEIVER_TYPE, False
            return found, self._via(other, found, Confidence.RECEIVER_TYPE), False
        if len(segs) == 2:
            own = (fi.path, cls)
            found = self.self_method(fi, cls, segs[1])
            if found is None and fi.rules.subclass_dispatch and cls in fi.syms:
                return self.subclass_member(own, segs[1]), Confidence.INHERITANCE, False
            conf = self._via(own, found, Confidence.RECEIVER_TYPE) if found is not None else Confidence.RECEIVER_TYPE
            return found, conf, False
        return self._typed_call(fi, ci, segs)

    @staticmethod
    def _same_instance(fi: FileIndex, t: TypeRef) -> bool:
        """``self = self.copy()``, ``self = object.__new__(cls)``, ``cls = self.__class__``:
        a rebound ``self``/``cls`` that still denotes the enclosing class (not ``cls = type(x)``)."""
        segs = segments(t.type)
        return bool(segs) and (segs[0] in fi.rules.self_names or segs[-1] in _SAME_CLASS)

    def _typed_call(
        self, fi: FileIndex, ci: CallerInfo, segs: tuple[str, ...]
    ) -> tuple[Target | None, Confidence, bool]:
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
        """Method ``name`` of class ``cls`` in ``fi``, its bases, or (Go/Rust) declared outside it."""
        q = f"{cls}.{name}"
        if q in fi.syms:
            return (fi.path, q)
        s = fi.syms.get(cls)
        if s is not None and s.kind in fi.rules.type_kinds:
            return self.member_of((fi.path, cls), name, set())
        if fi.rules.detached_methods:
            return self.type_method(fi, cls, name)
        return None

    def guess_method(self, fi: FileIndex, ctx: ImportCtx, name: str) -> Sym | None:
        """The one method named ``name`` a name-only guess links to (None for common names; memoised)."""
        if name in fi.rules.common_methods:
            return None
        key = (fi.path, name)
        if key in self.guess_memo:
            return self.guess_memo[key]
        got = self.guess_memo[key] = self._guess_method(fi, ctx, name)
        return got

    def _guess_method(self, fi: FileIndex, ctx: ImportCtx, name: str) -> Sym | None:
        # the one type of this file or of a file it imports that has such a method
        near = {fi.path, *ctx.targets}
        self.seen.update(name_key(p, method_key(name)) for p in near)
        repo = self.r.methods.get(name)
        if not repo:
            return None
        found: Sym | None = None
        for (p, _owner), q in repo.items():
            if p in near:
                if found is not None:
                    return None  # a second (file, type)
                found = (p, q)
        if found is not None:
            self.seen.add(name_key(found[0], top(found[1])))  # (its id, arity, overloads)
            return found
        if len(repo) == 1 and fi.rules.repo_wide_guess:
            for (path, _owner), qual in repo.items():
                self.seen.add(path)
                return (path, qual)
        return None
