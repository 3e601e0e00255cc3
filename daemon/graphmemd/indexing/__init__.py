"""The write path of the code graph: the indexer (the graph's only writer: jobs, passes,
deltas applied under the lock, stale marks before store writes, freshness), its parse
workers (``workers``: started in the background) and the warm restart (``restore``).

Independent of ``retrieval``. May import: ``memory``, ``store``, ``ingest``, ``graph``, ``runtime``.
"""
