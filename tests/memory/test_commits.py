"""Which commit made a change, or "uncommitted": the pure core (``memory/commits.py``) and
the daemon naming the commit once the change is committed."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, wait_for
from graphmem.types import Anchor, AnchorKind, Category, ChangeKind, Observation, StaleReason
from graphmemd.memory.commits import mark_uncommitted, name_commits, new_reason_paths, reason_path

NOW = 1_800_000_000.0


def _obs(*reasons: StaleReason) -> Observation:
    a = Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py", symbol_id="r:a.py::f")
    return Observation("o", "r", "t", Category.OTHER, 1.0, 1.0, anchors=(a,), stale_reasons=reasons)


def test_a_reason_is_about_the_file_that_changed() -> None:
    assert reason_path(StaleReason("a.py::f", ChangeKind.BODY_CHANGED, NOW)) == "a.py"
    dep = StaleReason("a.py::f", ChangeKind.DEPENDENCY_CHANGED, NOW, dependency_ref="b.py::g")
    assert reason_path(dep) == "b.py"
    moved = StaleReason("a.py::f", ChangeKind.RENAMED, NOW, new_ref="c.py::f")
    assert reason_path(moved) == "c.py"
    assert reason_path(StaleReason("docs/x.md", ChangeKind.REMOVED, NOW)) == "docs/x.md"


def test_only_reasons_found_now_in_dirty_files_are_uncommitted_and_a_commit_names_them() -> None:
    old = StaleReason("a.py::f", ChangeKind.BODY_CHANGED, NOW - 100, commit="c0")
    new = StaleReason("a.py::f", ChangeKind.SIGNATURE_CHANGED, NOW, commit="c0")
    dep = StaleReason("a.py::f", ChangeKind.DEPENDENCY_CHANGED, NOW, dependency_ref="b.py::g", commit="c0")
    o = _obs(old, new, dep)
    assert new_reason_paths([o], NOW) == {"a.py", "b.py"}
    marked = mark_uncommitted(o, NOW, {"a.py"})
    assert [r.uncommitted for r in marked.stale_reasons] == [False, True, False]
    assert mark_uncommitted(o, NOW, set()) is o
    named = name_commits(marked, {"a.py": "c1"})
    assert [(r.commit, r.uncommitted) for r in named.stale_reasons] == [("c0", False), ("c1", False), ("c0", False)]
    assert name_commits(marked, {"b.py": "c1"}) is marked  # a.py is still not committed


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
           "GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com"}
    out = subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env)
    return out.stdout.strip()


def test_an_edit_is_uncommitted_until_committed_then_names_its_commit(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the fixture")
    d = daemon_factory([repo])
    with d.client() as c:
        note = c.observe("hashing is salted", anchors=["app/auth/crypto.py::hash_password"])
        crypto = repo / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("def hash_password(password: str)",
                                                     'def hash_password(password: str, pepper: str = "")'))
        wait_for(lambda: bool(c.get(note.id).stale_reasons), 30)
        (reason,) = c.get(note.id).stale_reasons
        assert reason.uncommitted
        assert reason.commit == _git(repo, "rev-parse", "HEAD")  # the HEAD it sits on
        _git(repo, "commit", "-qam", "a pepper")
        sha = _git(repo, "rev-parse", "HEAD")
        c.brief(repo=str(repo))  # a query that checks freshness queues the rescan HEAD's move needs
        wait_for(lambda: not c.get(note.id).stale_reasons[0].uncommitted, 30)
        (reason,) = c.get(note.id).stale_reasons
        assert reason.commit == sha
