"""Where graphmem keeps its files: XDG base directories, or everything under ``GRAPHMEM_HOME``.

Shared by the daemon (which creates these files) and the client/CLI (which only needs to
find the socket). Resolution order for each setting: explicit argument, then environment
variable, then default. Nothing here touches the filesystem except ``ensure()``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from graphmem.errors import InvalidArgument

__all__ = ["MAX_UNIX_SOCKET_PATH", "Paths", "default_address", "resolve_paths"]

#: sun_path is 108 bytes on Linux including the terminating NUL.
MAX_UNIX_SOCKET_PATH = 107


class Paths(NamedTuple):
    """Where the daemon keeps its files: data (store, journal), state (log) and runtime (socket, pid).
    (A ``NamedTuple``, not a dataclass: ``dataclasses`` costs a hook process ~40 M instructions to
    import.)"""

    data_dir: Path
    state_dir: Path
    runtime_dir: Path
    config_dir: Path | None = None

    @property
    def journal(self) -> Path:
        """The append-only observation journal: the source of truth for observations."""
        return self.data_dir / "observations.jsonl"

    @property
    def parse_cache(self) -> Path:
        """The cached parses a warm restart reads back (one pack file per repository)."""
        return self.data_dir / "parses"

    @property
    def snapshots(self) -> Path:
        """The graph snapshots a clean stop leaves for the next start (one per repository)."""
        return self.data_dir / "snapshots"

    @property
    def repos_file(self) -> Path:
        """The registered repositories (JSON), so a restart knows what to watch."""
        return self.data_dir / "repos.json"

    @property
    def lock(self) -> Path:
        """Held (flock) by the one daemon that owns the store."""
        return self.data_dir / "daemon.lock"

    @property
    def token(self) -> Path:
        """The per-user secret a TCP client must send (created 0600 by the daemon)."""
        return (self.config_dir or self.data_dir) / "token"

    @property
    def socket(self) -> Path:
        """The daemon's gRPC Unix socket."""
        return self.runtime_dir / "graphmemd.sock"

    @property
    def pid(self) -> Path:
        """The running daemon's pid file."""
        return self.runtime_dir / "graphmemd.pid"

    @property
    def log(self) -> Path:
        """The daemon's log file."""
        return self.state_dir / "graphmemd.log"

    def ensure(self) -> None:
        """Create the directories (mode 0700) if missing."""
        for d in (self.data_dir, self.state_dir, self.runtime_dir):
            d.mkdir(parents=True, exist_ok=True, mode=0o700)


def resolve_paths(home: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Paths:
    """Resolve the directories: ``home`` argument, then ``GRAPHMEM_HOME``, then XDG defaults."""
    env = os.environ if env is None else env
    root = home if home is not None else env.get("GRAPHMEM_HOME")
    if root:
        base = Path(root).expanduser().absolute()
        return Paths(base / "data", base / "state", base / "run", base / "config")
    user_home = Path(env.get("HOME") or Path.home())
    data = Path(env.get("XDG_DATA_HOME") or user_home / ".local" / "share") / "graphmem"
    state = Path(env.get("XDG_STATE_HOME") or user_home / ".local" / "state") / "graphmem"
    runtime_base = env.get("XDG_RUNTIME_DIR")
    runtime = Path(runtime_base) / "graphmem" if runtime_base else state / "run"
    config = Path(env.get("XDG_CONFIG_HOME") or user_home / ".config") / "graphmem"
    return Paths(data, state, runtime, config)


def default_address(paths: Paths, env: Mapping[str, str] | None = None) -> str:
    """The gRPC target a client uses: ``GRAPHMEM_ADDRESS`` or the daemon's Unix socket."""
    env = os.environ if env is None else env
    explicit = env.get("GRAPHMEM_ADDRESS")
    if explicit:
        return explicit
    return unix_target(paths.socket)


def unix_target(socket_path: Path) -> str:
    """The gRPC target of a Unix socket; InvalidArgument when the path is too long for one."""
    text = str(socket_path)
    if len(text.encode()) > MAX_UNIX_SOCKET_PATH:
        raise InvalidArgument(
            f"socket path is {len(text.encode())} bytes, over the {MAX_UNIX_SOCKET_PATH}-byte limit of "
            f"Unix sockets: {text}; set GRAPHMEM_HOME (or XDG_RUNTIME_DIR) to a shorter directory"
        )
    return f"unix:{text}"
