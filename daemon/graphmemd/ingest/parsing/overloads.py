"""Overloads: which of several same-named definitions keeps the plain qualname.

Rules are data, in the ``[overloads]`` table of ``parsing/fingerprints/<language>.toml``:

``stub_decorator = "overload"``
    (Python) A definition decorated with ``@overload`` / ``@typing.overload`` /
    ``@t.overload`` (the decorator's last dotted segment) is a *stub*: stubs are named
    ``f~overload1``, ``f~overload2`` ... in source order, so the implementation keeps the
    plain ``f`` and an observation on ``f`` follows the code that runs.
``by = "arity"`` + ``parameters = "<field>"``
    (Java) Real overloads: the first one declared keeps the plain name, each later one is
    ``name~<number of parameters>`` (``name~<n>~<k>`` if that arity repeats). Adding an
    overload, or moving one, does not rename the others (positions never enter an id).

TypeScript overload *signatures* are not symbols (the extraction query captures only
declarations with a body), so the implementation always has the plain name.

Stubs and arities are read from the tree by byte range, iteratively (no recursion).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node

__all__ = ["STUB", "OverloadRules", "overload_tags", "qualify_duplicate"]

#: Tag of an overload stub.
STUB = "stub"


@dataclass(frozen=True, slots=True)
class OverloadRules:
    """One language's ``[overloads]`` rules."""

    stub_decorator: str = ""
    decorator_type: str = "decorator"
    by_arity: bool = False
    parameters: str = "parameters"


def _decorated_by(node: Node, source: bytes, rules: OverloadRules) -> bool:
    for child in node.children:
        if child.type != rules.decorator_type:
            continue
        text = source[child.start_byte : child.end_byte].decode("utf-8", "replace")
        name = text.lstrip("@").split("(", 1)[0].strip()
        if name.rsplit(".", 1)[-1] == rules.stub_decorator:
            return True
    return False


def _arity(node: Node, rules: OverloadRules) -> int:
    params = node.child_by_field_name(rules.parameters)
    if params is None:
        return 0
    return sum(1 for c in params.named_children if not c.is_extra)


def overload_tags(
    root: Node, source: bytes, defs: Sequence[tuple[int, int, str]], rules: OverloadRules | None
) -> list[str | None]:
    """Per definition (start, end, name): ``STUB``, its arity as text (arity rules), or None.
    Only names defined more than once in the file are looked at."""
    tags: list[str | None] = [None] * len(defs)
    if rules is None or not (rules.stub_decorator or rules.by_arity):
        return tags
    if len({name for _s, _e, name in defs}) == len(defs):
        return tags  # no name defined twice
    names = Counter(name for _s, _e, name in defs)
    for i, (start, end, name) in enumerate(defs):
        if names[name] < 2:
            continue
        node = root.descendant_for_byte_range(start, end)
        if node is None or node.start_byte != start or node.end_byte != end:
            continue
        if rules.stub_decorator and _decorated_by(node, source, rules):
            tags[i] = STUB
        elif rules.by_arity:
            tags[i] = str(_arity(node, rules))
    return tags


def qualify_duplicate(qual: str, tag: str | None, count: int, stubs: int, taken: set[str]) -> str:
    """The qualname of a definition whose plain ``qual`` may be taken.

    ``count`` is its number among the non-stub definitions of that qualname and kind (1 =
    first), ``stubs`` its number among the stubs (when ``tag`` is ``STUB``)."""
    if tag == STUB:
        return f"{qual}~overload{stubs}"
    if count <= 1:
        return qual
    if tag is None:
        return f"{qual}~{count}"
    named = f"{qual}~{tag}"
    return named if named not in taken else f"{named}~{count}"
