"""Swift: modules from ``Package.swift`` (each target's directory, ``Sources/<name>`` unless
its ``path:`` says otherwise; without a manifest the repository is one module): the files of
a module see each other's names, ``import M`` sees module ``M``'s; types and functions are
found from the caller's enclosing types outwards in every file that defines them;
extensions add methods and conformances to a type wherever it is declared; ``T(...)`` calls
the type (its initializer), ``self.``/``super.``, implicit ``self``; overloads are told
apart by argument count (not by label)."""

from __future__ import annotations

from graphmemd.graph.model import Confidence, ImportRef, Language
from graphmemd.graph.resolution.index import CLASSLIKE, CtxBuilder, FileIndex, LookupRun, Sym, discard
from graphmemd.graph.resolution.rules import LanguageRules, words
from graphmemd.graph.resolution.scopes import QualifiedNames, resolve_scoped, scope_chain

_MODULE_KEY = "swiftmodule:"


class SwiftRules(LanguageRules):
    """Swift: package modules, extensions, types found across files."""

    family = "swift"
    languages = (Language.SWIFT,)
    self_names = frozenset({"self", "Self"})
    super_names = frozenset({"super"})
    members_in_scope = True
    detached_methods = True
    overloads_by_arity = True
    scoped_names = True
    package_scoped = True
    common_methods = words(
        "append insert remove removeAll count map filter reduce forEach first last contains sorted joined "
        "description isEmpty min max compactMap flatMap index reversed split lowercased uppercased "
        "hasPrefix hasSuffix print run start stop"
    )

    def __init__(self, resolver: object) -> None:
        super().__init__(resolver)  # type: ignore[arg-type]
        self.names = QualifiedNames(CLASSLIKE)
        self.module_files: dict[str, set[str]] = {}

    def module_of(self, path: str) -> str:
        """The module (a ``Package.swift`` target) ``path`` belongs to ("" without one)."""
        best, depth = "", -1
        for name, d in self.r.facts.swift_modules:
            if (not d or path.startswith(d + "/")) and len(d) > depth:
                best, depth = name, len(d)
        return best

    def index(self, fi: FileIndex) -> None:
        """Index the file's names and module."""
        self.names.index(fi)
        self.module_files.setdefault(self.module_of(fi.path), set()).add(fi.path)

    def unindex(self, fi: FileIndex) -> None:
        """Remove the file from the indexes."""
        self.names.unindex(fi)
        discard(self.module_files, self.module_of(fi.path), fi.path)

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """The file's module."""
        return {_MODULE_KEY + self.module_of(fi.path)}

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The names the file started or stopped defining, and its module."""
        return self.names.changed_keys(path) | {_MODULE_KEY + self.module_of(path)}

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """``import M``: the files of the target ``M`` (else an external module)."""
        b.keys.add(_MODULE_KEY + imp.module)
        files = sorted(self.module_files.get(imp.module, ())) if imp.module else []
        if not files or not any(name == imp.module for name, _d in self.r.facts.swift_modules):
            b.externals[imp.module] = None
            return
        for p in files:
            b.target(p)
            b.star[p] = None

    def package_files(self, run: LookupRun, fi: FileIndex) -> tuple[str, ...]:
        """The other files of the file's module."""
        module = self.module_of(fi.path)
        key = ("\0swift\0" + module, False)
        got = run.dir_memo.get(key)
        if got is None:
            got = run.dir_memo[key] = tuple(sorted(self.module_files.get(module, ())))
        return tuple(p for p in got if p != fi.path)

    def scoped_name(
        self, run: LookupRun, fi: FileIndex, caller: str, segs: tuple[str, ...], exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A name from the caller's enclosing types outwards, in any file defining it; in an
        extension, the members of the extended type."""
        found = resolve_scoped(run, fi, self.names, scope_chain(fi, caller, False), segs, exclude)
        if found is None and len(segs) == 1 and caller and "." in caller:
            owner = run.owner_type(fi, caller)
            member = run.member_of(owner, segs[0], set()) if owner is not None else None
            if owner is not None and member is not None:
                return member, run.member_confidence(owner, member, Confidence.RECEIVER_TYPE)
        return found

    def type_parts(self, run: LookupRun, sym: Sym) -> tuple[Sym, ...]:
        """Every file's definition of the type."""
        return self.names.parts(run, sym)

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """Every name may be a member of the caller's type."""
        return True
