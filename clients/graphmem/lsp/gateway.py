"""The language server's connection to the daemon: every call with a short deadline, and
no call at all while the daemon is known to be down.

Calls block (gRPC); the server runs them on its worker threads, never on the event loop. A
call that finds the daemon gone (not running, not answering within the deadline, going
away) marks the link down and tells the server once (``on_link``); until the event follower
reconnects (``mark_up``), further calls fail at once with ``DaemonNotRunning`` instead of
waiting for a deadline. The editor never waits on a daemon that is not there.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from graphmem.client import GraphMem
from graphmem.errors import DaemonNotRunning, Timeout, Unavailable
from graphmem.lsp.positions import split_lines
from graphmem.lsp.roots import Roots
from graphmem.types import Category, FileOutline, KnowledgeReference, Observation, RecallResult, Status

__all__ = ["DEADLINE_S", "Checked", "Gateway", "Outlined"]

logger = logging.getLogger(__name__)

#: Deadline of every unary call the language server makes.
DEADLINE_S: Final = 2.0
#: What says the daemon is gone (rather than that the request was wrong).
GONE: Final = (DaemonNotRunning, Timeout, Unavailable)
#: Largest file whose text is read to map the daemon's lines onto the buffer.
_MAX_TEXT_BYTES: Final = 8 * 1024 * 1024

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Outlined:
    """An outline with the lines of the text its line numbers refer to (None when the file on
    disk is not what the daemon indexed: it is behind, or the file is not indexed)."""

    outline: FileOutline
    indexed: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Checked:
    """A knowledge file's references that are not OK, with the lines of the file they were
    read against (the text on disk when the daemon answered)."""

    references: tuple[KnowledgeReference, ...]
    disk: tuple[str, ...]


class Gateway:
    """Thread-safe calls to the daemon for the language server."""

    def __init__(self, client: GraphMem, on_link: Callable[[bool, str], None]) -> None:
        self._client = client
        self._on_link = on_link
        self._lock = threading.Lock()
        self._up: bool | None = None  # None: not known yet
        #: Calls made to the daemon (a file outside every repository must cost none).
        self.calls = 0

    @property
    def up(self) -> bool:
        """Whether the daemon answered last time (False also before the first answer)."""
        return bool(self._up)

    @property
    def down(self) -> bool:
        """Whether the daemon is known to be gone (False also before the first answer)."""
        return self._up is False

    def mark_up(self) -> None:
        """The daemon answers (again)."""
        self._set(True, "")

    def mark_down(self, reason: str) -> None:
        """The daemon is gone: calls fail at once until ``mark_up``."""
        self._set(False, reason)

    def _set(self, up: bool, reason: str) -> None:
        with self._lock:
            changed = self._up is not up
            self._up = up
        if changed:
            self._on_link(up, reason)

    def _call(self, fn: Callable[[GraphMem], _T]) -> _T:
        if self._up is False:
            raise DaemonNotRunning("graphmemd is not running (the language server retries in the background)")
        with self._lock:
            self.calls += 1
        try:
            return fn(self._client)
        except GONE as exc:
            self.mark_down(str(exc))
            raise

    # ------------------------------------------------------------------ reads

    def roots(self) -> Roots:
        """The registered repositories' roots."""
        repos = self._call(lambda c: c.list_repos())
        return Roots(((r.id, r.root) for r in repos), {r.id: r.repository_id for r in repos})

    def outline(self, path: str, repo_root: str) -> Outlined:
        """A file's outline, with the lines of its text on disk when they are what the daemon indexed."""
        try:
            data: bytes | None = Path(path).read_bytes()
        except OSError:
            data = None
        outline = self._call(lambda c: c.file_outline(path, repo=repo_root))
        indexed: tuple[str, ...] | None = None
        small = data is not None and len(data) <= _MAX_TEXT_BYTES
        if data is not None and small and outline.content_hash == hashlib.blake2b(data).hexdigest():
            indexed = tuple(split_lines(data.decode("utf-8", errors="replace")))
        return Outlined(outline, indexed)

    def knowledge(self, path: str, repo_root: str, rel_path: str) -> Checked:
        """The references to code in one knowledge file that are not OK (none when the daemon
        does not read the file as knowledge), without waiting for the index to be current."""
        check = self._call(lambda c: c.check_knowledge([path], repo=repo_root, wait_current=False))
        try:
            data = Path(path).read_bytes()[:_MAX_TEXT_BYTES]
        except OSError:
            data = b""
        refs = tuple(r for r in check.references if r.path == rel_path)
        return Checked(refs, tuple(split_lines(data.decode("utf-8", errors="replace"))))

    def status(self) -> Status:
        """The daemon's status (health, repositories, index state)."""
        return self._call(lambda c: c.status())

    def recall(self, path: str, repo_root: str, line: int | None) -> RecallResult:
        """Ranked notes for a file; ``line`` (1-based) focuses on the cursor."""
        return self._call(lambda c: c.recall(files=[path], repo=repo_root, line=line or 0))

    # ------------------------------------------------------------------ writes

    def note(self, obs_id: str) -> Observation:
        """The note as saved (its ``repo_id``: the checkout it was saved in)."""
        return self._call(lambda c: c.get(obs_id))

    def confirm(self, obs_id: str, by: str, repo: str = "") -> Observation:
        """Mark a stale or suspect note as checked, from the checkout at ``repo`` ("": as saved;
        one stale only in that checkout is refused, saying why)."""
        return self._call(lambda c: c.confirm(obs_id, confirmed_by=by, repo=repo))

    def archive(self, obs_id: str, by: str) -> Observation:
        """Archive a note, recording who (``by``) in its history."""
        return self._call(lambda c: c.archive(obs_id, by=by))

    def observe(self, text: str, anchor: str, repo_root: str, category: Category, source: str) -> Observation:
        """Save a note anchored to ``anchor`` (``path::qualname`` or a path) in the repository at ``repo_root``."""
        return self._call(lambda c: c.observe(text, anchors=[anchor], repo=repo_root, category=category, source=source))
