"""``RepoResolver``: a repository's parsed files, their indexes and incremental resolution."""

from __future__ import annotations

from collections.abc import Iterable

from graphmem.types import LanguageResolution

from graphmemd.graph.model import Confidence, Language, ParsedFile, ResolvedEdges
from graphmemd.graph.resolution.facts import RepoFacts
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, ImportCtx, discard, overlay
from graphmemd.graph.resolution.lookup import SUBCLASS_KEY
from graphmemd.graph.resolution.names import ALL, SEP, changed_names, name_facts, name_key, path_of, reads_symbol, top
from graphmemd.graph.resolution.passes import Acc, FileStats, Pass
from graphmemd.graph.resolution.registry import rules_for
from graphmemd.graph.resolution.rules import LanguageRules


class RepoResolver:
    """Holds a repository's parsed files and resolves them into edges (see the package doc).

    Not thread-safe except :meth:`stats`, which returns an immutable snapshot."""

    def __init__(self, repo_id: str, facts: RepoFacts) -> None:
        self.repo_id = repo_id
        self.files: dict[str, FileIndex] = {}
        self.dirs: dict[str, set[str]] = {}
        #: method name -> {(path, owner class key): qualname}
        self.methods: dict[str, dict[tuple[str, str], str]] = {}
        #: last segment of a base as written -> {(path, child class qualname)}
        self.subclasses: dict[str, set[tuple[str, str]]] = {}
        self.gen = 0
        self.facts = facts
        self.go_modules: list[tuple[str, str]] = []
        self._rules: dict[type[LanguageRules], LanguageRules] = {}
        self._ctxs: dict[str, ImportCtx] = {}
        self._watchers: dict[str, set[str]] = {}
        #: path -> what its last resolution read of other files (its record: paths, name keys
        #: ``names.name_key``, subclass keys), a frozenset of interned strings, shared with
        #: the checkouts derived from this one (replaced, never changed)
        self._consulted: dict[str, frozenset[str]] = {}
        #: path -> the files its record reads anything of (whole or by name) and the keys it
        #: read that name no file (``_index_key``); shared like the records
        self._read_paths: dict[str, frozenset[str]] = {}
        #: the index over ``_read_paths``: a file or key -> the files whose record reads it
        #: (``dependents_of`` tests only their records against the names a change touched)
        self._read_by: dict[str, set[str]] = {}
        #: path -> the names of it that changed since its dependents were last asked for
        #: (``dependents_of``); ``{ALL}``: every name (it appeared, vanished, is not Python)
        self._changed: dict[str, frozenset[str]] = {}
        #: path -> the (previous, new) indexes ``set_file(..., compare_later=True)`` left uncompared
        self._uncompared: dict[str, list[tuple[FileIndex | None, FileIndex]]] = {}
        #: whether ``dependents_of`` narrows a changed file's dependents to those that read a
        #: name of it that changed (else: every file that consulted it). On: the graph
        #: (``CodeGraph.put_file``) and the store (``StoreEngine.replace_files``) keep the
        #: edges other files have into a changed file's symbols that keep their id
        self.narrow = True
        self._file_stats: dict[str, tuple[str, FileStats]] = {}
        self._stats: tuple[LanguageResolution, ...] = ()
        self.set_facts(facts)

    # ----------------------------------------------------------------- public API

    def set_facts(self, facts: RepoFacts) -> None:
        """Replace the repository facts; every import context is rebuilt lazily (callers
        re-run ``all_edges`` to apply them)."""
        self.facts = facts
        self.go_modules = sorted(
            ((mp.rstrip("/"), d) for d, mp in facts.go_modules.items()), key=lambda x: (-len(x[0]), x)
        )
        self.gen += 1

    def update_facts(self, facts: RepoFacts) -> bool:
        """``set_facts`` when ``facts`` differ from the current ones; True then, and the
        caller must re-resolve every file (``all_edges``) for the change to take effect."""
        if facts == self.facts:
            return False
        self.set_facts(facts)
        return True

    def rules(self, language: Language) -> LanguageRules:
        """The rules instance of ``language``'s family, created on first use."""
        cls = rules_for(language)
        got = self._rules.get(cls)
        if got is None:
            got = self._rules[cls] = cls(self)
        return got

    def set_file(self, parsed: ParsedFile, *, frozen: bool = False, compare_later: bool = False) -> None:
        """Add or replace a file's parse. ``frozen``: keep its planned calls in their compact
        form right away (``FileIndex.freeze``; every resolution freezes the files it resolved),
        for many files set before one resolution of them all (a warm restart's hand-over, the
        files a pass or batch parses). ``compare_later``: compare it with its previous version
        name by name (``dependents_of`` narrows with it) only when dependents are next asked for."""
        path = parsed.path
        old = self.files.get(path)
        fi = FileIndex(self.repo_id, parsed, self.rules(parsed.language))
        if old is not None:
            self._unindex(old)
        self.files[path] = fi
        self._index(fi)
        self._drop_ctx(path)
        self._uncompared.setdefault(path, []).append((old, fi))
        if not compare_later:
            self._compare()
        if frozen:  # (after the comparison, which reads its local types: not unpacked again)
            fi.freeze()
        if old is None:
            self._appeared_or_vanished(fi)
        elif old.struct_key != fi.struct_key:
            self._invalidate(self._structural_keys(old) | self._structural_keys(fi))

    def derive(self, source: RepoResolver, paths: Iterable[str], later: Iterable[str] = ()) -> set[str]:
        """Become, while empty, the resolver of a checkout holding ``paths`` of ``source``'s
        checkout with the same contents (a worktree: ``indexing/derive.py``), without resolving
        them: take ``source``'s state — its facts, each file's index with the ids renamed
        (``FileIndex.renamed``), the import contexts, what each file's resolution consulted,
        the resolution statistics — then remove the files of ``source`` in neither ``paths``
        nor ``later`` as a change would (``remove_file``). ``later``: files the caller sets
        again right after (the checkout holds another content of them): ``source``'s version
        of them stays until then, so that ``set_file`` compares the two name by name and
        ``dependents_of`` narrows to the files that read a name that changed (the graph's copy
        holds the edges into them: ``codegraph.derive_files``); one the caller does not set
        again it must remove. The result is the state ``source`` would have after those
        removals, renamed: what follows is the ordinary incremental path. Returns the held
        files (not of ``later``) whose resolution may change with the removals
        (``dependents_of``): the caller resolves them."""
        if self.files:
            raise ValueError(f"{self.repo_id}: a resolver that holds files cannot be derived")
        self.set_facts(source.facts)
        self.gen = source.gen  # (the import contexts taken below were built in it)
        for path, fi in source.files.items():
            mine = self.files[path] = fi.renamed(self.repo_id, self.rules(fi.parsed.language))
            self._index(mine)
        for path, ctx in source._ctxs.items():
            self._ctxs[path] = ctx
            for k in ctx.keys:
                self._watchers.setdefault(k, set()).add(path)
        self._consulted = dict(source._consulted)  # (the records shared: replaced, never changed)
        self._read_paths = dict(source._read_paths)
        self._read_by = {k: set(readers) for k, readers in source._read_by.items()}
        keep, then = set(paths), set(later)
        gone = sorted(p for p in source.files if p not in keep and p not in then)
        # (their statistics left out here: ``remove_file`` would total them again for each)
        self._file_stats = {p: st for p, st in source._file_stats.items() if p in keep or p in then}
        for path in gone:
            self.remove_file(path)
        self._snapshot_stats()
        return self.dependents_of(gone) - then if gone else set()

    def held(self, parsed: ParsedFile) -> ParsedFile:
        """The copy of ``parsed`` the resolver keeps (its calls and typed names planned and
        dropped), once ``set_file`` took it; ``parsed`` itself otherwise."""
        fi = self.files.get(parsed.path)
        return fi.parsed if fi is not None else parsed

    def remove_file(self, path: str) -> None:
        """Forget a file: unindex it and invalidate the contexts that depended on it."""
        old = self.files.pop(path, None)
        if old is None:
            return
        self._unindex(old)
        self._drop_ctx(path)
        self._set_consulted(path, ())
        self._changed[path] = _EVERY  # (gone: every name of it changed)
        self._appeared_or_vanished(old)
        if self._file_stats.pop(path, None) is not None:
            self._snapshot_stats()

    def paths(self) -> set[str]:
        """The paths of every file the resolver holds."""
        return set(self.files)

    def edges_for(self, paths: Iterable[str]) -> ResolvedEdges:
        """Outgoing edges of ``paths`` (unknown paths are ignored)."""
        acc = Acc()
        run = Pass(self)
        for path in sorted(set(paths)):
            fi = self.files.get(path)
            if fi is not None:
                fi.thaw()
                self._file_stats[path] = (fi.family, run.file_edges(fi, acc))
                self._set_consulted(path, run.seen)
                fi.freeze()
        self._snapshot_stats()
        return acc.build()

    def all_edges(self) -> ResolvedEdges:
        """The resolved edges of every file."""
        self._changed.clear()  # (every file resolved: no dependent is left to find)
        self._uncompared.clear()
        return self.edges_for(self.files)

    def call_sites(self, caller: str, callee: str) -> tuple[tuple[str, bool], ...] | None:
        """How ``caller`` (a symbol or file id) calls the symbol ``callee`` at each call site a
        resolution now links to it: the site's ``CallShape.text`` and whether it names the
        callee through a module or a class (``mod.f(...)``, ``Base.m(self, ...)``: a method's
        instance is then its first positional argument) rather than through an instance.
        None when unknown: the caller's file is not held, or a site's shape was not recorded
        (a language without call shapes, a call whose arguments the query does not read)."""
        if not caller.startswith(self.repo_id + ":"):
            return None
        fi = self.files.get(caller[len(self.repo_id) + 1 :].partition("::")[0])
        if fi is None:
            return None
        shapes = fi.call_shapes()
        if not shapes:
            return None
        run = Pass(self)
        ctx = self.ctx_of(fi)
        out: list[tuple[str, bool]] = []
        fi.thaw()
        try:
            for ci, text, args, callers in fi.planned:
                if caller not in callers:
                    continue
                target, conf = run.resolve_call(fi, ctx.local.get(ci[4], ctx) if ci[4] else ctx, ci, text, args)
                if target != callee:
                    continue
                named = conf in _THROUGH_NAMES
                for shape in shapes.get((caller, text), ("",)):
                    if not shape:
                        return None
                    out.append((shape, named))
        finally:
            fi.freeze()
        return tuple(out)

    def reads(self, reader: str, path: str, qualname: str) -> bool | None:
        """Whether the file ``reader``'s resolution read, of ``path``, what ``qualname`` is
        under (``names.reads_symbol``); None when not known (no record of ``reader``)."""
        keys = self._consulted.get(reader) if self.narrow else None
        return reads_symbol(keys, path, qualname) if keys else None

    def exports(self) -> Exports:
        """What the files export by name, as the resolution sees them (``Exports``)."""
        return Exports(self)

    def dependents_of(self, paths: Iterable[str]) -> set[str]:
        """Files (other than ``paths``) whose resolution may change when ``paths`` change,
        appear or disappear. Call after ``set_file``/``remove_file`` of ``paths``.

        A Python file that was there before and after (``set_file`` compared its facts per
        name, ``names.changed_names``) narrows to the files that read it whole or read one
        of its changed names; any other file (appeared, vanished, another language, or its
        module-wide facts changed) to every file that consulted it in any way. Each path's
        changed names are forgotten once asked for."""
        self._compare()
        for each in list(self.files.values()):
            self.ctx_of(each)
        ps = set(paths)
        changed = {p: self._changed.pop(p, _EVERY) for p in ps}
        narrowed = {p for p, names in changed.items() if self.narrow and ALL not in names}
        whole = ps - narrowed
        keys: set[str] = set(whole)
        for p in whole:
            fi = self.files.get(p)
            for rules in self._rules.values():
                keys |= rules.changed_keys(p, fi) if (fi is None or fi.rules is rules) else set()
        out: set[str] = set()
        for k in keys:  # import contexts that probed the key
            out |= self._watchers.get(k, set())
        # records that read anything of a file of ``whole`` or one of the keys (a subclass
        # of a class a changed file states bases for, a key its rules name)
        for p in whole:
            fi = self.files.get(p)
            keys.update(SUBCLASS_KEY + name for name in (_base_names(fi) if fi is not None else ()))
        for k in keys:
            out |= self._read_by.get(k, set())
        # of those that read a narrowed file: the records that read it whole or read one
        # of its changed names
        for p in narrowed:
            names = {p}
            for n in changed[p]:
                if n.startswith(SUBCLASS_KEY):
                    out |= self._read_by.get(n, set())
                else:
                    names.add(name_key(p, n))
            consulted = self._consulted
            out.update(r for r in self._read_by.get(p, ()) if not names.isdisjoint(consulted[r]))
        return {p for p in out if p in self.files} - ps

    def stats(self) -> tuple[LanguageResolution, ...]:
        """Call-site resolution per language family as of the last ``edges_for``: call
        sites, how many resolved by each confidence, how many stayed unresolved. Safe to
        call from any thread (an immutable snapshot)."""
        return self._stats

    # ----------------------------------------------------------------- indexes

    def _snapshot_stats(self) -> None:
        totals: dict[str, tuple[int, int, dict[Confidence, int]]] = {}
        for family, (sites, unresolved, by) in self._file_stats.values():
            t = totals.get(family)
            if t is None:
                t = totals[family] = (0, 0, {})
            merged = t[2]
            for conf, n in by.items():
                merged[conf] = merged.get(conf, 0) + n
            totals[family] = (t[0] + sites, t[1] + unresolved, merged)
        self._stats = tuple(
            LanguageResolution(
                language=family,
                call_sites=sites,
                unresolved=unresolved,
                resolved_by=tuple((c, by[c]) for c in Confidence if by.get(c)),
            )
            for family, (sites, unresolved, by) in sorted(totals.items())
        )

    def _index(self, fi: FileIndex) -> None:
        self.dirs.setdefault(fi.dir, set()).add(fi.path)
        fi.rules.index(fi)
        for ref in fi.parsed.inherits:
            self.subclasses.setdefault(_last(ref.parent), set()).add((fi.path, ref.child))
        for name, owner, q in fi.methods():
            self.methods.setdefault(name, {}).setdefault((fi.path, owner), q)

    def _unindex(self, fi: FileIndex) -> None:
        discard(self.dirs, fi.dir, fi.path)
        fi.rules.unindex(fi)
        for ref in fi.parsed.inherits:
            subs = self.subclasses.get(_last(ref.parent))
            if subs is not None:
                subs.discard((fi.path, ref.child))
                if not subs:
                    del self.subclasses[_last(ref.parent)]
        for name, owner, _q in fi.methods():
            d = self.methods.get(name)
            if d is not None:
                d.pop((fi.path, owner), None)
                if not d:
                    del self.methods[name]

    @staticmethod
    def _structural_keys(fi: FileIndex) -> set[str]:
        """Watch keys of the import contexts that may change when ``fi`` appears, vanishes
        or changes its package / top-level types."""
        return {fi.path} | fi.rules.watch_keys(fi)

    def _appeared_or_vanished(self, fi: FileIndex) -> None:
        if fi.rules.appeared_or_vanished(fi):
            self.gen += 1  # e.g. the Rust crate roots changed: every path may map differently
        else:
            self._invalidate(self._structural_keys(fi))

    def _invalidate(self, keys: Iterable[str]) -> None:
        """Drop the import contexts that probed any of ``keys`` (they are rebuilt lazily)."""
        for k in keys:
            for p in list(self._watchers.get(k, ())):
                self._drop_ctx(p)

    def _drop_ctx(self, path: str) -> None:
        old = self._ctxs.pop(path, None)
        if old is not None:
            for k in old.keys:
                discard(self._watchers, k, path)

    def _compare(self) -> None:
        """Note the changes ``set_file(..., compare_later=True)`` left uncompared, in order."""
        pending, self._uncompared = self._uncompared, {}
        for path, old, new in ((path, old, new) for path, pairs in pending.items() for old, new in pairs):
            self._note_change(path, old, new)

    def _note_change(self, path: str, old: FileIndex | None, new: FileIndex) -> None:
        """Add the names of ``path`` that changed from ``old`` to ``new`` (``_names_changed``)
        to those changed since its dependents were last asked for."""
        names, before = _names_changed(old, new), self._changed.get(path)
        self._changed[path] = names if before is None or names is _EVERY else before | names

    def _set_consulted(self, path: str, seen: Iterable[str]) -> None:
        """Keep ``seen`` (less ``path``'s own names) as ``path``'s record."""
        own = path + SEP
        keys = frozenset(k for k in seen if k != path and not k.startswith(own))
        if self._consulted.get(path, _NONE) == keys:
            return
        old = self._read_paths.get(path, _NONE)
        new = frozenset(map(_index_key, keys))
        for k in old - new:
            discard(self._read_by, k, path)
        for k in new - old:
            self._read_by.setdefault(k, set()).add(path)
        if keys:
            self._consulted[path] = keys
            self._read_paths[path] = new if new != old else old
        else:
            self._consulted.pop(path, None)
            self._read_paths.pop(path, None)

    def ctx_of(self, fi: FileIndex) -> ImportCtx:
        """The file's import context (and one per function with local imports)."""
        ctx = self._ctxs.get(fi.path)
        if ctx is not None and ctx.gen == self.gen:
            return ctx
        rules = fi.rules
        b = CtxBuilder(self.files)
        scoped: dict[str, CtxBuilder] = {}
        for imp in fi.parsed.imports:
            if imp.scope:
                local = scoped.get(imp.scope)
                if local is None:
                    local = scoped[imp.scope] = CtxBuilder(self.files)
                rules.import_into(fi, imp, local)
            else:
                rules.import_into(fi, imp, b)
        b.keys |= rules.watch_keys(fi)
        for local in scoped.values():
            b.keys |= local.keys
            b.targets.update(local.targets)
            b.externals.update(local.externals)
        new = b.build(self.gen, fi.path)
        for scope, local in scoped.items():
            new.local[scope] = overlay(new, local.build(self.gen, fi.path))
        self._drop_ctx(fi.path)
        self._ctxs[fi.path] = new
        for k in new.keys:
            self._watchers.setdefault(k, set()).add(fi.path)
        return new


class Exports:
    """What a file exports under a dotted name, as one resolution run sees it: its own
    definitions and their members, names bound by value (``attributes = attrs``), imports and
    re-exports, ``from m import *`` (only ``__all__`` when declared). For questions asked by
    name rather than by call (a documentation reference); memoised, so ask many in a row
    and drop it when the resolver changes. Not thread-safe, like the resolver."""

    def __init__(self, r: RepoResolver) -> None:
        self._resolver = r
        self._files = r.files
        self._run = Pass(r)
        self._foreign: frozenset[str] | None = None

    def holds(self, path: str) -> bool:
        """Whether the resolver knows ``path`` (a warm restart hands its files over later)."""
        return path in self._files

    def exported(self, path: str, dotted: str) -> tuple[str, str] | None:
        """The symbol ``(path, qualname)`` the file ``path`` exports as ``dotted``
        (``attributes``, ``Attribute.evolve``); None for nothing, or for a module."""
        if path not in self._files or not dotted:
            return None
        t = self._run.resolve_in_files((path,), dotted.split("."))
        return t if isinstance(t, tuple) else None

    def consulted(self, path: str, dotted: str) -> frozenset[str]:
        """The files a lookup of ``dotted`` in ``path`` looked into (the file, the modules it
        re-exports the name from, its ``import *`` targets): where the name would be defined."""
        if path not in self._files or not dotted:
            return frozenset()
        self._run.seen = set()
        self._run.resolve_in_files((path,), dotted.split("."))
        return frozenset(path_of(k) for k in self._run.seen)

    def foreign(self, name: str) -> bool:
        """Whether a file outside the tests binds ``name`` at its top level by importing it
        from outside the repository (``from markupsafe import Markup``): a document's bare
        ``Markup`` still names that once the repository's own ``Markup`` is gone."""
        if self._foreign is None:
            r = self._resolver
            self._foreign = frozenset(
                n for fi in list(self._files.values()) if not fi.is_test for n in r.ctx_of(fi).ext_names
            )
        return name in self._foreign


#: the family whose reads of other files are recorded by name (``names.py``)
_NARROWED = "python"
#: every name of a file changed
_EVERY = frozenset({ALL})


def _names_changed(old: FileIndex | None, new: FileIndex) -> frozenset[str]:
    """The names of a file that changed from ``old`` to ``new``: every name (``_EVERY``) when
    it appeared or is not Python (only Python files' reads are recorded by name throughout)."""
    if old is None or new.family != _NARROWED or old.family != _NARROWED:
        return _EVERY
    names = changed_names(name_facts(old), name_facts(new))
    if ALL not in names:  # a class changed: the walks of its bases' subclasses read it
        refs = (*old.parsed.inherits, *new.parsed.inherits)
        names |= {SUBCLASS_KEY + _last(r.parent) for r in refs if top(r.child) in names}
    return frozenset(names)


_NONE: frozenset[str] = frozenset()


def _index_key(key: str) -> str:
    """What ``_read_by`` indexes a recorded key under: the file of a name key, else itself
    (a path, a subclass key, a key of a language's rules)."""
    return path_of(key) if SEP in key and not key.startswith(SEP) else key


#: how a call found its callee when it names it through a module or class, not an instance
_THROUGH_NAMES = frozenset({Confidence.SAME_MODULE, Confidence.IMPORT, Confidence.SAME_PACKAGE})


def _last(base: str) -> str:
    """``pkg.mod.Base`` / ``Base[T]`` -> ``Base`` (the key of ``RepoResolver.subclasses``)."""
    return base.split("[", 1)[0].replace("::", ".").rsplit(".", 1)[-1]


def _base_names(fi: FileIndex) -> set[str]:
    return {_last(ref.parent) for ref in fi.parsed.inherits}
