"""Doc findings that ask for no change, on a real git history (a cold daemon, then the
installed ``graphmem check``):

* a function made private behind the package's ``__getattr__`` shim, with a warning: the
  name still works, so a document naming it is *deprecated* (suspect, exit 0), not dangling;
  a mutant — the same kind of removal with no shim — stays dangling (exit 1); when a later
  commit drops the shim, a running daemon reads the document again: dangling;
* a name removed in a sentence that says it is old ("removed in favor of") is historical:
  not printed by default, ``--level all`` shows it; an ordinary sentence naming the same
  removed function stays dangling;
* a function removed in a merge commit (history cannot name the commit): the line names no
  commit, and never says "uncommitted" (the working tree is clean)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable

from conftest import Daemon, wait_for
from graphmem.types import KnowledgeReference, ReferenceState
from test_knowledge_grades import GRAPHMEM, History

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 60.0

FILES = {
    "pkg/__init__.py": "from pkg.streams import get_stream, old_helper, open_stream\n",
    "pkg/streams.py": (
        "def get_stream(name):\n    return open(name)\n\n\n"
        "def open_stream(name, mode='r'):\n    return open(name, mode)\n\n\n"
        "def old_helper(x):\n    return x * 2\n"
    ),
    "pkg/extra.py": "def merged_away(a):\n    return a\n\n\ndef kept(b):\n    return b\n",
    "docs/served.md": "# Streams\n\nRead standard input with `get_stream`.\n",
    "docs/api.md": (
        "# API\n\n"
        "Call `pkg.old_helper` to double a value.\n\n"
        "The `old_helper` function was removed in favor of `open_stream`.\n\n"
        "Use `merged_away` for the rest.\n"
    ),
}

SHIM = '''

def __getattr__(name):
    import warnings

    if name == "get_stream":
        from .streams import _get_stream

        warnings.warn(
            "'get_stream' is deprecated and will be removed in 2.0.",
            DeprecationWarning,
            stacklevel=2,
        )
        return _get_stream
    raise AttributeError(name)
'''


def _history() -> History:
    h = History.__new__(History)
    History.__init__(h)  # (the base files; ours are written over them below)
    for rel in list(h.git("ls-files").split("\n")):
        (h.root / rel).unlink()
    for rel, text in FILES.items():
        (h.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (h.root / rel).write_text(text, encoding="utf-8")
    h.commit("code and docs")
    h.edit("pkg/streams.py", "def get_stream(name):", "def _get_stream(name):")
    h.edit("pkg/__init__.py", "get_stream, old_helper", "old_helper")
    (h.root / "pkg/__init__.py").write_text((h.root / "pkg/__init__.py").read_text() + SHIM, encoding="utf-8")
    h.commit("get_stream made private, served with a warning")
    h.edit("pkg/streams.py", "\n\n\ndef old_helper(x):\n    return x * 2\n", "\n")
    h.edit("pkg/__init__.py", "import old_helper, open_stream", "import open_stream")
    h.commit("old_helper removed")
    # merged_away is removed by the merge commit itself (an "evil merge"): no commit of
    # history's log shows that change
    h.git("checkout", "-q", "-b", "side")
    h.edit("pkg/extra.py", "return b", "return b + 0")
    h.commit("kept: side change")
    h.git("checkout", "-q", "main")
    h.clock += 10
    h.git("merge", "-q", "--no-ff", "--no-commit", "side")
    h.edit("pkg/extra.py", "def merged_away(a):\n    return a\n\n\n", "")
    h.commit("merge side")
    assert h.git("status", "--porcelain") == ""
    return h


def _check(h: History, d: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GRAPHMEM_HOME=str(d.home))
    env.pop("GRAPHMEM_ADDRESS", None)
    return subprocess.run(
        [*GRAPHMEM, "check", *args], cwd=h.root, env=env, capture_output=True, text=True, timeout=120
    )


def test_served_historical_and_merged_away_names(daemon_factory: DaemonFactory) -> None:
    h = _history()
    private = h.commits["get_stream made private, served with a warning"][:7]
    removed = h.commits["old_helper removed"][:7]
    d = daemon_factory([h.root])
    with d.client() as c:
        check = c.check_knowledge(wait_current=True)
    by_text: dict[str, KnowledgeReference] = {r.text: r for r in check.references}

    served = by_text["get_stream"]
    assert (served.path, served.line, served.column) == ("docs/served.md", 3, 27)
    assert served.state is ReferenceState.SUSPECT
    assert served.reason == (
        f"`get_stream` is deprecated: `pkg.__getattr__` still serves it, with a warning, since {private}"
    )
    assert served.target_ref == "pkg/streams.py::get_stream"
    assert served.renamed_to == ""

    ordinary = by_text["pkg.old_helper"]  # the mutant: removed with no shim
    assert ordinary.state is ReferenceState.DANGLING
    assert ordinary.reason == f"`pkg.old_helper` removed in {removed}"

    historical = by_text["old_helper"]  # "was removed in favor of": asks for nothing
    assert historical.state is ReferenceState.CHANGED
    assert historical.reason == f"historical: `old_helper` removed in {removed}"

    merged = by_text["merged_away"]
    assert merged.state is ReferenceState.DANGLING
    assert merged.commit == ""
    assert merged.reason == "`merged_away` removed"  # no commit found: none named, not "uncommitted"

    out = _check(h, d, "docs/served.md")  # a deprecated name fails nothing by default
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[:-1] == [f"docs/served.md:3:27: suspect: {served.reason}"]
    out = _check(h, d)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "historical" not in out.stdout  # the default level leaves it out
    assert "uncommitted" not in out.stdout
    assert out.stdout.splitlines()[-1].startswith("2 dangling, 0 stale, 1 suspect in 2 files"), out.stdout
    out = _check(h, d, "--level", "all")
    assert f"docs/api.md:5:6: changed: historical: `old_helper` removed in {removed}" in out.stdout, out.stdout

    # the shim goes: the running daemon reads the document again (its anchor, the hook, changed)
    (h.root / "pkg/__init__.py").write_text(FILES["pkg/__init__.py"].replace("get_stream, old_helper", "old_helper")
                                            .replace("old_helper, ", "") + "\n\ndef __getattr__(name):\n"
                                            "    raise AttributeError(name)\n", encoding="utf-8")  # fmt: skip
    h.commit("the get_stream shim removed")
    with d.client() as c:

        def state() -> ReferenceState | None:
            found = [r for r in c.check_knowledge(wait_current=True).references if r.text == "get_stream"]
            return found[0].state if found else None

        wait_for(lambda: state() is ReferenceState.DANGLING, TIMEOUT)
