"""Process plumbing every stage may use: configuration resolved once (``config``), the
loopback TCP listener (``tcp``), degraded-component health (``health``), supervised loops
(``supervisor``), fault injection for the tests (``faults``), the event bus behind
``Subscribe`` (``events``), allocator tuning (``malloc``) and the daemon's scratch directory
(``scratch``).

The bottom layer: imports nothing from graphmemd.
"""
