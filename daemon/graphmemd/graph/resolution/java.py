"""Java: the package from the declaration (files of one package see each other's types),
single-type, on-demand and static imports, members of enclosing classes and their bases
(implicit ``this``), and overloads told apart by arity."""

from __future__ import annotations

from graphmemd.graph.model import ImportRef, Language
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, LookupRun, discard
from graphmemd.graph.resolution.rules import LanguageRules, words


class JavaRules(LanguageRules):
    """Java: package-scoped names, imports of types and packages, overloads told apart by arity."""

    family = "java"
    languages = (Language.JAVA,)
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    members_in_scope = True
    overloads_by_arity = True
    package_scoped = True
    common_methods = words(
        "equals hashCode toString get set put add remove size isEmpty contains iterator length "
        "charAt substring append println print format valueOf stream map filter collect forEach "
        "of close run start"
    )

    def __init__(self, resolver: object) -> None:
        super().__init__(resolver)  # type: ignore[arg-type]
        self.pkg_files: dict[str, set[str]] = {}
        self.types: dict[tuple[str, str], set[str]] = {}
        #: path -> package it had before it was removed or moved (for dependents_of)
        self.former: dict[str, str] = {}

    def struct_key(self, fi: FileIndex) -> tuple[object, ...]:
        """What, when it changes, changes how other files resolve their imports: package and top-level types."""
        return (fi.parsed.language, fi.package, fi.top_types)

    def watch_keys(self, fi: FileIndex) -> set[str]:
        """The file's package: its other files' types are visible to it."""
        return {"javapkg:" + (fi.package or "")}

    def changed_keys(self, path: str, fi: FileIndex | None) -> set[str]:
        """The package the file is in now and the one it was in before."""
        keys = set()
        if fi is not None:
            keys.add("javapkg:" + (fi.package or ""))
        if path in self.former:
            keys.add("javapkg:" + self.former[path])
        return keys

    def index(self, fi: FileIndex) -> None:
        """Add ``fi`` to the package and top-level type indexes."""
        pkg = fi.package or ""
        self.pkg_files.setdefault(pkg, set()).add(fi.path)
        for t in fi.top_types:
            self.types.setdefault((pkg, t), set()).add(fi.path)

    def unindex(self, fi: FileIndex) -> None:
        """Remove ``fi`` from the package and type indexes, remembering its package."""
        pkg = fi.package or ""
        discard(self.pkg_files, pkg, fi.path)
        for t in fi.top_types:
            discard(self.types, (pkg, t), fi.path)
        self.former[fi.path] = pkg

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve a type or on-demand (``*``) import to the files of the package declaring it."""
        pkg = imp.module
        b.keys.add("javapkg:" + pkg)
        outer_pkg, _, outer = pkg.rpartition(".")
        resolved = False
        for n in imp.names:
            if n == "*":
                files = sorted(self.pkg_files.get(pkg, ()))
                if files:
                    for p in files:
                        b.target(p)
                        b.star[p] = None
                    resolved = True
                    continue
                # `import static p.Util.*` / `import p.Outer.*`: the outer type's file.
                b.keys.add("javapkg:" + outer_pkg)
                files = sorted(self.types.get((outer_pkg, outer), ()))
                for p in files:
                    b.target(p)
                    prefix = outer + "."
                    for q, s in self.r.files[p].syms.items():
                        member = q[len(prefix) :]
                        if q.startswith(prefix) and "." not in member and "~" not in member:
                            b.sym_bind.setdefault(s.name, ((p,), q))
                resolved = resolved or bool(files)
                continue
            files = sorted(self.types.get((pkg, n), ()))
            qual = n
            if not files and outer:
                # `import static p.Util.max` / `import p.Outer.Inner`: a member of the outer type
                b.keys.add("javapkg:" + outer_pkg)
                files = sorted(self.types.get((outer_pkg, outer), ()))
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

    def package_files(self, run: LookupRun, fi: FileIndex) -> tuple[str, ...]:
        """The other files of ``fi``'s package, whose top-level types it sees without an import."""
        key = ("\0" + (fi.package or ""), False)
        got = run.dir_memo.get(key)
        if got is None:
            got = run.dir_memo[key] = tuple(sorted(self.pkg_files.get(fi.package or "", ())))
        return tuple(p for p in got if p != fi.path)
