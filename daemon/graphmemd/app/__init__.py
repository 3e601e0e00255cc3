"""The composition root: ``Core`` builds and wires every stage (store, memory, indexer,
watchers, read view, co-change) and carries the operations that span several of them;
``status`` reads the daemon's counters for ``graphmem status``.

May import every stage below: ``indexing``, ``retrieval``, ``memory``, ``store``, ``ingest``,
``graph``, ``runtime``.
"""
