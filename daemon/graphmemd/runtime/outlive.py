"""A daemon that must not outlive the process that started it (``GRAPHMEM_EXIT_WITH``).

``graphmem check --one-shot`` starts a private daemon, detached, on a temporary home, and
stops it when the check is done. A check killed before that (a CI job cancelled, ``timeout``,
an agent's tool call interrupted) left its daemon running for good: ~300 MB each, found after
an hour on this machine. The private daemon is told the check's process id and shuts down
cleanly once that process has exited: watched with a pidfd (Linux 5.3+: woken the moment it
exits, no polling), else by asking every ``POLL_S`` whether it is still there.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable
from pathlib import Path

from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread

logger = logging.getLogger(__name__)

#: how often a process is asked after where no pidfd can be had
POLL_S = 0.5


def alive(pid: int) -> bool:
    """Whether process ``pid`` is still running: it exists and is not a zombie (a process that
    has exited but whose parent has not reaped it yet, a shell stopped with ^Z say, still
    answers ``kill(pid, 0)``; a detached daemon is not its parent, so it would wait for good)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # (someone else's process: it exists)
    return not _exited(pid)


def _exited(pid: int) -> bool:
    """Whether ``/proc`` shows ``pid`` as exited and not yet reaped (state Z or X)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # (no /proc here: kill's answer stands)
    fields = stat.rsplit(")", 1)[-1].split()  # (the command name may hold spaces and parentheses)
    return bool(fields) and fields[0] in ("Z", "X")


def wait_exit(pid: int, stop: threading.Event) -> bool:
    """Block until process ``pid`` has exited (True) or ``stop`` is set (False)."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # (no pidfd here, or the process is already gone)
        while alive(pid):
            if stop.wait(POLL_S):
                return False
        return True
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while not poller.poll(int(POLL_S * 1000)):  # (readable once the process has exited)
            if stop.is_set():
                return False
        return True
    finally:
        os.close(fd)


def exit_with(pid: int, shutdown: Callable[[], None], health: Health, stop: threading.Event) -> SupervisedThread:
    """A supervised thread (started) that calls ``shutdown`` once process ``pid`` has exited."""

    def work() -> None:
        if wait_exit(pid, stop):
            logger.info("process %d (GRAPHMEM_EXIT_WITH) has exited: shutting down", pid)
            shutdown()

    thread = SupervisedThread.once("exit-with", work, health, failure="watching the process to exit with")
    thread.start()
    return thread
