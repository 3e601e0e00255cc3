"""C and C++ (one family: headers are shared by both).

* ``#include "x.h"``: the including file's directory, then the include directories
  (``compile_commands.json``'s ``-I``/``-iquote``/``-isystem`` inside the repository, else
  its ``include`` directories, the root and ``src``), then the one repository file whose
  path ends with ``/x.h``; ``#include <x.h>`` the same without the own directory. What an
  included file declares is visible, and what it includes in turn (re-exports).
* Namespaces and classes are scopes spanning files (``scopes.py``): a name is looked up in
  the caller's class (and its bases), then in its enclosing namespaces, then through
  ``using`` declarations and directives, the file, its includes; ``a::b::f`` and
  ``Type::member`` likewise from each enclosing scope outwards.
* A call that reaches a declaration (a prototype in a header, a member declared in its
  class) is linked to its definition: the one file defining that full name with a body, the
  file named like the header (``store.h`` -> ``store.cpp``) when there are several.
* Out-of-line members (``void Store::save()``) belong to their class wherever it is
  declared; fields typed in the class type ``this->f`` and bare ``f`` receivers.
* Overloads are told apart by argument count; a free function nothing else bound is the one
  non-``static`` definition of that name in the repository (what the linker would take).
"""

from __future__ import annotations

import posixpath

from graphmemd.graph.model import NO_BODY_HASH, Confidence, ImportRef, Language
from graphmemd.graph.resolution.index import (
    CALLABLE,
    CLASSLIKE,
    CtxBuilder,
    FileIndex,
    LookupRun,
    Sym,
    Target,
    discard,
    norm,
)
from graphmemd.graph.resolution.rules import LanguageRules, words
from graphmemd.graph.resolution.scopes import QualifiedNames, resolve_scoped, scope_chain

_SOURCE_EXTS = (".c", ".cc", ".cpp", ".cxx", ".c++")
#: the file stem a definition file shares with its header
_BASE_KEY = "cbase:"


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0]


def _file_local(fi: FileIndex, q: str) -> bool:
    """A ``static`` function of a source file (one in a header is seen by every includer)."""
    head = fi.syms[q].signature.split("(", 1)[0]
    return "static" in head.split() and fi.path.endswith(_SOURCE_EXTS)


class CFamilyRules(LanguageRules):
    """C and C++: includes, namespaces, out-of-line members, declarations paired with definitions."""

    family = "c/c++"
    languages = (Language.C, Language.CPP)
    self_names = frozenset({"this"})
    reexports = True
    members_in_scope = True
    detached_methods = True
    overloads_by_arity = True
    scoped_names = True
    common_methods = words(
        "size begin end cbegin cend rbegin rend push_back emplace_back push_front pop_back pop_front insert "
        "emplace erase find count at data c_str empty clear get reset release swap front back resize reserve "
        "append substr length str first second lock unlock load store exchange what value has_value "
        "operator= operator== operator<< operator>> operator() operator[] init run close open read write"
    )

    def __init__(self, resolver: object) -> None:
        super().__init__(resolver)  # type: ignore[arg-type]
        self.names = QualifiedNames(CLASSLIKE)
        #: basename -> the family's files of that name (the last-resort include lookup)
        self.by_base: dict[str, set[str]] = {}
        #: path -> its `using namespace` directives and `using a::B` declarations (full names)
        self.usings: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {}

    # ----------------------------------------------------------------- files

    def index(self, fi: FileIndex) -> None:
        """Index the file's full names, base name and ``using`` lines."""
        self.names.index(fi)
        self.by_base.setdefault(posixpath.basename(fi.path), set()).add(fi.path)
        spaces: list[str] = []
        decls: dict[str, str] = {}
        for imp in fi.parsed.imports:
            if not imp.names:
                continue
            module = imp.module.replace("::", ".").strip(".")
            for n in imp.names:
                if n == "*":
                    spaces.append(module)
                else:
                    decls.setdefault(n, f"{module}.{n}" if module else n)
        if spaces or decls:
            self.usings[fi.path] = (tuple(spaces), decls)

    def unindex(self, fi: FileIndex) -> None:
        """Remove the file from the family's indexes."""
        self.names.unindex(fi)
        discard(self.by_base, posixpath.basename(fi.path), fi.path)
        self.usings.pop(fi.path, None)

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """The file's base name: an include resolved by name alone depends on the files so named."""
        return {_BASE_KEY + posixpath.basename(fi.path)}

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The name keys of the full names the file started or stopped defining."""
        return self.names.changed_keys(path)

    # ----------------------------------------------------------------- includes

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve an ``#include`` to a repository file (its declarations become visible);
        ``using`` lines bind no file (``index`` keeps them for the lookups)."""
        if imp.names:
            return
        spec = imp.module.strip()
        system = spec.startswith("<")
        name = spec.strip("<>").strip()
        if not name:
            return
        dirs = self.r.facts.c_include_dirs or ("",)
        candidates = [] if system else [norm(posixpath.join(fi.dir, name))]
        candidates.extend(norm(posixpath.join(d, name)) for d in dirs)
        found = b.probe(c for c in candidates if c != ".." and not c.startswith("../"))
        if found is None:
            found = self._by_name(name, b)
        if found is None:
            b.externals[name] = None
            return
        b.target(found)
        b.star[found] = None

    def _by_name(self, name: str, b: CtxBuilder) -> str | None:
        """The one family file whose path ends with ``/name`` (an include directory we do not know)."""
        base = posixpath.basename(name)
        b.keys.add(_BASE_KEY + base)
        tail = "/" + name.lstrip("./")
        found = [p for p in self.by_base.get(base, ()) if p.endswith(tail) or p == name]
        return found[0] if len(found) == 1 else None

    # ----------------------------------------------------------------- names

    def _scopes(self, fi: FileIndex, caller: str, global_scope: bool) -> list[str]:
        """Full names of the scopes to look a name up in: the enclosing ones, then the
        namespaces named by ``using namespace`` (the global scope last, when wanted)."""
        chain = [s for s in scope_chain(fi, caller, True) if s]
        using = self.usings.get(fi.path)
        if using is not None:
            chain.extend(using[0])
        if global_scope:
            chain.append("")
        return chain

    def scoped_name(
        self, run: LookupRun, fi: FileIndex, caller: str, segs: tuple[str, ...], exclude: str | None
    ) -> tuple[Sym, Confidence] | None:
        """A name in the caller's class, enclosing namespaces or ``using`` namespaces (a
        global name is left to the file and its includes); a type path from any scope."""
        using = self.usings.get(fi.path)
        if len(segs) == 1 and using is not None and segs[0] in using[1]:
            full = using[1][segs[0]]
            got = resolve_scoped(run, fi, self.names, ("",), tuple(full.split(".")), exclude)
            if got is not None:
                return got
        return resolve_scoped(run, fi, self.names, self._scopes(fi, caller, len(segs) > 1), segs, exclude)

    def path_call(
        self, run: LookupRun, fi: FileIndex, caller: str, text: str, segs: tuple[str, ...]
    ) -> tuple[bool, Target | None, Confidence]:
        """``ns::f()``, ``Type::member()`` (static members, explicit base calls): from each
        enclosing scope outwards, never guessed."""
        if "::" not in text:
            return False, None, Confidence.IMPORT
        got = resolve_scoped(run, fi, self.names, self._scopes(fi, caller, True), segs)
        if got is None:
            return True, None, Confidence.IMPORT
        return True, got[0], got[1]

    def fallback_name(self, run: LookupRun, fi: FileIndex, name: str) -> Target | None:
        """A free function no include declares: the one non-``static`` definition of that
        name in the repository (else the one declaration), as the linker would bind it."""
        found = [(p, q) for p, q in self.names.find(run, name) if run.files[p].syms[q].kind in CALLABLE]
        found = [(p, q) for p, q in found if p == fi.path or not _file_local(run.files[p], q)]
        defined = [t for t in found if run.files[t[0]].syms[t[1]].body_hash != NO_BODY_HASH]
        pick = defined if defined else found
        if len(pick) != 1:
            return None
        run.seen.add(pick[0][0])
        return pick[0]

    # ----------------------------------------------------------------- declarations

    def definition(self, run: LookupRun, target: Sym) -> Sym:
        """A declaration's definition: the one other file defining the same full name with a
        body, else the one named like the declaring file (``store.h`` -> ``store.cpp``, the
        one beside it first); the declaration itself when there is none (a library's) or
        several."""
        fi = run.files[target[0]]
        s = fi.syms.get(target[1])
        if s is None or s.kind not in CALLABLE or s.body_hash != NO_BODY_HASH:
            return target
        found = [
            (p, q)
            for p, q in self.names.find(run, target[1])
            if p != target[0]
            and run.files[p].syms[q].body_hash != NO_BODY_HASH
            and run.files[p].syms[q].kind in CALLABLE
        ]
        if len(found) > 1:  # the source file named like the header, the one beside it first
            stem = _stem(target[0])
            named = [t for t in found if _stem(t[0]) == stem and t[0].endswith(_SOURCE_EXTS)]
            beside = [t for t in named if posixpath.dirname(t[0]) == fi.dir]
            found = beside if len(beside) == 1 else named if len(named) == 1 else found
        if len(found) != 1:
            return target
        run.seen.add(found[0][0])
        return found[0]

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """Every name may be a member of the caller's class or namespace."""
        return True
