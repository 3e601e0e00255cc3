"""Durable copies: the embedded graph database (``engine``: the only module that imports the
engine; ``tables``, ``literals``), opening and recovering it (``opening``), the single writer
thread (``writer``), the store side of an applied delta (``delta_sink``) and the graph
snapshot written at a clean stop (``graph_snapshot``).

May import: ``ingest``, ``graph``, ``runtime``.
"""
