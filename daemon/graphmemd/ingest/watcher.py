"""File-system watching with supervision. The only module that imports ``watchfiles``.

``RepoWatcher`` runs one thread per root. Each thread iterates ``watchfiles.watch`` over its
root and hands every batch to ``on_batch(root, paths)`` as a set of absolute paths. It
reports paths only: watchfiles delivers unordered sets (a rename is a delete plus an add,
editors save through a temporary file and a rename), so the daemon stats each path to learn
its final state (file, directory, gone).

Facts this module is built around (watchfiles 1.3.0 on Linux):

* The default debounce (1.6 s) is far too slow; we use ``debounce_ms=50``/``step_ms=20``, so a
  batch is delivered at most ~50 ms after its first change and ~20 ms after its last.
* A file name that is not valid UTF-8 anywhere under the root makes the generator raise
  ``WatchfilesRustInternalError`` and the whole batch is lost.
* Deleting the root does not raise: the generator just goes quiet (and a root deleted and
  recreated is no longer watched). We therefore wake up every ``health_check_ms`` (watch's
  ``rust_timeout`` with ``yield_on_timeout``) and check that the root is still the same
  directory (device and inode).
* A new directory is watched a moment after its creation event, so files created in it
  right away may be reported only through the directory's own path: when a reported path
  is a directory, the daemon must scan it (the same holds for a directory moved in).
* The recursive inotify watch covers ignored directories too (``node_modules``...): the
  ``ignore`` callback only filters the reported paths, cheaply, inside the generator.

Supervision, per root:

1. When a watch fails (the generator raises, the root disappears or is replaced), the
   failure is logged and exposed at once in ``state(root)`` (``degraded_reason``,
   ``restarts``), and the watch is restarted after an exponential backoff.
2. ``on_degraded(root, reason)`` is called *once the replacement watch is live* (its first
   yield), so the rescan the daemon runs in response cannot miss changes made during the
   gap. ``state`` then goes back to healthy (``restarts`` and ``last_error`` remain).
3. After ``max_consecutive_failures`` failures in a row (a watch that ran for at least
   ``healthy_after_s`` resets the count), or at once when inotify resources are exhausted or
   the root is missing, the root goes to ``mode="polling"``: ``on_degraded`` is called
   immediately, then ``on_rescan(root)`` every ``rescan_interval_s``; re-establishing the
   watch is attempted every ``retry_interval_s`` (as soon as the root exists again when it
   was missing). When a watch is live again, ``on_rescan(root)`` is called once (to cover
   the gap since the last rescan) and the mode is back to ``"watching"``.

To index a root without a gap: ``add_root``, ``wait_live`` (the OS watch is registered),
then run the initial scan; every change after that point is reported.

Many roots, one watch (``group_after_s``, ``watch_groups.py``): once no root was added for
``group_after_s``, the healthy roots watched on their own are taken over by one watch over all
of them, on one thread (the new watch live before the old ones stop: no gap), so an idle
daemon's CPU no longer grows with its checkouts. A grouped root that disappears or is
replaced leaves the group and is watched on its own again, through the supervision above; a
group whose watch fails hands every root back to its own watch, each telling the daemon
(``on_degraded``) once live again.

All callbacks run on a watcher thread (the root's own, or the group's: ``on_batch`` must be
quick, as the daemon's is: it queues the paths). An exception raised by a callback is logged
and does not stop the watcher. A ``RepoWatcher`` is single-use: ``start`` once, ``stop`` once.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, Protocol, TypeAlias

import watchfiles
from graphmem.errors import NotFound

from graphmemd.ingest import dirwatch
from graphmemd.ingest.watch_groups import Alone, regroup, root_of
from graphmemd.runtime.supervisor import name_os_thread

__all__ = ["OnBatch", "OnDegraded", "OnRescan", "RepoWatcher", "WatchMode", "WatcherState", "watch_dirs"]

logger = logging.getLogger(__name__)

WatchMode: TypeAlias = Literal["watching", "polling"]
OnBatch: TypeAlias = Callable[[Path, set[Path]], None]
OnDegraded: TypeAlias = Callable[[Path, str], None]
OnRescan: TypeAlias = Callable[[Path], None]
Ignore: TypeAlias = Callable[[Path], bool]

#: how long no root must have been added before the healthy roots share one watch (``watch_groups``)
GROUP_AFTER_S = 10.0

#: The watch function; a seam for tests (same signature as ``watchfiles.watch``).
_watch: Callable[..., Iterator[set[tuple[watchfiles.Change, str]]]] = watchfiles.watch

#: errno values meaning the kernel's inotify (or fd) budget is exhausted.
_EXHAUSTION_ERRNOS = frozenset({errno.ENOSPC, errno.EMFILE, errno.ENFILE})
#: The same conditions as the Rust side words them (it does not always raise OSError).
_EXHAUSTION_MARKERS = (
    "watch limit",
    "too many open files",
    "no space left on device",
    "os error 28",
    "os error 24",
    "os error 23",
)


@dataclass(frozen=True, slots=True)
class WatcherState:
    """The health of one root's watch.

    ``running``: its thread is alive and not stopping. ``degraded_reason``: why the watch is
    currently not trustworthy (None when healthy). ``since``: wall-clock time of the last
    change of mode or health. ``restarts``: failures so far. ``mode``: ``"watching"``
    (events) or ``"polling"`` (periodic rescans). ``last_error``: the most recent failure,
    kept after recovery for diagnostics. ``live``: the OS watch is registered, so every
    change from now on will be reported (scan *after* this to leave no gap; see
    ``RepoWatcher.wait_live``).
    """

    running: bool
    degraded_reason: str | None
    since: float
    restarts: int
    mode: WatchMode
    last_error: str | None = None
    live: bool = False


class _LiveProbe:
    """The ``stop_event`` handed to watchfiles.

    The Rust side calls ``is_set()`` once per step, and only after the OS watch (all the
    inotify watches of the tree) has been registered, so the first call tells us precisely
    when the watch became live -- without waiting for the first yield.
    """

    __slots__ = ("_handed", "_runner", "_seen")

    def __init__(self, runner: _RootRunner, handed: _Retire) -> None:
        self._runner = runner
        self._handed = handed
        self._seen = False

    def is_set(self) -> bool:
        if not self._seen:
            self._seen = True
            self._runner.mark_live()
        return self._runner.stop_event.is_set() or self._handed.is_set()


class _Retire:
    """When a watch that another one took over ends: a while after that one was live, so that
    what it saw before then (changes it holds until its debounce ends) is still reported; ending
    it at once would drop them, and the new watch did not see them."""

    __slots__ = ("_at",)

    def __init__(self) -> None:
        self._at: float | None = None

    def after(self, seconds: float) -> None:
        """End ``seconds`` from now (the first call counts)."""
        if self._at is None:
            self._at = time.monotonic() + seconds

    def is_set(self) -> bool:
        """Whether it is time to end."""
        return self._at is not None and time.monotonic() >= self._at


def _overlap_s(cfg: _Config) -> float:
    """How long a watch taken over goes on beside the new one: twice the longest a change
    waits in it before it is reported (its debounce and a step to notice it, a step of quiet)."""
    return 2 * (cfg.debounce_ms + 2 * cfg.step_ms) / 1000


class _StopProbe(Protocol):
    """What watchfiles asks whether to stop (once per step)."""

    def is_set(self) -> bool: ...


def _watch_roots(
    roots: Sequence[Path], cfg: _Config, keep: Callable[[watchfiles.Change, str], bool], stop: _StopProbe
) -> Iterator[set[tuple[watchfiles.Change, str]]]:
    """The recursive watch of ``roots`` (a root's own, or a group's): ``cfg``'s debounce and step,
    waking every ``health_check_ms`` when nothing changed (an empty set)."""
    return _watch(
        *roots,
        watch_filter=keep,
        debounce=cfg.debounce_ms,
        step=cfg.step_ms,
        stop_event=stop,
        rust_timeout=cfg.health_check_ms,
        yield_on_timeout=True,
        raise_interrupt=False,
        recursive=True,
        force_polling=cfg.force_polling,
        ignore_permission_denied=True,
    )


class _RootGone(Exception):
    """The root no longer exists, or was replaced by another directory."""


class _WatchEnded(Exception):
    """The watch generator stopped although nobody asked it to."""


def _is_exhaustion(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in _EXHAUSTION_ERRNOS:
        return True
    text = str(exc).lower()
    return any(marker in text for marker in _EXHAUSTION_MARKERS)


def _dir_identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not os.path.isdir(path):
        return None
    return (st.st_dev, st.st_ino)


@dataclass(frozen=True, slots=True)
class _Config:
    on_batch: OnBatch
    on_degraded: OnDegraded | None
    on_rescan: OnRescan | None
    ignore: Ignore | None
    debounce_ms: int
    step_ms: int
    health_check_ms: int
    backoff_initial_s: float
    backoff_max_s: float
    max_consecutive_failures: int
    healthy_after_s: float
    rescan_interval_s: float
    retry_interval_s: float
    force_polling: bool | None
    #: called after each yield of a root's own watch (``RepoWatcher._maybe_regroup``)
    on_yield: Callable[[], None] | None = None


class _RootRunner:
    """The supervised watch of one root, on its own thread."""

    def __init__(self, root: Path, config: _Config) -> None:
        self.root = root
        self._cfg = config
        self.stop_event = threading.Event()
        self.live_event = threading.Event()
        self._lock = threading.Lock()
        self._state = WatcherState(running=False, degraded_reason=None, since=time.time(), restarts=0, mode="watching")
        #: What to tell the daemon once a (re)started watch is live: ``on_degraded``'s
        #: reason after a failure, or "" for an ``on_rescan`` after polling.
        self._pending_notice: str | None = None
        #: set when a group's watch took this root over (this thread's own: each thread has one)
        self.handed = _Retire()
        #: the group watching this root, if any (``RepoWatcher``, under its lock)
        self.group: _Group | None = None
        #: since when its watch is live (monotonic seconds), None when not
        self.live_since: float | None = None
        self.thread = self._new_thread()

    def _new_thread(self) -> threading.Thread:
        handed = self.handed
        return threading.Thread(target=lambda: self._run(handed), name=f"graphmem-watch:{self.root}", daemon=True)

    def alone(self) -> Alone | None:
        """This root as ``watch_groups.regroup`` sees it when watched on its own (None when a
        group watches it, or it is stopping)."""
        if self.group is not None or self.stop_event.is_set():
            return None
        state = self.state()
        healthy = state.live and state.mode == "watching" and state.degraded_reason is None
        return Alone(self.root, self.live_since if healthy else None)

    def ended_in_group(self) -> None:
        """Stopped while a group watched it: no longer live nor running."""
        if self.group is not None:
            self._mark_dead()
            self._set(replace(self.state(), running=False), touch=False)

    def resume(self, reason: str) -> None:
        """Watch this root on its own again (its group's watch ended or lost it): a new thread,
        which tells the daemon ``reason`` once its watch is live (``on_degraded``: a rescan covers
        the gap)."""
        self.group = None
        self.handed = _Retire()
        self._mark_dead()
        self._pending_notice = reason
        state = self.state()
        self._set(replace(state, running=True, degraded_reason=reason, last_error=reason, restarts=state.restarts + 1))
        self.thread = self._new_thread()
        self.thread.start()

    # ------------------------------------------------------------------ state

    def state(self) -> WatcherState:
        with self._lock:
            return self._state

    def _set(self, state: WatcherState, *, touch: bool = True) -> None:
        """Publish a new state (only this runner's thread writes it); ``touch`` sets ``since``."""
        with self._lock:
            self._state = replace(state, since=time.time()) if touch else state

    def mark_live(self) -> None:
        self.live_since = time.monotonic()
        self._set(replace(self.state(), live=True), touch=False)
        self.live_event.set()

    def _mark_dead(self) -> None:
        self.live_since = None
        self.live_event.clear()
        self._set(replace(self.state(), live=False), touch=False)

    # ------------------------------------------------------------------ callbacks

    def _call(self, name: str, fn: Callable[..., None] | None, *args: object) -> None:
        if fn is None:
            return
        try:
            fn(*args)
        # Broad on purpose: the callbacks are the daemon's code; whatever goes wrong in them
        # must not kill the watch of this root (which would silently stop indexing).
        except Exception:
            logger.exception("watcher callback %s for %s raised", name, self.root)

    def _filter(self, _change: watchfiles.Change, path: str) -> bool:
        ignore = self._cfg.ignore
        if ignore is None:
            return True
        try:
            return not ignore(Path(path))
        # Broad on purpose: an exception escaping here would kill the watch generator.
        # Keeping the path is the safe choice (the daemon filters again when it stats it).
        except Exception:
            logger.exception("watcher ignore callback raised for %r; keeping the path", path)
            return True

    # ------------------------------------------------------------------ thread body

    def _run(self, handed: _Retire) -> None:
        name_os_thread(f"gm-w:{self.root.name}")
        self._set(replace(self.state(), running=True), touch=False)
        try:
            self._supervise(handed)
        finally:
            if not handed.is_set() or self.stop_event.is_set():  # (handed over: the group watches it)
                self._mark_dead()
                self._set(replace(self.state(), running=False), touch=False)
            logger.debug("watcher thread for %s stopped", self.root)

    def _ended(self, handed: _Retire) -> bool:
        return self.stop_event.is_set() or handed.is_set()

    def _supervise(self, handed: _Retire) -> None:
        cfg = self._cfg
        consecutive = 0
        while not self._ended(handed):
            if self.state().mode == "polling":
                self._poll()
                if self.stop_event.is_set():
                    return
            started: list[float] = []  # [monotonic time of the session's first yield]
            try:
                self._watch_session(started, handed)
                return  # only returns normally when stopping or handed over
            except _RootGone as exc:
                reason = f"root unavailable: {exc}"
                to_polling = False
            # Broad on purpose: watchfiles raises RuntimeError subclasses, OSError,
            # FileNotFoundError...; any of them must lead to a restart, not a dead watcher.
            except Exception as exc:
                reason = f"{type(exc).__name__}: {exc}"
                to_polling = _is_exhaustion(exc)
                logger.debug("watch of %s failed", self.root, exc_info=True)
            # Nothing to watch until the root exists again (a replaced root is retried at once).
            to_polling = to_polling or _dir_identity(self.root) is None
            self._mark_dead()
            if self._ended(handed):
                return
            if started and time.monotonic() - started[0] >= cfg.healthy_after_s:
                consecutive = 0
            consecutive += 1
            restarts = self.state().restarts + 1
            logger.warning("watch of %s failed (%d in a row, %d in all): %s", self.root, consecutive, restarts, reason)
            if self.state().mode == "polling":
                # A retry from polling mode failed: keep polling, the daemon already knows.
                self._set(
                    replace(self.state(), degraded_reason=reason, last_error=reason, restarts=restarts),
                    touch=False,
                )
                continue
            if to_polling or consecutive >= cfg.max_consecutive_failures:
                logger.warning("watch of %s falls back to rescanning every %.1f s", self.root, cfg.rescan_interval_s)
                self._pending_notice = None
                self._set(
                    replace(
                        self.state(),
                        mode="polling",
                        degraded_reason=reason,
                        last_error=reason,
                        restarts=restarts,
                    )
                )
                self._call("on_degraded", cfg.on_degraded, self.root, reason)
                continue
            self._pending_notice = reason
            self._set(replace(self.state(), degraded_reason=reason, last_error=reason, restarts=restarts))
            delay = min(cfg.backoff_max_s, cfg.backoff_initial_s * 2 ** (consecutive - 1))
            self.stop_event.wait(delay)

    def _watch_session(self, started: list[float], handed: _Retire) -> None:
        cfg = self._cfg
        identity = _dir_identity(self.root)
        if identity is None:
            raise _RootGone(f"{self.root} is not a directory")
        changes_iter = _watch_roots((self.root,), cfg, self._filter, _LiveProbe(self, handed))
        try:
            for changes in changes_iter:
                if not started:
                    started.append(time.monotonic())
                    self._after_first_yield()
                if changes:
                    paths = {Path(path) for _change, path in changes}
                    self._call("on_batch", cfg.on_batch, self.root, paths)
                current = _dir_identity(self.root)
                if current is None:
                    raise _RootGone(f"{self.root} was removed")
                if current != identity:
                    raise _RootGone(f"{self.root} was replaced by another directory")
                self._call("on_yield", cfg.on_yield)
        finally:
            close = getattr(changes_iter, "close", None)
            if close is not None:
                close()
        if not self._ended(handed):
            raise _WatchEnded("the watch generator ended unexpectedly")

    def _after_first_yield(self) -> None:
        """The watch is live: tell the daemon to rescan if a failure left a gap."""
        notice, self._pending_notice = self._pending_notice, None
        state = self.state()
        if state.mode == "polling" or state.degraded_reason is not None:
            logger.info("watch of %s re-established", self.root)
            self._set(replace(self.state(), mode="watching", degraded_reason=None))
        if notice is None:
            return
        if notice:
            self._call("on_degraded", self._cfg.on_degraded, self.root, notice)
        else:
            self._call("on_rescan", self._cfg.on_rescan, self.root)

    def _poll(self) -> None:
        """Rescan periodically until it is time to try watching again (or stop).

        A retry is due every ``retry_interval_s``, or as soon as a missing root reappears.
        """
        cfg = self._cfg
        tick = cfg.health_check_ms / 1000
        start = time.monotonic()
        next_rescan = start + cfg.rescan_interval_s
        next_retry = start + cfg.retry_interval_s
        root_was_missing = _dir_identity(self.root) is None
        while True:
            now = time.monotonic()
            if self.stop_event.wait(max(0.0, min(next_rescan - now, next_retry - now, tick))):
                return
            now = time.monotonic()
            if now >= next_rescan:
                self._call("on_rescan", cfg.on_rescan, self.root)
                next_rescan = time.monotonic() + cfg.rescan_interval_s
            exists = _dir_identity(self.root) is not None
            if exists and (root_was_missing or now >= next_retry):
                self._pending_notice = ""  # on_rescan once the watch is live
                return
            root_was_missing = not exists
            if now >= next_retry:
                next_retry = now + cfg.retry_interval_s


class _Group:
    """One watch over several roots, on its own thread (``RepoWatcher``, ``watch_groups.py``).
    Its ``is_set`` is the stop event handed to watchfiles: the first call says the watch is
    live (as ``_LiveProbe``)."""

    def __init__(self, owner: RepoWatcher, runners: dict[Path, _RootRunner], config: _Config) -> None:
        self.runners = runners
        self.roots = tuple(runners)
        self._owner = owner
        self._cfg = config
        self.stop_event = threading.Event()
        #: set when another group took over from it
        self.retire = _Retire()
        self._live = False
        #: roots gone from under it (watched on their own again): no longer reported by it
        self.dropped: set[Path] = set()
        self.thread = threading.Thread(target=self._run, name="graphmem-watch-group", daemon=True)

    def is_set(self) -> bool:
        if not self._live:
            self._live = True
            self._owner._group_live(self)
        return self.stop_event.is_set() or self.retire.is_set()

    def _run(self) -> None:
        name_os_thread("gm-watch-group")
        reason = "the watch generator ended unexpectedly"
        try:
            self._watch()
        # Broad on purpose (as a root's own watch): whatever ends it, its roots are handed back.
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}"
            logger.debug("watch of %d roots failed", len(self.roots), exc_info=True)
        if not self.stop_event.is_set() and not self.retire.is_set():
            self._owner._group_failed(self, reason)

    def _watch(self) -> None:
        cfg = self._cfg
        identities = {root: _dir_identity(root) for root in self.roots}
        if any(i is None for i in identities.values()):
            raise _RootGone("a root is not a directory")
        changes_iter = _watch_roots(self.roots, cfg, next(iter(self.runners.values()))._filter, self)
        try:
            for changes in changes_iter:
                if changes:
                    self._deliver(changes)
                gone: dict[Path, str] = {}
                for root, identity in identities.items():
                    current = None if root in self.dropped else _dir_identity(root)
                    if root not in self.dropped and current != identity:
                        how = "was removed" if current is None else "was replaced by another directory"
                        gone[root] = f"root unavailable: {root} {how}"
                if gone:
                    self.dropped.update(gone)
                    self._owner._drop_from_group(self, gone)
                self._owner._maybe_regroup()
        finally:
            close = getattr(changes_iter, "close", None)
            if close is not None:
                close()

    def _deliver(self, changes: set[tuple[watchfiles.Change, str]]) -> None:
        """Each root's paths of ``changes`` to ``on_batch``, root by root."""
        roots = [r for r in self.roots if r not in self.dropped and not self.runners[r].stop_event.is_set()]
        by_root: dict[Path, set[Path]] = {}
        for _change, path in changes:
            root = root_of(path, roots)
            if root is not None:
                by_root.setdefault(root, set()).add(Path(path))
        for root, paths in by_root.items():
            self.runners[root]._call("on_batch", self._cfg.on_batch, root, paths)


class RepoWatcher:
    """Watches repository roots and reports changed paths; see the module docstring."""

    def __init__(
        self,
        on_batch: OnBatch,
        *,
        ignore: Ignore | None = None,
        on_degraded: OnDegraded | None = None,
        on_rescan: OnRescan | None = None,
        debounce_ms: int = 50,
        step_ms: int = 20,
        health_check_ms: int = 500,
        backoff_initial_s: float = 0.1,
        backoff_max_s: float = 5.0,
        max_consecutive_failures: int = 5,
        healthy_after_s: float = 10.0,
        rescan_interval_s: float = 30.0,
        retry_interval_s: float | None = None,
        force_polling: bool | None = None,
        group_after_s: float | None = GROUP_AFTER_S,
    ) -> None:
        """Callbacks run on the watcher threads; ``ignore(path)`` returns True to drop a path.

        ``retry_interval_s`` (default: ``rescan_interval_s``) is how often polling mode tries
        to re-establish the watch. ``force_polling`` is passed to watchfiles (None: its
        default, i.e. the ``WATCHFILES_FORCE_POLLING`` environment variable or WSL).
        ``group_after_s``: the healthy roots share one watch once no root was added for that
        long (None: each root keeps its own).
        """
        if debounce_ms <= 0 or step_ms <= 0 or health_check_ms <= 0:
            raise ValueError("debounce_ms, step_ms and health_check_ms must be positive")
        if max_consecutive_failures < 1:
            raise ValueError("max_consecutive_failures must be at least 1")
        self._cfg = _Config(
            on_batch=on_batch,
            on_degraded=on_degraded,
            on_rescan=on_rescan,
            ignore=ignore,
            debounce_ms=debounce_ms,
            step_ms=step_ms,
            health_check_ms=health_check_ms,
            backoff_initial_s=backoff_initial_s,
            backoff_max_s=backoff_max_s,
            max_consecutive_failures=max_consecutive_failures,
            healthy_after_s=healthy_after_s,
            rescan_interval_s=rescan_interval_s,
            retry_interval_s=rescan_interval_s if retry_interval_s is None else retry_interval_s,
            force_polling=force_polling,
            on_yield=self._maybe_regroup if group_after_s is not None else None,
        )
        self._group_after = group_after_s
        self._lock = threading.Lock()
        self._runners: dict[Path, _RootRunner] = {}
        self._started = False
        self._stopped = False
        #: the group watching roots now, the one starting to take over from it, when a root was last added
        self._group: _Group | None = None
        self._pending: _Group | None = None
        self._last_added = time.monotonic()

    @staticmethod
    def _key(path: Path | str) -> Path:
        # abspath, not resolve(): reported paths are under the root as given.
        return Path(os.path.abspath(path))

    def roots(self) -> list[Path]:
        """The watched repository roots, sorted."""
        with self._lock:
            return sorted(self._runners)

    def add_root(self, path: Path | str) -> Path:
        """Watch ``path`` (made absolute, returned); a no-op if already watched."""
        root = self._key(path)
        with self._lock:
            if self._stopped:
                raise RuntimeError("the watcher has been stopped")
            if root in self._runners:
                return root
            runner = _RootRunner(root, self._cfg)
            self._runners[root] = runner
            self._last_added = time.monotonic()
            if self._started:
                runner.thread.start()
        logger.info("watching %s", root)
        return root

    def remove_root(self, path: Path | str, timeout: float = 5.0) -> None:
        """Stop watching ``path``; waits for its thread unless called from it."""
        root = self._key(path)
        with self._lock:
            runner = self._runners.pop(root, None)
            if runner is not None:
                runner.stop_event.set()
                if self._group is not None and root in self._group.roots:
                    self._group.dropped.add(root)
                    self._replace_group(self._group)
        if runner is None:
            raise NotFound(f"not watching {root}")
        self._stop_runners([runner], timeout)
        runner.ended_in_group()
        logger.info("stopped watching %s", root)

    def start(self) -> None:
        """Start watching every added root (a no-op when started; a stopped watcher cannot restart)."""
        with self._lock:
            if self._stopped:
                raise RuntimeError("a RepoWatcher cannot be restarted")
            if self._started:
                return
            self._started = True
            for runner in self._runners.values():
                runner.thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop every watch promptly and join the threads (up to ``timeout`` in all)."""
        with self._lock:
            self._stopped = True
            runners = list(self._runners.values())
            groups = [g for g in (self._group, self._pending) if g is not None]
            for g in groups:
                g.stop_event.set()
        self._stop_runners(runners, timeout)
        for g in groups:
            if g.thread is not threading.current_thread() and g.thread.ident is not None:
                g.thread.join(timeout)
        for runner in runners:
            runner.ended_in_group()

    # ------------------------------------------------------------------ the group (``watch_groups``)

    def _maybe_regroup(self) -> None:
        """After each yield of a watch: start a new group when ``watch_groups.regroup`` says so."""
        if self._group_after is None:
            return
        with self._lock:
            if self._stopped or self._pending is not None:
                return
            grouped = [r for r in self._group.roots if r not in self._group.dropped] if self._group else []
            alone = [a for r in self._runners.values() if (a := r.alone()) is not None]
            roots = regroup(grouped, alone, time.monotonic(), self._last_added, self._group_after)
            if roots is not None:
                self._start_group(roots)

    def _start_group(self, roots: Sequence[Path]) -> None:
        """(With the lock.) A new group over ``roots``; it takes over once live (``_group_live``)."""
        if self._pending is not None:
            self._pending.stop_event.set()
        group = self._pending = _Group(self, {r: self._runners[r] for r in roots}, self._cfg)
        group.thread.start()

    def _group_live(self, group: _Group) -> None:
        """On ``group``'s thread, its watch live: it takes its roots over from their own watches
        and from the group before it, which stop now (after it is live: no gap)."""
        with self._lock:
            if group is not self._pending or self._stopped:
                group.stop_event.set()
                return
            self._pending = None
            old, self._group = self._group, group
            for root, runner in group.runners.items():
                if runner.stop_event.is_set() or self._runners.get(root) is not runner:
                    group.dropped.add(root)  # removed meanwhile
                    continue
                runner.group = group
                runner.handed.after(_overlap_s(self._cfg))  # (its own watch, if it has one)
            if old is not None:
                old.retire.after(_overlap_s(self._cfg))
        logger.info("watching %d roots with one watch", len(group.roots) - len(group.dropped))

    def _drop_from_group(self, group: _Group, gone: dict[Path, str]) -> None:
        """On ``group``'s thread: roots of it that disappeared or were replaced are watched on
        their own again (their supervision takes it from there), and a group without them follows."""
        with self._lock:
            if group is not self._group or self._stopped:
                return
            for root, reason in gone.items():
                runner = group.runners[root]
                if not runner.stop_event.is_set():
                    logger.warning("watch of %s: %s; watched on its own again", root, reason)
                    runner.resume(reason)
            self._replace_group(group)

    def _replace_group(self, group: _Group) -> None:
        """(With the lock.) Start a group over ``group``'s roots but those it dropped; none if
        none are left."""
        left = [r for r in group.roots if r not in group.dropped and self._runners.get(r) is group.runners[r]]
        if left:
            self._start_group(left)
            return
        group.stop_event.set()
        self._group = None

    def _group_failed(self, group: _Group, reason: str) -> None:
        """On ``group``'s thread, its watch ended unasked: every root it watched gets its own
        watch again, each telling the daemon once live (``on_degraded``: a rescan covers the gap)."""
        with self._lock:
            if group is self._pending:
                self._pending = None  # (its roots are still watched as before)
                return
            if group is not self._group or self._stopped:
                return
            self._group = None
            if self._pending is not None:
                self._pending.stop_event.set()
                self._pending = None
            for root, runner in group.runners.items():
                if root not in group.dropped and not runner.stop_event.is_set() and runner.group is group:
                    runner.resume(reason)
        logger.warning("watch of %d roots failed: %s; each watched on its own again", len(group.roots), reason)

    @staticmethod
    def _stop_runners(runners: list[_RootRunner], timeout: float) -> None:
        for runner in runners:
            runner.stop_event.set()
        deadline = time.monotonic() + timeout
        for runner in runners:
            thread = runner.thread
            if thread is threading.current_thread() or thread.ident is None:
                continue  # called from a callback of this root, or never started
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                logger.warning("watcher thread for %s did not stop within %.1f s", runner.root, timeout)

    def state(self, path: Path | str) -> WatcherState:
        """The watcher state of root ``path``; NotFound when it is not watched."""
        root = self._key(path)
        with self._lock:
            runner = self._runners.get(root)
        if runner is None:
            raise NotFound(f"not watching {root}")
        return runner.state()

    def wait_live(self, path: Path | str, timeout: float | None = None) -> bool:
        """Wait until the watch of ``path`` is live (see ``WatcherState.live``); False on timeout.

        The daemon's initial scan of a root should follow this, so that no change made
        between the scan and the start of watching is missed.
        """
        root = self._key(path)
        with self._lock:
            runner = self._runners.get(root)
        if runner is None:
            raise NotFound(f"not watching {root}")
        return runner.live_event.wait(timeout)

    def states(self) -> dict[Path, WatcherState]:
        """The watcher state of every root."""
        with self._lock:
            runners = list(self._runners.values())
        return {r.root: r.state() for r in runners}

    def __enter__(self) -> RepoWatcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def watch_dirs(dirs: Sequence[Path], stop: threading.Event, timeout_ms: int) -> Iterator[bool]:
    """Watch the directories ``dirs`` themselves, not their subdirectories (every name, hidden
    ones and ``.git``'s included): yields True after each batch of changes in them (within
    ~20 ms of its last), False every ``timeout_ms`` without one; ends once ``stop`` is set.
    Raises OSError when one cannot be watched (gone, inotify exhausted). For a few small
    directories a caller looks at again when woken (``app/worktrees.py``). On Linux through
    inotify directly (``dirwatch.py``: no wake-up while nothing changes; ``stop`` is seen
    within ``timeout_ms``), elsewhere through watchfiles (a wake-up every 10 ms)."""
    if dirwatch.available():
        return dirwatch.watch(dirs, stop, timeout_ms)
    return _watch_dirs_polled(dirs, stop, timeout_ms)


def _watch_dirs_polled(dirs: Sequence[Path], stop: threading.Event, timeout_ms: int) -> Iterator[bool]:
    for changes in _watch(
        *dirs,
        watch_filter=None,
        debounce=20,
        step=10,
        stop_event=stop,
        rust_timeout=timeout_ms,
        yield_on_timeout=True,
        raise_interrupt=False,
        recursive=False,
        ignore_permission_denied=True,
    ):
        yield bool(changes)
