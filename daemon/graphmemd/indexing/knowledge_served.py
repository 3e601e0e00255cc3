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
from graphmemd.graph.served import Served, rules_for
from graphmemd.ingest.knowledge.model import TextRef
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.parsing.served import served
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
    root: Path, ref: TextRef, o: SymbolInfo | Anchor, new_path: str, reason: StaleReason, index: RefIndex, now: float
) -> Gone | None:
    """The name ``ref`` writes for the gone ``o``, still served by a module's lazy hook
    (``ingest.parsing.served``: Python's module-level ``__getattr__``), read in the module's text under
    ``root`` as it is now: the module the text writes (``click.get_text_stream``: ``click``;
    ``from click.parser import split_arg_string``), else ``o``'s module and its package's
    ``__init__``. With a warning: deprecated since ``reason``'s commit (its successor the one
    the message names, else what the hook returns when that is public and imported from
    another module); without: it works (no reason). A member of a class a module serves
    (``:members: copy`` of ``ImmutableOrderedMultiDict``, now ``_ImmutableOrderedMultiDict``
    served by the package's hook) is what that member is on the served class: there, it works
    (the class's own reference says it is deprecated); gone from it, None. ``o``: the symbol
    the name followed (or its anchor). None when no module serves it."""
    qualname = _qualname(o)
    tries: list[tuple[str, str]] = []
    for written in ([f"{ref.module}.{ref.target}"] if ref.module else []) + [ref.target]:
        module, _, name = written.lstrip(".").rpartition(".")
        tries.extend((f, name) for f in index.module_files(module) if module)
    if "." not in qualname:
        package_init = posixpath.join(posixpath.dirname(new_path), "__init__.py")
        tries.extend((f, qualname) for f in (new_path, package_init))
    for path, name in dict.fromkeys(tries):
        s = _served_in(root, path, name)
        if s is not None:
            return _finding(o, path, s, reason, index, now)
    return _member_of_served(root, ref, qualname, new_path, index)


def _served_in(root: Path, path: str, name: str) -> Served | None:
    """The branch of ``path``'s lazy hook that serves ``name``, read as the file is now."""
    language = language_for_path(path)
    rules = rules_for(language)
    if rules is None:
        return None
    try:
        text = (root / path).read_text("utf-8", errors="replace")
    except OSError:
        return None
    return served(text, name, language, rules)


def _member_of_served(root: Path, ref: TextRef, qualname: str, new_path: str, index: RefIndex) -> Gone | None:
    """A gone ``Class.member`` whose class a module's hook now serves (see ``served_as``)."""
    container, dot, member = qualname.partition(".")
    if not dot:
        return None
    modules = [ref.module] if ref.module else []
    written = ".".join(p for p in (ref.module, ref.target) if p)
    if written.endswith(f".{qualname}"):
        modules.append(written[: -len(qualname) - 1])
    files = [f for m in dict.fromkeys(modules) for f in index.module_files(m)]
    files += [new_path, posixpath.join(posixpath.dirname(new_path), "__init__.py")]
    for path in dict.fromkeys(files):
        s = _served_in(root, path, container)
        if s is None or not s.source or not s.returns:
            continue
        cls = index.resolve_name(f"{_absolute(index.module_name(path, package=True), s.source)}.{s.returns}")
        if cls is None or cls.symbol is None:
            continue
        want = f"{cls.symbol.qualname}.{member}"
        now = next((x for x in index.symbols if x.path == cls.symbol.path and x.qualname == want), None)
        if now is None:
            return None
        return Gone(symbol_anchor(now), None, symbol_anchor(now))
    return None


def _qualname(o: SymbolInfo | Anchor) -> str:
    return o.qualname if isinstance(o, SymbolInfo) else o.ref.rpartition("::")[2]


def _finding(o: SymbolInfo | Anchor, path: str, s: Served, reason: StaleReason, index: RefIndex, now: float) -> Gone:
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
