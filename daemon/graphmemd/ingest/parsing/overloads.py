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
    ``parameter_list = "<node type>"`` finds the parameters where they are not a field of
    the definition (C++: inside its declarator), breadth first outside the body;
    ``parameter_children = "<node type>"`` counts the definition's children of that type
    (Swift: no node holds the parameters).
``merge = ["module", ...]``
    (C++ namespaces, Ruby modules and classes) A definition of one of these kinds opened
    again in the same file is the same symbol (the first block): the later blocks only
    qualify what they hold.
``drop_declarations = true``
    (C, C++) A declaration without a body (a prototype, a member declared in its class)
    whose definition follows in the same file is not a symbol of its own: the definition
    keeps the plain name (``parser._drop_declared``).

TypeScript overload *signatures* are not symbols (the extraction query captures only
declarations with a body), so the implementation always has the plain name.

Stubs and arities are read from the tree by byte range, iteratively (no recursion).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node

from graphmemd.graph.model import SymbolKind

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
    parameter_list: str = ""
    parameter_children: str = ""
    drop_declarations: bool = False
    merge: frozenset[SymbolKind] = frozenset()


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
    if rules.parameter_children:  # (Swift: the parameters are the definition's own children)
        return sum(1 for c in node.children if c.type == rules.parameter_children)
    params = node.child_by_field_name(rules.parameters)
    if params is None and rules.parameter_list:
        params = _find_parameters(node, rules.parameter_list)
    if params is None:
        return 0
    return sum(1 for c in params.named_children if not c.is_extra)


def _find_parameters(node: Node, node_type: str, depth: int = 5) -> Node | None:
    """The first node of ``node_type`` under ``node``, breadth first, never inside a ``body``."""
    level = [node]
    for _ in range(depth):
        below: list[Node] = []
        for n in level:
            for i, child in enumerate(n.children):
                if child.type == node_type:
                    return child
                if n.field_name_for_child(i) != "body":
                    below.append(child)
        level = below
    return None


def overload_tags(
    root: Node,
    source: bytes,
    defs: Sequence[tuple[int, int, str]],
    rules: OverloadRules | None,
    arities: Sequence[tuple[int, int]] = (),
) -> list[str | None]:
    """Per definition (start, end, name): ``STUB``, its arity as text (arity rules), or None.
    Only names defined more than once in the file are looked at. With ``parameter_list``
    rules, ``arities`` (the extraction's parameter lists: start byte, count, sorted) give a
    definition's arity: its first parameter list (no tree walk)."""
    tags: list[str | None] = [None] * len(defs)
    if rules is None or not (rules.stub_decorator or rules.by_arity):
        return tags
    if len({name for _s, _e, name in defs}) == len(defs):
        return tags  # no name defined twice
    names = Counter(name for _s, _e, name in defs)
    starts = [pos for pos, _n in arities] if rules.parameter_list and arities else None
    for i, (start, end, name) in enumerate(defs):
        if names[name] < 2:
            continue
        if starts is not None and rules.by_arity:
            k = bisect_left(starts, start)
            if k < len(starts) and starts[k] < end:
                tags[i] = str(arities[k][1])
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
