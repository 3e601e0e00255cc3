"""Registered repositories: identity, persistence (repos.json) and per-repository runtime state."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from graphmem.errors import InvalidArgument
from graphmem.types import IndexState

from graphmemd.resolution import RepoFacts, RepoResolver, facts_from_files
from graphmemd.walker import RepoFilter, WalkedFile, walk_repo


def repo_id_for(root: Path) -> str:
    """A stable, readable id: the directory name plus a short hash of the absolute path."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.name).strip("-") or "repo"
    digest = hashlib.blake2b(str(root).encode(), digest_size=3).hexdigest()
    return f"{name}-{digest}"


@dataclass(eq=False)
class RepoRuntime:
    id: str
    root: Path
    filter: RepoFilter
    resolver: RepoResolver
    state: IndexState = IndexState.PENDING
    files_done: int = 0
    files_total: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    error: str = ""
    indexed_commit: str = ""
    dirty: bool = False
    last_indexed_at: float | None = None
    pending: set[Path] = field(default_factory=set)
    queued: bool = False
    rescan_queued: bool = False
    busy: bool = False
    n_files: int = 0
    n_symbols: int = 0
    n_edges: int = 0
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (size, mtime_ns) at last parse
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def create(cls, root: Path) -> RepoRuntime:
        if not root.is_dir():
            raise InvalidArgument(f"not a directory: {root}")
        rid = repo_id_for(root)
        flt = RepoFilter(root)
        return cls(id=rid, root=root, filter=flt, resolver=RepoResolver(rid, initial_facts(root, flt)))

    def rel(self, path: Path) -> str | None:
        """``path`` relative to the root (POSIX), or None when outside."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return None
        text = rel.as_posix()
        return None if text in ("", ".") else text


def initial_facts(root: Path, flt: RepoFilter) -> RepoFacts:
    """Repository facts (go.mod, Cargo.toml, tsconfig/package.json, Python project files)
    from a walk of the tree at registration. The indexer refreshes them with
    ``facts_from_files`` after its own walks and when a fact file changes."""
    return facts_from_files(root, [w.path for w in walk_repo(root, filter=flt) if isinstance(w, WalkedFile)])


def load_registry(path: Path) -> list[Path]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError):
        return []
    roots = data.get("repositories", []) if isinstance(data, dict) else []
    return [Path(r) for r in roots if isinstance(r, str)]


def save_registry(path: Path, roots: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".repos.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"repositories": [str(r) for r in roots]}, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
