"""The shell of ``memory/bodylines``: a body change's text before it, read from git.

For each file with body changes recorded just now: the text now is the file on disk (the one
just parsed), the text before is the file in ``before`` (the commit the daemon had indexed
before this pass: HEAD when HEAD did not move, so an edit in the working tree is counted
against HEAD; the commit HEAD left when a checkout, merge or pull brought the change). Every
file's old text comes through ``GitHistory.blobs`` (two ``git cat-file`` processes for the
whole pass, whatever folder of its working tree the repository is registered as); at most
``MAX_FILES`` files are diffed per pass: a pass that marks more (a checkout of a thousand
files) leaves the rest as "body changed". Outside git, when the file is not in ``before`` or
git fails, nothing is counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from graphmemd.ingest.githistory import GitHistory
from graphmemd.memory.bodylines import BodyQuery, count_changed

__all__ = ["MAX_FILES", "measure_bodies"]

#: Files measured per pass (each is diffed on the indexer's thread).
MAX_FILES = 32
#: A file larger than this is not diffed.
MAX_BYTES = 2 * 1024 * 1024


def measure_bodies(root: Path, queries: Sequence[BodyQuery], before: str) -> dict[str, int]:
    """Anchor ref -> the lines its body change touched since commit ``before`` ("": HEAD), for
    the ``queries`` that can be measured."""
    by_file: dict[str, list[BodyQuery]] = {}
    for q in queries:
        by_file.setdefault(q.path, []).append(q)
    now: dict[str, str] = {}
    for path in list(by_file)[:MAX_FILES]:
        try:
            if (root / path).stat().st_size <= MAX_BYTES:
                now[path] = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    git = GitHistory(root)
    if not now or not git.enabled:
        return {}
    commit = before or git.head
    then = git.blobs((commit, path) for path in now)
    counts: dict[str, int] = {}
    for path, text in now.items():
        old = then.get((commit, path))
        if old is None or len(old) > MAX_BYTES:
            continue
        for q in by_file[path]:
            counts[q.anchor_ref] = count_changed(old.decode("utf-8", "replace"), text, q.start_line, q.end_line)
    return counts
