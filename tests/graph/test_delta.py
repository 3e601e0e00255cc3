"""The indexer's pure core: two in-memory parses -> a graph delta, with no daemon, thread,
store or file. And memory's pure core: the state changes a delta causes."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from call_shapes import CALLERS, CLIENT
from graphmem.types import Anchor, Category, EventKind, Observation, ObservationStatus
from graphmem.types import ChangeKind as ReasonKind
from graphmemd.graph.codegraph import CodeGraph
from graphmemd.graph.delta import (
    GraphDelta,
    ParsedUnit,
    apply_delta,
    build_delta,
    old_files,
    set_outgoing_edges,
    with_dependents,
)
from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.model import ChangeKind, Language, ResolvedEdges, SymbolInfo, symbols_of
from graphmemd.graph.resolution import RepoResolver, read_repo_facts
from graphmemd.graph.resolution.index import FileIndex
from graphmemd.graph.signatures import DefaultSeen
from graphmemd.ingest.parsing import parse_source
from graphmemd.memory.staleness import file_anchor, restale, symbol_anchor

REPO = "demo-000000"
CRYPTO_V1 = b"""
def hash_password(password):
    return digest(password, salt=SALT)


def digest(value, salt):
    return value + salt
"""
SERVICE = b"""
from crypto import hash_password


class AuthService:
    def login(self, user, password):
        return hash_password(password) == user.hash
"""


def unit(path: str, source: bytes) -> ParsedUnit:
    parsed = parse_source(path, source, Language.PYTHON)
    return ParsedUnit(parsed, str(hash(source)), len(source))


def index(
    state: GraphState, resolver: RepoResolver, files: dict[str, bytes], removed: frozenset[str] = frozenset()
) -> GraphDelta:
    """One indexer step, as the daemon runs it, minus the threads and the store."""
    units = {p: unit(p, src) for p, src in files.items()}
    cold = not state.graph.repo_files(REPO)
    old = old_files(state.graph, REPO, [*units, *removed])
    delta = build_delta(REPO, old, units, removed, resolver, cold=cold)
    apply_delta(state.graph, delta)
    return delta


def fresh_state() -> tuple[GraphState, RepoResolver]:
    return GraphState(), RepoResolver(REPO, read_repo_facts(Path("/nonexistent"), ()))


def test_cold_delta_has_every_file_and_edge_but_no_symbol_diff() -> None:
    state, resolver = fresh_state()
    delta = index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    assert delta.cold
    assert [f.path for f in delta.changed] == ["crypto.py", "service.py"]
    assert delta.changes == ()
    calls = {(a, b) for a, b, _conf in delta.edges.calls}
    login = f"{REPO}:service.py::AuthService.login#method"
    hash_pw = f"{REPO}:crypto.py::hash_password#function"
    assert (login, hash_pw) in calls
    assert state.graph.symbols[hash_pw].name == "hash_password"


POSITIONAL_V1 = b"""class Adapter:
    def validate(self, __obj: object, *, strict: bool = False) -> object:
        ...

    def dump(self, __obj):
        return repr(__obj)

    def load(self, __data: bytes) -> object:
        ...
"""


def test_a_positional_only_parameter_renamed_is_no_change_of_the_head() -> None:
    """PEP 484's ``__obj`` written as PEP 570's ``obj, /``: no caller named it. A body that
    does not use it: no change; one that does: its body changed, not its signature; a new
    annotation beside the new name: still a signature change (not only names differ)."""
    state, resolver = fresh_state()
    index(state, resolver, {"adapter.py": POSITIONAL_V1})
    new = (POSITIONAL_V1.replace(b"__obj: object, *", b"obj: object, /, *")
           .replace(b"dump(self, __obj)", b"dump(self, obj, /)").replace(b"repr(__obj)", b"repr(obj)")
           .replace(b"__data: bytes", b"data: str, /"))  # fmt: skip
    delta = index(state, resolver, {"adapter.py": new})
    kinds = {c.id.rsplit("::", 1)[1]: c.kind for c in delta.changes}
    assert kinds == {
        "Adapter#class": ChangeKind.BODY_CHANGED,  # (its text changed: as for any edit of a method)
        "Adapter.dump#method": ChangeKind.BODY_CHANGED,
        "Adapter.load#method": ChangeKind.SIGNATURE_CHANGED,
    }


@pytest.mark.parametrize("narrow", [True, False])
def test_body_edit_is_a_body_change_and_dependents_are_re_resolved(narrow: bool) -> None:
    """A body edited changes no name other files read: narrowed, the file that calls it is
    not resolved again; not narrowed, every file that consulted it is."""
    state, resolver = fresh_state()
    resolver.narrow = narrow
    index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    edited = CRYPTO_V1.replace(b"digest(password, salt=SALT)", b"digest(password.strip(), salt=SALT)")
    delta = index(state, resolver, {"crypto.py": edited})
    assert not delta.cold
    kinds = {c.id.rsplit("::", 1)[1]: c.kind for c in delta.changes}
    assert kinds == {"hash_password#function": ChangeKind.BODY_CHANGED}
    # service.py imports crypto.py and calls hash_password
    assert delta.edge_sources == (() if narrow else ("service.py",))
    assert delta.touched == {"crypto.py"}


def _edges(graph: CodeGraph) -> set[tuple[str, str, str]]:
    """Every edge of ``graph`` (both directions) and every unresolved call, as comparable rows."""
    nodes = [*graph.files, *graph.symbols]
    rows = {(n, kind.value, m) for n in nodes for kind, m in graph.neighbors(n)}
    return rows | {(n, "unresolved", text) for n in nodes for text in graph.unresolved(n)}


class _Counting(RepoResolver):
    """A resolver that counts its resolutions and the name comparisons of changed files."""

    def __init__(self) -> None:
        super().__init__(REPO, read_repo_facts(Path("/nonexistent"), ()))
        self.resolved: list[str] = []

    def edges_for(self, paths: Iterable[str]) -> ResolvedEdges:
        self.resolved.append("edges_for")
        return super().edges_for(paths)

    def dependents_of(self, paths: Iterable[str]) -> set[str]:
        self.resolved.append("dependents_of")
        return super().dependents_of(paths)

    def _note_change(self, path: str, old: FileIndex | None, new: FileIndex) -> None:
        self.resolved.append("compared")
        super()._note_change(path, old, new)


def test_a_watcher_batch_resolves_nothing_before_its_answer_and_ends_equal() -> None:
    """A watcher batch hands the changed file to the resolver without comparing it name by
    name (``set_file(..., compare_later=True)``) and builds its delta with ``dependents=False``:
    when no change can reach a dependent (a body, a new optional parameter) nothing is resolved
    (``unresolved``: no edge, no dependent, no comparison); when one can (a removal, a new
    required parameter: ``impacts_of`` reads the changed file's call sites) the changed file is
    resolved first and its dependents wait (``deferred``), as since the twenty-fourth session.
    After the hook's answer ``with_dependents`` resolves the rest: the same delta and graph as
    one step; in between the graph keeps the outgoing edges the changed file's kept symbols
    had and the dependents' edges, untouched."""
    service = SERVICE + b"\n\ndef check(p):\n    return digest(p, 1)\n"
    service = service.replace(b"from crypto import hash_password", b"from crypto import digest, hash_password")
    at_once, state = fresh_state(), GraphState()
    resolver = _Counting()
    for st, rs in ((at_once[0], at_once[1]), (state, resolver)):
        index(st, rs, {"crypto.py": CRYPTO_V1, "service.py": service})
    renamed = CRYPTO_V1.replace(b"def digest(", b"def make_digest(").replace(b"return digest(", b"return make_digest(")
    resigned = CRYPTO_V1.replace(b"def hash_password(password):", b"def hash_password(password, pepper):")
    own_call = CRYPTO_V1.replace(b"return digest(password, salt=SALT)", b"return password + SALT")
    optional = CRYPTO_V1.replace(b"def digest(value, salt):", b"def digest(value, salt, rounds=1):")
    series = [(renamed, True), (resigned, False), (CRYPTO_V1, False), (own_call, True), (own_call, None),
              (CRYPTO_V1, True), (optional, True), (CRYPTO_V1, False)]  # fmt: skip
    unresolved = 0
    for source, nothing_resolved in series:
        whole = index(*at_once, {"crypto.py": source})
        units = {"crypto.py": unit("crypto.py", source)}
        old = old_files(state.graph, REPO, units)
        resolver.resolved.clear()
        resolver.set_file(units["crypto.py"].parsed, frozen=True, compare_later=True)  # (the indexer's ``_take``)
        prepared = {"crypto.py": symbols_of(REPO, units["crypto.py"].parsed)}
        first = build_delta(REPO, old, units, (), resolver, cold=False, prepared=prepared,
                            dependents=False)  # fmt: skip
        if nothing_resolved is None:  # the same bytes again: nothing to apply (compared with the next change)
            assert whole.empty
            assert first.empty
            assert not first.unresolved
            assert resolver.resolved == []
            continue
        assert first.changes == whole.changes
        if nothing_resolved:  # nothing resolved, nothing compared before the answer
            assert resolver.resolved == []
            assert first.unresolved
            assert first.edges == ResolvedEdges()
            assert first.edge_sources == first.deferred == ()
            unresolved += 1
        else:  # the changed file resolved (its call sites as ``impacts_of`` reads them), its dependents not
            assert resolver.resolved == ["dependents_of", "compared", "edges_for"]
            assert not first.unresolved
            assert first.deferred == whole.edge_sources == ("service.py",)
            assert not [a for a, _b, _c in first.edges.calls if ":service.py" in a]
        before = _edges(state.graph)
        apply_delta(state.graph, first)
        kept = {r for r in before if (r[0] in state.graph.symbols or r[0] in state.graph.files)
                and r[1] not in ("defines", "contains")
                and (r[2] in state.graph.symbols or r[2] in state.graph.files or r[1] == "unresolved")}  # fmt: skip
        if not nothing_resolved:  # (the changed file's own edges are new already)
            kept = {r for r in kept if not r[0].startswith(f"{REPO}:crypto.py")}
        assert kept <= _edges(state.graph)  # (only a removed symbol's edges go with it)
        full, edges, paths = with_dependents(first, resolver)
        with state.writing() as graph:
            set_outgoing_edges(graph, REPO, paths, edges)
        assert not full.unresolved
        assert full.deferred == ()
        assert full.edge_sources == whole.edge_sources
        for name in ("imports", "external_imports", "calls", "unresolved_calls", "inherits", "unresolved_inherits"):
            assert sorted(getattr(full.edges, name)) == sorted(getattr(whole.edges, name)), name
        assert _edges(state.graph) == _edges(at_once[0].graph)
    assert unresolved == 4
    assert with_dependents(full, resolver) == (full, ResolvedEdges(), ())


def test_unchanged_content_gives_an_empty_delta() -> None:
    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1})
    assert index(state, resolver, {"crypto.py": CRYPTO_V1}).empty


def test_rename_and_removal() -> None:
    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    renamed = CRYPTO_V1.replace(b"def digest(", b"def make_digest(").replace(b"return digest(", b"return make_digest(")
    delta = index(state, resolver, {"crypto.py": renamed})
    by_kind = {c.kind: c for c in delta.changes}
    assert by_kind[ChangeKind.RENAMED].new is not None
    assert by_kind[ChangeKind.RENAMED].new.qualname == "make_digest"
    gone = index(state, resolver, {}, removed=frozenset({"service.py"}))
    assert gone.removed == ("service.py",)
    assert {c.kind for c in gone.changes} == {ChangeKind.REMOVED}
    assert f"{REPO}:service.py" not in state.graph.files


def observation(oid: str, *anchors: Anchor) -> Observation:
    now = time.time()
    return Observation(
        id=oid, repo_id=REPO, text=oid, category=Category.CONSTRAINT, created_at=now, updated_at=now, anchors=anchors
    )


def test_memory_core_marks_stale_follows_renames_and_returns_to_fresh() -> None:
    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    g = state.graph
    on_hash = observation("a", symbol_anchor(g.symbols[f"{REPO}:crypto.py::hash_password#function"]))
    on_digest = observation("b", symbol_anchor(g.symbols[f"{REPO}:crypto.py::digest#function"]))
    fp = state.file_fingerprint(REPO, "service.py")
    assert fp is not None
    on_file = observation("c", file_anchor(REPO, "service.py", fp))

    edited = CRYPTO_V1.replace(b"salt=SALT)", b"salt=PEPPER)")
    delta = index(state, resolver, {"crypto.py": edited})
    changes = restale(delta, [on_hash, on_digest, on_file], state, time.time(), "c1")
    assert [(c.after.id, c.after.status, c.event) for c in changes] == [
        ("a", ObservationStatus.STALE, EventKind.OBSERVATION_STALE)
    ]
    stale = changes[0].after
    assert stale.stale_reasons[0].change is ReasonKind.BODY_CHANGED
    assert stale.stale_reasons[0].commit == "c1"

    back = index(state, resolver, {"crypto.py": CRYPTO_V1})
    (revert,) = restale(back, [stale], state, time.time(), "c2")
    assert revert.after.status is ObservationStatus.FRESH
    assert revert.event is EventKind.OBSERVATION_FRESH

    renamed = CRYPTO_V1.replace(b"def digest(", b"def make_digest(").replace(b"return digest(", b"return make_digest(")
    moved = index(state, resolver, {"crypto.py": renamed})
    by_id = {c.after.id: c for c in restale(moved, [on_hash, on_digest], state, time.time(), "c3")}
    follow = by_id["b"].after
    assert follow.anchors[0].ref == "crypto.py::make_digest"
    assert follow.needs_review
    assert follow.stale_reasons[0].change is ReasonKind.RENAMED


def test_memory_core_ignores_what_the_delta_did_not_change() -> None:
    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1})
    o = observation("a", symbol_anchor(state.graph.symbols[f"{REPO}:crypto.py::hash_password#function"]))
    reformatted = CRYPTO_V1.replace(b"(password, salt=SALT)", b"(  password,   salt = SALT )  # comment")
    delta = index(state, resolver, {"crypto.py": reformatted})
    assert restale(delta, [o], state, time.time(), "") == []


def test_parser_upgrade_rebases_matching_anchors_instead_of_marking_them_stale() -> None:
    """A delta from a new parser (``rebase``): anchors that matched the old parser's
    fingerprints take the new ones; an anchor that was already stale stays stale."""
    from dataclasses import replace

    from graphmemd.graph.delta import OldFile

    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1})
    current = state.graph.file_symbols(REPO, "crypto.py")
    # what the old parser had computed for the same code
    old_syms = tuple(replace(s, body_hash="old-" + s.body_hash, sig_hash="old-" + s.sig_hash) for s in current)
    old = {"crypto.py": OldFile("crypto.py", "h", old_syms)}
    hash_old = next(s for s in old_syms if s.name == "hash_password")
    matched = observation("a", symbol_anchor(hash_old))
    was_stale = observation("b", replace(symbol_anchor(hash_old), body_hash="something-else"))
    delta = build_delta(
        REPO, old, {"crypto.py": unit("crypto.py", CRYPTO_V1)}, (), resolver, cold=False, full=True, rebase=True
    )
    assert {c.kind for c in delta.changes} == {ChangeKind.SIGNATURE_CHANGED}
    by_id = {c.after.id: c.after for c in restale(delta, [matched, was_stale], state, time.time(), "")}
    assert by_id["a"].status is ObservationStatus.FRESH
    assert by_id["a"].anchors[0].body_hash == next(s.body_hash for s in current if s.name == "hash_password")
    assert by_id["b"].status is ObservationStatus.STALE


def test_impacts_are_the_callers_of_a_re_signed_symbol_read_before_the_delta() -> None:
    from graphmemd.graph.delta import impacts_of

    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    resigned = CRYPTO_V1.replace(b"def hash_password(password):", b"def hash_password(password, pepper):")
    units = {"crypto.py": unit("crypto.py", resigned)}
    delta = build_delta(REPO, old_files(state.graph, REPO, units), units, (), resolver, cold=False)
    (impact,) = [i for i in impacts_of(state.graph, delta, hops=1) if i.dependent.endswith("#method")]
    assert impact.dependent == f"{REPO}:service.py::AuthService.login#method"
    assert impact.dependency.qualname == "hash_password"
    assert impact.change is ChangeKind.SIGNATURE_CHANGED
    assert impacts_of(state.graph, delta, hops=0) == ()


def test_rename_and_back_returns_the_observation_to_fresh() -> None:
    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1})
    o = observation("a", symbol_anchor(state.graph.symbols[f"{REPO}:crypto.py::digest#function"]))
    there = CRYPTO_V1.replace(b"def digest(", b"def make_digest(").replace(b"return digest(", b"return make_digest(")
    (away,) = restale(index(state, resolver, {"crypto.py": there}), [o], state, time.time(), "")
    assert away.after.needs_review
    assert away.after.anchors[0].ref == "crypto.py::make_digest"
    (back,) = restale(index(state, resolver, {"crypto.py": CRYPTO_V1}), [away.after], state, time.time(), "")
    assert back.after.anchors[0].ref == "crypto.py::digest"
    assert back.after.status is ObservationStatus.FRESH
    assert back.after.stale_reasons == ()
    assert not back.after.needs_review


def test_parser_upgrade_carries_anchors_of_symbols_the_new_parser_names_differently() -> None:
    """An overload the old parser called ``digest~2`` and the new one ``digest``: same bytes,
    same place in the file, so the anchor moves to the new id, fresh."""
    from dataclasses import replace

    from graphmemd.graph.delta import OldFile
    from graphmemd.graph.model import symbol_id

    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1})
    current = state.graph.file_symbols(REPO, "crypto.py")
    content = unit("crypto.py", CRYPTO_V1)

    def old_name(s: SymbolInfo) -> SymbolInfo:
        if s.name != "digest":
            return s
        return replace(s, qualname="digest~2", id=symbol_id(REPO, "crypto.py", "digest~2", s.kind), body_hash="old")

    old_syms = tuple(old_name(s) for s in current)
    old = {"crypto.py": OldFile("crypto.py", content.content_hash, old_syms)}
    anchored = observation("a", symbol_anchor(next(s for s in old_syms if s.qualname == "digest~2")))
    delta = build_delta(REPO, old, {"crypto.py": content}, (), resolver, cold=False, full=True, rebase=True)
    assert [(o.qualname, n.qualname) for o, n in delta.renamed_by_parser] == [("digest~2", "digest")]
    (change,) = restale(delta, [anchored], state, time.time(), "")
    assert change.after.status is ObservationStatus.FRESH
    assert change.after.anchors[0].ref == "crypto.py::digest"
    assert change.after.anchors[0].symbol_id == f"{REPO}:crypto.py::digest#function"


def _impacts_after(new_head: bytes) -> tuple[set[ChangeKind], list[str]]:
    from graphmemd.graph.delta import impacts_of

    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    units = {"crypto.py": unit("crypto.py", CRYPTO_V1.replace(b"def hash_password(password):", new_head))}
    delta = build_delta(REPO, old_files(state.graph, REPO, units), units, (), resolver, cold=False)
    return {c.kind for c in delta.changes}, [i.dependent for i in impacts_of(state.graph, delta, hops=2)]


def test_an_annotation_change_is_graded_apart_and_impacts_no_one() -> None:
    kinds, impacts = _impacts_after(b"def hash_password(password: str) -> bytes:")
    assert kinds == {ChangeKind.ANNOTATIONS_CHANGED}
    assert impacts == []


def test_an_equivalent_annotation_spelling_is_no_change() -> None:
    one = parse_source("m.py", b"def f(a: Optional[List[int]] = None) -> 'Dict[str, int]':\n    pass\n")
    other = parse_source("m.py", b"def f(a: list[int] | None = None) -> dict[str, int]:\n    pass\n")
    assert one.symbols[0].sig_hash == other.symbols[0].sig_hash


def test_a_new_optional_parameter_impacts_no_caller_a_required_one_does() -> None:
    kinds, impacts = _impacts_after(b"def hash_password(password, pepper=''):")
    assert kinds == {ChangeKind.SIGNATURE_CHANGED}
    assert impacts == []
    kinds, impacts = _impacts_after(b"def hash_password(password, pepper):")
    assert f"{REPO}:service.py::AuthService.login#method" in impacts


def test_a_changed_default_impacts_every_caller_without_call_sites() -> None:
    """Without the callers' call sites (``sites`` not given, or not known), every caller is
    marked: nothing says it passes the parameter."""
    from graphmemd.graph.delta import impacts_of

    state, resolver = fresh_state()
    v2 = CRYPTO_V1.replace(b"def hash_password(password):", b"def hash_password(password, rounds=10):")
    index(state, resolver, {"crypto.py": v2, "service.py": SERVICE})
    units = {"crypto.py": unit("crypto.py", v2.replace(b"rounds=10", b"rounds=12"))}
    delta = build_delta(REPO, old_files(state.graph, REPO, units), units, (), resolver, cold=False)
    assert f"{REPO}:service.py::AuthService.login#method" in [i.dependent for i in impacts_of(state.graph, delta, 1)]


CLIENT_V1 = CLIENT.encode()
OMITS_TIMEOUT = DefaultSeen(("timeout",))


def _default_impacts(old: bytes, new: bytes) -> dict[str, DefaultSeen | None]:
    """Dependent qualname (or file id) -> ``Impact.caller``, ``client.py`` changed from ``old`` to ``new``."""
    from graphmemd.graph.delta import impacts_of

    state, resolver = fresh_state()
    index(state, resolver, {"client.py": old, "callers.py": CALLERS.encode()})
    units = {"client.py": unit("client.py", new)}
    delta = build_delta(REPO, old_files(state.graph, REPO, units), units, (), resolver, cold=False)
    found = impacts_of(state.graph, delta, 1, resolver)
    return {i.dependent.partition("::")[2].partition("#")[0] or i.dependent: i.caller for i in found}


def test_a_changed_default_impacts_only_the_callers_that_leave_it_out() -> None:
    """Issue 41: ``f(x, timeout=9)`` and ``f(x, 9)`` do not see a new default of ``timeout``;
    ``f(x)`` does, and ``f(*args, **kwargs)`` may. A caller is marked when any of its call
    sites leaves it out. Files importing the callee's file are not marked for it."""
    new = CLIENT_V1.replace(b"def connect(host, timeout=5)", b"def connect(host, timeout=30)")
    got = _default_impacts(CLIENT_V1, new)
    assert got == {
        "omits": OMITS_TIMEOUT,
        "splats": DefaultSeen(("timeout",), True),
        "twice": OMITS_TIMEOUT,
        f"{REPO}:callers.py": OMITS_TIMEOUT,
    }


def test_a_changed_method_default_binds_past_the_instance() -> None:
    """``c.fetch("u", 3)`` passes ``timeout`` (the instance is ``c``); ``Client.fetch(c, "u")``
    leaves it out (the instance is its first argument); a keyword-only parameter is never
    passed by position."""
    new = CLIENT_V1.replace(b"url, timeout=5, *", b"url, timeout=50, *")
    assert _default_impacts(CLIENT_V1, new) == {"unbound": OMITS_TIMEOUT}
    new = CLIENT_V1.replace(b"retries=1", b"retries=3")
    got = _default_impacts(CLIENT_V1, new)
    callers = ("method_calls", "fetches", "unbound", "unbound_passing", "keyword_only")
    assert got == {k: DefaultSeen(("retries",)) for k in callers}


def test_a_changed_default_with_other_changes_keeps_the_old_grading() -> None:
    """A parameter renamed as well: every caller and importer, as before."""
    new = CLIENT_V1.replace(b"def connect(host, timeout=5)", b"def connect(address, timeout=30)")
    got = _default_impacts(CLIENT_V1, new)
    assert {"by_keyword", "by_position", "omits", "splats"} <= set(got)
    assert set(got.values()) == {None}


def test_a_parameter_made_optional_impacts_no_caller_that_passes_it() -> None:
    old = CLIENT_V1.replace(b"def connect(host, timeout=5)", b"def connect(host, timeout)")
    assert "by_keyword" not in _default_impacts(old, CLIENT_V1)
    assert "by_position" not in _default_impacts(old, CLIENT_V1)
    assert "splats" in _default_impacts(old, CLIENT_V1)


def test_type_parameters_added_impact_no_caller() -> None:
    """ruff's UP047 (PEP 695): ``def f[T](x: T)`` for ``def f(x: T)``; calls are the same."""
    from graphmemd.graph.signatures import callers_unaffected

    old, new = "def batch(it:Iterable[V],n:int)->list[V]:", "def batch[V](it:Iterable[V],n:int)->list[V]:"
    assert callers_unaffected(old, new)
    assert not callers_unaffected("def batch(it,n):", "def batch[V](it,n,m):")


def test_the_shape_check_is_pure() -> None:
    """``sees_default``: a call binds a parameter by position (past the instance of a call
    through the class) or by keyword; a splat may pass what it leaves out."""
    from graphmemd.graph.model import CallShape
    from graphmemd.graph.signatures import changed_defaults, sees_default

    sig = "def f(a,b=1,*,c=2,**kw):"
    assert sees_default(CallShape((), 2), False, sig, ["b"]) is None
    assert sees_default(CallShape(("b",), 1), False, sig, ["b"]) is None
    assert sees_default(CallShape((), 1), False, sig, ["b"]) == DefaultSeen(("b",))
    assert sees_default(CallShape((), 3), False, sig, ["c"]) == DefaultSeen(("c",))  # keyword-only
    assert sees_default(CallShape((), 1, True), False, sig, ["b", "c"]) == DefaultSeen(("b", "c"), True)
    assert sees_default(CallShape(("b", "c"), 1, True), False, sig, ["b", "c"]) is None
    method = "def m(self,x,timeout=5):"
    assert sees_default(CallShape((), 2), False, method, ["timeout"]) is None
    assert sees_default(CallShape((), 2), True, method, ["timeout"]) == OMITS_TIMEOUT  # Client.m(c, x)
    assert sees_default(CallShape((), 3), True, method, ["timeout"]) is None
    assert sees_default(CallShape((), 1), True, "@classmethod\ndef m(cls,timeout=5):", ["timeout"]) is None
    assert sees_default(CallShape(), False, "func F(a int)", ["a"]) == DefaultSeen()  # cannot be bound
    assert changed_defaults("def f(a,b=1):", "def f(a,b=2):") == ("b",)
    assert changed_defaults("def f(a,b=1):", "def f(a,b=2,c=3):") == ("b",)  # an optional one added
    assert changed_defaults("def f(a,b=1):", "def f(a,b=1,c=3):") == ()  # no default changed
    assert changed_defaults("def f(a,b=1):", "def f(a,b):") == ()  # made required: breaks callers
    assert changed_defaults("def f(a,b=1):", "def f(x,b=2):") == ()  # renamed as well
    assert changed_defaults("function f(a = 1)", "function f(a = 2)") == ()  # not Python


def test_call_shape_text_round_trips() -> None:
    from graphmemd.graph.model import CallShape

    for shape in (CallShape(), CallShape((), 3), CallShape(("a", "b"), 1, True), CallShape((), 0, True)):
        assert CallShape.parse(shape.text) == shape
    assert CallShape(("timeout",), 2).text == "2:timeout"
    assert CallShape.parse("") is None
    assert CallShape.parse("x:y") is None
