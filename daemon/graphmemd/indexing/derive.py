"""A new checkout current from a sibling checkout's equal files, without resolving them.

The first pass of a checkout of a repository that already has an indexed checkout (a
``git worktree add``) reads and hashes its files and compares them with the sibling's graph
(``equal_files``). When most are equal, the indexer gives the new checkout the sibling's
files, symbols, edges and text documents with the ids renamed (``CodeGraph.derive_files``,
``graph/derive.py``) and lets memory judge the checkout's notes on them; the files that
differ are then parsed and applied like any watcher batch (the incremental path). The new
checkout is current then, without a resolution of its own.

Its resolver is filled later, and only when something needs it: its parses wait in
``RepoRuntime.unhanded`` as a warm restart's do, but the indexer does not hand them over when
idle (``RepoRuntime.derived_from``): the first change in the checkout (or a knowledge pass
that needs its exports) does, resolving every file then (``restore.hand_over``). A checkout
that stays equal to its sibling holds only its graph share. The sibling's parse texts are
read there when this checkout's own parse cache does not have them yet.

The store side runs on the store writer (``copy_rows``): the checkout's cached parses and
its rows (files, symbols, edges) are copied from the sibling's, which the writer has
finished writing by then (it runs jobs in order), renamed the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from graphmemd.graph.derive import renamed_edges
from graphmemd.graph.model import FileRecord, ParsedFile, SymbolInfo, file_id
from graphmemd.ingest.parse_pack import CachedHead, CachedParse, ParsePack
from graphmemd.ingest.parse_pool import content_hash
from graphmemd.ingest.parsecache import PARSER_VERSION, decode
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.runtime import malloc
from graphmemd.store.engine import Store

logger = logging.getLogger(__name__)

#: a checkout is derived from a sibling when at least this share of its files equal the sibling's
MIN_EQUAL_SHARE = 0.5

#: (repository id, path, content hash) -> a parse text queued for the parse cache, or None
Queued = Callable[[str, str, str], str | None]


def source_of(registry: RepoRegistry, rt: RepoRuntime) -> RepoRuntime | None:
    """The sibling checkout ``rt`` can be derived from: one with files, preferring one that
    resolved its own (whose parse cache is surely written)."""
    found = [s for s in registry.siblings(rt.id) if s.n_files]
    found.sort(key=lambda s: (bool(s.derived_from), s.id))
    return found[0] if found else None


def equal_files(
    todo: Iterable[tuple[str, Path]], theirs: Mapping[str, str], max_file_size: int
) -> dict[str, tuple[str, int]]:
    """Of ``todo`` (path, file on disk), the files whose content hash is the one ``theirs``
    (path -> the sibling's content hash) has: path -> (content hash, size). A file that cannot
    be read, or is over ``max_file_size``, is not equal (the parse workers report it)."""
    out: dict[str, tuple[str, int]] = {}
    for rel, path in todo:
        want = theirs.get(rel)
        if want is None:
            continue
        try:
            if path.stat().st_size > max_file_size:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        digest = content_hash(data)
        if digest == want:
            out[rel] = (digest, len(data))
    return out


def sibling_text(parses: ParsePack, queued: Queued, sibling: str, head: CachedHead) -> str | None:
    """The parse text ``head`` names, from ``sibling``'s parse cache (or still queued for it);
    None when it has another parse of that path now."""
    return queued(sibling, head.path, head.content_hash) or parses.text(sibling, head)


def copy_rows(
    store: Store,
    parses: ParsePack,
    queued: Queued,
    source: str,
    target: str,
    heads: Sequence[CachedHead],
    rename: Mapping[str, str],
    infos: Mapping[str, Sequence[SymbolInfo]],
) -> None:
    """On the store writer: give ``target`` the cached parses and the store rows of the files
    ``heads`` names, as ``source`` has them (its edges renamed by ``rename``). A file whose
    parse ``source`` no longer caches is left out (the next start parses it)."""
    started, now = time.monotonic(), time.time()
    rows: list[CachedParse] = []
    records: list[tuple[FileRecord, ParsedFile]] = []
    missing: list[str] = []
    for head in heads:
        try:
            text = sibling_text(parses, queued, source, head)
            parsed = decode(text, outline=True) if text is not None else None
        except ValueError:
            text = parsed = None
        if text is None or parsed is None:
            missing.append(head.path)
            continue
        rows.append(CachedParse(head.path, head.size, head.mtime_ns, head.content_hash, PARSER_VERSION, text))
        rec = FileRecord(target, head.path, parsed.language, head.content_hash, head.size, now, parsed.syntax_errors,
                         head.mtime_ns)  # fmt: skip
        records.append((rec, parsed))
    keep = dict(rename)
    if missing:
        logger.warning("%s: %d files' parses gone from %s before they were copied", target, len(missing), source)
        gone = {file_id(target, p) for p in missing}
        keep = {a: b for a, b in rename.items() if b not in gone and b.split("::", 1)[0] not in gone}
    parses.put_rows(target, rows)
    edges = renamed_edges(store.load_resolved_edges(source), keep)
    store.replace_files(target, records, (), edges, infos={r.path: infos[r.path] for r, _ in records})
    n = len(records)
    del rows, records, edges
    malloc.trim()  # (what the bulk read and load allocated on this thread, back to the system)
    logger.info("stored %s from %s: %d files in %.2fs", target, source, n, time.monotonic() - started)
