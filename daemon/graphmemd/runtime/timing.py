"""Start-up timings for the daemon's log: how long the process has run (``process_age``)
and the seconds each step of a sequence took (``Steps``), so one log line says where a
restart's time went. Both cost microseconds: a clock read per step."""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def process_age() -> float | None:
    """Seconds since this process started (interpreter start and imports included), to the
    kernel's clock tick (10 ms); None where ``/proc`` does not say (not Linux)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        # the fields after the command name (which may hold spaces and parentheses)
        started_ticks = int(stat[stat.rindex(b")") + 2 :].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class Steps:
    """The seconds each named step of a sequence took: ``mark(name)`` ends the step that
    began at the previous mark (or at creation); ``str`` lists them in order."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.started = self._last = clock()
        self.steps: list[tuple[str, float]] = []

    def mark(self, name: str) -> None:
        """End the current step as ``name``."""
        now = self._clock()
        self.steps.append((name, now - self._last))
        self._last = now

    @property
    def total(self) -> float:
        """Seconds from creation to the last mark."""
        return self._last - self.started

    def __str__(self) -> str:
        return ", ".join(f"{name} {seconds:.3f}" for name, seconds in self.steps)
