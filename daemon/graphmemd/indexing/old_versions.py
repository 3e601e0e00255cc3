"""Old versions of a repository's code files, for a knowledge pass (``knowledge_history``):
read from git and parsed in the parse workers, each version (blob) once per pass — and once
for every checkout of the repository when the parses are kept (``history_shared``).

On the indexer thread (every knowledge pass runs there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping

from graphmemd.graph.model import ImportRef, SymbolInfo, symbols_of
from graphmemd.indexing.history_shared import OldParse
from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.version_parse import VersionParser


class OldVersions:
    """The old versions one pass asked for, by ``blob:path``: their symbols (with the ids of
    checkout ``repo_id``), imports and module-level names bound by value to another name.
    ``kept``: where parses are kept beyond the pass, for the repository's checkouts."""

    def __init__(
        self, repo_id: str, git: GitHistory, pool: Callable[[], ParsePool], kept: MutableMapping[str, OldParse] | None
    ) -> None:
        self.repo_id = repo_id
        self.git = git
        self._kept = kept
        self._parsed: dict[str, list[SymbolInfo] | None] = {}  # "blob:path" -> symbols
        self._imports: dict[str, tuple[ImportRef, ...]] = {}  # "blob:path" -> its imports
        self._bound: dict[str, dict[str, str]] = {}  # "blob:path" -> its module-level name = name
        self._parser = VersionParser(pool, "gm-history-")

    @property
    def parses(self) -> int:
        """Old versions parsed (for the log)."""
        return self._parser.parses

    def close(self) -> None:
        """Remove the scratch files of this pass."""
        self._parser.close()

    def symbols(self, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[SymbolInfo] | None]:
        """The symbols of ``path`` at ``commit`` for each (commit, path); None: not there.
        Each version (blob) is parsed once; those not parsed yet, in one batch."""
        ids = self.git.blob_ids(wanted)
        if self._kept is not None:
            for k, i in ids.items():
                if i is not None and (key := f"{i}:{k[1]}") not in self._parsed and key in self._kept:
                    old = self._kept[key]
                    self._parsed[key] = old.symbols_for(self.repo_id)
                    self._imports[key], self._bound[key] = old.imports, dict(old.bound)
        todo = {i: k[1] for k, i in ids.items() if i is not None and f"{i}:{k[1]}" not in self._parsed}
        if todo:
            data = self.git.contents(todo)
            self._parse({f"{i}:{path}": (path, data[i]) for i, path in todo.items() if i in data})
        return {k: self._parsed.get(f"{i}:{k[1]}") if i is not None else None for k, i in ids.items()}

    def imports(self, key: str) -> tuple[ImportRef, ...]:
        """The imports of the version ``key`` (``blob:path``) as parsed (none: not parsed)."""
        return self._imports.get(key, ())

    def bound(self, key: str) -> dict[str, str]:
        """The module-level names of the version ``key`` bound by value to another name."""
        return self._bound.get(key, {})

    def _parse(self, files: dict[str, tuple[str, bytes]]) -> None:
        """Parse old versions in the workers, all at once (``VersionParser``)."""
        for key in files:
            self._parsed[key] = None
        for key, parsed in self._parser.parse(files):
            symbols = self._parsed[key] = symbols_of(self.repo_id, parsed)
            imports = self._imports[key] = parsed.imports
            bound = self._bound[key] = {
                t.name: t.type for t in parsed.types if t.attr and not t.scope and "." not in t.name
            }
            if self._kept is not None:
                self._kept[key] = OldParse(self.repo_id, tuple(symbols), imports, dict(bound))
