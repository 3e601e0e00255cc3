"""Repository facts: the few manifest files resolution needs (``go.mod``, ``Cargo.toml``,
``tsconfig.json``/``jsconfig.json``, ``package.json``, Python project files,
``compile_commands.json``).

The only I/O of the resolution package. :func:`facts_from_files` computes the facts from
the walked file list; :func:`is_fact_file` tells whether a changed path is one of those
manifests (then the facts are recomputed and handed to ``RepoResolver.set_facts``).
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import shlex
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["FACT_FILES", "RepoFacts", "facts_from_files", "is_fact_file", "read_repo_facts"]

#: Base names of the manifest files facts are read from.
FACT_FILES = frozenset(
    {
        "go.mod",
        "Cargo.toml",
        "tsconfig.json",
        "jsconfig.json",
        "package.json",
        "pyproject.toml",
        "setup.cfg",
        "setup.py",
        "compile_commands.json",
        "Gemfile",
        "application.rb",
        "composer.json",
        "Package.swift",
    }
)


#: Suffixes of manifest files (any name).
FACT_SUFFIXES = (".gemspec",)


def is_fact_file(rel_path: str) -> bool:
    """Whether ``rel_path`` (POSIX, relative to the repository root) is a manifest whose
    change means the repository facts must be recomputed."""
    base = posixpath.basename(rel_path.replace("\\", "/"))
    return base in FACT_FILES or base.endswith(FACT_SUFFIXES)


@dataclass(frozen=True, slots=True)
class RepoFacts:
    """Small facts read from manifest files; all paths POSIX, relative to the repo root."""

    #: directory of a go.mod ("" for the root) -> its module path.
    go_modules: Mapping[str, str] = field(default_factory=dict)
    #: crate root files (``src/lib.rs``, ``src/main.rs``, ``src/bin/x.rs``, [lib]/[[bin]] paths).
    rust_crate_roots: tuple[str, ...] = ()
    #: tsconfig/jsconfig ``baseUrl`` directories.
    js_base_dirs: tuple[str, ...] = ()
    #: Python import roots: always ``""``, plus ``src``-layout, configured and sub-project dirs.
    python_roots: tuple[str, ...] = ("",)
    #: crate name (``-`` replaced by ``_``) -> its root file, for ``use other_crate::x``.
    rust_crate_names: Mapping[str, str] = field(default_factory=dict)
    #: tsconfig ``paths`` pattern (``"@/*"``) -> target patterns relative to the repo root.
    js_path_aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: workspace package name (package.json ``name``) -> its directory.
    js_packages: Mapping[str, str] = field(default_factory=dict)
    #: C/C++ include directories: the repository's ``-I``/``-iquote``/``-isystem`` directories
    #: of ``compile_commands.json`` when there is one, else its directories named
    #: ``include``, plus the root and ``src``.
    c_include_dirs: tuple[str, ...] = ()
    #: Ruby ``require`` load paths: ``lib`` and the gemspecs' ``require_paths`` (relative to
    #: their directories), the root.
    ruby_load_paths: tuple[str, ...] = ()
    #: Zeitwerk autoload roots: a Rails application's ``app/*`` directories (and their
    #: ``concerns``) and ``lib``; else the ``lib`` directories.
    ruby_autoload_roots: tuple[str, ...] = ()
    #: Composer PSR-4 namespace prefix (``App\\``) -> its directories, from the
    #: ``composer.json`` files' ``autoload``/``autoload-dev`` (relative to the repository root).
    php_psr4: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Swift package targets (module name, directory relative to the repository root), from
    #: the ``Package.swift`` files: ``path:`` or ``Sources/<name>`` (``Tests/<name>``).
    swift_modules: tuple[tuple[str, str], ...] = ()


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
    return _read_text_limited(root, rel, _MAX_MANIFEST_BYTES)


def _read_text_limited(root: Path, rel: str, limit: int) -> str | None:
    try:
        p = root / rel
        if not p.is_file() or p.stat().st_size > limit:
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


def _package_json_facts(root: Path, d: str, packages: dict[str, str]) -> None:
    text = _read_text(root, posixpath.join(d, "package.json"))
    data = _loads_jsonc(text) if text is not None else None
    name = data.get("name") if isinstance(data, dict) else None
    if isinstance(name, str) and name and name not in packages:
        packages[name] = d


_C_SOURCE_EXTS = frozenset(
    {".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl", ".tpp"}
)
#: where compile_commands.json is looked for (CMake writes it into the build directory)
_COMPILE_COMMANDS_DIRS = ("", "build", "out", "cmake-build-debug", "cmake-build-release", "builddir")
_INCLUDE_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter", "/I")


def _include_flags(args: list[str]) -> list[str]:
    """The directories of the include flags of one compiler command line."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        for flag in _INCLUDE_FLAGS:
            if arg == flag and i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
                break
            if arg.startswith(flag) and len(arg) > len(flag):
                out.append(arg[len(flag) :])
                break
        i += 1
    return out


def _compile_commands_dirs(root: Path) -> list[str] | None:
    """The include directories inside the repository named by its compile_commands.json
    (None: there is none, or it cannot be read)."""
    for d in _COMPILE_COMMANDS_DIRS:
        text = _read_text_limited(root, posixpath.join(d, "compile_commands.json"), 64 << 20)
        data = _loads_jsonc(text) if text is not None else None
        if not isinstance(data, list):
            continue
        found: list[str] = []
        base = root.resolve()
        for entry in data:
            if not isinstance(entry, dict):
                continue
            args = entry.get("arguments")
            if not isinstance(args, list):
                command = entry.get("command")
                args = shlex.split(command) if isinstance(command, str) else []
            cwd = Path(str(entry.get("directory") or "."))
            if not cwd.is_absolute():  # (relative to the repository root)
                cwd = root / cwd
            for inc in _include_flags([str(a) for a in args]):
                p = (cwd / inc) if not Path(inc).is_absolute() else Path(inc)
                try:
                    rel = p.resolve().relative_to(base).as_posix()
                except (OSError, ValueError):
                    continue  # outside the repository: system and third-party headers
                rel = _norm(rel)
                if rel not in found:
                    found.append(rel)
        return found
    return None


def _c_include_dirs(root: Path, dirs: list[str]) -> tuple[str, ...]:
    """Include directories (see ``RepoFacts.c_include_dirs``)."""
    declared = _compile_commands_dirs(root)
    if declared is not None:
        return tuple(declared)
    found = [d for d in dirs if posixpath.basename(d) == "include"]
    return tuple(dict.fromkeys(["", *found, *(["src"] if "src" in dirs else [])]))


_REQUIRE_PATHS = re.compile(r"require_paths\s*=\s*\[([^\]]*)\]")
_QUOTED = re.compile(r"[\"']([^\"']+)[\"']")


def _ruby_paths(root: Path, dirs: list[str], paths: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(load paths, Zeitwerk autoload roots) of the Ruby code (see ``RepoFacts``)."""
    load: list[str] = []
    for p in paths:
        if p.endswith(".gemspec"):
            text = _read_text(root, p) or ""
            d = posixpath.dirname(p)
            m = _REQUIRE_PATHS.search(text)
            declared = _QUOTED.findall(m.group(1)) if m else ["lib"]
            load.extend(_norm(posixpath.join(d, x)) for x in declared)
    libs = [d for d in dirs if posixpath.basename(d) == "lib"]
    load.extend(libs)
    autoload: list[str] = []
    pset = set(paths)
    for d in dirs:  # a Rails application: config/application.rb beside app/
        if _norm(posixpath.join(d, "config/application.rb")) in pset:
            app = _norm(posixpath.join(d, "app"))
            for sub in dirs:
                if posixpath.dirname(sub) == app and posixpath.basename(sub) not in ("assets", "javascript", "views"):
                    autoload.append(sub)
                    concerns = f"{sub}/concerns"
                    if concerns in dirs:
                        autoload.append(concerns)
    autoload.extend(libs)
    return tuple(dict.fromkeys([*load, ""])), tuple(dict.fromkeys(autoload))


def _composer_facts(root: Path, d: str, psr4: dict[str, tuple[str, ...]]) -> None:
    """The PSR-4 prefixes of ``d/composer.json`` (the first one read wins a prefix)."""
    text = _read_text(root, posixpath.join(d, "composer.json"))
    data = _loads_jsonc(text) if text is not None else None
    if not isinstance(data, dict):
        return
    for section in ("autoload", "autoload-dev"):
        mapping = _get(data, section, "psr-4")
        if not isinstance(mapping, dict):
            continue
        for prefix, dirs in mapping.items():
            listed = dirs if isinstance(dirs, list) else [dirs]
            found = tuple(_norm(posixpath.join(d, x)) for x in listed if isinstance(x, str))
            if isinstance(prefix, str) and found and prefix not in psr4:
                psr4[prefix] = found


_SWIFT_TARGET = re.compile(
    r"\.(target|executableTarget|testTarget|macro)\(\s*name:\s*\"([^\"]+)\"(?:(?:(?!\.(?:target|executableTarget|testTarget|macro)\().)*?path:\s*\"([^\"]+)\")?",
    re.DOTALL,
)


def _swift_package_facts(root: Path, d: str, modules: list[tuple[str, str]]) -> None:
    """The targets of ``d/Package.swift`` (name, directory)."""
    text = _read_text(root, posixpath.join(d, "Package.swift"))
    if text is None:
        return
    for kind, name, path in _SWIFT_TARGET.findall(text):
        sub = path or f"{'Tests' if kind == 'testTarget' else 'Sources'}/{name}"
        modules.append((name, _norm(posixpath.join(d, sub))))


def _toml(root: Path, rel: str) -> dict[str, Any]:
    text = _read_text(root, rel)
    if text is None:
        return {}
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}


def _get(data: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(k)
    return data


def _python_package_dirs(root: Path, d: str) -> list[str]:
    """Import roots a Python project in ``d`` declares (relative to ``d``): setuptools
    ``package-dir``/``packages.find.where``, hatch ``packages``, poetry ``from``,
    setup.cfg ``package_dir``/``where``."""
    out: list[str] = []
    data = _toml(root, posixpath.join(d, "pyproject.toml"))
    pkg_dir = _get(data, "tool", "setuptools", "package-dir")
    if isinstance(pkg_dir, dict) and isinstance(pkg_dir.get(""), str):
        out.append(pkg_dir[""])
    where = _get(data, "tool", "setuptools", "packages", "find", "where")
    if isinstance(where, list):
        out.extend(w for w in where if isinstance(w, str))
    hatch = _get(data, "tool", "hatch", "build", "targets", "wheel", "packages")
    if isinstance(hatch, list):
        out.extend(posixpath.dirname(p.rstrip("/")) for p in hatch if isinstance(p, str))
    poetry = _get(data, "tool", "poetry", "packages")
    if isinstance(poetry, list):
        out.extend(p["from"] for p in poetry if isinstance(p, dict) and isinstance(p.get("from"), str))
    text = _read_text(root, posixpath.join(d, "setup.cfg"))
    if text is not None:
        cfg = configparser.ConfigParser(interpolation=None)
        try:
            cfg.read_string(text)
        except configparser.Error:
            cfg = configparser.ConfigParser()
        raw = cfg.get("options", "package_dir", fallback="")
        for line in raw.replace(";", "\n").splitlines():
            key, eq, value = line.partition("=")
            if eq and not key.strip() and value.strip():
                out.append(value.strip())
        found = cfg.get("options.packages.find", "where", fallback="").strip()
        if found:
            out.append(found)
    return [_norm(posixpath.join(d, p)) for p in out if p not in (".", "")]


def _python_roots(root: Path, sorted_dirs: list[str], dirs: set[str], pset: set[str]) -> list[str]:
    """Import roots of the Python code: the root, every project directory (``pyproject.toml``,
    ``setup.py``, ``setup.cfg``) that is no package itself, the package dirs they declare, and
    their ``src/`` layouts."""
    py_roots: list[str] = [""]
    for d in sorted_dirs:
        is_project = d == "" or any(
            f"{d}/{m}" in pset or _exists(root, f"{d}/{m}") for m in ("pyproject.toml", "setup.py", "setup.cfg")
        )
        if not is_project:
            continue
        if d and f"{d}/__init__.py" not in pset and d not in py_roots:
            py_roots.append(d)
        for declared in _python_package_dirs(root, d):
            if declared in dirs and declared not in py_roots:
                py_roots.append(declared)
        src = _norm(posixpath.join(d, "src"))
        if src in dirs and f"{src}/__init__.py" not in pset and src not in py_roots:
            py_roots.append(src)
    return py_roots


def read_repo_facts(root: Path, paths: Iterable[str]) -> RepoFacts:
    """Read ``go.mod``, ``Cargo.toml``, ``tsconfig.json``/``jsconfig.json``, ``package.json``
    and Python project files found in the directories of ``paths`` (and the root).
    Unreadable or malformed manifests are ignored."""
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
    packages: dict[str, str] = {}
    if exts & _JS_SOURCE_EXTS:
        for d in sorted_dirs:
            _tsconfig_facts(root, d, base_dirs, aliases)
            _package_json_facts(root, d, packages)

    c_dirs: tuple[str, ...] = ()
    if exts & _C_SOURCE_EXTS:
        c_dirs = _c_include_dirs(root, sorted_dirs)

    rb_load: tuple[str, ...] = ()
    rb_roots: tuple[str, ...] = ()
    if ".rb" in exts:
        rb_load, rb_roots = _ruby_paths(root, sorted_dirs, plist)

    psr4: dict[str, tuple[str, ...]] = {}
    if ".php" in exts:
        for d in sorted_dirs:
            _composer_facts(root, d, psr4)

    swift: list[tuple[str, str]] = []
    if ".swift" in exts:
        for d in sorted_dirs:
            _swift_package_facts(root, d, swift)

    py_roots = _python_roots(root, sorted_dirs, dirs, pset) if ".py" in exts or ".pyi" in exts else [""]

    return RepoFacts(
        go_modules=go_modules,
        rust_crate_roots=tuple(dict.fromkeys(rust_roots)),
        js_base_dirs=tuple(base_dirs),
        python_roots=tuple(py_roots),
        rust_crate_names=crate_names,
        js_path_aliases=aliases,
        js_packages=packages,
        c_include_dirs=c_dirs,
        ruby_load_paths=rb_load,
        ruby_autoload_roots=rb_roots,
        php_psr4=psr4,
        swift_modules=tuple(swift),
    )


def facts_from_files(root: Path, paths: Iterable[str]) -> RepoFacts:
    """The facts of the repository at ``root`` whose walked files are ``paths`` (POSIX,
    relative): what the indexer calls at registration / after a full walk, and again when
    a path for which :func:`is_fact_file` holds was added, changed or removed."""
    return read_repo_facts(root, paths)
