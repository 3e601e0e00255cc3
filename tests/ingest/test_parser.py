"""Parser tests against the fixture repos (expectations written by hand from the sources)."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphmemd.graph.model import InheritKind, Language, ParsedFile, SymbolKind
from graphmemd.ingest.parsing import SUPPORTED_EXTENSIONS, bare_parse, language_for_path, parse_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"

C = SymbolKind.CLASS
F = SymbolKind.FUNCTION
M = SymbolKind.METHOD
I = SymbolKind.INTERFACE  # noqa: E741
S = SymbolKind.STRUCT
T = SymbolKind.TRAIT
E = SymbolKind.ENUM
MOD = SymbolKind.MODULE
INH = InheritKind.INHERITS
IMPL = InheritKind.IMPLEMENTS


def parse(lang: str, rel: str) -> ParsedFile:
    data = (FIXTURES / lang / rel).read_bytes()
    parsed = parse_source(rel, data)
    assert parsed.path == rel
    assert parsed.syntax_errors == 0
    assert parsed.truncated is None
    return parsed


def symbols(parsed: ParsedFile) -> set[tuple[str, SymbolKind]]:
    found = [(s.qualname, s.kind) for s in parsed.symbols]
    assert len(found) == len(set(found)), "ids must be unique in a file"
    return set(found)


def parents(parsed: ParsedFile) -> dict[str, str | None]:
    return {s.qualname: s.parent for s in parsed.symbols}


def imports(parsed: ParsedFile) -> list[tuple[str, tuple[str, ...], str | None]]:
    return [(i.module, i.names, i.alias) for i in parsed.imports]


def calls(parsed: ParsedFile) -> set[tuple[str, str]]:
    for call in parsed.calls:
        assert call.name == call.callee.replace("::", ".").rsplit(".", 1)[-1]
    return {(c.caller, c.callee) for c in parsed.calls}


def inherits(parsed: ParsedFile) -> set[tuple[str, str, InheritKind]]:
    return {(h.child, h.parent, h.kind) for h in parsed.inherits}


# ----------------------------------------------------------------------------- API


def test_language_for_path() -> None:
    expected = {
        "a.py": Language.PYTHON,
        "a/b.js": Language.JAVASCRIPT,
        "a.mjs": Language.JAVASCRIPT,
        "a.cjs": Language.JAVASCRIPT,
        "a.jsx": Language.JAVASCRIPT,
        "a.ts": Language.TYPESCRIPT,
        "a.mts": Language.TYPESCRIPT,
        "a.cts": Language.TYPESCRIPT,
        "C.TSX": Language.TSX,
        "main.go": Language.GO,
        "lib.rs": Language.RUST,
        "A.java": Language.JAVA,
        "a.c": Language.C,
        "a.h": Language.CPP,
        "a.cc": Language.CPP,
        "a.cpp": Language.CPP,
        "A.HPP": Language.CPP,
    }
    for path, language in expected.items():
        assert language_for_path(path) is language
    for path in ("README.md", "Makefile", ".py", "dir.py/file", "x.pyc", "a.o"):
        assert language_for_path(path) is None
    assert {
        ".py",
        ".js",
        ".mjs",
        ".cjs",
        ".jsx",
        ".ts",
        ".mts",
        ".cts",
        ".tsx",
        ".go",
        ".rs",
        ".java",
    } <= set(SUPPORTED_EXTENSIONS)


def test_unknown_language_raises() -> None:
    with pytest.raises(ValueError, match="language"):
        parse_source("notes.txt", b"hello")
    assert parse_source("notes.txt", b"def f(): pass\n", Language.PYTHON).symbols[0].name == "f"


def test_bare_parse_returns_count() -> None:
    assert bare_parse(b"def f():\n    return 1\n", Language.PYTHON) > 3
    assert bare_parse(b"", Language.GO) >= 1


def test_symbol_fields() -> None:
    parsed = parse("python", "app/auth/service.py")
    login = next(s for s in parsed.symbols if s.qualname == "AuthService.login")
    assert (login.name, login.start_line, login.end_line) == ("login", 22, 26)
    data = (FIXTURES / "python" / "app/auth/service.py").read_bytes()
    assert data[login.start_byte : login.end_byte].startswith(b"def login(")
    assert data[login.start_byte : login.end_byte].endswith(b"return make_token(user.id)")
    assert login.signature == "def login(self,email:str,password:str)->str:"
    assert len(login.sig_hash) == 32  # annotated: structure half + with-annotations half
    assert len(login.body_hash) == 16
    assert parsed.lines == 26
    # symbols come in source order
    assert [s.start_byte for s in parsed.symbols] == sorted(s.start_byte for s in parsed.symbols)


# ----------------------------------------------------------------------------- Python


def test_python_routes() -> None:
    p = parse("python", "app/api/routes.py")
    assert symbols(p) == {("create_user", F), ("promote", F), ("health", F)}
    assert imports(p) == [
        ("app.auth.service", ("AuthService",), None),
        ("app.models", ("Admin",), "AdminUser"),
        ("app.models", ("User",), None),
        ("..util", ("encoding",), None),
    ]
    assert calls(p) == {
        ("", "AuthService"),
        ("create_user", "auth.register"),
        ("create_user", "auth.login"),
        ("promote", "AdminUser"),
        ("health", "encoding.b64"),
    }
    assert inherits(p) == set()
    assert p.package is None


def test_python_package_init() -> None:
    p = parse("python", "app/auth/__init__.py")
    assert symbols(p) == set()
    assert imports(p) == [(".service", ("AuthError", "AuthService"), None)]
    assert parse("python", "app/util/__init__.py").lines == 0


def test_python_service() -> None:
    p = parse("python", "app/auth/service.py")
    assert symbols(p) == {
        ("AuthError", C),
        ("AuthService", C),
        ("AuthService.__init__", M),
        ("AuthService.register", M),
        ("AuthService.login", M),
    }
    assert parents(p) == {
        "AuthError": None,
        "AuthService": None,
        "AuthService.__init__": "AuthService",
        "AuthService.register": "AuthService",
        "AuthService.login": "AuthService",
    }
    assert imports(p) == [
        ("app.auth.crypto", ("hash_password", "make_token"), None),
        ("app.models", ("User",), None),
    ]
    assert calls(p) == {
        ("AuthService.register", "User"),
        ("AuthService.register", "len"),
        ("AuthService.register", "hash_password"),
        ("AuthService.login", "self.users.get"),
        ("AuthService.login", "hash_password"),
        ("AuthService.login", "AuthError"),
        ("AuthService.login", "make_token"),
    }
    assert inherits(p) == {("AuthError", "Exception", INH)}


def test_python_crypto_nested_function() -> None:
    p = parse("python", "app/auth/crypto.py")
    assert symbols(p) == {("hash_password", F), ("make_token", F), ("make_token.payload", F)}
    assert parents(p)["make_token.payload"] == "make_token"
    assert imports(p) == [("app.util.encoding", ("b64", "digest"), None)]
    assert calls(p) == {
        ("hash_password", "digest"),
        ("make_token.payload", "str"),
        ("make_token.payload", "str().encode"),  # str(user_id).encode(): a chained call keeps its receiver call
        ("make_token", "b64"),
        ("make_token", "payload"),
    }


def test_python_models() -> None:
    p = parse("python", "app/models.py")
    assert symbols(p) == {
        ("Model", C),
        ("Model.save", M),
        ("User", C),
        ("User.Meta", C),
        ("User.display_name", M),
        ("Admin", C),
        ("Admin.display_name", M),
    }
    assert parents(p)["User.Meta"] == "User"
    user = next(s for s in p.symbols if s.qualname == "User")
    assert user.start_line == 13  # the decorator belongs to the definition
    assert user.signature == "@dataclass class User(Model):"
    assert inherits(p) == {("User", "Model", INH), ("Admin", "User", INH)}
    assert imports(p) == [("dataclasses", ("dataclass",), None)]
    assert calls(p) == {
        ("User.display_name", "self.email.split"),
        ("Admin.display_name", "super"),
        ("Admin.display_name", "super.display_name"),
    }


def test_python_encoding() -> None:
    p = parse("python", "app/util/encoding.py")
    assert symbols(p) == {("to_bytes", F), ("b64", F), ("digest", F)}
    assert imports(p) == [("base64", (), None), ("hashlib", (), None)]
    assert calls(p) == {
        ("to_bytes", "value.encode"),
        ("b64", "base64.b64encode"),
        ("b64", "base64.b64encode().decode"),
        ("digest", "to_bytes"),
        ("digest", "hashlib.sha256"),
        ("digest", "hashlib.sha256().hexdigest"),
    }


def test_python_import_forms() -> None:
    src = b"""
import os
import a.b as ab, c
from __future__ import annotations
from . import sibling
from .. import up as u, other
from x.y import *
"""
    p = parse_source("m.py", src)
    assert imports(p) == [
        ("os", (), None),
        ("a.b", (), "ab"),
        ("c", (), None),
        ("__future__", ("annotations",), None),
        (".", ("sibling",), None),
        ("..", ("up",), "u"),
        ("..", ("other",), None),
        ("x.y", ("*",), None),
    ]
    assert [i.line for i in p.imports] == [2, 3, 3, 4, 5, 6, 6, 7]


def test_python_duplicates_get_disambiguated() -> None:
    src = b"""
class A:
    @property
    def x(self): return 1

    @x.setter
    def x(self, v): pass

def f(): pass
def f(): g()
"""
    p = parse_source("d.py", src)
    assert [(s.qualname, s.kind) for s in p.symbols] == [
        ("A", C),
        ("A.x", M),
        ("A.x~2", M),
        ("f", F),
        ("f~2", F),
    ]
    assert calls(p) == {("f~2", "g")}


# ----------------------------------------------------------------------------- JavaScript


def test_javascript_fixture() -> None:
    crypto = parse("javascript", "src/auth/crypto.js")
    assert symbols(crypto) == {("hashPassword", F), ("makeToken", F), ("makeToken.payload", F)}
    assert imports(crypto) == [("../util/encoding.cjs", ("default",), "encoding")]
    assert calls(crypto) == {
        ("hashPassword", "encoding.digest"),
        ("makeToken.payload", "JSON.stringify"),
        ("makeToken", "encoding.b64"),
        ("makeToken", "payload"),
    }

    service = parse("javascript", "src/auth/service.js")
    assert symbols(service) == {
        ("AuthError", C),
        ("AuthService", C),
        ("AuthService.constructor", M),
        ("AuthService.register", M),
        ("AuthService.login", M),
    }
    assert imports(service) == [
        ("./crypto.js", ("hashPassword",), None),
        ("./crypto.js", ("makeToken",), "issueToken"),
        ("../models.js", ("*",), "models"),
    ]
    assert calls(service) == {
        ("AuthService.constructor", "Map"),
        ("AuthService.register", "models.User"),
        ("AuthService.register", "hashPassword"),
        ("AuthService.register", "this.users.set"),
        ("AuthService.login", "this.users.get"),
        ("AuthService.login", "hashPassword"),
        ("AuthService.login", "AuthError"),
        ("AuthService.login", "issueToken"),
    }
    assert inherits(service) == {("AuthError", "Error", INH)}

    models = parse("javascript", "src/models.js")
    assert symbols(models) == {
        ("Model", C),
        ("Model.save", M),
        ("User", C),
        ("User.constructor", M),
        ("User.displayName", M),
        ("Admin", C),
        ("Admin.displayName", M),
    }
    assert parents(models)["Admin.displayName"] == "Admin"
    assert inherits(models) == {("User", "Model", INH), ("Admin", "User", INH)}
    assert calls(models) == {
        ("User.displayName", "this.email.split"),
        ("Admin.displayName", "super.displayName"),
    }

    server = parse("javascript", "src/server.js")
    assert symbols(server) == {("createUser", F), ("promote", F), ("handler", F), ("handler.respond", F)}
    assert imports(server) == [
        ("./auth/service.js", ("AuthService",), None),
        ("./models.js", ("Admin",), None),
        ("./polyfills.js", (), None),
    ]
    assert calls(server) == {
        ("", "AuthService"),
        ("createUser", "auth.register"),
        ("createUser", "auth.login"),
        ("promote", "Admin"),
        ("handler", "respond"),
        ("handler", "createUser"),
    }

    encoding = parse("javascript", "src/util/encoding.cjs")
    assert encoding.language is Language.JAVASCRIPT
    assert symbols(encoding) == {("toBytes", F), ("digest", F), ("b64", F)}
    assert imports(encoding) == [("node:crypto", (), "crypto")]
    assert calls(encoding) == {
        ("", "require"),
        ("toBytes", "Buffer.from"),
        ("digest", "crypto.createHash"),
        ("digest", "hash.update"),
        ("digest", "toBytes"),
        ("digest", "hash.digest"),
        ("b64", "Buffer.from"),
        ("b64", "Buffer.from().toString"),
    }

    polyfills = parse("javascript", "src/polyfills.js")
    assert symbols(polyfills) == set()
    assert calls(polyfills) == {("", "JSON.parse"), ("", "JSON.stringify")}


def test_javascript_import_forms() -> None:
    src = b"""
import def, { a, b as c } from "./m";
export * from "./all";
export { x as y } from "./re";
const { p, q } = require("pq");
const lazy = import("./lazy");
"""
    p = parse_source("x.mjs", src)
    assert imports(p) == [
        ("./m", ("default",), "def"),
        ("./m", ("a",), None),
        ("./m", ("b",), "c"),
        ("./all", ("*",), None),
        ("./re", ("x",), "y"),
        ("pq", ("p", "q"), None),
        ("./lazy", (), None),
    ]


def test_javascript_functions_assigned_at_module_level() -> None:
    """CommonJS libraries define their API by assignment (express: ``res.send = function
    send(body) {…}``, 28 of lib/response.js's functions, none a symbol before): a function or
    arrow assigned at a module's top level to ``obj.name`` is ``obj.name`` (a method),
    ``Foo.prototype.name`` is ``Foo``'s method, ``exports.name`` / ``module.exports.name`` is
    ``name``; so are the functions of an object a module names or exports at its top level
    (``const api = { get() {} }`` -> ``api.get``, ``module.exports = { parse() {} }`` ->
    ``parse``). Inside a function such an assignment or object (an event handler) stays the
    function's code, and ``module.exports = function create() {}`` defines no name of its own."""
    src = b"""
var res = Object.create(http.ServerResponse.prototype);
res.send = function send(body) { return this.end(body); };
res.json = (obj) => res.send(JSON.stringify(obj));
function Router() {}
Router.prototype.handle = function handle(req) { return req; };
exports.create = function (opts) { return new Router(opts); };
module.exports.version = () => "1";
function init() { window.onload = function () {}; }
module.exports = function createApplication() {};
res[method] = function () {};
const api = { get(url) { return fetch(url); }, post: function (u, b) { return u; }, name: "api" };
module.exports = { parse(x) { return x; }, stringify: (v) => String(v) };
function outer() { const local = { m() {} }; }
"""
    p = parse_source("lib/response.js", src)
    assert symbols(p) == {
        ("res.send", M), ("res.json", M), ("Router", F), ("Router.handle", M), ("create", F), ("version", F),
        ("init", F), ("api.get", M), ("api.post", M), ("parse", F), ("stringify", F), ("outer", F),
    }  # fmt: skip
    assert parents(p)["Router.handle"] == "Router"
    assert parents(p)["res.send"] is None  # ``res`` is an object, not a symbol of the file
    assert calls(p) >= {("res.send", "this.end"), ("res.json", "res.send")}
    by_name = {s.qualname: s for s in p.symbols}
    assert by_name["res.send"].signature == "res.send=function send(body)"


# ----------------------------------------------------------------------------- TypeScript


def test_typescript_fixture() -> None:
    encoding = parse("typescript", "src/util/encoding.ts")
    assert symbols(encoding) == {("toBytes", F), ("digest", F), ("Base64", MOD), ("Base64.encode", F)}
    assert parents(encoding)["Base64.encode"] == "Base64"
    assert imports(encoding) == [("node:crypto", ("createHash",), None)]
    assert calls(encoding) == {
        ("toBytes", "TextEncoder"),
        ("toBytes", "TextEncoder().encode"),
        ("digest", "createHash"),
        ("digest", "createHash().update"),
        ("digest", "toBytes"),
        ("digest", "createHash().update().digest"),
        ("Base64.encode", "Buffer.from"),
        ("Base64.encode", "Buffer.from().toString"),
    }

    crypto = parse("typescript", "src/auth/crypto.ts")
    assert symbols(crypto) == {("hashPassword", F), ("makeToken", F), ("makeToken.payload", F)}
    assert imports(crypto) == [("../util/encoding", ("Base64", "digest"), None)]
    assert calls(crypto) == {
        ("hashPassword", "digest"),
        ("makeToken.payload", "TextEncoder"),
        ("makeToken.payload", "TextEncoder().encode"),
        ("makeToken.payload", "String"),
        ("makeToken", "Base64.encode"),
        ("makeToken", "payload"),
    }

    models = parse("typescript", "src/models.ts")
    assert symbols(models) == {
        ("Entity", I),
        ("Entity.describe", M),
        ("Named", I),
        ("Role", E),
        ("Model", C),
        ("Model.constructor", M),
        ("Model.describe", M),
        ("User", C),
        ("User.constructor", M),
        ("User.describe", M),
    }
    assert inherits(models) == {
        ("Named", "Entity", INH),
        ("Model", "Entity", IMPL),
        ("User", "Model", INH),
        ("User", "Named", IMPL),
    }
    assert calls(models) == set()

    service = parse("typescript", "src/auth/service.ts")
    assert symbols(service) == {
        ("AuthError", C),
        ("AuthService", C),
        ("AuthService.register", M),
        ("AuthService.login", M),
    }
    assert imports(service) == [
        ("../models", ("UserMap",), None),
        ("../models", ("User",), None),
        ("./crypto", ("hashPassword", "makeToken"), None),
    ]
    assert calls(service) == {
        ("AuthService", "Map"),
        ("AuthService.register", "User"),
        ("AuthService.register", "hashPassword"),
        ("AuthService.register", "this.users.set"),
        ("AuthService.login", "this.users.get"),
        ("AuthService.login", "hashPassword"),
        ("AuthService.login", "AuthError"),
        ("AuthService.login", "makeToken"),
    }
    assert inherits(service) == {("AuthError", "Error", INH)}

    server = parse("typescript", "src/server.ts")
    assert symbols(server) == {("createUser", F)}
    assert imports(server) == [("./auth/service", ("AuthService",), None)]
    assert calls(server) == {
        ("", "AuthService"),
        ("createUser", "auth.register"),
        ("createUser", "auth.login"),
    }


def test_tsx_fixture() -> None:
    card = parse("typescript", "src/components/UserCard.tsx")
    assert card.language is Language.TSX
    assert symbols(card) == {
        ("UserCardProps", I),
        ("UserCard", F),
        ("SignUp", F),
        ("SignUp.onClick", F),
        ("UserList", F),
    }
    assert imports(card) == [
        ("react", ("*",), "React"),
        ("../models", ("User",), None),
        ("../server", ("createUser",), None),
    ]
    assert calls(card) == {
        ("UserCard", "user.describe"),
        ("SignUp.onClick", "createUser"),
        ("UserList", "users.map"),
        ("UserList", "UserCard"),  # <UserCard .../> uses the component; <div> does not
    }


# ----------------------------------------------------------------------------- Go


def test_go_fixture() -> None:
    encoding = parse("go", "util/encoding.go")
    assert encoding.package == "util"
    assert symbols(encoding) == {("ToBytes", F), ("Digest", F), ("B64", F)}
    assert imports(encoding) == [
        ("crypto/sha256", (), None),
        ("encoding/base64", (), None),
        ("encoding/hex", (), None),
    ]
    assert calls(encoding) == {
        ("Digest", "sha256.Sum256"),
        ("Digest", "ToBytes"),
        ("Digest", "hex.EncodeToString"),
        ("B64", "base64.StdEncoding.EncodeToString"),
    }

    crypto = parse("go", "auth/crypto.go")
    assert crypto.package == "auth"
    assert symbols(crypto) == {("HashPassword", F), ("MakeToken", F), ("MakeToken.payload", F)}
    assert imports(crypto) == [("fmt", (), None), ("example.com/shop/util", (), None)]
    assert calls(crypto) == {
        ("HashPassword", "util.Digest"),
        ("MakeToken.payload", "util.ToBytes"),
        ("MakeToken.payload", "fmt.Sprintf"),
        ("MakeToken", "util.B64"),
        ("MakeToken", "payload"),
    }

    models = parse("go", "models/user.go")
    assert symbols(models) == {
        ("Entity", I),
        ("Entity.ID", M),
        ("Describer", I),
        ("Describer.Describe", M),
        ("Base", S),
        ("Base.ID", M),
        ("User", S),
        ("NewUser", F),
        ("User.Describe", M),
    }
    assert parents(models) == {
        "Entity": None,
        "Entity.ID": "Entity",
        "Describer": None,
        "Describer.Describe": "Describer",
        "Base": None,
        "Base.ID": "Base",
        "User": None,
        "NewUser": None,
        "User.Describe": "User",  # pointer receiver
    }
    assert inherits(models) == {("Describer", "Entity", INH), ("User", "Base", INH)}
    assert calls(models) == {("User.Describe", "fmt.Sprintf"), ("User.Describe", "u.ID")}

    service = parse("go", "auth/service.go")
    assert symbols(service) == {
        ("Service", S),
        ("NewService", F),
        ("Service.Register", M),
        ("Service.Login", M),
    }
    assert imports(service) == [("errors", (), None), ("example.com/shop/models", (), "m")]
    assert calls(service) == {
        ("", "errors.New"),
        ("Service.Register", "m.NewUser"),
        ("Service.Register", "len"),
        ("Service.Register", "HashPassword"),
        ("Service.Login", "HashPassword"),
        ("Service.Login", "MakeToken"),
        ("Service.Login", "user.ID"),
    }

    main = parse("go", "main.go")
    assert main.package == "main"
    assert symbols(main) == {("Server", S), ("Server.CreateUser", M), ("main", F)}
    assert imports(main) == [("fmt", (), None), ("log", (), None), ("example.com/shop/auth", (), None)]
    assert calls(main) == {
        ("Server.CreateUser", "srv.auth.Register"),
        ("Server.CreateUser", "srv.auth.Login"),
        ("main", "auth.NewService"),
        ("main", "srv.CreateUser"),
        ("main", "log.Fatal"),
        ("main", "fmt.Println"),
    }


def test_go_method_on_type_from_other_file() -> None:
    p = parse_source("x.go", b"package x\n\nfunc (s *Store[T]) Get() T { return s.v }\n")
    assert [(s.qualname, s.kind, s.parent) for s in p.symbols] == [("Store.Get", M, None)]


# ----------------------------------------------------------------------------- Rust


def test_rust_fixture() -> None:
    encoding = parse("rust", "src/encoding.rs")
    assert symbols(encoding) == {("to_bytes", F), ("digest", F), ("hex", MOD), ("hex.encode", F)}
    assert parents(encoding)["hex.encode"] == "hex"
    assert imports(encoding) == [
        ("std::collections::hash_map", ("DefaultHasher",), None),
        ("std::hash", ("Hash", "Hasher"), None),
    ]
    assert calls(encoding) == {
        ("to_bytes", "value.as_bytes"),
        ("to_bytes", "value.as_bytes().to_vec"),
        ("digest", "DefaultHasher::new"),
        ("digest", "to_bytes"),
        ("digest", "to_bytes().hash"),
        ("hex.encode", "data.iter"),
        ("hex.encode", "data.iter().map"),
        ("hex.encode", "data.iter().map().collect"),
        # macro invocations are references too (to a macro_rules! definition, when there is one)
        ("digest", "format"),
        ("hex.encode", "format"),
    }

    crypto = parse("rust", "src/auth/crypto.rs")
    assert symbols(crypto) == {("hash_password", F), ("make_token", F), ("make_token.payload", F)}
    assert imports(crypto) == [("crate::encoding", ("self", "digest"), None)]
    assert calls(crypto) == {
        ("hash_password", "digest"),
        ("make_token.payload", "encoding::to_bytes"),
        ("make_token.payload", "id.to_string"),
        ("make_token", "encoding::hex::encode"),
        ("make_token", "payload"),
    }

    auth = parse("rust", "src/auth/mod.rs")
    assert symbols(auth) == {
        ("AuthError", E),
        ("AuthService", S),
        ("AuthService.new", M),
        ("AuthService.register", M),
        ("AuthService.login", M),
    }
    assert parents(auth)["AuthService.login"] == "AuthService"
    assert imports(auth) == [
        ("crypto", (), None),
        ("std::collections", ("HashMap",), None),
        ("self::crypto", ("hash_password", "make_token"), None),
        ("crate::models", ("Entity", "User"), None),
    ]
    assert [i.is_mod_decl for i in auth.imports] == [True, False, False, False]
    assert calls(auth) == {
        ("AuthService.new", "Self::default"),
        ("AuthService.register", "self.users.len"),
        ("AuthService.register", "User::new"),
        ("AuthService.register", "hash_password"),
        ("AuthService.register", "self.users.entry"),
        ("AuthService.register", "email.to_string"),
        ("AuthService.register", "self.users.entry().or_insert"),
        ("AuthService.login", "self.users.get"),
        ("AuthService.login", "hash_password"),
        ("AuthService.login", "Ok"),
        ("AuthService.login", "make_token"),
        ("AuthService.login", "user.id"),
        ("AuthService.login", "Err"),
    }

    models = parse("rust", "src/models.rs")
    assert symbols(models) == {
        ("Entity", T),
        ("Entity.id", M),
        ("Entity.label", M),
        ("Named", T),
        ("Named.name", M),
        ("User", S),
        ("User.new", M),
        ("User.id", M),
        ("User.name", M),
        ("User.fmt", M),
    }
    assert parents(models)["User.fmt"] == "User"
    assert inherits(models) == {
        ("Named", "Entity", INH),
        ("User", "Entity", IMPL),
        ("User", "Named", IMPL),
        ("User", "fmt::Display", IMPL),
    }
    assert imports(models) == [("std", ("fmt",), None)]
    assert calls(models) == {
        ("User.new", "email.to_string"),
        ("User.new", "password_hash.to_string"),
        ("Entity.label", "format"),
        ("User.fmt", "write"),
    }

    main = parse("rust", "src/main.rs")
    assert symbols(main) == {("create_user", F), ("main", F)}
    assert [(i.module, i.names, i.is_mod_decl) for i in main.imports] == [
        ("auth", (), True),
        ("encoding", (), True),
        ("models", (), True),
        ("auth", ("AuthService",), False),
    ]
    assert calls(main) == {
        ("create_user", "service.register"),
        ("create_user", "service.login"),
        ("create_user", "service.login().ok"),
        ("main", "AuthService::new"),
        ("main", "create_user"),
        ("main", "println"),
    }


def test_rust_use_trees_and_impl_scopes() -> None:
    src = b"""use a::{b::{c, d as e}, f::*, self};
use g as h;
impl<T: X> Tr<T> for Vec<T> { fn z() { a::b::<u8>(); x.y::<T>(); } }
mod inner { pub struct P; impl P { fn m(&self) { helper(); } } fn helper() {} }
"""
    p = parse_source("lib.rs", src)
    assert imports(p) == [
        ("a::b", ("c",), None),
        ("a::b", ("d",), "e"),
        ("a::f", ("*",), None),
        ("a", ("self",), None),
        ("", ("g",), "h"),
    ]
    assert [(s.qualname, s.kind, s.parent) for s in p.symbols] == [
        ("Vec.z", M, None),
        ("inner", MOD, None),
        ("inner.P", S, "inner"),
        ("inner.P.m", M, "inner.P"),
        ("inner.helper", F, "inner"),
    ]
    assert inherits(p) == {("Vec", "Tr", IMPL)}
    assert calls(p) == {("Vec.z", "a::b"), ("Vec.z", "x.y"), ("inner.P.m", "helper")}


# ----------------------------------------------------------------------------- Java


JAVA = "src/main/java/com/example/shop/"


def test_java_fixture() -> None:
    main = parse("java", JAVA + "Main.java")
    assert main.package == "com.example.shop"
    assert symbols(main) == {("Main", C), ("Main.createUser", M), ("Main.main", M)}
    assert imports(main) == [("com.example.shop.auth", ("AuthService",), None)]
    assert calls(main) == {
        ("Main", "AuthService"),
        ("Main.createUser", "auth.register"),
        ("Main.createUser", "auth.login"),
        ("Main.main", "Main"),
        ("Main.main", "System.out.println"),
        ("Main.main", "app.createUser"),
    }

    service = parse("java", JAVA + "auth/AuthService.java")
    assert service.package == "com.example.shop.auth"
    assert symbols(service) == {
        ("AuthService", C),
        ("AuthService.AuthException", C),
        ("AuthService.AuthException.AuthException", M),
        ("AuthService.register", M),
        ("AuthService.login", M),
    }
    assert parents(service)["AuthService.AuthException.AuthException"] == "AuthService.AuthException"
    assert imports(service) == [
        ("com.example.shop.model", ("User",), None),
        ("java.util", ("HashMap",), None),
        ("java.util", ("Map",), None),
    ]
    assert calls(service) == {
        ("AuthService", "HashMap"),
        ("AuthService.register", "User"),
        ("AuthService.register", "users.size"),
        ("AuthService.register", "Crypto.hashPassword"),
        ("AuthService.register", "users.put"),
        ("AuthService.login", "users.get"),
        ("AuthService.login", "user.passwordHash"),
        ("AuthService.login", "user.passwordHash().equals"),
        ("AuthService.login", "Crypto.hashPassword"),
        ("AuthService.login", "AuthException"),
        ("AuthService.login", "Crypto.makeToken"),
        ("AuthService.login", "user.id"),
    }
    assert inherits(service) == {("AuthService.AuthException", "RuntimeException", INH)}

    crypto = parse("java", JAVA + "auth/Crypto.java")
    assert [(s.qualname, s.kind) for s in crypto.symbols] == [
        ("Crypto", C),
        ("Crypto.Crypto", M),
        ("Crypto.hashPassword", M),
        ("Crypto.makeToken", M),
        ("Crypto.makeToken~2", M),  # overload
    ]
    assert imports(crypto) == [
        ("com.example.shop.util.Encoding", ("digest",), None),
        ("com.example.shop.util", ("Encoding",), None),
    ]
    assert calls(crypto) == {
        ("Crypto.hashPassword", "digest"),
        ("Crypto.makeToken", "Encoding.b64"),
        ("Crypto.makeToken", "Encoding.toBytes"),
        ("Crypto.makeToken~2", "makeToken"),
    }

    entity = parse("java", JAVA + "model/Entity.java")
    assert symbols(entity) == {("Entity", I), ("Entity.id", M), ("Entity.label", M)}
    assert calls(entity) == {("Entity.label", "id")}

    user = parse("java", JAVA + "model/User.java")
    assert symbols(user) == {
        ("User", C),
        ("User.User", M),
        ("User.id", M),
        ("User.email", M),
        ("User.passwordHash", M),
        ("User.compareTo", M),
        ("User.Admin", C),
        ("User.Admin.Admin", M),
        ("User.Admin.label", M),
    }
    assert inherits(user) == {
        ("User", "Entity", IMPL),
        ("User", "Comparable", IMPL),
        ("User.Admin", "User", INH),
    }
    assert calls(user) == {
        ("User.User", "Objects.requireNonNull"),
        ("User.compareTo", "Long.compare"),
        ("User.Admin.label", "super.label"),
    }

    encoding = parse("java", JAVA + "util/Encoding.java")
    assert symbols(encoding) == {
        ("Encoding", C),
        ("Encoding.Encoding", M),
        ("Encoding.toBytes", M),
        ("Encoding.digest", M),
        ("Encoding.b64", M),
    }
    assert imports(encoding) == [
        ("java.nio.charset", ("StandardCharsets",), None),
        ("java.security", ("MessageDigest",), None),
        ("java.security", ("NoSuchAlgorithmException",), None),
        ("java.util", ("*",), None),
    ]
    assert calls(encoding) == {
        ("Encoding.toBytes", "value.getBytes"),
        ("Encoding.digest", "MessageDigest.getInstance"),
        ("Encoding.digest", "HexFormat.of"),
        ("Encoding.digest", "HexFormat.of().formatHex"),
        ("Encoding.digest", "md.digest"),
        ("Encoding.digest", "toBytes"),
        ("Encoding.digest", "IllegalStateException"),
        ("Encoding.b64", "Base64.getEncoder"),
        ("Encoding.b64", "Base64.getEncoder().encodeToString"),
    }


def test_java_enum_record_interface() -> None:
    src = b"""package p;
interface Shape extends Comparable<Shape> { double area(); }
record Circle(double r) implements Shape { public double area() { return Math.PI * r * r; } }
enum Kind implements Shape { A; public double area() { return 0; } }
"""
    p = parse_source("Shapes.java", src)
    assert symbols(p) == {
        ("Shape", I),
        ("Shape.area", M),
        ("Circle", C),
        ("Circle.area", M),
        ("Kind", E),
        ("Kind.area", M),
    }
    assert inherits(p) == {
        ("Shape", "Comparable", INH),
        ("Circle", "Shape", IMPL),
        ("Kind", "Shape", IMPL),
    }


# ----------------------------------------------------------------------------- call chains


def test_call_chain_across_files_python() -> None:
    """create_user -> AuthService.login -> hash_password -> digest -> to_bytes."""
    routes = parse("python", "app/api/routes.py")
    service = parse("python", "app/auth/service.py")
    crypto = parse("python", "app/auth/crypto.py")
    encoding = parse("python", "app/util/encoding.py")
    assert ("create_user", "login") in {(c.caller, c.name) for c in routes.calls}
    assert ("AuthService.login", "hash_password") in {(c.caller, c.name) for c in service.calls}
    assert ("hash_password", "digest") in {(c.caller, c.name) for c in crypto.calls}
    assert ("digest", "to_bytes") in {(c.caller, c.name) for c in encoding.calls}


# ----------------------------------------------------------------------------- bad input


def test_invalid_utf8() -> None:
    p = parse_source("bad.py", b"def f\xff(a):\n    return '\xc3\x28'\n\ndef ok():\n    g()\n")
    names = {s.name for s in p.symbols}
    assert "ok" in names
    assert all(isinstance(s.signature, str) for s in p.symbols)
    assert ("ok", "g") in calls(p)


def test_binary_garbage() -> None:
    for data in (b"\x00" * 100_000, bytes(range(256)) * 200):
        for language in Language:
            p = parse_source("blob", data, language)
            assert p.language is language
            assert p.syntax_errors > 0 or not p.symbols


def test_empty_file() -> None:
    for language in Language:
        p = parse_source("empty", b"", language)
        assert (p.symbols, p.imports, p.calls, p.inherits, p.lines, p.syntax_errors) == ((), (), (), (), 0, 0)


def test_syntax_errors_keep_intact_functions() -> None:
    src = b"""def good_one(a):
    return helper(a)

def broken(:
    pass

class Fine:
    def method(self):
        return 1
"""
    p = parse_source("broken.py", src)
    assert p.syntax_errors > 0
    found = symbols(p)
    assert ("good_one", F) in found
    assert ("Fine", C) in found
    assert ("Fine.method", M) in found
    assert ("good_one", "helper") in calls(p)

    js = parse_source("broken.js", b"function ok() { run(); }\nfunction bad( { \nclass K { m() {} }\n")
    assert js.syntax_errors > 0
    assert ("ok", F) in symbols(js)


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("deep_list.py", b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n"),
        ("deep_call.py", b"f(" * 5000 + b")" * 5000 + b"\n"),
        ("deep_if.py", b"".join(b" " * i + b"if x:\n" for i in range(5000)) + b" " * 5000 + b"f()\n"),
        ("deep_fn.js", b"function f(){" * 5000 + b"}" * 5000),
        ("deep_if.go", b"package p\nfunc f() {" + b"if x {" * 5000 + b"}" * 5000 + b"}\n"),
        ("deep_mod.rs", b"mod m { " * 5000 + b"}" * 5000),
        ("Deep.java", b"class A {" * 5000 + b"}" * 5000),
    ],
)
def test_deep_nesting(path: str, data: bytes) -> None:
    p = parse_source(path, data)
    assert p.lines >= 1
    if path in ("deep_fn.js", "deep_mod.rs", "Deep.java"):
        assert p.truncated is not None
        assert "nested deeper" in p.truncated
        assert 0 < len(p.symbols) <= 100
    if path == "deep_call.py":
        assert len(p.calls) == 5000


@pytest.mark.timeout(120)
def test_huge_generated_file() -> None:
    chunk = (FIXTURES / "python" / "app/auth/service.py").read_bytes()
    data = b"".join(chunk.replace(b"AuthService", b"AuthService%d" % i) for i in range(20_000_000 // len(chunk)))
    assert len(data) > 19_000_000
    p = parse_source("huge.py", data)
    assert p.truncated is not None
    assert "larger than" in p.truncated
    assert p.lines == data.count(b"\n")
    assert len(p.symbols) > 1000


def test_a_parse_keeps_no_cache_for_the_next_file() -> None:
    """The callee cache lives for one file: kept across files, its entries pinned the
    allocator's arenas (a parse worker grew by ~45 MB over the standard library)."""
    from graphmemd.ingest.parsing import parser as parser_module

    parsed = parse_source("a.py", b"import os\n\ndef f(x):\n    os.path.join('a', x)\n    f(x)\n")
    assert [c.callee for c in parsed.calls] == ["os.path.join", "f"]
    assert not parser_module._callees


def test_python_calls_record_how_they_pass_their_arguments() -> None:
    """Issue 41: each call site's shape (``CallShape.text``): positional count, keyword names,
    a splat; comments are no arguments; a generator argument's call records none."""
    src = b"""
def g(xs, **kw):
    f(1)
    f(1, 2)
    f(a=1, c=3)
    f(1,  # a comment
      b=2)
    f(*xs)
    f(1, **kw)
    f(x for x in xs)
    obj.m(g(b=1), c=2)
"""
    shapes = [(c.line, c.callee, c.shape) for c in parse_source("m.py", src).calls]
    assert shapes == [
        (3, "f", "1"),
        (4, "f", "2"),
        (5, "f", "0:a,c"),
        (6, "f", "1:b"),
        (8, "f", "0*"),
        (9, "f", "1*"),
        (10, "f", ""),
        (11, "obj.m", "1:c"),
        (11, "g", "0:b"),
    ]
    java = parse_source("A.java", b"class A { void m() { f(1, 2); } }")
    assert {c.shape for c in java.calls} == {""}  # no shapes in Java's query: unknown


def test_python_call_shapes_count_only_the_comments_directly_in_their_arguments() -> None:
    """Issue 41: a comment lowers a call's positional count only when it is directly in that
    call's arguments (not in a list among them, not in a call nested in them); a ``#`` in a
    string is no comment."""
    src = b"""
def g():
    f(1, "#not a comment", 2)
    f([1,  # in the list, not in f's arguments
       2], 3)
    f(h(1,  # h's
        2),  # f's
      4)
    # a comment outside any call
    f(1)
"""
    shapes = [(c.line, c.callee, c.shape) for c in parse_source("m.py", src).calls]
    assert shapes == [(3, "f", "3"), (4, "f", "2"), (6, "f", "2"), (6, "h", "2"), (10, "f", "1")]


def test_python_call_shapes_read_only_the_calls_own_keywords_and_splats() -> None:
    """Issue 41: an argument list whose text holds ``=``, ``*`` or ``#`` has its children
    looked at (``reference.call.marks``); such a mark in a string, a comparison, a nested
    call, a lambda's default or a list display is no keyword or splat of the call itself."""
    src = b"""
def g(a, b):
    f("a=b", a == b, h(k=1))
    f(a * b, lambda x=1: x, [*a])
    f(*a, **b, c=1)
"""
    shapes = [(c.line, c.callee, c.shape) for c in parse_source("m.py", src).calls]
    assert shapes == [(3, "f", "3"), (3, "h", "0:k"), (4, "f", "3"), (5, "f", "0*:c")]
