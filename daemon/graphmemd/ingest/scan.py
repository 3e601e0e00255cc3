"""What changed on disk: a repository's full walk, or a watcher batch, turned into the files
to parse and the files gone. Stats each file; keeps ``RepoRuntime.stats`` (size and mtime
at the last parse) so a file already parsed at its current state is never parsed again.
Knowledge files (``RepoRuntime.knowledge`` decides which) come out of the same walk, and
out of a batch as ``DocChanges``."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graphmemd.ingest.knowledge.selection import CONFIG_FILE
from graphmemd.ingest.parsing import language_for_path
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.ingest.walker import WalkedDoc, WalkedFile, walk_repo


@dataclass(slots=True)
class DocChanges:
    """The knowledge files a batch changed (to read again) and removed."""

    changed: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)
    config: bool = False  # ``.graphmem.toml`` changed: every knowledge file is chosen again


def scan_tree(
    rt: RepoRuntime, only: Sequence[str], full: bool, max_file_size: int, docs: list[WalkedDoc] | None = None
) -> tuple[list[WalkedFile], dict[str, str], list[tuple[str, Path]]]:
    """(files on disk, skipped files with reasons, files to parse) of a full pass: a file is
    parsed when ``full``, when it is new, or when its size or mtime changed since its last
    parse. The knowledge files found are appended to ``docs`` (when given)."""
    rt.filter.reload()
    walked: list[WalkedFile] = []
    skipped: dict[str, str] = {}
    kind_of = rt.knowledge.kind_of if docs is not None else None
    for item in walk_repo(rt.root, max_file_size=max_file_size, filter=rt.filter, documents=kind_of):
        if isinstance(item, WalkedFile):
            walked.append(item)
        elif isinstance(item, WalkedDoc):
            if docs is not None and not only:
                docs.append(item)
        else:
            skipped[item.path] = item.reason
    if only:
        wanted = set(only)
        walked = [w for w in walked if w.path in wanted]
    known = rt.resolver.paths() | rt.unhanded.keys()  # a warm restart's parses count
    todo: list[tuple[str, Path]] = []
    for w in walked:
        try:
            st = w.abs_path.stat()
        except OSError:
            continue
        key = (st.st_size, st.st_mtime_ns)
        if full or w.path not in known or rt.stats.get(w.path) != key:
            todo.append((w.path, w.abs_path))
            rt.stats[w.path] = key
    return walked, skipped, todo


def classify_batch(
    rt: RepoRuntime, paths: set[Path], known: set[str], max_file_size: int, docs: DocChanges | None = None
) -> tuple[dict[str, Path], set[str], bool]:
    """(files to parse, files removed, whether a full rescan is needed) for a batch; the
    knowledge files it touched go to ``docs``."""
    todo: dict[str, Path] = {}
    removed: set[str] = set()
    rescan = False
    docs = docs if docs is not None else DocChanges()
    for p in paths:
        rel = rt.rel(p)
        if rel is None:
            continue
        if rel == CONFIG_FILE:
            docs.config = True
            continue
        if rt.filter.maybe_invalidate(rel):
            rescan = True
            continue
        try:
            st = os.stat(p)
        except OSError:  # gone (deleted, or renamed away): drop it and anything under it
            prefix = rel + "/"
            removed.update(f for f in known if f == rel or f.startswith(prefix))
            docs.removed.update(f for f in rt.doc_stats if f == rel or f.startswith(prefix))
            continue
        if stat.S_ISDIR(st.st_mode):
            if rt.filter.is_ignored(rel, is_dir=True):
                continue
            # a directory appeared (mkdir, moved in, checkout): walk it with the repo's own rules
            walk = walk_repo(
                rt.root, max_file_size=max_file_size, filter=rt.filter, under=rel, documents=rt.knowledge.kind_of
            )
            for item in walk:
                if isinstance(item, WalkedFile):
                    todo[item.path] = item.abs_path
                elif isinstance(item, WalkedDoc):
                    docs.changed.add(item.path)
            continue
        if rt.filter.is_ignored(rel) or not stat.S_ISREG(st.st_mode) or language_for_path(rel) is None:
            if rel in known:
                removed.add(rel)
            _doc_change(rt, rel, st, docs)
            continue
        if rel in known and rt.stats.get(rel) == (st.st_size, st.st_mtime_ns):
            continue  # parsed at this very state already (a rescan got there first)
        if st.st_size > max_file_size:
            rt.skipped[rel] = f"file is {st.st_size} bytes, over the {max_file_size}-byte limit"
            if rel in known:
                removed.add(rel)
            continue
        todo[rel] = Path(p)
        rt.stats[rel] = (st.st_size, st.st_mtime_ns)
    return todo, removed, rescan


def _doc_change(rt: RepoRuntime, rel: str, st: os.stat_result, docs: DocChanges) -> None:
    """Note a knowledge file of a batch: changed (read it again) or no longer one."""
    if stat.S_ISREG(st.st_mode) and not rt.filter.is_ignored(rel) and rt.knowledge.kind_of(rel) is not None:
        if rt.doc_stats.get(rel) != (st.st_size, st.st_mtime_ns):
            docs.changed.add(rel)
    elif rel in rt.doc_stats:
        docs.removed.add(rel)
