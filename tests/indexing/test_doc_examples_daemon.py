"""Code examples in knowledge files, through the running daemon on a real git history: a
fenced Markdown block, an rST ``code-block:: python``, a ``>>>`` doctest and a ``::``
literal block use a package's names through their imports; the code then changes in later
commits and ``CheckKnowledge`` reports each name gone at its exact span."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, short_tmp, wait_for
from graphmem.client import GraphMem
from graphmem.types import KnowledgeReference, ReferenceState
from test_knowledge_daemon import Repo as KnowledgeRepo

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0

TRANSPORT = '''"""Transports."""


class MockTransport:
    """Answers requests with a handler."""

    def __init__(self, handler, strict=False):
        self.handler = handler
        self.strict = strict


def get(url, *, proxies=None, follow_redirects=False):
    """Fetch ``url``."""
    return (url, proxies, follow_redirects)


def post(url, data=None):
    """Send ``data``."""
    return (url, data)
'''

GUIDE = """# Guide

## Testing

Use a mock transport:

```python
import mylib
from mylib.transport import get
import os.path

transport = mylib.transport.MockTransport(handler, strict=True)
page = get("https://example.com", proxies={"all": "x"})
os.path.join("a", "b")
```

Only the standard library here:

```python
import json
json.dumps({"a": 1})
```
"""

API = """API
===

.. code-block:: python

   from mylib.transport import post
   post("u", data=b"x")

A session::

    from mylib import transport
    transport.get("u")

>>> from mylib.transport import MockTransport
>>> MockTransport(print)
<...>
"""


class Repo(KnowledgeRepo):
    """A tiny package with docs under git, committing at increasing times."""

    def __init__(self) -> None:
        self.root = short_tmp("gmx") / "mylib-repo"
        (self.root / "mylib").mkdir(parents=True)
        (self.root / "docs").mkdir()
        (self.root / "mylib" / "__init__.py").write_text('"""mylib."""\n')
        (self.root / "mylib" / "transport.py").write_text(TRANSPORT)
        (self.root / "docs" / "guide.md").write_text(GUIDE)
        (self.root / "docs" / "api.rst").write_text(API)
        self.clock = int(time.time()) - 1000
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.com")
        self.git("config", "user.name", "Dev")
        self.commit("the package and its docs", add=True)


def findings(c: GraphMem) -> list[KnowledgeReference]:
    return list(c.check_knowledge().references)


def at(root: Path, r: KnowledgeReference) -> str:
    assert r.line == r.end_line
    return (root / r.path).read_text().split("\n")[r.line - 1][r.column - 1 : r.end_column - 1]


def _change_code(repo: Repo) -> dict[str, str]:
    """Rename the class (same body) and remove ``post``, one commit each."""
    repo.edit("mylib/transport.py", "class MockTransport:", "class FakeTransport:")
    renamed = repo.commit("rename MockTransport to FakeTransport", add=True)
    repo.edit("mylib/transport.py", 'def post(url, data=None):\n    """Send ``data``."""\n    return (url, data)\n', "")
    removed = repo.commit("drop post", add=True)
    return {"renamed": renamed, "removed": removed}


def _assert_examples_checked(c: GraphMem, repo: Repo, commits: dict[str, str]) -> None:
    got = wait_for(lambda: [r for r in findings(c) if r.state is ReferenceState.DANGLING] or None, TIMEOUT)
    assert isinstance(got, list)
    dangling = {(r.path, r.line, at(repo.root, r)): r for r in got}
    # the fenced block: the attribute chain through `import mylib`, at its exact span
    fenced = dangling[("docs/guide.md", 12, "mylib.transport.MockTransport")]
    assert fenced.column == 13
    assert fenced.target_ref == "mylib/transport.py::MockTransport"
    assert fenced.commit == commits["renamed"]
    # the doctest: the import and the call
    assert ("docs/api.rst", 14, "MockTransport") in dangling
    assert ("docs/api.rst", 15, "MockTransport") in dangling
    # the rST code-block: the removed function, at its import and at its call
    assert ("docs/api.rst", 6, "post") in dangling
    assert ("docs/api.rst", 7, "post") in dangling
    assert dangling[("docs/api.rst", 7, "post")].commit == commits["removed"]
    # names still there, and the standard library, are no findings
    texts = {at(repo.root, r) for r in findings(c)}
    assert not texts & {"get", "transport.get", "os.path.join", "json.dumps"}
    assert len(dangling) == 5, sorted(dangling)


def test_examples_use_names_through_their_imports_live(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    d = daemon_factory([repo.root])
    with d.client() as c:
        units = wait_for(
            lambda: [o for o in c.list(limit=100) if o.knowledge and o.knowledge.path == "docs/guide.md"] or None,
            TIMEOUT,
        )
        assert isinstance(units, list)
        anchors = {a.ref for o in units for a in o.anchors}
        # (the class called with arguments: also its constructor, against which the call is bound)
        transport = "mylib/transport.py::"
        assert anchors >= {f"{transport}MockTransport", f"{transport}MockTransport.__init__", f"{transport}get"}
        assert not findings(c)  # every example fits the code as it is
        stdlib = [o for o in units if "json.dumps" in o.text]
        assert not stdlib  # an example using only the standard library is no unit
        commits = _change_code(repo)
        _assert_examples_checked(c, repo, commits)


def test_examples_checked_cold_from_history(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    commits = _change_code(repo)
    d = daemon_factory([repo.root])
    with d.client() as c:
        _assert_examples_checked(c, repo, commits)


def test_example_calls_carry_their_keywords(daemon_factory: DaemonFactory) -> None:
    """A call whose keyword the function no longer takes (``proxies`` removed from ``get``):
    the call in the example is STALE at its span, says which keyword, and names the commit that
    removed it (the reference carries the call's keywords for the binding:
    ``tests/ingest/test_doc_examples.py``); it survives the journal (a restart)."""
    repo = Repo()
    repo.edit(
        "mylib/transport.py",
        "def get(url, *, proxies=None, follow_redirects=False):",
        "def get(url, *, follow_redirects=False):",
    )
    repo.edit("mylib/transport.py", "return (url, proxies, follow_redirects)", "return (url, follow_redirects)")
    removed = repo.commit("drop the proxies keyword", add=True)
    d = daemon_factory([repo.root])
    with d.client() as c:
        got = wait_for(lambda: [r for r in findings(c) if at(repo.root, r) == "get"] or None, TIMEOUT)
        assert isinstance(got, list)
        (r,) = [r for r in got if r.path == "docs/guide.md" and r.line == 13]
        assert r.column == 8
        assert r.state is ReferenceState.STALE, r
        assert "`get` no longer takes `proxies`" in r.reason, r.reason
        assert r.commit == removed


SCHEMA = '''"""Schemas."""


class Base:
    def dump(self, obj, *, many=None):
        return (obj, many)


class Schema(Base):
    def load(self, data, *, many=None, unknown=None):
        return (data, many, unknown)
'''

QUICKSTART = """Quickstart
==========

.. code-block:: python

    from mylib.schema import Schema

    class UserSchema(Schema):
        def check(self, value):
            return value

.. code-block:: python

    result = UserSchema().load(data, unknown="include")
    UserSchema().dump(user, many=True)
    UserSchema().check(1)
"""


def test_a_method_called_on_an_instance_of_a_class_the_page_defines(daemon_factory: DaemonFactory) -> None:
    """``UserSchema().load(data, unknown=...)``, ``UserSchema`` a subclass of ``Schema`` the page
    defines (marshmallow's quickstart): a call of ``Schema.load`` through the page class's base,
    and of ``Base.dump`` through the code's own bases; the page's own method is no reference.
    Removing the keywords the calls pass makes both calls STALE at their spans (they were no
    references: nothing was found)."""
    repo = Repo()
    (repo.root / "mylib" / "schema.py").write_text(SCHEMA)
    (repo.root / "docs" / "quickstart.rst").write_text(QUICKSTART)
    repo.commit("schemas", add=True)
    repo.edit(
        "mylib/schema.py", "def load(self, data, *, many=None, unknown=None):", "def load(self, data, *, many=None):"
    )
    repo.edit("mylib/schema.py", "return (data, many, unknown)", "return (data, many)")
    repo.edit("mylib/schema.py", "def dump(self, obj, *, many=None):", "def dump(self, obj):")
    repo.edit("mylib/schema.py", "return (obj, many)", "return obj")
    removed = repo.commit("drop unknown and many", add=True)
    d = daemon_factory([repo.root])
    with d.client() as c:
        page = [r for r in findings(c) if r.path == "docs/quickstart.rst"]
        by_text = {at(repo.root, r): r for r in page}
        assert set(by_text) == {"UserSchema().load", "UserSchema().dump"}, by_text
        load, dump = by_text["UserSchema().load"], by_text["UserSchema().dump"]
        assert (load.line, load.column, load.state) == (14, 14, ReferenceState.STALE)
        assert load.target_ref == "mylib/schema.py::Schema.load"
        assert load.reason.startswith("`Schema.load` no longer takes `unknown`"), load.reason  # the code's name
        assert load.commit == removed
        assert dump.state is ReferenceState.STALE
        assert dump.target_ref == "mylib/schema.py::Base.dump"
        assert dump.reason.startswith("`Base.dump` no longer takes `many`"), dump.reason
