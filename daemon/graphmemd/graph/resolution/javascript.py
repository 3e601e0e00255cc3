"""JavaScript/TypeScript: relative specifiers with extension and ``index`` probing,
tsconfig ``baseUrl``/``paths`` aliases, workspace packages (``package.json`` names),
barrels (re-exports), ``this.method()`` and typed class fields."""

from __future__ import annotations

import posixpath

from graphmemd.graph.model import ImportRef, Language
from graphmemd.graph.resolution.index import CtxBuilder, FileIndex, norm
from graphmemd.graph.resolution.rules import LanguageRules, words

_EXTS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts")


def _candidates(base: str) -> list[str]:
    out: list[str] = []
    ext = posixpath.splitext(base)[1]
    if ext and base:
        out.append(base)
        if ext in (".js", ".jsx", ".mjs", ".cjs"):
            stem = base[: -len(ext)]
            out.extend((stem + ".ts", stem + ".tsx", stem + ".d.ts"))
    if base:
        out.extend(base + e for e in _EXTS)
    pre = f"{base}/" if base else ""
    out.extend(f"{pre}index{e}" for e in _EXTS)
    return out


class JavaScriptRules(LanguageRules):
    """JavaScript and TypeScript: relative and bare module specifiers, re-exports through barrels."""

    family = "javascript"
    languages = (Language.JAVASCRIPT, Language.TYPESCRIPT, Language.TSX)
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    reexports = True
    common_methods = words(
        "push pop shift unshift slice splice map filter reduce forEach find findIndex some every "
        "includes indexOf join split concat keys values entries then catch finally toString log "
        "error warn info debug get set has delete add replace trim toLowerCase toUpperCase "
        "startsWith endsWith apply call bind sort reverse emit on off send"
    )

    def _bare_bases(self, spec: str) -> list[str]:
        facts = self.r.facts
        out: list[str] = []
        aliases = facts.js_path_aliases
        for pattern in sorted(aliases, key=lambda p: (-len(p.split("*", 1)[0]), p)):
            pre, star, post = pattern.partition("*")
            if star:
                if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
                    mid = spec[len(pre) : len(spec) - len(post)]
                    out.extend(norm(t.replace("*", mid)) for t in aliases[pattern])
            elif spec == pattern:
                out.extend(norm(t) for t in aliases[pattern])
        for name in sorted(facts.js_packages, key=lambda n: -len(n)):
            if spec == name or spec.startswith(name + "/"):
                d = facts.js_packages[name]
                rest = spec[len(name) + 1 :]
                for sub in ("", "src", "lib"):
                    out.append(norm(posixpath.join(d, sub, rest)))
                break
        out.extend(norm(posixpath.join(d, spec)) for d in facts.js_base_dirs)
        return [o for o in out if o != ".." and not o.startswith("../")]

    def import_into(self, fi: FileIndex, imp: ImportRef, b: CtxBuilder) -> None:
        """Resolve a relative, root or bare module specifier to a file (else an external module)."""
        spec = imp.module
        target = None
        if spec.startswith(("./", "../")) or spec in (".", ".."):
            base = norm(posixpath.join(fi.dir, spec))
            if base != ".." and not base.startswith("../"):
                target = b.probe(_candidates(base))
        elif spec.startswith("/"):
            target = b.probe(_candidates(norm(spec.lstrip("/"))))
        else:
            for base in self._bare_bases(spec):
                target = b.probe(_candidates(base))
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
