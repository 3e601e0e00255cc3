"""Start-up and pass timings for the daemon's log: how long the process has run
(``process_age``) and the seconds each step of a sequence took (``Steps``), so one log line
says where a restart's or an index pass's time went. Both cost microseconds: a clock read
per step."""

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
    began at the previous mark (or at creation); ``str`` lists them in order. With
    ``cpu_clock`` (e.g. ``time.thread_time``) each step also says the CPU seconds it used."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, cpu_clock: Callable[[], float] | None = None
    ) -> None:
        self._clock, self._cpu_clock = clock, cpu_clock
        self.started = self._last = clock()
        self._cpu_started = self._cpu_last = cpu_clock() if cpu_clock is not None else 0.0
        #: (name, seconds, CPU seconds or None) of each step, in order
        self.steps: list[tuple[str, float, float | None]] = []

    def mark(self, name: str) -> None:
        """End the current step as ``name``."""
        now = self._clock()
        cpu = None
        if self._cpu_clock is not None:
            cpu_now = self._cpu_clock()
            cpu, self._cpu_last = cpu_now - self._cpu_last, cpu_now
        self.steps.append((name, now - self._last, cpu))
        self._last = now

    @property
    def total(self) -> float:
        """Seconds from creation to the last mark."""
        return self._last - self.started

    @property
    def cpu(self) -> float:
        """CPU seconds from creation to the last mark (0 without ``cpu_clock``)."""
        return self._cpu_last - self._cpu_started

    def __str__(self) -> str:
        return ", ".join(
            f"{name} {seconds:.3f}" + (f" ({cpu:.3f} CPU)" if cpu is not None else "")
            for name, seconds, cpu in self.steps
        )
