"""Process plumbing every stage may use: configuration resolved once (``config``), the
loopback TCP listener (``tcp``), degraded-component health (``health``), supervised loops
(``supervisor``), fault injection for the tests (``faults``), the event bus behind
``Subscribe`` (``events``), allocator tuning (``malloc``), the daemon's scratch directory
(``scratch``) and the log's start-up and pass timings (``timing``).

The bottom layer: imports nothing from graphmemd.
"""
