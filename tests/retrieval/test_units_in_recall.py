"""Knowledge units compete fairly in recall, through the running daemon: a paragraph that
says ``pkg.app`` in passing (a module mention, anchored to ``app.py`` with low confidence) does
not reach ``sessions.py`` because ``app.py`` imports it; the docs and the code example that
name the session code do, and a note on code that calls it ranks above the passing mention."""

from __future__ import annotations

import subprocess
from collections.abc import Callable

from conftest import Daemon, short_tmp, wait_for
from graphmem.types import Observation

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0

FILES = {
    "pkg/__init__.py": '"""pkg."""\n',
    "pkg/sessions.py": ("class SessionInterface:\n    def open_session(self, app, request):\n        return {}\n"),
    "pkg/app.py": (
        "from pkg.sessions import SessionInterface\n\n\n"
        "class Flask:\n"
        "    def run(self):\n"
        "        return SessionInterface().open_session(self, None)\n\n"
        "    def route(self, rule):\n"
        "        return rule\n"
    ),
    "docs/app.rst": (
        "Applications\n============\n\n.. currentmodule:: pkg\n\n"
        "Everything starts with the ``pkg.app`` module: create one per project.\n"
    ),
    "docs/sessions.md": (
        "# Sessions\n\n`pkg.sessions.SessionInterface.open_session` opens the session of a request.\n\n"
        "```python\nfrom pkg.sessions import SessionInterface\n\nSessionInterface().open_session(app, request)\n```\n"
    ),
}


def test_a_passing_mention_does_not_reach_a_file_through_imports(daemon_factory: DaemonFactory) -> None:
    root = short_tmp("gmu") / "proj"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=Dev", "-c", "user.email=d@e", "commit", "-qm", "init"], check=True
    )
    d = daemon_factory([root])
    with d.client() as c:

        def units() -> list[Observation]:
            return [o for o in c.list(limit=0) if o.knowledge is not None]

        wait_for(lambda: len(units()) == 3 or None, TIMEOUT)
        passing = next(o for o in units() if "``pkg.app``" in o.text)
        assert [a.confidence for a in passing.anchors] == [0.3]  # a module mentioned in passing
        example = next(o for o in units() if o.text.startswith("from pkg.sessions"))
        assert {a.ref: a.confidence for a in example.anchors} == {
            "pkg/sessions.py::SessionInterface": 1.0,
            "pkg/sessions.py::SessionInterface.open_session": 1.0,
        }
        note = c.observe("Flask.run opens a session per request", anchors=["pkg/app.py::Flask.run"]).id
        got = c.recall(files=["pkg/sessions.py"], limit=20).results
        order = [r.observation.id for r in got]
        scores = {r.observation.id: r.score for r in got}
        about = next(o.id for o in units() if o.text.startswith("`pkg.sessions"))
        assert order.index(about) < order.index(note)  # named it: first
        assert order.index(example.id) < order.index(note)
        mention = next((r for r in got if r.observation.id == passing.id), None)
        if mention is not None:  # reached only through the import: nothing but its centrality
            assert mention.components.proximity == mention.components.pagerank == 0.0
            assert mention.score < 0.05 * scores[note]
