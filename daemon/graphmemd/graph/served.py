"""Whether a module still serves a name it no longer defines (pure).

A name removed from a module often keeps working: the module answers for it lazily, usually
with a deprecation warning — Python's module-level ``__getattr__`` (PEP 562)::

    def __getattr__(name):
        if name == "get_binary_stream":
            from .utils import _get_binary_stream
            warnings.warn("'get_binary_stream' is deprecated ...", DeprecationWarning)
            return _get_binary_stream
        raise AttributeError(name)

``served`` reads a module's text (as it is now) for the branch of such a hook that answers
for a name: whether it warns, its text (the deprecation message: ``graph.successors`` reads
it), and what it returns and from which module. How a language serves names lazily is data
(``data/served.toml``: the hook, the tests that select a name, a literal collection or a
named one, how a branch ends, what a warning looks like); a language without rules serves
nothing lazily.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

from graphmem.changes import group_end

from graphmemd.graph.model import Language

__all__ = ["ServeRules", "Served", "hook_names", "rules_for", "served"]

_CLOSE: Final = frozenset(")]}")


@dataclass(frozen=True, slots=True)
class Served:
    """The branch of a module's hook that answers for ``name``: the hook's name and line
    (1-based), whether the branch warns, its text (adjacent string literals joined), and
    what it returns by name (``returns``, "" when not a plain name) and the module it imports
    that from (``source``, as written: ``.shell_completion``; "" when it does not import it)."""

    name: str
    hook: str
    line: int
    warns: bool
    text: str
    returns: str = ""
    source: str = ""


@dataclass(frozen=True, slots=True)
class ServeRules:
    """One language's rules (``data/served.toml``)."""

    hook: re.Pattern[str]
    name_tests: tuple[str, ...]
    collection_tests: tuple[str, ...]
    table_tests: tuple[str, ...]
    table_definition: str
    string: re.Pattern[str]
    value_mark: str
    continuation: re.Pattern[str]
    warns: re.Pattern[str]
    serves: re.Pattern[str]
    returns: re.Pattern[str]
    imports: re.Pattern[str]


@cache
def _table() -> dict[str, ServeRules]:
    text = resources.files(__package__).joinpath("data", "served.toml").read_text("utf-8")
    out: dict[str, ServeRules] = {}
    for lang, t in tomllib.loads(text).items():
        if t.get("block", "indent") != "indent":
            raise ValueError(f"served.toml [{lang}]: unknown block style {t['block']!r}")
        out[lang] = ServeRules(
            re.compile(t["hook"], re.M),
            tuple(t.get("name_tests", ())),
            tuple(t.get("collection_tests", ())),
            tuple(t.get("table_tests", ())),
            t.get("table_definition", ""),
            re.compile(t["string"]),
            t.get("value_mark", ""),
            re.compile(t.get("continuation", "(?!)")),
            re.compile(t["warns"]),
            re.compile(t["serves"], re.M),
            re.compile(t["returns"], re.M),
            re.compile(t["imports"], re.M),
        )
    return out


@cache
def hook_names() -> frozenset[str]:
    """The names of every language's lazy hook (``__getattr__``)."""
    text = resources.files(__package__).joinpath("data", "served.toml").read_text("utf-8")
    return frozenset(str(t["hook_name"]) for t in tomllib.loads(text).values())


def rules_for(language: Language | None) -> ServeRules | None:
    """How ``language`` serves names lazily (None: it does not, as far as graphmem knows)."""
    return _table().get(language.value) if language is not None else None


def served(text: str, name: str, rules: ServeRules) -> Served | None:
    """The branch of ``text``'s lazy hook that serves ``name`` (it returns something), or
    None (no hook, no test of the name, or a branch that only raises)."""
    hook = rules.hook.search(text)
    if hook is None:
        return None
    body_end = hook.start() + len(_branch(text, hook.start(), len(text)))
    param = re.escape(hook.group("param"))
    at = _selecting(text, hook.end(), body_end, param, name, rules)
    if at is None:
        return None
    branch = _branch(text, at, body_end)
    if rules.serves.search(branch) is None:
        return None  # it answers for the name only to refuse it (raises)
    returned = rules.returns.search(branch)
    returns = returned.group("name") if returned is not None else ""
    return Served(
        name=name,
        hook=hook.group("hook"),
        line=text.count("\n", 0, hook.start()) + 1,
        warns=rules.warns.search(branch) is not None,
        text=rules.continuation.sub("", branch),
        returns=returns,
        source=_source(branch, text, returns, rules) if returns else "",
    )


def _selecting(text: str, start: int, end: int, param: str, name: str, rules: ServeRules) -> int | None:
    """Where the first test in ``text[start:end]`` that selects ``name`` is, or None."""
    found: list[int] = []
    for template in rules.name_tests:
        for m in re.finditer(template.replace("{param}", param), text[start:end]):
            if m.group("name") == name:
                found.append(start + m.start())
    for template in rules.collection_tests:
        for m in re.finditer(template.replace("{param}", param), text[start:end]):
            opening = start + m.end() - 1
            if name in _names(text, opening, rules):
                found.append(start + m.start())
    for template in rules.table_tests:
        for m in re.finditer(template.replace("{param}", param), text[start:end]):
            table = re.escape(m.group("table"))
            defined = re.search(rules.table_definition.replace("{table}", table), text, re.M)
            if defined is not None and name in _names(text, defined.end() - 1, rules):
                found.append(start + m.start())
    return min(found) if found else None


def _names(text: str, opening: int, rules: ServeRules) -> set[str]:
    """The names a literal collection opening at ``opening`` holds: its string literals,
    a dictionary's values left out."""
    inside = text[opening + 1 : group_end(text, opening)]
    out: set[str] = set()
    for m in rules.string.finditer(inside):
        before = inside[: m.start()].rstrip()
        if rules.value_mark and before.endswith(rules.value_mark):
            continue
        out.add(m.group("name"))
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _branch(text: str, at: int, end: int) -> str:
    """The test at ``at`` and the lines after it indented deeper (a closing bracket at the
    test's depth continues the test), up to ``end``."""
    start = text.rfind("\n", 0, at) + 1
    lines = text[start:end].split("\n")
    depth = _indent(lines[0])
    out = [lines[0]]
    for line in lines[1:]:
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and _indent(line) <= depth and stripped[0] not in _CLOSE:
            break
        out.append(line)
    return "\n".join(out)


def _source(branch: str, text: str, returns: str, rules: ServeRules) -> str:
    """The module ``returns`` is imported from: in the branch, else at the module's level."""
    local = returns.split(".", 1)[0]
    for where in (branch, text):
        for m in rules.imports.finditer(where):
            if (m.group("alias") or m.group("name")) == local:
                return m.group("module")
    return ""
