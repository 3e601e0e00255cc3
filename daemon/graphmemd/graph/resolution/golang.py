"""Go: the module path from ``go.mod``; a package is a directory (``_test.go`` files only
seen from tests); ``pkg.Func()`` through the import's package; same-package names across
files; methods declared on a type in any file of its package; typed receivers (see
``passes.Pass.receiver_type``) and embedded structs (INHERITS edges)."""

from __future__ import annotations

import posixpath
import re

from graphmemd.graph.model import ImportRef, Language
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, LookupRun, norm
from graphmemd.graph.resolution.rules import LanguageRules, words

_MAJOR = re.compile(r"v\d+")
_GOOS = frozenset(
    [
        "aix",
        "android",
        "darwin",
        "dragonfly",
        "freebsd",
        "hurd",
        "illumos",
        "ios",
        "js",
        "linux",
        "nacl",
        "netbsd",
        "openbsd",
        "plan9",
        "solaris",
        "wasip1",
        "windows",
        "zos",
    ]
)
_GOARCH = frozenset(
    [
        "386",
        "amd64",
        "amd64p32",
        "arm",
        "armbe",
        "arm64",
        "arm64be",
        "loong64",
        "mips",
        "mipsle",
        "mips64",
        "mips64le",
        "mips64p32",
        "mips64p32le",
        "ppc",
        "ppc64",
        "ppc64le",
        "riscv",
        "riscv64",
        "s390",
        "s390x",
        "sparc",
        "sparc64",
        "wasm",
    ]
)


def build_tags(path: str) -> tuple[str, str]:
    """(GOOS, GOARCH) implied by a file name (``x_linux_amd64.go``), "" when not constrained."""
    parts = posixpath.basename(path).removesuffix(".go").removesuffix("_test").split("_")[1:]
    goos = goarch = ""
    if parts and parts[-1] in _GOARCH:
        goarch = parts.pop()
    if parts and parts[-1] in _GOOS:
        goos = parts[-1]
    return goos, goarch


def _compatible(a: tuple[str, str], b: tuple[str, str]) -> bool:
    return all(not x or not y or x == y for x, y in zip(a, b, strict=True))


class GoRules(LanguageRules):
    """Go: package-scoped names, imports by directory, methods declared outside their type."""

    family = "go"
    languages = (Language.GO,)
    detached_methods = True
    package_scoped = True
    common_methods = words(
        "Error String Close Read Write Lock Unlock RLock RUnlock Len Printf Println Sprintf "
        "Errorf Add Done Wait Get Set Run Start Stop"
    )

    def is_test(self, path: str) -> bool:
        """Whether ``path`` is a Go test file (``_test.go``)."""
        return path.endswith("_test.go")

    def struct_key(self, fi: FileIndex) -> tuple[object, ...]:
        """What, when it changes, changes how *other* files resolve their imports: the package."""
        return (fi.parsed.language, fi.package)

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """The file's own directory: its package's other files are visible to it."""
        return {"dir:" + fi.dir}

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The directory of a changed ``.go`` file."""
        return {"dir:" + posixpath.dirname(path)} if path.endswith(".go") else set()

    def _dir_for(self, spec: str) -> str | None:
        """The directory of import path ``spec``: under the module whose path prefixes it
        (longest first), else in a module's ``vendor/`` tree, else, for the standard
        library's ``module std``, relative to that module."""
        for mp, d in self.r.go_modules:
            if spec == mp:
                return d
            if spec.startswith(mp + "/"):
                return norm(posixpath.join(d, spec[len(mp) + 1 :]))
        dirs = self.r.dirs
        for mp, d in self.r.go_modules:
            vendored = norm(posixpath.join(d, "vendor", spec))
            if vendored in dirs:
                return vendored
            if mp == "std" and "." not in spec.split("/", 1)[0]:
                return norm(posixpath.join(d, spec))
        return None

    def dir_files(self, d: str, tests: bool) -> list[str]:
        """The ``.go`` files of directory ``d``, sorted (test files only when ``tests``)."""
        return sorted(p for p in self.r.dirs.get(d, ()) if p.endswith(".go") and (tests or not p.endswith("_test.go")))

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve an import path to its package directory's files, bound under the alias or package name."""
        spec = imp.module
        d = self._dir_for(spec)
        files: list[str] = []
        if d is not None:
            b.keys.add("dir:" + d)
            files = self.dir_files(d, fi.is_test)
        last = spec.rstrip("/").rsplit("/", 1)[-1]
        if _MAJOR.fullmatch(last) and "/" in spec:
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
                pkgs = [self.r.files[p].package for p in files if not p.endswith("_test.go")]
                name = next((p for p in pkgs if p), None) or last
            b.mod_bind.setdefault(name, tuple(files))

    def package_files(self, run: LookupRun, fi: FileIndex) -> tuple[str, ...]:
        """The other files of the package, those whose file-name build constraints
        (``_windows``, ``_arm64``) can hold together with the caller's first."""
        tags = build_tags(fi.path)
        key = (f"{fi.dir}\0{tags[0]}\0{tags[1]}", fi.is_test)
        got = run.dir_memo.get(key)
        if got is None:
            files = self.dir_files(fi.dir, fi.is_test)
            got = run.dir_memo[key] = tuple(sorted(files, key=lambda p: not _compatible(tags, build_tags(p))))
        return tuple(p for p in got if p != fi.path)

    def method_visible(self, fi: FileIndex, path: str) -> bool:
        """A method belongs to a type seen from ``fi`` only when declared in the same directory (package)."""
        return posixpath.dirname(path) == fi.dir
