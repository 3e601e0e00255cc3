"""Observations: the document codec (``obsdoc``), request validation (``validation``), the
fsynced journal (``journal``), the journal-backed book (``observations``), merging journal
and store (``reconcile``, ``recovery``), the pure staleness core (``staleness``: delta in,
state changes out) and the lifecycle that ties them together (``memory``).

May import: ``store``, ``ingest``, ``graph``, ``runtime``.
"""
