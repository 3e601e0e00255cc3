"""Python: import roots (``src/`` layout, declared package dirs, scripts' own directory),
relative imports, ``import a.b as c``, ``from pkg import sub`` (submodules) and
``__init__.py`` re-exports (``__all__`` limits ``*``)."""

from __future__ import annotations

import posixpath

from graphmemd.graph.model import ImportRef, Language
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, Mod, Target
from graphmemd.graph.resolution.rules import LanguageRules, words

#: Methods of the built-in types: ``x.split()`` is far more often a ``str`` than the one
#: repository class defining ``split``, so these names are never guessed.
BUILTIN_METHODS = frozenset(
    n for t in (str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, object) for n in dir(t)
)


def _candidates(base: str, segs: list[str]) -> list[str]:
    p = "/".join([base, *segs]) if base else "/".join(segs)
    if not segs:
        pre = f"{base}/" if base else ""
        return [f"{pre}__init__.py", f"{pre}__init__.pyi"]
    return [f"{p}.py", f"{p}.pyi", f"{p}/__init__.py", f"{p}/__init__.pyi"]


def _probe(b: CtxBuilder, bases: tuple[str, ...], segs: list[str]) -> str | None:
    """The file of dotted module ``segs`` under the first import root that has it."""
    for base in bases:
        found = b.probe(_candidates(base, segs))
        if found:
            return found
    return None


class PythonRules(LanguageRules):
    """Python: relative and absolute imports, packages, re-exports through ``__init__.py``."""

    family = "python"
    languages = (Language.PYTHON,)
    self_names = frozenset({"self", "cls"})
    super_names = frozenset({"super"})
    reexports = True
    subclass_dispatch = True
    common_methods = (
        words(
            "append extend insert pop remove clear copy get items keys values update setdefault join "
            "split rsplit strip lstrip rstrip replace format startswith endswith lower upper encode "
            "decode find index count sort add discard read write close readline readlines open "
            "send run start stop __init__ __enter__ __exit__ call"
        )
        | BUILTIN_METHODS
    )

    def _bases(self, fi: FileIndex, b: CtxBuilder) -> tuple[str, ...]:
        """Import roots for absolute imports of ``fi``: the configured roots, plus the file's
        own directory when that is not a package (scripts, test dirs: ``sys.path[0]``)."""
        roots = self.r.facts.python_roots or ("",)
        d = fi.dir
        if d not in roots and b.probe((f"{d}/__init__.py", f"{d}/__init__.pyi")) is None:
            return (*roots, d)
        return tuple(roots)

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve a relative or absolute import to a module or package file (else an external module)."""
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
            bases = self._bases(fi, b)
        segs = rest.split(".") if rest else []
        mod_file = _probe(b, bases, segs) if segs or spec.startswith(".") else None
        resolved = mod_file is not None
        if mod_file:
            b.target(mod_file)
        if not imp.names:
            resolved = self._import_module(imp, b, bases, segs, mod_file) or resolved
        else:
            for n in imp.names:
                local = imp.alias if imp.alias and len(imp.names) == 1 else n
                if n == "*":
                    if mod_file:
                        b.star[mod_file] = None
                    continue
                sub = _probe(b, bases, [*segs, n])
                if sub:
                    b.target(sub)
                    resolved = True
                    if mod_file and posixpath.basename(mod_file).startswith("__init__."):
                        # the package's attribute: what its __init__ binds to the name
                        # (`from .main import main`), else the submodule itself
                        b.sym_bind[local] = ((mod_file,), n)
                    else:
                        b.mod_bind.setdefault(local, (sub,))
                elif mod_file:  # a later `from m import n` rebinds n, as Python runs it
                    b.sym_bind[local] = ((mod_file,), n)
                else:
                    b.ext_names.add(local)
        if not resolved:
            b.externals[spec] = None

    @staticmethod
    def _import_module(
        imp: ImportRef, b: CtxBuilder, bases: tuple[str, ...], segs: list[str], mod_file: str | None
    ) -> bool:
        """``import a.b [as x]``: binds ``x``, or ``a.b`` and ``a``."""
        if mod_file:
            if imp.alias:
                b.mod_bind.setdefault(imp.alias, (mod_file,))
            else:
                b.mod_bind.setdefault(".".join(segs), (mod_file,))
                if len(segs) > 1 and segs[0] not in b.mod_bind:
                    pkg = _probe(b, bases, segs[:1])
                    if pkg:
                        b.mod_bind[segs[0]] = (pkg,)
            return True
        # `import os.path` with only os.py in the repository (a module attribute): the
        # longest existing prefix module is what gets imported.
        for i in range(len(segs) - 1, 0, -1):
            prefix = _probe(b, bases, segs[:i])
            if prefix:
                b.target(prefix)
                if not imp.alias:
                    b.mod_bind.setdefault(".".join(segs[:i]), (prefix,))
                    head = prefix if i == 1 else _probe(b, bases, segs[:1])
                    if head:
                        b.mod_bind.setdefault(segs[0], (head,))
                return True
        b.ext_names.add(imp.alias or (segs[0] if segs else imp.module))
        return False

    def submodule(self, fi: FileIndex, name: str) -> Target | None:
        """A package (``__init__.py``) exposes its submodule files as attributes."""
        if not posixpath.basename(fi.path).startswith("__init__."):
            return None
        pre = f"{fi.dir}/{name}" if fi.dir else name
        for c in (f"{pre}.py", f"{pre}.pyi", f"{pre}/__init__.py", f"{pre}/__init__.pyi"):
            if c in self.r.files:
                return Mod((c,))
        return None
