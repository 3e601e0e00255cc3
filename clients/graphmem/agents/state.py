"""The files ``graphmem setup`` touched, with a copy of each as it was before the first change.

Kept under graphmem's state directory (``agents/manifest.json`` and ``agents/backups/``), keyed
by the file's absolute path: whether it existed, the backup of its bytes, the hash of what setup
last wrote, the clients that own a change in it, and the directories setup created for it.
``--undo`` restores a file byte for byte from its backup (or removes it, and the directories
made for it, when it did not exist) once no other client owns a change in it.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.errors import GraphMemError

__all__ = ["Manifest", "Touched", "read_text", "sha256", "write_atomically"]


def sha256(data: bytes | None) -> str:
    """The hex SHA-256 of ``data`` ("" for None: no file)."""
    return hashlib.sha256(data).hexdigest() if data is not None else ""


def read_text(path: Path) -> str | None:
    """A configuration file's text (None when it does not exist)."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise GraphMemError(f"cannot read {path}: {exc}") from exc


def write_atomically(path: Path, data: bytes, new_mode: int = 0o666) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, keeping its mode; a new
    file gets ``new_mode`` less the umask (by default what any new file gets: 0644 under the usual
    022, as a configuration file meant to be committed and read by every tool should)."""
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, new_mode)  # less the umask
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@dataclass
class Touched:
    """One file setup changed: its backup (None: it did not exist), the hash of what setup last
    wrote, the owning clients and the directories created for it (deepest last)."""

    backup: str | None
    written: str
    owners: list[str] = field(default_factory=list)
    created_dirs: list[str] = field(default_factory=list)


class Manifest:
    """The manifest file and the backups beside it."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir / "agents"
        self.path = self.dir / "manifest.json"
        self.files: dict[str, Touched] = {}
        try:
            data: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            raise GraphMemError(f"cannot read {self.path}: {exc}") from exc
        for key, rec in data.get("files", {}).items():
            self.files[key] = Touched(rec.get("backup"), rec.get("written", ""), list(rec.get("owners", [])),
                                      list(rec.get("created_dirs", [])))

    def save(self) -> None:
        """Write the manifest (atomically)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        data = {"version": 1, "files": {k: vars(v) for k, v in sorted(self.files.items())}}
        write_atomically(self.path, (json.dumps(data, indent=2) + "\n").encode(), 0o600)

    def record(self, path: Path, before: bytes | None, after: bytes, owner: str, created_dirs: list[Path]) -> None:
        """Note that ``owner`` wrote ``after`` to ``path``; the first time, back ``before`` up."""
        key = str(path)
        rec = self.files.get(key)
        if rec is None:
            backup = None
            if before is not None:
                self.dir.joinpath("backups").mkdir(parents=True, exist_ok=True)
                backup = hashlib.sha1(key.encode()).hexdigest()
                write_atomically(self.dir / "backups" / backup, before, 0o600)  # may hold a client's secrets
            rec = self.files[key] = Touched(backup, "", [], [str(d) for d in created_dirs])
        rec.written = sha256(after)
        if owner not in rec.owners:
            rec.owners.append(owner)

    def own(self, path: Path, owner: str) -> None:
        """Add ``owner`` to a file setup already changed (nothing when it never did)."""
        rec = self.files.get(str(path))
        if rec is not None and owner not in rec.owners:
            rec.owners.append(owner)

    def original(self, path: Path) -> bytes | None:
        """The file's bytes before setup first changed it (None: it did not exist)."""
        rec = self.files[str(path)]
        if rec.backup is None:
            return None
        return (self.dir / "backups" / rec.backup).read_bytes()

    def forget(self, path: Path) -> None:
        """Drop the file's record and its backup."""
        rec = self.files.pop(str(path), None)
        if rec is not None and rec.backup is not None:
            (self.dir / "backups" / rec.backup).unlink(missing_ok=True)
