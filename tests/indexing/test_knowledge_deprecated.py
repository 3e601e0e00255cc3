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

import json
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

SHIM = """

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
"""


def _history_of(files: dict[str, str]) -> History:
    """A ``History`` holding only ``files``, committed as "code and docs"."""
    h = History.__new__(History)
    History.__init__(h)  # (the base files; ours are written over them below)
    for rel in list(h.git("ls-files").split("\n")):
        (h.root / rel).unlink()
    for rel, text in files.items():
        (h.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (h.root / rel).write_text(text, encoding="utf-8")
    h.commit("code and docs")
    return h


def _history() -> History:
    h = _history_of(FILES)
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
    return subprocess.run([*GRAPHMEM, "check", *args], cwd=h.root, env=env, capture_output=True, text=True, timeout=120)


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
    assert served.deprecated  # its own grade: a flag on the wire, not words in the reason

    ordinary = by_text["pkg.old_helper"]  # the mutant: removed with no shim
    assert ordinary.state is ReferenceState.DANGLING
    assert ordinary.reason == f"`pkg.old_helper` removed in {removed}"

    historical = by_text["old_helper"]  # "was removed in favor of": asks for nothing
    assert historical.state is ReferenceState.CHANGED
    assert historical.reason == f"historical: `old_helper` removed in {removed}"
    assert not historical.deprecated

    merged = by_text["merged_away"]
    assert merged.state is ReferenceState.DANGLING
    assert merged.commit == ""
    assert merged.reason == "`merged_away` removed"  # no commit found: none named, not "uncommitted"

    out = _check(h, d, "docs/served.md")  # a deprecated name fails nothing by default
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[:-1] == [f"docs/served.md:3:27: deprecated: {served.reason}"]
    out = _check(h, d)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "historical" not in out.stdout  # the default level leaves it out
    assert "uncommitted" not in out.stdout
    assert out.stdout.splitlines()[-1].startswith("2 dangling, 0 stale, 0 suspect, 1 deprecated in 2 files"), out.stdout
    # a level of its own: --level suspect hides it, --fail-on deprecated fails on it
    out = _check(h, d, "docs/served.md", "--level", "suspect")
    assert (out.returncode, out.stdout.splitlines()[:-1]) == (0, []), out.stdout + out.stderr
    out = _check(h, d, "docs/served.md", "--fail-on", "deprecated", "--level", "dangling")
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == f"docs/served.md:3:27: deprecated: {served.reason}"
    sarif = json.loads(_check(h, d, "docs/served.md", "--format", "sarif").stdout)
    (result,) = sarif["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("deprecated-reference", "note")
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


SERVED_CLASS = {
    "pkg/__init__.py": "from pkg.structures import Frozen, Ordered, Plain\n",
    "pkg/structures.py": (
        "class Plain:\n    def copy(self):\n        return Plain()\n\n\n"
        "class Ordered(Plain):\n    def copy(self):\n        return Ordered()\n\n\n"
        "class Frozen(Plain):\n    def copy(self):\n        return Frozen()\n"
    ),
    "docs/api.rst": (
        "API\n===\n\n.. module:: pkg\n\n.. autoclass:: Ordered\n\n.. autoclass:: Frozen\n   :members: copy\n"
    ),
}

SERVE = """

def __getattr__(name):
    import warnings

    if name == "Ordered":
        from .structures import _Ordered

        warnings.warn("'Ordered' is deprecated. Use 'Plain' instead.", DeprecationWarning, stacklevel=2)
        return _Ordered
    if name == "Frozen":
        from .structures import _Frozen

        warnings.warn("'Frozen' is deprecated. Use 'Plain' instead.", DeprecationWarning, stacklevel=2)
        return _Frozen
    raise AttributeError(name)
"""


def test_a_served_class_its_members_and_text_rewritten_as_it_went(daemon_factory: DaemonFactory) -> None:
    """A class made private and served with a warning by the package's ``__getattr__``, in the
    commit that also rewrote the text describing it (".. deprecated::"), seen by a running
    daemon: the rewritten ``.. class::`` is deprecated (it was dangling: history names no code
    for lines written after the name went), and a ``:members:`` list of the served class names
    its members as they are on the served class: no finding (it was "`copy` removed"); the
    ``.. autoclass::`` of the other served class is changed ("autodoc: …"), not a finding."""
    h = _history_of(SERVED_CLASS)
    d = daemon_factory([h.root])
    with d.client() as c:
        assert [r.state for r in c.check_knowledge(wait_current=True).references if r.state is not
                ReferenceState.OK] == []  # fmt: skip
    for name in ("Ordered", "Frozen"):
        h.edit("pkg/structures.py", f"class {name}(Plain):", f"class _{name}(Plain):")
        h.edit("pkg/structures.py", f"return {name}()", f"return _{name}()")
    h.edit("pkg/__init__.py", "import Frozen, Ordered, Plain\n", "import Plain\n" + SERVE)
    h.edit("docs/api.rst", ".. autoclass:: Ordered\n\n", ".. class:: Ordered\n\n    Keeps the order of its items.\n\n"
           "    .. deprecated:: 2.0\n        Use ``Plain``.\n\n")  # fmt: skip
    h.commit("Ordered deprecated")
    with d.client() as c:

        def findings() -> list[tuple[int, str, ReferenceState, str]]:
            refs = c.check_knowledge(wait_current=True).references
            return sorted((r.line, r.text, r.state, r.reason) for r in refs if r.state is not ReferenceState.OK)

        # (``.. autoclass:: Frozen``: the page is the served class's docstring: changed, "autodoc: …")
        want = [(6, "Ordered", ReferenceState.SUSPECT), (13, "Frozen", ReferenceState.CHANGED)]
        last: list[list[tuple[int, str, ReferenceState, str]]] = [[]]

        def settled() -> list[tuple[int, str, ReferenceState, str]] | None:
            last[0] = findings()
            return last[0] if [(line, text, state) for line, text, state, _ in last[0]] == want else None

        try:
            got = wait_for(settled, TIMEOUT)
        except AssertionError:
            raise AssertionError(f"findings {last[0]}, not {want}") from None
        assert isinstance(got, list)
    for _, name, state, reason in got:
        head = "autodoc: " if state is ReferenceState.CHANGED else ""
        said = f"{head}`{name}` is deprecated: `pkg.__getattr__` still serves it, with a warning"
        assert reason.startswith(said), got
        assert reason.endswith("; use `Plain`"), got


ESCAPER = "class Escaper:\n    def escape(self, s):\n        return s.replace('<', '&lt;')\n"
UPSTREAM = {
    "pkg/__init__.py": "",
    "pkg/utils.py": (
        "import markupsafe\n\n\n"
        'class Markup(markupsafe.Markup):\n    """Deprecated: use markupsafe\'s."""\n\n\n' + ESCAPER
    ),
    "pkg/filters.py": "from markupsafe import Markup\n\n\ndef do_mark(s):\n    return Markup(s)\n",
    "pkg/ext.py": (
        "class Extension:\n    pass\n\n\nclass WithExtension(Extension):\n    pass\n\n\nwith_ = WithExtension\n"
    ),
    "docs/guide.md": (
        "# Guide\n\n"
        "Wrap data you know is safe in `Markup` first.\n\n"
        "Import name: `pkg.ext.with_`.\n\n"
        "Every escape goes through `Escaper`.\n"
    ),
}


def _upstream_removal(h: History) -> str:
    """The commit removing the deprecated ``Markup`` subclass (the code imports markupsafe's),
    ``with_``'s class and binding, and ``Escaper`` (which nothing imports from elsewhere)."""
    h.edit("pkg/utils.py", 'class Markup(markupsafe.Markup):\n    """Deprecated: use markupsafe\'s."""\n\n\n', "")
    h.edit("pkg/utils.py", "\n\n\n" + ESCAPER, "\n")
    h.edit("pkg/ext.py", "\n\n\nclass WithExtension(Extension):\n    pass\n\n\nwith_ = WithExtension\n", "\n")
    h.commit("deprecated names removed")
    return h.commits["deprecated names removed"][:7]


def _dangling(c: object) -> list[tuple[str, ReferenceState, str]]:
    refs = c.check_knowledge(wait_current=True).references  # type: ignore[attr-defined]
    return sorted((r.text, r.state, r.reason) for r in refs if r.state is not ReferenceState.OK)


def test_a_name_now_imported_from_upstream_and_a_binding_gone_cold_and_live(daemon_factory: DaemonFactory) -> None:
    """Jinja 3.1 removed its deprecated ``class Markup(markupsafe.Markup)`` and imports
    markupsafe's ``Markup`` instead: "wrap it in ``Markup``" still holds (no finding), while a
    removed class nothing imports from elsewhere stays dangling. ``with_ = WithExtension``
    removed with its class: the documented import name is dangling for a cold check (history
    reads the old module's binding) as for a running daemon (which followed it when it read the
    text)."""

    def want(removed: str) -> list[tuple[str, ReferenceState, str]]:
        return [
            ("Escaper", ReferenceState.DANGLING, f"`Escaper` removed in {removed}"),
            ("pkg.ext.with_", ReferenceState.DANGLING, f"`pkg.ext.with_` removed in {removed}"),
        ]

    cold = _history_of(UPSTREAM)
    removed = _upstream_removal(cold)
    d = daemon_factory([cold.root])
    with d.client() as c:
        assert _dangling(c) == want(removed)

    live = _history_of(UPSTREAM)
    d2 = daemon_factory([live.root])
    with d2.client() as c:
        assert _dangling(c) == []
        removed = _upstream_removal(live)
        last: list[object] = []

        def settled() -> bool:
            last[:] = [_dangling(c)]
            return last[0] == want(removed)

        try:
            wait_for(settled, TIMEOUT)
        except AssertionError:
            raise AssertionError(f"findings {last}, not {want(removed)}") from None
