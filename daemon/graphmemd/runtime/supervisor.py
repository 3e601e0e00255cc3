"""Supervised threads: a long-lived loop that survives any exception in one unit of work.

A loop is a ``step`` callable run over and over on its own thread: it does one unit of work
(one job, one write, one batch) and returns ``False`` to stop. An unexpected exception in a
step is logged with its traceback, the component is marked degraded in ``Health`` with the
reason (so ``graphmem status`` says DEGRADED), and the loop goes on with the next unit after
a short, growing pause. The component recovers when a later step reports success through
``Health.recover`` (each loop decides what counts as success).

A one-off piece of background work (``SupervisedThread.once``: e.g. starting the parse
workers) runs on a supervised thread too: an exception is logged with its traceback and shown
as degraded the same way, and not retried there (its owner starts it again when it needs it).

``install_excepthook`` makes any other thread that dies of an exception visible the same way.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading
from collections.abc import Callable

from graphmemd.runtime.health import Health

logger = logging.getLogger(__name__)

#: Pause after a crashed step, doubled per consecutive crash up to ``MAX_PAUSE_S``.
FIRST_PAUSE_S = 0.05
MAX_PAUSE_S = 5.0


#: ``prctl`` option that names the calling thread (Linux; 15 bytes and a NUL at most)
_PR_SET_NAME = 15
_libc: ctypes.CDLL | None = None


def name_os_thread(name: str) -> None:
    """Give the calling thread ``name`` (its first 15 bytes) where the OS shows it (``top -H``,
    ``ps -L``, ``/proc/<pid>/task/<tid>/comm``), so that a thread using CPU can be told from its
    siblings without attaching a debugger. Nothing where that is not supported."""
    global _libc
    try:
        if _libc is None:
            _libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        _libc.prctl(_PR_SET_NAME, name.encode("utf-8", "replace")[:15], 0, 0, 0)
    except (OSError, AttributeError):
        pass


def describe(exc: BaseException) -> str:
    """A one-line reason for ``status``: the exception's type and message."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class SupervisedThread:
    """One long-lived loop on a daemon thread, restarted step by step after any exception."""

    def __init__(self, name: str, step: Callable[[], bool], health: Health, *, failure: str = "") -> None:
        self.name = name
        self._step = step
        self._health = health
        #: What the log says when a step fails ("" for a loop: "NAME loop: unexpected error")
        self._failure = failure
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"graphmem-{name}", daemon=True)

    @classmethod
    def once(cls, name: str, work: Callable[[], None], health: Health, *, failure: str) -> SupervisedThread:
        """``work`` run once on a supervised thread (not started yet): an exception is logged
        as ``failure: <reason>`` with its traceback and marks ``name`` degraded in ``Health``;
        it is not retried (``join`` returns once it ran, whatever happened)."""

        def step() -> bool:
            work()
            return False

        thread = cls(name, step, health, failure=failure)
        thread.stop_after_crash()
        return thread

    def start(self) -> None:
        """Start the loop."""
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the loop to stop (its step returned False)."""
        self._thread.join(timeout)

    def is_alive(self) -> bool:
        """Whether the loop's thread is running."""
        return self._thread.is_alive()

    def _run(self) -> None:
        name_os_thread(f"gm-{self.name}")
        pause = FIRST_PAUSE_S
        while True:
            try:
                if not self._step():
                    return
                pause = FIRST_PAUSE_S
            # Broad on purpose: this is the supervisor. Whatever a step raises is logged with
            # its traceback and shown as degraded; the loop itself must not die.
            except Exception as exc:
                if self._failure:
                    logger.exception("%s: %s", self._failure, describe(exc))
                else:
                    logger.exception("%s loop: unexpected error; the loop goes on", self.name)
                self._health.crashed(self.name, describe(exc))
                if self._stop.wait(pause):
                    return
                pause = min(MAX_PAUSE_S, pause * 2)

    def stop_after_crash(self) -> None:
        """Do not restart after the next crash (used at shutdown)."""
        self._stop.set()


def install_excepthook(health: Health) -> None:
    """Log any uncaught thread exception with its traceback and show it as degraded."""
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "thread"
        logger.error(
            "thread %s died of an uncaught exception",
            name,
            exc_info=(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback),
        )
        exc = args.exc_value if args.exc_value is not None else args.exc_type()
        health.crashed(f"thread {name}", describe(exc))
        if previous is not threading.__excepthook__:
            previous(args)

    threading.excepthook = hook
