"""PURE: which registered repository a file belongs to, from a snapshot of the roots.

The server keeps one ``Roots`` (refreshed when the daemon connects, when an event names a
repository it does not know, or after lost events), so a file outside every repository is
answered from memory: it gets nothing and costs no call to the daemon.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["Location", "Roots"]


@dataclass(frozen=True, slots=True)
class Location:
    """A file inside a registered repository."""

    repo_id: str
    root: str
    path: str  # POSIX, relative to the root


class Roots:
    """Registered repository roots (absolute, resolved), deepest first."""

    def __init__(self, repos: Iterable[tuple[str, str]] = ()) -> None:
        entries = [(repo_id, PurePosixPath(root)) for repo_id, root in repos]
        self._entries = sorted(entries, key=lambda e: len(e[1].parts), reverse=True)

    @property
    def ids(self) -> frozenset[str]:
        """The ids of the repositories."""
        return frozenset(repo_id for repo_id, _ in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def locate(self, path: str) -> Location | None:
        """The repository with the deepest root containing ``path`` (absolute, resolved) and
        the path relative to it; None outside every repository (or for a root itself)."""
        target = PurePosixPath(path)
        for repo_id, root in self._entries:
            if root in target.parents:
                return Location(repo_id, str(root), target.relative_to(root).as_posix())
        return None
