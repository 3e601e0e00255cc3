"""What a module's lazy hook serves, and each language's rules for reading it (pure).

A name removed from a module often keeps working: the module answers for it lazily, usually
with a deprecation warning (Python's module-level ``__getattr__``, PEP 562). The syntax of such
a hook is read by a tree-sitter query (``ingest/parsing/served.py`` and
``ingest/parsing/queries/served/<language>.scm``, at check time, never in the parse path); the
rules that are not syntax are data here (``data/served.toml``: the hook's name, the first
parameters that make a function a method, what a warning looks like). A language without
rules serves nothing lazily.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from graphmemd.graph.model import Language

__all__ = ["ServeRules", "Served", "hook_names", "rules_for"]


@dataclass(frozen=True, slots=True)
class Served:
    """The branch of a module's hook that answers for ``name``: the hook's name and line
    (1-based), whether the branch warns, its text (its test and block, adjacent string
    literals joined, after the message a dictionary of messages gives the name), and what it
    returns by name (``returns``, "" when not a plain name) and the module it imports that
    from (``source``, as written: ``.shell_completion``; "" when it does not import it)."""

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

    hook_name: str
    method_params: frozenset[str]
    warns: re.Pattern[str]


@cache
def _table() -> dict[str, ServeRules]:
    text = resources.files(__package__).joinpath("data", "served.toml").read_text("utf-8")
    return {
        lang: ServeRules(str(t["hook_name"]), frozenset(t.get("method_params", ())), re.compile(t["warns"]))
        for lang, t in tomllib.loads(text).items()
    }


def hook_names() -> frozenset[str]:
    """The names of every language's lazy hook (``__getattr__``)."""
    return frozenset(r.hook_name for r in _table().values())


def rules_for(language: Language | None) -> ServeRules | None:
    """How ``language`` serves names lazily (None: it does not, as far as graphmem knows)."""
    return _table().get(language.value) if language is not None else None
