"""Old versions of files, their bytes read from git, parsed in the parse workers.

The workers parse files on disk: each version is written to a scratch directory of its own
(one folder per version, the file's own name kept so that its language is read from it), all
of them handed out in one batch so that versions of one path are parsed side by side, and
each outcome matched to its version by the path and content hash it was parsed as. Used by a
knowledge pass (``indexing.old_versions``) and by the review page's code before a change
(``app.codechange``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from graphmemd.graph.model import ParsedFile
from graphmemd.ingest.parse_pool import ParsePool, content_hash

__all__ = ["VersionParser"]


class VersionParser:
    """Parses old versions of files for one caller; ``close`` removes its scratch files.
    Not thread-safe: one caller (a pass, a request) at a time."""

    def __init__(self, pool: Callable[[], ParsePool], prefix: str) -> None:
        self._pool = pool
        self._prefix = prefix
        self._scratch: Path | None = None
        self._folders = 0
        #: versions handed to the workers so far
        self.parses = 0

    def parse(self, versions: Mapping[str, tuple[str, bytes]]) -> Iterator[tuple[str, ParsedFile]]:
        """Parse each version ``key -> (path, bytes)`` as the file ``path``; yield ``(key,
        parsed)`` as they complete. A version that did not parse (not code, a worker lost) is
        not yielded. Two keys with the same path and bytes are one version: the last is yielded."""
        if not versions:
            return
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix=self._prefix))
        self.parses += len(versions)
        tasks: list[tuple[str, Path]] = []
        keys: dict[tuple[str, str], str] = {}
        for key, (path, data) in versions.items():
            self._folders += 1
            target = self._scratch / str(self._folders) / Path(path).name
            target.parent.mkdir()
            target.write_bytes(data)
            tasks.append((path, target))
            keys[(path, content_hash(data))] = key
        for out in self._pool().parse_many(tasks):
            got = keys.get((out.path, out.content_hash or ""))
            if got is not None and out.parsed is not None:
                yield got, out.parsed

    def close(self) -> None:
        """Remove the scratch files."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
