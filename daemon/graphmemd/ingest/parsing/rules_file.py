"""A language's fingerprint rules file (``fingerprints/<language>.toml``) read as data.

``read_rules_file`` reads one, a dialect's (TSX: ``base = "typescript"``) merged over its
base's; no tree-sitter here, so the daemon's memory can read a language's annotation
equivalences (``annotation_rules``: the ``[annotations]`` table, for saying a signature change
without the annotations that were only respelled: ``memory/spelling.py``) without compiling
the file's queries. The parser's rules (``fingerprint.load_rules``) are read through it too.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any, Final

from graphmemd.graph.model import Language
from graphmemd.ingest.parsing.annotations import AnnotationRules, rules_from_table

__all__ = ["ROLE_LISTS", "annotation_rules", "read_rules_file"]

#: The node-type lists of a rules file, each with the capture the fingerprint's query gives its
#: nodes; a dialect's lists extend its base's.
ROLE_LISTS: Final = (
    ("skip", "skip"),
    ("strings", "string"),
    ("numbers_nodes", "number"),
    ("unwrap", "unwrap"),
    ("group", "group"),
    ("tuples", "tuple"),
    ("ends", "end"),
)
_LIST_KEYS: Final = tuple(key for key, _capture in ROLE_LISTS)


def read_rules_file(name: str) -> dict[str, Any]:
    """The rules file of the language ``name``, a dialect's merged over its base's: lists,
    ``skip_in``, rewrites and aliases extended, the pattern query inherited unless the dialect
    says ``inherit = false``, any other table or setting the dialect's own."""
    folder = resources.files("graphmemd.ingest.parsing").joinpath("fingerprints")
    data: dict[str, Any] = tomllib.loads(folder.joinpath(f"{name}.toml").read_text("utf-8"))
    base = data.get("base")
    if base:  # a dialect (TSX) extends another language's rules
        parent = read_rules_file(str(base))
        for key in _LIST_KEYS:
            parent[key] = list(parent.get(key, [])) + list(data.get(key, []))
        parent["skip_in"] = {**parent.get("skip_in", {}), **data.get("skip_in", {})}
        parent["rewrites"] = list(parent.get("rewrites", [])) + list(data.get("rewrites", []))
        parent["aliases"] = {**parent.get("aliases", {}), **data.get("aliases", {})}
        own = data.get("patterns", {})
        inherited = parent.get("patterns", {}).get("query", "") if own.get("inherit", True) else ""
        parent["patterns"] = {"query": inherited + own.get("query", "")}
        for key, value in data.items():  # (other tables and settings: the dialect's own win)
            if key not in (*_LIST_KEYS, "base", "skip_in", "patterns", "rewrites", "aliases"):
                parent[key] = value
        return parent
    return data


@functools.cache
def annotation_rules(language: Language) -> AnnotationRules | None:
    """The annotation rules of ``language`` (None: it has none); read once per process."""
    return rules_from_table(read_rules_file(language.value).get("annotations"))
