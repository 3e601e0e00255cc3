"""Start-up timings for the log: a process's age and the seconds of each named step."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from graphmemd.runtime.timing import Steps, process_age


def test_steps_say_each_step_in_order_and_the_total() -> None:
    now = iter([10.0, 10.25, 10.25, 11.0])
    steps = Steps(clock=lambda: next(now))
    steps.mark("store")
    steps.mark("journal")
    steps.mark("watcher")
    assert steps.steps == [("store", 0.25, None), ("journal", 0.0, None), ("watcher", 0.75, None)]
    assert steps.total == 1.0
    assert str(steps) == "store 0.250, journal 0.000, watcher 0.750"


def test_steps_with_a_cpu_clock_say_the_cpu_of_each_step_too() -> None:
    wall, cpu = iter([0.0, 2.0, 3.0]), iter([1.0, 1.5, 1.5])
    steps = Steps(clock=lambda: next(wall), cpu_clock=lambda: next(cpu))
    steps.mark("parse")
    steps.mark("apply")
    assert (steps.total, steps.cpu) == (3.0, 0.5)
    assert str(steps) == "parse 2.000 (0.500 CPU), apply 1.000 (0.000 CPU)"


def test_no_steps_is_an_empty_line() -> None:
    steps = Steps(clock=lambda: 5.0)
    assert (str(steps), steps.total, steps.cpu) == ("", 0.0, 0.0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_process_age_counts_from_the_process_start_not_from_the_import() -> None:
    code = "import time; time.sleep(0.5)\nfrom graphmemd.runtime.timing import process_age\nprint(process_age())\n"
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    elapsed = time.monotonic() - started
    age = float(out.stdout)
    assert 0.5 <= age <= elapsed + 0.02  # (the kernel counts in clock ticks of 10 ms)
    mine = process_age()
    assert mine is not None
    assert mine > 0
