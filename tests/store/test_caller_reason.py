"""A changed default's caller reason is a field of its own, end to end (issue 41): a real
daemon, a default changed on disk, a note on a caller that leaves it out, one that may pass
it through ``*``/``**`` and one that passes it. The fields (``caller_omits``,
``caller_starred``) come through gRPC, ``--json`` and the MCP model, survive a restart, and the
one-line renderer reads them. A journal and a store written by the code before the fields
(the caller said at the end of the detail, ``; this caller omits `timeout```) still load and
render the same line (``obsdoc._reason`` moves the text into the fields).

Here in ``tests/store`` so that CI's second pass runs it on the other store engine too."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from call_shapes import shapes_repo
from conftest import Daemon, wait_for
from graphmem.changes import change_line
from graphmem.client import GraphMem
from graphmem.mcp_bridge import _observation_out
from graphmem.types import ChangeKind, Observation, ObservationStatus
from old_reasons import before_dependency_fields, reload_in_old_form, show_json

DaemonFactory = Callable[..., Daemon]

OMITS_LINE = (
    "`callers.py::omits`: calls `client.py::connect` without `timeout`, whose default changed: `5` → `30`, uncommitted"
)
SPLATS_LINE = (
    "`callers.py::splats`: calls `client.py::connect` with `*`/`**` arguments (maybe without `timeout`), "
    "whose default changed: `5` → `30`, uncommitted"
)
DETAIL = "{name} calls client.py::connect, whose signature changed"
OLD_ENDING = {
    "omits": "; this caller omits `timeout`",
    "splats": "; this caller may pass `timeout` in `*`/`**` arguments",
}


def _suspect(c: GraphMem, oid: str) -> None:
    wait_for(lambda: c.get(oid).status is ObservationStatus.SUSPECT, 30)


def _changed_default(c: GraphMem, root: Path) -> dict[str, str]:
    """A note on each of three callers, then ``connect``'s default of ``timeout`` changed on disk."""
    notes = {n: c.observe(f"{n} connects", anchors=[f"callers.py::{n}"]).id for n in ("omits", "splats", "by_keyword")}
    path = root / "client.py"
    path.write_text(path.read_text(encoding="utf-8").replace("timeout=5):", "timeout=30):"), encoding="utf-8")
    _suspect(c, notes["omits"])
    _suspect(c, notes["splats"])
    return notes


def _check(c: GraphMem, notes: dict[str, str]) -> dict[str, Observation]:
    """The three notes as the daemon has them, each reason's fields and line as they must be."""
    got = {name: c.get(oid) for name, oid in notes.items()}
    assert (got["by_keyword"].status, got["by_keyword"].stale_reasons) == (ObservationStatus.FRESH, ())
    for name, starred, line in (("omits", False, OMITS_LINE), ("splats", True, SPLATS_LINE)):
        o = got[name]
        (r,) = o.stale_reasons
        assert (o.status, r.change) == (ObservationStatus.SUSPECT, ChangeKind.DEPENDENCY_CHANGED)
        assert (r.caller_omits, r.caller_starred) == (("timeout",), starred)
        assert (r.dependency_hops, r.dependency_removed) == (1, False)
        assert r.detail == DETAIL.format(name=f"callers.py::{name}")  # no text to parse back
        assert change_line(r) == line
        out = _observation_out(o).stale_reasons[0]  # the MCP tools' model
        assert (out.caller_omits, out.caller_starred, out.summary) == (["timeout"], starred, line)
    return got


def _to_old_form(doc: dict[str, Any]) -> dict[str, Any]:
    """An observation document as the code before the caller fields wrote it (nor the
    dependency fields, which came after)."""
    for r in before_dependency_fields(doc).get("stale_reasons", ()):
        omits = r.pop("caller_omits", None)
        starred = r.pop("caller_starred", False)
        if omits:
            names = ", ".join(f"`{n}`" for n in omits)
            r["detail"] += (
                f"; this caller may pass {names} in `*`/`**` arguments" if starred else f"; this caller omits {names}"
            )
    return doc


def _callers_in_detail(docs: list[dict[str, Any]]) -> int:
    """How many documents say a caller in a reason's detail (the old form)."""
    return sum("this caller" in r["detail"] for doc in docs for r in doc["stale_reasons"])


def _suspects(daemon_factory: DaemonFactory) -> tuple[Daemon, Path, dict[str, str], dict[str, Observation]]:
    """A daemon on the repository, its notes after the change, and what they are then."""
    root = shapes_repo()
    d = daemon_factory([root])
    with d.client() as c:
        notes = _changed_default(c, root)
        return d, root, notes, _check(c, notes)


def test_the_caller_fields_go_end_to_end_and_survive_a_restart(daemon_factory: DaemonFactory) -> None:
    d, root, notes, before = _suspects(daemon_factory)
    shown = show_json(d, notes["splats"])["stale_reasons"][0]
    assert (shown["caller_omits"], shown["caller_starred"]) == (["timeout"], True)
    assert d.stop() == 0

    d2 = daemon_factory([root], home=d.home)
    with d2.client() as c:
        assert _check(c, notes) == before


def test_a_journal_and_a_store_of_the_old_text_form_load_and_render_the_same(daemon_factory: DaemonFactory) -> None:
    d, root, notes, before = _suspects(daemon_factory)
    assert d.stop() == 0

    def same(c: GraphMem) -> None:
        assert _check(c, notes) == before

    start = partial(daemon_factory, [root], home=d.home)
    reload_in_old_form(start, d.home, _to_old_form, _callers_in_detail, 2, same)
