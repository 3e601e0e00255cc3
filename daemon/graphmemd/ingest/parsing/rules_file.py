"""Each language's annotation equivalences, read from its fingerprint rules file.

The ``[annotations]`` table of ``fingerprints/<language>.toml`` (a dialect's, or its base's
when it has none), without compiling the file's queries: for the daemon's memory, which says
a signature change in words and must not call a respelled annotation a change
(``memory/spelling.py``). The parser reads the same table through ``fingerprint.load_rules``.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

from graphmemd.graph.model import Language
from graphmemd.ingest.parsing.annotations import AnnotationRules, rules_from_table

__all__ = ["annotation_rules"]


@functools.cache
def annotation_rules(language: Language) -> AnnotationRules | None:
    """The annotation rules of ``language`` (None: it has none); read once per process."""
    return rules_from_table(_table(language.value))


def _table(name: str) -> dict[str, Any] | None:
    folder = resources.files("graphmemd.ingest.parsing").joinpath("fingerprints")
    data: dict[str, Any] = tomllib.loads(folder.joinpath(f"{name}.toml").read_text("utf-8"))
    table = data.get("annotations")
    if table is None and data.get("base"):
        return _table(str(data["base"]))
    return table if isinstance(table, dict) else None
