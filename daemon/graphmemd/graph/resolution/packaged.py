"""The shared rules of languages whose files declare a package (a namespace) and import types
by their full name: PHP, C#, Kotlin, Scala (one subclass each, in their own modules).

* A file's symbols have the full names ``<package>.<qualname>`` (``scopes.py``); the files
  of one package see each other's top-level names without an import.
* ``import a.b.C`` binds ``C`` to the file(s) defining ``a.b.C`` (partial classes: every
  one), ``import a.b.*`` sees the package ``a.b``; what no repository file defines is an
  external module.
* A name is looked up in the caller's enclosing classes (and their bases, when members are
  in scope), then its package (and, ``package_parents``, the packages enclosing it: C#),
  then the imports; a path written from the root (``a.b.C.f()``, PHP ``\\a\\b\\f()``) by its
  full name.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import ClassVar

from graphmemd.graph.model import Confidence, ImportRef
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, LookupRun, Sym, Target, discard
from graphmemd.graph.resolution.rules import LanguageRules
from graphmemd.graph.resolution.scopes import QualifiedNames, resolve_scoped, scope_chain

_PKG_KEY = "pkg:"


def _named_like(full: str, paths: Iterable[str]) -> str | None:
    """Of ``paths``, the first file named like the type ``full`` (``Order.cs`` for
    ``Shop.Order``, before ``Order.Totals.cs``)."""
    stem = full.rsplit(".", 1)[-1]
    return next((p for p in sorted(paths) if posixpath.splitext(posixpath.basename(p))[0] == stem), None)


class PackageRules(LanguageRules):
    """Packages, imports of full names, lexical scopes (subclasses set the class variables)."""

    scoped_names = True
    package_scoped = True
    #: Names in the packages enclosing the file's package are visible too (C#).
    package_parents: ClassVar[bool] = False
    #: The separator of an import's module as written (PHP ``\\``).
    import_separator: ClassVar[str] = "."
    #: A bare name may be a member of the enclosing class (else only a function: PHP).
    bare_members: ClassVar[bool] = True

    def __init__(self, resolver: object) -> None:
        super().__init__(resolver)  # type: ignore[arg-type]
        self.names = QualifiedNames(self.type_kinds, prefer=_named_like)
        #: path -> the packages it imports whole (C# ``using A.B;``): looked up like its own
        self.usings: dict[str, tuple[str, ...]] = {}
        self.pkg_files: dict[str, set[str]] = {}
        #: first segments of the packages (what a path written from the root starts with)
        self.roots: dict[str, int] = {}
        self.former: dict[str, str] = {}
        #: path -> {alias: package}: the packages its imports name (PHP ``use A\B;`` then ``B\C``)
        self.aliases: dict[str, dict[str, str]] = {}

    # ----------------------------------------------------------------- files

    def index(self, fi: FileIndex) -> None:
        """Index the file's full names, package and whole-package imports."""
        self.names.index(fi)
        whole = tuple(self.dotted(i.module) for i in fi.parsed.imports if "*" in i.names and not i.scope)
        if whole:
            self.usings[fi.path] = whole
        pkg = fi.package or ""
        self.pkg_files.setdefault(pkg, set()).add(fi.path)
        root = pkg.split(".", 1)[0]
        if root:
            self.roots[root] = self.roots.get(root, 0) + 1

    def unindex(self, fi: FileIndex) -> None:
        """Remove the file from the indexes, remembering its package."""
        self.names.unindex(fi)
        self.aliases.pop(fi.path, None)
        self.usings.pop(fi.path, None)
        pkg = fi.package or ""
        discard(self.pkg_files, pkg, fi.path)
        root = pkg.split(".", 1)[0]
        if root and root in self.roots:
            self.roots[root] -= 1
            if not self.roots[root]:
                del self.roots[root]
        self.former[fi.path] = pkg

    def struct_key(self, fi: FileIndex) -> tuple[object, ...]:
        """The package and top-level types: what other files' imports resolve through."""
        return (fi.parsed.language, fi.package, fi.top_types)

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """The file's package."""
        return {_PKG_KEY + (fi.package or "")}

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The full names the file started or stopped defining, its package now and before."""
        keys = self.names.changed_keys(path)
        if fi is not None:
            keys.add(_PKG_KEY + (fi.package or ""))
        if path in self.former:
            keys.add(_PKG_KEY + self.former[path])
        return keys

    # ----------------------------------------------------------------- imports

    def dotted(self, module: str) -> str:
        """An import's module as a dotted full name."""
        sep = self.import_separator
        return ".".join(p for p in module.split(sep) if p) if sep != "." else module.strip(".")

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """``a.b.C`` binds ``C`` to the files defining it; ``a.b.*`` sees the package."""
        module = self.dotted(imp.module)
        b.keys.add(_PKG_KEY + module)
        resolved = False
        for n in imp.names:
            if n == "*":
                files = sorted(self.pkg_files.get(module, ()))
                for p in files:
                    b.target(p)
                    b.star[p] = None
                resolved = resolved or bool(files)
                continue
            full = f"{module}.{n}" if module else n
            local = imp.alias if imp.alias and len(imp.names) == 1 else n
            files = self.files_of(full, b)
            if not files and full in self.pkg_files:  # a package: `B\C` then names `full.C`
                self.aliases.setdefault(fi.path, {})[local] = full
                files = sorted(self.pkg_files[full])
                for p in files:
                    b.target(p)
                b.mod_bind.setdefault(local, tuple(files))
                resolved = True
                continue
            if files:
                for p in files:
                    b.target(p)
                qual = self.names.defs[full][files[0]] if full in self.names.defs else n
                b.sym_bind.setdefault(local, (tuple(files), qual))
                resolved = True
            else:
                b.ext_names.add(local)
        if not resolved:
            b.externals[imp.module] = None

    def files_of(self, full: str, b: CtxBuilder) -> list[str]:
        """The files defining the full name ``full``: the one named like it first (``Order.cs``
        before ``Order.Totals.cs``), then by path."""
        found = self.names.defs.get(full)
        if not found:
            return []
        best = _named_like(full, found)
        return sorted(found, key=lambda p: (p != best, p))

    def type_parts(self, run: LookupRun, sym: Sym) -> tuple[Sym, ...]:
        """Every file's definition of the type (partial classes)."""
        return self.names.parts(run, sym)

    # ----------------------------------------------------------------- names

    def package_files(self, run: LookupRun, fi: FileIndex) -> tuple[str, ...]:
        """The other files of the package (their top-level names are visible)."""
        key = ("\0pkg\0" + (fi.package or ""), False)
        got = run.dir_memo.get(key)
        if got is None:
            got = run.dir_memo[key] = tuple(sorted(self.pkg_files.get(fi.package or "", ())))
        return tuple(p for p in got if p != fi.path)

    def _scopes(self, fi: FileIndex, caller: str) -> list[str]:
        """The enclosing classes of the caller (when members are in scope) and its packages,
        then the root (full names)."""
        return list(scope_chain(fi, caller if self.bare_members else "", self.package_parents))

    def scoped_name(
        self, run: LookupRun, fi: FileIndex, caller: str, segs: tuple[str, ...], exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A name in the caller's enclosing classes and packages, else in the packages the file
        imports whole (C# ``using``: an IMPORT); a type path from any scope."""
        found = resolve_scoped(run, fi, self.names, self._scopes(fi, caller), segs, exclude)
        if found is None and len(segs) == 1 and self.bare_members and self.detached_methods and caller:
            owner = run.owner_type(fi, caller)  # an extension function: the members of its receiver
            member = run.member_of(owner, segs[0], set()) if owner is not None else None
            if owner is not None and member is not None:
                return member, run.member_confidence(owner, member, Confidence.RECEIVER_TYPE)
        using = self.usings.get(fi.path)
        if found is None and using:
            got = resolve_scoped(run, fi, self.names, using, segs, exclude)
            if got is not None:
                return got[0], Confidence.IMPORT if got[1] is Confidence.SAME_PACKAGE else got[1]
        return found

    def path_call(
        self, run: LookupRun, fi: FileIndex, caller: str, text: str, segs: tuple[str, ...]
    ) -> tuple[bool, Target | None, Confidence]:
        """A qualified name (PHP ``Util\\Fmt::money``: from the caller's packages outwards;
        ``\\App\\f``: from the root) or a path from the root (``com.shop.Util.f``)."""
        if segs[0] in self.self_names or segs[0] in self.super_names:
            return False, None, Confidence.IMPORT
        alias = self.aliases.get(fi.path, {}).get(segs[0])
        if alias is not None and len(segs) > 1:
            scopes: list[str] = [alias.rpartition(".")[0]]
        elif text.startswith("::"):
            scopes = [""]
        elif "::" in text:
            scopes = self._scopes(fi, caller)
        elif segs[0] in self.roots and not segs[0][:1].isupper() and fi.var_type(caller, segs[0]) is None:
            scopes = [""]
        else:
            return False, None, Confidence.IMPORT
        got = resolve_scoped(run, fi, self.names, scopes, segs)
        if got is None:
            return True, None, Confidence.IMPORT
        return True, got[0], got[1]

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """Every name may be a member of the caller's class or a name of its package."""
        return True
