"""The gRPC surface: thin servicers translating wire ↔ domain with errors mapped to statuses
in one place (``servicers``) and the request guard (``guard``: size limits, the TCP token).

May import: ``app`` and the stages below it.
"""
