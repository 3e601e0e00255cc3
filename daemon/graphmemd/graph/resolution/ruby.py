"""Ruby: ``require_relative`` from the file's directory and ``require`` through the load
paths (``lib`` and the gemspecs' ``require_paths``, the root); constants looked up
lexically (the enclosing modules and classes of the caller, then the top level) in every
file that defines them (classes and modules are open: a reopened class is one type, its
methods in any file); where several files define a constant, the one Zeitwerk would load
(``Shop::LineItem`` -> ``<autoload root>/shop/line_item.rb``; Rails' ``app/*`` directories,
``lib``). ``Foo.new`` calls the class; a bare name is a method of the enclosing class or a
module it includes (in a module, what the classes including it provide); ``super`` is the
method of the same name in the bases."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from graphmemd.graph.model import Confidence, ImportRef, Language, SymbolKind
from graphmemd.graph.resolution.index import (
    CLASSLIKE,
    CtxBuilder,
    FileIndex,
    LookupRun,
    Sym,
    Target,
    norm,
)
from graphmemd.graph.resolution.rules import LanguageRules, words
from graphmemd.graph.resolution.scopes import QualifiedNames, resolve_scoped, scope_chain, type_named

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def underscore(constant: str) -> str:
    """``Shop.LineItem`` -> ``shop/line_item`` (Zeitwerk's file name of a constant path)."""
    return "/".join(_CAMEL.sub("_", part).lower() for part in constant.split("."))


class RubyRules(LanguageRules):
    """Ruby: load paths, open classes, lexical constant lookup, Zeitwerk file names."""

    family = "ruby"
    languages = (Language.RUBY,)
    self_names = frozenset({"self"})
    super_names = frozenset({"super"})
    members_in_scope = True
    detached_methods = True
    scoped_names = True
    type_kinds = CLASSLIKE | {SymbolKind.MODULE}
    #: (receivers are rarely typed: a repository-wide guess would be most of the edges)
    repo_wide_guess = False
    common_methods = words(
        "each map select reject collect inject reduce each_with_object each_with_index to_s to_a to_h to_i "
        "to_f to_sym inspect puts print p size length count empty? include? key? first last push pop shift "
        "unshift merge dup freeze call new send respond_to? is_a? nil? join split strip gsub sub upcase "
        "downcase raise format sort sort_by min max sum any? all? none? find detect flat_map uniq compact "
        "keys values fetch delete update close read write open run start stop"
    )

    def __init__(self, resolver: object) -> None:
        super().__init__(resolver)  # type: ignore[arg-type]
        self.names = QualifiedNames(self.type_kinds, prefer=self._zeitwerk)

    def _zeitwerk(self, fq: str, paths: Iterable[str]) -> str | None:
        """Of ``paths``, the file Zeitwerk would load constant ``fq`` from (None: none)."""
        stem = underscore(fq)
        candidates = {norm(posixpath.join(root, stem + ".rb")) for root in self.r.facts.ruby_autoload_roots}
        return next((p for p in sorted(paths) if p in candidates), None)

    # ----------------------------------------------------------------- files

    def index(self, fi: FileIndex) -> None:
        """Index the file's constants and methods by full name."""
        self.names.index(fi)

    def unindex(self, fi: FileIndex) -> None:
        """Remove the file from the name index."""
        self.names.unindex(fi)

    def type_parts(self, run: LookupRun, sym: Sym) -> tuple[Sym, ...]:
        """Every file's definition of the class or module (reopened ones)."""
        return self.names.parts(run, sym)

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The name keys of the constants and methods the file started or stopped defining."""
        return self.names.changed_keys(path)

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """``require_relative`` from the file's directory, ``require`` through the load paths."""
        spec = imp.module.strip()
        if not spec:
            return
        name = spec if spec.endswith(".rb") else spec + ".rb"
        if "relative" in imp.names:
            bases: tuple[str, ...] = (fi.dir,)
        else:
            bases = self.r.facts.ruby_load_paths or ("lib", "")
        found = b.probe(c for c in (norm(posixpath.join(d, name)) for d in bases) if not c.startswith("../"))
        if found is None:
            b.externals[spec] = None
        else:
            b.target(found)

    # ----------------------------------------------------------------- names

    def scoped_name(
        self, run: LookupRun, fi: FileIndex, caller: str, segs: tuple[str, ...], exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A constant or method from the caller's enclosing scopes outwards; ``new`` is the
        enclosing class; ``super`` the method of the same name in the enclosing class's bases."""
        if segs == ("super",):
            return self._super(run, fi, caller)
        if segs == ("new",):
            owner = caller.rpartition(".")[0]
            own = type_named(run, fi, self.names, owner) if owner else None
            return (own, Confidence.SAME_MODULE if own[0] == fi.path else Confidence.SAME_PACKAGE) if own else None
        found = resolve_scoped(run, fi, self.names, scope_chain(fi, caller, False), segs, exclude)
        if found is None and len(segs) == 1 and segs[0][:1].islower():
            # a module calling what the classes including it provide (`subtotal` in Discountable)
            owner = caller.rpartition(".")[0]
            own = type_named(run, fi, self.names, owner) if owner else None
            provided = run.subclass_member(own, segs[0]) if own is not None else None
            if provided is not None:
                return provided, Confidence.INHERITANCE
        return found

    def _super(self, run: LookupRun, fi: FileIndex, caller: str) -> tuple[Sym, Confidence] | None:
        owner, _, method = caller.rpartition(".")
        own = type_named(run, fi, self.names, owner) if owner else None
        if own is None:
            return None
        for base in run.bases(own):
            found = run.member_of(base, method, set())
            if found is not None:
                return found, Confidence.INHERITANCE
        return None

    def path_call(
        self, run: LookupRun, fi: FileIndex, caller: str, text: str, segs: tuple[str, ...]
    ) -> tuple[bool, Target | None, Confidence]:
        """``Foo::Bar.new`` calls the class; ``Foo::Bar.m`` / ``Foo::Bar::m`` a member of it,
        found from the caller's enclosing scopes outwards (never guessed)."""
        if not segs[0][:1].isupper():
            return False, None, Confidence.IMPORT
        if segs[-1] == "new" and len(segs) > 1:
            got = resolve_scoped(run, fi, self.names, scope_chain(fi, caller, False), segs[:-1])
            if got is not None and run.files[got[0][0]].syms[got[0][1]].kind in self.type_kinds:
                return True, got[0], got[1]
            return True, None, Confidence.IMPORT
        if "::" not in text:
            return False, None, Confidence.IMPORT
        got = resolve_scoped(run, fi, self.names, scope_chain(fi, caller, False), segs)
        return True, (got[0] if got else None), (got[1] if got else Confidence.IMPORT)

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """Every name may be a member of the caller's class or module."""
        return True
