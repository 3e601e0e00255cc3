"""How far away a changed dependency is, and whether it was removed, are fields of the reason,
end to end (issue 41; the renderer once read both back from the detail, "(2 hops away)",
"which was removed"): a real daemon that marks dependents up to three hops away, a function
re-signed and one removed on disk, notes on their callers one, two and three calls away. The
fields (``dependency_hops``, ``dependency_removed``) come through gRPC, ``--json`` and the MCP
model, survive a restart, and the one-line renderer reads them. A journal and a store written
by the code before the fields (no such keys; the detail said it) load and render the same
(``obsdoc._reason`` reads the old detail into the fields).

Here in ``tests/store`` so that CI's second pass runs it on the other store engine too."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from conftest import Daemon, short_tmp, wait_for
from graphmem.changes import change_line
from graphmem.client import GraphMem
from graphmem.mcp_bridge import _observation_out
from graphmem.types import ChangeKind, Observation, ObservationStatus
from old_reasons import before_dependency_fields, reload_in_old_form, show_json

DaemonFactory = Callable[..., Daemon]
ENV = {"GRAPHMEM_SUSPECT_HOPS": "3"}

LIB = """\
def g(x, y):
    return x


def k(x):
    return x
"""
MID = """\
from lib import g, k


def f(a):
    return g(a, 1)


def uses_k(a):
    return k(a)
"""
TOP = """\
from mid import f, uses_k


def h():
    return f(1)


def h3():
    return h()


def top_k():
    return uses_k(1)
"""

#: the note's anchor -> (hops, removed, the line the renderer says, the detail the daemon wrote)
EXPECTED = {
    "mid.py::f": (
        1,
        False,
        "`mid.py::f`: calls `lib.py::g`, whose parameter `y` was removed, uncommitted",
        "mid.py::f calls lib.py::g, whose signature changed",
    ),
    "top.py::h": (
        2,
        False,
        "`top.py::h`: calls `lib.py::g` (2 hops away), whose parameter `y` was removed, uncommitted",
        "top.py::h calls lib.py::g (2 hops away), whose signature changed",
    ),
    "top.py::h3": (
        3,
        False,
        "`top.py::h3`: calls `lib.py::g` (3 hops away), whose parameter `y` was removed, uncommitted",
        "top.py::h3 calls lib.py::g (3 hops away), whose signature changed",
    ),
    "mid.py::uses_k": (
        1,
        True,
        "`mid.py::uses_k`: calls `lib.py::k`, which was removed, uncommitted",
        "mid.py::uses_k calls lib.py::k, which was removed",
    ),
    "top.py::top_k": (
        2,
        True,
        "`top.py::top_k`: calls `lib.py::k` (2 hops away), which was removed, uncommitted",
        "top.py::top_k calls lib.py::k (2 hops away), which was removed",
    ),
}


def _repo() -> Path:
    root = short_tmp("gmd") / "hops"
    root.mkdir()
    for name, text in (("lib.py", LIB), ("mid.py", MID), ("top.py", TOP)):
        (root / name).write_text(text, encoding="utf-8")
    return root


def _check(c: GraphMem, notes: dict[str, str]) -> dict[str, Observation]:
    """Each note as the daemon has it: its one reason's fields and line as they must be."""
    got = {ref: c.get(oid) for ref, oid in notes.items()}
    for ref, (hops, removed, line, detail) in EXPECTED.items():
        o = got[ref]
        (r,) = o.stale_reasons
        assert (o.status, r.change, r.detail) == (ObservationStatus.SUSPECT, ChangeKind.DEPENDENCY_CHANGED, detail)
        assert (r.dependency_hops, r.dependency_removed) == (hops, removed), ref
        assert change_line(r) == line
        out = _observation_out(o).stale_reasons[0]  # the MCP tools' model
        assert (out.dependency, out.dependency_hops, out.dependency_removed, out.summary) == (
            r.dependency_ref,
            hops,
            removed,
            line,
        )
    return got


def _old_reasons(docs: list[dict[str, Any]]) -> int:
    """How many dependency reasons the documents hold without the fields (the old form)."""
    return sum(
        r["change"] == ChangeKind.DEPENDENCY_CHANGED.value and "dependency_hops" not in r
        for doc in docs
        for r in doc["stale_reasons"]
    )


def _suspects(daemon_factory: DaemonFactory) -> tuple[Daemon, Path, dict[str, str], dict[str, Observation]]:
    """A daemon on the repository, a note on each dependent, then ``g`` re-signed and ``k``
    removed on disk: the notes as they are then."""
    root = _repo()
    d = daemon_factory([root], env=ENV)
    with d.client() as c:
        notes = {ref: c.observe(f"{ref} holds", anchors=[ref]).id for ref in EXPECTED}
        lib = root / "lib.py"
        lib.write_text(LIB.replace("def g(x, y):", "def g(x):").replace("def k(x):\n    return x\n", ""), "utf-8")
        wait_for(lambda: all(c.get(oid).status is ObservationStatus.SUSPECT for oid in notes.values()), 30)
        return d, root, notes, _check(c, notes)


def test_the_dependency_fields_go_end_to_end_and_survive_a_restart(daemon_factory: DaemonFactory) -> None:
    d, root, notes, before = _suspects(daemon_factory)
    for ref, (hops, removed, _, _) in EXPECTED.items():
        shown = show_json(d, notes[ref])["stale_reasons"][0]
        assert (shown["dependency_hops"], shown["dependency_removed"]) == (hops, removed)
    assert d.stop() == 0

    d2 = daemon_factory([root], home=d.home, env=ENV)
    with d2.client() as c:
        assert _check(c, notes) == before


def test_a_journal_and_a_store_of_the_old_text_form_load_and_render_the_same(daemon_factory: DaemonFactory) -> None:
    d, root, notes, before = _suspects(daemon_factory)
    assert d.stop() == 0

    def same(c: GraphMem) -> None:
        assert _check(c, notes) == before

    start = partial(daemon_factory, [root], home=d.home, env=ENV)
    reload_in_old_form(start, d.home, before_dependency_fields, _old_reasons, len(EXPECTED), same)
