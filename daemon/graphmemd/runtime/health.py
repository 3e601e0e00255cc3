"""The daemon's health: which components are degraded right now, and why.

Every long-lived loop reports here (through ``supervisor.py``): a loop whose last unit of
work raised is *degraded* with the reason until a later unit succeeds. ``graphmem status``
shows the reasons and the daemon's health is DEGRADED while there are any. Thread-safe.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Degradation:
    """One degraded component: what failed, why, since when and how many times in a row."""

    component: str
    reason: str
    since: float
    failures: int


class Health:
    """Degraded components and the last error seen, shared by every loop of the daemon."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._degraded: dict[str, Degradation] = {}
        self._last_error = ""
        self._crashes = 0

    def degrade(self, component: str, reason: str) -> None:
        """Mark ``component`` degraded (a repeated failure keeps its first ``since``)."""
        with self._lock:
            prev = self._degraded.get(component)
            since = prev.since if prev else time.time()
            failures = prev.failures + 1 if prev else 1
            self._degraded[component] = Degradation(component, reason, since, failures)
            self._last_error = f"{component}: {reason}"

    def crashed(self, component: str, reason: str) -> None:
        """An unexpected exception in a supervised loop: degraded, and counted."""
        with self._lock:
            self._crashes += 1
        self.degrade(component, reason)

    def recover(self, *components: str) -> None:
        """Each of ``components`` did a unit of work successfully: no longer degraded."""
        with self._lock:
            for component in components:
                self._degraded.pop(component, None)

    def note_error(self, message: str) -> None:
        """Remember an error that does not degrade anything (shown as the last error)."""
        with self._lock:
            self._last_error = message

    def degraded(self) -> list[Degradation]:
        """The degraded components, by name."""
        with self._lock:
            return sorted(self._degraded.values(), key=lambda d: d.component)

    @property
    def last_error(self) -> str:
        """The most recent error message, or ""."""
        with self._lock:
            return self._last_error

    @property
    def crashes(self) -> int:
        """How many unexpected exceptions supervised loops have survived."""
        with self._lock:
            return self._crashes
