"""PURE: which registered repository a file belongs to, from a snapshot of the roots.

The server keeps one ``Roots`` (refreshed when the daemon connects, when an event names a
repository it does not know, or after lost events), so a file outside every repository is
answered from memory: it gets nothing and costs no call to the daemon.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    """Registered repository roots (absolute, resolved), deepest first; ``repositories``: the
    repository each checkout belongs to (its worktrees and linked clones share one; a checkout
    not in it is a repository of its own)."""

    def __init__(self, repos: Iterable[tuple[str, str]] = (), repositories: Mapping[str, str] | None = None) -> None:
        entries = [(repo_id, PurePosixPath(root)) for repo_id, root in repos]
        self._entries = sorted(entries, key=lambda e: len(e[1].parts), reverse=True)
        self._repositories = {k: v for k, v in (repositories or {}).items() if v}

    def repository(self, repo_id: str) -> str:
        """The repository the checkout ``repo_id`` belongs to."""
        return self._repositories.get(repo_id, repo_id)

    def checkout_at(self, folder: str) -> tuple[str, str] | None:
        """The registered checkout (id, root) that ``folder`` (absolute, resolved) is the root
        of or lies in, the deepest; None when it is in none."""
        target = PurePosixPath(folder)
        for repo_id, root in self._entries:
            if root == target or root in target.parents:
                return repo_id, str(root)
        return None

    def workspace_checkout(self, folders: Iterable[str], home: str) -> str:
        """The root of the one checkout of ``home``'s repository (``home``: the checkout a note
        was saved in) among the editor's workspace ``folders``: what a confirmation sent without
        a document is judged from. "" when no folder, or folders of two different checkouts of
        it, are: the note is then confirmed as saved (its home checkout judges it)."""
        family = self.repository(home)
        found = {c for f in folders if (c := self.checkout_at(f)) is not None and self.repository(c[0]) == family}
        return next(iter(found))[1] if len(found) == 1 else ""

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
