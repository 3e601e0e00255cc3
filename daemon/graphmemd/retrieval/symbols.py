"""Symbol queries of the read side: find by glob, resolve a short reference, one symbol's
neighbourhood; and the reference resolution retrieval's seeds share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from graphmem.errors import InvalidArgument
from graphmem.types import AnchorKind, EdgeKind, FileOutline, ObservationStatus, Resolved, Symbol, SymbolDetail

from graphmemd.graph.model import SymbolInfo, file_id
from graphmemd.graph.symbol_match import close_matches
from graphmemd.retrieval.readview import GraphReader, ReadView


def to_symbol(s: SymbolInfo) -> Symbol:
    """The wire/domain form of a symbol."""
    return Symbol(
        id=s.id,
        repo_id=s.repo_id,
        path=s.path,
        name=s.name,
        qualname=s.qualname,
        kind=s.kind.value,
        language=s.language.value,
        start_line=s.start_line,
        end_line=s.end_line,
        signature=s.signature,
    )


#: The observations an outline shows: what a reader of the code should see (not archived or superseded).
_OUTLINED = frozenset({ObservationStatus.FRESH, ObservationStatus.STALE, ObservationStatus.SUSPECT})


def resolve_ref(view: ReadView, g: GraphReader, ref: str, repo_hint: str) -> str:
    """A symbol/file node id for ``ref``: ``ReadView.resolve_anchor``'s reading (a short
    reference with exactly one match resolves; INVALID_ARGUMENT lists the candidates)."""
    anchor = view.resolve_anchor(ref, repo_hint)
    return anchor.symbol_id if anchor.kind is AnchorKind.SYMBOL else file_id(anchor.repo_id, anchor.path)


def scope_symbols(view: ReadView, g: GraphReader, repo_hint: str) -> list[SymbolInfo]:
    """The symbols of the repositories ``repo_hint`` covers."""
    scope = {rt.id for rt in view.repos(repo_hint)}
    return [s for s in g.symbols.values() if s.repo_id in scope]


class SymbolQueries:
    """Find, resolve and describe symbols through the read view."""

    def __init__(self, view: Callable[[], ReadView]) -> None:
        self._view = view

    def find_symbols(self, pattern: str, *, repo: str = "", kinds: Sequence[str] = (), limit: int = 50) -> list[Symbol]:
        """Symbols whose name, qualname or ref match a glob, exact names first."""
        view = self._view()
        repo_id = view.repo(repo).id if repo else ""
        with view.reading() as g:
            return [to_symbol(s) for s in g.find(pattern, repo_id, [k for k in kinds if k], limit)]

    def resolve_symbol(self, ref: str, *, repo: str = "", limit: int = 10) -> Resolved:
        """Symbols a short reference most plausibly means, best first (``symbol_match.py``)."""
        if not ref.strip():
            raise InvalidArgument("ref is required")
        with self._view().reading() as g:
            found = close_matches(ref, scope_symbols(self._view(), g, repo), limit)
        return Resolved(ref, tuple(to_symbol(s) for s in found.symbols), found.exact)

    def symbol_detail(self, ref: str, *, repo: str = "") -> SymbolDetail:
        """One symbol with its callers, callees, container, members, inheritance, file imports
        and observations."""
        e = self._view()
        with e.reading() as g:
            sid = resolve_ref(e, g, ref, repo)
            if sid not in g.symbols:
                raise InvalidArgument(f"{ref!r} names a file; give 'path::qualname' for a symbol")
            s = g.symbols[sid]

            def syms(ids: Iterable[str]) -> tuple[Symbol, ...]:
                return tuple(sorted((to_symbol(g.symbols[i]) for i in ids if i in g.symbols), key=lambda x: x.id))

            fid = file_id(s.repo_id, s.path)
            fnode = g.files.get(fid)
            imports = sorted(g.ref_of(f) for f in g.out(fid, EdgeKind.IMPORTS))
            imports += sorted(fnode.external_imports) if fnode else []
            detail = SymbolDetail(
                symbol=to_symbol(s),
                callers=syms(g.into(s.id, EdgeKind.CALLS)),
                callees=syms(g.out(s.id, EdgeKind.CALLS)),
                unresolved_calls=tuple(sorted(set(g.unresolved(s.id)))),
                contains=syms(g.out(s.id, EdgeKind.CONTAINS)),
                container=to_symbol(g.symbols[s.parent_id]) if s.parent_id and s.parent_id in g.symbols else None,
                inherits=syms(g.out(s.id, EdgeKind.INHERITS)),
                inherited_by=syms(g.into(s.id, EdgeKind.INHERITS)),
                file_imports=tuple(imports),
                file_imported_by=tuple(sorted(g.ref_of(f) for f in g.into(fid, EdgeKind.IMPORTS))),
                observations=tuple(sorted(e.anchored_to(s.id), key=lambda o: o.id)),
                freshness=e.freshness([e.repo(s.repo_id)]),
            )
        return detail

    def file_outline(self, path: str, *, repo: str = "") -> FileOutline:
        """One file's symbols in source order with their line ranges, and the observations
        anchored to the file or its symbols (fresh, stale, suspect; oldest first)."""
        e = self._view()
        rt, rel = e.locate(path, repo)
        with e.reading() as g:
            node = g.files.get(file_id(rt.id, rel))
            symbols = sorted(g.file_symbols(rt.id, rel), key=lambda s: (s.start_line, -s.end_line, s.qualname))
        anchored = e.anchored_in_file(rt.id, rel)
        observations = sorted((o for o in anchored if o.status in _OUTLINED), key=lambda o: (o.created_at, o.id))
        fresh = e.freshness([rt]).repositories
        return FileOutline(
            repo_id=rt.id,
            repo_root=str(rt.root),
            path=rel,
            indexed=node is not None,
            content_hash=node.content_hash if node is not None else "",
            language=node.language.value if node is not None else "",
            symbols=tuple(to_symbol(s) for s in symbols),
            observations=tuple(observations),
            freshness=fresh[0] if fresh else None,
        )
