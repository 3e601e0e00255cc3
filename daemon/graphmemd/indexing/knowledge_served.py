"""Names gone as symbols that a module still serves (the shell around ``graph.served``, on
the indexer thread): the module's text is read as it is now, at check time (never in the
parse path), and a name its lazy hook serves with a warning is *deprecated*, not dangling."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path

from graphmem.types import Anchor, ChangeKind, StaleReason

from graphmemd.graph.knowledge_refs import RefIndex, successor_in
from graphmemd.graph.model import SymbolInfo
from graphmemd.graph.served import Served, rules_for, served
from graphmemd.ingest.knowledge.model import TextRef
from graphmemd.ingest.parsing import language_for_path
from graphmemd.memory.anchors import file_anchor, symbol_anchor

__all__ = ["Gone", "served_as"]


@dataclass(frozen=True, slots=True)
class Gone:
    """What a reference that resolves to nothing today named when it was written: the anchor
    it follows, why it is no longer what the text says (None: a module still serves the name
    without a warning: it works), and the code the name reaches now through a module's lazy
    hook (``named``; None when not known)."""

    anchor: Anchor
    reason: StaleReason | None
    named: Anchor | None = None


def served_as(
    root: Path, ref: TextRef, o: SymbolInfo, new_path: str, reason: StaleReason, index: RefIndex, now: float
) -> Gone | None:
    """The name ``ref`` writes for the gone ``o``, still served by a module's lazy hook
    (``graph.served``: Python's module-level ``__getattr__``), read in the module's text under
    ``root`` as it is now: the module the text writes (``click.get_text_stream``: ``click``;
    ``from click.parser import split_arg_string``), else ``o``'s module and its package's
    ``__init__``. With a warning: deprecated since ``reason``'s commit (its successor the one
    the message names, else what the hook returns when that is public and imported from
    another module); without: it works (no reason). None when no module serves it."""
    tries: list[tuple[str, str]] = []
    for written in ([f"{ref.module}.{ref.target}"] if ref.module else []) + [ref.target]:
        module, _, name = written.lstrip(".").rpartition(".")
        tries.extend((f, name) for f in index.module_files(module) if module)
    if "." not in o.qualname:
        package_init = posixpath.join(posixpath.dirname(new_path), "__init__.py")
        tries.extend((f, o.qualname) for f in (new_path, package_init))
    for path, name in dict.fromkeys(tries):
        rules = rules_for(language_for_path(path))
        if rules is None:
            continue
        try:
            text = (root / path).read_text("utf-8", errors="replace")
        except OSError:
            continue
        s = served(text, name, rules)
        if s is not None:
            return _finding(o, path, s, reason, index, now)
    return None


def _finding(o: SymbolInfo, path: str, s: Served, reason: StaleReason, index: RefIndex, now: float) -> Gone:
    """The finding for a name ``s`` serves (see ``served_as``): anchored to the hook (a change
    of it reads the unit again), naming what the hook returns when known."""
    hook = next((h for h in index.symbols if h.path == path and h.qualname == s.hook), None)
    anchor = symbol_anchor(hook) if hook is not None else file_anchor(o.repo_id, path, "")
    source = _absolute(index.module_name(path, package=True), s.source) if s.source else ""
    returned = index.resolve_name(f"{source}.{s.returns}") if source and s.returns else None
    named = symbol_anchor(returned.symbol) if returned is not None and returned.symbol is not None else None
    if not s.warns:
        return Gone(anchor, None, named)
    by = f"{index.module_name(path)}.{s.hook}"
    detail = f"{o.ref} is gone; {by} still serves it, with a warning"
    deprecated = StaleReason(
        o.ref, ChangeKind.DEPRECATED, now, o.signature, new_ref=_heir(s, source, path, index), commit=reason.commit,
        detail=detail, uncommitted=reason.uncommitted, served_by=by,
    )  # fmt: skip
    return Gone(anchor, deprecated, named)


def _heir(s: Served, source: str, path: str, index: RefIndex) -> str:
    """What replaces a served name, as a reader writes it: the name its deprecation message
    gives when it is one symbol of the code now (``Command``), else the public name the hook
    returns from another module (``click.shell_completion.split_arg_string``); "" when
    neither (``_get_binary_stream`` is private)."""
    heir = successor_in(s.text, s.name, index.symbols)
    if heir is not None:
        return heir[0]
    last = s.returns.rsplit(".", 1)[-1]
    if source and last and not last.startswith("_") and source != index.module_name(path):
        return f"{source}.{s.returns}"
    return ""


def _absolute(package: str, module: str) -> str:
    """A Python import's module as an absolute dotted name, ``from .x import`` read in
    ``package`` (each dot past the first one package up)."""
    rest = module.lstrip(".")
    dots = len(module) - len(rest)
    if not dots:
        return module
    parts = package.split(".") if package else []
    parts = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
    return ".".join([*parts, rest] if rest else parts)
