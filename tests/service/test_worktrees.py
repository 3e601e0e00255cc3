"""One repository, many checkouts, through the real daemon: ``git worktree add`` is picked up
by itself, a note saved in one worktree is recalled in the other at once, each checkout judges
it on its own code, a note made on a branch the other checkout does not contain is "on branch"
there until the branch is merged, and removing the worktree keeps the note."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, wait_for
from graphmem.client import GraphMem
from graphmem.types import EventKind, Observation, ObservationStatus

DaemonFactory = Callable[..., Daemon]


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "--no-optional-locks", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


def git_repo() -> Path:
    """The python fixture as a git repository on branch main, one commit."""
    repo = copy_fixture("python")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    return repo


def shown(c: GraphMem, checkout: Path, obs_id: str) -> Observation | None:
    """The note ``obs_id`` as ``checkout`` shows it (None when it does not)."""
    return next((o for o in c.list(repo=str(checkout), limit=0) if o.id == obs_id), None)


def checkouts(c: GraphMem) -> dict[str, str]:
    """Registered checkout roots -> their repository id."""
    return {r.root: r.repository_id for r in c.status().repositories}


def files_parsed(c: GraphMem, root: Path) -> int:
    (r,) = [r for r in c.status().repositories if r.root == str(root)]
    return r.files_parsed


def ready(c: GraphMem, root: Path) -> bool:
    return any(r.root == str(root) and r.state.value == "ready" for r in c.status().repositories)


def test_worktrees_share_one_memory_each_judged_on_its_code(daemon_factory: DaemonFactory) -> None:
    a = git_repo()
    b = a.parent / "wt-b"
    d = daemon_factory([a])
    with d.client() as c:
        git(a, "worktree", "add", "-q", "-b", "feature", str(b))
        wait_for(lambda: ready(c, b), 20)  # registered without a command, then indexed
        roots = checkouts(c)
        assert roots[str(a)] == roots[str(b)]  # one repository
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert {(x.root, x.branch) for x in ra.checkouts} == {(str(a), "main"), (str(b), "feature")}
        (rb,) = [r for r in c.status().repositories if r.root == str(b)]
        assert rb.files == ra.files
        assert rb.files_parsed == 0  # every file's content was parsed for A already

        # saved in B, recalled in A within a second
        note = c.observe(
            "hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"], repo=str(b)
        )
        started = time.monotonic()
        hit = c.recall(symbols=["app/auth/crypto.py::hash_password"], repo=str(a), hops=0)
        assert note.id in {r.observation.id for r in hit.results}
        assert time.monotonic() - started < 1.0
        assert c.recall("constant salts", repo=str(a)).results[0].observation.id == note.id

        # an edit in B: stale in B, fresh in A
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
        in_a = shown(c, a, note.id)
        assert in_a is not None
        assert in_a.status is ObservationStatus.FRESH
        assert not in_a.on_branch
        git(b, "checkout", "--", "app/auth/crypto.py")
        wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.FRESH, 10)

        # a function only on B's branch: "on branch feature" in A, left out of A's recall
        (b / "app/auth/audit.py").write_text("def audit_login(user: str) -> str:\n    return 'login ' + user\n")
        git(b, "add", "-A")
        git(b, "commit", "-q", "-m", "audit")
        wait_for(lambda: c.find_symbols("audit_login", repo=str(b)), 10)
        assert files_parsed(c, b) == 2  # the new file, and crypto.py's edit (its restored text was A's)
        parsed_in_a = files_parsed(c, a)
        branch_note = c.observe(
            "audit_login must not log passwords", anchors=["app/auth/audit.py::audit_login"], repo=str(b)
        )
        assert branch_note.origin_branch == "feature"
        in_a = wait_for(lambda: shown(c, a, branch_note.id), 5)
        assert isinstance(in_a, Observation)
        assert in_a.on_branch == "feature"
        assert in_a.status is ObservationStatus.FRESH
        recalled = c.recall("audit_login passwords", repo=str(a))
        assert branch_note.id not in {r.observation.id for r in recalled.results}
        assert branch_note.id in {r.observation.id for r in c.recall("audit_login passwords", repo=str(b)).results}

        # merged into A: an ordinary note there
        git(a, "merge", "-q", "feature")
        wait_for(lambda: (o := shown(c, a, branch_note.id)) is not None and not o.on_branch, 10)
        assert files_parsed(c, a) == parsed_in_a  # the merge brought only content B had parsed
        merged = shown(c, a, branch_note.id)
        assert merged is not None
        assert merged.status is ObservationStatus.FRESH
        assert branch_note.id in {r.observation.id for r in c.recall("audit_login passwords", repo=str(a)).results}

        # B removed: the checkout is dropped, every note kept and shown in A
        git(a, "worktree", "remove", "--force", str(b))
        wait_for(lambda: str(b) not in checkouts(c), 10)
        (ra,) = c.status().repositories
        assert [(x.root, x.missing) for x in ra.checkouts if x.root == str(b)] == [(str(b), True)]
        kept = {o.id for o in c.list(repo=str(a), limit=0)}
        assert {note.id, branch_note.id} <= kept
        assert note.id in {
            r.observation.id for r in c.recall(symbols=["app/auth/crypto.py::hash_password"], repo=str(a)).results
        }


def test_separate_clones_join_only_when_linked(daemon_factory: DaemonFactory) -> None:
    a = git_repo()
    clone = a.parent / "clone"
    git(a.parent, "clone", "-q", str(a), str(clone))
    d = daemon_factory([a, clone])
    with d.client() as c:
        roots = checkouts(c)
        assert roots[str(a)] != roots[str(clone)]  # never joined silently
        (rc,) = [r for r in c.status().repositories if r.root == str(clone)]
        assert rc.possible_clones  # but suggested
        note = c.observe("tokens are base64", anchors=["app/auth/crypto.py::make_token"], repo=str(a))
        assert shown(c, clone, note.id) is None
        linked = c.link_repo(str(clone), str(a))
        assert linked.repository_id == roots[str(a)]
        in_clone = shown(c, clone, note.id)
        assert in_clone is not None
        assert in_clone.status is ObservationStatus.FRESH


def test_a_note_saved_in_one_worktree_is_announced_in_the_other_and_survives_a_restart(
    daemon_factory: DaemonFactory,
) -> None:
    a = git_repo()
    b = a.parent / "wt-b"
    git(a, "worktree", "add", "-q", "-b", "feature", str(b))
    d = daemon_factory([a, b])
    with d.client() as c:
        stream = c.events(repo=str(a), kinds=[EventKind.OBSERVATION_CHANGED])
        stream.wait_ready()
        timer = threading.Timer(10, stream.cancel)
        timer.start()
        note = c.observe("make_token encodes the user id", anchors=["app/auth/crypto.py::make_token"], repo=str(b))
        try:
            event = next(e for e in stream if e.observation_id == note.id)
        finally:
            timer.cancel()
            stream.cancel()
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert event.repo_id == ra.id  # announced in A, as A shows it
        assert event.observation is not None
        assert event.observation.status is ObservationStatus.FRESH
    assert d.stop() == 0

    d2 = daemon_factory([a, b], home=d.home)
    with d2.client() as c:
        in_a = wait_for(lambda: shown(c, a, note.id), 10)  # projections are rebuilt, not journaled
        assert isinstance(in_a, Observation)
        assert in_a.status is ObservationStatus.FRESH
        assert note.id in {r.observation.id for r in c.recall("make_token user id", repo=str(a)).results}


def test_a_worktree_the_user_removed_is_not_registered_again_by_itself(daemon_factory: DaemonFactory) -> None:
    a = git_repo()
    b, c2 = a.parent / "wt-b", a.parent / "wt-c"
    d = daemon_factory([a])
    with d.client() as c:
        git(a, "worktree", "add", "-q", "-b", "b", str(b))
        wait_for(lambda: ready(c, b), 20)
        c.remove_repo(str(b))
        git(a, "worktree", "add", "-q", "-b", "c", str(c2))
        wait_for(lambda: ready(c, c2), 20)  # the loop looked again since the removal
        assert str(b) not in checkouts(c)
        c.add_repo(b)  # the user adds it back
        wait_for(lambda: ready(c, b), 20)
        assert len({checkouts(c)[str(p)] for p in (a, b, c2)}) == 1
