"""A watch of a few directories themselves (not their subdirectories) that sleeps in the kernel.

``watchfiles`` (the repositories' recursive watch, ``watcher.py``) wakes every ``step``
milliseconds to ask whether to stop and whether anything arrived: the watch of the common git
directories (``app/worktrees.py``, a step of 10 ms for a worktree's prompt registration) woke
100 times a second in an idle daemon. On Linux this watch asks inotify directly and blocks in
``poll`` until an event arrives or its timeout ends, so a quiet directory costs one wake-up
per timeout; elsewhere (or when inotify cannot be used) ``watcher.watch_dirs`` keeps using
``watchfiles``. Only *whether* something changed is reported, never what: the caller looks.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import select
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

#: every change of an entry of a watched directory, and of the directory itself
#: (IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE, IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE,
#: IN_DELETE_SELF, IN_MOVE_SELF; IN_ONLYDIR: a path that is not a directory is refused)
MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800 | 0x01000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC
#: a batch ends once no event came for this long (as ``watch_dirs``' debounce with watchfiles)
QUIET_MS = 20
#: and at the latest this long after its first event
BATCH_MAX_MS = 200

_libc: ctypes.CDLL | None = None


def available() -> bool:
    """Whether this platform's C library offers inotify."""
    return sys.platform.startswith("linux") and _lib() is not None


def _lib() -> ctypes.CDLL | None:
    global _libc
    if _libc is None:
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            lib.inotify_init1.argtypes = [ctypes.c_int]
            lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        except (OSError, AttributeError):
            return None
        _libc = lib
    return _libc


class DirWatch:
    """An inotify instance watching ``dirs`` (each one itself). Raises OSError when one cannot
    be watched (gone, not a directory, inotify's limits reached). ``close`` when done."""

    def __init__(self, dirs: Sequence[Path]) -> None:
        self._fd = -1
        lib = _lib()
        if lib is None:
            raise OSError(errno.ENOSYS, "inotify is not available")
        fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, f"inotify_init1: {os.strerror(code)}")
        self._fd = fd
        try:
            for d in dirs:
                if lib.inotify_add_watch(fd, os.fsencode(d), MASK) < 0:
                    code = ctypes.get_errno()
                    raise OSError(code, f"cannot watch {d}: {os.strerror(code)}", str(d))
        except BaseException:
            self.close()
            raise
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def _drain(self) -> bool:
        """Read every queued event; True when there was one."""
        got = False
        while True:
            try:
                if not os.read(self._fd, 65536):
                    return got
                got = True
            except BlockingIOError:
                return got

    def wait(self, timeout_ms: int) -> bool:
        """Block until something changes (True: once the batch has been quiet ``QUIET_MS``, or
        ``BATCH_MAX_MS`` after its first event) or ``timeout_ms`` pass (False)."""
        if not self._poll.poll(timeout_ms) or not self._drain():
            return False
        end = time.monotonic() + BATCH_MAX_MS / 1000
        while (left := end - time.monotonic()) > 0 and self._poll.poll(min(QUIET_MS, max(1, int(left * 1000)))):
            self._drain()
        return True

    def close(self) -> None:
        """Release the inotify instance."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:  # (a watch made and never iterated: its generator never closes it)
        self.close()


def watch(dirs: Sequence[Path], stop: threading.Event, timeout_ms: int) -> Iterator[bool]:
    """``watcher.watch_dirs`` on inotify: True after each batch of changes in ``dirs``, False
    every ``timeout_ms`` without one; ends once ``stop`` is set (looked at after each of
    those, so within ``timeout_ms``). The watch is in place when this returns (OSError when
    it cannot be)."""
    return _yields(DirWatch(dirs), stop, timeout_ms)


def _yields(w: DirWatch, stop: threading.Event, timeout_ms: int) -> Iterator[bool]:
    try:
        while not stop.is_set():
            changed = w.wait(timeout_ms)
            if stop.is_set():
                return
            yield changed
    finally:
        w.close()
