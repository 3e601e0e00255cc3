"""Restarts and branch switches without re-parsing: the daemon puts each repository's graph
back from the snapshot its last clean stop wrote, or rebuilds it from every file's cached
parse and the stored edges, and parses only what changed on disk; a checkout parses each
changed file once; a large batch leaves text search complete. Counted with ``files_parsed``
(files parsed since the daemon started) through the real daemon. The tests of a restart run
both ways (``via``): with the snapshot, and with it removed."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import STORE_ENGINE, Daemon, copy_fixture, store_file, wait_for
from graphmem.client import GraphMem
from graphmem.paths import resolve_paths
from graphmem.types import ObservationStatus

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 60.0


VIA = pytest.mark.parametrize("via", ["snapshot", "parses"])


def restart_via(via: str, home: Path) -> None:
    """Before a restart: keep the snapshot the clean stop wrote, or remove it (the restart then
    rebuilds the graph from the cached parses)."""
    (snap,) = resolve_paths(str(home), {}).snapshots.glob("*.snap")
    if via == "parses":
        snap.unlink()


def log_of(home: Path) -> str:
    return resolve_paths(str(home), {}).log.read_text(encoding="utf-8")


def this_run(home: Path) -> str:
    """The log of the running daemon (from its last "listening" line)."""
    text = log_of(home)
    return text[text.rindex(" listening on ") :]


def parsed(c: GraphMem) -> int:
    (repo,) = c.status().repositories
    return repo.files_parsed


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "--no-optional-locks", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


@VIA
def test_restart_with_nothing_changed_parses_nothing(daemon_factory: DaemonFactory, py_repo: Path, via: str) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        files, edges = c.status().repositories[0].files, c.status().repositories[0].edges
        assert edges > 0
        assert parsed(c) == files  # the first index parses every file
        o = c.observe("constant-time compare", anchors=["app/auth/crypto.py::hash_password"])
    assert d.stop() == 0
    restart_via(via, d.home)

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        (repo,) = c.status().repositories
        assert (repo.files, repo.edges) == (files, edges)  # (the edges as counted before the stop)
        assert repo.files_parsed == 0
        assert c.get(o.id).status is ObservationStatus.FRESH
        assert [s.name for s in c.find_symbols("hash_password")] == ["hash_password"]
        assert [r.observation.id for r in c.recall(files=["app/api/routes.py"]).results] == [o.id]
        assert c.recall(files=["app/api/routes.py"]).freshness.current
        # the index pass that makes the restart current never waits for the hand-over of the
        # parses to the resolver (the indexer's idle work): it comes first
        wait_for(lambda: "cached parses handed to the resolver" in this_run(d.home), TIMEOUT)
        lines = this_run(d.home).splitlines()
        indexed = next(i for i, x in enumerate(lines) if "graphmemd.indexing.indexer: indexed " in x)
        handed = next(i for i, x in enumerate(lines) if "cached parses handed to the resolver" in x)
        assert indexed < handed
    assert d2.stop() == 0

    crypto = py_repo / "app/auth/crypto.py"
    crypto.write_text(crypto.read_text().replace("def hash_password(", "def hash_password_v2("))
    restart_via(via, d.home)
    d3 = daemon_factory([py_repo], home=d.home)
    with d3.client() as c:
        assert parsed(c) == 1  # only the file that changed while the daemon was down
        assert c.get(o.id).status is ObservationStatus.STALE
        # its callers' calls no longer resolve: the pass that applied the change counted again
        assert c.status().repositories[0].edges < edges


def test_a_restart_is_current_without_its_parse_workers_and_they_parse_the_next_edit(
    daemon_factory: DaemonFactory, py_repo: Path
) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        o = c.observe("constant-time compare", anchors=["app/auth/crypto.py::hash_password"])
    assert d.stop() == 0
    # the workers start in the background as the daemon opens; here that start fails, so
    # workers run only if something asks for them: the restart with nothing changed does not
    env = {"GRAPHMEM_INJECT_FAULTS": "parse-start:1", "GRAPHMEM_LOG_LEVEL": "DEBUG"}
    d2 = daemon_factory([py_repo], home=d.home, env=env)
    with d2.client() as c:
        assert c.recall(files=["app/api/routes.py"]).freshness.current
        assert (parsed(c), c.get(o.id).status) == (0, ObservationStatus.FRESH)
        wait_for(lambda: "cached parses handed to the resolver" in this_run(d.home), TIMEOUT)
        assert "the parse workers did not start: InjectedFault" in this_run(d.home)
        assert "parse pool started" not in this_run(d.home)
        crypto = py_repo / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("def hash_password(", "def hash_password_v2("))
        wait_for(lambda: c.get(o.id).status is ObservationStatus.STALE, TIMEOUT)
        assert parsed(c) == 1
        assert "parse pool started" in this_run(d.home)  # (started when the edit needed it)


@VIA
def test_repository_facts_after_a_restart_resolve_as_before(daemon_factory: DaemonFactory, via: str) -> None:
    """The facts (here go.mod's module path, which Go imports resolve through) come back with
    the snapshot (no walk of the tree beside the restore), or without one are read before
    anything resolves: the hand-over's resolution still gives the stored edges, and a change
    after the restart resolves through them."""
    repo = copy_fixture("go")
    d = daemon_factory([repo])
    with d.client() as c:
        before = _callee_names(c, "main.go::main")
        assert "NewService" in before  # (through the module path: example.com/shop/auth)
    assert d.stop() == 0
    restart_via(via, d.home)
    d2 = daemon_factory([repo], home=d.home)
    with d2.client() as c:
        wait_for(lambda: "cached parses handed to the resolver" in this_run(d.home), TIMEOUT)
        assert "edges as stored" in this_run(d.home)
        assert _callee_names(c, "main.go::main") == before
        main = repo / "main.go"
        again = "\tfmt.Println(token)\n\tauth.NewService()\n"
        main.write_text(main.read_text().replace("\tfmt.Println(token)\n", again))
        wait_for(lambda: parsed(c) == 1, TIMEOUT)
        d2.wait_idle()
        assert _callee_names(c, "main.go::main") == before


@VIA
def test_repository_facts_changed_while_the_daemon_was_down_are_taken(daemon_factory: DaemonFactory, via: str) -> None:
    """go.mod's module path changed while the daemon was down: the snapshot's facts are those
    the stored edges were resolved with; the pass after the restart reads the new ones and
    resolves every file again, as for a change of facts while it runs."""
    repo = copy_fixture("go")
    d = daemon_factory([repo])
    with d.client() as c:
        before = _callee_names(c, "main.go::main")
        assert "NewService" in before
    assert d.stop() == 0
    gomod = repo / "go.mod"
    gomod.write_text(gomod.read_text().replace("module example.com/shop", "module example.com/elsewhere"))
    restart_via(via, d.home)
    d2 = daemon_factory([repo], home=d.home)
    with d2.client() as c:
        assert c.recall(files=["main.go"]).freshness.current
        d2.wait_idle()
        # (example.com/shop/auth is no longer this module's package: its calls do not resolve)
        assert "NewService" not in _callee_names(c, "main.go::main")
        assert parsed(c) == 0
    assert d2.stop() == 0
    gomod.write_text(gomod.read_text().replace("module example.com/elsewhere", "module example.com/shop"))
    d3 = daemon_factory([repo], home=d.home)
    with d3.client() as c:
        assert c.recall(files=["main.go"]).freshness.current
        d3.wait_idle()
        assert _callee_names(c, "main.go::main") == before


def test_checkout_parses_each_changed_file_once(daemon_factory: DaemonFactory) -> None:
    repo = copy_fixture("python")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "feature")
    changed = sorted(p for p in (repo / "app").rglob("*.py") if p.stat().st_size > 0)[:6]
    for i, p in enumerate(changed):
        p.write_text(p.read_text() + f"\n\ndef added_on_feature_{i}():\n    return {i}\n")
    git(repo, "commit", "-qam", "feature")
    git(repo, "checkout", "-q", "main")

    d = daemon_factory([repo])
    with d.client() as c:
        before = parsed(c)
        git(repo, "checkout", "-q", "feature")
        wait_for(lambda: c.recall("zzzz-none").freshness.current and c.find_symbols("added_on_feature_5"), TIMEOUT)
        d.wait_idle()
        assert parsed(c) - before == len(changed)


def word(i: int) -> str:
    """A made-up word per number (``zbcd``): the text index splits names into words."""
    out = ""
    while True:
        i, r = divmod(i, 26)
        out = chr(ord("a") + r) + out
        if i == 0:
            return "z" + out


def test_large_batch_leaves_text_search_complete(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    big = py_repo / "app" / "generated.py"
    big.write_text("".join(f"def generated_{word(i)}_helper():\n    return {i}\n\n\n" for i in range(5000)))
    target = f"generated_{word(4321)}_helper"
    with d.client() as c:
        wait_for(lambda: c.find_symbols(target), TIMEOUT)
        o = c.observe("generated code is regenerated nightly", anchors=[f"app/generated.py::{target}"])
        # the word is only part of a name: found through the symbol text index, not by name
        wait_for(lambda: o.id in [r.observation.id for r in c.recall(word(4321)).results], TIMEOUT)


def test_parser_upgrade_reanchors_instead_of_marking_stale(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    """A store written by another parser (older fingerprints, another parse-cache version):
    the first start re-parses every file and observations whose anchors matched the old
    fingerprints follow to the new ones, fresh; nothing turns stale."""
    from dataclasses import replace

    from graphmemd.ingest.parse_pack import ParsePack
    from graphmemd.memory.journal import Journal
    from graphmemd.memory.observations import to_doc
    from graphmemd.store.engine import Store

    d = daemon_factory([py_repo])
    with d.client() as c:
        o = c.observe("constant time", anchors=["app/auth/crypto.py::hash_password"])
        files = c.status().repositories[0].files
        listed = c.list_repos()
    assert d.stop() == 0

    paths = resolve_paths(str(d.home), {})
    pack = ParsePack(paths.parse_cache)
    (rid,) = [r.id for r in listed]
    old = pack.load(rid)
    assert len(old) == files
    pack.drop(rid)  # what an older parser would have left: other fingerprints, another cache version
    pack.put_rows(rid, [replace(r, version="an-older-parser") for r in old])
    store = Store(store_file(d.home), engine=STORE_ENGINE)
    try:
        store._run(
            "MATCH (s:Symbol) WHERE s.name = 'hash_password' SET s.sig_hash = 'old-sig', s.body_hash = 'old-body'"
        )
    finally:
        store.close()
    for snap in paths.snapshots.glob("*.snap"):  # an older parser's snapshot is not read either
        snap.unlink()
    old_anchor = replace(o.anchors[0], sig_hash="old-sig", body_hash="old-body")
    with Journal(paths.journal) as j:
        j.append({"op": "put", "obs": to_doc(replace(o, anchors=(old_anchor,)))})

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        assert parsed(c) == files
        now = c.get(o.id)
        assert now.status is ObservationStatus.FRESH, now.stale_reasons
        symbol = c.symbol("app/auth/crypto.py::hash_password").symbol
        assert now.anchors[0].sig_hash not in ("old-sig", "")
        assert now.anchors[0].signature == symbol.signature


def _callee_names(c: GraphMem, ref: str) -> list[str]:
    return sorted(s.name for s in c.symbol(ref).callees)


@VIA
def test_after_a_warm_restart_a_change_re_resolves_its_dependents(
    daemon_factory: DaemonFactory, py_repo: Path, via: str
) -> None:
    """A restart answers before it resolves (the edges come from the store, the resolver gets
    the cached parses when the indexer is idle); the first change after it must still find
    the files that depend on it."""
    register = "app/auth/service.py::AuthService.register"
    d = daemon_factory([py_repo])
    with d.client() as c:
        assert "hash_password" in _callee_names(c, register)
    assert d.stop() == 0
    restart_via(via, d.home)

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        assert parsed(c) == 0
        assert "hash_password" in _callee_names(c, register)  # as stored
        crypto = py_repo / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("def hash_password(", "def hash_pw("))
        wait_for(lambda: c.find_symbols("hash_pw"), TIMEOUT)
        # service.py did not change: only re-resolving it as a dependent drops the edge
        wait_for(lambda: "hash_password" not in _callee_names(c, register), TIMEOUT)
        assert parsed(c) == 1


@VIA
def test_a_warm_restart_corrects_edges_the_store_has_wrong(
    daemon_factory: DaemonFactory, py_repo: Path, via: str
) -> None:
    """What a resolver upgrade looks like: the stored edges differ from what the resolver
    finds now. The restart answers with the stored ones (or the snapshot's), then replaces
    them once idle, in the graph and in the store."""
    from graphmemd.store.engine import Store

    register = "app/auth/service.py::AuthService.register"
    d = daemon_factory([py_repo])
    with d.client() as c:
        assert "hash_password" in _callee_names(c, register)
    assert d.stop() == 0
    store = Store(store_file(d.home), engine=STORE_ENGINE)
    try:
        store._run("MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE b.name = 'hash_password' DELETE e")
    finally:
        store.close()
    restart_via(via, d.home)

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        wait_for(lambda: "hash_password" in _callee_names(c, register), TIMEOUT)
        assert parsed(c) == 0
        d2.wait_idle()
    assert d2.stop() == 0
    store = Store(store_file(d.home), engine=STORE_ENGINE)  # and the store has them again
    try:
        rows = store._run("MATCH (a:Symbol)-[e:CALLS]->(b:Symbol) WHERE b.name = 'hash_password' RETURN a.qualname")
    finally:
        store.close()
    assert "AuthService.register" in {r[0] for r in rows}


@VIA
def test_a_damaged_parse_cache_costs_a_parse_not_an_answer(
    daemon_factory: DaemonFactory, py_repo: Path, via: str
) -> None:
    """The parse cache is a cache: a pack cut short (a crash or a full disk mid-append) or
    overwritten with garbage makes the restart parse those files again; the graph, the
    observations and the freshness come back complete either way."""

    d = daemon_factory([py_repo])
    with d.client() as c:
        files = c.status().repositories[0].files
        o = c.observe("constant-time compare", anchors=["app/auth/crypto.py::hash_password"])
        symbols = {s.id for s in c.find_symbols("hash_password")}
    assert d.stop() == 0
    (pack,) = resolve_paths(str(d.home), {}).parse_cache.glob("*.pack")
    size = pack.stat().st_size
    with pack.open("r+b") as f:
        f.truncate(size * 2 // 3)  # the last third of the records is gone, one of them torn
    restart_via(via, d.home)

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        (repo,) = c.status().repositories
        assert 0 < repo.files_parsed < files  # those files only
        assert repo.files == files
        assert {s.id for s in c.find_symbols("hash_password")} == symbols
        assert c.get(o.id).status is ObservationStatus.FRESH
        assert c.recall(files=["app/api/routes.py"]).freshness.current
    assert d2.stop() == 0
    assert pack.stat().st_size > size * 2 // 3  # the cache is whole again

    pack.write_bytes(b"\x00garbage" * 100)
    restart_via(via, d.home)
    d3 = daemon_factory([py_repo], home=d.home)
    with d3.client() as c:
        assert parsed(c) == files
        assert {s.id for s in c.find_symbols("hash_password")} == symbols
        assert c.get(o.id).status is ObservationStatus.FRESH
    assert d3.stop() == 0


def test_a_record_damaged_inside_its_text_is_found_at_the_hand_over_and_parsed_again(
    daemon_factory: DaemonFactory, py_repo: Path
) -> None:
    """With a snapshot, the restart reads only the cached parses' heads before it answers; a
    record whose text no longer matches its checksum (its framing intact) is found when the
    resolver gets it: that file is parsed again, and the dependents' resolution is whole."""
    from graphmemd.ingest.parse_pack import ParsePack, records

    register = "app/auth/service.py::AuthService.register"
    d = daemon_factory([py_repo])
    with d.client() as c:
        o = c.observe("constant-time compare", anchors=["app/auth/crypto.py::hash_password"])
        assert "hash_password" in _callee_names(c, register)
        (rid,) = [r.id for r in c.list_repos()]
    assert d.stop() == 0
    (pack,) = resolve_paths(str(d.home), {}).parse_cache.glob("*.pack")
    buf = bytearray(pack.read_bytes())
    (rec,) = [r for r in records(bytes(buf)) if r.path == "app/auth/crypto.py"]
    buf[rec.end - 2] ^= 0x01  # inside the parse text, near its end
    pack.write_bytes(bytes(buf))
    restart_via("snapshot", d.home)

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        assert "hash_password" in _callee_names(c, register)  # answered from the snapshot
        wait_for(lambda: parsed(c) == 1, TIMEOUT)  # found at the hand-over, parsed again
        assert "parsing it again" in this_run(d2.home)
        assert c.get(o.id).status is ObservationStatus.FRESH
        crypto = py_repo / "app/auth/crypto.py"  # the resolver holds that file again
        crypto.write_text(crypto.read_text().replace("def hash_password(", "def hash_pw("))
        wait_for(lambda: "hash_password" not in _callee_names(c, register), TIMEOUT)
    assert d2.stop() == 0
    cache = ParsePack(pack.parent)  # a sound parse of that file is cached again
    (head,) = [h for h in cache.heads(rid) if h.path == "app/auth/crypto.py"]
    assert cache.text(rid, head)


def test_a_clean_stop_leaves_a_snapshot_that_only_the_next_start_reads(
    daemon_factory: DaemonFactory, py_repo: Path
) -> None:
    """Written at a clean stop, read (and removed) by the next start; a daemon that is killed
    leaves none, and its successor rebuilds the graph from the cached parses."""
    d = daemon_factory([py_repo])
    snapshots = resolve_paths(str(d.home), {}).snapshots
    with d.client() as c:
        symbols = {s.id for s in c.find_symbols("hash_password")}
    assert not list(snapshots.glob("*.snap"))
    assert d.stop() == 0
    assert len(list(snapshots.glob("*.snap"))) == 1

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        wait_for(lambda: "put back from its snapshot" in log_of(d.home), TIMEOUT)
        assert not list(snapshots.glob("*.snap"))  # taken
        assert {s.id for s in c.find_symbols("hash_password")} == symbols
        assert parsed(c) == 0
    d2.kill9()
    assert not list(snapshots.glob("*.snap"))

    d3 = daemon_factory([py_repo], home=d.home)
    with d3.client() as c:
        wait_for(lambda: "rebuilt from its cached parses" in log_of(d.home), TIMEOUT)
        assert {s.id for s in c.find_symbols("hash_password")} == symbols
        assert c.recall(files=["app/api/routes.py"]).freshness.current
        assert parsed(c) == 0
    assert d3.stop() == 0
    assert log_of(d.home).count("put back from its snapshot") == 1


def test_a_snapshot_the_store_moved_past_is_not_used(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    """Snapshots are removed unless the store was closed cleanly since (its marker), and one
    whose files differ from the store's is not used: the graph is rebuilt and answers as the
    store does."""
    d = daemon_factory([py_repo])
    assert d.stop() == 0
    paths = resolve_paths(str(d.home), {})
    (snap,) = paths.snapshots.glob("*.snap")
    old = snap.read_bytes()

    d2 = daemon_factory([py_repo], home=d.home)
    crypto = py_repo / "app/auth/crypto.py"
    with d2.client() as c:
        crypto.write_text(crypto.read_text().replace("def hash_password(", "def hash_pw("))
        wait_for(lambda: c.find_symbols("hash_pw"), TIMEOUT)
        d2.wait_idle()
    assert d2.stop() == 0
    snap.write_bytes(old)  # the snapshot from before the change, with a valid clean marker

    d3 = daemon_factory([py_repo], home=d.home)
    with d3.client() as c:
        wait_for(lambda: "rebuilt from its cached parses" in log_of(d.home), TIMEOUT)
        assert "it differs from the store" in log_of(d.home)
        assert c.find_symbols("hash_pw")
        assert not c.find_symbols("hash_password")
        assert parsed(c) == 0
    assert d3.stop() == 0

    snap.write_bytes(old)  # and the same, without the clean-close marker: not even read
    Path(str(store_file(d.home)) + ".clean").unlink()
    before = log_of(d.home).count("it differs from the store")
    d4 = daemon_factory([py_repo], home=d.home)
    with d4.client() as c:
        assert c.find_symbols("hash_pw")
        assert not c.find_symbols("hash_password")
        assert not list(paths.snapshots.glob("*.snap"))
    assert d4.stop() == 0
    assert log_of(d.home).count("it differs from the store") == before


def test_several_repositories_come_back_from_their_snapshots(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    """One snapshot per repository, each put back beside the others: names, text search
    (per repository and across them) and edges answer as before the stop."""
    go_repo = copy_fixture("go")
    d = daemon_factory([py_repo, go_repo])

    def answers(c: GraphMem) -> tuple[object, ...]:
        py, go = (str(py_repo), str(go_repo))
        register = "app/auth/service.py::AuthService.register"
        return (
            sorted(s.id for s in c.find_symbols("CreateUser")),
            sorted(s.id for s in c.find_symbols("hash_password")),
            [[r.observation.id for r in c.recall("create user", repo=rid).results] for rid in (py, go)],
            sorted(s.name for s in c.symbol(register, repo=py).callees),
            sorted(s.name for s in c.symbol("main.go::Server.CreateUser", repo=go).callees),
            sorted((r.id, r.files, r.symbols, r.edges) for r in c.list_repos()),
        )

    with d.client() as c:
        d.wait_idle()
        c.observe("user creation validates the email", anchors=["main.go::Server.CreateUser"], repo=str(go_repo))
        c.observe("register hashes first", anchors=["app/auth/service.py::AuthService.register"], repo=str(py_repo))
        before = answers(c)
        assert all(before[:2]), before  # each repository's symbol is found
        assert all(before[2]), before  # each repository's observation is recalled
        assert before[3], before  # and their edges are there
        assert before[4], before
    assert d.stop() == 0
    assert len(list(resolve_paths(str(d.home), {}).snapshots.glob("*.snap"))) == 2

    d2 = daemon_factory([py_repo, go_repo], home=d.home)
    with d2.client() as c:
        d2.wait_idle()
        assert this_run(d.home).count("put back from its snapshot") == 2
        assert answers(c) == before
        assert sum(r.files_parsed for r in c.status().repositories) == 0
    assert d2.stop() == 0


def test_a_cached_parse_ahead_of_the_store_is_parsed_again_and_still_marks_stale(
    daemon_factory: DaemonFactory, py_repo: Path
) -> None:
    """Cached parses are written while a batch is parsed, before its store write: a crash in
    between leaves the cache ahead of the store. The next start must parse that file again
    and diff it against the store like any change (its observation turns stale), not take
    the mismatch for another parser's and re-anchor (``rebase``)."""
    import os

    from graphmemd.graph.model import FileRecord, Language
    from graphmemd.ingest.parse_pack import ParsePack
    from graphmemd.ingest.parse_pool import content_hash
    from graphmemd.ingest.parsing.parser import parse_source

    d = daemon_factory([py_repo])
    with d.client() as c:
        o = c.observe("keep it constant time", anchors=["app/auth/crypto.py::hash_password"])
        (rid,) = [r.id for r in c.list_repos()]
    assert d.stop() == 0

    # the body of hash_password changes on disk, and its parse reaches the cache, not the store
    rel = "app/auth/crypto.py"
    path = py_repo / rel
    data = path.read_bytes().replace(b"return digest(password, salt=SALT)", b"return digest(password[::-1], salt=SALT)")
    path.write_bytes(data)
    paths = resolve_paths(str(d.home), {})
    st = os.stat(path)
    rec = FileRecord(rid, rel, Language.PYTHON, content_hash(data), len(data), 0.0, 0, st.st_mtime_ns)
    ParsePack(paths.parse_cache).put(rid, [(rec, parse_source(rel, data))])
    for snap in paths.snapshots.glob("*.snap"):  # a crash leaves no snapshot
        snap.unlink()

    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        wait_for(lambda: c.get(o.id).status is ObservationStatus.STALE, TIMEOUT)
        assert c.get(o.id).stale_reasons
        assert parsed(c) == 1  # only the file whose cached parse is not the store's
