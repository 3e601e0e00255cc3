"""Names in namespaces that span files: the repository's index of qualified names and the
lexical lookup through the caller's enclosing scopes (C++ namespaces and classes, Ruby
modules, C#/PHP namespaces, Kotlin/Scala/Swift packages and types).

A *full name* is a symbol's qualname prefixed with its file's package (``fi.package``, when
the language has one; C++ and Ruby have none), dotted: ``app.Store.save``,
``App.Models.User``. Every symbol not nested in a function is indexed under its full name,
whatever file defines it, so a name resolves to its definition wherever that is: a class
reopened in several files (Ruby, C# ``partial``), a method defined out of line (C++), a
namespace spread over many files.

Dependencies: a lookup records the key ``NAME_KEY + <last segment>`` of every full name it
probes; when a file starts or stops defining a full name, ``changed_keys`` returns the key of
its last segment, and the resolver re-resolves the files that probed it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from graphmemd.graph.model import Confidence, SymbolKind
from graphmemd.graph.resolution.index import CALLABLE, FileIndex, LookupRun, Sym

__all__ = ["NAME_KEY", "QualifiedNames", "full_names", "scope_chain"]

#: prefix of the consulted-file keys standing for "a full name ending in ..."
NAME_KEY = "\0name:"

Found = tuple[Sym, Confidence]


def _prefix(fi: FileIndex) -> str:
    return fi.package + "." if fi.package else ""


def full_names(fi: FileIndex) -> dict[str, str]:
    """Full name -> qualname of every symbol of ``fi`` not nested in a function."""
    syms = fi.syms
    pre = _prefix(fi)
    out: dict[str, str] = {}
    for q, s in syms.items():
        parent = s.parent
        nested = False
        while parent is not None:
            ps = syms.get(parent)
            if ps is None:
                break
            if ps.kind in CALLABLE:
                nested = True
                break
            parent = ps.parent
        if not nested:
            out[pre + q] = q
    return out


def scope_chain(fi: FileIndex, caller: str, package_parents: bool) -> Iterator[str]:
    """The full names of the scopes enclosing ``caller`` (a qualname of ``fi``), innermost
    first: the caller itself, its enclosing definitions (by qualname prefix, so an
    out-of-line ``app.Store.save`` is inside ``app.Store`` and ``app`` even when the file
    defines neither), then the file's package and, with ``package_parents``, the packages
    enclosing it (C# namespaces), then the global scope ``""``."""
    pre = _prefix(fi)
    q = caller
    while q:
        yield pre + q
        cut = q.rfind(".")
        q = q[:cut] if cut > 0 else ""
    package = fi.package or ""
    while package:
        yield package
        if not package_parents:
            break
        cut = package.rfind(".")
        package = package[:cut] if cut > 0 else ""
    yield ""


class QualifiedNames:
    """Full name -> the files defining it (and their qualname there), over a family's files;
    the types (symbols of one of ``kinds``) also in a table of their own."""

    __slots__ = ("_first", "_former", "_of", "defs", "kinds", "prefer", "types")

    def __init__(
        self, kinds: frozenset[SymbolKind], prefer: Callable[[str, Iterable[str]], str | None] | None = None
    ) -> None:
        self.kinds = kinds
        #: the path to prefer among those defining a full name (Ruby: Zeitwerk's; C#: the
        #: file named like the type); None: the first
        self.prefer = prefer
        self.defs: dict[str, dict[str, str]] = {}
        self.types: dict[str, dict[str, str]] = {}
        #: (full name, types only) -> the symbol of the first path (memoised)
        self._first: dict[tuple[str, bool], Sym] = {}
        self._of: dict[str, frozenset[str]] = {}
        #: path -> the full names it defined before it was last unindexed (for changed_keys)
        self._former: dict[str, frozenset[str]] = {}

    def index(self, fi: FileIndex) -> None:
        """Add the full names ``fi`` defines."""
        names = full_names(fi)
        path = fi.path
        for fq, q in names.items():
            self.defs.setdefault(fq, {})[path] = q
            if fi.syms[q].kind in self.kinds:
                self.types.setdefault(fq, {})[path] = q
            self._forget(fq)
        self._of[path] = frozenset(names)

    def unindex(self, fi: FileIndex) -> None:
        """Remove the full names ``fi`` defines, remembering them for ``changed_keys``."""
        old = self._of.pop(fi.path, frozenset())
        for fq in old:
            for table in (self.defs, self.types):
                found = table.get(fq)
                if found is not None and found.pop(fi.path, None) is not None and not found:
                    del table[fq]
            self._forget(fq)
        self._former[fi.path] = old

    def _forget(self, fq: str) -> None:
        self._first.pop((fq, False), None)
        self._first.pop((fq, True), None)

    def changed_keys(self, path: str) -> set[str]:
        """The name keys of the full names ``path`` started or stopped defining."""
        old = self._former.pop(path, frozenset())
        new = self._of.get(path, frozenset())
        return {NAME_KEY + fq.rsplit(".", 1)[-1] for fq in old ^ new}

    def parts(self, run: LookupRun, sym: Sym) -> tuple[Sym, ...]:
        """Every definition of the type ``sym`` (by its full name), ``sym`` included."""
        fi = run.files[sym[0]]
        fq = _prefix(fi) + sym[1]
        run.seen.add(NAME_KEY + fq.rsplit(".", 1)[-1])
        found = self.types.get(fq)
        return tuple(sorted(found.items())) if found and len(found) > 1 else (sym,)

    def find(self, run: LookupRun, fq: str) -> list[Sym]:
        """The symbols named ``fq``, sorted (the probe is recorded for ``dependents_of``)."""
        run.seen.add(NAME_KEY + fq.rsplit(".", 1)[-1])
        found = self.defs.get(fq)
        return sorted(found.items()) if found else []

    def pick(self, run: LookupRun, fi: FileIndex, fq: str, types: bool = False) -> Sym | None:
        """The symbol (a type, with ``types``) named ``fq`` as seen from ``fi``: its own,
        else the one of the preferred path, else of the first path; the file it is in is
        consulted."""
        run.seen.add(NAME_KEY + fq.rsplit(".", 1)[-1])
        table = (self.types if types else self.defs).get(fq)
        if not table:
            return None
        own = table.get(fi.path)
        if own is not None:
            return (fi.path, own)
        key = (fq, types)
        first = self._first.get(key)
        if first is None:
            preferred = self.prefer(fq, table) if self.prefer is not None and len(table) > 1 else None
            path = preferred if preferred is not None else min(table)
            first = self._first[key] = (path, table[path])
        run.seen.add(first[0])
        return first


def _here(fi: FileIndex, full: str) -> str | None:
    """The qualname of ``fi`` whose full name is ``full`` (None: not in this file)."""
    pre = _prefix(fi)
    if pre:
        if not full.startswith(pre):
            return None
        full = full[len(pre) :]
    return full if full in fi.syms else None


def type_named(run: LookupRun, fi: FileIndex, names: QualifiedNames, full: str) -> Sym | None:
    """The type whose full name is ``full``: in ``fi`` first."""
    q = _here(fi, full)
    if q is not None and fi.syms[q].kind in names.kinds:
        return (fi.path, q)
    return names.pick(run, fi, full, types=True)


def resolve_scoped(
    run: LookupRun,
    fi: FileIndex,
    names: QualifiedNames,
    scopes: Iterable[str],
    segs: tuple[str, ...],
    exclude: str | None = None,
) -> Found | None:
    """``segs`` (a name, or a path ``A::B::f``) looked up from each of ``scopes`` (full
    names, innermost first): a type's own name inside it (the type, not its constructor),
    the symbol of that full name in ``fi`` or another file, else a member (inherited ones
    too) of the type named by all but the last segment."""
    dotted = ".".join(segs)
    last = segs[-1]
    for scope in scopes:
        if len(segs) == 1 and scope.rpartition(".")[2] == last:  # a type's own name inside it
            own = type_named(run, fi, names, scope)
            if own is not None and own != (fi.path, exclude):
                return own, Confidence.SAME_MODULE if own[0] == fi.path else Confidence.SAME_PACKAGE
        full = f"{scope}.{dotted}" if scope else dotted
        q = _here(fi, full)
        if q is not None and q != exclude:
            return (fi.path, q), Confidence.SAME_MODULE
        if q is None:
            hit = names.pick(run, fi, full)
            if hit is not None and hit != (fi.path, exclude):
                return hit, Confidence.SAME_PACKAGE
        head = ".".join(segs[:-1])
        owner_name = f"{scope}.{head}" if scope and head else scope or head
        if not owner_name:
            continue
        owner = type_named(run, fi, names, owner_name)
        if owner is not None and owner != (fi.path, exclude):
            found = run.member_of(owner, last, set())
            if found is not None:
                direct = Confidence.SAME_MODULE if found[0] == fi.path else Confidence.SAME_PACKAGE
                return found, run.member_confidence(owner, found, direct)
    return None
