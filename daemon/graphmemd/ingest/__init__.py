"""From disk to parses: the repositories (``registry``, ``identity``, ``gitinfo``), walking
(``walker``) and watching (``watcher``) their trees, deciding what changed (``scan``),
tree-sitter extraction (``parsing/``: bytes in, symbols out; queries as ``.scm`` data) run in
supervised worker processes (``parse_pool``), and the parse cache (``parsecache`` codec,
``parse_pack`` file).

May import: ``graph``, ``runtime``.
"""
