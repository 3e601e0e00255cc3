"""A changed default makes suspect only the callers that leave the parameter out (issue 41):
a real daemon, real files changed on disk, a note on each caller.

``connect(h, timeout=9)`` and ``connect(h, 9)`` pass ``timeout``: a new default of it changes
nothing for them, their notes stay fresh. ``connect(h)`` leaves it out and
``connect(*args, **kwargs)`` may: their notes become suspect, and the one-line renderer says
why. After a warm restart (snapshot or cached parses) the call shapes are known again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from call_shapes import shapes_repo
from conftest import Daemon
from graphmem.changes import change_line
from graphmem.client import GraphMem
from graphmem.paths import resolve_paths
from graphmem.types import ChangeKind, ObservationStatus
from test_suspect import becomes, edit

DaemonFactory = Callable[..., Daemon]

CALLER_NAMES = ("by_keyword", "by_position", "omits", "splats", "fetches")


def note_each_caller(c: GraphMem) -> dict[str, str]:
    return {name: c.observe(f"{name} connects", anchors=[f"callers.py::{name}"]).id for name in CALLER_NAMES}


def check_default_change(c: GraphMem, root: Path, notes: dict[str, str]) -> None:
    edit(root / "client.py", "def connect(host, timeout=5):", "def connect(host, timeout=30):")
    omits = becomes(c, notes["omits"], ObservationStatus.SUSPECT)
    splats = becomes(c, notes["splats"], ObservationStatus.SUSPECT)
    (r,) = omits.stale_reasons
    assert r.change is ChangeKind.DEPENDENCY_CHANGED
    assert (r.caller_omits, r.caller_starred) == (("timeout",), False)
    assert change_line(r) == (
        "`callers.py::omits`: calls `client.py::connect` without `timeout`, whose default changed: `5` → `30`, "
        "uncommitted"
    )
    assert change_line(splats.stale_reasons[0]) == (
        "`callers.py::splats`: calls `client.py::connect` with `*`/`**` arguments (maybe without `timeout`), "
        "whose default changed: `5` → `30`, uncommitted"
    )
    # (the same delta judged them all: the two above are the barrier)
    for name in ("by_keyword", "by_position", "fetches"):
        o = c.get(notes[name])
        assert (name, o.status, o.stale_reasons) == (name, ObservationStatus.FRESH, ())

    # a method's defaults: `c.fetch("u", 3)` passes `timeout` (the instance is `c`), not `retries`;
    # a new optional parameter of `connect` reaches no caller
    text = (root / "client.py").read_text(encoding="utf-8")
    (root / "client.py").write_text(
        text.replace("url, timeout=5, *, retries=1", "url, timeout=50, *, retries=2").replace(
            "def connect(host, timeout=30):", "def connect(host, timeout=30, *, tls=None):"
        ),
        encoding="utf-8",
    )
    (r,) = becomes(c, notes["fetches"], ObservationStatus.SUSPECT).stale_reasons
    assert r.dependency_ref == "client.py::Client.fetch"
    assert (r.caller_omits, r.caller_starred) == (("retries",), False)
    assert c.get(notes["by_keyword"]).status is ObservationStatus.FRESH


def test_a_changed_default_makes_suspect_only_the_callers_that_omit_it(daemon_factory: DaemonFactory) -> None:
    root = shapes_repo()
    d = daemon_factory([root])
    with d.client() as c:
        check_default_change(c, root, note_each_caller(c))


@pytest.mark.parametrize("via", ["snapshot", "parses"])
def test_call_shapes_are_known_after_a_warm_restart(daemon_factory: DaemonFactory, via: str) -> None:
    root = shapes_repo()
    d = daemon_factory([root])
    with d.client() as c:
        notes = note_each_caller(c)
    assert d.stop() == 0
    if via == "parses":  # (else the restart puts the graph back from the snapshot the stop wrote)
        (snap,) = resolve_paths(str(d.home), {}).snapshots.glob("*.snap")
        snap.unlink()
    d2 = daemon_factory([root], home=d.home)
    with d2.client() as c:
        assert c.status().repositories[0].files_parsed == 0  # (the shapes come from the parse cache)
        check_default_change(c, root, notes)


def test_the_old_text_form_of_a_caller_is_read_into_the_fields() -> None:
    """A reason written before the caller fields said it at the end of its detail; reading the
    document (journal, store copy, import) moves it into the fields, once, and keeps any other
    detail as it is."""
    from dataclasses import replace

    from graphmem.types import Category, Observation, StaleReason
    from graphmemd.memory.obsdoc import from_doc, to_doc

    dep = "a.py::f calls b.py::g, whose signature changed"
    base = StaleReason("a.py::f", ChangeKind.DEPENDENCY_CHANGED, 1.0, detail=dep, dependency_id="b.py::g#function")
    o = Observation("o1", "r", "text", Category.OTHER, 1.0, 1.0, stale_reasons=(base,))

    def read(detail: str) -> StaleReason:
        doc = to_doc(o)
        doc["stale_reasons"][0]["detail"] = detail
        return from_doc(doc).stale_reasons[0]

    got = read(dep + "; this caller may pass `timeout`, `retries` in `*`/`**` arguments")
    assert (got.detail, got.caller_omits, got.caller_starred) == (dep, ("timeout", "retries"), True)
    got = read(dep + "; this caller omits `timeout`")
    assert (got.detail, got.caller_omits, got.caller_starred) == (dep, ("timeout",), False)
    for kept in (dep, dep + "; this caller cannot be bound", "a.py::f calls b.py::g (2 hops away), which was removed"):
        assert (read(kept).detail, read(kept).caller_omits) == (kept, ())
    # the new form goes through as it is
    new = replace(base, caller_omits=("x",), caller_starred=True)
    assert from_doc(to_doc(replace(o, stale_reasons=(new,)))).stale_reasons == (new,)


def test_the_old_text_form_of_a_dependency_reason_is_read_into_the_hop_and_removal_fields() -> None:
    """A dependency reason written before ``dependency_hops``/``dependency_removed`` said both
    in its detail ("(2 hops away)", "which was removed"; no count: one hop); reading the
    document reads them into the fields and keeps the detail. A document with the fields is
    read as it is (its detail never consulted); other reasons have neither."""
    from dataclasses import replace

    import pytest
    from graphmem.errors import InvalidArgument
    from graphmem.types import Category, Observation, StaleReason
    from graphmemd.memory.obsdoc import from_doc, to_doc

    base = StaleReason("a.py::f", ChangeKind.DEPENDENCY_CHANGED, 1.0, dependency_id="b.py::g#function")
    o = Observation("o1", "r", "text", Category.OTHER, 1.0, 1.0, stale_reasons=(base,))

    def old(detail: str, change: ChangeKind = ChangeKind.DEPENDENCY_CHANGED) -> StaleReason:
        doc = to_doc(replace(o, stale_reasons=(replace(base, change=change, detail=detail),)))
        reason = doc["stale_reasons"][0]
        reason.pop("dependency_hops", None)
        reason.pop("dependency_removed", None)
        return from_doc(doc).stale_reasons[0]

    for detail, fields in (
        ("a.py::f calls b.py::g, whose signature changed", (1, False)),
        ("a.py::f calls b.py::g (2 hops away), whose signature changed", (2, False)),
        ("a.py::f inherits from b.py::g (12 hops away), which was removed", (12, True)),
        ("a.py::f imports the file of b.py::g, which was removed", (1, True)),
        ("a.py::f calls b.py::g, whose signature changed; this caller omits `timeout`", (1, False)),
        # a qualified name that happens to read like the old text is not taken for it
        ("a.py::f calls b.py::g_which_was_removed, whose signature changed", (1, False)),
    ):
        got = old(detail)
        assert (got.dependency_hops, got.dependency_removed) == fields, detail
        assert got.detail == detail.partition("; this caller")[0]
    gone = old("a.py::f was removed", ChangeKind.REMOVED)
    assert (gone.dependency_hops, gone.dependency_removed) == (0, False)

    # the new form goes through as it is, whatever its detail says
    new = replace(base, detail="a.py::f calls b.py::g (5 hops away), which was removed", dependency_hops=1)
    assert from_doc(to_doc(replace(o, stale_reasons=(new,)))).stale_reasons == (new,)
    both = replace(new, dependency_hops=3, dependency_removed=True)
    assert from_doc(to_doc(replace(o, stale_reasons=(both,)))).stale_reasons == (both,)
    # bad input: a clear error naming the field
    for bad in (-1, "2", 1.5e9, True):
        doc = to_doc(replace(o, stale_reasons=(new,)))
        doc["stale_reasons"][0]["dependency_hops"] = bad
        with pytest.raises(InvalidArgument, match="dependency_hops"):
            from_doc(doc)
