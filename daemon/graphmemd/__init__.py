"""graphmemd: the graphmem daemon (code graph indexer, observation store, gRPC service)."""

__version__ = "0.1.0"
