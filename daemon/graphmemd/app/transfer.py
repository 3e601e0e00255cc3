"""Moving observations between machines: export every note as a JSON line with its
repository's identity, and import such lines into the registered clone of that repository,
judged against the code here (``graphmem export`` / ``graphmem import``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from graphmemd.graph.graphstate import GraphState
from graphmemd.ingest.identity import RepoIdentity
from graphmemd.ingest.registry import RepoRegistry
from graphmemd.memory.memory import Memory


def export_lines(registry: RepoRegistry, memory: Memory, repo_id: str = "") -> Iterator[str]:
    """Every observation (of ``repo_id`` when given) as a JSON line, with its repository's identity."""

    def describe(repo_id: str) -> dict[str, str] | None:
        ident = registry.identity(repo_id)
        return ident.to_json() if ident is not None else None

    return memory.export_lines(describe, repo_id)


def import_lines(
    registry: RepoRegistry, memory: Memory, state: GraphState, lines: Sequence[str], repo_hint: str = ""
) -> tuple[int, int, list[str]]:
    """Import exported lines into the repository named, or each into the registered clone
    of the repository it was exported from; judged against the code here. Returns
    (imported, skipped duplicates, one message per rejected line with its number)."""
    target = registry.find(repo_hint) if repo_hint else None

    def place(repo_id: str, desc: Mapping[str, Any] | None) -> str | None:
        if target is not None:
            return target.id
        local = registry.local_for(repo_id, RepoIdentity.from_json(desc) if desc else None)
        return local.id if local is not None else None

    ids, dupes, errors = memory.import_lines(lines, place)
    by_repo: dict[str, list[str]] = {}
    for oid in ids:
        by_repo.setdefault(memory.book.get(oid).repo_id, []).append(oid)
    for rid, group in by_repo.items():
        rt = registry.get(rid)
        if rt is not None and rt.n_files:  # else its first index pass judges them
            memory.reevaluate(group, state, rt.indexed_commit)
    return len(ids), dupes, errors
