"""One repository, many checkouts, through the real daemon: ``git worktree add`` is picked up
by itself, a note saved in one worktree is recalled in the other at once, each checkout judges
it on its own code, a note made on a branch the other checkout does not contain is "on branch"
there until the branch is merged, and removing the worktree keeps the note."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, wait_for
from gitrepo import committed_fixture, git, initial_commit, slow_git, worktree
from graphmem.client import GraphMem
from graphmem.errors import FailedPrecondition, GraphMemError
from graphmem.types import Category, ConfirmRefusal, EventKind, Observation, ObservationStatus

DaemonFactory = Callable[..., Daemon]


def shown(c: GraphMem, checkout: Path, obs_id: str) -> Observation | None:
    """The note ``obs_id`` as ``checkout`` shows it (None when it does not)."""
    return next((o for o in c.list(repo=str(checkout), limit=0) if o.id == obs_id), None)


def show_in(d: Daemon, checkout: Path, obs_id: str) -> str:
    """``graphmem show ID`` run in ``checkout`` (its working directory), as a user would."""
    out = subprocess.run([sys.executable, "-m", "graphmem", "show", obs_id], cwd=checkout, env=d.env,
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout


def _answers(c: GraphMem) -> bool:
    try:
        return c.health()
    except GraphMemError:
        return False


def checkouts(c: GraphMem) -> dict[str, str]:
    """Registered checkout roots -> their repository id."""
    return {r.root: r.repository_id for r in c.status().repositories}


def checkout_id(c: GraphMem, root: Path) -> str:
    (r,) = [r for r in c.status().repositories if r.root == str(root)]
    return r.id


def worktree_with_note(c: GraphMem, a: Path) -> tuple[Path, Observation]:
    """A worktree of ``a`` (``gitrepo.worktree``), registered by itself and indexed, and a note
    saved in it on ``hash_password``."""
    b = worktree(a)
    wait_for(lambda: ready(c, b), 20)
    return b, c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"],
                        repo=str(b))  # fmt: skip


def files_parsed(c: GraphMem, root: Path) -> int:
    (r,) = [r for r in c.status().repositories if r.root == str(root)]
    return r.files_parsed


def commit_audit(c: GraphMem, b: Path) -> None:
    """Commit in checkout ``b`` a new file with a new function, ``audit_login``, and wait
    until ``b``'s index has it."""
    (b / "app/auth/audit.py").write_text("def audit_login(user: str) -> str:\n    return 'login ' + user\n")
    git(b, "add", "-A")
    git(b, "commit", "-q", "-m", "audit")
    wait_for(lambda: c.find_symbols("audit_login", repo=str(b)), 10)


def ready(c: GraphMem, root: Path) -> bool:
    return any(r.root == str(root) and r.state.value == "ready" for r in c.status().repositories)


def test_worktrees_share_one_memory_each_judged_on_its_code(daemon_factory: DaemonFactory) -> None:
    a = committed_fixture()
    (a / "CLAUDE.md").write_text("# Auth\n\nPasswords go through `hash_password()` before they are stored.\n")
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "agents' notes")  # (each checkout's units of it are not notes saved there)
    d = daemon_factory([a])
    with d.client() as c:
        b = worktree(a)
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
        (rb,) = [r for r in c.status().repositories if r.root == str(b)]
        assert in_a.saved_in == rb.id  # shown in A, saved in B: said so
        assert c.get(note.id, repo=str(b)).saved_in == ""  # in its own checkout
        # one note, asked for by id: as the checkout asking sees it (saved in B, stale there)
        assert c.get(note.id, repo=str(a)).status is ObservationStatus.FRESH
        assert c.get(note.id, repo=str(b)).status is ObservationStatus.STALE
        assert c.get(note.id).status is ObservationStatus.STALE  # as saved: judged where it was saved
        for checkout, status in ((a, "fresh"), (b, "stale")):  # `graphmem show` in a checkout judges it there
            out = show_in(d, checkout, note.id)
            assert f"status:     {status}" in out, out
        assert f"(judged on its code; saved in {rb.id})" in show_in(d, a, note.id)
        git(b, "checkout", "--", "app/auth/crypto.py")
        wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.FRESH, 10)

        # a function only on B's branch: "on branch feature" in A, left out of A's recall
        commit_audit(c, b)
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
        assert [(x.root, x.missing, x.notes) for x in ra.checkouts if x.root == str(b)] == [(str(b), True, 2)]
        listed = subprocess.run([sys.executable, "-m", "graphmem", "status"], cwd=a, env=d.env,
                                capture_output=True, text=True, timeout=60, check=True).stdout
        assert f"{b}  (directory gone, its 2 notes kept)" in listed, listed
        kept = {o.id for o in c.list(repo=str(a), limit=0)}
        assert {note.id, branch_note.id} <= kept
        assert note.id in {
            r.observation.id for r in c.recall(symbols=["app/auth/crypto.py::hash_password"], repo=str(a)).results
        }


def test_separate_clones_join_only_when_linked(daemon_factory: DaemonFactory) -> None:
    a = committed_fixture()
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
    a = committed_fixture()
    b = worktree(a)
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
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b = worktree(a, "b")
        wait_for(lambda: ready(c, b), 20)
        c.remove_repo(str(b))
        c2 = worktree(a, "c", "wt-c")
        wait_for(lambda: ready(c, c2), 20)  # the loop looked again since the removal
        assert str(b) not in checkouts(c)
        c.add_repo(b)  # the user adds it back
        wait_for(lambda: ready(c, b), 20)
        assert len({checkouts(c)[str(p)] for p in (a, b, c2)}) == 1


def test_a_note_seen_from_another_checkout_gets_its_rename_and_dependency_reasons(
    daemon_factory: DaemonFactory,
) -> None:
    """A note saved in B, seen in A, is given what a note saved in A gets from A's changes: a
    signature change of what it calls makes it suspect with the dependency's reason; a rename
    moves its anchor with a RENAMED reason. B, whose code did not change, keeps it fresh."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b = worktree(a)
        wait_for(lambda: ready(c, b), 20)
        anchor = "app/auth/crypto.py::hash_password"
        from_b = c.observe("hash_password salts with a constant", anchors=[anchor], repo=str(b))
        own = c.observe("hash_password is the only place passwords are hashed", anchors=[anchor], repo=str(a))
        wait_for(lambda: shown(c, a, from_b.id), 5)

        def reasons(o: Observation) -> list[tuple[object, ...]]:
            return [(r.change, r.anchor_ref, r.new_ref, r.dependency_ref, r.uncommitted) for r in o.stale_reasons]

        def both(status: ObservationStatus) -> tuple[Observation, Observation]:
            def got() -> tuple[Observation, Observation] | None:
                p, o = shown(c, a, from_b.id), shown(c, a, own.id)
                return (p, o) if p is not None and o is not None and p.status is o.status is status else None

            found = wait_for(got, 10)
            assert isinstance(found, tuple)
            return found

        # digest (which hash_password calls) takes a required parameter in A: suspect in A
        encoding = a / "app/util/encoding.py"
        before = encoding.read_text()
        encoding.write_text(before.replace('salt: str = ""', "salt: str, rounds: int"))
        projected, mine = both(ObservationStatus.SUSPECT)
        assert reasons(projected) == reasons(mine)
        assert [r.dependency_ref for r in projected.stale_reasons] == ["app/util/encoding.py::digest"]
        in_b = shown(c, b, from_b.id)
        assert in_b is not None
        assert in_b.status is ObservationStatus.FRESH
        encoding.write_text(before)  # its old signature back: fresh again, as a note of A is
        both(ObservationStatus.FRESH)

        # hash_password renamed in A (its caller follows): the anchor moves with a RENAMED reason
        crypto, service = a / "app/auth/crypto.py", a / "app/auth/service.py"
        crypto.write_text(crypto.read_text().replace("def hash_password", "def hash_secret"))
        service.write_text(service.read_text().replace("hash_password", "hash_secret"))
        moved = "app/auth/crypto.py::hash_secret"
        wait_for(lambda: (o := shown(c, a, own.id)) is not None and o.anchors[0].ref == moved, 10)
        projected = wait_for(lambda: (p := shown(c, a, from_b.id)) is not None and p.anchors[0].ref == moved and p, 10)
        mine = shown(c, a, own.id)
        assert isinstance(projected, Observation)
        assert mine is not None
        assert (projected.status, reasons(projected)) == (mine.status, reasons(mine))
        assert [(r.change.value, r.anchor_ref, r.new_ref) for r in projected.stale_reasons] == [
            ("renamed", anchor, moved)
        ]
        assert projected.needs_review == mine.needs_review
        # the note keeps its home anchor in B, where nothing was renamed
        in_b = shown(c, b, from_b.id)
        assert in_b is not None
        assert (in_b.status, in_b.anchors[0].ref) == (ObservationStatus.FRESH, anchor)
        # another change in A leaves the projection where the rename took it
        crypto.write_text(crypto.read_text() + "\n\ndef unrelated() -> int:\n    return 1\n")
        wait_for(lambda: c.find_symbols("unrelated", repo=str(a)), 10)
        again = shown(c, a, from_b.id)
        assert again is not None
        assert again.anchors[0].ref == moved
        assert reasons(again) == reasons(projected)


def test_a_folder_registered_in_a_repository_is_that_folder_in_its_worktrees(daemon_factory: DaemonFactory) -> None:
    """The repository registered as a folder of its working tree (``fixtures/repos/python`` in
    a clone of graphmem): ``git worktree add`` registers the same folder of the new worktree,
    one repository with it; another folder of the same git repository stays a repository of
    its own."""
    copied = copy_fixture("python")
    outer = copied.parent / "outer"
    (outer / "fx").mkdir(parents=True)
    a = copied.rename(outer / "fx" / "python")
    other = outer / "fx" / "other"
    other.mkdir()
    (other / "m.py").write_text("def f():\n    return 1\n")
    initial_commit(outer)
    d = daemon_factory([a, other])
    with d.client() as c:
        wt = worktree(outer)
        b = wt / "fx" / "python"
        wait_for(lambda: ready(c, b) and ready(c, wt / "fx" / "other"), 20)  # each registered folder's
        roots = checkouts(c)
        assert roots[str(a)] == roots[str(b)]  # one repository: the folder and that folder of the worktree
        assert roots[str(other)] == roots[str(wt / "fx" / "other")] != roots[str(a)]  # another folder: another
        assert str(wt) not in roots
        (rb,) = [r for r in c.status().repositories if r.root == str(b)]
        assert rb.files_parsed == 0
        assert {(x.root, x.branch) for x in rb.checkouts} == {(str(a), "main"), (str(b), "feature")}
        git(outer, "worktree", "remove", "--force", str(wt))
        wait_for(lambda: str(b) not in checkouts(c), 10)
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert [x for x in ra.checkouts if x.root == str(b)] == []  # gone, and no note was saved there: not listed


def test_a_checkout_judges_its_siblings_notes_as_its_own_and_at_once_after_a_restart(
    daemon_factory: DaemonFactory, tmp_path: Path
) -> None:
    """A note saved in A, its function edited (uncommitted) in B: B says what changed as it
    says it of its own notes (lines, uncommitted), and after a restart shows it stale as soon
    as B's code is back, not after the knowledge files are read (their ``git blame``, here
    made to take 20 s, can take seconds on a real project)."""
    a = committed_fixture()
    (a / "README.md").write_text("# App\n\nPasswords go through `hash_password`.\n")
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "docs")
    b = worktree(a)
    d = daemon_factory([a, b])
    with d.client() as c:
        note = c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"],
                         repo=str(a))  # fmt: skip
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
        # said as B's own note would be: the lines the edit touched, and that it is not committed
        assert "- `app/auth/crypto.py::hash_password`: body changed: 1 line, uncommitted" in show_in(d, b, note.id)
    assert d.stop() == 0

    gate = tmp_path / "slow-blame"
    slow = slow_git(tmp_path, gate, "blame")
    gate.touch()
    d2 = daemon_factory([a, b], home=d.home, env=slow, wait=False)
    try:
        with d2.client() as c:
            started = time.monotonic()
            wait_for(lambda: _answers(c), 10)
            wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
            assert time.monotonic() - started < 10
            assert c.get(note.id, repo=str(b)).status is ObservationStatus.STALE
            assert c.get(note.id, repo=str(a)).status is ObservationStatus.FRESH
    finally:
        gate.unlink()


def test_a_worktrees_brief_and_post_edit_callout_include_its_siblings_notes(daemon_factory: DaemonFactory) -> None:
    """What an agent learned in A reaches the agent working in worktree B through B's hooks:
    B's session brief lists A's constraint, and B's edit of the function it is about calls
    it out (judged on B's code: A's copy stays fresh)."""
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    with d.client() as c:
        note = c.observe("hash_password must stay constant-time", anchors=["app/auth/crypto.py::hash_password"],
                         repo=str(a), category=Category.CONSTRAINT)  # fmt: skip
        brief = c.brief(repo=str(b))
        assert note.id in brief.observation_ids, brief.text
        assert "hash_password must stay constant-time" in brief.text
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        got = c.edit_context([str(crypto)], repo=str(b), wait_ms=5000)
        assert got.indexed
        assert got.callout_ids == (note.id,), got.text
        assert "hash_password must stay constant-time" in got.text
        assert c.get(note.id, repo=str(a)).status is ObservationStatus.FRESH
        assert c.edit_context([str(a / "app/auth/crypto.py")], repo=str(a), wait_ms=2000).callout_ids == ()


def test_a_note_stale_only_in_a_worktree_shows_that_worktrees_change_and_is_not_confirmed_there(
    daemon_factory: DaemonFactory,
) -> None:
    """Tried as a user (Sphinx, a note saved on `main`, its function edited in a worktree): the
    review page of the worktree said "No code change is recorded under this note" (the change
    was read from the note as saved, fresh at home), confirming it there confirmed it at home
    (where nothing changed) and left it stale, and after a restart its reason said "body
    changed, in <HEAD>" of an edit not committed."""
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    anchor = "app/auth/crypto.py::hash_password"
    with d.client() as c:
        wait_for(lambda: ready(c, b), 20)
        note = c.observe("hash_password salts with a constant", anchors=[anchor], repo=str(a))
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
        (change,) = c.change(note.id, repo=str(b)).changes
        assert change.before.present
        assert change.after.present
        assert "password[:1]" in change.after.text
        assert "password[:1]" not in change.before.text
        assert c.change(note.id).changes == ()  # as saved: fresh at home, no change there
        assert c.get(note.id, repo=str(b)).confirm_refusal is ConfirmRefusal.ONLY_HERE  # the kind, for clients
        assert c.get(note.id, repo=str(a)).confirm_refusal is None
        with pytest.raises(FailedPrecondition, match="stale only in this checkout") as refused:
            c.confirm(note.id, repo=str(b))
        assert str(a) in str(refused.value)
        assert c.get(note.id).confirmed_at is None  # nothing was confirmed at home
        (reason,) = c.get(note.id, repo=str(b)).stale_reasons
        assert reason.uncommitted
    assert d.stop() == 0

    d2 = daemon_factory([a, b], home=d.home)
    with d2.client() as c:
        again = wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.stale_reasons and o, 20)
        assert isinstance(again, Observation)
        assert again.status is ObservationStatus.STALE
        (reason,) = again.stale_reasons
        assert reason.uncommitted  # not "in <HEAD>": the edit is not committed
        assert c.get(note.id, repo=str(a)).status is ObservationStatus.FRESH


def test_a_note_on_code_a_branch_changed_is_on_that_branch_elsewhere_until_merged(
    daemon_factory: DaemonFactory,
) -> None:
    """Tried as a user (pydantic 2.5 on `main`, 2.10 in a worktree on `upgrade`): a note saved
    in the worktree on a method the upgrade changed read, on `main`, "STALE: parameter
    `experimental_allow_partial` removed" — main never had it. A note made on a branch this
    checkout does not contain describes that branch's code: "on branch", fresh, not recalled
    here, until the branch is merged; a note made on `main` and changed by the branch is stale
    in the worktree as before (its origin is there)."""
    a = committed_fixture()
    b = worktree(a)
    crypto = b / "app/auth/crypto.py"
    crypto.write_text(crypto.read_text().replace("password: str)", "password: str, pepper: str = '')"))
    git(b, "commit", "-q", "-am", "pepper")
    d = daemon_factory([a, b])
    anchor = "app/auth/crypto.py::hash_password"
    with d.client() as c:
        wait_for(lambda: ready(c, a) and ready(c, b), 20)
        on_main = c.observe("hash_password salts with a constant", anchors=[anchor], repo=str(a))
        on_feature = c.observe("pass the pepper from the vault", anchors=[anchor], repo=str(b))
        assert on_feature.origin_branch == "feature"
        assert c.get(on_main.id, repo=str(b)).status is ObservationStatus.STALE  # main's code, changed on feature
        in_a = c.get(on_feature.id, repo=str(a))
        assert (in_a.status, in_a.on_branch, in_a.stale_reasons) == (ObservationStatus.FRESH, "feature", ())
        assert "on branch" in show_in(d, a, on_feature.id)
        assert on_feature.id not in {r.observation.id for r in c.recall("pepper vault", repo=str(a)).results}
        assert on_feature.id not in c.brief(repo=str(a)).observation_ids  # (it said the branch's decision as main's)
        assert on_feature.id in c.brief(repo=str(b)).observation_ids

        git(a, "merge", "-q", "feature")
        merged = wait_for(lambda: (o := c.get(on_feature.id, repo=str(a))) and not o.on_branch and o, 10)
        assert isinstance(merged, Observation)
        assert merged.status is ObservationStatus.FRESH
        assert on_feature.id in {r.observation.id for r in c.recall("pepper vault", repo=str(a)).results}
        assert c.get(on_main.id, repo=str(a)).status is ObservationStatus.STALE  # the merge changed it on main


def test_a_note_on_an_edit_not_committed_is_on_that_branch_elsewhere_until_committed_and_merged(
    daemon_factory: DaemonFactory,
) -> None:
    """Agents in parallel worktrees: one edits `hash_password` in B and saves what it learnt
    before committing. In A (which contains the commit B was at) the note said "STALE:
    parameter `pepper` removed" of a change nobody made there. It is B's uncommitted code:
    on branch "feature, uncommitted" in A; B's commit becomes its origin; merged into A, an
    ordinary note, fresh."""
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    anchor = "app/auth/crypto.py::hash_password"
    with d.client() as c:
        wait_for(lambda: ready(c, a) and ready(c, b), 20)
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("password: str)", "password: str, pepper: str = '')"))
        wait_for(lambda: any("pepper" in s.signature for s in c.find_symbols("hash_password", repo=str(b))), 10)
        saved = c.observe("pass the pepper from the vault", anchors=[anchor], repo=str(b))
        assert saved.origin_uncommitted
        assert "(its code not committed yet)" in show_in(d, b, saved.id)
        in_a = c.get(saved.id, repo=str(a))
        assert (in_a.status, in_a.on_branch, in_a.stale_reasons) == (
            ObservationStatus.FRESH, "feature, uncommitted", ())  # fmt: skip
        assert saved.id not in {r.observation.id for r in c.recall("pepper vault", repo=str(a)).results}

        git(b, "commit", "-q", "-am", "pepper")
        head = git(b, "rev-parse", "HEAD")
        # (no query in B: the commit's write in the git directory queues the pass after HEAD moved)
        committed = wait_for(lambda: (o := c.get(saved.id)) and not o.origin_uncommitted and o, 15)
        assert isinstance(committed, Observation)
        assert committed.origin_commit == head
        wait_for(lambda: c.get(saved.id, repo=str(a)).on_branch == "feature", 10)  # A does not contain that commit

        git(a, "merge", "-q", "feature")
        merged = wait_for(lambda: (o := c.get(saved.id, repo=str(a))) and not o.on_branch and o, 15)
        assert isinstance(merged, Observation)
        assert merged.status is ObservationStatus.FRESH


def test_a_note_on_a_committed_function_of_a_file_with_other_edits_is_judged_elsewhere(
    daemon_factory: DaemonFactory,
) -> None:
    """Uncommitted is said of the anchored code, not of its file: a note saved in A on
    `hash_password` while A has an unrelated edit of `make_token` in the same file is about
    committed code, so B, which changes `hash_password`, shows it stale (not "on branch")."""
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    with d.client() as c:
        wait_for(lambda: ready(c, a) and ready(c, b), 20)
        crypto = a / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("str(user_id).encode()", "str(user_id).encode('ascii')"))
        note = c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"],
                         repo=str(a))  # fmt: skip
        assert not note.origin_uncommitted
        edited = b / "app/auth/crypto.py"
        edited.write_text(edited.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        seen = wait_for(lambda: (o := c.get(note.id, repo=str(b))).status is ObservationStatus.STALE and o, 10)
        assert isinstance(seen, Observation)
        assert not seen.on_branch


def test_a_worktree_inside_the_main_checkout_is_a_checkout_of_its_own(daemon_factory: DaemonFactory) -> None:
    """Claude Code's worktrees are in ``.claude/worktrees/<name>`` inside the repository. Such a
    worktree is registered as a checkout of the repository, and the main checkout neither
    indexes its files nor sees the agent's edits there as its own."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        wait_for(lambda: ready(c, a), 20)
        (before,) = [r for r in c.status().repositories if r.root == str(a)]
        note = c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"],
                         repo=str(a))  # fmt: skip
        b = a / ".claude" / "worktrees" / "agent"
        git(a, "worktree", "add", "-q", "-b", "worktree-agent", str(b))
        wait_for(lambda: ready(c, b), 20)  # registered without a command, though inside A
        assert checkouts(c)[str(a)] == checkouts(c)[str(b)]
        assert len(c.find_symbols("hash_password", repo=str(a))) == 1  # (not its copy in B too)
        in_b = wait_for(lambda: shown(c, b, note.id), 5)
        assert isinstance(in_b, Observation)

        # the agent edits and adds files in its worktree: its checkout changes, A does not
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        (b / "app/auth/audit.py").write_text("def audit_login(user: str) -> str:\n    return 'login ' + user\n")
        wait_for(lambda: (o := shown(c, b, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
        wait_for(lambda: c.find_symbols("audit_login", repo=str(b)), 10)
        in_a = shown(c, a, note.id)
        assert in_a is not None
        assert in_a.status is ObservationStatus.FRESH
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert (ra.files, ra.symbols) == (before.files, before.symbols)
        assert not c.find_symbols("audit_login", repo=str(a))

        git(a, "worktree", "remove", "--force", str(b))
        wait_for(lambda: str(b) not in checkouts(c), 20)
        assert shown(c, a, note.id) is not None
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert ra.files == before.files
        assert [x.root for x in ra.checkouts] == [str(a)]  # (no note was saved in B: not listed as gone)


def test_a_directory_of_the_main_checkout_that_becomes_a_worktree_leaves_it(daemon_factory: DaemonFactory) -> None:
    """A directory the main checkout indexed (and decided to walk) becomes a worktree: from
    then on its files are the worktree's, and what the main checkout took of them is gone."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        wait_for(lambda: ready(c, a), 20)
        (before,) = [r for r in c.status().repositories if r.root == str(a)]
        b = a / ".claude" / "worktrees" / "agent"
        (b / "app").mkdir(parents=True)
        (b / "app" / "scratch.py").write_text("def scratch_pad() -> int:\n    return 1\n")
        wait_for(lambda: c.find_symbols("scratch_pad", repo=str(a)), 10)  # a plain directory of A
        shutil.rmtree(b)
        git(a, "worktree", "add", "-q", "-b", "worktree-agent", str(b))
        wait_for(lambda: ready(c, b), 20)
        (b / "app" / "late.py").write_text("def late_edit() -> int:\n    return 2\n")
        wait_for(lambda: c.find_symbols("late_edit", repo=str(b)), 10)

        def a_is_its_own() -> bool:
            (ra,) = [r for r in c.status().repositories if r.root == str(a)]
            return ra.state.value == "ready" and (ra.files, ra.symbols) == (before.files, before.symbols)

        wait_for(a_is_its_own, 10)
        assert not c.find_symbols("late_edit", repo=str(a))
        assert not c.find_symbols("scratch_pad", repo=str(a))


def test_a_note_saved_in_a_removed_worktree_is_listed_and_confirmed_where_its_code_is(
    daemon_factory: DaemonFactory,
) -> None:
    """An agent saves a note in its worktree; the branch is merged and the worktree removed.
    Later the code changes on ``main``: the note is stale there, listed, and confirmable from
    ``main`` (its checkout is gone), which then becomes its home."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b, note = worktree_with_note(c, a)
        git(a, "worktree", "remove", "--force", str(b))
        wait_for(lambda: str(b) not in checkouts(c), 20)
        crypto = a / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("def hash_password(password: str)",
                                                     "def hash_password(password: str, rounds: int = 1)"))  # fmt: skip
        wait_for(lambda: (o := shown(c, a, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
        listed = shown(c, a, note.id)
        assert listed is not None
        assert listed.confirm_refusal is None
        assert listed.confirm_refused == ""
        assert "status:     stale" in show_in(d, a, note.id)
        for where in ("", str(a)):  # the change behind it (the review page's): on main's code
            (behind,) = c.change(note.id, repo=where).changes
            assert "rounds" in behind.after.text
        other = committed_fixture("go")  # another repository: confirming from it confirms on main's code
        c.add_repo(other)
        confirmed = c.confirm(note.id, repo=str(other))
        assert confirmed.status is ObservationStatus.FRESH
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert c.get(note.id).repo_id == ra.id  # its home now
        now = shown(c, a, note.id)
        assert now is not None
        assert now.status is ObservationStatus.FRESH
        assert now.saved_in == ""
        out = show_in(d, a, note.id)
        assert "status:     fresh" in out, out
        assert "saved in" not in out, out


def test_a_note_made_on_a_branch_deleted_unmerged_is_judged_on_the_code_of_the_others(
    daemon_factory: DaemonFactory,
) -> None:
    """An agent's worktree is discarded with its branch (Claude Code removes both): the notes
    it saved on that branch's code, and on its edits never committed, are no longer "on
    branch" elsewhere (that code will not arrive): they are judged on each checkout's code."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b = worktree(a)
        wait_for(lambda: ready(c, b), 20)
        commit_audit(c, b)
        committed = c.observe("audit_login must not log passwords", anchors=["app/auth/audit.py::audit_login"],
                              repo=str(b))  # fmt: skip
        watch = c.observe("hash_password salts with a constant", anchors=["app/auth/crypto.py::hash_password"],
                          repo=str(b))  # fmt: skip
        crypto = b / "app/auth/crypto.py"
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        wait_for(lambda: (o := shown(c, b, watch.id)) is not None and o.status is ObservationStatus.STALE, 10)
        uncommitted = c.observe("hash_password mixes the password into the salt",
                                anchors=["app/auth/crypto.py::hash_password"], repo=str(b))  # fmt: skip
        for note in (committed, uncommitted):
            got = wait_for(lambda n=note: (o := shown(c, a, n.id)) is not None and o.on_branch, 10)
            assert got

        git(a, "worktree", "remove", "--force", str(b))
        git(a, "branch", "-q", "-D", "feature")
        wait_for(lambda: str(b) not in checkouts(c), 20)
        for note in (committed, uncommitted):
            wait_for(lambda n=note: (o := shown(c, a, n.id)) is not None and not o.on_branch, 10)
        gone = shown(c, a, committed.id)
        assert gone is not None
        assert gone.status is ObservationStatus.STALE  # (its function is on no branch: removed)
        judged = shown(c, a, uncommitted.id)
        assert judged is not None
        assert judged.status is ObservationStatus.STALE  # (A's hash_password is not the edited one)


def test_a_worktree_moved_keeps_its_notes_and_its_old_path_is_not_listed(daemon_factory: DaemonFactory) -> None:
    """``git worktree move``: the checkout at the new path is the same worktree (git's entry for
    it is the same): the notes saved at the old path are its own there, and the old path is not
    listed as a gone checkout."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b, note = worktree_with_note(c, a)
        moved = a.parent / "wt-moved"
        stream = c.events(kinds=[EventKind.OBSERVATION_CHANGED])
        stream.wait_ready()
        timer = threading.Timer(20, stream.cancel)
        timer.start()
        git(a, "worktree", "move", str(b), str(moved))
        try:  # announced in its new home
            event = next(e for e in stream if e.observation_id == note.id and e.repo_id != checkout_id(c, a))
        finally:
            timer.cancel()
            stream.cancel()
        wait_for(lambda: ready(c, moved) and str(b) not in checkouts(c), 20)
        (rm,) = [r for r in c.status().repositories if r.root == str(moved)]
        assert event.repo_id == rm.id
        assert c.get(note.id).repo_id == rm.id  # its home is the moved worktree
        here = shown(c, moved, note.id)
        assert here is not None
        assert here.saved_in == ""  # its own note there, not a sibling's
        assert here.status is ObservationStatus.FRESH
        (ra,) = [r for r in c.status().repositories if r.root == str(a)]
        assert {x.root for x in ra.checkouts} == {str(a), str(moved)}  # no gone checkout listed
        assert rm.files_parsed == 0  # the same files as main's: nothing parsed again
        crypto = moved / "app/auth/crypto.py"  # judged on the moved worktree's code
        crypto.write_text(crypto.read_text().replace("salt=SALT", "salt=SALT + password[:1]"))
        wait_for(lambda: (o := shown(c, moved, note.id)) is not None and o.status is ObservationStatus.STALE, 10)
        in_a = shown(c, a, note.id)
        assert in_a is not None
        assert in_a.status is ObservationStatus.FRESH
        assert in_a.saved_in == rm.id


def test_a_note_on_a_commit_of_a_detached_worktree_is_on_that_commit_elsewhere(daemon_factory: DaemonFactory) -> None:
    """Some agents' worktrees are at a detached HEAD (``git worktree add --detach``): the commits
    made there are on no branch, yet not abandoned while that worktree holds them. A note on
    code committed there is "on <commit>" on ``main``, not stale "removed"."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b = a.parent / "wt-detached"
        git(a, "worktree", "add", "-q", "--detach", str(b))
        wait_for(lambda: ready(c, b), 20)
        commit_audit(c, b)
        note = c.observe("audit_login must not log passwords", anchors=["app/auth/audit.py::audit_login"],
                         repo=str(b))  # fmt: skip
        assert note.origin_branch == ""
        in_a = wait_for(lambda: shown(c, a, note.id), 10)
        assert isinstance(in_a, Observation)
        assert in_a.on_branch == note.origin_commit[:12]
        assert in_a.status is ObservationStatus.FRESH
        in_b = shown(c, b, note.id)
        assert in_b is not None
        assert in_b.status is ObservationStatus.FRESH
        git(a, "worktree", "remove", "--force", str(b))  # gone with the worktree: judged on main's code
        wait_for(lambda: (o := shown(c, a, note.id)) is not None and not o.on_branch, 20)
        gone = shown(c, a, note.id)
        assert gone is not None
        assert gone.status is ObservationStatus.STALE


def test_a_worktree_removed_while_the_daemon_was_stopped_is_no_error(daemon_factory: DaemonFactory) -> None:
    """An agent's worktree is removed while the daemon is stopped (the session ended, the
    machine restarted): the next start does not report it as an error ("cannot register … no
    such directory", every start); it is a gone checkout, its note kept and shown."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b, note = worktree_with_note(c, a)
    assert d.stop() == 0
    git(a, "worktree", "remove", "--force", str(b))
    d2 = daemon_factory([], home=d.home)  # (the saved repositories only: a user's plain restart)
    with d2.client() as c:
        wait_for(lambda: ready(c, a), 20)
        status = c.status()
        assert status.last_error == "", status.last_error
        assert [r.root for r in status.repositories] == [str(a)]
        (ra,) = status.repositories
        assert [(x.root, x.missing, x.notes) for x in ra.checkouts if x.root == str(b)] == [(str(b), True, 1)]
        assert shown(c, a, note.id) is not None


def test_a_worktree_moved_while_the_daemon_was_stopped_keeps_its_notes(daemon_factory: DaemonFactory) -> None:
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b, note = worktree_with_note(c, a)
    assert d.stop() == 0
    moved = a.parent / "wt-moved"
    git(a, "worktree", "move", str(b), str(moved))
    d2 = daemon_factory([], home=d.home)
    with d2.client() as c:
        wait_for(lambda: ready(c, moved), 20)  # git lists it: registered by itself
        rm = checkout_id(c, moved)
        wait_for(lambda: c.get(note.id).repo_id == rm, 10)  # the notes saved at the old path are its own
        status = c.status()
        assert status.last_error == "", status.last_error
        (ra,) = [r for r in status.repositories if r.root == str(a)]
        assert {x.root for x in ra.checkouts} == {str(a), str(moved)}


def test_a_nested_branch_deleted_after_its_worktree_is_seen(daemon_factory: DaemonFactory) -> None:
    """Agent tools name their branches in folders (``claude/…``, ``codex/…``): git keeps such a
    branch in ``refs/heads/<folder>/``. Its worktree removed first, its branch deleted unmerged
    later: the note saved on its code is no longer "on branch" in the main checkout, at once."""
    a = committed_fixture()
    d = daemon_factory([a])
    with d.client() as c:
        b = worktree(a, branch="agent/audit")
        wait_for(lambda: ready(c, b), 20)
        commit_audit(c, b)
        note = c.observe("audit_login must not log passwords", anchors=["app/auth/audit.py::audit_login"],
                         repo=str(b))  # fmt: skip
        wait_for(lambda: (o := shown(c, a, note.id)) is not None and o.on_branch == "agent/audit", 10)
        git(a, "worktree", "remove", "--force", str(b))
        wait_for(lambda: str(b) not in checkouts(c), 20)
        d.wait_idle()
        kept = shown(c, a, note.id)
        assert kept is not None
        assert kept.on_branch == "agent/audit"  # (the branch is still there: it may be merged yet)
        git(a, "branch", "-q", "-D", "agent/audit")
        wait_for(lambda: (o := shown(c, a, note.id)) is not None and not o.on_branch, 10)
        gone = shown(c, a, note.id)
        assert gone is not None
        assert gone.status is ObservationStatus.STALE  # (its function is on no branch: removed)
