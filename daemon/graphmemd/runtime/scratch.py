"""The daemon's scratch directory: temporary files (the parse pool's forkserver socket
directories, ``pymp-*``) go to ``<runtime dir>/tmp`` instead of the user's ``$TMPDIR``.

A daemon stopped by ``kill -9`` cannot clean up after itself, so every start empties the
directory first; it runs only while the store lock is held, so the directory is this
daemon's alone. When the path would be too long for the Unix sockets made in it, the
system's temporary directory is kept.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)

#: ``sun_path`` holds 108 bytes with the NUL; multiprocessing adds ``/pymp-XXXXXXXX/listener-XXXXXXXX``.
_SOCKET_PATH_MAX = 107
_SOCKET_SUFFIX = len("/pymp-xxxxxxxx/listener-xxxxxxxx")


def use_private_tempdir(runtime_dir: Path) -> Path | None:
    """Empty ``runtime_dir/tmp`` and make it this process's (and its children's) temporary
    directory; returns it, or ``None`` when it would not fit a Unix socket path."""
    scratch = runtime_dir / "tmp"
    if len(str(scratch).encode()) + _SOCKET_SUFFIX > _SOCKET_PATH_MAX:
        logger.info("scratch directory %s is too long for Unix sockets: keeping %s", scratch, tempfile.gettempdir())
        return None
    if scratch.exists():
        left = list(scratch.iterdir())
        if left:
            logger.info("removing %d scratch entries left by a previous daemon in %s", len(left), scratch)
        shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(mode=0o700, parents=True, exist_ok=True)
    tempfile.tempdir = str(scratch)
    os.environ["TMPDIR"] = str(scratch)
    return scratch
