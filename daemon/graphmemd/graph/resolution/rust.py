"""Rust: the module tree from files and ``mod x;`` (``x.rs``/``x/mod.rs``, 2018 layout),
``use crate::``/``super::``/``self::``/other workspace crates (Cargo members), ``pub use``
re-exports, ``Type::method``, impl methods in any file, and macro invocations as references
to ``macro_rules!`` definitions of the same crate."""

from __future__ import annotations

import posixpath

from graphmemd.graph.model import Confidence, ImportRef, Language
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, LookupRun, Target, discard
from graphmemd.graph.resolution.rules import LanguageRules, words

_ROOT_NAMES = ("lib.rs", "main.rs")


class RustRules(LanguageRules):
    """Rust: ``use`` paths from crate roots, ``mod`` declarations, ``impl`` blocks, macros by crate."""

    family = "rust"
    languages = (Language.RUST,)
    self_names = frozenset({"self", "Self"})
    reexports = True
    detached_methods = True
    common_methods = words(
        "clone to_string to_owned into unwrap expect iter iter_mut into_iter map collect push "
        "len is_empty get insert remove as_str as_ref borrow borrow_mut ok_or and_then unwrap_or "
        "new default fmt eq cmp next run"
    )

    def __init__(self, resolver: object) -> None:
        super().__init__(resolver)  # type: ignore[arg-type]
        self._roots_gen = -1
        self._roots: list[tuple[str, str]] = []
        self._root_set: set[str] = set()
        #: macro name -> files defining a ``macro_rules!`` of that name
        self._macros: dict[str, set[str]] = {}

    # ----------------------------------------------------------------- files

    def index(self, fi: FileIndex) -> None:
        """Add the macros ``fi`` defines to the crate-wide macro index."""
        for name in _macro_names(fi):
            self._macros.setdefault(name, set()).add(fi.path)

    def unindex(self, fi: FileIndex) -> None:
        """Remove the macros ``fi`` defines from the macro index."""
        for name in _macro_names(fi):
            discard(self._macros, name, fi.path)

    def appeared_or_vanished(self, fi: FileIndex) -> bool:
        """True for a crate root (``lib.rs``, ``main.rs`` ... or a declared root): every context depends on it."""
        base = posixpath.basename(fi.path)
        return base in _ROOT_NAMES or fi.path in self.r.facts.rust_crate_roots

    def scope_dependent(self, fi: FileIndex, segs: tuple[str, ...]) -> bool:
        """As the default, except that ``self::module::f`` is a path, not a receiver."""
        if segs and segs[0] == "self" and len(segs) > 2:
            return False  # `self::module::f`: a path, not a receiver
        return super().scope_dependent(fi, segs)

    # ----------------------------------------------------------------- module tree

    def roots(self) -> list[tuple[str, str]]:
        """The crate roots as (directory, root file), deepest first, ``lib.rs`` before others (memoised)."""
        if self._roots_gen != self.r.gen:
            files = self.r.files
            roots = [p for p in self.r.facts.rust_crate_roots if p in files]
            if not roots:
                roots = [p for p in files if posixpath.basename(p) in _ROOT_NAMES]
            self._root_set = set(roots)
            self._roots = sorted(
                ((posixpath.dirname(p), p) for p in roots),
                key=lambda x: (-len(x[0]), not x[1].endswith("lib.rs"), x[1]),
            )
            self._roots_gen = self.r.gen
        return self._roots

    def root_of(self, path: str) -> str:
        """The crate root whose directory contains ``path`` (the file itself if none)."""
        roots = self.roots()
        if path in self._root_set:
            return path
        for d, root in roots:
            if not d or path.startswith(d + "/"):
                return root
        return path

    @staticmethod
    def modpath(path: str, root: str) -> list[str]:
        """The module path of file ``path`` in the crate rooted at ``root`` (``a/b.rs`` -> ``[a, b]``)."""
        if path == root:
            return []
        d = posixpath.dirname(root)
        rel = path[len(d) + 1 :] if d else path
        parts = rel[:-3].split("/") if rel.endswith(".rs") else rel.split("/")
        if parts and parts[-1] == "mod":
            parts.pop()
        return parts

    def module_file(self, root: str, modpath: list[str], b: CtxBuilder | None) -> str | None:
        """The file of module ``modpath`` of the crate at ``root`` (``x.rs`` or ``x/mod.rs``), probed through ``b``."""
        files = self.r.files
        if not modpath:
            return root if root in files else None
        d = posixpath.dirname(root)
        base = "/".join([d, *modpath]) if d else "/".join(modpath)
        cands = (base + ".rs", base + "/mod.rs")
        if b is not None:
            return b.probe(cands)
        return next((c for c in cands if c in files), None)

    def _mod_decl_candidates(self, path: str, name: str) -> list[str]:
        d = posixpath.dirname(path)
        base = posixpath.basename(path)
        self.roots()
        if not (base in ("mod.rs", *_ROOT_NAMES) or path in self._root_set):
            d = posixpath.join(d, base[:-3] if base.endswith(".rs") else base)
        stem = posixpath.join(d, name)
        return [stem + ".rs", stem + "/mod.rs"]

    def locate(
        self, fi: FileIndex, segs: list[str], b: CtxBuilder | None
    ) -> tuple[str, str, list[str], list[str]] | None:
        """Map a Rust path to (crate root, module file, leftover item segments, module path),
        using the longest module prefix that exists; None for external crates."""
        if not segs:
            return None
        root = self.root_of(fi.path)
        cur = self.modpath(fi.path, root)
        s0 = segs[0]
        croot = root
        names = self.r.facts.rust_crate_names
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
        elif s0 in names and names[s0] in self.r.files:
            croot = names[s0]
            base, rest = [], segs[1:]
        elif self.module_file(root, [*cur, s0], b) is not None:
            base, rest = list(cur), segs
        else:
            return None
        for j in range(len(rest), -1, -1):
            mp = base + rest[:j]
            f = self.module_file(croot, mp, b)
            if f is not None:
                return croot, f, rest[j:], mp
        return None

    # ----------------------------------------------------------------- imports

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve a ``mod`` declaration or a ``use`` tree to files and bindings (else an external crate)."""
        if imp.is_mod_decl:
            f = b.probe(self._mod_decl_candidates(fi.path, imp.module))
            if f:
                b.target(f)
                b.mod_bind.setdefault(imp.alias or imp.module, (f,))
            else:
                b.externals[imp.module] = None
            return
        segs = [s for s in imp.module.split("::") if s]
        names = imp.names or ()
        if not segs:  # `use foo;` / `use {a, b};` : each name is a whole path
            self._import_whole(fi, imp, b)
            return
        loc = self.locate(fi, segs, b)
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
            sub = None if leftover else self.module_file(croot, [*modpath, n], b)
            if sub:
                b.target(sub)
                b.mod_bind.setdefault(local, (sub,))
            else:
                b.sym_bind.setdefault(local, ((f,), ".".join([*leftover, n])))

    def _import_whole(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        names = imp.names or ()
        resolved = False
        for n in names:
            loc = self.locate(fi, [n], b)
            local = imp.alias if imp.alias and len(names) == 1 else n
            if loc is not None and not loc[2]:
                b.target(loc[1])
                b.mod_bind.setdefault(local, (loc[1],))
                resolved = True
            else:
                b.ext_names.add(local)
        if not resolved:
            b.externals["::".join(names) or imp.module] = None

    # ----------------------------------------------------------------- calls

    def path_call(
        self, run: LookupRun, fi: FileIndex, caller: str, text: str, segs: tuple[str, ...]
    ) -> tuple[bool, Target | None, Confidence]:
        """A ``crate::``/``self::``/``super::`` path call resolved through the module tree."""
        if "::" not in text or segs[0] not in ("crate", "self", "super"):
            return False, None, Confidence.IMPORT
        loc = self.locate(fi, list(segs), None)
        if loc is not None and loc[2]:
            run.seen.add(loc[1])
            return True, run.resolve_in_files((loc[1],), loc[2]), Confidence.IMPORT
        return True, None, Confidence.IMPORT

    def fallback_name(self, run: LookupRun, fi: FileIndex, name: str) -> Target | None:
        """A macro invoked by its bare name: the one ``macro_rules!`` of that name in the
        crate (textual macro scope and ``#[macro_export]`` are not modelled)."""
        files = self._macros.get(name)
        if not files:
            return None
        root = self.root_of(fi.path)
        mine = sorted(p for p in files if self.root_of(p) == root)
        if len(mine) != 1:
            return None
        run.seen.add(mine[0])
        return (mine[0], name)


def _macro_names(fi: FileIndex) -> list[str]:
    return [q for q, s in fi.syms.items() if s.parent is None and s.signature.startswith("macro_rules!")]
