"""The read side: the narrow read-only view (``readview``), symbol queries (``symbols``),
seeds → walk → anchored observations → fused ranking (``retriever``, ``ranking``), and git
co-change (``cochange`` pure, ``cochange_git`` its shell, ``cosignal``).

Never sees a writer, the store or the write path (contract ``read-side``). May import:
``memory`` (read-only), ``ingest``, ``graph``, ``runtime``.
"""
