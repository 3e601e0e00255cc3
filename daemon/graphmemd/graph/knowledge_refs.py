"""What a reference written in a knowledge file names in the code graph (pure).

A name is tried, in order, as:

1. graphmem's own ref (``app/auth/service.py::AuthService.login``, or a path suffix before ``::``);
2. a module path and a name in it (``flask.url_for``, ``attrs.define``, ``click.testing.CliRunner``,
   ``com.example.AuthService.login``): the module is a file (``flask/__init__.py``, ``auth.rs``,
   ``AuthService.java``) or a directory (a Go or Java package), matched on the path's last
   components; a name the module does not define is looked up in the files it imports, two
   levels deep (re-exports: ``from .helpers import url_for``);
3. a qualified name or its dotted suffix (``AuthService.login``);
4. a bare name (``hash_password``).

A name written without its module never means test code, and one that means several symbols
resolves only when exactly one of them is outside the tests. A path resolves to the file
(``src/app.py``; relative to the knowledge file, or a unique suffix), or with a line
(``src/app.py#L42``) to the innermost symbol around it.
Sphinx's ``currentmodule`` is tried as a prefix first. The same index is built over the
current graph or over old parses of a file (what a reference named when it was written).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from graphmemd.graph.constructors import constructor
from graphmemd.graph.model import SymbolInfo, SymbolKind
from graphmemd.graph.successors import successors
from graphmemd.graph.symbol_match import close_matches

__all__ = ["RefIndex", "Resolution", "enclosing", "is_test_path", "successor_in"]

_MODULE_STEMS: Final = frozenset({"__init__", "index", "mod", "lib", "main"})
_ROOT_WORDS: Final = frozenset({"crate", "self", "super"})
_SOURCE_DIRS: Final = frozenset({"src", "lib", "pkg", "internal", "cmd", "app", "source"})
_TEST: Final = re.compile(r"(^|/)(tests?|testing|__tests__|spec)/|(^|/)test_[^/]*$|_test\.\w+$|\.(test|spec)\.\w+$")
#: kinds a passing mention of which does not follow every change of their members
CONTAINER_KINDS: Final = frozenset(
    {SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM, SymbolKind.MODULE}
)


def is_test_path(path: str) -> bool:
    """Whether ``path`` is a test file (tests are never the code a document means)."""
    return bool(_TEST.search(path))


def successor_in(text: str, old: str, symbols: Sequence[SymbolInfo]) -> tuple[str, SymbolInfo] | None:
    """The first name the deprecation messages in ``text`` give for ``old`` (``successors``)
    that is one symbol among ``symbols`` (by qualified name or its last parts; test code only
    when nothing else has it): that name as the message writes it, and the symbol."""
    for name in successors(text, old):
        found = [s for s in symbols if s.qualname == name or s.qualname.endswith("." + name)]
        found = [s for s in found if not is_test_path(s.path)] or found
        if len({s.id for s in found}) == 1:
            return name, found[0]
    return None


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a reference names: a symbol, or a whole file (``symbol`` None). ``called``: the
    class the text calls when ``symbol`` is its constructor (what the call is bound against)."""

    path: str
    symbol: SymbolInfo | None = None
    called: SymbolInfo | None = None

    @property
    def ref(self) -> str:
        """``path::qualname`` for a symbol, the path for a file."""
        return self.symbol.ref if self.symbol is not None else self.path


def enclosing(symbols: Iterable[SymbolInfo], line: int) -> SymbolInfo | None:
    """The innermost symbol whose lines contain ``line`` (None: none does)."""
    around = [s for s in symbols if s.start_line <= line <= s.end_line]
    return min(around, key=lambda s: (s.end_line - s.start_line, s.start_line), default=None)


def _suffixes(k: tuple[str, ...]) -> list[tuple[str, ...]]:
    """A module path, and the same without each leading source folder (``src/``, ``lib/`` …)."""
    out: list[tuple[str, ...]] = []
    while k:
        out.append(k)
        if k[0] not in _SOURCE_DIRS:
            break
        k = k[1:]
    return out


def _module_keys(path: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The module paths a file answers to (its own; the stem dropped for ``__init__``,
    ``index``, ``mod``), and those of the package (directory) it is in."""
    stem_path, _ = posixpath.splitext(path)
    parts = tuple(p for p in stem_path.split("/") if p)
    own = parts[:-1] if parts[-1] in _MODULE_STEMS else parts
    return _suffixes(own), _suffixes(parts[:-1])


_WANT: Final = {
    "class": CONTAINER_KINDS,
    "callable": frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD}),
}
#: what a ``toplevel`` name may be: a module-level function, class or variable-like symbol
_TOPLEVEL: Final = "toplevel"


def _path_order(path: str) -> tuple[bool, int, str]:
    """Files outside the tests first, then the shortest path."""
    return is_test_path(path), len(path), path


def _no_imports(path: str) -> Sequence[str]:
    return ()


class Exports(Protocol):
    """What a file exports by name, as the code's resolution sees it
    (``graph.resolution.resolver.Exports``): definitions, aliases bound by value, re-exports
    and ``import *``."""

    def holds(self, path: str) -> bool:
        """Whether the resolution knows the file."""
        ...

    def exported(self, path: str, dotted: str) -> tuple[str, str] | None:
        """The ``(path, qualname)`` the file exports as ``dotted``; None for nothing."""
        ...

    def consulted(self, path: str, dotted: str) -> frozenset[str]:
        """The files a lookup of ``dotted`` in the file looked into."""
        ...

    def foreign(self, name: str) -> bool:
        """Whether the repository's code (tests aside) imports ``name`` from outside it."""
        ...


class RefIndex:
    """Symbols and files of one repository, indexed for reference resolution."""

    def __init__(
        self,
        symbols: Iterable[SymbolInfo],
        paths: Iterable[str],
        imports: Callable[[str], Sequence[str]] = lambda p: (),
        exports: Exports | None = None,
        bases: Callable[[SymbolInfo], Sequence[SymbolInfo]] = lambda s: (),
    ) -> None:
        self.symbols = [s for s in symbols]
        self.paths = set(paths)
        self._imports = imports
        self._exports = exports
        self._bases = bases
        self._quals: dict[str, dict[str, SymbolInfo]] = defaultdict(dict)
        self._by_last: dict[str, list[SymbolInfo]] = defaultdict(list)
        self._modules: dict[tuple[str, ...], set[str]] = defaultdict(set)  # a module's own file
        self._packages: dict[tuple[str, ...], set[str]] = defaultdict(set)  # the files of a package
        self._file_syms: dict[str, list[SymbolInfo]] = defaultdict(list)
        self._memo: dict[tuple[str, str, int], SymbolInfo | None] = {}
        for s in self.symbols:
            self._quals[s.path].setdefault(s.qualname, s)
            self._by_last[s.name].append(s)
            self._file_syms[s.path].append(s)
        for p in self.paths:
            own, package = _module_keys(p)
            for key in own:
                self._modules[key].add(p)
            for key in package:
                self._packages[key].add(p)

    def as_of(self, symbols: Iterable[SymbolInfo], paths: Iterable[str]) -> RefIndex:
        """The repository with other symbols (the code as it was at some commit) among its
        files and ``paths``; a package's names still what its ``__init__`` exports now."""
        return RefIndex(symbols, self.paths | set(paths), exports=self._exports)

    def has_module(self, name: str) -> bool:
        """Whether the first part of dotted ``name`` is a module or package of the repository
        (``flask`` for ``flask.Flask`` in flask's tree; never ``os`` or ``numpy``)."""
        root = (name.split(".", 1)[0],)
        return root in self._modules or root in self._packages

    def module_files(self, module: str) -> list[str]:
        """The files that are the module ``module`` (dotted) itself, shortest path first."""
        return sorted(self._modules.get(tuple(module.split(".")), ()), key=_path_order)

    @staticmethod
    def module_name(path: str, package: bool = False) -> str:
        """The dotted module a file is, as an import writes it (``src/click/parser.py`` ->
        ``click.parser``, ``src/click/__init__.py`` -> ``click``), or with ``package`` the
        package it is in (``click`` for both)."""
        own, in_package = _module_keys(path)
        keys = in_package if package else own
        return ".".join(keys[-1]) if keys else ""

    def origins(self, name: str, module: str = "") -> dict[str, str]:
        """Where a dotted name that resolves to nothing would be defined, per the code's
        resolution: each file a lookup of it in a module it names looked into (the module's
        re-exports, its ``import *`` targets) -> the rest of the name to find there."""
        out: dict[str, str] = {}
        if self._exports is None:
            return out
        for candidate in ([f"{module}.{name}"] if module else []) + [name]:
            segs = candidate.split(".")
            for k in range(len(segs) - 1, 0, -1):
                rest = ".".join(segs[k:])
                for p in sorted(self._modules.get(tuple(segs[:k]), ())):
                    for f in sorted(self._exports.consulted(p, rest) if self._exports.holds(p) else ()):
                        out.setdefault(f, rest)  # (longest module first: its rest is the shortest)
        return out

    # ------------------------------------------------------------------ classes

    def member(self, cls: SymbolInfo, name: str) -> SymbolInfo | None:
        """The symbol class ``cls`` defines as ``name`` itself (``constructors.ClassLookup``)."""
        return self._quals.get(cls.path, {}).get(f"{cls.qualname}.{name}")

    def bases(self, cls: SymbolInfo) -> Sequence[SymbolInfo]:
        """The repository's classes ``cls`` inherits from directly, as the code's resolution
        linked them (none for an index of old code)."""
        return self._bases(cls)

    def inherited(self, cls: SymbolInfo, name: str) -> SymbolInfo | None:
        """``name`` as class ``cls`` has it: its own, else its bases' (nearest first, left to
        right, as the code's resolution linked them); None when none defines it."""
        seen: set[str] = set()
        todo = [cls]
        while todo:
            c = todo.pop(0)
            if c.id in seen:
                continue
            seen.add(c.id)
            found = self.member(c, name)
            if found is not None:
                return found
            todo.extend(self.bases(c))
        return None

    def constructor(self, cls: SymbolInfo) -> SymbolInfo | None:
        """What a call of class ``cls`` with arguments runs (``graph.constructors``); None
        when the code does not show it (the call is then a mention of the class)."""
        return constructor(cls, self)

    # ------------------------------------------------------------------ names

    def resolve_name(
        self, name: str, module: str = "", want: str = "", scope: str = "", literal: bool = False
    ) -> Resolution | None:
        """What a (dotted, or ``path::qualname``) name means; None when it means nothing or
        too many things. ``want`` narrows it as a Sphinx role does: ``module`` (a file),
        ``class`` (a class-like symbol), ``callable`` (a function or method), ``toplevel``
        (a module-level name: ``.. data::``, ``.. function::``), "" (anything; a bare word
        that is also a module's name is then ambiguous). ``scope``: the class or module the
        section names, tried first (``.member`` is read only under it, when there is one).
        ``literal``: written as an inline literal (a code span, not a role): a bare name then
        means code only when exactly one symbol of the whole repository, tests included, has
        that name (``close``, ``run`` name too many things to be a reference), and ``module``
        (Sphinx's ``currentmodule``, which qualifies roles, not literals) is not tried for it."""
        if "::" in name and ("/" in name.split("::", 1)[0] or "." in name.split("::", 1)[0]):
            return self._ref_form(name)
        if scope:
            found = self.resolve_name(f"{scope}.{name.lstrip('.')}", module)
            if found is not None or name.startswith("."):
                return found
        name = name.lstrip(".")
        bare_literal = literal and "." not in name  # (Sphinx's currentmodule qualifies no literal)
        tries = [f"{module}.{name}"] if module and not name.startswith(module + ".") and not bare_literal else []
        for candidate in (*tries, name):
            if literal and "." not in candidate and self.named(candidate) > 1:
                return None
            if want == "module":
                files = sorted(self._modules.get(tuple(candidate.split(".")), ()), key=len)
                found = Resolution(files[0]) if files else None
            elif (
                "." not in candidate and not want and ((candidate,) in self._modules or (candidate,) in self._packages)
            ):
                found = None
            else:
                found = self._dotted(candidate, _WANT.get(want), toplevel=want == _TOPLEVEL)
            if found is not None:
                return found
        return None

    def foreign(self, name: str) -> bool:
        """Whether ``name`` (one word) is a name the repository's code, tests aside, imports
        from outside the repository (``from markupsafe import Markup``): written bare, it still
        names that when no symbol of the repository has it."""
        return self._exports is not None and "." not in name and self._exports.foreign(name)

    def named(self, name: str) -> int:
        """How many symbols of the repository (tests included) have the simple name ``name``."""
        return len({s.id for s in self._by_last.get(name, ())})

    def mentions(self, name: str, module: str = "", scope: str = "") -> bool:
        """Whether some symbol answers to ``name`` (several may: then it is ambiguous, not gone)."""
        name = name.lstrip(".")
        scoped = [f"{scope}.{name}"] if scope else []
        for candidate in scoped + ([f"{module}.{name}"] if module else []) + [name]:
            segs = candidate.replace("::", ".").split(".")
            full = ".".join(segs)
            if any(s.qualname == full or s.qualname.endswith("." + full) for s in self._by_last.get(segs[-1], ())):
                return True
        return False

    def _ref_form(self, name: str) -> Resolution | None:
        path_part, _, qual = name.rpartition("::")
        paths = self._paths_like(path_part)
        hits = [self._quals[p][qual] for p in paths if qual in self._quals.get(p, {})]
        if not qual and len(paths) == 1:
            return Resolution(paths[0])
        return Resolution(hits[0].path, hits[0]) if len(hits) == 1 else None

    def _dotted(
        self, name: str, kinds: frozenset[SymbolKind] | None = None, toplevel: bool = False
    ) -> Resolution | None:
        segs = name.split(".")
        while len(segs) > 1 and segs[0] in _ROOT_WORDS:
            segs = segs[1:]
        for k in range(len(segs) - 1, 0, -1):
            found = self._in_module(tuple(segs[:k]), ".".join(segs[k:]))
            if found is not None and (kinds is None or (found.symbol is not None and found.symbol.kind in kinds)):
                return found
        full = ".".join(segs)
        last = segs[-1]
        by_qual = [  # (a name written without its module never means test code)
            s
            for s in self._by_last.get(last, ())
            if (s.qualname == full or (not toplevel and s.qualname.endswith("." + full)))
            and (kinds is None or s.kind in kinds)
            and not is_test_path(s.path)
        ]
        if by_qual:
            return self._unique(by_qual)
        if len(segs) > 1:  # a dotted module itself (``click.testing``)
            files = sorted(self._modules.get(tuple(segs), ()), key=len)
            return Resolution(files[0]) if len(files) == 1 else None
        return None

    def _in_module(self, module: tuple[str, ...], rest: str) -> Resolution | None:
        """``rest`` in the module's own file (or what it re-exports), else in a file of the
        package (directory) of that name."""
        hits: dict[str, SymbolInfo] = {}
        own = sorted(self._modules.get(module, ()), key=_path_order)
        for p in own:
            s = self._in_file(p, rest, 2)
            if s is not None:
                hits.setdefault(s.id, s)
        if not hits and not any(self._namespace(p) for p in own):
            for p in sorted(self._packages.get(module, ()), key=_path_order):
                s = self._in_file(p, rest, 0)
                if s is not None:
                    hits.setdefault(s.id, s)
        if not hits:
            return None
        return self._unique(list(hits.values())) or Resolution(
            next(iter(hits.values())).path, next(iter(hits.values()))
        )

    def _namespace(self, path: str) -> bool:
        """Whether ``path`` is a Python package's ``__init__`` the code's resolution knows: the
        package's names are then what it exports, not whatever its other files define."""
        is_init = posixpath.basename(path) in ("__init__.py", "__init__.pyi")
        return is_init and self._exports is not None and self._exports.holds(path)

    def _in_file(self, path: str, rest: str, depth: int) -> SymbolInfo | None:
        """``rest`` defined in ``path``, or (``depth`` > 0) exported by it: as the code's
        resolution sees the file when it knows it (aliases, re-exports, ``import *``), else
        defined in a file it imports (``depth`` levels)."""
        key = (path, rest, depth)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # an import cycle finds nothing
        quals = self._quals.get(path, {})
        stem = posixpath.splitext(posixpath.basename(path))[0]
        s = quals.get(rest) or quals.get(f"{stem}.{rest}")
        if s is None and depth > 0:
            if self._exports is not None and self._exports.holds(path):
                got = self._exports.exported(path, rest)
                s = self._quals.get(got[0], {}).get(got[1]) if got is not None else None
            else:  # (in a fixed order: the imports may come from a set, whose order follows the string hash seed)
                imported = sorted(self._imports(path), key=_path_order)
                s = next((f for i in imported if (f := self._in_file(i, rest, depth - 1)) is not None), None)
        self._memo[key] = s
        return s

    @staticmethod
    def _unique(found: Sequence[SymbolInfo]) -> Resolution | None:
        ids = {s.id: s for s in found}
        if len(ids) > 1:
            ids = {i: s for i, s in ids.items() if not is_test_path(s.path)}
        if len(ids) != 1:
            return None
        s = next(iter(ids.values()))
        return Resolution(s.path, s)

    # ------------------------------------------------------------------ paths

    def _paths_like(self, path: str) -> list[str]:
        path = posixpath.normpath(path.lstrip("/")) if path else ""
        if path in self.paths:
            return [path]
        return sorted(p for p in self.paths if p.endswith("/" + path))

    def resolve_path(self, path: str, line: int = 0, doc_path: str = "") -> Resolution | None:
        """A repository file (exact, relative to the knowledge file, or a unique suffix),
        and with ``line`` the innermost symbol around it."""
        found = self._paths_like(path)
        if len(found) != 1 and doc_path:
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(doc_path), path))
            found = [rel] if rel in self.paths else found
        if len(found) != 1:
            return None
        p = found[0]
        s = enclosing(self._file_syms.get(p, ()), line) if line else None
        return Resolution(p, s)

    def close_matches(self, name: str, limit: int = 5) -> tuple[str, ...]:
        """The refs a name that does not resolve most plausibly meant (by its last dotted
        part when the whole name matches nothing)."""
        found = close_matches(name, self.symbols, limit).symbols
        if not found and "." in name:
            found = close_matches(name.rsplit(".", 1)[1], self.symbols, limit).symbols
        return tuple(s.ref for s in found)
