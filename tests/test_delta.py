"""The indexer's pure core: two in-memory parses -> a graph delta, with no daemon, thread,
store or file. And memory's pure core: the state changes a delta causes."""

from __future__ import annotations

import time
from pathlib import Path

from graphmem.types import Anchor, Category, EventKind, Observation, ObservationStatus
from graphmem.types import ChangeKind as ReasonKind
from graphmemd.delta import GraphDelta, ParsedUnit, apply_delta, build_delta, old_files
from graphmemd.graphstate import GraphState
from graphmemd.model import ChangeKind, Language
from graphmemd.parsing import parse_source
from graphmemd.resolve import RepoResolver, read_repo_facts
from graphmemd.staleness import file_anchor, restale, symbol_anchor

REPO = "demo-000000"
CRYPTO_V1 = b'''
def hash_password(password):
    return digest(password, salt=SALT)


def digest(value, salt):
    return value + salt
'''
SERVICE = b'''
from crypto import hash_password


class AuthService:
    def login(self, user, password):
        return hash_password(password) == user.hash
'''


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
    calls = set(delta.edges.calls)
    login = f"{REPO}:service.py::AuthService.login#method"
    hash_pw = f"{REPO}:crypto.py::hash_password#function"
    assert (login, hash_pw) in calls
    assert state.graph.symbols[hash_pw].name == "hash_password"


def test_body_edit_is_a_body_change_and_dependents_are_re_resolved() -> None:
    state, resolver = fresh_state()
    index(state, resolver, {"crypto.py": CRYPTO_V1, "service.py": SERVICE})
    edited = CRYPTO_V1.replace(b"digest(password, salt=SALT)", b"digest(password.strip(), salt=SALT)")
    delta = index(state, resolver, {"crypto.py": edited})
    assert not delta.cold
    kinds = {c.id.rsplit("::", 1)[1]: c.kind for c in delta.changes}
    assert kinds == {"hash_password#function": ChangeKind.BODY_CHANGED}
    assert delta.edge_sources == ("service.py",)  # it imports crypto.py: its edges are re-resolved
    assert delta.touched == {"crypto.py"}


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
