"""Resolution of a repository's parsed files into graph edges.

Pure and in-memory: :class:`RepoResolver` keeps the latest :class:`~graphmemd.model.ParsedFile`
of every file, indexes it once in :meth:`RepoResolver.set_file`, and turns imports, calls and
inheritance references into edges between ``model.file_id`` / ``model.symbol_id`` ids. The only
I/O is :func:`read_repo_facts`, which reads a few manifest files (``go.mod``, ``Cargo.toml``,
``tsconfig.json``/``jsconfig.json``, Python project files).

Everything is best effort and deterministic (files are processed in path order, candidates are
probed in a fixed order, ties are broken by sorted paths). Nothing is silently dropped: an
import that does not resolve to a repository file is reported in ``external_imports`` (module
as written, also for relative specifiers), a call that does not resolve to a symbol in
``unresolved_calls`` and a parent type that does not resolve in ``unresolved_inherits``.

Imports -> files (one small function per language, ``_py_import`` ... ``_java_import``):

* Python: dotted modules are probed as ``<root>/a/b.py``, ``.pyi``, ``a/b/__init__.py(i)``
  under every ``RepoFacts.python_roots`` entry and, for files in a directory that is not a
  package (scripts, test dirs), the importer's own directory (like ``sys.path[0]``).
  Relative imports walk up one directory per extra leading dot. ``from pkg import name``
  imports ``pkg`` and, when ``pkg/name.py`` exists, that submodule file too.
* JavaScript/TypeScript: relative specifiers are probed as written, then with the
  extensions ``.ts .tsx .js .jsx .mjs .cjs .d.ts``, then ``<spec>/index.<ext>``; a ``.js``
  specifier also probes the ``.ts``/``.tsx`` file (TypeScript ESM style). Bare specifiers
  go through tsconfig ``paths`` aliases and ``baseUrl`` dirs when known, else are external.
* Go: the import path is mapped to a directory through the ``go.mod`` module paths; the
  import targets every ``.go`` file of that directory (``_test.go`` files only when the
  importer is a test). The local package name is the alias or the ``package`` clause.
* Rust: ``mod x;`` targets ``x.rs`` or ``x/mod.rs`` in the declaring file's directory (for
  crate roots and ``mod.rs``) or in ``<dir>/<stem>/`` (Rust 2018 non-``mod.rs`` files).
  ``use`` paths (``crate::``, ``self::``, ``super::``, a workspace crate name, or a child
  module of the current module) are mapped to module files by the standard layout
  (``a::b`` -> ``<crate dir>/a/b.rs`` or ``a/b/mod.rs``), using the longest module prefix
  that exists; the remaining segments name items inside that file.
* Java: ``import p.C`` targets the file(s) declaring package ``p`` with top-level type
  ``C`` (``import p.Outer.Inner`` and static imports fall back to the outer type);
  ``import p.*`` targets every file of package ``p``; same-package types need no import.

When two imports bind the same local name, the first one wins (``try: from _c import x`` /
``except ImportError: from _py import x``, ``if posix: import posixpath as path``); a name
bound into the repository always beats one bound to an external module.

Calls -> symbols (``_Pass.resolve_call``), in this order:

1. ``self.x``/``cls.x`` (Python), ``this.x`` (JS/Java), ``self.x``/``Self::x`` (Rust) ->
   method ``x`` of the enclosing class, then of its resolved base classes (depth first, in
   declaration order). For Go and Rust, whose methods may live in another file than the type,
   a method ``T.x`` found in exactly one file of the package (Go) / repository (Rust) also
   counts. ``super().x``/``super.x`` -> the bases only. A Go call ``v.x()`` inside a method
   of ``T`` where ``v`` is not an imported package links to ``T.x`` if such a method exists
   (receiver heuristic: Go receivers have no fixed name).
2. Bare names: a nested definition of the caller or of an enclosing function, then (Java
   only) members of the enclosing classes and their bases, then a top-level symbol of the
   file, then a name bound by an import (following re-exports through ``__init__.py``, JS
   barrels and Rust ``pub use``, and ``*`` imports), then the same package (Go: other files
   of the directory; Java: files of the same package). **Calling a class links to the class
   symbol itself** (not to ``__init__``/the constructor), in every language, so that
   ``Foo()`` and ``new Foo`` references stay uniform (inside a Java class, its own name is
   the class, not its constructor); ``Foo::new``/``Foo.create`` link to the named method.
3. Dotted names: the longest prefix bound to an imported module (``mod.func``,
   ``alias.func``, ``pkg.Func``, Python ``a.b.func`` after ``import a.b``; Python packages
   also expose their submodule files) -> the symbol in that module's file(s); a prefix
   that resolves as in (2) to a class/namespace -> its member (``Class.method``,
   ``Type::new``, ``Outer.Inner.m``), looking through base classes for methods; Rust
   ``crate::``/``self::``/``super::`` paths -> the item in that module file.
4. Heuristic for ``receiver.method(...)`` calls left over: if ``method`` is defined in
   exactly one class among this file and the files it imports, link it; if it is defined
   in none of those but in exactly one class of the whole repository, link that. Not
   applied to ``self.x``/``super`` calls (their class is known), to receivers that are
   imported externals or look like type names (capitalised: ``Math.max``, ``Vec::new``),
   to Rust ``::`` paths, nor to the per-language list of very common method names in
   ``_COMMON_METHODS`` (``append``, ``get``, ``push``, ``toString`` ...).

Builtins (``print``, ``len``, ``make``, ...) need no list: they never resolve unless the
repository defines that name, so they stay in ``unresolved_calls``.

A chained call whose receiver the parser trimmed away (``x.encode().decode()`` reported as
``decode``) looks like a bare name and is resolved as one.

Inherits: the parent text (generic arguments stripped) is resolved like a bare or dotted
call from the scope enclosing the child and must land on a class, struct, interface, trait
or enum symbol. A child named in an ``InheritRef`` but defined in another file (Rust ``impl
Trait for Type``) is itself resolved by name; if it is not in the repository at all (``impl
Trait for Vec``) the reference goes to ``unresolved_inherits`` with the file id as child.

Edges are deduplicated. Calls are resolved once per distinct callee text per file (or per
scope when the result can depend on it: ``self.x``, names of nested definitions, Java, Go
receivers) and emitted for every distinct caller.

Incremental use: ``dependents_of(paths)`` returns the files whose import resolution probed
any of ``paths`` (as an existing file or as a candidate that might appear), that share a Go
package directory or Java package with them, or whose last computed edges looked into them
(re-export chains, base classes, the file a heuristic (4) link went to). It works for
files that were just added or removed (a removed Java file's package is remembered). Not
tracked: a heuristic (4) link that becomes ambiguous because some other, unrelated file
starts defining the same method name; re-run ``all_edges`` from time to time to refresh.

Without Cargo facts, every ``lib.rs``/``main.rs`` is taken as a crate root.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmemd.model import (
    CallRef,
    ImportRef,
    InheritKind,
    InheritRef,
    Language,
    ParsedFile,
    ParsedSymbol,
    ResolvedEdges,
    SymbolKind,
    file_id,
    symbol_id,
)

__all__ = ["RepoFacts", "RepoResolver", "read_repo_facts"]


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class RepoFacts:
    """Small facts read from manifest files; all paths POSIX, relative to the repo root."""

    #: directory of a go.mod ("" for the root) -> its module path.
    go_modules: Mapping[str, str] = field(default_factory=dict)
    #: crate root files (``src/lib.rs``, ``src/main.rs``, ``src/bin/x.rs``, [lib]/[[bin]] paths).
    rust_crate_roots: tuple[str, ...] = ()
    #: tsconfig/jsconfig ``baseUrl`` directories.
    js_base_dirs: tuple[str, ...] = ()
    #: Python import roots: always ``""``, plus ``src``-layout and sub-project dirs.
    python_roots: tuple[str, ...] = ("",)
    #: crate name (``-`` replaced by ``_``) -> its root file, for ``use other_crate::x``.
    rust_crate_names: Mapping[str, str] = field(default_factory=dict)
    #: tsconfig ``paths`` pattern (``"@/*"``) -> target patterns relative to the repo root.
    js_path_aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


_JS_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")
_JS_SOURCE_EXTS = frozenset({".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"})
_GO_MODULE_RE = re.compile(r"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.MULTILINE)
_TRAILING_COMMA_RE = re.compile(r",(\s*[}\]])")
_MAX_MANIFEST_BYTES = 1 << 20


def _norm(path: str) -> str:
    """Normalise a relative POSIX path; the repository root is ``""``."""
    out = posixpath.normpath(path) if path else ""
    return "" if out == "." else out


def _read_text(root: Path, rel: str) -> str | None:
    try:
        p = root / rel
        if not p.is_file() or p.stat().st_size > _MAX_MANIFEST_BYTES:
            return None
        return p.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None


def _exists(root: Path, rel: str) -> bool:
    try:
        return (root / rel).is_file()
    except (OSError, ValueError):
        return False


def _strip_json_comments(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _loads_jsonc(text: str) -> Any:
    """JSON with comments and trailing commas (tsconfig style); None when unreadable."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return json.loads(_TRAILING_COMMA_RE.sub(r"\1", _strip_json_comments(text)))
    except ValueError:
        return None


def _cargo_facts(root: Path, d: str, pset: set[str], roots: list[str], names: dict[str, str]) -> None:
    text = _read_text(root, posixpath.join(d, "Cargo.toml"))
    if text is None:
        return
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        data = {}
    package = data.get("package")
    lib = data.get("lib")
    bins = data.get("bin")
    pkg_name = package.get("name") if isinstance(package, dict) else None
    lib_path = lib.get("path") if isinstance(lib, dict) else None
    lib_name = lib.get("name") if isinstance(lib, dict) else None
    lib_root = _norm(posixpath.join(d, lib_path if isinstance(lib_path, str) else "src/lib.rs"))
    candidates = [lib_root, _norm(posixpath.join(d, "src/main.rs"))]
    if isinstance(bins, list):
        for b in bins:
            bp = b.get("path") if isinstance(b, dict) else None
            if isinstance(bp, str):
                candidates.append(_norm(posixpath.join(d, bp)))
    bin_dir = _norm(posixpath.join(d, "src/bin")) + "/"
    candidates.extend(
        p for p in sorted(pset) if p.startswith(bin_dir) and p.endswith(".rs") and "/" not in p[len(bin_dir) :]
    )
    present = [c for c in dict.fromkeys(candidates) if c in pset]
    roots.extend(present)
    crate = lib_name if isinstance(lib_name, str) else pkg_name
    if isinstance(crate, str) and present:
        names.setdefault(crate.replace("-", "_"), lib_root if lib_root in pset else present[0])


def _tsconfig_facts(root: Path, d: str, base_dirs: list[str], aliases: dict[str, tuple[str, ...]]) -> None:
    for fname in ("tsconfig.json", "jsconfig.json"):
        text = _read_text(root, posixpath.join(d, fname))
        if text is None:
            continue
        data = _loads_jsonc(text)
        opts = data.get("compilerOptions") if isinstance(data, dict) else None
        if not isinstance(opts, dict):
            continue
        base_url = opts.get("baseUrl")
        base = _norm(posixpath.join(d, base_url)) if isinstance(base_url, str) else d
        if isinstance(base_url, str) and base not in base_dirs:
            base_dirs.append(base)
        paths = opts.get("paths")
        if isinstance(paths, dict):
            for pattern, targets in paths.items():
                if isinstance(pattern, str) and isinstance(targets, list) and pattern not in aliases:
                    aliases[pattern] = tuple(
                        _norm(posixpath.join(base, t)) + ("/" if t.endswith("/") else "")
                        for t in targets
                        if isinstance(t, str)
                    )


def read_repo_facts(root: Path, paths: Iterable[str]) -> RepoFacts:
    """Read ``go.mod``, ``Cargo.toml``, ``tsconfig.json``/``jsconfig.json`` and Python project
    files found in the directories of ``paths`` (and the root). Unreadable or malformed
    manifests are ignored."""
    plist = sorted({_norm(p.replace("\\", "/").strip("/")) for p in paths} - {""})
    pset = set(plist)
    dirs: set[str] = {""}
    for p in plist:
        d = posixpath.dirname(p)
        while d and d not in dirs:
            dirs.add(d)
            d = posixpath.dirname(d)
    sorted_dirs = sorted(dirs)
    exts = {posixpath.splitext(p)[1] for p in plist}
    names = {posixpath.basename(p) for p in plist}

    go_modules: dict[str, str] = {}
    if ".go" in exts or "go.mod" in names:
        for d in sorted_dirs:
            text = _read_text(root, posixpath.join(d, "go.mod"))
            m = _GO_MODULE_RE.search(text) if text else None
            if m:
                go_modules[d] = m.group(1)

    rust_roots: list[str] = []
    crate_names: dict[str, str] = {}
    if ".rs" in exts:
        for d in sorted_dirs:
            _cargo_facts(root, d, pset, rust_roots, crate_names)

    base_dirs: list[str] = []
    aliases: dict[str, tuple[str, ...]] = {}
    if exts & _JS_SOURCE_EXTS:
        for d in sorted_dirs:
            _tsconfig_facts(root, d, base_dirs, aliases)

    py_roots: list[str] = [""]
    if ".py" in exts or ".pyi" in exts:
        for d in sorted_dirs:
            is_project = d == "" or any(
                f"{d}/{m}" in pset or _exists(root, f"{d}/{m}") for m in ("pyproject.toml", "setup.py", "setup.cfg")
            )
            if not is_project:
                continue
            if d and f"{d}/__init__.py" not in pset and d not in py_roots:
                py_roots.append(d)
            src = _norm(posixpath.join(d, "src"))
            if src in dirs and f"{src}/__init__.py" not in pset and src not in py_roots:
                py_roots.append(src)

    return RepoFacts(
        go_modules=go_modules,
        rust_crate_roots=tuple(dict.fromkeys(rust_roots)),
        js_base_dirs=tuple(base_dirs),
        python_roots=tuple(py_roots),
        rust_crate_names=crate_names,
        js_path_aliases=aliases,
    )


# --------------------------------------------------------------------------- per-file index

_FAMILY: dict[Language, str] = {
    Language.PYTHON: "py",
    Language.JAVASCRIPT: "js",
    Language.TYPESCRIPT: "js",
    Language.TSX: "js",
    Language.GO: "go",
    Language.RUST: "rs",
    Language.JAVA: "java",
}
_CLASSLIKE = frozenset({SymbolKind.CLASS, SymbolKind.STRUCT, SymbolKind.INTERFACE, SymbolKind.TRAIT, SymbolKind.ENUM})
_CALLABLE = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
#: When two symbols share a qualname (different kinds), name lookups prefer the lower rank.
_RANK: dict[SymbolKind, int] = {
    SymbolKind.CLASS: 0,
    SymbolKind.STRUCT: 0,
    SymbolKind.ENUM: 0,
    SymbolKind.FUNCTION: 0,
    SymbolKind.METHOD: 0,
    SymbolKind.INTERFACE: 1,
    SymbolKind.TRAIT: 1,
    SymbolKind.MODULE: 2,
}
_SELF_NAMES: dict[str, frozenset[str]] = {
    "py": frozenset({"self", "cls"}),
    "js": frozenset({"this"}),
    "java": frozenset({"this"}),
    "rs": frozenset({"self", "Self"}),
    "go": frozenset(),
}
_SUPER_NAMES: dict[str, frozenset[str]] = {
    "py": frozenset({"super"}),
    "js": frozenset({"super"}),
    "java": frozenset({"super"}),
    "rs": frozenset(),
    "go": frozenset(),
}
#: Families whose imports are visible to importers of the file (re-exports).
_REEXPORTING = frozenset({"py", "js", "rs"})


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Method names too common to link by the uniqueness heuristic (4).
_COMMON_METHODS: dict[str, frozenset[str]] = {
    "py": _words(
        "append extend insert pop remove clear copy get items keys values update setdefault join "
        "split rsplit strip lstrip rstrip replace format startswith endswith lower upper encode "
        "decode find index count sort add discard read write close readline readlines open "
        "send run start stop __init__ __enter__ __exit__"
    ),
    "js": _words(
        "push pop shift unshift slice splice map filter reduce forEach find findIndex some every "
        "includes indexOf join split concat keys values entries then catch finally toString log "
        "error warn info debug get set has delete add replace trim toLowerCase toUpperCase "
        "startsWith endsWith apply call bind sort reverse emit on off send"
    ),
    "java": _words(
        "equals hashCode toString get set put add remove size isEmpty contains iterator length "
        "charAt substring append println print format valueOf stream map filter collect forEach "
        "of close run start"
    ),
    "go": _words(
        "Error String Close Read Write Lock Unlock RLock RUnlock Len Printf Println Sprintf "
        "Errorf Add Done Wait Get Set Run Start Stop"
    ),
    "rs": _words(
        "clone to_string to_owned into unwrap expect iter iter_mut into_iter map collect push "
        "len is_empty get insert remove as_str as_ref borrow borrow_mut ok_or and_then unwrap_or "
        "new default fmt eq cmp next run"
    ),
}

#: (caller id, scope key, enclosing class key, caller qualname)
_CallerInfo = tuple[str, str, str, str]
_Sym = tuple[str, str]  # (path, qualname)


@dataclass(frozen=True, slots=True)
class _Mod:
    """A module reference: one file, or every file of a Go package."""

    paths: tuple[str, ...]


_Target = _Sym | _Mod


class _FileIndex:
    """Name indexes of one parsed file, built once in ``set_file``."""

    __slots__ = (
        "caller_info",
        "dir",
        "family",
        "fid",
        "flat_calls",
        "inherits_by_child",
        "is_test",
        "methods",
        "nested",
        "nested_names",
        "package",
        "parsed",
        "path",
        "scoped_calls",
        "sids",
        "struct_key",
        "syms",
        "top_types",
    )

    def __init__(self, repo_id: str, parsed: ParsedFile) -> None:
        path = parsed.path
        self.parsed = parsed
        self.path = path
        self.fid = file_id(repo_id, path)
        self.family = _FAMILY.get(parsed.language, "py")
        self.dir = posixpath.dirname(path)
        self.is_test = self.family == "go" and path.endswith("_test.go")
        self.package = parsed.package

        syms: dict[str, ParsedSymbol] = {}
        for s in parsed.symbols:
            cur = syms.get(s.qualname)
            if cur is None or _RANK[s.kind] < _RANK[cur.kind]:
                syms[s.qualname] = s
        self.syms = syms
        self.sids = {q: symbol_id(repo_id, path, q, s.kind) for q, s in syms.items()}

        fn_parents: set[str] = set()  # functions with nested definitions
        nested_names: set[str] = set()
        for s in syms.values():
            if s.parent is not None:
                ps = syms.get(s.parent)
                if ps is not None and ps.kind in _CALLABLE:
                    fn_parents.add(s.parent)
                    nested_names.add(s.name)
        self.nested = bool(fn_parents)
        self.nested_names = frozenset(nested_names)

        info: dict[str, _CallerInfo] = {"": (self.fid, "", "", "")}
        methods: dict[str, list[tuple[str, str]]] = {}
        for q, s in syms.items():
            cls = self._enclosing_class(s)
            scope = "c:" + cls
            if fn_parents:
                a: ParsedSymbol | None = s
                while a is not None:
                    if a.qualname in fn_parents:
                        scope = "q:" + q
                        break
                    a = syms.get(a.parent) if a.parent is not None else None
            info[q] = (self.sids[q], scope, cls, q)
            if s.kind in _CALLABLE:
                owner = self._method_owner(s)
                if owner:
                    methods.setdefault(s.name, []).append((owner, q))
        self.caller_info = info
        self.methods = methods
        self._plan_calls(parsed.calls)

        by_child: dict[str, list[InheritRef]] = {}
        for ref in parsed.inherits:
            by_child.setdefault(ref.child, []).append(ref)
        self.inherits_by_child = by_child

        self.top_types: tuple[str, ...] = tuple(
            sorted(q for q, s in syms.items() if s.parent is None and "." not in q and s.kind in _CLASSLIKE)
        )
        if self.family == "java":
            self.struct_key: tuple[object, ...] = (parsed.language, self.package, self.top_types)
        elif self.family == "go":
            self.struct_key = (parsed.language, self.package)
        else:
            self.struct_key = (parsed.language,)

    def _plan_calls(self, calls: Iterable[CallRef]) -> None:
        """Group the calls by what their resolution depends on, so that ``edges_for``
        resolves each distinct callee once per file (or once per scope, see
        ``_scope_dependent``) and emits it for every distinct caller."""
        fam = self.family
        nested = self.nested_names
        deps: dict[str, bool] = {}
        flat: dict[str, dict[str, None]] = {}
        scoped: dict[tuple[str, str], tuple[_CallerInfo, dict[str, None]]] = {}
        info = self.caller_info
        for c in calls:
            callee = c.callee
            ci = info.get(c.caller) or self.info_for(c.caller)
            dep = deps.get(callee)
            if dep is None:
                dep = deps[callee] = _scope_dependent(fam, nested, _segments(callee))
            if not dep:
                flat.setdefault(callee, {})[ci[0]] = None
            else:
                entry = scoped.get((ci[1], callee))
                if entry is None:
                    scoped[(ci[1], callee)] = (ci, {ci[0]: None})
                else:
                    entry[1][ci[0]] = None
        self.flat_calls: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
            (callee, tuple(callers)) for callee, callers in flat.items()
        )
        self.scoped_calls: tuple[tuple[_CallerInfo, str, tuple[str, ...]], ...] = tuple(
            (ci, callee, tuple(callers)) for (_scope, callee), (ci, callers) in scoped.items()
        )

    def _enclosing_class(self, s: ParsedSymbol) -> str:
        a: ParsedSymbol | None = s
        while a is not None:
            if a.kind in _CLASSLIKE:
                return a.qualname
            a = self.syms.get(a.parent) if a.parent is not None else None
        if s.kind is SymbolKind.METHOD and "." in s.qualname:
            # Go receiver / Rust impl type declared in another file: ``Server.Handle``.
            return s.qualname.rsplit(".", 1)[0]
        return ""

    def _method_owner(self, s: ParsedSymbol) -> str:
        if s.parent is not None:
            ps = self.syms.get(s.parent)
            if ps is not None and ps.kind in _CLASSLIKE:
                return s.parent
        if s.kind is SymbolKind.METHOD and "." in s.qualname:
            return s.qualname.rsplit(".", 1)[0]
        return ""

    def info_for(self, caller: str) -> _CallerInfo:
        ci = self.caller_info.get(caller)
        if ci is not None:
            return ci
        q = caller
        while "." in q:  # e.g. a lambda or a symbol the parser did not report
            q = q.rsplit(".", 1)[0]
            ci = self.caller_info.get(q)
            if ci is not None:
                break
        else:
            ci = self.caller_info[""]
        self.caller_info[caller] = ci
        return ci


# --------------------------------------------------------------------------- imports


@dataclass(slots=True)
class _ImportCtx:
    """Resolved imports of one file, valid for one structural generation of the repo."""

    gen: int
    targets: tuple[str, ...]
    externals: tuple[str, ...]
    mod_bind: dict[str, tuple[str, ...]]
    sym_bind: dict[str, tuple[tuple[str, ...], str]]
    star: tuple[str, ...]
    ext_names: frozenset[str]
    keys: frozenset[str]


class _CtxBuilder:
    """Collects one file's resolved imports. The first binding of a local name wins
    (``try: from _c import x`` / ``except: from _py import x``, ``if posix: import posixpath
    as path`` ...); a binding into the repository always beats an external one."""

    __slots__ = ("ext_names", "externals", "files", "keys", "mod_bind", "star", "sym_bind", "targets")

    def __init__(self, files: Mapping[str, _FileIndex]) -> None:
        self.files = files
        self.targets: dict[str, None] = {}
        self.externals: dict[str, None] = {}
        self.mod_bind: dict[str, tuple[str, ...]] = {}
        self.sym_bind: dict[str, tuple[tuple[str, ...], str]] = {}
        self.star: dict[str, None] = {}
        self.ext_names: set[str] = set()
        self.keys: set[str] = set()

    def probe(self, candidates: Iterable[str]) -> str | None:
        """First existing candidate; every candidate probed is watched for dependents_of."""
        for c in candidates:
            self.keys.add(c)
            if c in self.files:
                return c
        return None

    def target(self, path: str) -> None:
        self.targets[path] = None

    def build(self, gen: int, own: str) -> _ImportCtx:
        self.targets.pop(own, None)
        return _ImportCtx(
            gen=gen,
            targets=tuple(self.targets),
            externals=tuple(self.externals),
            mod_bind=self.mod_bind,
            sym_bind=self.sym_bind,
            star=tuple(p for p in self.star if p != own),
            ext_names=frozenset(self.ext_names - self.sym_bind.keys() - self.mod_bind.keys()),
            keys=frozenset(self.keys),
        )


def _py_candidates(base: str, segs: list[str]) -> list[str]:
    p = "/".join([base, *segs]) if base else "/".join(segs)
    if not segs:
        pre = f"{base}/" if base else ""
        return [f"{pre}__init__.py", f"{pre}__init__.pyi"]
    return [f"{p}.py", f"{p}.pyi", f"{p}/__init__.py", f"{p}/__init__.pyi"]


def _py_probe(b: _CtxBuilder, bases: tuple[str, ...], segs: list[str]) -> str | None:
    """The file of dotted module ``segs`` under the first import root that has it."""
    for base in bases:
        found = b.probe(_py_candidates(base, segs))
        if found:
            return found
    return None


def _py_import(r: RepoResolver, fi: _FileIndex, imp: ImportRef, b: _CtxBuilder) -> None:
    spec = imp.module
    if spec.startswith("."):
        rest = spec.lstrip(".")
        d: str | None = fi.dir
        for _ in range(len(spec) - len(rest) - 1):
            if not d:
                d = None
                break
            d = posixpath.dirname(d)
        bases: tuple[str, ...] = () if d is None else (d,)
    else:
        rest = spec
        bases = r._py_bases(fi, b)
    segs = rest.split(".") if rest else []
    mod_file = _py_probe(b, bases, segs) if segs or spec.startswith(".") else None
    resolved = mod_file is not None
    if mod_file:
        b.target(mod_file)
    names = imp.names
    if not names:  # import a.b [as x]
        if mod_file:
            if imp.alias:
                b.mod_bind.setdefault(imp.alias, (mod_file,))
            else:
                b.mod_bind.setdefault(rest, (mod_file,))
                if len(segs) > 1 and segs[0] not in b.mod_bind:
                    pkg = _py_probe(b, bases, segs[:1])
                    if pkg:
                        b.mod_bind[segs[0]] = (pkg,)
        else:
            # `import os.path` with only os.py in the repository (a module attribute): the
            # longest existing prefix module is what gets imported.
            for i in range(len(segs) - 1, 0, -1):
                prefix = _py_probe(b, bases, segs[:i])
                if prefix:
                    b.target(prefix)
                    resolved = True
                    if not imp.alias:
                        b.mod_bind.setdefault(".".join(segs[:i]), (prefix,))
                        head = prefix if i == 1 else _py_probe(b, bases, segs[:1])
                        if head:
                            b.mod_bind.setdefault(segs[0], (head,))
                    break
            if not resolved:
                b.ext_names.add(imp.alias or (segs[0] if segs else spec))
    else:
        for n in names:
            local = imp.alias if imp.alias and len(names) == 1 else n
            if n == "*":
                if mod_file:
                    b.star[mod_file] = None
                continue
            sub = _py_probe(b, bases, [*segs, n])
            if sub:
                b.target(sub)
                b.mod_bind.setdefault(local, (sub,))
                resolved = True
            elif mod_file:
                b.sym_bind.setdefault(local, ((mod_file,), n))
            else:
                b.ext_names.add(local)
    if not resolved:
        b.externals[spec] = None


def _js_candidates(base: str) -> list[str]:
    out: list[str] = []
    ext = posixpath.splitext(base)[1]
    if ext and base:
        out.append(base)
        if ext in (".js", ".jsx", ".mjs", ".cjs"):
            stem = base[: -len(ext)]
            out.extend((stem + ".ts", stem + ".tsx", stem + ".d.ts"))
    if base:
        out.extend(base + e for e in _JS_EXTS)
    pre = f"{base}/" if base else ""
    out.extend(f"{pre}index{e}" for e in _JS_EXTS)
    return out


def _js_import(r: RepoResolver, fi: _FileIndex, imp: ImportRef, b: _CtxBuilder) -> None:
    spec = imp.module
    target = None
    if spec.startswith(("./", "../")) or spec in (".", ".."):
        base = _norm(posixpath.join(fi.dir, spec))
        if base != ".." and not base.startswith("../"):
            target = b.probe(_js_candidates(base))
    elif spec.startswith("/"):
        target = b.probe(_js_candidates(_norm(spec.lstrip("/"))))
    else:
        for base in r._js_bare_bases(spec):
            target = b.probe(_js_candidates(base))
            if target:
                break
    names = imp.names
    if target is None:
        b.externals[spec] = None
        if imp.alias:
            b.ext_names.add(imp.alias)
        b.ext_names.update(n for n in names if n not in ("*", "default"))
        return
    b.target(target)
    if not names and imp.alias:
        b.mod_bind.setdefault(imp.alias, (target,))
    for n in names:
        if n == "*":
            if imp.alias:
                b.mod_bind.setdefault(imp.alias, (target,))
            else:
                b.star[target] = None
        elif n == "default":
            if imp.alias:
                b.sym_bind.setdefault(imp.alias, ((target,), "default"))
        else:
            local = imp.alias if imp.alias and len(names) == 1 else n
            b.sym_bind.setdefault(local, ((target,), n))


def _go_import(r: RepoResolver, fi: _FileIndex, imp: ImportRef, b: _CtxBuilder) -> None:
    spec = imp.module
    d = r._go_dir_for(spec)
    files: list[str] = []
    if d is not None:
        b.keys.add("dir:" + d)
        files = sorted(
            p for p in r._dirs.get(d, ()) if p.endswith(".go") and (fi.is_test or not p.endswith("_test.go"))
        )
    last = spec.rstrip("/").rsplit("/", 1)[-1]
    if re.fullmatch(r"v\d+", last) and "/" in spec:
        last = spec.rstrip("/").rsplit("/", 2)[-2]
    if not files:
        b.externals[spec] = None
        if imp.alias not in (".", "_"):
            b.ext_names.add(imp.alias or last)
        return
    for p in files:
        b.target(p)
    if imp.alias == ".":
        for p in files:
            b.star[p] = None
    elif imp.alias != "_":
        name = imp.alias
        if not name:
            pkgs = [r._files[p].package for p in files if not p.endswith("_test.go")]
            name = next((p for p in pkgs if p), None) or last
        b.mod_bind.setdefault(name, tuple(files))


def _rs_import(r: RepoResolver, fi: _FileIndex, imp: ImportRef, b: _CtxBuilder) -> None:
    if imp.is_mod_decl:
        f = b.probe(r._rs_mod_decl_candidates(fi.path, imp.module))
        if f:
            b.target(f)
            b.mod_bind.setdefault(imp.alias or imp.module, (f,))
        else:
            b.externals[imp.module] = None
        return
    segs = [s for s in imp.module.split("::") if s]
    names = imp.names or ()
    resolved = False
    if not segs:  # `use foo;` / `use {a, b};` : each name is a whole path
        for n in names:
            loc = r._rs_locate(fi, [n], b)
            local = imp.alias if imp.alias and len(names) == 1 else n
            if loc is not None and not loc[2]:
                b.target(loc[1])
                b.mod_bind.setdefault(local, (loc[1],))
                resolved = True
            else:
                b.ext_names.add(local)
        if not resolved:
            b.externals["::".join(names) or imp.module] = None
        return
    loc = r._rs_locate(fi, segs, b)
    if loc is None:
        b.externals[imp.module] = None
        for n in names:
            b.ext_names.add(imp.alias if imp.alias and len(names) == 1 else (segs[-1] if n == "self" else n))
        return
    croot, f, leftover, modpath = loc
    b.target(f)
    for n in names:
        if n == "*":
            if not leftover:
                b.star[f] = None
            continue
        if n == "self":
            local = imp.alias if imp.alias and len(names) == 1 else segs[-1]
            if not leftover:
                b.mod_bind.setdefault(local, (f,))
            else:
                b.sym_bind.setdefault(local, ((f,), ".".join(leftover)))
            continue
        local = imp.alias if imp.alias and len(names) == 1 else n
        sub = None if leftover else r._rs_module_file(croot, [*modpath, n], b)
        if sub:
            b.target(sub)
            b.mod_bind.setdefault(local, (sub,))
        else:
            b.sym_bind.setdefault(local, ((f,), ".".join([*leftover, n])))


def _java_import(r: RepoResolver, fi: _FileIndex, imp: ImportRef, b: _CtxBuilder) -> None:
    pkg = imp.module
    b.keys.add("javapkg:" + pkg)
    outer_pkg, _, outer = pkg.rpartition(".")
    resolved = False
    for n in imp.names:
        if n == "*":
            files = sorted(r._java_pkg.get(pkg, ()))
            if files:
                for p in files:
                    b.target(p)
                    b.star[p] = None
                resolved = True
                continue
            # `import static p.Util.*` / `import p.Outer.*`: the outer type's file.
            b.keys.add("javapkg:" + outer_pkg)
            files = sorted(r._java_types.get((outer_pkg, outer), ()))
            for p in files:
                b.target(p)
            resolved = resolved or bool(files)
            continue
        files = sorted(r._java_types.get((pkg, n), ()))
        qual = n
        if not files and outer:
            b.keys.add("javapkg:" + outer_pkg)
            files = sorted(r._java_types.get((outer_pkg, outer), ()))
            qual = f"{outer}.{n}"
        if files:
            for p in files:
                b.target(p)
            b.sym_bind.setdefault(n, (tuple(files), qual))
            resolved = True
        else:
            b.ext_names.add(n)
    if not resolved:
        b.externals[pkg] = None


_IMPORTERS = {
    "py": _py_import,
    "js": _js_import,
    "go": _go_import,
    "rs": _rs_import,
    "java": _java_import,
}


# --------------------------------------------------------------------------- resolver


class RepoResolver:
    """Holds a repository's parsed files and resolves them into edges (see module doc)."""

    def __init__(self, repo_id: str, facts: RepoFacts) -> None:
        self._repo_id = repo_id
        self._files: dict[str, _FileIndex] = {}
        self._dirs: dict[str, set[str]] = {}
        self._java_pkg: dict[str, set[str]] = {}
        self._java_types: dict[tuple[str, str], set[str]] = {}
        #: method name -> {(path, owner class key): qualname}
        self._methods: dict[str, dict[tuple[str, str], str]] = {}
        self._ctxs: dict[str, _ImportCtx] = {}
        self._watchers: dict[str, set[str]] = {}
        self._consulted: dict[str, frozenset[str]] = {}
        self._consulted_by: dict[str, set[str]] = {}
        self._former_java_pkg: dict[str, str] = {}
        self._gen = 0
        self._rs_roots_gen = -1
        self._rs_roots: list[tuple[str, str]] = []
        self._rs_root_set: set[str] = set()
        self._facts = facts
        self._go_mods: list[tuple[str, str]] = []
        self.set_facts(facts)

    # ----------------------------------------------------------------- public API

    def set_facts(self, facts: RepoFacts) -> None:
        self._facts = facts
        self._go_mods = sorted(
            ((mp.rstrip("/"), d) for d, mp in facts.go_modules.items()), key=lambda x: (-len(x[0]), x)
        )
        self._gen += 1

    def set_file(self, parsed: ParsedFile) -> None:
        """Add or replace a file's parse."""
        path = parsed.path
        old = self._files.get(path)
        fi = _FileIndex(self._repo_id, parsed)
        if old is not None:
            self._unindex(old)
        self._files[path] = fi
        self._index(fi)
        if old is not None and old.family == "java" and old.package != fi.package:
            self._former_java_pkg[path] = old.package or ""
        self._drop_ctx(path)
        if old is None:
            self._path_appeared_or_vanished(fi)
        elif old.struct_key != fi.struct_key:
            self._invalidate(self._structural_keys(old) | self._structural_keys(fi))

    def remove_file(self, path: str) -> None:
        old = self._files.pop(path, None)
        if old is None:
            return
        self._unindex(old)
        self._drop_ctx(path)
        self._set_consulted(path, frozenset())
        if old.family == "java":
            self._former_java_pkg[path] = old.package or ""
        self._path_appeared_or_vanished(old)

    def paths(self) -> set[str]:
        return set(self._files)

    def edges_for(self, paths: Iterable[str]) -> ResolvedEdges:
        """Outgoing edges of ``paths`` (unknown paths are ignored)."""
        acc = _Acc()
        run = _Pass(self)
        for path in sorted(set(paths)):
            fi = self._files.get(path)
            if fi is not None:
                run.file_edges(fi, acc)
                self._set_consulted(path, frozenset(run.seen))
        return acc.build()

    def all_edges(self) -> ResolvedEdges:
        return self.edges_for(self._files)

    def dependents_of(self, paths: Iterable[str]) -> set[str]:
        """Files (other than ``paths``) whose resolution may change when ``paths`` change,
        appear or disappear. Call after ``set_file``/``remove_file`` of ``paths``."""
        for each in list(self._files.values()):
            self._ctx_of(each)
        ps = set(paths)
        keys: set[str] = set(ps)
        for p in ps:
            if p.endswith(".go"):
                keys.add("dir:" + posixpath.dirname(p))
            fi = self._files.get(p)
            if fi is not None and fi.family == "java":
                keys.add("javapkg:" + (fi.package or ""))
            if p in self._former_java_pkg:  # removed, or moved to another package
                keys.add("javapkg:" + self._former_java_pkg[p])
        out: set[str] = set()
        for k in keys:
            out |= self._watchers.get(k, set())
        for p in ps:
            out |= self._consulted_by.get(p, set())
        return {p for p in out if p in self._files} - ps

    # ----------------------------------------------------------------- indexes

    def _index(self, fi: _FileIndex) -> None:
        self._dirs.setdefault(fi.dir, set()).add(fi.path)
        if fi.family == "java":
            pkg = fi.package or ""
            self._java_pkg.setdefault(pkg, set()).add(fi.path)
            for t in fi.top_types:
                self._java_types.setdefault((pkg, t), set()).add(fi.path)
        for name, entries in fi.methods.items():
            d = self._methods.setdefault(name, {})
            for owner, q in entries:
                d.setdefault((fi.path, owner), q)

    def _unindex(self, fi: _FileIndex) -> None:
        _discard(self._dirs, fi.dir, fi.path)
        if fi.family == "java":
            pkg = fi.package or ""
            _discard(self._java_pkg, pkg, fi.path)
            for t in fi.top_types:
                _discard(self._java_types, (pkg, t), fi.path)
        for name, entries in fi.methods.items():
            d = self._methods.get(name)
            if d is None:
                continue
            for owner, _q in entries:
                d.pop((fi.path, owner), None)
            if not d:
                del self._methods[name]

    @staticmethod
    def _structural_keys(fi: _FileIndex) -> set[str]:
        """Watch keys of the import contexts that may change when ``fi`` appears, vanishes
        or changes its package / top-level types."""
        keys = {fi.path}
        if fi.family == "go":
            keys.add("dir:" + fi.dir)
        elif fi.family == "java":
            keys.add("javapkg:" + (fi.package or ""))
        return keys

    def _path_appeared_or_vanished(self, fi: _FileIndex) -> None:
        base = posixpath.basename(fi.path)
        if fi.family == "rs" and (base in ("lib.rs", "main.rs") or fi.path in self._facts.rust_crate_roots):
            self._gen += 1  # the crate roots may change: every Rust path may map differently
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
                _discard(self._watchers, k, path)

    def _set_consulted(self, path: str, seen: frozenset[str]) -> None:
        seen = seen - {path}
        old = self._consulted.get(path, frozenset())
        if old == seen:
            return
        for p in old - seen:
            _discard(self._consulted_by, p, path)
        for p in seen - old:
            self._consulted_by.setdefault(p, set()).add(path)
        if seen:
            self._consulted[path] = seen
        else:
            self._consulted.pop(path, None)

    def _ctx_of(self, fi: _FileIndex) -> _ImportCtx:
        ctx = self._ctxs.get(fi.path)
        if ctx is not None and ctx.gen == self._gen:
            return ctx
        b = _CtxBuilder(self._files)
        importer = _IMPORTERS.get(fi.family)
        if importer is not None:
            for imp in fi.parsed.imports:
                importer(self, fi, imp, b)
        if fi.family == "go":
            b.keys.add("dir:" + fi.dir)
        elif fi.family == "java":
            b.keys.add("javapkg:" + (fi.package or ""))
        new = b.build(self._gen, fi.path)
        self._drop_ctx(fi.path)
        self._ctxs[fi.path] = new
        for k in new.keys:
            self._watchers.setdefault(k, set()).add(fi.path)
        return new

    # ----------------------------------------------------------------- language helpers

    def _py_bases(self, fi: _FileIndex, b: _CtxBuilder) -> tuple[str, ...]:
        """Import roots for absolute imports of ``fi``: the configured roots, plus the file's
        own directory when that is not a package (scripts, test dirs: ``sys.path[0]``)."""
        roots = self._facts.python_roots or ("",)
        d = fi.dir
        if d not in roots and b.probe((f"{d}/__init__.py", f"{d}/__init__.pyi")) is None:
            return (*roots, d)
        return tuple(roots)

    def _js_bare_bases(self, spec: str) -> list[str]:
        out: list[str] = []
        aliases = self._facts.js_path_aliases
        for pattern in sorted(aliases, key=lambda p: (-len(p.split("*", 1)[0]), p)):
            pre, star, post = pattern.partition("*")
            if star:
                if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
                    mid = spec[len(pre) : len(spec) - len(post)]
                    out.extend(_norm(t.replace("*", mid)) for t in aliases[pattern])
            elif spec == pattern:
                out.extend(_norm(t) for t in aliases[pattern])
        out.extend(_norm(posixpath.join(d, spec)) for d in self._facts.js_base_dirs)
        return [o for o in out if o != ".." and not o.startswith("../")]

    def _go_dir_for(self, spec: str) -> str | None:
        for mp, d in self._go_mods:
            if spec == mp:
                return d
            if spec.startswith(mp + "/"):
                return _norm(posixpath.join(d, spec[len(mp) + 1 :]))
        return None

    def _rs_roots_list(self) -> list[tuple[str, str]]:
        if self._rs_roots_gen != self._gen:
            roots = [p for p in self._facts.rust_crate_roots if p in self._files]
            if not roots:
                roots = [p for p in self._files if posixpath.basename(p) in ("lib.rs", "main.rs")]
            self._rs_root_set = set(roots)
            self._rs_roots = sorted(
                ((posixpath.dirname(p), p) for p in roots),
                key=lambda x: (-len(x[0]), not x[1].endswith("lib.rs"), x[1]),
            )
            self._rs_roots_gen = self._gen
        return self._rs_roots

    def _rs_root_of(self, path: str) -> str:
        """The crate root whose directory contains ``path`` (the file itself if none)."""
        roots = self._rs_roots_list()
        if path in self._rs_root_set:
            return path
        for d, root in roots:
            if not d or path.startswith(d + "/"):
                return root
        return path

    def _rs_modpath(self, path: str, root: str) -> list[str]:
        if path == root:
            return []
        d = posixpath.dirname(root)
        rel = path[len(d) + 1 :] if d else path
        parts = rel[:-3].split("/") if rel.endswith(".rs") else rel.split("/")
        if parts and parts[-1] == "mod":
            parts.pop()
        return parts

    def _rs_module_file(self, root: str, modpath: list[str], b: _CtxBuilder | None) -> str | None:
        if not modpath:
            return root if root in self._files else None
        d = posixpath.dirname(root)
        base = "/".join([d, *modpath]) if d else "/".join(modpath)
        cands = (base + ".rs", base + "/mod.rs")
        if b is not None:
            return b.probe(cands)
        return next((c for c in cands if c in self._files), None)

    def _rs_mod_decl_candidates(self, path: str, name: str) -> list[str]:
        d = posixpath.dirname(path)
        base = posixpath.basename(path)
        self._rs_roots_list()
        if not (base in ("mod.rs", "lib.rs", "main.rs") or path in self._rs_root_set):
            d = posixpath.join(d, base[:-3] if base.endswith(".rs") else base)
        stem = posixpath.join(d, name)
        return [stem + ".rs", stem + "/mod.rs"]

    def _rs_locate(
        self, fi: _FileIndex, segs: list[str], b: _CtxBuilder | None
    ) -> tuple[str, str, list[str], list[str]] | None:
        """Map a Rust path to (crate root, module file, leftover item segments, module path),
        using the longest module prefix that exists; None for external crates."""
        if not segs:
            return None
        root = self._rs_root_of(fi.path)
        cur = self._rs_modpath(fi.path, root)
        s0 = segs[0]
        croot = root
        if s0 == "crate":
            base, rest = [], segs[1:]
        elif s0 in ("self", "super"):
            base = list(cur)
            i = 0
            while i < len(segs) and segs[i] in ("self", "super"):
                if segs[i] == "super":
                    if not base:
                        return None
                    base.pop()
                i += 1
            rest = segs[i:]
        elif s0 in self._facts.rust_crate_names and self._facts.rust_crate_names[s0] in self._files:
            croot = self._facts.rust_crate_names[s0]
            base, rest = [], segs[1:]
        elif self._rs_module_file(root, [*cur, s0], b) is not None:
            base, rest = list(cur), segs
        else:
            return None
        for j in range(len(rest), -1, -1):
            mp = base + rest[:j]
            f = self._rs_module_file(croot, mp, b)
            if f is not None:
                return croot, f, rest[j:], mp
        return None


def _discard(index: dict[Any, set[str]], key: Any, value: str) -> None:
    s = index.get(key)
    if s is not None:
        s.discard(value)
        if not s:
            del index[key]


# --------------------------------------------------------------------------- edge pass


class _Acc:
    __slots__ = ("calls", "ext", "imports", "inherits", "unres_calls", "unres_inherits")

    def __init__(self) -> None:
        self.imports: list[tuple[str, str]] = []
        self.ext: list[tuple[str, str]] = []
        self.calls: list[tuple[str, str]] = []
        self.unres_calls: list[tuple[str, str]] = []
        self.inherits: list[tuple[str, str, InheritKind]] = []
        self.unres_inherits: list[tuple[str, str, InheritKind]] = []

    def build(self) -> ResolvedEdges:
        return ResolvedEdges(
            imports=tuple(dict.fromkeys(self.imports)),
            external_imports=tuple(dict.fromkeys(self.ext)),
            calls=tuple(dict.fromkeys(self.calls)),
            unresolved_calls=tuple(dict.fromkeys(self.unres_calls)),
            inherits=tuple(dict.fromkeys(self.inherits)),
            unresolved_inherits=tuple(dict.fromkeys(self.unres_inherits)),
        )


_CLEAN_RE = re.compile(r"\([^()]*\)|<[^<>]*>|\[[^\[\]]*\]")
_SEG_RE = re.compile(r"[\w$]+")
_DOTTED_RE = re.compile(r"[^\W\d]\w*(?:(?:\.|::)[^\W\d]\w*)*")
_MAX_DEPTH = 8


@functools.lru_cache(maxsize=1 << 16)
def _segments(text: str) -> tuple[str, ...]:
    """``a.b::c`` -> ``("a", "b", "c")``; ``()`` when not a plain name path (macros, ...)."""
    if text.isidentifier():
        return (text,)
    if _DOTTED_RE.fullmatch(text):
        return tuple(text.replace("::", ".").split("."))
    t = text.strip()
    if "(" in t or "<" in t or "[" in t:
        prev = ""
        while prev != t:
            prev, t = t, _CLEAN_RE.sub("", t)
    t = t.replace("::", ".").replace("?.", ".").replace("!.", ".")
    segs = [s.strip() for s in t.split(".")]
    segs = [s for s in segs if s]
    if not segs or not all(s.isidentifier() or _SEG_RE.fullmatch(s) for s in segs):
        return ()
    return tuple(segs)


def _scope_dependent(family: str, nested_names: frozenset[str], segs: tuple[str, ...]) -> bool:
    """Whether resolving a callee may depend on the calling scope (else it is memoised per
    file by its text alone)."""
    if family == "java":
        return True
    if not segs:
        return False
    head = segs[0]
    return (
        head in _SELF_NAMES[family]
        or head in _SUPER_NAMES[family]
        or head in nested_names
        or (family == "go" and len(segs) > 1)
    )


class _Pass:
    """One resolution run (``edges_for``/``all_edges``) with its memo tables."""

    __slots__ = (
        "bases_memo",
        "dir_memo",
        "files",
        "guess_memo",
        "r",
        "reexport_memo",
        "seen",
    )

    def __init__(self, r: RepoResolver) -> None:
        self.r = r
        self.files = r._files
        self.bases_memo: dict[_Sym, tuple[tuple[_Sym, ...], frozenset[str]]] = {}
        self.dir_memo: dict[tuple[str, bool], tuple[str, ...]] = {}
        self.seen: set[str] = set()
        self.guess_memo: dict[tuple[str, str], _Sym | None] = {}
        self.reexport_memo: dict[tuple[str, str], tuple[_Target | None, frozenset[str]]] = {}

    # ----------------------------------------------------------------- per file

    def file_edges(self, fi: _FileIndex, acc: _Acc) -> None:
        self.seen = set()
        ctx = self.r._ctx_of(fi)
        fid = fi.fid
        files = self.files
        for t in ctx.targets:
            acc.imports.append((fid, files[t].fid))
        for m in ctx.externals:
            acc.ext.append((fid, m))

        calls_out = acc.calls
        unres_out = acc.unres_calls
        file_level = fi.caller_info[""]
        for callee, callers in fi.flat_calls:
            target = self.resolve_call(fi, ctx, file_level, callee, _segments(callee))
            if target is None:
                unres_out.extend([(c, callee) for c in callers])
            else:
                calls_out.extend([(c, target) for c in callers])
        for ci, callee, callers in fi.scoped_calls:
            target = self.resolve_call(fi, ctx, ci, callee, _segments(callee))
            if target is None:
                unres_out.extend([(c, callee) for c in callers])
            else:
                calls_out.extend([(c, target) for c in callers])

        for ref in fi.parsed.inherits:
            self.inherit_edge(fi, ctx, ref, acc)

    def sid(self, t: _Sym) -> str:
        return self.files[t[0]].sids[t[1]]

    def resolve_call(
        self, fi: _FileIndex, ctx: _ImportCtx, ci: _CallerInfo, callee: str, segs: tuple[str, ...]
    ) -> str | None:
        if not segs:
            return None
        if len(segs) == 1:
            t = self.resolve_name(fi, ctx, ci[3], segs[0])
            return self.sid(t) if isinstance(t, tuple) else None
        t, guess = self.resolve_dotted(fi, ctx, ci[3], ci[2], callee, segs)
        if t is None and guess:
            t = self.guess_method(fi, ctx, segs[-1])
        return self.sid(t) if isinstance(t, tuple) else None

    def inherit_edge(self, fi: _FileIndex, ctx: _ImportCtx, ref: InheritRef, acc: _Acc) -> None:
        child = fi.syms.get(ref.child)
        if child is not None:
            child_id = fi.sids[ref.child]
            scope = child.parent or ""
            exclude = ref.child
        else:
            ct = self.resolve_type(fi, ctx, "", ref.child, None)
            child_id = self.sid(ct) if ct is not None else fi.fid
            scope, exclude = "", None
        t = self.resolve_type(fi, ctx, scope, ref.parent, exclude)
        if t is None or child_id == fi.fid:
            # (an impl for a type that is not in the repository is kept as a reference
            # from the file)
            acc.unres_inherits.append((child_id, ref.parent, ref.kind))
        else:
            acc.inherits.append((child_id, self.sid(t), ref.kind))

    def resolve_type(self, fi: _FileIndex, ctx: _ImportCtx, scope: str, text: str, exclude: str | None) -> _Sym | None:
        """A class-like symbol named by ``text`` as seen from ``scope`` of ``fi``."""
        t = text.strip()
        for prefix in ("dyn ", "impl ", "typeof "):
            if t.startswith(prefix):
                t = t[len(prefix) :]
        segs = _segments(t)
        if not segs:
            return None
        target: _Target | None
        if len(segs) == 1:
            target = self.resolve_name(fi, ctx, scope, segs[0], exclude)
        else:
            target, _ = self.resolve_dotted(fi, ctx, scope, "", t, segs)
        if isinstance(target, tuple) and self.files[target[0]].syms[target[1]].kind in _CLASSLIKE:
            return target
        return None

    # ----------------------------------------------------------------- names

    def resolve_name(
        self, fi: _FileIndex, ctx: _ImportCtx, caller: str, name: str, exclude: str | None = None
    ) -> _Target | None:
        syms = fi.syms
        fam = fi.family
        if caller and (fi.nested or fam == "java"):
            q = caller
            while q:
                s = syms.get(q)
                if s is None:
                    break
                if s.kind in _CALLABLE:
                    cand = f"{q}.{name}"
                    if cand in syms:
                        return (fi.path, cand)
                elif fam == "java" and s.kind in _CLASSLIKE:
                    if s.name == name:  # the class itself, not its constructor
                        return (fi.path, q)
                    m = self.member_of((fi.path, q), name, set())
                    if m is not None:
                        return m
                q = s.parent or ""
        s = syms.get(name)
        if s is not None and s.parent is None and name != exclude:
            return (fi.path, name)
        bound = ctx.sym_bind.get(name)
        if bound is not None:
            for p in bound[0]:
                t = self.lookup(p, bound[1], 0, name)
                if t is not None:
                    return t
            # a default import whose default export is not a known symbol (CommonJS
            # ``module.exports = {...}``): use the module itself.
            return _Mod(bound[0]) if bound[1] == "default" else None
        mods = ctx.mod_bind.get(name)
        if mods is not None:
            return _Mod(mods)
        if name in ctx.ext_names:
            return None
        for p in ctx.star:
            t = self.lookup(p, name, 1)
            if t is not None:
                return t
        if fam == "go" or fam == "java":
            for p in self.package_files(fi):
                other = self.files[p]
                os_ = other.syms.get(name)
                if os_ is not None and os_.parent is None:
                    self.seen.add(p)
                    return (p, name)
        return None

    def package_files(self, fi: _FileIndex) -> tuple[str, ...]:
        key = (fi.dir if fi.family == "go" else "\0" + (fi.package or ""), fi.is_test)
        got = self.dir_memo.get(key)
        if got is None:
            if fi.family == "go":
                got = tuple(
                    sorted(
                        p
                        for p in self.r._dirs.get(fi.dir, ())
                        if p.endswith(".go") and (fi.is_test or not p.endswith("_test.go"))
                    )
                )
            else:
                got = tuple(sorted(self.r._java_pkg.get(fi.package or "", ())))
            self.dir_memo[key] = got
        return tuple(p for p in got if p != fi.path)

    def lookup(self, path: str, name: str, depth: int, local: str | None = None) -> _Target | None:
        """``name`` (possibly dotted) as exported by the file ``path``."""
        fi = self.files.get(path)
        if fi is None:
            return None
        self.seen.add(path)
        syms = fi.syms
        if "." in name:
            if name in syms:
                return (path, name)
            head, _, rest = name.partition(".")
            t = self.lookup(path, head, depth)
            if isinstance(t, tuple):
                return self.resolve_member(t, rest.split("."))
            if isinstance(t, _Mod):
                return self.resolve_in_files(t.paths, rest.split("."))
            return None
        s = syms.get(name)
        if s is not None and s.parent is None:
            return (path, name)
        if name == "default":
            if local:
                s = syms.get(local)
                if s is not None and s.parent is None:
                    return (path, local)
            tops = [q for q, x in syms.items() if x.parent is None and "." not in q and x.kind is not SymbolKind.MODULE]
            return (path, tops[0]) if len(tops) == 1 else None
        if depth >= _MAX_DEPTH or fi.family not in _REEXPORTING:
            return None
        key = (path, name)
        got = self.reexport_memo.get(key)
        if got is not None:  # also breaks import cycles: in progress -> not found
            self.seen |= got[1]
            return got[0]
        self.reexport_memo[key] = (None, frozenset())
        outer = self.seen
        self.seen = set()
        res = self.reexported(fi, name, depth)
        seen = frozenset(self.seen)
        outer |= seen
        self.seen = outer
        self.reexport_memo[key] = (res, seen)
        return res

    def reexported(self, fi: _FileIndex, name: str, depth: int) -> _Target | None:
        """``name`` as bound in ``fi`` by its imports (re-exports, star imports)."""
        path = fi.path
        ctx = self.r._ctx_of(fi)
        bound = ctx.sym_bind.get(name)
        if bound is not None:
            for p in bound[0]:
                t = self.lookup(p, bound[1], depth + 1, name)
                if t is not None:
                    return t
        mods = ctx.mod_bind.get(name)
        if mods is not None:
            return _Mod(mods)
        if fi.family == "py" and posixpath.basename(path).startswith("__init__."):
            pre = f"{fi.dir}/{name}" if fi.dir else name
            for c in (f"{pre}.py", f"{pre}.pyi", f"{pre}/__init__.py", f"{pre}/__init__.pyi"):
                if c in self.files:
                    return _Mod((c,))
        for p in ctx.star:
            t = self.lookup(p, name, depth + 1)
            if t is not None:
                return t
        return None

    def resolve_in_files(self, paths: tuple[str, ...], rest: Sequence[str]) -> _Target | None:
        for p in paths:
            t = self.lookup(p, rest[0], 0)
            if t is None:
                continue
            if len(rest) == 1:
                return t
            t2 = self.resolve_in_files(t.paths, rest[1:]) if isinstance(t, _Mod) else self.resolve_member(t, rest[1:])
            if t2 is not None:
                return t2
        return None

    def resolve_member(self, sym: _Sym, rest: Sequence[str]) -> _Sym | None:
        path, qual = sym
        syms = self.files[path].syms
        q = qual + "." + ".".join(rest)
        if q in syms:
            return (path, q)
        if len(rest) == 1:
            return self.member_of(sym, rest[0], set())
        head = self.member_of(sym, rest[0], set())
        return self.resolve_member(head, rest[1:]) if head is not None else None

    def member_of(self, sym: _Sym, name: str, visited: set[_Sym]) -> _Sym | None:
        """Member ``name`` of class ``sym``, looking through its bases (and, for Go/Rust,
        methods of the type declared in other files)."""
        path, qual = sym
        q = f"{qual}.{name}"
        fi = self.files[path]
        if q in fi.syms:
            return (path, q)
        visited.add(sym)
        if qual in fi.syms and fi.syms[qual].kind in _CLASSLIKE:
            for base in self.bases(sym):
                if base not in visited:
                    t = self.member_of(base, name, visited)
                    if t is not None:
                        return t
        if fi.family in ("go", "rs"):
            return self.type_method(fi, qual, name)
        return None

    def type_method(self, fi: _FileIndex, type_key: str, name: str) -> _Sym | None:
        entries = self.r._methods.get(name)
        if not entries:
            return None
        found = [
            (p, q)
            for (p, owner), q in entries.items()
            if owner == type_key and (fi.family != "go" or posixpath.dirname(p) == fi.dir)
        ]
        if len(found) == 1:
            self.seen.add(found[0][0])
            return found[0]
        return None

    def bases(self, sym: _Sym) -> tuple[_Sym, ...]:
        got = self.bases_memo.get(sym)
        if got is not None:
            self.seen |= got[1]
            return got[0]
        self.bases_memo[sym] = ((), frozenset())  # cycle guard
        outer = self.seen
        self.seen = {sym[0]}
        fi = self.files[sym[0]]
        out: list[_Sym] = []
        refs = fi.inherits_by_child.get(sym[1])
        if refs:
            ctx = self.r._ctx_of(fi)
            s = fi.syms.get(sym[1])
            scope = (s.parent or "") if s is not None else ""
            for ref in refs:
                t = self.resolve_type(fi, ctx, scope, ref.parent, sym[1])
                if t is not None and t != sym and t not in out:
                    out.append(t)
        seen = frozenset(self.seen)
        outer |= seen
        self.seen = outer
        res = tuple(out)
        self.bases_memo[sym] = (res, seen)
        return res

    # ----------------------------------------------------------------- dotted & heuristics

    def resolve_dotted(
        self, fi: _FileIndex, ctx: _ImportCtx, caller: str, cls: str, text: str, segs: tuple[str, ...]
    ) -> tuple[_Target | None, bool]:
        """Resolve ``a.b.c``; the flag says whether heuristic (4) may still be tried."""
        fam = fi.family
        head = segs[0]
        if fam == "rs" and "::" in text and head in ("crate", "self", "super"):
            loc = self.r._rs_locate(fi, list(segs), None)
            if loc is not None and loc[2]:
                self.seen.add(loc[1])
                return self.resolve_in_files((loc[1],), loc[2]), False
            return None, False
        if head in _SELF_NAMES[fam] and not (fam == "rs" and head == "self" and "::" in text):
            if cls and len(segs) == 2:
                return self.self_method(fi, cls, segs[1]), False
            return None, len(segs) > 2
        if head in _SUPER_NAMES[fam]:
            if cls and len(segs) == 2 and cls in fi.syms:
                for base in self.bases((fi.path, cls)):
                    inherited = self.member_of(base, segs[1], set())
                    if inherited is not None:
                        return inherited, False
            return None, False
        mod_bind = ctx.mod_bind
        if mod_bind:
            for i in range(len(segs) - 1, 0, -1):
                paths = mod_bind.get(head if i == 1 else ".".join(segs[:i]))
                if paths is not None:
                    return self.resolve_in_files(paths, segs[i:]), False
        if head in ctx.ext_names:
            return None, False
        t = self.resolve_name(fi, ctx, caller, head)
        if t is None:
            if fam == "go" and cls and len(segs) == 2:
                m = self.self_method(fi, cls, segs[1])
                if m is not None:
                    return m, False
            return None, "::" not in text and not head[:1].isupper()
        if isinstance(t, _Mod):
            return self.resolve_in_files(t.paths, segs[1:]), False
        kind = self.files[t[0]].syms[t[1]].kind
        if kind in _CLASSLIKE or kind is SymbolKind.MODULE:
            return self.resolve_member(t, segs[1:]), False
        # a function or variable-like symbol used as a receiver: only the heuristic is left
        return None, "::" not in text

    def self_method(self, fi: _FileIndex, cls: str, name: str) -> _Sym | None:
        q = f"{cls}.{name}"
        if q in fi.syms:
            return (fi.path, q)
        s = fi.syms.get(cls)
        if s is not None and s.kind in _CLASSLIKE:
            return self.member_of((fi.path, cls), name, set())
        if fi.family in ("go", "rs"):
            return self.type_method(fi, cls, name)
        return None

    def guess_method(self, fi: _FileIndex, ctx: _ImportCtx, name: str) -> _Sym | None:
        if name in _COMMON_METHODS[fi.family]:
            return None
        key = (fi.path, name)
        if key in self.guess_memo:
            return self.guess_memo[key]
        got = self.guess_memo[key] = self._guess_method(fi, ctx, name)
        return got

    def _guess_method(self, fi: _FileIndex, ctx: _ImportCtx, name: str) -> _Sym | None:
        found: tuple[tuple[str, str], _Sym] | None = None
        for p in (fi.path, *ctx.targets):
            entries = self.files[p].methods.get(name)
            if not entries:
                continue
            for owner, q in entries:
                if found is None:
                    found = ((p, owner), (p, q))
                elif found[0] != (p, owner):
                    return None
        if found is not None:
            return found[1]
        repo = self.r._methods.get(name)
        if repo is not None and len(repo) == 1:
            for (path, _owner), qual in repo.items():
                self.seen.add(path)
                return (path, qual)
        return None
