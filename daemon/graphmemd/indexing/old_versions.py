"""Old versions of a repository's code files, for a knowledge pass (``knowledge_history``):
read from git and parsed in the parse workers, each version (blob) once per pass — and once
for every checkout of the repository when the parses are kept (``history_shared``).

On the indexer thread (every knowledge pass runs there).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path

from graphmemd.graph.model import ImportRef, SymbolInfo, symbols_of
from graphmemd.indexing.history_shared import OldParse
from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.parse_pool import ParsePool, content_hash


class OldVersions:
    """The old versions one pass asked for, by ``blob:path``: their symbols (with the ids of
    checkout ``repo_id``), imports and module-level names bound by value to another name.
    ``kept``: where parses are kept beyond the pass, for the repository's checkouts."""

    def __init__(
        self, repo_id: str, git: GitHistory, pool: Callable[[], ParsePool], kept: MutableMapping[str, OldParse] | None
    ) -> None:
        self.repo_id = repo_id
        self.git = git
        self._pool = pool
        self._kept = kept
        self._parsed: dict[str, list[SymbolInfo] | None] = {}  # "blob:path" -> symbols
        self._imports: dict[str, tuple[ImportRef, ...]] = {}  # "blob:path" -> its imports
        self._bound: dict[str, dict[str, str]] = {}  # "blob:path" -> its module-level name = name
        self._scratch: Path | None = None
        #: old versions parsed (for the log)
        self.parses = 0

    def close(self) -> None:
        """Remove the scratch files of this pass."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

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
        """Parse old versions in the workers, all at once (written to this pass's scratch
        directory, one folder per blob); an outcome is matched by its path and content hash,
        so versions of one path are parsed side by side too."""
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="gm-history-"))
        self.parses += len(files)
        tasks: list[tuple[str, Path]] = []
        keys: dict[tuple[str, str], str] = {}
        for key, (path, data) in files.items():
            self._parsed[key] = None
            target = self._scratch / key.split(":", 1)[0] / Path(path).name
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(data)
            tasks.append((path, target))
            keys[(path, content_hash(data))] = key
        for out in self._pool().parse_many(tasks):
            got = keys.get((out.path, out.content_hash or ""))
            if got is None or out.parsed is None:
                continue
            key = got
            symbols = self._parsed[key] = symbols_of(self.repo_id, out.parsed)
            imports = self._imports[key] = out.parsed.imports
            bound = self._bound[key] = {
                t.name: t.type for t in out.parsed.types if t.attr and not t.scope and "." not in t.name
            }
            if self._kept is not None:
                self._kept[key] = OldParse(self.repo_id, tuple(symbols), imports, dict(bound))
