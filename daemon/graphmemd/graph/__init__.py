"""The code graph: its domain model (``model``: files, symbols, parses, edges), the in-memory
adjacency (``codegraph``, ``edgebits``) and its lock (``graphstate``), the symbol text index
(``text_index``), and the pure cores of a change: symbol diffs (``diff``), graph deltas
(``delta``), value sharing (``sharing``), close matches (``symbol_match``), and call/import/
inheritance resolution per language (``resolution/``).

Pure except ``graphstate`` (the lock). May import: ``runtime``.
"""
