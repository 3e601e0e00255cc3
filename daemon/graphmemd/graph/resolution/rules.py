"""The interface every language family implements (one subclass per module, registered in
``registry.py``). One instance exists per resolver and family, so a family may keep its own
indexes (Java packages, Rust crate roots) on it.

Shared code (``resolver.py``, ``passes.py``) never tests a family's name: it asks the rules.
"""

from __future__ import annotations

from typing import ClassVar

from graphmemd.graph.model import Confidence, ImportRef, Language, SymbolKind
from graphmemd.graph.resolution.index import (
    CLASSLIKE,
    CtxBuilder,
    FileIndex,
    LookupRun,
    ResolverState,
    Sym,
    Target,
)


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text``, as a set."""
    return frozenset(text.split())


class LanguageRules:
    """Default behaviour: file-scoped names, no packages, no receivers of its own."""

    #: Short family name used in statistics and memo keys (``python``, ``go`` ...).
    family: ClassVar[str] = ""
    languages: ClassVar[tuple[Language, ...]] = ()
    #: Names denoting the current instance / type (``self``, ``this``, ``Self``).
    self_names: ClassVar[frozenset[str]] = frozenset()
    #: Names denoting the base classes (``super``).
    super_names: ClassVar[frozenset[str]] = frozenset()
    #: Method names too common to link by a name-only guess.
    common_methods: ClassVar[frozenset[str]] = frozenset()
    #: A file's imports are visible to its importers (re-exports: ``__init__.py``, barrels).
    reexports: ClassVar[bool] = False
    #: Bare names also resolve to members of the enclosing classes (Java's implicit ``this``).
    members_in_scope: ClassVar[bool] = False
    #: Methods may be declared outside the type's body (Go receivers, Rust ``impl``).
    detached_methods: ClassVar[bool] = False
    #: Overloaded methods are told apart by their number of arguments (Java).
    overloads_by_arity: ClassVar[bool] = False
    #: Names in the file's package (other files) are visible without import (Go, Java).
    package_scoped: ClassVar[bool] = False
    #: ``self.m()`` in a class that neither defines nor inherits ``m`` (a mixin, an abstract
    #: base) calls what its subclasses provide (Python's dynamic dispatch).
    subclass_dispatch: ClassVar[bool] = False
    #: Bare names are first looked up in the scopes enclosing the caller, across files
    #: (``scoped_name``: C++ namespaces and classes, Ruby modules, C# namespaces ...).
    scoped_names: ClassVar[bool] = False
    #: A name-only guess may take the one method of that name anywhere in the repository
    #: (else only in the file and the files it imports).
    repo_wide_guess: ClassVar[bool] = True
    #: The kinds of symbol that are types (have members and bases): Ruby modules are too.
    type_kinds: ClassVar[frozenset[SymbolKind]] = CLASSLIKE

    def __init__(self, resolver: ResolverState) -> None:
        self.r = resolver

    # ----------------------------------------------------------------- files

    def is_test(self, path: str) -> bool:
        """Whether ``path`` is a test file (none by default)."""
        return False

    def struct_key(self, fi: FileIndex) -> tuple[object, ...]:
        """What, when it changes, changes how *other* files resolve their imports."""
        return (fi.parsed.language,)

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """Extra keys the file's import context depends on besides probed paths."""
        return set()

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """Keys to look up in ``dependents_of`` when ``path`` changed (``fi`` None: removed)."""
        return set()

    def index(self, fi: FileIndex) -> None:
        """Add ``fi`` to the family's own indexes."""

    def unindex(self, fi: FileIndex) -> None:
        """Remove ``fi`` from the family's own indexes."""

    def appeared_or_vanished(self, fi: FileIndex) -> bool:
        """True when the file's arrival or removal invalidates every context of the family."""
        return False

    # ----------------------------------------------------------------- resolution

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve one import statement of ``fi`` into the builder."""

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """Whether resolving a callee may depend on the calling scope (else it is memoised
        per file by its text alone)."""
        if self.members_in_scope:
            return True
        if not segs:
            return False
        head = segs[0]
        return head in self.self_names or head in self.super_names or head in fi.nested_names or head in fi.typed_names

    def package_files(self, run: LookupRun, fi: FileIndex) -> tuple[str, ...]:
        """Other files whose top-level names ``fi`` sees without an import."""
        return ()

    def path_call(
        self, run: LookupRun, fi: FileIndex, caller: str, text: str, segs: tuple[str, ...]
    ) -> tuple[bool, Target | None, Confidence]:
        """A language-specific path form (Rust ``crate::a::f``, C++ ``ns::f``) called from
        ``caller``: (handled, target, confidence)."""
        return False, None, Confidence.IMPORT

    def scoped_name(
        self, run: LookupRun, fi: FileIndex, caller: str, segs: tuple[str, ...], exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A bare name, or a type's path (``app.Store``), found in a scope enclosing
        ``caller`` (only asked with ``scoped_names``)."""
        return None

    def type_parts(self, run: LookupRun, sym: Sym) -> tuple[Sym, ...]:
        """The other definitions of the same type (C# ``partial``, a reopened Ruby class):
        their bases are the type's too (asked with ``detached_methods``)."""
        return ()

    def definition(self, run: LookupRun, target: Sym) -> Sym:
        """The definition a resolved target stands for: itself, unless the language
        separates declarations from definitions (C/C++ headers)."""
        return target

    def method_visible(self, fi: FileIndex, path: str) -> bool:
        """Whether a detached method defined in ``path`` can belong to a type seen from ``fi``."""
        return True

    def submodule(self, fi: FileIndex, name: str) -> Target | None:
        """A module reachable as an attribute of ``fi`` without an import (Python packages)."""
        return None

    def fallback_name(self, run: LookupRun, fi: FileIndex, name: str) -> Target | None:
        """Last resort for a bare name nothing else bound (Rust macros by crate)."""
        return None
