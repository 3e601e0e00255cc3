"""The post-edit call's line in the daemon's log (``Settled.describe``): what it waited for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphmemd.app.settle import Arrival, Edited, Settled


def _edited(n: int) -> list[Edited]:
    rt: Any = None  # (describe reads only how many files there are)
    return [Edited(rt, f"f{i}.py", Path(f"/r/f{i}.py"), 1.0) for i in range(n)]


def test_the_line_says_how_each_file_stood_and_how_long_the_call_waited() -> None:
    one = Settled(_edited(1), True, (Arrival.INDEXED,), 0.0002, 0.052)
    assert one.describe() == "1 file written 52.0 ms before the call (1 in the index already), taken in after 0.2 ms"
    three = Settled(_edited(3), False, (Arrival.HANDED, Arrival.QUEUED, Arrival.HANDED), 0.5, 0.0031)
    assert three.describe() == (
        "3 files written 3.1 ms before the call (2 handed over, 1 queued by the watcher), "
        "NOT taken in (deadline) after 500.0 ms"
    )
    none = Settled(_edited(1), True, (), 0.0, 0.0)
    assert none.describe() == "1 file written 0.0 ms before the call (none indexable), taken in after 0.0 ms"
