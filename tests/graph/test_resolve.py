"""Tests of ``graphmemd.graph.resolution``: hand-built ParsedFiles per language, plus fixture repos."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from graphmemd.graph.model import (
    CallRef,
    Confidence,
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
from graphmemd.graph.resolution import RepoFacts, RepoResolver, read_repo_facts

R = "r"
K = SymbolKind
FN = SymbolKind.FUNCTION
METHOD = SymbolKind.METHOD
CLASS = SymbolKind.CLASS
INHERITS = InheritKind.INHERITS
IMPLEMENTS = InheritKind.IMPLEMENTS

_EXT = {
    ".py": Language.PYTHON,
    ".js": Language.JAVASCRIPT,
    ".jsx": Language.JAVASCRIPT,
    ".cjs": Language.JAVASCRIPT,
    ".ts": Language.TYPESCRIPT,
    ".tsx": Language.TSX,
    ".go": Language.GO,
    ".rs": Language.RUST,
    ".java": Language.JAVA,
}


# --------------------------------------------------------------------------- helpers


def sym(qual: str, kind: SymbolKind = FN, *, detached: bool = False) -> ParsedSymbol:
    """A symbol; its parent is the qualname prefix unless ``detached`` (or top level)."""
    parent = None if detached or "." not in qual else qual.rsplit(".", 1)[0]
    return ParsedSymbol(
        name=qual.rsplit(".", 1)[-1],
        qualname=qual,
        kind=kind,
        parent=parent,
        start_line=1,
        end_line=1,
        start_byte=0,
        end_byte=0,
        signature=qual,
        sig_hash="s",
        body_hash="b",
    )


def imp(module: str, *names: str, alias: str | None = None, mod: bool = False) -> ImportRef:
    return ImportRef(module=module, names=names, line=1, alias=alias, is_mod_decl=mod)


def call(caller: str, callee: str) -> CallRef:
    return CallRef(caller=caller, callee=callee, name=callee.replace("::", ".").rsplit(".", 1)[-1], line=1)


def inh(child: str, parent: str, kind: InheritKind = INHERITS) -> InheritRef:
    return InheritRef(child=child, parent=parent, kind=kind, line=1)


def pf(
    path: str,
    *,
    syms: tuple[ParsedSymbol, ...] = (),
    imports: tuple[ImportRef, ...] = (),
    calls: tuple[CallRef, ...] = (),
    inherits: tuple[InheritRef, ...] = (),
    package: str | None = None,
) -> ParsedFile:
    lang = next(lg for ext, lg in _EXT.items() if path.endswith(ext))
    return ParsedFile(
        path=path,
        language=lang,
        symbols=syms,
        imports=imports,
        calls=calls,
        inherits=inherits,
        package=package,
    )


def make(*files: ParsedFile, facts: RepoFacts | None = None) -> RepoResolver:
    r = RepoResolver(R, facts or RepoFacts())
    for f in files:
        r.set_file(f)
    return r


def fid(path: str) -> str:
    return file_id(R, path)


def sid(path: str, qual: str, kind: SymbolKind = FN) -> str:
    return symbol_id(R, path, qual, kind)


def targets_of(edges: ResolvedEdges, caller_id: str) -> set[str]:
    return {c for a, c, _conf in edges.calls if a == caller_id}


def unresolved_of(edges: ResolvedEdges, caller_id: str) -> set[str]:
    return {c for a, c in edges.unresolved_calls if a == caller_id}


def imports_of(edges: ResolvedEdges, path: str) -> set[str]:
    """Paths imported by ``path``."""
    return {b.removeprefix(f"{R}:") for a, b, _conf in edges.imports if a == fid(path)}


def calls2(edges: ResolvedEdges) -> set[tuple[str, str]]:
    """Call edges without their confidence."""
    return {(a, b) for a, b, _conf in edges.calls}


def bases3(edges: ResolvedEdges) -> tuple[tuple[str, str, InheritKind], ...]:
    """Inheritance edges without their confidence."""
    return tuple((a, b, k) for a, b, k, _conf in edges.inherits)


def externals_of(edges: ResolvedEdges, path: str) -> set[str]:
    return {b for a, b in edges.external_imports if a == fid(path)}


# --------------------------------------------------------------------------- Python


def test_python_absolute_import_dotted_and_alias_calls() -> None:
    r = make(
        pf("a/__init__.py"),
        pf("a/b.py", syms=(sym("f"),)),
        pf(
            "main.py",
            syms=(sym("run"),),
            imports=(imp("a.b"), imp("a.b", alias="ab"), imp("os.path")),
            calls=(call("run", "a.b.f"), call("run", "ab.f"), call("run", "os.path.join"), call("", "a.b.f")),
        ),
    )
    e = r.all_edges()
    assert imports_of(e, "main.py") == {"a/b.py"}
    assert externals_of(e, "main.py") == {"os.path"}
    assert targets_of(e, sid("main.py", "run")) == {sid("a/b.py", "f")}
    assert unresolved_of(e, sid("main.py", "run")) == {"os.path.join"}
    # a call at file level uses the file id as caller
    assert (fid("main.py"), sid("a/b.py", "f")) in calls2(e)


def test_python_relative_imports() -> None:
    r = make(
        pf("pkg/__init__.py"),
        pf("pkg/helpers.py", syms=(sym("h"),)),
        pf("pkg/sub/__init__.py"),
        pf("pkg/sub/mod.py", syms=(sym("g"),)),
        pf(
            "pkg/sub/user.py",
            syms=(sym("run"),),
            imports=(
                imp(".", "mod"),  # from . import mod  (submodule)
                imp("..", "helpers"),  # from .. import helpers
                imp("..helpers", "h", alias="hh"),  # from ..helpers import h as hh
                imp(".missing", "x"),
                imp("....toohigh", "y"),
            ),
            calls=(call("run", "mod.g"), call("run", "helpers.h"), call("run", "hh"), call("run", "x")),
        ),
    )
    e = r.all_edges()
    assert imports_of(e, "pkg/sub/user.py") == {
        "pkg/sub/__init__.py",
        "pkg/sub/mod.py",
        "pkg/__init__.py",
        "pkg/helpers.py",
    }
    # unresolvable relative specifiers are still recorded, as written
    assert externals_of(e, "pkg/sub/user.py") == {".missing", "....toohigh"}
    assert targets_of(e, sid("pkg/sub/user.py", "run")) == {
        sid("pkg/sub/mod.py", "g"),
        sid("pkg/helpers.py", "h"),
    }
    assert unresolved_of(e, sid("pkg/sub/user.py", "run")) == {"x"}


def test_python_from_package_import_submodule_and_reexport() -> None:
    r = make(
        pf("pkg/__init__.py", imports=(imp(".impl", "Foo"),)),
        pf("pkg/impl.py", syms=(sym("Foo", CLASS), sym("Foo.run", METHOD), sym("make"))),
        pf(
            "main.py",
            imports=(imp("pkg", "impl", "Foo"),),
            calls=(call("", "Foo"), call("", "impl.make"), call("", "Foo.run"), call("", "impl.Foo.run")),
        ),
    )
    e = r.all_edges()
    # `from pkg import impl` imports the submodule file (and the package itself)
    assert imports_of(e, "main.py") == {"pkg/__init__.py", "pkg/impl.py"}
    assert targets_of(e, fid("main.py")) == {
        sid("pkg/impl.py", "Foo", CLASS),  # through the re-export in pkg/__init__.py
        sid("pkg/impl.py", "make"),
        sid("pkg/impl.py", "Foo.run", METHOD),
    }
    assert imports_of(e, "pkg/__init__.py") == {"pkg/impl.py"}


def test_python_package_exposes_submodules_and_star_imports() -> None:
    r = make(
        pf("pkg/__init__.py", imports=(imp(".core", "*"),)),
        pf("pkg/core.py", syms=(sym("core_fn"),)),
        pf("pkg/extra.py", syms=(sym("extra_fn"),)),
        pf(
            "main.py",
            imports=(imp("pkg"), imp("pkg", "*", alias=None)),
            calls=(call("", "pkg.extra.extra_fn"), call("", "pkg.core_fn"), call("", "core_fn")),
        ),
    )
    e = r.all_edges()
    assert targets_of(e, fid("main.py")) == {sid("pkg/extra.py", "extra_fn"), sid("pkg/core.py", "core_fn")}


def test_python_self_cls_super_and_bases_across_files() -> None:
    r = make(
        pf("base.py", syms=(sym("Base", CLASS), sym("Base.helper", METHOD), sym("Base.shared", METHOD))),
        pf(
            "child.py",
            syms=(
                sym("Child", CLASS),
                sym("Child.run", METHOD),
                sym("Child.own", METHOD),
                sym("Child.shared", METHOD),
                sym("Child.make", METHOD),
            ),
            imports=(imp("base", "Base"),),
            calls=(
                call("Child.run", "self.helper"),
                call("Child.run", "self.own"),
                call("Child.run", "super().shared"),
                call("Child.make", "cls.own"),
                call("Child.run", "self.missing"),
            ),
            inherits=(inh("Child", "Base"),),
        ),
    )
    e = r.all_edges()
    assert (sid("child.py", "Child", CLASS), sid("base.py", "Base", CLASS), INHERITS) in bases3(e)
    assert targets_of(e, sid("child.py", "Child.run", METHOD)) == {
        sid("base.py", "Base.helper", METHOD),
        sid("child.py", "Child.own", METHOD),
        sid("base.py", "Base.shared", METHOD),  # super() skips Child.shared
    }
    assert targets_of(e, sid("child.py", "Child.make", METHOD)) == {sid("child.py", "Child.own", METHOD)}
    assert unresolved_of(e, sid("child.py", "Child.run", METHOD)) == {"self.missing"}


def test_python_bare_names_nested_local_class_and_builtins() -> None:
    r = make(
        pf(
            "m.py",
            syms=(
                sym("outer"),
                sym("outer.inner"),
                sym("helper"),
                sym("Thing", CLASS),
                sym("Thing.__init__", METHOD),
                sym("Thing.method", METHOD),
            ),
            calls=(
                call("outer", "inner"),
                call("outer", "helper"),
                call("outer", "Thing"),
                call("outer", "print"),
                call("outer.inner", "helper"),
                call("outer.inner", "inner"),
                call("helper", "inner"),  # not visible outside outer
                call("Thing.method", "method"),  # class scope is not visible in Python
                call("", "helper"),
            ),
        )
    )
    e = r.all_edges()
    assert targets_of(e, sid("m.py", "outer")) == {
        sid("m.py", "outer.inner"),
        sid("m.py", "helper"),
        sid("m.py", "Thing", CLASS),  # calling a class links to the class symbol
    }
    assert unresolved_of(e, sid("m.py", "outer")) == {"print"}
    assert targets_of(e, sid("m.py", "outer.inner")) == {sid("m.py", "helper"), sid("m.py", "outer.inner")}
    assert unresolved_of(e, sid("m.py", "helper")) == {"inner"}
    assert unresolved_of(e, sid("m.py", "Thing.method", METHOD)) == {"method"}
    assert targets_of(e, fid("m.py")) == {sid("m.py", "helper")}


def test_python_method_name_heuristic() -> None:
    r = make(
        pf(
            "svc.py",
            syms=(sym("Service", CLASS), sym("Service.register_user", METHOD), sym("Service.dup", METHOD)),
        ),
        pf("other.py", syms=(sym("Other", CLASS), sym("Other.process", METHOD))),
        pf("third.py", syms=(sym("Third", CLASS), sym("Third.dup", METHOD), sym("Third.append", METHOD))),
        pf(
            "main.py",
            syms=(sym("run"),),
            imports=(imp("svc", "Service"), imp("third", "Third"), imp("numpy", alias="np")),
            calls=(
                call("run", "obj.register_user"),  # unique among imported files
                call("run", "self.svc.register_user"),  # attribute chains too
                call("run", "y.process"),  # not imported, but unique repo-wide
                call("run", "x.dup"),  # ambiguous among imports
                call("run", "items.append"),  # too common a name
                call("run", "Unknown.process"),  # looks like a type name
                call("run", "np.process"),  # receiver is an external import
            ),
        ),
    )
    e = r.all_edges()
    caller = sid("main.py", "run")
    assert targets_of(e, caller) == {
        sid("svc.py", "Service.register_user", METHOD),
        sid("other.py", "Other.process", METHOD),
    }
    assert unresolved_of(e, caller) == {"x.dup", "items.append", "Unknown.process", "np.process"}


def test_python_first_internal_binding_wins() -> None:
    r = make(
        pf("posixpath.py", syms=(sym("join"),)),
        pf("ntpath.py", syms=(sym("join"),)),
        pf(
            "os.py",
            imports=(imp("_speedups", "fast"), imp("posixpath", alias="path"), imp("ntpath", alias="path")),
            syms=(sym("fast"),),
        ),
        pf("main.py", imports=(imp("os"),), calls=(call("", "os.path.join"),)),
        # `import os.path`: os.path is an attribute of os.py, not a file
        pf("main2.py", imports=(imp("os.path"),), calls=(call("", "os.path.join"),)),
        pf("impl.py", syms=(sym("X", CLASS), sym("X.run", METHOD))),
        # try: from _c import X / except ImportError: from impl import X
        pf("main3.py", imports=(imp("_c", "X"), imp("impl", "X")), calls=(call("", "X.run"),)),
    )
    e = r.all_edges()
    assert targets_of(e, fid("main.py")) == {sid("posixpath.py", "join")}
    assert imports_of(e, "os.py") == {"posixpath.py", "ntpath.py"}
    assert imports_of(e, "main2.py") == {"os.py"}
    assert externals_of(e, "main2.py") == set()
    assert targets_of(e, fid("main2.py")) == {sid("posixpath.py", "join")}
    assert targets_of(e, fid("main3.py")) == {sid("impl.py", "X.run", METHOD)}


def test_star_import_cycles_terminate() -> None:
    n = 30
    files = [
        pf(
            f"m{i}.py",
            imports=tuple(imp(f"m{(i + k) % n}", "*") for k in range(1, 4)),
            calls=(call("", "nowhere"),),
        )
        for i in range(n)
    ]
    files[7] = pf("m7.py", syms=(sym("target"),), imports=files[7].imports)
    r = make(*files, pf("main.py", imports=(imp("m0", "*"),), calls=(call("", "target"), call("", "nowhere"))))
    start = time.process_time()
    e = r.all_edges()
    assert time.process_time() - start < 1.0
    assert targets_of(e, fid("main.py")) == {sid("m7.py", "target")}
    assert unresolved_of(e, fid("main.py")) == {"nowhere"}


def test_python_inherits_resolution_and_unresolved() -> None:
    r = make(
        pf("models.py", syms=(sym("Model", CLASS), sym("mixin"))),
        pf(
            "app.py",
            syms=(sym("A", CLASS), sym("B", CLASS), sym("C", CLASS), sym("Model", CLASS), sym("D", CLASS)),
            imports=(imp("models"),),
            inherits=(
                inh("A", "models.Model"),
                inh("B", "A"),
                inh("C", "Generic[T]"),
                inh("D", "models.mixin"),  # not a class
                inh("Model", "models.Model"),
            ),
        ),
    )
    e = r.all_edges()
    assert set(bases3(e)) == {
        (sid("app.py", "A", CLASS), sid("models.py", "Model", CLASS), INHERITS),
        (sid("app.py", "B", CLASS), sid("app.py", "A", CLASS), INHERITS),
        (sid("app.py", "Model", CLASS), sid("models.py", "Model", CLASS), INHERITS),
    }
    assert set(e.unresolved_inherits) == {
        (sid("app.py", "C", CLASS), "Generic[T]", INHERITS),
        (sid("app.py", "D", CLASS), "models.mixin", INHERITS),
    }


def test_python_class_named_like_import_inherits_import() -> None:
    r = make(
        pf("lib.py", syms=(sym("Foo", CLASS),)),
        pf("app.py", syms=(sym("Foo", CLASS),), imports=(imp("lib", "Foo"),), inherits=(inh("Foo", "Foo"),)),
    )
    e = r.all_edges()
    assert bases3(e) == ((sid("app.py", "Foo", CLASS), sid("lib.py", "Foo", CLASS), INHERITS),)


def test_python_src_root_and_script_dirs(tmp_path: Path) -> None:
    paths = [
        "pyproject.toml",
        "src/proj/__init__.py",
        "src/proj/core.py",
        "scripts/tool.py",
        "scripts/helper.py",
    ]
    for p in paths:
        (tmp_path / p).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / p).write_text("")
    facts = read_repo_facts(tmp_path, [p for p in paths if p.endswith(".py")])
    assert facts.python_roots == ("", "src")
    r = make(
        pf("src/proj/__init__.py"),
        pf("src/proj/core.py", syms=(sym("work"),)),
        pf("scripts/helper.py", syms=(sym("assist"),)),
        pf(
            "scripts/tool.py",
            imports=(imp("proj.core", "work"), imp("helper", "assist")),
            calls=(call("", "work"), call("", "assist")),
        ),
        facts=facts,
    )
    e = r.all_edges()
    assert imports_of(e, "scripts/tool.py") == {"src/proj/core.py", "scripts/helper.py"}
    assert targets_of(e, fid("scripts/tool.py")) == {
        sid("src/proj/core.py", "work"),
        sid("scripts/helper.py", "assist"),
    }


# --------------------------------------------------------------------------- JavaScript / TypeScript


def test_js_relative_probing_index_and_externals() -> None:
    r = make(
        pf("src/util/index.ts", syms=(sym("fmt"),)),
        pf("src/lib/math.ts", syms=(sym("add"),)),
        pf("src/lib/esm.ts", syms=(sym("esmFn"),)),
        pf("src/lib/types.d.ts", syms=(sym("Shape", K.INTERFACE),)),
        pf("src/old.jsx", syms=(sym("Old"),)),
        pf(
            "src/app.ts",
            syms=(sym("main"),),
            imports=(
                imp("./util", "fmt"),
                imp("./lib/math", "add", alias="plus"),
                imp("./lib/esm.js", "esmFn"),
                imp("./lib/types", "Shape"),
                imp("./old", "default", alias="Old"),
                imp("react", "*", alias="React"),
                imp("./missing", "nope"),
                imp("../../outside", "x"),
            ),
            calls=(
                call("main", "fmt"),
                call("main", "plus"),
                call("main", "esmFn"),
                call("main", "Old"),
                call("main", "React.createElement"),
                call("main", "nope"),
            ),
        ),
    )
    e = r.all_edges()
    assert imports_of(e, "src/app.ts") == {
        "src/util/index.ts",
        "src/lib/math.ts",
        "src/lib/esm.ts",
        "src/lib/types.d.ts",
        "src/old.jsx",
    }
    assert externals_of(e, "src/app.ts") == {"react", "./missing", "../../outside"}
    assert targets_of(e, sid("src/app.ts", "main")) == {
        sid("src/util/index.ts", "fmt"),
        sid("src/lib/math.ts", "add"),
        sid("src/lib/esm.ts", "esmFn"),
        sid("src/old.jsx", "Old"),
    }
    assert unresolved_of(e, sid("src/app.ts", "main")) == {"React.createElement", "nope"}


def test_js_namespace_default_commonjs_this_super() -> None:
    r = make(
        pf(
            "src/models.js",
            syms=(
                sym("User", CLASS),
                sym("User.greet", METHOD),
                sym("Admin", CLASS),
                sym("Admin.greet", METHOD),
            ),
            calls=(call("Admin.greet", "super.greet"),),
            inherits=(inh("Admin", "User"),),
        ),
        pf("src/widget.js", syms=(sym("Widget", CLASS),)),
        pf("src/enc.cjs", syms=(sym("digest"), sym("b64"))),
        pf(
            "src/service.js",
            syms=(sym("Service", CLASS), sym("Service.run", METHOD), sym("Service.helper", METHOD)),
            imports=(
                imp("./models.js", "*", alias="models"),
                imp("./widget", "default", alias="W"),
                imp("./enc.cjs", "default", alias="enc"),
            ),
            calls=(
                call("Service.run", "models.User"),
                call("Service.run", "W"),
                call("Service.run", "enc.digest"),
                call("Service.run", "this.helper"),
            ),
            inherits=(inh("Service", "models.User"),),
        ),
    )
    e = r.all_edges()
    assert targets_of(e, sid("src/service.js", "Service.run", METHOD)) == {
        sid("src/models.js", "User", CLASS),
        sid("src/widget.js", "Widget", CLASS),  # the single top-level class is the default
        sid("src/enc.cjs", "digest"),  # CommonJS object export: default import acts as a module
        sid("src/service.js", "Service.helper", METHOD),
    }
    assert targets_of(e, sid("src/models.js", "Admin.greet", METHOD)) == {sid("src/models.js", "User.greet", METHOD)}
    assert (
        sid("src/service.js", "Service", CLASS),
        sid("src/models.js", "User", CLASS),
        INHERITS,
    ) in bases3(e)


def test_js_tsconfig_paths_and_base_url(tmp_path: Path) -> None:
    (tmp_path / "tsconfig.json").write_text(
        """{
          // comment
          "compilerOptions": {
            "baseUrl": ".", /* block */
            "paths": {"@/*": ["src/*"], "~lib": ["src/lib/index.ts"],},
          },
        }"""
    )
    paths = ["src/util/index.ts", "src/lib/index.ts", "src/app.ts"]
    facts = read_repo_facts(tmp_path, paths)
    assert facts.js_base_dirs == ("",)
    assert facts.js_path_aliases == {"@/*": ("src/*",), "~lib": ("src/lib/index.ts",)}
    r = make(
        pf("src/util/index.ts", syms=(sym("fmt"),)),
        pf("src/lib/index.ts", syms=(sym("lib"),)),
        pf(
            "src/app.ts",
            imports=(
                imp("@/util", "fmt"),
                imp("~lib", "lib"),
                imp("src/lib", "lib", alias="l2"),
                imp("lodash"),
            ),
        ),
        facts=facts,
    )
    e = r.all_edges()
    assert imports_of(e, "src/app.ts") == {"src/util/index.ts", "src/lib/index.ts"}
    assert externals_of(e, "src/app.ts") == {"lodash"}


def test_ts_namespace_member_call() -> None:
    r = make(
        pf("src/enc.ts", syms=(sym("Base64", K.MODULE), sym("Base64.encode"))),
        pf("src/use.ts", imports=(imp("./enc", "Base64"),), calls=(call("", "Base64.encode"),)),
    )
    assert targets_of(r.all_edges(), fid("src/use.ts")) == {sid("src/enc.ts", "Base64.encode")}


# --------------------------------------------------------------------------- Go

GO_FACTS = RepoFacts(go_modules={"": "example.com/app"})


def _go_repo() -> list[ParsedFile]:
    return [
        pf(
            "auth/service.go",
            package="auth",
            syms=(sym("Login"), sym("Service", K.STRUCT), sym("Service.Handle", METHOD)),
            calls=(
                call("Login", "Hash"),
                call("Service.Handle", "s.validate"),
                call("Service.Handle", "s.Nope"),
            ),
        ),
        pf("auth/crypto.go", package="auth", syms=(sym("Hash"),)),
        pf("auth/validate.go", package="auth", syms=(sym("Service.validate", METHOD, detached=True),)),
        pf("auth/crypto_test.go", package="auth", syms=(sym("TestHash"),)),
        pf("models/user.go", package="models", syms=(sym("NewUser"),)),
        pf(
            "main.go",
            package="main",
            syms=(sym("main"),),
            imports=(imp("example.com/app/auth"), imp("example.com/app/models", alias="m"), imp("fmt")),
            calls=(
                call("main", "auth.Login"),
                call("main", "m.NewUser"),
                call("main", "fmt.Println"),
                call("main", "auth.TestHash"),
            ),
        ),
        pf("main_test.go", package="main", imports=(imp("example.com/app/auth"),)),
    ]


def test_go_package_dir_imports_via_go_mod() -> None:
    e = make(*_go_repo(), facts=GO_FACTS).all_edges()
    assert imports_of(e, "main.go") == {
        "auth/service.go",
        "auth/crypto.go",
        "auth/validate.go",
        "models/user.go",
    }
    assert externals_of(e, "main.go") == {"fmt"}
    # a test importer also sees the package's test files
    assert "auth/crypto_test.go" in imports_of(e, "main_test.go")
    assert targets_of(e, sid("main.go", "main")) == {
        sid("auth/service.go", "Login"),
        sid("models/user.go", "NewUser"),
    }
    assert unresolved_of(e, sid("main.go", "main")) == {"fmt.Println", "auth.TestHash"}


def test_go_same_package_and_receiver_methods() -> None:
    e = make(*_go_repo(), facts=GO_FACTS).all_edges()
    assert targets_of(e, sid("auth/service.go", "Login")) == {sid("auth/crypto.go", "Hash")}
    # receiver method declared in another file of the package
    assert targets_of(e, sid("auth/service.go", "Service.Handle", METHOD)) == {
        sid("auth/validate.go", "Service.validate", METHOD)
    }
    assert unresolved_of(e, sid("auth/service.go", "Service.Handle", METHOD)) == {"s.Nope"}


def test_go_embedding_and_method_promotion() -> None:
    r = make(
        pf(
            "m/user.go",
            package="m",
            syms=(
                sym("Base", K.STRUCT),
                sym("Base.ID", METHOD),
                sym("User", K.STRUCT),
                sym("User.Describe", METHOD),
            ),
            calls=(call("User.Describe", "u.ID"),),
            inherits=(inh("User", "Base"),),
        ),
        facts=GO_FACTS,
    )
    e = r.all_edges()
    assert bases3(e) == ((sid("m/user.go", "User", K.STRUCT), sid("m/user.go", "Base", K.STRUCT), INHERITS),)
    assert targets_of(e, sid("m/user.go", "User.Describe", METHOD)) == {sid("m/user.go", "Base.ID", METHOD)}


# --------------------------------------------------------------------------- Rust

RUST_FACTS = RepoFacts(rust_crate_roots=("src/lib.rs",), rust_crate_names={"mycrate": "src/lib.rs"})


def _rust_repo() -> list[ParsedFile]:
    return [
        pf(
            "src/lib.rs",
            imports=(
                imp("util", mod=True),
                imp("net", mod=True),
                imp("a", mod=True),
                imp("shapes", mod=True),
            ),
        ),
        pf(
            "src/util.rs",
            syms=(
                sym("helper"),
                sym("Point", K.STRUCT),
                sym("Point.new", METHOD),
                sym("Point.area", METHOD),
                sym("Point.scale", METHOD),
            ),
            imports=(imp("crate::shapes", "Shape"), imp("std::fmt", "Display")),
            calls=(call("Point.scale", "self.area"), call("Point.scale", "Self::new")),
            inherits=(inh("Point", "Shape", IMPLEMENTS), inh("Point", "fmt::Display", IMPLEMENTS)),
        ),
        pf("src/shapes.rs", syms=(sym("Shape", K.TRAIT), sym("Shape.area", METHOD))),
        pf("src/net/mod.rs", syms=(sym("connect"),), imports=(imp("tcp", mod=True),)),
        pf(
            "src/net/tcp.rs",
            syms=(sym("open"),),
            imports=(
                imp("crate::util", "Point", "helper"),
                imp("std::collections", "HashMap"),
                imp("super", "connect"),
            ),
            calls=(
                call("open", "super::connect"),
                call("open", "crate::util::helper"),
                call("open", "Point::new"),
                call("open", "helper"),
                call("open", "HashMap::new"),
                call("open", "connect"),
                call("open", "println!"),
            ),
        ),
        pf("src/a.rs", imports=(imp("b", mod=True),)),
        pf(
            "src/a/b.rs",
            syms=(sym("deep"),),
            imports=(imp("crate::net", "self", "tcp"),),
            calls=(call("deep", "tcp::open"), call("deep", "net::connect")),
        ),
        pf("src/main.rs", imports=(imp("mycrate::util", "helper"),), calls=(call("", "helper"),)),
    ]


def test_rust_mod_declarations() -> None:
    e = make(*_rust_repo(), facts=RUST_FACTS).all_edges()
    assert imports_of(e, "src/lib.rs") == {"src/util.rs", "src/net/mod.rs", "src/a.rs", "src/shapes.rs"}
    assert imports_of(e, "src/net/mod.rs") == {"src/net/tcp.rs"}
    # a non-mod.rs file declares its children in <dir>/<stem>/ (Rust 2018)
    assert imports_of(e, "src/a.rs") == {"src/a/b.rs"}


def test_rust_use_paths_and_calls() -> None:
    e = make(*_rust_repo(), facts=RUST_FACTS).all_edges()
    assert imports_of(e, "src/net/tcp.rs") == {"src/util.rs", "src/net/mod.rs"}
    assert externals_of(e, "src/net/tcp.rs") == {"std::collections"}
    caller = sid("src/net/tcp.rs", "open")
    assert targets_of(e, caller) == {
        sid("src/net/mod.rs", "connect"),
        sid("src/util.rs", "helper"),
        sid("src/util.rs", "Point.new", METHOD),
    }
    assert unresolved_of(e, caller) == {"HashMap::new", "println!"}
    assert imports_of(e, "src/a/b.rs") == {"src/net/mod.rs", "src/net/tcp.rs"}
    assert targets_of(e, sid("src/a/b.rs", "deep")) == {
        sid("src/net/tcp.rs", "open"),
        sid("src/net/mod.rs", "connect"),
    }
    # another crate of the workspace by name
    assert imports_of(e, "src/main.rs") == {"src/util.rs"}
    assert targets_of(e, fid("src/main.rs")) == {sid("src/util.rs", "helper")}


def test_rust_self_calls_and_impl_traits() -> None:
    e = make(*_rust_repo(), facts=RUST_FACTS).all_edges()
    assert targets_of(e, sid("src/util.rs", "Point.scale", METHOD)) == {
        sid("src/util.rs", "Point.area", METHOD),
        sid("src/util.rs", "Point.new", METHOD),
    }
    assert (
        sid("src/util.rs", "Point", K.STRUCT),
        sid("src/shapes.rs", "Shape", K.TRAIT),
        IMPLEMENTS,
    ) in bases3(e)
    assert (sid("src/util.rs", "Point", K.STRUCT), "fmt::Display", IMPLEMENTS) in e.unresolved_inherits


def test_rust_impl_in_other_file() -> None:
    r = make(
        pf("src/lib.rs", imports=(imp("model", mod=True), imp("ops", mod=True))),
        pf("src/model.rs", syms=(sym("Point", K.STRUCT),)),
        pf(
            "src/ops.rs",
            syms=(sym("Point.len", METHOD, detached=True), sym("Point.norm", METHOD, detached=True)),
            imports=(imp("crate::model", "Point"),),
            calls=(call("Point.norm", "self.len"),),
        ),
        pf("src/user.rs", imports=(imp("crate::model", "Point"),), calls=(call("", "Point::norm"),)),
        pf(
            "src/traits.rs",
            syms=(sym("Norm", K.TRAIT),),
            imports=(imp("crate::model", "Point"),),
            inherits=(inh("Point", "Norm", IMPLEMENTS), inh("Vec", "Norm", IMPLEMENTS)),
        ),
        facts=RepoFacts(),  # no Cargo facts: lib.rs/main.rs are taken as crate roots
    )
    e = r.all_edges()
    assert targets_of(e, sid("src/ops.rs", "Point.norm", METHOD)) == {sid("src/ops.rs", "Point.len", METHOD)}
    assert targets_of(e, fid("src/user.rs")) == {sid("src/ops.rs", "Point.norm", METHOD)}
    # `impl Norm for Point` in another file than the struct: the child is resolved by name
    assert bases3(e) == ((sid("src/model.rs", "Point", K.STRUCT), sid("src/traits.rs", "Norm", K.TRAIT), IMPLEMENTS),)
    # `impl Norm for Vec`: the type is not in the repository, kept as a reference of the file
    assert e.unresolved_inherits == ((fid("src/traits.rs"), "Norm", IMPLEMENTS),)


# --------------------------------------------------------------------------- Java

J = "src/main/java/com/x"


def _java_repo() -> list[ParsedFile]:
    return [
        pf(f"{J}/model/Entity.java", package="com.x.model", syms=(sym("Entity", K.INTERFACE),)),
        pf(
            f"{J}/model/User.java",
            package="com.x.model",
            syms=(
                sym("User", CLASS),
                sym("User.User", METHOD),
                sym("User.getId", METHOD),
                sym("User.Admin", CLASS),
            ),
            inherits=(inh("User", "Entity", IMPLEMENTS), inh("User.Admin", "User")),
        ),
        pf(f"{J}/model/Role.java", package="com.x.model", syms=(sym("Role", K.ENUM),)),
        pf(
            f"{J}/service/BaseSvc.java",
            package="com.x.service",
            syms=(sym("BaseSvc", CLASS), sym("BaseSvc.helper", METHOD)),
        ),
        pf(
            f"{J}/service/Helper.java",
            package="com.x.service",
            syms=(sym("Helper", CLASS), sym("Helper.assist", METHOD)),
        ),
        pf(
            f"{J}/service/Svc.java",
            package="com.x.service",
            syms=(sym("Svc", CLASS), sym("Svc.run", METHOD), sym("Svc.go", METHOD)),
            imports=(imp("com.x.model", "User"), imp("com.x.service.Helper", "assist")),
            calls=(
                call("Svc.run", "User"),
                call("Svc.run", "Helper.assist"),
                call("Svc.run", "helper"),
                call("Svc.run", "this.go"),
                call("Svc.run", "go"),
                call("Svc.run", "assist"),
                call("Svc.run", "System.out.println"),
            ),
            inherits=(inh("Svc", "BaseSvc"),),
        ),
        pf(
            f"{J}/app/App.java",
            package="com.x.app",
            syms=(sym("App", CLASS), sym("App.main", METHOD)),
            imports=(imp("com.x.model", "*"), imp("com.x.service", "Svc"), imp("java.util", "List")),
            calls=(call("App.main", "User"), call("App.main", "Svc"), call("App.main", "List.of")),
        ),
    ]


def test_java_imports_wildcard_and_external() -> None:
    e = make(*_java_repo()).all_edges()
    assert imports_of(e, f"{J}/app/App.java") == {
        f"{J}/model/Entity.java",
        f"{J}/model/User.java",
        f"{J}/model/Role.java",
        f"{J}/service/Svc.java",
    }
    assert externals_of(e, f"{J}/app/App.java") == {"java.util"}
    assert targets_of(e, sid(f"{J}/app/App.java", "App.main", METHOD)) == {
        sid(f"{J}/model/User.java", "User", CLASS),
        sid(f"{J}/service/Svc.java", "Svc", CLASS),
    }
    # static import: the outer type's file
    assert imports_of(e, f"{J}/service/Svc.java") == {f"{J}/model/User.java", f"{J}/service/Helper.java"}


def test_java_same_package_inherited_and_this_calls() -> None:
    e = make(*_java_repo()).all_edges()
    svc = f"{J}/service/Svc.java"
    assert targets_of(e, sid(svc, "Svc.run", METHOD)) == {
        sid(f"{J}/model/User.java", "User", CLASS),
        sid(f"{J}/service/Helper.java", "Helper.assist", METHOD),  # same package, no import
        sid(f"{J}/service/BaseSvc.java", "BaseSvc.helper", METHOD),  # inherited, implicit this
        sid(svc, "Svc.go", METHOD),
    }
    assert unresolved_of(e, sid(svc, "Svc.run", METHOD)) == {"System.out.println"}
    assert (
        sid(svc, "Svc", CLASS),
        sid(f"{J}/service/BaseSvc.java", "BaseSvc", CLASS),
        INHERITS,
    ) in bases3(e)
    user = f"{J}/model/User.java"
    assert (
        sid(user, "User", CLASS),
        sid(f"{J}/model/Entity.java", "Entity", K.INTERFACE),
        IMPLEMENTS,
    ) in bases3(e)
    # a nested class extending its outer class: the name is the class, not its constructor
    assert (sid(user, "User.Admin", CLASS), sid(user, "User", CLASS), INHERITS) in bases3(e)


# --------------------------------------------------------------------------- incremental


def test_incremental_set_and_remove_file() -> None:
    r = make(
        pf("b.py", syms=(sym("f"),)),
        pf("a.py", imports=(imp("b"), imp("c", "g")), calls=(call("", "b.f"), call("", "g"))),
    )
    e = r.edges_for(["a.py"])
    assert imports_of(e, "a.py") == {"b.py"}
    assert externals_of(e, "a.py") == {"c"}
    assert targets_of(e, fid("a.py")) == {sid("b.py", "f")}
    assert r.dependents_of(["b.py"]) == {"a.py"}
    assert r.dependents_of(["c.py"]) == {"a.py"}  # a probe candidate that does not exist yet

    # a new file makes an external import internal
    r.set_file(pf("c.py", syms=(sym("g"),)))
    assert r.dependents_of(["c.py"]) == {"a.py"}
    e = r.edges_for(["a.py"])
    assert imports_of(e, "a.py") == {"b.py", "c.py"}
    assert externals_of(e, "a.py") == set()
    assert targets_of(e, fid("a.py")) == {sid("b.py", "f"), sid("c.py", "g")}

    # a changed file changes its importers' call resolution
    r.set_file(pf("b.py", syms=(sym("f2"),)))
    e = r.edges_for(["a.py"])
    assert unresolved_of(e, fid("a.py")) == {"b.f"}

    r.remove_file("c.py")
    assert r.dependents_of(["c.py"]) == {"a.py"}
    e = r.edges_for(["a.py"])
    assert externals_of(e, "a.py") == {"c"}
    assert r.paths() == {"a.py", "b.py"}
    # edges_for only reports outgoing edges of the requested files
    assert {a for a, _, _c in e.imports} | {a for a, _ in e.external_imports} == {fid("a.py")}
    assert r.edges_for(["nope.py"]) == ResolvedEdges()


def test_incremental_structural_changes_reach_importers() -> None:
    r = make(
        pf("scripts/helper.py", syms=(sym("assist"),)),
        pf("scripts/tool.py", imports=(imp("helper", "assist"),), calls=(call("", "assist"),)),
        pf(f"{J}/model/A.java", package="com.x.model", syms=(sym("A", CLASS),)),
        pf(
            f"{J}/app/App.java",
            package="com.x.app",
            imports=(imp("com.x.model", "B"),),
            calls=(call("", "B"),),
        ),
    )
    e = r.all_edges()
    assert targets_of(e, fid("scripts/tool.py")) == {sid("scripts/helper.py", "assist")}
    assert externals_of(e, f"{J}/app/App.java") == {"com.x.model"}
    # scripts/ becomes a package: its directory is no longer an import root
    r.set_file(pf("scripts/__init__.py"))
    assert "scripts/tool.py" in r.dependents_of(["scripts/__init__.py"])
    assert externals_of(r.edges_for(["scripts/tool.py"]), "scripts/tool.py") == {"helper"}
    # a Java file starts declaring the imported type
    r.set_file(pf(f"{J}/model/A.java", package="com.x.model", syms=(sym("A", CLASS), sym("B", CLASS))))
    e = r.edges_for([f"{J}/app/App.java"])
    assert imports_of(e, f"{J}/app/App.java") == {f"{J}/model/A.java"}
    assert targets_of(e, fid(f"{J}/app/App.java")) == {sid(f"{J}/model/A.java", "B", CLASS)}


def test_dependents_follow_reexports_bases_and_packages() -> None:
    r = make(
        pf("pkg/__init__.py", imports=(imp(".impl", "Foo"),)),
        pf("pkg/impl.py", syms=(sym("Foo", CLASS), sym("Foo.m", METHOD))),
        pf("main.py", imports=(imp("pkg", "Foo"),), calls=(call("", "Foo"),)),
        pf("unrelated.py"),
        *_go_repo(),
        *_java_repo(),
        facts=GO_FACTS,
    )
    r.all_edges()
    assert r.dependents_of(["pkg/impl.py"]) == {"pkg/__init__.py", "main.py"}
    assert r.dependents_of(["auth/crypto.go"]) == {
        "auth/service.go",
        "auth/validate.go",
        "auth/crypto_test.go",
        "main.go",
        "main_test.go",
    }
    base = f"{J}/service/BaseSvc.java"
    deps = r.dependents_of([base])
    assert f"{J}/service/Svc.java" in deps
    assert f"{J}/model/User.java" not in deps
    r.remove_file(base)
    assert f"{J}/service/Svc.java" in r.dependents_of([base])  # package remembered after removal
    user = f"{J}/model/User.java"
    r.set_file(pf(user, package="com.x.other", syms=(sym("User", CLASS),)))
    assert {f"{J}/app/App.java", f"{J}/service/Svc.java"} <= r.dependents_of([user])  # moved package
    assert f"{J}/model/User.java" not in imports_of(r.edges_for([f"{J}/service/Svc.java"]), f"{J}/service/Svc.java")


def test_set_facts_changes_resolution() -> None:
    r = make(
        pf("svc/x.go", package="svc", syms=(sym("X"),)),
        pf("main.go", package="main", imports=(imp("ex.com/m/svc"),)),
    )
    assert externals_of(r.all_edges(), "main.go") == {"ex.com/m/svc"}
    r.set_facts(RepoFacts(go_modules={"": "ex.com/m"}))
    assert imports_of(r.all_edges(), "main.go") == {"svc/x.go"}


def test_deterministic_and_deduplicated() -> None:
    files = _java_repo()
    a = make(*files).all_edges()
    b = make(*reversed(files)).all_edges()
    assert a == b
    r = make(pf("m.py", syms=(sym("f"), sym("g")), calls=(call("g", "f"), call("g", "f"))))
    assert r.all_edges().calls == ((sid("m.py", "g"), sid("m.py", "f"), Confidence.SAME_MODULE),)


def test_unknown_caller_and_junk_callee() -> None:
    r = make(
        pf(
            "m.py",
            syms=(sym("f"), sym("g")),
            calls=(call("f.<lambda>", "g"), call("ghost", "g"), call("f", "a().b"), call("f", "x[0]")),
        )
    )
    e = r.all_edges()
    assert targets_of(e, sid("m.py", "f")) == {sid("m.py", "g")}
    assert targets_of(e, fid("m.py")) == {sid("m.py", "g")}
    assert unresolved_of(e, sid("m.py", "f")) == {"a().b", "x[0]"}


# --------------------------------------------------------------------------- facts


def test_read_repo_facts_manifests_and_junk(tmp_path: Path) -> None:
    def write(rel: str, text: str) -> None:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)

    write("go.mod", "// comment\nmodule example.com/app\n\ngo 1.22\n")
    write("tools/go.mod", 'module "example.com/tools" // quoted\n')
    write("broken/go.mod", "this is not a go.mod\n")
    write("Cargo.toml", '[package]\nname = "my-crate"\n\n[[bin]]\nname = "cli"\npath = "src/cli.rs"\n')
    write("crates/x/Cargo.toml", "[package\nname = broken")
    write("web/jsconfig.json", "{ not json")
    paths = [
        "main.go",
        "tools/t.go",
        "broken/b.go",
        "src/lib.rs",
        "src/main.rs",
        "src/cli.rs",
        "src/bin/extra.rs",
        "crates/x/src/lib.rs",
        "web/app.js",
    ]
    facts = read_repo_facts(tmp_path, paths)
    assert facts.go_modules == {"": "example.com/app", "tools": "example.com/tools"}
    # a malformed Cargo.toml still marks a crate with the default layout
    assert facts.rust_crate_roots == (
        "src/lib.rs",
        "src/main.rs",
        "src/cli.rs",
        "src/bin/extra.rs",
        "crates/x/src/lib.rs",
    )
    assert facts.rust_crate_names == {"my_crate": "src/lib.rs"}
    assert facts.js_base_dirs == ()
    assert facts.python_roots == ("",)
    assert read_repo_facts(tmp_path / "missing", ["a.go"]) == RepoFacts(
        go_modules={}, rust_crate_roots=(), js_base_dirs=(), python_roots=("",)
    )


# --------------------------------------------------------------------------- performance


def test_all_edges_scales_linearly() -> None:
    """Synthetic repo of ~150k calls; generous CPU-time bound for loaded CI machines."""
    files: list[ParsedFile] = []
    n = 500
    for i in range(n):
        syms_ = [sym(f"C{i}", CLASS)]
        syms_ += [sym(f"C{i}.m{j}", METHOD) for j in range(20)]
        syms_ += [sym(f"f{j}") for j in range(20)]
        imports = tuple(imp(f"pkg.mod{(i + k) % n}", f"C{(i + k) % n}") for k in range(1, 6))
        calls = []
        for j in range(20):
            for k in range(15):
                calls.append(call(f"C{i}.m{j}", f"self.m{(j + k) % 20}" if k % 3 else f"f{k}"))
            calls.append(call(f"f{j}", f"C{(i + 1) % n}"))
            calls.append(call(f"f{j}", f"obj.m{j}"))
            calls.append(call(f"f{j}", "print"))
        files.append(pf(f"pkg/mod{i}.py", syms=tuple(syms_), imports=imports, calls=tuple(calls)))
    r = make(*files)
    start = time.process_time()
    e = r.all_edges()
    elapsed = time.process_time() - start
    assert len(e.calls) > 100_000
    assert elapsed < 3.0, elapsed
    start = time.process_time()
    r.set_file(files[7])
    r.edges_for([files[7].path])
    assert time.process_time() - start < 0.1


# --------------------------------------------------------------------------- fixture repos

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"


def _fixture_resolver(name: str, *, frozen: bool = False) -> RepoResolver:
    parsing = pytest.importorskip("graphmemd.ingest.parsing")
    root = FIXTURES / name
    if not root.is_dir():
        pytest.skip(f"fixture repo {name} missing")
    paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    r = RepoResolver(R, read_repo_facts(root, paths))
    for p in paths:
        if parsing.language_for_path(p) is not None:
            r.set_file(parsing.parse_source(p, (root / p).read_bytes()), frozen=frozen)
    return r


def _fixture_edges(name: str) -> ResolvedEdges:
    return _fixture_resolver(name).all_edges()


@pytest.mark.parametrize("name", ["python", "javascript", "typescript", "go", "rust", "java"])
def test_frozen_files_resolve_as_live_ones(name: str) -> None:
    """A file's planned calls kept compact (set frozen, as a warm restart hands them over, or
    frozen by an earlier resolution) resolve exactly as the live ones do, and the compact form
    really replaced them."""
    live = _fixture_resolver(name)
    expected = live.all_edges()
    assert expected.calls
    assert all(fi._planned is None and fi._local_vars is None for fi in live.files.values())  # every resolution freezes
    assert live.all_edges() == expected  # resolved again from the compact form
    frozen = _fixture_resolver(name, frozen=True)
    assert all(fi._planned is None and fi._local_vars is None and fi._blob for fi in frozen.files.values())
    assert frozen.all_edges() == expected
    assert frozen.stats() == live.stats()
    fresh = _fixture_resolver(name)  # never resolved: every file still live
    checked = 0
    for path, fi in fresh.files.items():
        cold = frozen.files[path]
        assert cold.module_vars == fi.module_vars
        for scope, names in (fi._local_vars or {}).items():
            for var, t in names.items():  # a frozen file decodes its local types when asked
                assert cold.var_type(scope, var) == fi.var_type(scope, var) == t
                checked += 1
    assert checked or name not in ("python", "go", "java"), "the fixture states no local types: test nothing"


def test_fixture_python() -> None:
    e = _fixture_edges("python")
    assert imports_of(e, "app/api/routes.py") >= {
        "app/auth/service.py",
        "app/models.py",
        "app/util/encoding.py",
    }
    assert (sid("app/api/routes.py", "health"), sid("app/util/encoding.py", "b64")) in calls2(e)
    assert (sid("app/api/routes.py", "promote"), sid("app/models.py", "Admin", CLASS)) in calls2(e)  # via alias
    assert (
        sid("app/auth/crypto.py", "make_token"),
        sid("app/auth/crypto.py", "make_token.payload"),
    ) in calls2(e)
    assert (
        sid("app/auth/service.py", "AuthService.login", METHOD),
        sid("app/auth/crypto.py", "make_token"),
    ) in calls2(e)
    assert (sid("app/models.py", "Admin", CLASS), sid("app/models.py", "User", CLASS), INHERITS) in bases3(e)
    assert "dataclasses" in externals_of(e, "app/models.py")


def test_fixture_javascript() -> None:
    e = _fixture_edges("javascript")
    assert imports_of(e, "src/server.js") == {"src/auth/service.js", "src/models.js", "src/polyfills.js"}
    assert imports_of(e, "src/auth/crypto.js") == {"src/util/encoding.cjs"}
    assert (sid("src/auth/crypto.js", "hashPassword"), sid("src/util/encoding.cjs", "digest")) in calls2(e)
    assert (
        sid("src/auth/service.js", "AuthService.login", METHOD),
        sid("src/auth/crypto.js", "makeToken"),
    ) in calls2(e)
    assert (
        sid("src/models.js", "Admin.displayName", METHOD),
        sid("src/models.js", "User.displayName", METHOD),
    ) in calls2(e)
    assert (sid("src/models.js", "Admin", CLASS), sid("src/models.js", "User", CLASS), INHERITS) in bases3(e)


def test_fixture_typescript() -> None:
    e = _fixture_edges("typescript")
    assert imports_of(e, "src/auth/crypto.ts") == {"src/util/encoding.ts"}
    assert (sid("src/auth/crypto.ts", "makeToken"), sid("src/util/encoding.ts", "Base64.encode")) in calls2(e)
    assert (
        sid("src/components/UserCard.tsx", "SignUp.onClick"),
        sid("src/server.ts", "createUser"),
    ) in calls2(e)
    assert "react" in externals_of(e, "src/components/UserCard.tsx")
    assert (sid("src/models.ts", "User", CLASS), sid("src/models.ts", "Model", CLASS), INHERITS) in bases3(e)


def test_fixture_go() -> None:
    e = _fixture_edges("go")
    assert imports_of(e, "main.go") == {"auth/crypto.go", "auth/service.go"}
    assert (sid("main.go", "main"), sid("auth/service.go", "NewService")) in calls2(e)
    assert (sid("auth/service.go", "Service.Register", METHOD), sid("models/user.go", "NewUser")) in calls2(e)
    assert (sid("auth/service.go", "Service.Login", METHOD), sid("auth/crypto.go", "MakeToken")) in calls2(e)
    assert (
        sid("models/user.go", "User.Describe", METHOD),
        sid("models/user.go", "Base.ID", METHOD),
    ) in calls2(e)
    assert {"fmt", "log"} <= externals_of(e, "main.go")


def test_fixture_rust() -> None:
    e = _fixture_edges("rust")
    assert imports_of(e, "src/main.rs") >= {"src/auth/mod.rs", "src/encoding.rs", "src/models.rs"}
    assert "src/auth/crypto.rs" in imports_of(e, "src/auth/mod.rs")
    assert (sid("src/main.rs", "main"), sid("src/auth/mod.rs", "AuthService.new", METHOD)) in calls2(e)
    assert (
        sid("src/auth/mod.rs", "AuthService.register", METHOD),
        sid("src/models.rs", "User.new", METHOD),
    ) in calls2(e)
    assert (sid("src/auth/crypto.rs", "make_token"), sid("src/encoding.rs", "hex.encode")) in calls2(e)
    assert (
        sid("src/models.rs", "User", K.STRUCT),
        sid("src/models.rs", "Entity", K.TRAIT),
        IMPLEMENTS,
    ) in bases3(e)


def test_fixture_java() -> None:
    e = _fixture_edges("java")
    base = "src/main/java/com/example/shop"
    assert imports_of(e, f"{base}/Main.java") == {f"{base}/auth/AuthService.java"}
    login = sid(f"{base}/auth/AuthService.java", "AuthService.login", METHOD)
    assert (login, sid(f"{base}/auth/Crypto.java", "Crypto.hashPassword", METHOD)) in calls2(e)
    assert (login, sid(f"{base}/auth/AuthService.java", "AuthService.AuthException", CLASS)) in calls2(e)
    # static import
    assert (
        sid(f"{base}/auth/Crypto.java", "Crypto.hashPassword", METHOD),
        sid(f"{base}/util/Encoding.java", "Encoding.digest", METHOD),
    ) in calls2(e)
    user = f"{base}/model/User.java"
    assert (sid(user, "User.Admin", CLASS), sid(user, "User", CLASS), INHERITS) in bases3(e)
    assert (
        sid(user, "User", CLASS),
        sid(f"{base}/model/Entity.java", "Entity", K.INTERFACE),
        IMPLEMENTS,
    ) in bases3(e)


def test_a_guess_never_links_a_delegating_method_to_itself() -> None:
    r = make(
        pf(
            "net.py",
            syms=(sym("Udp", CLASS), sym("Udp.peek_from", METHOD), sym("Udp.recv", METHOD)),
            calls=(call("Udp.peek_from", "self.inner.peek_from"), call("Udp.recv", "self.inner.peek_from")),
        )
    )
    e = r.all_edges()
    target = sid("net.py", "Udp.peek_from", METHOD)
    assert targets_of(e, target) == set()  # delegation, not recursion
    assert unresolved_of(e, target) == {"self.inner.peek_from"}
    assert targets_of(e, sid("net.py", "Udp.recv", METHOD)) == {target}  # still a (name-only) guess elsewhere
    assert {c for a, b, c in e.calls} == {Confidence.NAME_ONLY}
