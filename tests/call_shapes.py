"""Two Python files for the tests of call shapes (issue 41): a function and a method with
defaults, and their callers passing them by keyword, by position, through splats, through
the class, or leaving them out."""

from __future__ import annotations

from pathlib import Path

from conftest import short_tmp

CLIENT = """\
class Client:
    def fetch(self, url, timeout=5, *, retries=1):
        return url


def connect(host, timeout=5):
    return host
"""

CALLERS = """\
from client import Client, connect


def by_keyword(h):
    return connect(h, timeout=9)


def by_position(h):
    return connect(h, 9)


def omits(h):
    return connect(h)


def splats(*args, **kwargs):
    return connect(*args, **kwargs)


def twice(h):
    connect(h, timeout=1)
    return connect(h)


def method_calls(c: Client):
    c.fetch("u", 3)
    return c.fetch("u", timeout=3)


def unbound(c):
    return Client.fetch(c, "u")


def unbound_passing(c):
    return Client.fetch(c, "u", 3)


def fetches(c: Client):
    return c.fetch("u", 3)


def keyword_only(c: Client):
    return c.fetch("u", 1, 2)


connect("module level")
"""


def shapes_repo() -> Path:
    """A new directory holding the two files (``client.py``, ``callers.py``)."""
    root = short_tmp("gmd") / "shapes"
    root.mkdir()
    (root / "client.py").write_text(CLIENT, encoding="utf-8")
    (root / "callers.py").write_text(CALLERS, encoding="utf-8")
    return root
