"""A call of a class is bound against its constructor, through the running daemon on a real
git history (issue 42): ``Client("u", retries=2)`` in a doc's text or a code example is
bound against ``Client.__init__`` (minus ``self``), ``Session(...)`` against the nearest
base's ``__init__`` in the repository; a keyword the constructor no longer takes is STALE at
the call's span. Classes whose constructor the code does not show (``@dataclass``,
``@attr.s``, a metaclass, a base outside the repository) are only mentioned by a call:
whatever keyword it writes, no finding. A function the fenced example imports and calls,
removed in the same commit: dangling at both places."""

from __future__ import annotations

import time
from collections.abc import Callable

from conftest import Daemon, short_tmp, wait_for
from graphmem.client import GraphMem
from graphmem.types import KnowledgeReference, ReferenceState
from graphmemd.memory.knowledge import GRADING_CONFIDENCE
from test_knowledge_daemon import Repo as KnowledgeRepo

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0

CLIENT = '''"""Clients."""
import abc
import attr
from dataclasses import dataclass
from external import Model


class Base:
    """What every client shares."""

    def __init__(self, url, *, timeout=5, verify=True):
        self.url = url


class Client(Base):
    """A client with retries."""

    def __init__(self, url, *, retries=3, verbose=False):
        super().__init__(url)
        self.retries = retries


class Session(Base):
    """A client that keeps cookies (Base's constructor)."""

    def close(self):
        return None


@dataclass
class Point:
    x: int
    y: int = 0


@attr.s
class Record:
    name = attr.ib()


class Meta(type):
    def __call__(cls, *args, **kwargs):
        return super().__call__()


class Plugin(metaclass=Meta):
    def __init__(self, name, *, weight=1):
        self.name = name


class Row(Model):
    def __init__(self, values, *, strict=False):
        self.values = values


def connect(url):
    return Client(url)
'''

GUIDE = """# Guide

Make a client with `Client("https://x", retries=2)`.

A session: `Session("https://x", timeout=1)`.

Points `Point(1, y=2)`, records `Record(name="a")`, plugins `Plugin("p", weight=2)` and rows
`Row([1], strict=True)`.

```python
from shop.client import Client, Session, Point, Record, Plugin, Row, connect

client = Client("https://x", retries=5)
session = Session("https://x", timeout=2)
point = Point(x=1, y=3)
record = Record(name="b")
plugin = Plugin("q", weight=3)
row = Row([2], strict=False)
other = connect("https://y")
```
"""


class Repo(KnowledgeRepo):
    """A tiny package with a guide under git, committing at increasing times."""

    def __init__(self) -> None:
        self.root = short_tmp("gmk") / "shop-repo"
        (self.root / "shop").mkdir(parents=True)
        (self.root / "docs").mkdir()
        (self.root / "shop" / "__init__.py").write_text('"""shop."""\n')
        (self.root / "shop" / "client.py").write_text(CLIENT)
        (self.root / "docs" / "guide.md").write_text(GUIDE)
        self.clock = int(time.time()) - 1000
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.com")
        self.git("config", "user.name", "Dev")
        self.commit("the package and its guide", add=True)


def _drop_keywords(repo: Repo) -> str:
    """Every constructor loses the keyword the guide writes (dataclass and attrs fields are
    renamed): one commit."""
    repo.edit("shop/client.py", "*, timeout=5, verify=True):", "*, verify=True):")
    repo.edit("shop/client.py", "*, retries=3, verbose=False):", "*, verbose=False):")
    repo.edit("shop/client.py", "        self.retries = retries\n", "")
    repo.edit("shop/client.py", "    y: int = 0\n", "    z: int = 0\n")
    repo.edit("shop/client.py", "    name = attr.ib()\n", "    title = attr.ib()\n")
    repo.edit("shop/client.py", "(self, name, *, weight=1):", "(self, name):")
    repo.edit("shop/client.py", "(self, values, *, strict=False):", "(self, values):")
    repo.edit("shop/client.py", "\n\ndef connect(url):\n    return Client(url)\n", "")
    return repo.commit("constructors take fewer keywords; connect removed", add=True)


def _line(repo: Repo, needle: str) -> int:
    lines = (repo.root / "docs" / "guide.md").read_text().split("\n")
    return next(i + 1 for i, s in enumerate(lines) if needle in s)


def _findings(c: GraphMem) -> list[KnowledgeReference]:
    defaults = (ReferenceState.DANGLING, ReferenceState.STALE, ReferenceState.SUSPECT)
    return [r for r in c.check_knowledge().references if r.state in defaults]


def _assert_bound(c: GraphMem, repo: Repo, commit: str) -> None:
    got = wait_for(lambda: f if len(f := _findings(c)) >= 6 else None, TIMEOUT)
    assert isinstance(got, list)
    by_line = {r.line: r for r in got}
    expected = {
        'Client("https://x", retries=2)': ("Client", "retries", "shop/client.py::Client.__init__"),
        'Client("https://x", retries=5)': ("Client", "retries", "shop/client.py::Client.__init__"),
        'Session("https://x", timeout=1)': ("Session", "timeout", "shop/client.py::Base.__init__"),
        'Session("https://x", timeout=2)': ("Session", "timeout", "shop/client.py::Base.__init__"),
    }
    for needle, (name, keyword, target) in expected.items():
        r = by_line.get(_line(repo, needle))
        assert r is not None, (needle, [(x.line, x.text, x.reason) for x in got])
        assert r.state is ReferenceState.STALE, r
        assert f"`{name}` no longer takes `{keyword}`" in r.reason, r.reason
        assert len(r.reason) <= 160
        assert r.target_ref == target
        assert r.commit == commit
        line = (repo.root / r.path).read_text().split("\n")[r.line - 1]
        assert line[r.column - 1 :].startswith(name), (line, r.column)  # at the call's span
    # a name the example imports and calls, removed: dangling at both places
    gone = [r for r in got if r.state is ReferenceState.DANGLING]
    assert sorted(r.line for r in gone) == [_line(repo, "import Client"), _line(repo, "connect(")], gone
    assert all(r.text == "connect" and r.reason.startswith("`connect` removed in " + commit[:7]) for r in gone), gone
    # dataclass, attrs, a metaclass, a base outside the repository: only mentioned
    assert len(got) == 6, [(r.line, r.text, r.state, r.reason) for r in got]


def test_class_calls_bound_cold_from_history(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    commit = _drop_keywords(repo)
    d = daemon_factory([repo.root])
    with d.client() as c:
        _assert_bound(c, repo, commit)


def test_class_calls_bound_live(daemon_factory: DaemonFactory) -> None:
    """The same, with the daemon watching: nothing is wrong before the change; after the
    commit the calls of the constructors that lost their keyword are STALE, naming it."""
    repo = Repo()
    d = daemon_factory([repo.root])
    with d.client() as c:
        wait_for(lambda: [o for o in c.list(limit=100) if o.knowledge] or None, TIMEOUT)
        anchors: dict[str, float] = {}
        for a in (a for o in c.list(limit=100) if o.knowledge for a in o.anchors):
            anchors[a.ref] = max(anchors.get(a.ref, 0.0), a.confidence)  # (the surest unit's)
        # the call is graded by the constructor; recall ranks the unit by the class it names
        for graded in ("shop/client.py::Client.__init__", "shop/client.py::Base.__init__"):
            assert anchors[graded] == GRADING_CONFIDENCE, anchors
        for named in ("Client", "Session", "Point", "Record", "Row"):
            assert anchors[f"shop/client.py::{named}"] == 1.0, anchors
        assert not _findings(c)
        commit = _drop_keywords(repo)
        _assert_bound(c, repo, commit)
