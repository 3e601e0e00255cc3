"""A worktree whose files equal an indexed checkout's is derived from that checkout's graph
and resolver (``indexing/derive.py``): through the real daemon, with real ``git worktree``.
What it answers must be what indexing it on its own answers — after it was derived (files
differing and removed on its branch included), after an edit in it (the incremental path
over the derived resolver), and after a restart of the daemon with both checkouts — and
nothing done in it ever changes what the first checkout answers."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, wait_for
from gitrepo import committed_fixture, git
from graphmem.client import GraphMem
from graphmem.types import ObservationStatus
from graphmemd.runtime.config import resolve_paths
from test_worktrees import files_parsed, ready

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0

#: what a checkout answers about one symbol: (callers, callees, inherits, inherited by, file
#: imports, file imported by, unresolved calls), as refs
Answer = tuple[tuple[str, ...], ...]


def answers(c: GraphMem, root: Path, skipped: frozenset[str] = frozenset()) -> dict[str, Answer]:
    """Every symbol of every Python file of ``root`` (but ``skipped``) as the daemon answers for that checkout."""
    out: dict[str, Answer] = {}
    for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")):
        if path in skipped:
            assert not c.file_outline(path, repo=str(root)).indexed, path
            continue
        outline = c.file_outline(path, repo=str(root))
        assert outline.indexed, path
        for s in outline.symbols:
            d = c.symbol(s.ref, repo=str(root))
            refs = [tuple(sorted(x.ref for x in xs)) for xs in (d.callers, d.callees, d.inherits, d.inherited_by)]
            more = (tuple(sorted(d.file_imports)), tuple(sorted(d.file_imported_by)), tuple(sorted(d.unresolved_calls)))
            out[s.ref] = (*refs, *more)
    return out


def resolution(c: GraphMem, root: Path) -> tuple[object, ...]:
    """The call-site resolution statistics ``status`` shows for ``root``."""
    (r,) = [r for r in c.status().repositories if r.root == str(root)]
    return r.resolution


def branch_repo(change: Callable[[Path], None]) -> Path:
    """The python fixture as a git repository on main, with a branch ``feature`` where
    ``change`` (given the checkout) was committed."""
    a = committed_fixture()
    git(a, "checkout", "-q", "-b", "feature")
    change(a)
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "feature")
    git(a, "checkout", "-q", "main")
    return a


def add_feature_worktree(c: GraphMem, a: Path) -> Path:
    """``git worktree add`` of the branch ``feature`` beside ``a``; returns it once current."""
    b = a.parent / "wt-b"
    git(a, "worktree", "add", "-q", str(b), "feature")
    wait_for(lambda: ready(c, b), TIMEOUT)
    wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
    return b


def this_run(home: Path) -> str:
    text = resolve_paths(str(home), {}).log.read_text(encoding="utf-8")
    return text[text.rindex(" listening on ") :]


def truth(daemon_factory: DaemonFactory, root: Path, skipped: frozenset[str] = frozenset()) -> dict[str, Answer]:
    """What a daemon of its own, indexing ``root`` alone, answers."""
    d = daemon_factory([root])
    with d.client() as c:
        got = answers(c, root, skipped)
    assert d.stop() == 0
    return got


def test_a_derived_worktree_answers_as_if_indexed_alone(daemon_factory: DaemonFactory) -> None:
    a = committed_fixture()
    b = a.parent / "wt-b"
    d = daemon_factory([a])
    with d.client() as c:
        note = c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"])
        before = answers(c, a)
        git(a, "worktree", "add", "-q", "-b", "feature", str(b))
        wait_for(lambda: ready(c, b), TIMEOUT)
        wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
        log = this_run(d.home)
        assert "derived from" in log
        # where its time went, step by step: registering it, then its pass until READY
        registered = r"wt-b\S*: registered in [\d.]+s \(store [\d.]+, registry [\d.]+, watch live [\d.]+; the facts of "
        assert re.search(registered + re.escape(checkout_id(c, a)) + r"\)", log)  # (its tree not walked for them)
        assert re.search(r"indexed wt-b\S*: .*plan [\d.]+ .*derive [\d.]+ .*READY after [\d.]+s, queued [\d.]+s", log)
        assert files_parsed(c, b) == 0
        derived = answers(c, b)
        assert derived == before
        assert resolution(c, b) == resolution(c, a) != ()  # derived with the resolver's state
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
        assert "handed to the resolver" not in this_run(d.home)  # the edit went the incremental path
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


def test_a_derived_worktree_restarts_before_any_change(daemon_factory: DaemonFactory) -> None:
    """Stopped right after it was derived (before any change in it): after the restart both checkouts
    answer as before, and an edit in the derived one then resolves it correctly."""
    a = committed_fixture()
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


def test_a_branch_worktree_derives_the_rest_and_stays_its_own(daemon_factory: DaemonFactory) -> None:
    """A worktree on a branch where a file differs, one is new and one is gone (others import
    it): the equal files are derived with the resolver's state, the files resolving against
    the gone one resolved again, the differing and new ones parsed and applied on top. It
    answers as if indexed alone right after it is current, after a further edit, and after a
    restart; the first checkout answers as before throughout."""

    def change(a: Path) -> None:
        crypto = a / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("digest(password, salt", "digest(password.strip(), salt"))
        (a / "app/auth/audit.py").write_text(
            "from app.auth.crypto import hash_password\n\n\ndef audit(p: str) -> str:\n    return hash_password(p)\n"
        )
        (a / "app/util/encoding.py").unlink()  # crypto and routes import it

    a = branch_repo(change)
    d = daemon_factory([a])
    with d.client() as c:
        before, stats_a = answers(c, a), resolution(c, a)
        b = add_feature_worktree(c, a)
        log = this_run(d.home)
        assert "derived from" in log
        assert "handed to the resolver" not in log
        again = re.search(r"wt-b\S*: \d+ of \d+ files derived .* (\d+) resolved again", log)
        assert again is not None, log
        assert int(again[1]) >= 1, log  # routes.py imported the gone file
        assert files_parsed(c, b) == 2  # crypto.py and audit.py: nothing else parsed or resolved whole
        derived = answers(c, b)
        assert answers(c, a) == before
        assert resolution(c, a) == stats_a
        assert "app/auth/audit.py::audit" in derived
        assert not any(ref.startswith("app/util/encoding.py") for ref in derived)
        assert resolution(c, b) != ()
        assert derived_alone_matches(daemon_factory, b, derived)  # (a second daemon, beside this one)

        # a further edit in B: the incremental path over the derived resolver
        routes = b / "app/api/routes.py"
        routes.write_text(
            routes.read_text() + "\n\ndef audited(p: str) -> str:\n    from app.auth.audit import audit\n"
            "    return audit(p)\n"
        )
        wait_for(lambda: c.find_symbols("audited", repo=str(b)), TIMEOUT)
        wait_for(lambda: c.recall(files=["app/api/routes.py"], repo=str(b)).freshness.current, TIMEOUT)
        edited = answers(c, b)
        assert "app/auth/audit.py::audit" in edited["app/api/routes.py::audited"][1]
        assert answers(c, a) == before
        assert resolution(c, a) == stats_a
    assert d.stop() == 0
    assert derived_alone_matches(daemon_factory, b, edited)

    d2 = daemon_factory([a], home=d.home)
    with d2.client() as c:
        wait_for(lambda: ready(c, b), TIMEOUT)
        assert answers(c, a) == before
        assert answers(c, b) == edited
    assert d2.stop() == 0


def derived_alone_matches(
    daemon_factory: DaemonFactory, root: Path, got: dict[str, Answer], skipped: frozenset[str] = frozenset()
) -> bool:
    """Whether ``got`` is what a daemon indexing ``root`` alone answers (asserted per symbol,
    so that a failure names the first symbol that differs)."""
    alone = truth(daemon_factory, root, skipped)
    assert sorted(got) == sorted(alone)
    for ref, answer in alone.items():
        assert got[ref] == answer, ref
    return True


def test_a_differing_file_that_is_not_parsed_is_gone_for_its_dependents(daemon_factory: DaemonFactory) -> None:
    """A file that differs on the branch but is not parsed there (a NUL byte: the parser
    skips it as binary): the files importing it are resolved again without it, as a daemon
    indexing the worktree alone resolves them."""
    skipped = frozenset({"app/util/encoding.py"})

    def change(a: Path) -> None:
        encoding = a / "app/util/encoding.py"  # crypto and routes import it
        encoding.write_bytes(encoding.read_bytes() + b"\n# \x00\n")

    a = branch_repo(change)
    d = daemon_factory([a])
    with d.client() as c:
        before = answers(c, a)
        b = add_feature_worktree(c, a)
        log = this_run(d.home)
        assert "derived from" in log
        assert re.search(r"wt-b\S*: 1 differing files not parsed; [1-9]\d* files resolved again", log), log
        derived = answers(c, b, skipped)
        assert answers(c, a) == before
        assert not any(ref.startswith("app/util/encoding.py") for ref in derived)
        assert derived != {ref: got for ref, got in before.items() if not ref.startswith("app/util/encoding.py")}
        assert derived_alone_matches(daemon_factory, b, derived, skipped)
    assert d.stop() == 0


def checkout_id(c: GraphMem, root: Path) -> str:
    (r,) = [r for r in c.status().repositories if r.root == str(root)]
    return r.id


def test_a_worktree_not_derived_reads_its_own_facts_before_it_resolves(daemon_factory: DaemonFactory) -> None:
    """A worktree registered beside an indexed checkout takes that checkout's repository facts
    instead of walking its tree (``RepoRuntime.borrow_facts``). One whose files mostly differ
    (not derived: its branch moved the code under ``src/``, a layout of its own, so its facts
    differ too) reads its own from its first pass's walk before it parses: it resolves every
    file once, with its own facts, and answers as a cold index of it does."""

    def change(a: Path) -> None:
        (a / "src").mkdir()
        (a / "app").rename(a / "src/app")

    a = branch_repo(change)
    d = daemon_factory([a])
    with d.client() as c:
        b = a.parent / "wt-b"
        git(a, "worktree", "add", "-q", str(b), "feature")
        wait_for(lambda: ready(c, b), TIMEOUT)
        log = this_run(d.home)
        assert re.search(r"wt-b\S*: registered in .*; the facts of " + re.escape(checkout_id(c, a)), log), log
        assert not re.search(r"wt-b\S*: \d+ of \d+ files derived", log)
        assert not re.search(r"wt-b\S*: repository facts changed", log)  # (resolved once: with its own)
        got = answers(c, b)
        login = got["src/app/auth/service.py::AuthService.login"]
        assert "src/app/auth/crypto.py::make_token" in login[1]  # (``from app.auth.crypto import``: src/ a root)
    assert d.stop() == 0
    assert derived_alone_matches(daemon_factory, b, got)
