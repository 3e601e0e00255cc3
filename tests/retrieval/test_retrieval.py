"""Retrieval end to end: a real daemon, temp copies of fixture repositories, real edits.

``fixtures/repos/chain_py`` is a straight call chain across files where every module imports
only its direct callee's module, so the graph has no shortcut:

    api.py::handle_request -CALLS-> service.py::process_order -CALLS-> pricing.py::compute_total
        -CALLS-> tax.py::apply_tax

plus ``legacy.py`` (``export_rows``, ``purge_rows``), which nothing in the chain reaches.

One daemon serves the module; every test registers its own copy of a fixture and
names that repository in every call.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import Daemon, copy_fixture, short_tmp, spawn_daemon, wait_for
from graphmem.client import GraphMem
from graphmem.errors import InvalidArgument
from graphmem.types import (
    Category,
    EdgeKind,
    IndexState,
    Observation,
    ObservationStatus,
    Recalled,
    RecallResult,
)
from graphmemd.retrieval import ranking
from graphmemd.retrieval.retriever import render_line

TIMEOUT = 10.0
NO_MATCH = "zzzz-no-such-term-zzzz"  # a recall that matches nothing, for its freshness

A = "api.py::handle_request"
B = "service.py::process_order"
C = "pricing.py::compute_total"
D = "tax.py::apply_tax"


def atomic_write(path: Path, text: str) -> None:
    """Save like an editor: a temp file in the same directory renamed over ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".swp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur exactly once in {path}"
    atomic_write(path, text.replace(old, new))


def documented_tokens(r: Recalled) -> int:
    """The documented estimate: ceil(utf-8 bytes / 4) of the result's rendered line."""
    return max(1, math.ceil(len(render_line(r.observation, r.why).encode("utf-8")) / 4))


def by_id(result: RecallResult) -> dict[str, Recalled]:
    return {r.observation.id: r for r in result.results}


@dataclass
class Repo:
    root: Path
    id: str
    client: GraphMem

    def file(self, rel: str) -> str:
        return str(self.root / rel)

    def observe(self, text: str, *anchors: str, **kw: Any) -> Observation:
        return self.client.observe(text, anchors=list(anchors), repo=self.id, **kw)

    def recall(self, text: str = "", **kw: Any) -> RecallResult:
        return self.client.recall(text, repo=self.id, **kw)

    def wait_current(self) -> None:
        wait_for(lambda: self.recall(NO_MATCH).freshness.current, TIMEOUT)


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    d = spawn_daemon(short_tmp(), [])
    try:
        yield d
    finally:
        if d.proc.poll() is None:
            try:
                d.stop()
            finally:
                if d.proc.poll() is None:
                    d.proc.kill()
                    d.proc.wait(10)


@pytest.fixture
def open_repo(daemon: Daemon) -> Iterator[Callable[..., Repo]]:
    client = daemon.client()

    def open_(fixture: str, prepare: Callable[[Path], None] | None = None) -> Repo:
        root = copy_fixture(fixture)
        if prepare is not None:
            prepare(root)
        rid = client.add_repo(root).id
        wait_for(lambda: any(r.id == rid and r.state is IndexState.READY and r.pending_changes == 0
                             for r in client.list_repos()), 30)
        repo = Repo(root, rid, client)
        repo.wait_current()
        return repo

    yield open_
    # Repositories stay registered until the module's daemon stops: every call names its
    # repository, and unregistering waits for the daemon's queued store writes (seconds).
    client.close()


# ----------------------------------------------------------------------------- the walk


def test_call_chain_distance_and_hops(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    on_c = repo.observe("totals are summed before tax, never after", C)
    on_d = repo.observe("the tax rate is a flat twenty percent", D)

    two = repo.recall(files=[repo.file("api.py")], hops=2)
    hits = by_id(two)
    assert on_c.id in hits, two
    hit = hits[on_c.id]
    assert hit.distance == 2
    assert hit.why == f"{A} -CALLS-> {B} -CALLS-> {C}"
    assert [(h.from_ref, h.edge, h.to_ref) for h in hit.path] == [
        (A, EdgeKind.CALLS, B), (B, EdgeKind.CALLS, C)]
    assert on_d.id not in hits, f"three calls away must not be reached with hops=2: {two}"
    assert two.seeds >= 2  # the file and the function it defines

    three = by_id(repo.recall(files=[repo.file("api.py")], hops=3))
    assert on_d.id in three
    assert three[on_d.id].distance == 3
    assert three[on_c.id].distance == 2


def test_stale_ranks_below_equally_near_fresh_and_fresh_only_excludes_it(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    fresh = repo.observe("orders with no items are dropped silently", B)
    # Same nearest anchor as `fresh`; its second anchor (unreached) is what goes stale.
    stale = repo.observe("order checks mirror the legacy purge", B, "legacy.py::purge_rows")
    edit(repo.root / "legacy.py", "return [row for row in rows if row]",
         "return [row for row in rows if row[0]]")
    wait_for(lambda: repo.client.get(stale.id).status is ObservationStatus.STALE, TIMEOUT)
    assert repo.client.get(fresh.id).status is ObservationStatus.FRESH
    repo.wait_current()

    both = repo.recall(files=[repo.file("api.py")], include_stale=True)
    ids = [r.observation.id for r in both.results]
    assert fresh.id in ids
    assert stale.id in ids
    assert ids.index(fresh.id) < ids.index(stale.id)
    f, s = by_id(both)[fresh.id], by_id(both)[stale.id]
    assert f.distance == s.distance == 1
    assert s.score < f.score
    assert s.observation.status is ObservationStatus.STALE
    assert s.observation.stale_reasons
    assert f.observation.status is ObservationStatus.FRESH

    # shown, never hidden: the default includes it (include_stale is a deprecated no-op) ...
    assert stale.id in by_id(repo.recall(files=[repo.file("api.py")]))
    assert stale.id in by_id(repo.recall(files=[repo.file("api.py")], include_stale=False))
    # ... and fresh_only leaves it out, saying how many it left out
    fresh_only = repo.recall(files=[repo.file("api.py")], fresh_only=True)
    assert fresh.id in by_id(fresh_only)
    assert stale.id not in by_id(fresh_only)
    assert fresh_only.excluded_stale == 1
    assert repo.recall(files=[repo.file("api.py")]).excluded_stale == 0


def test_superseded_observation_is_replaced_by_its_successor(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    old = repo.observe("totals include shipping", C)
    # the successor is anchored where the walk from api.py does not go
    new = repo.observe("totals exclude shipping since the checkout rewrite", "legacy.py::export_rows",
                       supersedes=[old.id])
    o1 = repo.client.get(old.id)
    assert o1.status is ObservationStatus.SUPERSEDED
    assert o1.superseded_by == new.id
    assert repo.client.get(new.id).supersedes == (old.id,)

    for result in (repo.recall(files=[repo.file("api.py")]), repo.recall(symbols=[C]),
                   repo.recall(files=[repo.file("api.py")], include_stale=True)):
        hits = by_id(result)
        assert old.id not in hits, result
        assert new.id in hits, result
    via_walk = by_id(repo.recall(files=[repo.file("api.py")]))[new.id]
    assert via_walk.distance == 2
    assert via_walk.why.endswith(C)


def test_archived_observations_never_appear(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    kept = repo.observe("totals are rounded once", C)
    gone = repo.observe("zebra totals are computed twice", C)
    archived = repo.client.archive(gone.id)
    assert archived.status is ObservationStatus.ARCHIVED

    for result in (repo.recall(files=[repo.file("api.py")]), repo.recall(symbols=[C]),
                   repo.recall(files=[repo.file("api.py")], include_stale=True), repo.recall("zebra totals"),
                   repo.recall("zebra", include_stale=True)):
        assert gone.id not in by_id(result), result
    assert kept.id in by_id(repo.recall(symbols=[C]))
    assert gone.id not in repo.client.brief(files=[repo.file("api.py")], repo=repo.id).observation_ids


# ----------------------------------------------------------------------------- budget


def test_token_budget_packs_greedily_in_rank_order(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    anchors = [A, B, C]
    made = [repo.observe(f"note {i}: " + "the chain must stay synchronous " * (1 + i % 4), anchors[i % 3],
                         category=Category.CONSTRAINT) for i in range(12)]

    full = repo.recall(files=[repo.file("api.py")], limit=200)
    assert {r.observation.id for r in full.results} == {o.id for o in made}
    assert not full.truncated
    for r in full.results:
        assert r.tokens == documented_tokens(r), r
    assert full.total_tokens == sum(r.tokens for r in full.results)
    scores = [r.score for r in full.results]
    assert scores == sorted(scores, reverse=True)

    budget = full.total_tokens // 2
    packed = repo.recall(files=[repo.file("api.py")], limit=200, budget=budget)
    assert packed.truncated
    assert 0 < packed.total_tokens <= budget
    assert packed.total_tokens == sum(r.tokens for r in packed.results)
    assert len(packed.results) < len(full.results)
    scores = [r.score for r in packed.results]
    assert scores == sorted(scores, reverse=True)
    for r in packed.results:
        assert r.tokens == documented_tokens(r), r
    # documented packing: greedy in rank order, skipping what does not fit
    expected: list[str] = []
    total = 0
    for r in full.results:
        if total + r.tokens <= budget:
            expected.append(r.observation.id)
            total += r.tokens
    assert [r.observation.id for r in packed.results] == expected


# ----------------------------------------------------------------------------- text


def test_text_query_finds_observations_by_keyword(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    pool = repo.observe("the connection pool is capped at ten connections; checkout blocks beyond that",
                        "legacy.py::export_rows")
    other = repo.observe("rows are written as comma separated values", "legacy.py::export_rows")

    result = repo.recall("connection pool")
    hits = by_id(result)
    assert pool.id in hits, result
    assert set(hits[pool.id].matched_terms) >= {"connection", "pool"}
    assert other.id not in hits
    assert result.results[0].observation.id == pool.id


def test_text_matching_a_symbol_name_seeds_the_walk(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    # nothing in this text matches the query: it can only be found through the walk
    rounding = repo.observe("amounts are rounded to cents after the rate is applied", D)

    def found() -> Recalled | None:
        return by_id(repo.recall("compute_total")).get(rounding.id)

    hit = wait_for(found, TIMEOUT)
    assert isinstance(hit, Recalled)
    assert hit.distance == 1
    assert hit.why == f"{C} -CALLS-> {D}"
    assert hit.matched_terms == ()


def test_text_matching_only_the_anchored_names_finds_the_note(open_repo: Callable[..., Repo]) -> None:
    """A note is indexed with its anchors' names and paths: a question that names the code
    (in any identifier style) finds the note even when no word of its text matches."""
    repo = open_repo("chain_py")
    note = repo.observe("keep both in step with the nightly job", "legacy.py::purge_rows")
    other = repo.observe("keep both in step with the monthly report", "legacy.py::export_rows")
    for question in ("purge rows", "purge_rows", "purgeRows", "which rows get purged?"):
        result = repo.recall(question, hops=0)
        assert result.results, question
        top = result.results[0]
        assert top.observation.id == note.id, (question, result)
        assert top.components.text > 0, question  # matched in the note index, not only by a walk
        assert other.id not in by_id(result) or by_id(result)[other.id].score < top.score
    assert "purge" in repo.recall("purge rows").results[0].matched_terms
    # a note on a file: no walk from the symbols "legacy" names reaches it with hops=0, the
    # note index does (the file's path is indexed with the note)
    on_file = repo.observe("keep both in step with the weekly audit", "legacy.py")
    hit = by_id(repo.recall("legacy", hops=0)).get(on_file.id)
    assert hit is not None
    assert hit.components.text > 0
    assert hit.components.text_proximity == 0


# ----------------------------------------------------------------------------- brief


def test_brief_lists_observations_with_freshness_and_respects_budget(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    texts = ["handlers never block on tax lookups", "orders are validated before pricing",
             "totals are summed before tax, never after"]
    made = [repo.observe(t, ref) for t, ref in zip(texts, [A, B, C], strict=True)]
    unreached = repo.observe("legacy export is scheduled for removal", "legacy.py::export_rows")

    brief = repo.client.brief(files=[repo.file("api.py")], repo=repo.id)
    for t in texts:
        assert t in brief.text
    assert unreached.text not in brief.text
    assert set(brief.observation_ids) == {o.id for o in made}
    assert brief.freshness.current
    assert "index current" in brief.text.splitlines()[0]
    assert brief.tokens == max(1, math.ceil(len(brief.text.encode("utf-8")) / 4))
    assert brief.tokens <= 1000

    for _ in range(10):
        repo.observe("pricing rules are owned by the finance team " * 3, C)
    small = repo.client.brief(files=[repo.file("api.py")], repo=repo.id, budget=120)
    assert small.tokens <= 120, small.text
    assert 0 < len(small.observation_ids) < 13
    assert "index current" in small.text
    tiny = repo.client.brief(files=[repo.file("api.py")], repo=repo.id, budget=45)
    assert tiny.observation_ids == ()
    assert "none fits the budget of 45 tokens" in tiny.text
    assert "nothing recorded" not in tiny.text


# ----------------------------------------------------------------------------- freshness


def _git(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false",
                          *args], cwd=root, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def test_freshness_reports_commit_and_dirty_tree(open_repo: Callable[..., Repo]) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")

    def init(root: Path) -> None:
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "fixture")

    repo = open_repo("chain_py", init)
    head = _git(repo.root, "rev-parse", "HEAD")
    f = repo.recall(files=[repo.file("api.py")]).freshness
    assert f.current
    assert len(f.repositories) == 1
    rf = f.repositories[0]
    assert rf.repo_id == repo.id
    assert rf.state is IndexState.READY
    assert rf.pending_changes == 0
    assert rf.indexed_commit == head
    assert rf.head_commit == head
    assert not rf.working_tree_dirty

    edit(repo.root / "tax.py", "RATE = 0.2", "RATE = 0.25")
    wait_for(lambda: repo.recall(NO_MATCH).freshness.repositories[0].working_tree_dirty, TIMEOUT)
    repo.wait_current()
    rf = repo.recall(NO_MATCH).freshness.repositories[0]
    assert rf.working_tree_dirty
    assert rf.indexed_commit == head
    assert rf.current


def test_freshness_follows_a_commit(open_repo: Callable[..., Repo]) -> None:
    """Committing the already-indexed edit changes no file: the index is still the code, so
    freshness must catch up (current, indexed at the new HEAD, tree clean) promptly."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")

    def init(root: Path) -> None:
        _git(root, "init", "-q")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", "fixture")

    repo = open_repo("chain_py", init)
    edit(repo.root / "tax.py", "RATE = 0.2", "RATE = 0.25")
    wait_for(lambda: repo.recall(NO_MATCH).freshness.repositories[0].working_tree_dirty, TIMEOUT)
    repo.wait_current()

    _git(repo.root, "commit", "-qam", "raise the rate")
    head = _git(repo.root, "rev-parse", "HEAD")

    def caught_up() -> bool:
        rf = repo.recall(NO_MATCH).freshness.repositories[0]
        return rf.current and rf.indexed_commit == head and not rf.working_tree_dirty

    try:
        wait_for(caught_up, 15.0)
    except AssertionError:
        rf = repo.recall(NO_MATCH).freshness.repositories[0]
        raise AssertionError(f"freshness never caught up with the commit {head[:10]}: {rf}") from None


# ----------------------------------------------------------------------------- symbols


def test_symbol_queries(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("python")
    ref = "app/auth/service.py::AuthService.login"
    o = repo.observe("login compares hashes in constant time", ref)

    found = repo.client.find_symbols("login", repo=repo.id)
    assert ref in [s.ref for s in found]
    assert found[0].ref == ref  # the exact name ranks first

    d = repo.client.symbol(ref, repo=repo.id)
    assert d.symbol.ref == ref
    assert d.symbol.kind == "method"
    assert d.symbol.name == "login"
    assert "app/api/routes.py::create_user" in [s.ref for s in d.callers]
    callees = [s.ref for s in d.callees]
    assert "app/auth/crypto.py::hash_password" in callees
    assert "app/auth/crypto.py::make_token" in callees
    assert d.container is not None
    assert d.container.ref == "app/auth/service.py::AuthService"
    assert [x.id for x in d.observations] == [o.id]
    assert d.freshness is not None
    assert d.freshness.current



# ----------------------------------------------------------------------------- fused ranking


def _commit_edit(root: Path, path: str, old: str, new: str, message: str, *more: tuple[str, str, str]) -> None:
    for rel, a, b in ((path, old, new), *more):
        text = (root / rel).read_text(encoding="utf-8")
        assert text.count(a) == 1, (rel, a)
        (root / rel).write_text(text.replace(a, b), encoding="utf-8")
    _git(root, "commit", "-qam", message)


def _cochange_history(root: Path) -> None:
    """api.py::handle_request and legacy.py::purge_rows change together in 4 commits (nothing
    in the graph connects them); tax.py changes alone once."""
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "fixture")
    for i in range(4):
        _commit_edit(root, "api.py", f'get("items", [{"" if i == 0 else i - 1}])', f'get("items", [{i}])',
                     f"change {i}", ("legacy.py", f"if row{'' if i == 0 else f' != {i - 1}'}]",
                                     f"if row != {i}]"))
    _commit_edit(root, "tax.py", "RATE = 0.2", "RATE = 0.21", "rate")


def test_cochange_brings_in_what_changes_with_the_file(open_repo: Callable[..., Repo]) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = open_repo("chain_py", _cochange_history)
    purge = repo.observe("purging must run before every request is handled", "legacy.py::purge_rows")
    export = repo.observe("exports are comma separated", "legacy.py::export_rows")

    def mined() -> Recalled | None:
        return by_id(repo.recall(files=[repo.file("api.py")])).get(purge.id)

    hit = wait_for(mined, 30.0)
    assert isinstance(hit, Recalled)
    c = hit.components
    assert c.cochange > 0
    assert c.proximity == 0  # not reachable through the graph
    # every commit that touched api.py also touched purge_rows (the fixture commit added both)
    assert (c.cochange_together, c.cochange_total) == (5, 5)
    assert hit.why == "legacy.py::purge_rows changed together with api.py in 5 of the last 5 commits that touched it"
    assert hit.score == pytest.approx(c.relevance * c.confidence * c.recency * c.confirmation * c.status, abs=1e-5)
    ranked = by_id(repo.recall(files=[repo.file("api.py")]))
    assert ranked[purge.id].score > ranked[export.id].score  # export_rows changed with it only once
    assert ranked[purge.id].components.cochange > ranked[export.id].components.cochange
    # reach: the chance that the note's code outside the opened file changes with it; a note on
    # the opened file's own function has none (that is proximity's job)
    assert ranked[purge.id].components.reach == pytest.approx(ranked[purge.id].components.cochange, abs=1e-5)
    on_api = repo.observe("requests are handled in order", "api.py::handle_request")
    both = repo.observe("rows are purged and exported by the same job", "legacy.py::purge_rows",
                        "legacy.py::export_rows")
    again = by_id(repo.recall(files=[repo.file("api.py")]))
    assert again[on_api.id].components.reach == 0.0
    p, q = again[purge.id].components.cochange, again[export.id].components.cochange
    assert again[both.id].components.reach == pytest.approx(1 - (1 - p) * (1 - q), abs=1e-5)
    assert again[both.id].components.reach > p
    # hops=0: the anchors only, no co-change neighbours
    assert purge.id not in by_id(repo.recall(files=[repo.file("api.py")], hops=0))

    # HEAD moves: the two new commits are mined incrementally (api.py now touched 7 times)
    for old, new in (("", "  # ;"), ("  # ;", "  # ,")):
        sep_old, sep_new = ("," if not old else ";"), new[-1]
        _commit_edit(repo.root, "api.py", f"process_order(items){old}\n", f"process_order(items){new}\n",
                     f"export {sep_new}", ("legacy.py", f'"{sep_old}".join(str(v)', f'"{sep_new}".join(str(v)'))

    def evidence() -> tuple[int, int] | None:
        r = by_id(repo.recall(files=[repo.file("api.py")], include_stale=True)).get(purge.id)
        return (r.components.cochange_together, r.components.cochange_total) if r else None

    wait_for(lambda: evidence() == (5, 7), 30.0)


def _one_commit(root: Path) -> None:
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "fixture")


def test_cochange_is_a_reason_only_with_three_commits_of_history(open_repo: Callable[..., Repo]) -> None:
    """One commit added api.py and legacy.py together: co-change may weigh in, but "changed
    together ... in 1 of the last 1 commits" is no evidence to state as such: the reason says the
    history is too short to be sure (it said "anchored to legacy.py::purge_rows", which is no
    reason for a recall of api.py)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = open_repo("chain_py", _one_commit)
    purge = repo.observe("purging must run before every request is handled", "legacy.py::purge_rows")

    def mined() -> Recalled | None:
        hit = by_id(repo.recall(files=[repo.file("api.py")])).get(purge.id)
        return hit if hit is not None and hit.components.cochange_total == 1 else None

    hit = wait_for(mined, 30.0)
    assert isinstance(hit, Recalled)
    assert hit.components.cochange_together == 1
    assert hit.why == (
        "legacy.py::purge_rows changed together with api.py in the one commit that touched it "
        "(too little history to be sure)"
    )
    assert hit.path == ()


def test_hops_zero_means_the_anchors_only(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    on_a = repo.observe("handlers validate the payload shape", A)
    on_b = repo.observe("orders with no items are dropped", B)
    zero = by_id(repo.recall(files=[repo.file("api.py")], hops=0))
    assert set(zero) == {on_a.id}
    assert zero[on_a.id].distance == 0
    assert zero[on_a.id].components.proximity == 1.0
    default = by_id(repo.recall(files=[repo.file("api.py")]))  # the default is 2 hops
    assert {on_a.id, on_b.id} <= set(default)
    assert set(by_id(repo.recall(symbols=[B], hops=0))) == {on_b.id}


def test_cursor_line_focuses_a_file_query(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    export = repo.observe("exports quote nothing", "legacy.py::export_rows")
    purge = repo.observe("purging keeps falsy rows out", "legacy.py::purge_rows")
    legacy = repo.file("legacy.py")
    at_purge = repo.recall(files=[legacy], line=9).results
    assert [r.observation.id for r in at_purge] == [purge.id, export.id]
    assert at_purge[0].components.focus == 1.0
    assert 0 < at_purge[1].components.focus < 1.0
    at_export = repo.recall(files=[legacy], line=5).results
    assert [r.observation.id for r in at_export] == [export.id, purge.id]
    # a symbol given next to the file focuses the same way
    by_symbol = repo.recall(files=[legacy], symbols=["legacy.py::purge_rows"]).results
    assert by_symbol[0].observation.id == purge.id
    with pytest.raises(Exception, match="line"):
        repo.recall(symbols=[B], line=3)


def test_order_is_deterministic_and_ties_break_on_components_not_ids(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    first = repo.observe("prices are integers in cents", C)
    second = repo.observe("prices never go negative", C)
    near = repo.observe("orders are checked first", B)
    results = [repo.recall(files=[repo.file("service.py")]).results for _ in range(3)]
    orders = [[r.observation.id for r in res] for res in results]
    assert orders[0] == orders[1] == orders[2]
    assert orders[0][0] == near.id  # a seed's note beats one a CALLS hop away
    f, s = by_id(repo.recall(files=[repo.file("service.py")]))[first.id], by_id(
        repo.recall(files=[repo.file("service.py")]))[second.id]
    assert f.components == s.components  # same anchor, same signals ...
    assert orders[0].index(second.id) < orders[0].index(first.id)  # ... so the newer note first
    for res in results:
        for r in res:
            assert r.components.relevance > 0
            assert r.score > 0


def test_text_component_and_file_plus_text(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("chain_py")
    tax_note = repo.observe("rounding happens once after the rate", D)
    other = repo.observe("orders are validated before pricing", B)
    both = repo.recall("rounding rate", files=[repo.file("service.py")], hops=3).results
    assert both[0].observation.id == tax_note.id
    assert both[0].components.text > 0
    assert by_id(repo.recall("rounding rate", files=[repo.file("service.py")], hops=3))[other.id].components.text == 0


def test_file_context_reorders_only_near_ties_of_the_text(open_repo: Callable[..., Repo]) -> None:
    """With files and text, the text is the primary key: the note on the opened file's own
    function (the best file part) does not pass a note far ahead on the text, but it does pass
    a note with the same words and nothing to do with the file."""
    repo = open_repo("chain_py")
    on_tax = repo.observe("rounding of the tax rate happens once", D)
    on_api = repo.observe("rounding is left to later stages", A)
    elsewhere = repo.observe("rounding is left to later stages", "legacy.py::export_rows")
    res = repo.recall("rounding tax rate", files=[repo.file("api.py")], limit=50).results
    ids = [r.observation.id for r in res]
    assert ids[0] == on_tax.id
    got = {r.observation.id: r.components for r in res}
    assert got[on_api.id].file_part > got[on_tax.id].file_part  # the file context favours it...
    assert ids.index(on_api.id) < ids.index(elsewhere.id)  # ...and decides between equal texts
    best_text = max(c.text_part for c in got.values())
    for i, hi in enumerate(res):  # every pair: no text lead wider than the band is overturned
        for lo in res[i + 1 :]:
            lead = (lo.components.text_part - hi.components.text_part) / best_text
            assert lead <= ranking.near_tie() + 1e-6, (hi.observation.text, lo.observation.text)


def test_breadth_counts_the_notes_code_outside_the_opened_code(open_repo: Callable[..., Repo]) -> None:
    """A note on several functions of the opened file gets no breadth for them (they are all
    seeds); a note reaching code elsewhere does."""
    repo = open_repo("chain_py")
    both = repo.observe("export and purge share the row format", "legacy.py::export_rows", "legacy.py::purge_rows")
    reaching = repo.observe("handlers hand the items to order processing", A, B)
    legacy = by_id(repo.recall(files=[repo.file("legacy.py")]))[both.id].components
    assert legacy.proximity == 1.0
    assert legacy.breadth == 0.0
    assert by_id(repo.recall(symbols=["legacy.py::purge_rows"]))[both.id].components.breadth == 0.0  # same file
    api = by_id(repo.recall(files=[repo.file("api.py")]))[reaching.id].components
    assert api.proximity == 1.0
    assert api.breadth > 0  # process_order, one call away in another file


def test_short_references_resolve_or_name_close_matches(open_repo: Callable[..., Repo]) -> None:
    repo = open_repo("python")
    r = repo.client.resolve_symbol("hash_password", repo=repo.id)
    assert r.exact
    assert r.matches[0].ref == "app/auth/crypto.py::hash_password"
    r = repo.client.resolve_symbol("AuthService.login", repo=repo.id)
    assert r.exact
    assert r.matches[0].ref == "app/auth/service.py::AuthService.login"
    r = repo.client.resolve_symbol("crypto.py::hash_password", repo=repo.id)
    assert r.exact
    assert r.matches[0].ref == "app/auth/crypto.py::hash_password"
    fuzzy = repo.client.resolve_symbol("hash_pasword", repo=repo.id)
    assert not fuzzy.exact
    assert fuzzy.matches[0].ref == "app/auth/crypto.py::hash_password"
    o = repo.observe("hashes use a per-user salt", "app/auth/crypto.py::hash_password")
    assert o.id in by_id(repo.recall(symbols=["hash_password"], hops=0))  # an exact short ref just works
    with pytest.raises(InvalidArgument, match=re.escape("close matches: app/auth/crypto.py::hash_password")):
        repo.recall(symbols=["hash_pasword"])
    with pytest.raises(InvalidArgument):
        repo.client.resolve_symbol("  ", repo=repo.id)


def test_cli_recall_json_shows_score_components(open_repo: Callable[..., Repo], daemon: Daemon) -> None:
    repo = open_repo("chain_py")
    o = repo.observe("handlers validate the payload shape", A)
    out = subprocess.run([sys.executable, "-m", "graphmem", "recall", "--file", repo.file("api.py"), "--repo", repo.id,
                          "--hops", "0", "--json"], env=daemon.env, capture_output=True, text=True, timeout=30,
                         check=True)
    data = json.loads(out.stdout)
    assert [r["observation"]["id"] for r in data["results"]] == [o.id]
    comps = data["results"][0]["components"]
    assert comps["proximity"] == 1.0
    assert set(comps) >= {"cochange", "text", "pagerank", "centrality", "focus", "recency", "status", "relevance"}
    res = subprocess.run([sys.executable, "-m", "graphmem", "resolve", "apply_tax", "--repo", repo.id],
                         env=daemon.env, capture_output=True, text=True, timeout=30, check=True)
    assert "tax.py::apply_tax" in res.stdout


def test_cli_recall_explain_prints_the_components_table(open_repo: Callable[..., Repo], daemon: Daemon) -> None:
    repo = open_repo("chain_py")
    near = repo.observe("handlers validate the payload shape", A)
    far = repo.observe("orders with no items are dropped", B)
    out = subprocess.run([sys.executable, "-m", "graphmem", "recall", "payload", "--file", repo.file("api.py"),
                          "--repo", repo.id, "--explain"], env=daemon.env, capture_output=True, text=True, timeout=30,
                         check=True).stdout
    lines = out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("#") and "score" in ln)
    assert all(h in lines[head] for h in ("relev.", "file", "prox", "co-ch", "brdth", "reach", "text", "bm25"))
    rows = [ln.split() for ln in lines[head + 1 : head + 3]]
    assert [r[0] for r in rows] == ["1", "2"]
    result = repo.recall("payload", files=[repo.file("api.py")])
    assert [r.observation.id for r in result.results[:2]] == [near.id, far.id]
    for row, r in zip(rows, result.results, strict=True):
        c = r.components
        assert float(row[1]) == pytest.approx(r.score, abs=1e-3)
        assert float(row[2]) == pytest.approx(c.relevance, abs=1e-3)
        assert float(row[5]) == pytest.approx(c.file_part, abs=1e-3)
        assert float(row[6]) == pytest.approx(c.proximity, abs=1e-2)
    assert rows[0][6] == "1.00"  # the seed's note, then one CALLS hop away
    assert float(rows[1][6]) < 1.0


def test_notes_on_the_symbols_asked_about_come_first(open_repo: Callable[..., Repo], daemon: Daemon) -> None:
    """A recall that names a symbol (or puts its cursor in one) lists the notes anchored to it
    before every note reached from it, whatever the scores: a neighbours' note with more
    evidence around it (breadth) and a higher confidence scores higher, and comes second."""
    repo = open_repo("chain_py")
    on_c = repo.observe("compute_total must stay a pure function", C, confidence=0.1)
    around = repo.observe("the chain rounds once, at the end", B, D)

    def both(**kw: Any) -> dict[str, Recalled] | None:
        found = by_id(repo.recall(**kw))
        return found if {on_c.id, around.id} <= set(found) else None

    for kw in ({"symbols": [C]}, {"files": ["pricing.py"], "line": 7}):
        found = wait_for(lambda kw=kw: both(**kw), TIMEOUT)
        assert found is not None
        first, second = list(found.values())[:2]
        assert first.observation.id == on_c.id, kw
        assert first.components.on_query, kw
        assert second.observation.id == around.id, kw
        assert not second.components.on_query, kw
        if "symbols" in kw:  # (the cursor's focus lifts the note under it anyway)
            assert second.score > first.score, kw  # the order is not the score's
    explained = subprocess.run([sys.executable, "-m", "graphmem", "recall", "--symbol", C, "--repo", repo.id,
                                "--explain"], env=daemon.env, capture_output=True, text=True, timeout=30,
                               check=True).stdout.splitlines()
    rows = [ln.split() for ln in explained if re.match(r"\s*\*?\d+\s+\d", ln)]
    assert [r[0] for r in rows[:2]] == ["*1", "2"]  # marked: first for being asked about
    assert any(ln.startswith("* anchored to a symbol the recall named") for ln in explained)
    # a file query names no symbol: the scores alone order it
    plain = wait_for(lambda: both(files=["pricing.py"]), TIMEOUT)
    assert plain is not None
    assert not any(r.components.on_query for r in plain.values())
    assert [r.score for r in plain.values()] == sorted((r.score for r in plain.values()), reverse=True)
