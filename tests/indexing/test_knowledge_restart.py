"""A restart reads only the knowledge files that changed while the daemon was stopped, and
arrives at the state a fresh read of every file gives (``ingest.knowledge.kept``): a real
daemon stopped and started again on the ``knowledge`` fixture under git, with a worktree.

The count of files read is the daemon's own log line ("N knowledge files read"), from the
restart on; the state compared is every knowledge unit as a client lists it (text, lines,
references, status, reasons), against a daemon started in a new home on the same checkouts."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, short_tmp
from gitrepo import committed_fixture, git, replace_in
from graphmem.client import GraphMem

DaemonFactory = Callable[..., Daemon]
_READ = re.compile(r": (\d+) knowledge files read, (\d+) gone")


def _log(d: Daemon) -> Path:
    return d.home / "state" / "graphmemd.log"


def _read_since(d: Daemon, offset: int) -> int:
    """Knowledge files the daemon read (or found gone) since ``offset`` bytes of its log."""
    text = _log(d).read_bytes()[offset:].decode("utf-8", "replace")
    return sum(int(m.group(1)) + int(m.group(2)) for m in _READ.finditer(text))


def _units(c: GraphMem) -> list[tuple[object, ...]]:
    """Every knowledge unit of every checkout, as a reader sees it (ids and times aside)."""
    out: list[tuple[object, ...]] = []
    for o in c.list(limit=0):
        k = o.knowledge
        if k is None:
            continue
        refs = sorted((r.text, r.target_ref) for r in o.references)
        reasons = sorted((r.change.value, r.anchor_ref, r.commit, r.detail) for r in o.stale_reasons)
        out.append((o.repo_id, k.path, k.start_line, k.end_line, o.text, o.status.value, refs, reasons))
    return sorted(out, key=repr)


def _restart(d: Daemon, daemon_factory: DaemonFactory, repos: list[Path]) -> tuple[Daemon, int]:
    assert d.stop() == 0
    offset = _log(d).stat().st_size
    return daemon_factory(repos, home=d.home), offset


def _fresh(daemon_factory: DaemonFactory, repos: list[Path]) -> list[tuple[object, ...]]:
    """The units a daemon in a new home reads from the same checkouts (stopped after)."""
    fresh = daemon_factory(repos)
    try:
        with fresh.client() as c:
            return _units(c)
    finally:
        fresh.stop()


def test_a_restart_reads_only_the_knowledge_files_that_changed(daemon_factory: DaemonFactory) -> None:
    root = committed_fixture("knowledge")
    d = daemon_factory([root])
    journal = d.home / "data" / "observations.jsonl"
    with d.client() as c:
        first = _units(c)
    assert first
    assert _read_since(d, 0) >= 5  # every file read on the first index

    # nothing changed while stopped: no file read, nothing journaled, the same units
    d.stop()
    written = journal.read_bytes()
    d, offset = _restart(d, daemon_factory, [root])
    with d.client() as c:
        assert _units(c) == first
    assert _read_since(d, offset) == 0
    assert journal.read_bytes() == written
    assert "knowledge files as left" in _log(d).read_text()

    # a doc edited while stopped: only that file is read, and the units are a fresh read's
    d.stop()
    replace_in(root / "AGENTS.md", "must stay pure", "must stay pure, says `hash_password`'s author")
    d, offset = _restart(d, daemon_factory, [root])
    with d.client() as c:
        edited = _units(c)
    assert _read_since(d, offset) == 1
    assert any("hash_password" in u[4] for u in edited if u[1] == "AGENTS.md")  # type: ignore[operator]
    assert edited == _fresh(daemon_factory, [root])

    # a file written again with the same bytes (a checkout does that): not read
    d.stop()
    data = (root / "docs" / "architecture.md").read_bytes()
    (root / "docs" / "architecture.md").unlink()
    (root / "docs" / "architecture.md").write_bytes(data)
    d, offset = _restart(d, daemon_factory, [root])
    d.wait_idle()
    assert _read_since(d, offset) == 0

    # a name written before its code: a restart after the code appeared while stopped reads
    # the doc that names it (and only it), and its unit gains the reference a fresh read gives
    replace_in(root / "AGENTS.md", "- Run `npm test`", "- `parseUser` validates input.\n- Run `npm test`")
    d.wait_idle()
    with d.client() as c:
        assert not any("parseUser" in str(u[6]) for u in _units(c))
    d.stop()
    (root / "web" / "src" / "parse.ts").write_text("export function parseUser(raw: string) {\n  return raw;\n}\n")
    d, offset = _restart(d, daemon_factory, [root])
    with d.client() as c:
        named = _units(c)
    assert any("parseUser" in str(u[6]) for u in named)
    assert _read_since(d, offset) == 1
    assert named == _fresh(daemon_factory, [root])
    d.stop()


def test_a_restart_after_commits_and_with_a_worktree_equals_a_fresh_read(daemon_factory: DaemonFactory) -> None:
    root = committed_fixture("knowledge")
    tree = short_tmp() / "wt"
    git(root, "worktree", "add", "-q", "-b", "side", str(tree))
    try:
        d = daemon_factory([root, tree])
        with d.client() as c:
            both = _units(c)
        ids = {u[0] for u in both}
        assert len(ids) == 2
        # the worktree's docs are the sibling's where their content is equal
        per = {rid: [u[1:] for u in both if u[0] == rid] for rid in ids}
        assert len({repr(v) for v in per.values()}) == 1, per

        # an uncommitted doc edit read live, then committed while stopped (HEAD moved ahead):
        # the doc is judged again from its commit, as a fresh read judges it; nothing else read
        replace_in(tree / "CLAUDE.md", "\n", "\nSee `verify_password` too.\n")
        d.wait_idle()
        d.stop()
        git(tree, "commit", "-q", "-am", "doc")
        d, offset = _restart(d, daemon_factory, [root, tree])
        with d.client() as c:
            after = _units(c)
        assert _read_since(d, offset) == 1
        assert after == _fresh(daemon_factory, [root, tree])

        # nothing changed: neither checkout reads a file
        d, offset = _restart(d, daemon_factory, [root, tree])
        with d.client() as c:
            assert _units(c) == after
        assert _read_since(d, offset) == 0

        # history rewritten while stopped (the worktree reset to before its commit): every
        # file of that checkout is read again (its lines' commits may all differ), none of the other
        d.stop()
        git(tree, "reset", "-q", "--hard", "HEAD~1")
        d, offset = _restart(d, daemon_factory, [root, tree])
        with d.client() as c:
            reset = _units(c)
        assert reset == _fresh(daemon_factory, [root, tree])
        assert "HEAD moved off" in _log(d).read_text()
        d.stop()
    finally:
        git(root, "worktree", "remove", "--force", str(tree))
        shutil.rmtree(tree.parent, ignore_errors=True)


def test_the_code_is_fingerprinted_when_the_keeper_is_made() -> None:
    """The fingerprint of the code that reads knowledge files is taken when the daemon starts:
    taken first at the clean stop (a first start has nothing kept to compare it with), it read
    the sources an upgrade had put on disk meanwhile, and the next start kept what the old code
    had read (seen: a reader change did not reach a checkout until a file changed)."""
    from graphmemd.indexing.knowledge import KnowledgeKeeper, code_fingerprint

    code_fingerprint.cache_clear()
    KnowledgeKeeper(None, None, lambda: None, 1 << 20, lambda rt: None)  # type: ignore[arg-type]
    assert code_fingerprint.cache_info().currsize == 1
