"""Each grading rule of ``graphmem check`` on a real git history (issue 42): a reference is
judged by what its text uses. One small package and one document, each change in its own
commit, then a daemon indexes the repository cold (every grade comes from history, as in CI)
and the same answer is printed by the installed ``graphmem check``.

* a keyword the function no longer takes, written in a call: stale; the same removal where
  the text only names the function: suspect; an annotation-only change: nothing (changed);
* a class renamed with the same body: dangling, with ``renamed_to`` and the commit;
* a class removed that the package's ``__getattr__`` still serves with a warning naming its
  successor: suspect, "is deprecated: `pkg.__getattr__` still serves it, …; use `AppContext`";
* ``def .aiter_lines()`` in a list under the `` `Response` class`` heading: a member of it;
* ``close``, a name two symbols have (one in the tests): no reference, no finding, in a
  Markdown code span and in a reStructuredText inline literal alike (beside a unique one,
  ````fetch````, which is a reference: the page is read)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, short_tmp
from graphmem.types import KnowledgeReference, ReferenceState

DaemonFactory = Callable[..., Daemon]
_SCRIPT = Path(sys.executable).with_name("graphmem")
GRAPHMEM = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "graphmem"]

FILES = {
    "pkg/__init__.py": (
        "from pkg.client import Response, fetch, get\n"
        "from pkg.context import AppContext, RequestContext\n"
        "from pkg.transports import MockTransport\n"
    ),
    "pkg/client.py": (
        "def get(url, *, proxies=None, timeout=5):\n"
        '    """Fetch a URL."""\n'
        "    return (url, proxies, timeout)\n\n\n"
        "def fetch(url, retries=3):\n"
        "    return [url] * retries\n\n\n"
        "class Response:\n"
        "    def aiter_lines(self):\n"
        "        return iter(())\n\n"
        "    def close(self):\n"
        "        return None\n"
    ),
    "pkg/context.py": (
        "class RequestContext:\n"
        "    def push(self):\n"
        "        return 'request'\n\n\n"
        "class AppContext:\n"
        "    def push(self):\n"
        "        return 'app'\n"
    ),
    "pkg/transports.py": (
        "class MockTransport:\n"
        "    def __init__(self, handler):\n"
        "        self.handler = handler\n\n"
        "    def handle(self, request):\n"
        "        return self.handler(request)\n"
    ),
    "tests/test_helpers.py": "def close(thing):\n    return thing\n",
    "docs/guide.md": (
        "# Guide\n\n"
        "Go through a proxy with `get(url, proxies=...)`.\n\n"
        "The `get` function fetches one URL.\n\n"
        "Retry with `fetch` when the network is flaky.\n\n"
        "Tests swap the network for a `MockTransport`.\n\n"
        "A `RequestContext` holds the request.\n\n"
        "Call `close` when you are done.\n\n"
        "## `Response` class\n\n"
        "* `def .aiter_lines()`: the body, line by line\n\n"
        "## Proxies\n\n"
        "Give `get()` a proxies mapping to go through a proxy.\n"
    ),
    "docs/api.rst": ("API\n===\n\nCall ``close`` when you are done.\n\n``fetch`` retries a URL.\n"),
}

DEPRECATION = """

def __getattr__(name):
    if name == "RequestContext":
        import warnings

        warnings.warn(
            "'RequestContext' has merged with 'AppContext'. Use 'AppContext' instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return AppContext
    raise AttributeError(name)
"""


class History:
    """A repository whose commits get increasing committer times (as people's do)."""

    def __init__(self) -> None:
        self.root = short_tmp("gmg") / "proj"
        self.clock = int(time.time()) - 1000
        self.commits: dict[str, str] = {}
        for rel, text in FILES.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")
        self.git("init", "-q", "-b", "main")
        self.commit("code and docs")

    def git(self, *args: str) -> str:
        env = {
            **os.environ,
            "GIT_COMMITTER_DATE": f"{self.clock} +0000",
            "GIT_AUTHOR_DATE": f"{self.clock} +0000",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        }
        out = subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True, env=env)
        return out.stdout.strip()

    def commit(self, name: str) -> None:
        self.clock += 10
        self.git("add", "-A")
        self.git("commit", "-qm", name)
        self.commits[name] = self.git("rev-parse", "HEAD")

    def edit(self, rel: str, old: str, new: str) -> None:
        path = self.root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new), encoding="utf-8")


def _history() -> History:
    h = History()
    h.edit("pkg/client.py", "def get(url, *, proxies=None, timeout=5)", "def get(url, *, proxy=None, timeout=5)")
    h.edit("pkg/client.py", "return (url, proxies, timeout)", "return (url, proxy, timeout)")
    h.commit("get: proxies -> proxy")
    h.edit("pkg/client.py", "def fetch(url, retries=3):", "def fetch(url: str, retries: int = 3) -> list[str]:")
    h.commit("fetch: annotations")
    h.edit("pkg/transports.py", "class MockTransport:", "class FakeTransport:")
    h.edit("pkg/__init__.py", "import MockTransport", "import FakeTransport")
    h.commit("MockTransport -> FakeTransport")
    h.edit("pkg/client.py", "    def close(self):\n", "    def close(self, force):\n")
    h.commit("Response.close(force)")
    h.edit("pkg/client.py", "    def aiter_lines(self):\n        return iter(())\n\n", "")
    h.commit("Response.aiter_lines removed")
    h.edit("pkg/context.py", "class RequestContext:\n    def push(self):\n        return 'request'\n\n\n", "")
    h.edit("pkg/__init__.py", "AppContext, RequestContext", "AppContext")
    (h.root / "pkg" / "__init__.py").write_text(
        (h.root / "pkg" / "__init__.py").read_text(encoding="utf-8") + DEPRECATION, encoding="utf-8"
    )
    h.commit("RequestContext merged into AppContext")
    return h


def test_each_reference_is_graded_by_what_its_text_uses(daemon_factory: DaemonFactory) -> None:
    h = _history()
    d = daemon_factory([h.root])
    with d.client() as c:
        check = c.check_knowledge(wait_current=True)
    by_text: dict[str, KnowledgeReference] = {r.text: r for r in check.references}
    c_ = {k: v[:7] for k, v in h.commits.items()}
    proxy = c_["get: proxies -> proxy"]

    stale = by_text["get(url, proxies=...)"]  # the keyword it no longer takes, written in a call
    assert stale.state is ReferenceState.STALE
    assert stale.reason == f"`get` no longer takes `proxies`: parameter `proxies` renamed to `proxy` in {proxy}"
    assert stale.old_signature == "def get(url, *, proxies=None, timeout=5)"
    assert stale.new_signature == "def get(url, *, proxy=None, timeout=5)"

    named = by_text["get"]  # the same rename; the text only names the function, not `proxies`
    assert named.state is ReferenceState.CHANGED
    assert named.reason == f"`get`: parameter `proxies` renamed to `proxy` in {proxy}"
    told = by_text["get()"]  # a mention whose text speaks of the renamed parameter: worth a look
    assert told.state is ReferenceState.SUSPECT
    assert told.reason == f"`get`: parameter `proxies` renamed to `proxy` in {proxy}"

    annotated = by_text["fetch"]  # annotations only: old callers still fit, nothing to act on
    assert annotated.state is ReferenceState.CHANGED

    renamed = by_text["MockTransport"]
    assert renamed.state is ReferenceState.DANGLING
    assert renamed.renamed_to == "pkg/transports.py::FakeTransport"
    assert renamed.reason == f"`MockTransport` renamed to `FakeTransport` in {c_['MockTransport -> FakeTransport']}"

    merged = by_text["RequestContext"]  # removed, still served by pkg.__getattr__ with a warning naming the successor
    assert merged.state is ReferenceState.SUSPECT
    assert merged.renamed_to == ""
    assert merged.target_ref == "pkg/context.py::RequestContext"
    assert merged.commit == h.commits["RequestContext merged into AppContext"]
    assert merged.reason == (
        "`RequestContext` is deprecated: `pkg.__getattr__` still serves it, with a warning, "
        f"since {c_['RequestContext merged into AppContext']}; use `AppContext`"
    )

    member = by_text["def .aiter_lines()"]  # a member in the list under the `Response` class heading
    assert member.state is ReferenceState.DANGLING
    assert member.target_ref == "pkg/client.py::Response.aiter_lines"
    assert member.commit == h.commits["Response.aiter_lines removed"]
    assert member.reason == f"`Response.aiter_lines` removed in {c_['Response.aiter_lines removed']}"

    assert "close" not in by_text  # `close`: Response.close and a helper in the tests; no reference
    rst = [r for r in check.references if r.path == "docs/api.rst"]
    assert [(r.text, r.state) for r in rst] == [("fetch", ReferenceState.CHANGED)]  # ``close``: none
    assert {r.text for r in check.references} == {
        "get(url, proxies=...)", "get", "fetch", "MockTransport", "RequestContext", "def .aiter_lines()", "get()",
    }  # fmt: skip

    # the installed CLI prints the default level: one line each, at most 160 characters
    env = dict(os.environ, GRAPHMEM_HOME=str(d.home))
    env.pop("GRAPHMEM_ADDRESS", None)
    out = subprocess.run(
        [*GRAPHMEM, "check", "--fail-on", "stale"], cwd=h.root, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1].startswith("2 dangling, 1 stale, 1 suspect, 1 deprecated in 2 files"), lines
    found = lines[:-1]
    assert len(found) == 5
    assert all(len(line.split(": ", 2)[2]) <= 160 for line in found), found
    assert (
        f"docs/guide.md:11:4: deprecated: `RequestContext` is deprecated: `pkg.__getattr__` still serves it, with a "
        f"warning, since {c_['RequestContext merged into AppContext']}; use `AppContext`"
        in out.stdout
    )


def test_a_restart_that_changed_nothing_writes_no_unit_again(daemon_factory: DaemonFactory) -> None:
    """A restart reads every knowledge file again; a unit whose file and code did not change
    is no change: nothing is journaled, and each reason keeps the time it was first seen (it
    was rewritten with a new time on every restart: ~100 records each time on marshmallow)."""
    h = _history()
    d = daemon_factory([h.root])
    with d.client() as c:
        before = {o.id: o for o in c.list(limit=0) if o.stale_reasons}
    assert before  # units with reasons found in history (the test needs some)
    journal = d.home / "data" / "observations.jsonl"
    assert d.stop() == 0
    written = journal.read_bytes()
    d2 = daemon_factory([h.root], home=d.home)
    with d2.client() as c:
        assert c.check_knowledge(wait_current=True).references
        after = {o.id: o for o in c.list(limit=0) if o.stale_reasons}
    assert journal.read_bytes() == written
    assert {i: [r.detected_at for r in o.stale_reasons] for i, o in after.items()} == {
        i: [r.detected_at for r in o.stale_reasons] for i, o in before.items()
    }
    assert {i: o.updated_at for i, o in after.items()} == {i: o.updated_at for i, o in before.items()}
