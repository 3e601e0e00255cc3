"""A derived checkout's differing files resolved as each arrives from the parse
(``ParsedUnit.edges``), against the sibling's versions of those not set yet: ``build_delta``
keeps a file's early edges unless a file set after it changed what its record reads, then
resolves it again (``delta.stale_early``). The edges are a lone resolver's of the branch,
and a file that read nothing changed after it is not resolved again. Pure: real parses, no
threads, no files written."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphmemd.graph.delta import ParsedUnit, build_delta, stale_early
from graphmemd.graph.model import Language, ResolvedEdges, symbols_of
from graphmemd.graph.resolution import RepoResolver, read_repo_facts
from graphmemd.ingest.parsing import parse_source

SIBLING = {
    "lib.py": b"def helper():\n    return 1\n",
    "use.py": b"from lib import helper\n\n\ndef go():\n    return helper()\n",
    "app.py": b"def run():\n    return 0\n",
    "other.py": b"def x():\n    return 1\n",
}
#: the branch: ``app.py`` calls a function ``lib.py`` adds; ``other.py`` reads nothing of the others
BRANCH = {
    **SIBLING,
    "lib.py": b"def assist():\n    return 2\n",
    "app.py": b"from lib import assist\n\n\ndef run():\n    return assist()\n",
    "other.py": b"def x():\n    return 2\n",
}
DIFFERING = ("app.py", "other.py", "lib.py")  # (the order they arrive in)


def resolver(rid: str, files: dict[str, bytes]) -> RepoResolver:
    r = RepoResolver(rid, read_repo_facts(Path("/nonexistent"), ()))
    for p, src in sorted(files.items()):
        r.set_file(parse_source(p, src, Language.PYTHON))
    return r


def as_sets(edges: ResolvedEdges) -> dict[str, set[tuple[object, ...]]]:
    return {f: set(getattr(edges, f)) for f in ResolvedEdges.__dataclass_fields__}


def test_early_edges_kept_unless_a_later_file_changed_what_they_read(monkeypatch: pytest.MonkeyPatch) -> None:
    sibling = resolver("s", SIBLING)
    sibling.all_edges()
    w = RepoResolver("w", sibling.facts)
    assert not w.derive(sibling, sorted(set(SIBLING) - set(DIFFERING)), later=DIFFERING)
    units: dict[str, ParsedUnit] = {}
    prepared = {}
    for p in DIFFERING:  # as ``Indexer._take`` does with ``resolve``
        parsed = parse_source(p, BRANCH[p], Language.PYTHON)
        w.set_file(parsed, frozen=True)
        units[p] = ParsedUnit(parsed, p + "-new", len(BRANCH[p]), None, w.edges_by_file((p,), snapshot=False)[p])
        prepared[p] = symbols_of("w", parsed)
    # app.py was resolved before lib.py had ``assist``: its early edges miss the call
    assert not any(b.startswith("w:lib.py") for _a, b, _c in units["app.py"].edges.calls)  # type: ignore[union-attr]

    again: list[set[str]] = []
    by_file = w.edges_by_file
    monkeypatch.setattr(w, "edges_by_file", lambda paths, **kw: again.append(set(paths)) or by_file(paths, **kw))
    delta = build_delta("w", {}, units, (), w, cold=False, prepared=prepared)

    alone = resolver("w", BRANCH)
    want = alone.edges_for({*DIFFERING, "use.py"})
    assert as_sets(delta.edges) == as_sets(want)
    assert ("w:app.py::run#function", "w:lib.py::assist#function") in {(a, b) for a, b, _c in delta.edges.calls}
    assert set(delta.edge_sources) == {"use.py"}  # (it read ``helper``, gone)
    assert again == [{"app.py", "use.py"}]  # lib.py's own and other.py's early edges kept
    assert w.stats() == alone.stats()


def test_stale_early_is_by_the_order_files_were_set() -> None:
    by_path = {"a.py": {"b.py", "dep.py"}, "b.py": {"a.py"}, "c.py": {"d.py"}, "d.py": set(), "gone.py": {"c.py"}}
    order = ["a.py", "b.py", "c.py", "d.py"]  # (gone.py removed after them all)
    stale, outside = stale_early(by_path, order)
    # a.py read b.py's change before b.py was set; c.py read the removal; b.py read a.py's
    # change and d.py c.py's after those were set: not stale
    assert stale == {"a.py", "c.py"}
    assert outside == {"dep.py"}
