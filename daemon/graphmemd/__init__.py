"""graphmemd: the graphmem daemon (code graph indexer, observation store, gRPC service).

Packages by stage of the data flow, each importing only the ones below it (checked by the
``layers`` import-linter contract in ``pyproject.toml``; see ``docs/architecture.md``):

    main, server     entry point; process lifecycle (store lock, gRPC server, signals)
    service          gRPC servicers and the request guard
    app              Core: the composition root
    indexing         write path: the indexer, warm restart      | retrieval  read side
    memory           observations: journal, book, staleness
    store            the embedded database, its writer, snapshots
    ingest           disk → parses: registry, walk, watch, scan, parse pool and cache
    graph            the code graph: model, adjacency, deltas, diffs, resolution
    runtime          config, health, supervision, events, faults
"""

__version__ = "0.1.0"
