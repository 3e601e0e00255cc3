"""A repository's identity beyond its path: the root commit and the remote URL.

Registered repositories get their id from their absolute path (two clones on one machine
are two repositories); what makes knowledge portable is this identity, which survives
moving the working tree and cloning it elsewhere: an export carries it, an import into a
clone with the same root commit lands in that clone, and a repository registered again at
another path takes back the observations it had. Read with ``git --no-optional-locks`` (it
never takes a lock in the user's repository); a tree that is not a git repository has only
its directory name. A repository registered as a folder of a git working tree carries that
folder: another folder of the same git repository is not a clone of it.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

GIT_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class RepoIdentity:
    """Root commit (the oldest of the first-parent roots), remote URL, directory name, and the
    folder of the git working tree the repository is registered as ("" at its top; None for
    an identity recorded before folders were, ``from_json``)."""

    root_commit: str = ""
    remote: str = ""
    name: str = ""
    folder: str | None = ""

    def same_repository(self, other: RepoIdentity) -> bool:
        """Whether both are clones of one repository: same root commit, the same remote when
        both have one, and the same folder of it (two folders of one git repository are two
        repositories to graphmem; ``same_folder`` for an identity whose folder is not known)."""
        if not self.root_commit or self.root_commit != other.root_commit or not self.same_folder(other):
            return False
        return not self.remote or not other.remote or _norm_remote(self.remote) == _norm_remote(other.remote)

    def same_folder(self, other: RepoIdentity) -> bool:
        """Whether both stand for the same folder of their working trees. An identity recorded
        before folders were (``folder`` None) was either a top or a folder named ``name``: it
        matches a top, or a folder of that name (a folder re-registered elsewhere takes back
        its notes; another folder of the repository does not)."""
        if self.folder is not None and other.folder is not None:
            return self.folder == other.folder
        if self.folder is None and other.folder is None:
            return True
        old, new = (self, other) if self.folder is None else (other, self)
        assert new.folder is not None
        return not new.folder or new.folder.rstrip("/").rpartition("/")[2] == old.name

    def to_json(self) -> dict[str, str]:
        """A JSON object (for ``repos.json`` and exports); an unknown folder is left out, as
        it was written before."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: object) -> RepoIdentity | None:
        """An identity from ``to_json``'s output; None when ``data`` is not one. Without a
        ``folder`` (written before folders were recorded): the folder is not known (None)."""
        if not isinstance(data, Mapping):
            return None
        values = {k: data.get(k, "") for k in ("root_commit", "remote", "name")}
        folder = data.get("folder")
        if not all(isinstance(v, str) for v in values.values()) or not isinstance(folder, str | None):
            return None
        return cls(**values, folder=folder)


def _norm_remote(url: str) -> str:
    """``git@host:a/b.git`` and ``https://host/a/b`` name the same remote."""
    u = url.strip().removesuffix("/").removesuffix(".git")
    if "://" in u:
        u = u.split("://", 1)[1]
        u = u.split("@", 1)[-1]
    elif "@" in u and ":" in u:
        u = u.split("@", 1)[1].replace(":", "/", 1)
    return u.lower()


def _git(root: Path, *args: str) -> str:
    try:
        out = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.debug("git %s in %s failed: %s", args, root, exc)
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def identity_of(root: Path, folder: str = "") -> RepoIdentity:
    """The identity of the directory ``root``, the folder ``folder`` of its git working tree."""
    roots = sorted(_git(root, "rev-list", "--max-parents=0", "HEAD").split())
    remote = _git(root, "config", "--get", "remote.origin.url")
    return RepoIdentity(roots[0] if roots else "", remote, root.name, folder)
