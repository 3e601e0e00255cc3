"""Who a local client acts as, for the notes' histories: ``<client>:<user>`` (``cli:ana``,
``ui:ana``), the same shape as the MCP bridge's ``mcp:<agent>``."""

from __future__ import annotations

import getpass

__all__ = ["local_actor"]


def local_actor(client: str) -> str:
    """``client:user`` for the user running this process (``client`` alone when the user
    cannot be told: no login name and no ``$USER``)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no $USER/$LOGNAME
        return client
    return f"{client}:{user}" if user else client
