"""The independent oracle of ``bench_docs.py``: which documentation references name code that
no longer exists, judged without any of graphmem's code.

* **Code** (Python's ``ast``, not tree-sitter): the set of importable qualified names of a
  commit. Every module of the package sources (``src/`` or top-level packages, tests
  excluded; ``.py`` and ``.pyi``) binds names: functions, classes (with their methods,
  class-level attributes, nested classes and the members they inherit from classes of the
  repository), module-level assignments, and imports (``from ._make import attrs as s``
  binds ``attr.s`` to what ``attr._make.attrs`` is). A dotted name resolves when following
  those bindings from a module reaches something. A short name (``define``,
  ``Attribute.evolve``) resolves when it is a dotted suffix of a qualified name (what
  Sphinx's search and graphmem's close matches both allow), or under the module the text
  set with ``currentmodule``/``module``/``automodule``.
* **Text** (markdown-it-py and docutils, with this module's own extraction): references are
  Python-domain roles (``:func:`x```, ``{meth}`x```), autodoc and description directives
  (``.. autofunction:: x``, ```` ```{autoclass} x``` ````), inline code and RST default-role
  text that is written like a name (a dotted name, a call ``f()``, a decorator ``@f``, or
  an identifier of 3+ characters), and links or code spans naming a repository path with a
  folder (a bare ``setup.py`` is as often the reader's file as the repository's).

  A bare identifier names a module-level object or a module (not a class member), and not
  one of Python's own special names (``__init__``).

Judged: a reference **stopped resolving** at commit ``c`` when its target does not resolve
at ``c`` although, at an earlier commit, the same file (followed through git's renames:
``docs/api.rst`` → ``docs/api.md``) referenced the same target and it resolved (so a name
written only after it was gone, or one that never was the repository's code —
``typing.ClassVar``, ``functools.partial`` — is not dangling).
"""

from __future__ import annotations

import ast
import inspect
import posixpath
import re
import subprocess
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------- git


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo``; its stdout."""
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def tree(repo: Path, commit: str) -> dict[str, str]:
    """Every file of ``commit``: path -> blob id."""
    out: dict[str, str] = {}
    for line in git(repo, "ls-tree", "-r", "--full-tree", commit).splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, blob = meta.split()
        if kind == "blob":
            out[path] = blob
    return out


class Blobs:
    """Blob contents, read once through one ``git cat-file --batch`` process."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.cache: dict[str, str] = {}

    def text(self, blob: str) -> str:
        """The blob as text (UTF-8, undecodable bytes replaced)."""
        hit = self.cache.get(blob)
        if hit is not None:
            return hit
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(blob.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        size = int(header[2])
        data = self.proc.stdout.read(size + 1)[:size]
        text = data.decode("utf-8", errors="replace")
        self.cache[blob] = text
        return text

    def close(self) -> None:
        """Stop the git process."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)


# ---------------------------------------------------------------------------- code names (ast)


_NOT_PACKAGE = frozenset({"tests", "test", "testing", "docs", "doc", "bench", "benchmarks", "examples", "typing_tests"})


def is_package_source(path: str) -> bool:
    """A ``.py``/``.pyi`` file of the package sources (``src/…`` or a top-level package),
    not tests, docs, benchmarks or build scripts."""
    if not path.endswith((".py", ".pyi")):
        return False
    parts = path.split("/")
    if any(p in _NOT_PACKAGE for p in parts[:-1]):
        return False
    if parts[0] == "src":
        return len(parts) >= 3
    return len(parts) >= 2  # a top-level package folder (a root-level script is not importable API)


def module_name(path: str) -> str:
    """``src/attr/_make.py`` -> ``attr._make``; ``click/__init__.py`` -> ``click``."""
    parts = path.split("/")
    if parts[0] == "src":
        parts = parts[1:]
    last = parts[-1].rsplit(".", 1)[0]
    parts = parts[:-1] if last == "__init__" else [*parts[:-1], last]
    return ".".join(parts)


@dataclass
class ClassDef:
    """A class: its own members (name -> binding) and its base expressions."""

    members: dict[str, Any] = field(default_factory=dict)
    bases: list[str] = field(default_factory=list)
    node: Any = None  # its ``ast.ClassDef`` (decorators, metaclass, constructor)


@dataclass(frozen=True)
class ImportOf:
    """A name bound by an import: ``module`` (absolute) and ``name`` (None: the module itself)."""

    module: str
    name: str | None


_FUNC = "function"  # a function: nothing below it
_VAR = "variable"  # a plain assignment (or an instance attribute set on ``self``)
SERVED = "served with a warning"  # a name a module-level ``__getattr__`` returns after warning
STAR = "*"  # the key of a module's ``from x import *`` sources


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    if isinstance(node, ast.Subscript):  # Generic[T] -> Generic
        return _dotted(node.value)
    return ""


def _targets(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            yield from _targets(elt)


def _instance_attributes(cls: ast.ClassDef) -> Iterator[str]:
    """The attributes a class's methods set on ``self`` (``self.invoked_subcommand = None``)."""
    for item in cls.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(item):
                targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
                if not isinstance(node, ast.Assign | ast.AnnAssign):
                    continue
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        yield t.attr


def _served(hook: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, bool]]:
    """The names a module-level ``__getattr__`` (PEP 562) returns something for — the string
    constants an ``if`` compares its first parameter to (``==``, ``in`` a literal set, tuple
    or list) whose body returns — and whether that body calls a ``warn`` function."""
    if not hook.args.args:
        return
    param = hook.args.args[0].arg
    for node in ast.walk(hook):
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) or len(node.test.ops) != 1:
            continue
        left, right = node.test.left, node.test.comparators[0]
        if isinstance(right, ast.Name) and right.id == param:
            left, right = right, left
        if not (isinstance(left, ast.Name) and left.id == param):
            continue
        inside = [n for stmt in node.body for n in ast.walk(stmt)]
        if not any(isinstance(n, ast.Return) for n in inside):
            continue
        warns = any(isinstance(n, ast.Call) and _dotted(n.func).rsplit(".", 1)[-1] == "warn" for n in inside)
        items = right.elts if isinstance(right, ast.Set | ast.Tuple | ast.List) else [right]
        for item in items:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item.value, warns


def _bind_block(body: Iterable[ast.stmt], module: str, is_pkg: bool, out: dict[str, Any]) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            out.setdefault(stmt.name, _FUNC)
            if stmt.name == "__getattr__":  # a name it still serves is not gone (deprecated or lazy)
                for name, warns in _served(stmt):
                    out.setdefault(name, SERVED if warns else _FUNC)
        elif isinstance(stmt, ast.ClassDef):
            cls = ClassDef(bases=[_dotted(b) for b in stmt.bases if _dotted(b)], node=stmt)
            _bind_block(stmt.body, module, is_pkg, cls.members)
            for name in _instance_attributes(stmt):
                cls.members.setdefault(name, _VAR)
            out[stmt.name] = cls
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                for name in _targets(target):
                    value = stmt.value
                    alias = _dotted(value) if isinstance(value, ast.Name | ast.Attribute) else ""
                    out.setdefault(name, ("alias", alias) if alias else _VAR)
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
            for name in _targets(stmt.target):
                out.setdefault(name, _VAR)
        elif isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname:
                    out[a.asname] = ImportOf(a.name, None)
                else:
                    out.setdefault(a.name.split(".")[0], ImportOf(a.name.split(".")[0], None))
        elif isinstance(stmt, ast.ImportFrom):
            base = _absolute(module, is_pkg, stmt.module, stmt.level)
            for a in stmt.names:
                if a.name == "*":  # the public names of ``base``, looked up when asked
                    out.setdefault(STAR, []).append(base)
                else:
                    out[a.asname or a.name] = ImportOf(base, a.name)
        elif isinstance(stmt, ast.If | ast.Try | ast.With):
            for block in (getattr(stmt, "body", []), getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])):
                _bind_block(block, module, is_pkg, out)
            for handler in getattr(stmt, "handlers", []):
                _bind_block(handler.body, module, is_pkg, out)


def _absolute(module: str, is_pkg: bool, target: str | None, level: int) -> str:
    if level == 0:
        return target or ""
    parts = module.split(".")
    keep = len(parts) - level + (1 if is_pkg else 0)
    base = ".".join(parts[: max(keep, 0)])
    return f"{base}.{target}" if target else base


class CodeNames:
    """The importable names of one commit's package sources."""

    def __init__(self, modules: dict[str, dict[str, Any]]) -> None:
        self.modules = modules
        self._qualified: set[str] | None = None
        self._suffixes: set[str] | None = None
        self._module_level: set[str] | None = None

    @classmethod
    def parse(cls, bindings: dict[str, dict[str, Any]]) -> CodeNames:
        """From each package source's bindings (path -> ``bindings()``)."""
        modules: dict[str, dict[str, Any]] = {}
        for path in sorted(bindings, key=lambda p: p.endswith(".pyi")):  # .py first, .pyi adds
            binds = bindings[path]
            name = module_name(path)
            merged = modules.setdefault(name, {})
            for key, value in binds.items():
                merged.setdefault(key, value)
        return cls(modules)

    @staticmethod
    def bindings(path: str, text: str) -> dict[str, Any] | None:
        """A module's top-level bindings, or None when it does not parse."""
        try:
            tree_ = ast.parse(text, filename=path, type_comments=False)
        except (SyntaxError, ValueError):
            return None
        out: dict[str, Any] = {}
        _bind_block(tree_.body, module_name(path), path.endswith(("__init__.py", "__init__.pyi")), out)
        return out

    # -- resolution ----------------------------------------------------------

    def _lookup(self, module: str, name: str, depth: int) -> Any:
        """What ``module.name`` is: a binding (leaf, ClassDef, ("module", m)), or None."""
        if depth > 8:
            return None
        sub = f"{module}.{name}"
        binds = self.modules.get(module)
        value = binds.get(name) if binds is not None and name != STAR else None
        if value is None:
            if sub in self.modules:
                return ("module", sub)
            if binds is not None and not name.startswith("_"):
                for source in binds.get(STAR, []):
                    found = self._lookup(source, name, depth + 1) if source in self.modules else None
                    if found is not None:
                        return found
            return None
        return self._follow(module, value, depth)

    def names_of(self, module: str, depth: int = 0) -> set[str]:
        """The names ``module`` binds, its ``import *`` sources' public names included."""
        binds = self.modules.get(module, {})
        out = {name for name in binds if name != STAR}
        if depth < 4:
            for source in binds.get(STAR, []):
                out.update(n for n in self.names_of(source, depth + 1) if not n.startswith("_"))
        return out

    def _follow(self, module: str, value: Any, depth: int) -> Any:
        if isinstance(value, ImportOf):
            if value.name is None:
                return ("module", value.module) if value.module in self.modules else None
            if f"{value.module}.{value.name}" in self.modules:
                return ("module", f"{value.module}.{value.name}")
            if value.module not in self.modules:
                return None
            return self._lookup(value.module, value.name, depth + 1)
        if isinstance(value, tuple) and value[0] == "alias":
            head, *rest = value[1].split(".")
            found = self._lookup(module, head, depth + 1)
            for part in rest:
                found = self._member(found, part, depth + 1)
            return found if found is not None else _VAR
        return value

    def _member(self, found: Any, part: str, depth: int) -> Any:
        if found is None or depth > 8:
            return None
        if isinstance(found, tuple) and found[0] == "module":
            return self._lookup(found[1], part, depth)
        if isinstance(found, ClassDef):
            return self._class_members(found, depth).get(part)
        return None

    def _class_members(self, cls: ClassDef, depth: int, module: str = "") -> dict[str, Any]:
        members = dict(cls.members)
        if depth > 6:
            return members
        for base in cls.bases:
            target = self._find_class(base, depth + 1)
            if isinstance(target, ClassDef) and target is not cls:
                for key, value in self._class_members(target, depth + 1).items():
                    members.setdefault(key, value)
        return members

    def _find_class(self, dotted: str, depth: int) -> Any:
        """A base class named ``dotted`` anywhere in the repository (by its last name when
        the module it was imported from is ambiguous)."""
        name = dotted.rsplit(".", 1)[-1]
        for binds in self.modules.values():
            value = binds.get(name) if name != STAR else None
            if isinstance(value, ClassDef):
                return value
        return None

    def resolve_dotted(self, dotted: str) -> bool:
        """Whether the absolute dotted name resolves from a module of the repository."""
        return self.lookup_dotted(dotted) is not None

    def lookup_dotted(self, dotted: str) -> Any:
        """What the absolute dotted name is bound to from a module of the repository (the
        longest module prefix first), or None."""
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            module = ".".join(parts[:i])
            if module in self.modules:
                found: Any = ("module", module)
                for part in parts[i:]:
                    found = self._member(found, part, 0)
                    if found is None:
                        break
                else:
                    return found
        return None

    def qualified(self) -> set[str]:
        """Every qualified name (modules, their bindings, class members two levels deep)."""
        if self._qualified is None:
            out: set[str] = set()
            for module in self.modules:
                out.add(module)
                for name in self.names_of(module):
                    found = self._lookup(module, name, 0)
                    if found is None:
                        continue
                    out.add(f"{module}.{name}")
                    if isinstance(found, ClassDef):
                        for member, value in self._class_members(found, 0).items():
                            out.add(f"{module}.{name}.{member}")
                            if isinstance(value, ClassDef):
                                out.update(f"{module}.{name}.{member}.{m}" for m in value.members)
            self._qualified = out
        return self._qualified

    def suffixes(self) -> set[str]:
        """Every proper dotted suffix of a qualified name (``define``, ``Attribute.evolve``)."""
        if self._suffixes is None:
            out: set[str] = set()
            for q in self.qualified():
                parts = q.split(".")
                for i in range(1, len(parts)):
                    out.add(".".join(parts[i:]))
            self._suffixes = out
        return self._suffixes

    def module_level_names(self) -> set[str]:
        """The last segment of every module, and every module-level function or class (or a
        name bound to one): not class members, not variables, not names imported from elsewhere."""
        if self._module_level is None:
            out = {m.rsplit(".", 1)[-1] for m in self.modules}
            for module in self.modules:  # a bare name: a module, a function or a class, not a variable
                out.update(name for name in self.names_of(module) if self._lookup(module, name, 0) not in (None, _VAR))
            self._module_level = out
        return self._module_level

    def binding(self, target: str, context: tuple[str, ...] = ()) -> Any:
        """What a written target is bound to (a ``ClassDef``, a leaf, a module), found as
        ``resolves`` finds it; None when nothing, or several different things, answer to it."""
        for dotted in (target, *(f"{m}.{target}" for m in context)):
            found = self.lookup_dotted(dotted)
            if found is not None:
                return found
        hits = {id(v): v for q in self.qualified() if q.endswith("." + target) and (v := self.lookup_dotted(q))}
        return next(iter(hits.values())) if len(hits) == 1 else None

    def find_class(self, dotted: str) -> ClassDef | None:
        """A class of the repository named like ``dotted``'s last part (a base class)."""
        found = self._find_class(dotted, 0)
        return found if isinstance(found, ClassDef) else None

    def resolves(self, target: str, context: tuple[str, ...] = ()) -> bool:
        """Whether a written symbol target resolves: absolutely, under a context module, or
        as a dotted suffix of a qualified name (a bare name: only module-level names)."""
        if target in self.qualified() or self.resolve_dotted(target):
            return True
        for module in context:
            if self.resolve_dotted(f"{module}.{target}"):
                return True
        if "." not in target:
            return target in self.module_level_names()
        return target in self.suffixes()


# ---------------------------------------------------------------------------- knowledge files

#: The knowledge files the oracle judges: graphmem's documented default set (docs/knowledge.md),
#: written out here as gitignore-style globs: agent instructions, decision records,
#: documentation (``docs/``, ``doc/``, root-level Markdown and reStructuredText) and shared
#: notes, without change logs (they name old code on purpose) and licences. The set is a
#: configuration both sides share, not a judgement: the benchmark prints it.
DEFAULT_KNOWLEDGE_GLOBS: tuple[str, ...] = (
    "CLAUDE.md", "AGENTS.md", "GEMINI.md", "/.github/copilot-instructions.md",
    "/.github/instructions/*.instructions.md", "/.cursor/rules/**/*.mdc", "/.cursor/rules/**/*.md",
    "/.cursorrules", "/.windsurfrules", "/.windsurf/rules/*.md", "/.clinerules",
    "/docs/**/*.md", "/docs/**/*.rst", "/docs/**/*.mdx", "/doc/**/*.md", "/doc/**/*.rst", "/doc/**/*.mdx",
    "/adr/**/*.md", "/*.md", "/*.rst", "/*.mdx", "/.graphmem/notes/*.md",
)  # fmt: skip
DEFAULT_KNOWLEDGE_EXCLUDES: tuple[str, ...] = (
    "CHANGELOG*", "CHANGES*", "HISTORY*", "NEWS*", "RELEASE*NOTES*", "changelog.*", "changes.*",
    "changelog.d/", "changelog/", "release-notes*", "release_notes*", "releasenotes/",
    "whatsnew/", "whatsnew.*", "whats-new*", "whats_new*",
    "UPGRADING*", "upgrading.*", "upgrading/", "upgrade-guide*", "upgrade_guide*",
    "MIGRATING*", "migrating.*", "migrating/", "migration-guide*", "migration_guide*",
    "LICENSE*", "LICENCE*", "COPYING*", "CODE_OF_CONDUCT*",
)  # fmt: skip
KNOWLEDGE_SUFFIXES: tuple[str, ...] = (".md", ".mdx", ".mdc", ".rst")
#: Change logs, added by ``bench_docs.py --changelogs`` (graphmem leaves them out by default:
#: they name old code on purpose; an entry naming an API later removed is a reference that
#: stopped resolving all the same).
CHANGELOG_GLOBS: tuple[str, ...] = (
    "/CHANGELOG.*", "/CHANGES.*", "/HISTORY.*", "/changelog.d/*.md", "/changelog.d/*.rst",
)  # fmt: skip
_SPECS: Any = None


def use_selection(include: Iterable[str], exclude: Iterable[str]) -> None:
    """Judge these knowledge files instead of the default set (gitignore-style globs)."""
    global _SPECS
    import pathspec

    _SPECS = (pathspec.PathSpec.from_lines("gitignore", include), pathspec.PathSpec.from_lines("gitignore", exclude))


def is_knowledge_file(path: str) -> bool:
    """Whether ``path`` is a knowledge file of the judged set (Markdown or reStructuredText
    only: the oracle reads those two formats)."""
    global _SPECS
    if not path.endswith(KNOWLEDGE_SUFFIXES):
        return False
    if _SPECS is None:
        use_selection(DEFAULT_KNOWLEDGE_GLOBS, DEFAULT_KNOWLEDGE_EXCLUDES)
    include, exclude = _SPECS
    return bool(include.match_file(path)) and not exclude.match_file(path)


@dataclass(frozen=True)
class DocRef:
    """One reference in a knowledge file: where (1-based line), as written, and its target."""

    path: str
    line: int
    raw: str
    target: str
    kind: str  # role | directive | code | default | link | example
    is_path: bool = False
    context: tuple[str, ...] = ()
    call: tuple[int, tuple[str, ...], bool] | None = None  # a code example's call with arguments


_PY_ROLES = frozenset(
    {"func", "class", "meth", "attr", "mod", "obj", "data", "exc", "const", "function", "method", "any", "type"}
)
_AUTO_DIRECTIVES = frozenset(
    {
        "autofunction", "autoclass", "automethod", "autoattribute", "autodata", "autoexception",
        "automodule", "autodecorator", "autoproperty",
        "function", "class", "method", "attribute", "data", "exception", "decorator", "property",
        "classmethod", "staticmethod",
    }
)  # fmt: skip
_MODULE_DIRECTIVES = frozenset({"module", "currentmodule", "automodule"})
#: Python's own special names (``__init__``, ``__ne__``, ``__slots__``, …): written bare, they
#: name the protocol, not a function of the repository that happens to bear the name.
_PROTOCOL_NAMES = frozenset(
    n
    for t in (object, type, int, float, str, list, dict, set, tuple, bytes, BaseException, type(lambda: 0))
    for n in dir(t)
    if n.startswith("__")
) | frozenset({"__slots__", "__post_init__", "__set_name__", "__class_getitem__", "__match_args__"})
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_PATHY = re.compile(r"^[\w.\-/]+$")
_CODE_EXT = (".py", ".pyi", ".md", ".rst", ".toml", ".cfg", ".txt", ".yml", ".yaml", ".ini", ".json", ".mdx")


def role_name(name: str) -> str | None:
    """``py:func`` / ``func`` -> ``func``; None for a role that does not name Python code."""
    short = name.removeprefix("py:")
    return short if short in _PY_ROLES else None


def role_target(text: str) -> str:
    """The target of a role's text: ``title <target>`` -> target; ``~``/``!``/``.`` prefixes
    and a trailing ``()`` dropped."""
    m = re.search(r"<([^<>]+)>\s*$", text)
    target = m.group(1) if m else text
    target = target.strip().lstrip("~!").lstrip(".")
    return target.removesuffix("()")


def code_target(text: str) -> tuple[str, bool] | None:
    """What an inline code span written like code names: (target, is_path), or None.

    A path with a folder (``src/attr/_make.py``, ``docs/api.rst``; a bare file name such as
    ``setup.py`` is not judged: prose names the reader's own), a dotted name (``attr.s``), a
    call (``define()``, ``attr.ib(default=1)``), a decorator (``@attr.s``), or an identifier
    of 3+ characters (``define``)."""
    s = text.strip()
    if not s or "\n" in s or len(s) > 200:
        return None
    if "/" in s and _PATHY.match(s) and not s.startswith(("/", "http")):
        return s.removeprefix("./"), True
    if _PATHY.match(s) and s.endswith(_CODE_EXT) and s.count(".") == 1:
        return None  # a bare file name (``setup.py``, ``mypy.ini``): as often the reader's file as ours
    s = s.removeprefix("@")
    m = re.fullmatch(rf"({_IDENT}(?:\.{_IDENT})*)(\(.*\))?", s)
    if m is None:
        return None
    name = m.group(1)
    if "." not in name and (len(name) < 3 or name in _PROTOCOL_NAMES):
        return None  # too short to be a name; Python's own protocol (``__init__``, ``__ne__``)
    return name, False


def link_target(href: str, doc_path: str) -> str | None:
    """A relative link to a repository file: its repository path (fragment dropped)."""
    if not href or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href) or href.startswith(("#", "/", "mailto")):
        return None
    path = href.split("#", 1)[0].split("?", 1)[0]
    if not path:
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc_path), path))
    return None if joined.startswith("..") else joined


def _find_line(lines: list[str], start: int, needle: str) -> int:
    """The 0-based line at or after ``start`` whose text holds ``needle`` (``start`` if none)."""
    probe = needle.split("\n", 1)[0][:60]
    for i in range(max(start, 0), min(len(lines), start + 400)):
        if probe in lines[i]:
            return i
    return start


# -- Markdown ----------------------------------------------------------------


def _markdown_parser() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.myst_role import myst_role_plugin

    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(myst_role_plugin)
    return md


_MD: Any = None


def extract_markdown(path: str, text: str) -> list[DocRef]:
    """References in a Markdown (CommonMark + MyST roles and directive fences) file."""
    global _MD
    if _MD is None:
        _MD = _markdown_parser()
    lines = text.splitlines()
    refs: list[DocRef] = []
    context: tuple[str, ...] = ()
    for tok in _MD.parse(text):
        if tok.type == "fence" and tok.info.strip().startswith("{"):
            m = re.match(r"\{([\w:.-]+)\}\s*(.*)", tok.info.strip())
            if m is None or tok.map is None:
                continue
            name, arg = m.group(1).removeprefix("py:"), m.group(2).strip()
            if name == "eval-rst":
                refs.extend(extract_rst(path, tok.content, line_offset=tok.map[0] + 1, context=context))
            elif name in _MODULE_DIRECTIVES and arg:
                context = (arg,)
                if name == "automodule":
                    refs.append(DocRef(path, tok.map[0] + 1, tok.info.strip(), arg, "directive", context=context))
            elif name in _AUTO_DIRECTIVES and arg:
                target = re.split(r"[\s(]", arg, maxsplit=1)[0]
                refs.append(DocRef(path, tok.map[0] + 1, tok.info.strip(), target, "directive", context=context))
            continue
        if tok.type != "inline" or tok.map is None or not tok.children:
            continue
        cursor = tok.map[0]
        for child in tok.children:
            raw, found = "", None
            if child.type == "code_inline":
                raw = f"{child.markup}{child.content}{child.markup}"
                target = code_target(child.content)
                if target is not None:
                    found = DocRef(path, 0, raw, target[0], "code", target[1], context)
            elif child.type == "myst_role":
                role = role_name(child.meta.get("name", ""))
                raw = f"{{{child.meta.get('name', '')}}}`{child.content}`"
                if role is not None:
                    found = DocRef(path, 0, raw, role_target(child.content), "role", False, context)
            elif child.type == "link_open":
                href = child.attrs.get("href", "")
                target_path = link_target(str(href), path)
                raw = str(href)
                if target_path is not None:
                    found = DocRef(path, 0, raw, target_path, "link", True, context)
            if found is not None:
                cursor = _find_line(lines, cursor, child.content if child.type != "link_open" else raw)
                refs.append(DocRef(found.path, cursor + 1, found.raw, found.target, found.kind, found.is_path, context))
    return refs


# -- reStructuredText ----------------------------------------------------------


class _RstSession:
    """The state of one docutils parse: the references seen, in document order."""

    def __init__(self, path: str, lines: list[str], line_offset: int, context: tuple[str, ...]) -> None:
        self.path = path
        self.lines = lines
        self.offset = line_offset
        self.context = context
        self.refs: list[DocRef] = []
        self.cursor = 0

    def add(self, lineno: int, raw: str, target: str, kind: str, is_path: bool = False) -> None:
        start = max(lineno - 1, self.cursor) if lineno else self.cursor
        line = _find_line(self.lines, start, raw)
        self.cursor = line
        self.refs.append(DocRef(self.path, line + 1 + self.offset, raw, target, kind, is_path, self.context))


_SESSION: _RstSession | None = None


def _role(name: str, rawtext: str, text: str, lineno: int, *_: Any, **__: Any) -> Any:
    from docutils import nodes

    if _SESSION is not None and role_name(name) is not None:
        _SESSION.add(lineno, rawtext, role_target(text), "role")
    return [nodes.literal(rawtext, text)], []


def _default_role(name: str, rawtext: str, text: str, lineno: int, *_: Any, **__: Any) -> Any:
    from docutils import nodes

    target = code_target(text)
    if _SESSION is not None and target is not None:
        _SESSION.add(lineno, rawtext, target[0], "default", target[1])
    return [nodes.literal(rawtext, text)], []


class _AnyOptions(dict[str, Any]):
    """An option spec accepting every option (``:members:``, ``:noindex:``, …) unchecked."""

    def __missing__(self, key: str) -> Any:
        from docutils.parsers.rst import directives

        return directives.unchanged

    def __bool__(self) -> bool:
        return True


def _directive_class(name: str) -> Any:
    """A Sphinx Python-domain directive stand-in: records its target (``autofunction``,
    ``function``, …) or module (``module``, ``currentmodule``), parses its content."""
    from docutils.parsers.rst import Directive

    class Recorded(Directive):  # type: ignore[misc]
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = _AnyOptions()

        def run(self) -> list[Any]:
            from docutils import nodes

            arg = (self.arguments[0] if self.arguments else "").strip()
            if _SESSION is not None and arg:
                short = name.removeprefix("py:")
                if short in _MODULE_DIRECTIVES:
                    _SESSION.context = (arg.split()[0],)
                if short in _AUTO_DIRECTIVES or short == "automodule":
                    target = re.split(r"[\s(]", arg, maxsplit=1)[0]
                    _SESSION.add(self.lineno, self.block_text.split("\n", 1)[0], target, "directive")
            if self.content:
                node = nodes.container()
                self.state.nested_parse(self.content, self.content_offset, node)
                return [node]
            return []

    return Recorded


def _container_class() -> Any:
    """A directive whose body is text (``note``, ``versionadded``, ``seealso``): no arguments,
    so docutils parses the first line with the rest."""
    from docutils.parsers.rst import Directive

    class Container(Directive):  # type: ignore[misc]
        has_content = True
        option_spec = _AnyOptions()

        def run(self) -> list[Any]:
            from docutils import nodes

            node = nodes.container()
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    return Container


def _ignored_class() -> Any:
    """A directive whose body is code or configuration (``code-block``, ``toctree``)."""
    from docutils.parsers.rst import Directive

    class Ignored(Directive):  # type: ignore[misc]
        has_content = True
        optional_arguments = 99
        final_argument_whitespace = True
        option_spec = _AnyOptions()

        def run(self) -> list[Any]:
            return []

    return Ignored


_CONTAINERS = (
    "versionadded", "versionchanged", "deprecated", "seealso", "note", "warning", "tip", "important",
    "hint", "caution", "danger", "error", "attention", "admonition", "only", "tab", "tabs", "rubric",
)  # fmt: skip
_IGNORED = (
    "toctree", "literalinclude", "doctest", "testcode", "testsetup", "testoutput", "include", "autosummary",
    "code-block", "sourcecode", "highlight", "index", "glossary", "ifconfig", "click:example", "click:run", "raw",
    "literalinclude", "program", "option", "envvar", "tabularcolumns", "default-role",
)  # fmt: skip
_OTHER_ROLES = (
    "ref", "doc", "term", "pep", "rfc", "issue", "pr", "user", "bug", "envvar", "option", "kbd", "file", "samp",
    "command", "program", "abbr", "download", "ghuser", "gh",
)  # fmt: skip
_REGISTERED = False


def _register() -> None:
    """Register the Sphinx stand-ins with docutils (process-wide), once."""
    global _REGISTERED
    if _REGISTERED:
        return
    from docutils.parsers.rst import directives, roles

    for role in (*_PY_ROLES, *(f"py:{r}" for r in _PY_ROLES)):
        roles.register_local_role(role, _role)
    for other in _OTHER_ROLES:
        roles.register_local_role(other, lambda *a, **k: ([], []))
    for d in (*_AUTO_DIRECTIVES, *_MODULE_DIRECTIVES):
        directives.register_directive(d, _directive_class(d))
        directives.register_directive(f"py:{d}", _directive_class(f"py:{d}"))
    for d in _CONTAINERS:
        directives.register_directive(d, _container_class())
    for d in _IGNORED:
        directives.register_directive(d, _ignored_class())
    # Interpreted text without a role (Sphinx's default_role: ``any`` in attrs, ``code`` in
    # click): looked up by its canonical name, then cached under "".
    roles.register_canonical_role("oracle-default", _default_role)
    roles.DEFAULT_INTERPRETED_ROLE = "oracle-default"
    _REGISTERED = True


def _inliner() -> Any:
    """docutils' inline parser, also recording every ``literal`` span (inline code). (Its
    dispatch table is a class attribute of plain functions: this instance gets its own.)"""
    from docutils.parsers.rst import states

    inliner = states.Inliner()
    plain = states.Inliner.literal

    def literal(self: Any, match: Any, lineno: int) -> Any:
        before, inlines, remaining, messages = plain(self, match, lineno)
        if _SESSION is not None:
            for node in inlines:
                target = code_target(node.astext())
                if target is not None and node.rawsource:
                    _SESSION.add(lineno, node.rawsource, target[0], "code", target[1])
        return before, inlines, remaining, messages

    inliner.dispatch = {**states.Inliner.dispatch, "``": literal}
    return inliner


def extract_rst(path: str, text: str, line_offset: int = 0, context: tuple[str, ...] = ()) -> list[DocRef]:
    """References in a reStructuredText file (Sphinx Python-domain roles and directives,
    inline literals and default-role text written like code), through docutils with those
    roles and directives registered and an inline parser that records literals."""
    global _SESSION
    from docutils.core import publish_doctree
    from docutils.parsers.rst import Parser

    _register()
    session = _RstSession(path, text.splitlines(), line_offset, context)
    previous, _SESSION = _SESSION, session
    try:
        publish_doctree(
            text,
            source_path=path,
            parser=Parser(inliner=_inliner()),
            settings_overrides={
                "report_level": 5,
                "halt_level": 5,
                "warning_stream": False,
                "file_insertion_enabled": False,
                "raw_enabled": False,
            },
        )
    except Exception:  # noqa: BLE001 - docutils gives up on some historical files: what it saw counts
        pass
    finally:
        _SESSION = previous
    return sorted(session.refs, key=lambda r: (r.line, r.raw))


# -- code examples (issue 42 item 2) -------------------------------------------
#
# The Python examples of a page: Markdown fences that name Python (``python``, ``py``,
# ``pycon``, ``{code-block} python``, ``{doctest}``), reStructuredText ``code-block``/``code``/
# ``sourcecode`` marked Python, ``doctest``/``testcode``/``testsetup``, literal blocks after
# ``::`` while the ``highlight`` in force is Python (Sphinx's default), and ``>>>`` paragraphs.
# Parsed with ``ast`` (a doctest: only its prompt lines). A page is one session: a name an
# example imports is bound for the examples after it. References: each name imported from a
# module (``from click.parser import split_arg_string`` -> ``click.parser.split_arg_string``)
# and each outermost dotted name whose first part an import bound (``click.Group``), with the
# call it is written in (code calls ``f()`` with no arguments: bound like any call, unlike
# prose, where ``f()`` is a mention).

_PY_TAGS = frozenset({"python", "py", "python3", "py3", "pycon", "pycon3", "python-console", "doctest", "default"})
_PROMPT = re.compile(r"^\s*(>>>|\.\.\.)( |$)")


def _is_python(tag: str) -> bool:
    return tag.lower() in _PY_TAGS


def _code_of(rows: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A block's (file line, code) rows; a doctest keeps only its prompt lines' code."""
    if not any(c.lstrip().startswith(">>>") for _, c in rows):
        return rows
    out: list[tuple[int, str]] = []
    for line, c in rows:
        m = _PROMPT.match(c)
        out.append((line, c[m.end() :] if m else ""))
    return out


def _md_blocks(text: str) -> list[list[tuple[int, str]]]:
    global _MD
    if _MD is None:
        _MD = _markdown_parser()
    out: list[list[tuple[int, str]]] = []
    for tok in _MD.parse(text):
        if tok.type != "fence" or tok.map is None:
            continue
        words = tok.info.strip().split()
        if not words:
            continue
        if words[0] in ("{code-block}", "{code}", "{sourcecode}"):
            lang = words[1] if len(words) > 1 else ""
        elif words[0] in ("{doctest}", "{testcode}"):
            lang = "python"
        else:
            lang = words[0].strip("{}.")
        if not _is_python(lang):
            continue
        lines = tok.content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        out.append(_code_of([(tok.map[0] + 2 + k, c) for k, c in enumerate(lines)]))
    return out


_RST_CODE_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(code-block|code|sourcecode|doctest|testcode|testsetup)::\s*(\S*)")
_RST_HIGHLIGHT_DIRECTIVE = re.compile(r"^\s*\.\.\s+highlight::\s*(\S+)")


def _indented_body(lines: list[str], i: int, indent: int, options: bool) -> tuple[list[tuple[int, str]], int]:
    j = i + 1
    if options:
        while j < len(lines) and lines[j].strip().startswith(":") and len(lines[j]) - len(lines[j].lstrip()) > indent:
            j += 1
    start = j
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
        j += 1
    body = [k for k in range(start, j) if lines[k].strip()]
    if not body:
        return [], j
    cut = min(len(lines[k]) - len(lines[k].lstrip()) for k in body)
    return [(k + 1, lines[k][cut:]) for k in range(start, j)], j


def _rst_code_blocks(text: str) -> list[list[tuple[int, str]]]:
    lines = text.splitlines()
    out: list[list[tuple[int, str]]] = []
    highlight = "python"
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _RST_HIGHLIGHT_DIRECTIVE.match(line)
        if m:
            highlight = m.group(1)
            i += 1
            continue
        m = _RST_CODE_DIRECTIVE.match(line)
        if m:
            lang = m.group(3) or ("python" if m.group(2) in ("doctest", "testcode", "testsetup") else highlight)
            rows, i = _indented_body(lines, i, len(m.group(1)), True)
            if _is_python(lang) and rows:
                out.append(_code_of(rows))
            continue
        if line.rstrip().endswith("::") and not re.match(r"^\s*\.\.\s+\S", line):
            rows, j = _indented_body(lines, i, len(line) - len(line.lstrip()), False)
            if rows:
                if _is_python(highlight):
                    out.append(_code_of(rows))
                i = j
                continue
        if line.lstrip().startswith(">>>") and (i == 0 or not lines[i - 1].strip()):
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            out.append(_code_of([(k + 1, lines[k].strip()) for k in range(i, j)]))
            i = j
            continue
        i += 1
    return out


def _call_of(node: ast.Call) -> tuple[int, tuple[str, ...], bool]:
    more = any(isinstance(a, ast.Starred) or (isinstance(a, ast.Constant) and a.value is Ellipsis) for a in node.args)
    more = more or any(k.arg is None for k in node.keywords)
    positional = sum(
        not (isinstance(a, ast.Starred) or (isinstance(a, ast.Constant) and a.value is Ellipsis)) for a in node.args
    )
    keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
    return positional, keywords, more  # (code calls with no arguments too: ``f()`` is bound)


def _example_refs(path: str, blocks: list[list[tuple[int, str]]]) -> list[DocRef]:
    bound: dict[str, str] = {}
    refs: list[DocRef] = []
    for rows in blocks:
        code = "\n".join(c for _, c in rows)
        try:
            tree_ = ast.parse(textwrap.dedent(code))
        except (SyntaxError, ValueError):
            continue
        calls = {id(n.func): n for n in ast.walk(tree_) if isinstance(n, ast.Call)}
        inner = {id(n.value) for n in ast.walk(tree_) if isinstance(n, ast.Attribute)}
        found: list[tuple[int, int, DocRef]] = []
        for node in ast.walk(tree_):
            line = rows[node.lineno - 1][0] if hasattr(node, "lineno") and node.lineno <= len(rows) else 0
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        bound[a.asname] = a.name
                    else:
                        bound[a.name.split(".")[0]] = a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name == "*":
                        continue
                    target = f"{node.module}.{a.name}"
                    bound[a.asname or a.name] = target
                    found.append((node.lineno, node.col_offset, DocRef(path, line, a.name, target, "example")))
            elif isinstance(node, ast.Name | ast.Attribute) and id(node) not in inner:
                if not isinstance(getattr(node, "ctx", None), ast.Load):
                    continue
                dotted = _dotted(node)
                root, _, rest = dotted.partition(".")
                if not dotted or root not in bound:
                    continue
                target = f"{bound[root]}.{rest}" if rest else bound[root]
                if "." not in target:
                    continue
                call = calls.get(id(node))
                shape = _call_of(call) if call is not None else None
                found.append((node.lineno, node.col_offset, DocRef(path, line, dotted, target, "example", call=shape)))
        refs.extend(r for _, _, r in sorted(found, key=lambda f: (f[0], f[1])))
    return refs


def extract_examples(path: str, text: str) -> list[DocRef]:
    """The references of a knowledge file's Python code examples."""
    blocks = _rst_code_blocks(text) if path.endswith(".rst") else _md_blocks(text)
    return _example_refs(path, blocks)


def extract(path: str, text: str) -> list[DocRef]:
    """References in a knowledge file, by its format, its code examples' included."""
    refs = extract_rst(path, text) if path.endswith(".rst") else extract_markdown(path, text)
    return refs + extract_examples(path, text)


# ---------------------------------------------------------------------------- grades (issue 42)
#
# The rules a reported finding is judged by, written from the issue, with Python's own tools:
# a call written with arguments is bound (``inspect.Signature.bind_partial``) against the
# function's current signature, built from its source with ``ast``; a name mentioned without
# arguments is suspect when the parameters it had at the commit of the document's line break
# old callers (one removed or renamed, positions moved, a new required one).


def _find_def(body: list[ast.stmt], parts: list[str]) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
    """The definition ``parts`` (a qualified name) in a module body, looking into
    ``if``/``try`` blocks at each level (the last definition wins, as at run time)."""
    found: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    stack = list(body)
    while stack:
        stmt = stack.pop(0)
        if isinstance(stmt, ast.If | ast.Try):
            stack[:0] = [*stmt.body, *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]
            for h in getattr(stmt, "handlers", []):
                stack[:0] = h.body
            continue
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and stmt.name == parts[0]:
            found = stmt
    if found is None or len(parts) == 1:
        return found
    return _find_def(found.body, parts[1:]) if isinstance(found, ast.ClassDef) else None


def _function_signature(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> inspect.Signature | None:
    """The signature callers see of a function definition (a method: without ``self``/``cls``;
    a ``staticmethod`` keeps its first parameter)."""
    static = any(_dotted(d) == "staticmethod" for d in node.decorator_list)
    a = node.args
    P = inspect.Parameter
    params: list[inspect.Parameter] = []
    positional = [*a.posonlyargs, *a.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = P.POSITIONAL_ONLY if i < len(a.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        params.append(P(arg.arg, kind, default=P.empty if default is None else ...))
    if a.vararg is not None:
        params.append(P(a.vararg.arg, P.VAR_POSITIONAL))
    for arg, kw_default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        params.append(P(arg.arg, P.KEYWORD_ONLY, default=P.empty if kw_default is None else ...))
    if a.kwarg is not None:
        params.append(P(a.kwarg.arg, P.VAR_KEYWORD))
    if method and not static and params and params[0].kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
        params = params[1:]
    try:
        return inspect.Signature(params)
    except ValueError:
        return None


def signature_in(source: str, qualname: str) -> inspect.Signature | None:
    """The signature callers see of ``qualname`` in a module's source (a class: its own
    ``__init__``; a method: without ``self``/``cls``, a ``staticmethod`` keeps its first
    parameter); None when it is not there or has no parameters to bind."""
    try:
        tree_ = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    parts = qualname.split(".")
    node = _find_def(tree_.body, parts)
    method = len(parts) > 1
    if isinstance(node, ast.ClassDef):
        node = _find_def(node.body, ["__init__"])
        method = True
    if node is None or isinstance(node, ast.ClassDef):
        return None
    return _function_signature(node, method)


# What a call of a class runs, written from the issue: its own ``__init__``, else its own
# ``__new__``, else the nearest base's in the repository (depth first, left to right). Unknown
# (the call is a mention of the class, never stale) when a class on the way is decorated
# (``@dataclass``, ``@attr.s``, ``@define``: anything but ``total_ordering``/``final``), has a
# metaclass (other than ``ABCMeta``), or has a base that is no class of the repository and not
# ``object``, ``ABC``, ``Generic`` or a builtin exception, warning, ``dict``, ``list``, ``set``.
_PLAIN_DECORATORS = frozenset({"total_ordering", "final"})
_PLAIN_EXTERNAL = frozenset({"object", "ABC", "Generic", "dict", "list", "set"})
UNKNOWN = "unknown"


def _plain_external(name: str) -> bool:
    import builtins

    value = getattr(builtins, name, None)
    return name in _PLAIN_EXTERNAL or (isinstance(value, type) and issubclass(value, BaseException))


def _class_order(names: CodeNames, cls: ClassDef, seen: set[int], depth: int) -> list[ClassDef] | None:
    node = cls.node
    if node is None or depth > 20:
        return None
    seen.add(id(cls))
    if any(_dotted(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1] not in _PLAIN_DECORATORS
           for d in node.decorator_list):  # fmt: skip
        return None
    for k in node.keywords:
        if k.arg == "metaclass" and _dotted(k.value).rsplit(".", 1)[-1] != "ABCMeta":
            return None
    out = [cls]
    for b in node.bases:
        dotted = _dotted(b)
        base = names.find_class(dotted) if dotted else None
        if base is None:
            if dotted and _plain_external(dotted.rsplit(".", 1)[-1]):
                continue
            return None
        if id(base) in seen:
            continue
        more = _class_order(names, base, seen, depth + 1)
        if more is None:
            return None
        out.extend(more)
    return out


def constructor_signature(names: CodeNames, cls: ClassDef) -> inspect.Signature | str | None:
    """The signature a call of ``cls`` is bound against; ``UNKNOWN`` when the code does not
    show it; None when no class on the way defines one (``object``'s)."""
    order = _class_order(names, cls, set(), 0)
    if order is None:
        return UNKNOWN
    for name in ("__init__", "__new__"):
        for c in order:
            found = _find_def(c.node.body, [name])
            if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef):
                return _function_signature(found, True)
    return None


def written_call(text: str) -> tuple[int, list[str], bool] | None:
    """The call a finding's text writes with arguments: (positional arguments, keywords,
    whether ``...``/``*args`` leaves the positional count open); None for a mention."""
    inner = text.split("`")[1] if text.count("`") >= 2 else text
    inner = inner.strip().removeprefix("@")
    try:
        node = ast.parse(inner, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(node, ast.Call) or not (node.args or node.keywords):
        return None
    is_more = [isinstance(x, ast.Starred) or (isinstance(x, ast.Constant) and x.value is Ellipsis) for x in node.args]
    keywords = [k.arg for k in node.keywords if k.arg is not None]
    return sum(not m for m in is_more), keywords, any(is_more)


def call_fits(sig: inspect.Signature, call: tuple[int, Iterable[str], bool]) -> bool:
    """Whether the call binds to ``sig`` (arguments it leaves out are not asked for: a
    document shows what matters)."""
    positional, keywords, more = call
    try:
        sig.bind_partial(*([None] * (0 if more else positional)), **dict.fromkeys(keywords))
    except TypeError:
        return False
    return True


def breaks_callers(old: inspect.Signature, new: inspect.Signature) -> bool:
    """Whether calls written against ``old`` may fail against ``new``: a parameter removed
    or renamed (unless ``new`` takes ``**kwargs``), positions moved, a new required one."""
    P = inspect.Parameter
    variadic = (P.VAR_POSITIONAL, P.VAR_KEYWORD)
    old_named = [p.name for p in old.parameters.values() if p.kind not in variadic]
    new_params = new.parameters
    takes_any = any(p.kind is P.VAR_KEYWORD for p in new_params.values())
    if any(n not in new_params and not takes_any for n in old_named):
        return True
    pos = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)
    old_pos = [p.name for p in old.parameters.values() if p.kind in pos]
    new_pos = [p.name for p in new_params.values() if p.kind in pos]
    if new_pos[: len(old_pos)] != old_pos and not all(n not in new_pos for n in old_pos):
        return True
    return any(
        p.default is P.empty and p.kind not in variadic and p.name not in old.parameters for p in new_params.values()
    )
