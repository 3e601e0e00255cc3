"""A worktree whose files equal an indexed checkout's is derived from that checkout's graph
(``indexing/derive.py``): through the real daemon, with real ``git worktree``. What it answers
must be what indexing it on its own answers — after it was derived, after an edit in it
(which fills its resolver then), and after a restart of the daemon with both checkouts —
and an edit in it never changes what the first checkout answers."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, wait_for
from graphmem.client import GraphMem
from graphmem.types import ObservationStatus
from graphmemd.runtime.config import resolve_paths
from test_worktrees import files_parsed, git, git_repo, ready

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0

#: what a checkout answers about one symbol: (callers, callees, inherits, inherited by, file
#: imports, file imported by, unresolved calls), as refs
Answer = tuple[tuple[str, ...], ...]


def answers(c: GraphMem, root: Path) -> dict[str, Answer]:
    """Every symbol of every Python file of ``root`` as the daemon answers for that checkout."""
    out: dict[str, Answer] = {}
    for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")):
        outline = c.file_outline(path, repo=str(root))
        assert outline.indexed, path
        for s in outline.symbols:
            d = c.symbol(s.ref, repo=str(root))
            refs = [tuple(sorted(x.ref for x in xs)) for xs in (d.callers, d.callees, d.inherits, d.inherited_by)]
            more = (tuple(sorted(d.file_imports)), tuple(sorted(d.file_imported_by)), tuple(sorted(d.unresolved_calls)))
            out[s.ref] = (*refs, *more)
    return out


def this_run(home: Path) -> str:
    text = resolve_paths(str(home), {}).log.read_text(encoding="utf-8")
    return text[text.rindex(" listening on ") :]


def truth(daemon_factory: DaemonFactory, root: Path) -> dict[str, Answer]:
    """What a daemon of its own, indexing ``root`` alone, answers."""
    d = daemon_factory([root])
    with d.client() as c:
        got = answers(c, root)
    assert d.stop() == 0
    return got


def test_a_derived_worktree_answers_as_if_indexed_alone(daemon_factory: DaemonFactory) -> None:
    a = git_repo()
    b = a.parent / "wt-b"
    d = daemon_factory([a])
    with d.client() as c:
        note = c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"])
        before = answers(c, a)
        git(a, "worktree", "add", "-q", "-b", "feature", str(b))
        wait_for(lambda: ready(c, b), TIMEOUT)
        wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
        assert "derived from" in this_run(d.home)
        assert files_parsed(c, b) == 0
        derived = answers(c, b)
        assert derived == before
        assert c.find_symbols("hash_password", repo=str(b))[0].repo_id != c.find_symbols("hash_password")[0].repo_id
        recalled = c.recall("salts constant", repo=str(b)).results[0].observation
        assert recalled.id == note.id
        assert recalled.status is ObservationStatus.FRESH

        # an edit in B after it was derived: B as if indexed alone, A unchanged
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(
            crypto.read_text().replace(
                "return digest(password, salt=SALT)", "return digest(pepper(password), salt=SALT)"
            )
            + "\n\ndef pepper(text: str) -> str:\n    return text + '!'\n"
        )
        wait_for(lambda: c.find_symbols("pepper", repo=str(b)), TIMEOUT)
        wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
        edited = answers(c, b)
        assert "derived files handed to the resolver" in this_run(d.home)  # the edit needed them
        assert edited["app/auth/crypto.py::hash_password"][1] != before["app/auth/crypto.py::hash_password"][1]
        assert answers(c, a) == before
        assert not c.find_symbols("pepper", repo=str(a))
        in_a = next(o for o in c.list(repo=str(a), limit=0) if o.id == note.id)
        assert in_a.status is ObservationStatus.FRESH
        in_b = next(o for o in c.list(repo=str(b), limit=0) if o.id == note.id)
        assert in_b.status is not ObservationStatus.FRESH  # its body changed in B
    assert d.stop() == 0
    alone = truth(daemon_factory, b)
    assert edited == alone

    # a restart with both checkouts: both answer as before
    d2 = daemon_factory([a], home=d.home)
    with d2.client() as c:
        wait_for(lambda: ready(c, b), TIMEOUT)
        assert answers(c, a) == before
        assert answers(c, b) == alone


def test_a_derived_worktree_restarts_before_it_resolved(daemon_factory: DaemonFactory) -> None:
    """Stopped while still derived (its resolver empty): after the restart both checkouts
    answer as before, and an edit in the derived one then resolves it correctly."""
    a = git_repo()
    b = a.parent / "wt-b"
    d = daemon_factory([a])
    with d.client() as c:
        before = answers(c, a)
        git(a, "worktree", "add", "-q", "-b", "feature", str(b))
        wait_for(lambda: ready(c, b), TIMEOUT)
        assert "derived from" in this_run(d.home)
        assert answers(c, b) == before
    assert d.stop() == 0
    d2 = daemon_factory([a], home=d.home)
    with d2.client() as c:
        wait_for(lambda: ready(c, b), TIMEOUT)
        assert files_parsed(c, b) == 0  # restored from its own copied rows and parses
        assert answers(c, a) == before
        assert answers(c, b) == before
        routes = b / "app/api/routes.py"
        routes.write_text(routes.read_text() + "\n\ndef probe_after_restart() -> str:\n    return 'ok'\n")
        deadline = time.monotonic() + TIMEOUT
        wait_for(lambda: c.find_symbols("probe_after_restart", repo=str(b)), max(1.0, deadline - time.monotonic()))
        wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
        edited = answers(c, b)
        assert answers(c, a) == before
    assert d2.stop() == 0
    assert edited == truth(daemon_factory, b)


def test_a_worktree_with_files_of_its_own_derives_the_rest(daemon_factory: DaemonFactory) -> None:
    """A worktree on a branch where a file differs (and one is new): the equal files are
    derived, the others parsed and applied on top; it answers as if indexed alone."""
    a = git_repo()
    git(a, "checkout", "-q", "-b", "feature")
    crypto = a / "app/auth/crypto.py"
    crypto.write_text(crypto.read_text().replace("digest(password, salt", "digest(password.strip(), salt"))
    (a / "app/auth/audit.py").write_text(
        "from app.auth.crypto import hash_password\n\n\ndef audit(p: str) -> str:\n    return hash_password(p)\n"
    )
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "feature")
    git(a, "checkout", "-q", "main")
    b = a.parent / "wt-b"
    d = daemon_factory([a])
    with d.client() as c:
        before = answers(c, a)
        git(a, "worktree", "add", "-q", str(b), "feature")
        wait_for(lambda: ready(c, b), TIMEOUT)
        wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
        assert "derived from" in this_run(d.home)
        assert files_parsed(c, b) == 2
        derived = answers(c, b)
        assert answers(c, a) == before
        assert "app/auth/audit.py::audit" in derived
    assert d.stop() == 0
    assert derived == truth(daemon_factory, b)
