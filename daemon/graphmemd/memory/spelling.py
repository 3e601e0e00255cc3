"""A signature change said without the annotations that were only respelled (pure but for
reading a language's rules file once).

``as_respelled(old, new, path)``: the old signature of a change, with each annotation that
means what the new signature's does (``t.Optional[str]`` and ``str | None``; ``List[int]``
and ``list[int]``: the language's ``[annotations]`` rules, the ones its fingerprints use)
written as the new one writes it. A stale reason records that, so its words
(``graphmem.changes.change_words``) name what changed and not a modernisation that happened
in between (a note made before ``ruff --select UP --fix``, its function given a new
parameter after).
"""

from __future__ import annotations

from graphmemd.graph.signatures import respelled
from graphmemd.ingest.parsing.annotations import canonical
from graphmemd.ingest.parsing.languages import language_for_path
from graphmemd.ingest.parsing.rules_file import annotation_rules

__all__ = ["as_respelled"]


def as_respelled(old: str, new: str, path: str) -> str:
    """``old`` with the annotations ``new`` only respells written as in ``new`` (see the
    module docstring); ``old`` unchanged for a language without annotation rules."""
    if not old or not new or old == new:
        return old
    language = language_for_path(path)
    rules = annotation_rules(language) if language is not None else None
    if rules is None:
        return old
    return respelled(old, new, lambda x, y: x == y or canonical(x, rules) == canonical(y, rules))
