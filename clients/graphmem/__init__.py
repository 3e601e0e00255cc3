"""graphmem: client library, CLI and MCP bridge for the graphmem daemon.

Importing this package loads neither kuzu, tree-sitter nor watchfiles.
"""

__version__ = "0.1.0"
