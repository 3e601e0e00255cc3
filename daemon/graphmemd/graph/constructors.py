"""Which function a call of a class runs (pure).

A document that calls a class with arguments (``Client(url, timeout=5)``, in its text or in
a code example) is right while that call binds to the class's constructor, the way a call
of a function is judged against the function (``graph.signatures``). For a Python class the
constructor is its own ``__init__`` (callers pass what follows ``self``), else its own
``__new__``, else the nearest base's in the repository (depth first, left to right).

It is unknown — and the call is then only a mention of the class, never stale — when the
repository's code does not show it: a decorator that may generate or replace it
(``@dataclass``, ``@attr.s``, ``@attrs.define``, ``@define``: any decorator the language's
rules do not list as plain), a metaclass (other than the plain ones), or a base that is
neither a class of the repository nor one the rules list (``Exception``, ``object``), on
the class or on any base the lookup passes through. The rules are data
(``data/constructors.toml``); other languages have none yet: their calls stay mentions.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final, Protocol

from graphmem.changes import parse_signature

from graphmemd.graph.model import Language, SymbolInfo, SymbolKind

__all__ = ["ClassLookup", "ConstructorRules", "constructor", "rules_for"]

#: how deep a chain of bases is followed (a cycle, or absurd depth: unknown)
MAX_DEPTH: Final = 24
#: the names a constructor has, in the order they are looked for
_CONSTRUCTORS: Final = ("__init__", "__new__")
_CLASS_WORD: Final = re.compile(r"(?<![\w.])class\s+\w")
_DECORATOR: Final = re.compile(r"@\s*([\w.]+)")
_DOTTED: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True, slots=True)
class ConstructorRules:
    """One language's rules (see the module docstring): names compared by their last dotted
    part."""

    plain_decorators: frozenset[str]
    plain_metaclasses: frozenset[str]
    plain_bases: frozenset[str]


class ClassLookup(Protocol):
    """The repository's classes as a constructor lookup needs them."""

    def member(self, cls: SymbolInfo, name: str) -> SymbolInfo | None:
        """The symbol ``cls`` defines as ``name`` itself (not inherited), or None."""
        ...

    def bases(self, cls: SymbolInfo) -> Sequence[SymbolInfo]:
        """The classes of the repository ``cls`` inherits from directly (as resolved)."""
        ...


@cache
def _table() -> dict[str, ConstructorRules]:
    text = resources.files(__package__).joinpath("data", "constructors.toml").read_text("utf-8")
    out: dict[str, ConstructorRules] = {}
    for lang, t in tomllib.loads(text).items():
        out[lang] = ConstructorRules(
            frozenset(t.get("plain_decorators", ())),
            frozenset(t.get("plain_metaclasses", ())),
            frozenset(t.get("plain_bases", ())),
        )
    return out


def rules_for(language: Language) -> ConstructorRules | None:
    """The constructor rules of ``language`` (None: a call of its classes stays a mention)."""
    return _table().get(language.value)


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _head(cls: SymbolInfo, rules: ConstructorRules) -> list[str] | None:
    """The names of the bases a class head writes, or None when the head makes its
    construction unknown (a decorator or metaclass not plain, a base that is no name)."""
    sig = cls.signature
    m = _CLASS_WORD.search(sig)
    if m is None:
        return None
    if any(_last(d) not in rules.plain_decorators for d in _DECORATOR.findall(sig[: m.start()])):
        return None
    parsed = parse_signature(sig[m.start() :])
    if parsed is None:
        return None
    names: list[str] = []
    for base in parsed.bases:
        key, eq, value = base.partition("=")
        if eq:
            if key.strip() == "metaclass" and _last(value.strip()) not in rules.plain_metaclasses:
                return None
            continue  # (other class keywords go to __init_subclass__)
        text = base.split("[", 1)[0].strip()
        if not _DOTTED.fullmatch(text):
            return None  # a call (``with_metaclass(M, B)``, ``namedtuple(...)``), a splat
        names.append(_last(text))
    return names


def _order(
    cls: SymbolInfo, lookup: ClassLookup, rules: ConstructorRules, seen: set[str], depth: int
) -> list[SymbolInfo] | None:
    """``cls`` and its repository bases, depth first, left to right; None when any of them
    makes construction unknown."""
    if depth > MAX_DEPTH or cls.id in seen or cls.kind is not SymbolKind.CLASS:
        return None
    seen.add(cls.id)
    names = _head(cls, rules)
    if names is None:
        return None
    resolved = list(lookup.bases(cls))
    out = [cls]
    for name in names:
        base = next((b for b in resolved if b.name == name), None)
        if base is None:
            if name in rules.plain_bases:
                continue
            return None  # a base outside the repository: its construction is not known
        if base.id in seen:
            continue  # (a diamond: already in the order)
        more = _order(base, lookup, rules, seen, depth + 1)
        if more is None:
            return None
        out.extend(more)
    return out


def constructor(cls: SymbolInfo, lookup: ClassLookup) -> SymbolInfo | None:
    """The function a call of class ``cls`` runs with its arguments (a method named
    ``__init__`` or ``__new__``, of ``cls`` or a base), or None when it is unknown (see the
    module docstring) or ``cls`` is no class."""
    rules = rules_for(cls.language)
    if rules is None or cls.kind is not SymbolKind.CLASS:
        return None
    order = _order(cls, lookup, rules, set(), 0)
    if order is None:
        return None
    for name in _CONSTRUCTORS:
        for c in order:
            found = lookup.member(c, name)
            if found is not None and found.kind in (SymbolKind.METHOD, SymbolKind.FUNCTION):
                return found
    return None
