"""Knowledge files through the running daemon: agent instructions, an ADR and docs in
Markdown and reStructuredText naming code in Python, Go and TypeScript (the ``knowledge``
fixture), with real files changed on disk and real git commits.

Commits get distinct committer times (``GIT_COMMITTER_DATE``), as commits made by people
do: git's times have one-second steps, and which commit came after a paragraph is decided
by them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, short_tmp, wait_for
from graphmem.client import GraphMem
from graphmem.errors import FailedPrecondition, GraphMemError, NotFound
from graphmem.types import (
    ConfirmRefusal,
    EventKind,
    KnowledgeKind,
    KnowledgeReference,
    Observation,
    ObservationStatus,
    ReferenceState,
)

DaemonFactory = Callable[..., Daemon]
TIMEOUT = 30.0


class Repo:
    """A copy of the knowledge fixture under git, committing at increasing times; with
    ``folder``, as a folder of a git repository (``outer``) that holds a file beside it too."""

    #: the top of the git working tree when the repository is a folder of it
    outer: Path | None = None

    def __init__(self, git_init: bool = True, folder: bool = False) -> None:
        self.root = copy_fixture("knowledge")
        if folder:
            self.outer = self.root.parent / "outer"
            (self.outer / "sites").mkdir(parents=True)
            self.root = self.root.rename(self.outer / "sites" / "knowledge")
            (self.outer / "README.md").write_text("See `hash_password` in sites/knowledge.\n")
        self.clock = int(time.time()) - 1000
        if git_init:
            self.git("init", "-q", "-b", "main")
            self.git("config", "user.email", "dev@example.com")
            self.git("config", "user.name", "Dev")
            self.commit("the fixture", add=True)

    def git(self, *args: str) -> str:
        env = {**os.environ, "GIT_COMMITTER_DATE": f"{self.clock} +0000", "GIT_AUTHOR_DATE": f"{self.clock} +0000"}
        top = self.outer or self.root
        out = subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True, text=True, env=env)
        return out.stdout.strip()

    def commit(self, message: str, add: bool = False) -> str:
        self.clock += 10
        if add:
            self.git("add", "-A")
        self.git("commit", "-qam", message)
        return self.git("rev-parse", "HEAD")

    def edit(self, rel: str, old: str, new: str) -> None:
        p = self.root / rel
        text = p.read_text()
        assert old in text, (rel, old)
        p.write_text(text.replace(old, new))


RENAME = ("app/auth/service.py", "def login(", "def sign_in(")
REMOVE = (
    "server/handler.go",
    "// HandleLogin answers POST /login.\nfunc HandleLogin(w http.ResponseWriter, r *http.Request) {\n"
    "\tw.WriteHeader(http.StatusNoContent)\n}\n",
    "",
)
RESIGN = (
    "app/auth/crypto.py",
    "def hash_password(password: str) -> str",
    "def hash_password(password: str, pepper: str) -> str",
)
REBODY = ("web/src/client.ts", "return user.name.trim();", "return user.name.trim().toUpperCase();")
RESIGN_TS = ("web/src/client.ts", "formatName(user: User): string", "formatName(user: User, locale: string): string")


def units(c: GraphMem) -> list[Observation]:
    return [o for o in c.list(limit=1000) if o.knowledge is not None]


def unit_at(c: GraphMem, path: str, line: int) -> Observation:
    found = [o for o in units(c) if o.knowledge and o.knowledge.path == path and o.knowledge.start_line == line]
    assert len(found) == 1, [(o.knowledge.path, o.knowledge.start_line) for o in units(c) if o.knowledge]
    return found[0]


def problem(c: GraphMem, path: str, text: str) -> KnowledgeReference | None:
    return next((r for r in c.check_knowledge().references if r.path == path and r.text == text), None)


def text_at(root: Path, r: KnowledgeReference) -> str:
    assert r.line == r.end_line
    return (root / r.path).read_text().split("\n")[r.line - 1][r.column - 1 : r.end_column - 1]


def test_knowledge_files_become_units_anchored_to_code(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    d = daemon_factory([repo.root])
    with d.client() as c:
        found = units(c)
        kinds = {o.knowledge.path: o.knowledge.kind for o in found if o.knowledge}
        assert kinds == {
            "CLAUDE.md": KnowledgeKind.AGENT_INSTRUCTIONS,
            "AGENTS.md": KnowledgeKind.AGENT_INSTRUCTIONS,
            ".cursor/rules/auth.mdc": KnowledgeKind.AGENT_INSTRUCTIONS,
            "docs/adr/0001-password-hashing.md": KnowledgeKind.DECISION_RECORD,
            "docs/architecture.md": KnowledgeKind.DOCUMENTATION,
            "docs/api.rst": KnowledgeKind.DOCUMENTATION,
        }
        anchors = {a.ref for o in found for a in o.anchors}
        assert {
            "app/auth/crypto.py::hash_password",  # Python
            "server/handler.go::Server.Start",  # Go
            "web/src/client.ts::ApiClient.fetchUser",  # TypeScript
            "app/auth/service.py::AuthService",  # .. autoclass:: app.auth.service.AuthService
        } <= anchors
        assert all(o.status is ObservationStatus.FRESH for o in found)
        for o in found:
            for r in o.references:
                assert text_at(repo.root, r) == r.text, r
        # a link to a line anchors the symbol around it
        server = unit_at(c, "CLAUDE.md", 11)
        link = next(r for r in server.references if r.text == "server/handler.go#L11")
        assert link.target_ref == "server/handler.go::Server.Start"
        assert unit_at(c, "docs/architecture.md", 3).anchors[0].ref == "server/handler.go::HandleLogin"
        assert unit_at(c, "CLAUDE.md", 5).knowledge.heading_path == ("Working on this repository", "Authentication")  # type: ignore[union-attr]
        check = c.check_knowledge()
        assert (check.files_checked, check.units, check.references) == (6, len(found), ())
        assert check.references_checked == sum(len(o.references) for o in found)
        # read-only through graphmem
        with pytest.raises(FailedPrecondition, match="edit the file"):
            c.update(server.id, text="something else")
        with pytest.raises(FailedPrecondition, match=r"CLAUDE\.md:11"):
            c.delete(server.id)


def _assert_changes_found(c: GraphMem, root: Path, commits: dict[str, str]) -> None:
    """The marks the four commits leave, whether seen live or read from history."""
    login = problem(c, "CLAUDE.md", "AuthService.login")
    assert login is not None
    assert login.state is ReferenceState.DANGLING
    assert login.renamed_to == "app/auth/service.py::AuthService.sign_in"
    assert login.commit == commits["rename"]
    assert "renamed to `AuthService.sign_in`" in login.reason
    assert text_at(root, login) == "AuthService.login"
    meth = problem(c, "docs/api.rst", ":meth:`AuthService.login`")
    assert meth is not None
    assert meth.state is ReferenceState.DANGLING
    assert meth.renamed_to.endswith("sign_in")
    link = problem(c, "docs/architecture.md", "../server/handler.go#L16")
    assert link is not None
    assert link.state is ReferenceState.DANGLING
    assert link.commit == commits["remove"]
    assert "server/handler.go::HandleLogout" in link.close_matches
    # mentioned without arguments (``hash_password()`` too: empty parentheses are a mention);
    # a new required parameter breaks old callers: suspect
    for path, text in (("CLAUDE.md", "hash_password()"), ("docs/adr/0001-password-hashing.md", "hash_password")):
        suspect = problem(c, path, text)
        assert suspect is not None
        assert suspect.state is ReferenceState.SUSPECT
        assert suspect.commit == commits["resign"]
        assert suspect.reason.endswith(f"parameter `pepper` added (required) in {commits['resign'][:7]}")
        assert suspect.new_signature == "def hash_password(password: str, pepper: str) -> str"
    body = problem(c, "AGENTS.md", "formatName")  # a body change of a named function: nothing to act on
    assert body is not None
    assert body.state is ReferenceState.CHANGED
    assert body.commit == commits["rebody"]
    assert unit_at(c, "CLAUDE.md", 7).status is ObservationStatus.STALE
    assert unit_at(c, "AGENTS.md", 4).status is ObservationStatus.FRESH


def _stale_event(c: GraphMem, obs_id: str) -> bool:
    """Whether the event buffer holds an OBSERVATION_STALE event for ``obs_id``."""
    stream = c.events(kinds=[EventKind.OBSERVATION_STALE], after_seq=0)
    timer = threading.Timer(TIMEOUT, stream.cancel)
    timer.start()
    try:
        return any(e.observation_id == obs_id for e in stream)
    except GraphMemError:
        return False
    finally:
        timer.cancel()
        stream.cancel()


def _make_changes(repo: Repo, d: Daemon | None) -> dict[str, str]:
    commits: dict[str, str] = {}
    for name, change in (("rename", RENAME), ("remove", REMOVE), ("resign", RESIGN), ("rebody", REBODY)):
        repo.edit(*change)
        commits[name] = repo.commit(name)
        if d is not None:
            d.wait_idle()
    return commits


def test_live_rename_removal_signature_and_body_changes(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    d = daemon_factory([repo.root])
    with d.client() as c:
        commits = _make_changes(repo, d)
        wait_for(lambda: (p := problem(c, "AGENTS.md", "formatName")) is not None and p.commit, TIMEOUT)
        _assert_changes_found(c, repo.root, commits)
        suspect = {o.id for o in c.list(statuses=[ObservationStatus.SUSPECT])}
        assert unit_at(c, "CLAUDE.md", 5).id in suspect  # list --suspect treats units like any note
        assert _stale_event(c, unit_at(c, "CLAUDE.md", 7).id)  # and so do events
        # editing the paragraph clears it (same unit: same id)
        before = unit_at(c, "CLAUDE.md", 5)
        repo.edit("CLAUDE.md", "with `hash_password()` from", "with `hash_password()` (and a pepper) from")
        wait_for(lambda: unit_at(c, "CLAUDE.md", 5).status is ObservationStatus.FRESH, TIMEOUT)
        assert unit_at(c, "CLAUDE.md", 5).id == before.id
        # confirm clears a stale unit; a dangling one must be edited
        adr = unit_at(c, "docs/adr/0001-password-hashing.md", 5)
        assert adr.confirm_refused == ""  # listed as confirmable, and it is
        assert c.confirm(adr.id, confirmed_by="rev").status is ObservationStatus.FRESH
        assert problem(c, "docs/adr/0001-password-hashing.md", "hash_password") is None
        dangling = unit_at(c, "CLAUDE.md", 7)
        assert dangling.confirm_refused.endswith("edit CLAUDE.md:7")  # listed with the refusal it gets
        assert dangling.confirm_refusal is ConfirmRefusal.CODE_GONE
        assert adr.confirm_refusal is None
        with pytest.raises(FailedPrecondition, match=r"edit CLAUDE\.md:7") as refused:
            c.confirm(dangling.id)
        assert refused.value.message == dangling.confirm_refused


def test_cold_start_reads_what_changed_since_the_paragraphs_from_history(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    commits = _make_changes(repo, None)
    d = daemon_factory([repo.root])
    with d.client() as c:
        _assert_changes_found(c, repo.root, commits)


def test_a_folder_of_a_repository_reads_its_history_too(daemon_factory: DaemonFactory) -> None:
    """Registered as a folder of a git repository: the same marks, with the same commits, read
    from the history of the repository around it; a commit beside the folder changes none."""
    repo = Repo(folder=True)
    commits = _make_changes(repo, None)
    assert repo.outer is not None
    (repo.outer / "README.md").write_text("See `hash_password` in sites/knowledge (and `AuthService.login`).\n")
    repo.commit("beside")
    d = daemon_factory([repo.root])
    with d.client() as c:
        _assert_changes_found(c, repo.root, commits)
        assert {o.knowledge.path for o in units(c) if o.knowledge} >= {"CLAUDE.md", "AGENTS.md"}
        assert "README.md" not in {o.knowledge.path for o in units(c) if o.knowledge}


def test_shared_notes_follow_branches_and_survive_a_restart(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    d = daemon_factory([repo.root])
    with d.client() as c:
        note = c.observe(
            "Hashing must stay constant-time; `check_password` relies on it.",
            anchors=["app/auth/crypto.py::hash_password"],
            shared=True,
        )
        path = repo.root / ".graphmem" / "notes" / f"{note.id}.md"
        text = path.read_text()
        assert f'id: "{note.id}"' in text
        assert '"app/auth/crypto.py::hash_password"' in text
        assert 'author: "Dev"' in text
        assert note.knowledge is not None
        assert note.knowledge.kind is KnowledgeKind.SHARED_NOTE
        assert next(a.ref for a in note.anchors) == "app/auth/crypto.py::hash_password"
        repo.git("checkout", "-q", "-b", "notes")
        repo.commit("a shared note", add=True)
        d.wait_idle()
        repo.git("checkout", "-q", "main")
        wait_for(lambda: not path.exists(), TIMEOUT)
        d.wait_idle()
        wait_for(lambda: note.id not in {o.id for o in units(c)}, TIMEOUT)
        with pytest.raises(NotFound):
            c.get(note.id)
        repo.git("checkout", "-q", "notes")
        wait_for(lambda: note.id in {o.id for o in units(c)}, TIMEOUT)
        # its code changes: stale (a note is written about its anchors), then confirmed in the file
        repo.edit("app/auth/crypto.py", "(SALT + password)", "(password + SALT)")
        wait_for(lambda: c.get(note.id).status is ObservationStatus.STALE, TIMEOUT)
        assert c.confirm(note.id, confirmed_by="bob").status is ObservationStatus.FRESH
        assert 'confirmed_by: "bob"' in path.read_text()
        d.wait_idle()
        kept = {o.id: (o.status, o.confirmed_by, o.knowledge) for o in units(c)}
    home = d.home
    assert d.stop() == 0
    d2 = daemon_factory([repo.root], home=home)
    with d2.client() as c:
        assert {o.id: (o.status, o.confirmed_by, o.knowledge) for o in units(c)} == kept
        assert c.get(note.id).confirmed_by == "bob"


def test_outside_git_the_file_time_stands_in(daemon_factory: DaemonFactory) -> None:
    repo = Repo(git_init=False)
    d = daemon_factory([repo.root])
    with d.client() as c:
        assert unit_at(c, "AGENTS.md", 4).status is ObservationStatus.FRESH
        repo.edit(*REBODY)  # a body change of a named function: nothing to act on
        wait_for(lambda: problem(c, "AGENTS.md", "formatName") is not None, TIMEOUT)
        assert unit_at(c, "AGENTS.md", 4).status is ObservationStatus.FRESH
        repo.edit(*RESIGN_TS)  # a new required parameter: old callers break
        wait_for(lambda: unit_at(c, "AGENTS.md", 4).status is ObservationStatus.SUSPECT, TIMEOUT)
        body = problem(c, "AGENTS.md", "formatName")
        assert body is not None
        assert body.state is ReferenceState.SUSPECT
        assert body.commit == ""
        assert body.reason.endswith(", uncommitted")
        repo.edit("AGENTS.md", "must stay pure", "must stay pure (it upper-cases now)")
        wait_for(lambda: unit_at(c, "AGENTS.md", 4).status is ObservationStatus.FRESH, TIMEOUT)
        # a name written before its code: anchored once the code exists
        repo.edit("AGENTS.md", "- Run `npm test`", "- `parseUser` validates input.\n- Run `npm test`")
        d.wait_idle()
        assert not [o for o in units(c) if o.knowledge and "parseUser" in o.text]
        (repo.root / "web" / "src" / "parse.ts").write_text(
            "export function parseUser(raw: string) {\n  return raw;\n}\n"
        )
        wait_for(lambda: [o for o in units(c) if o.knowledge and "parseUser" in o.text], TIMEOUT)


def test_repository_config_chooses_the_files(daemon_factory: DaemonFactory) -> None:
    repo = Repo()
    d = daemon_factory([repo.root])
    with d.client() as c:
        assert any(o.knowledge and o.knowledge.path.startswith("docs/") for o in units(c))
        (repo.root / ".graphmem.toml").write_text('[knowledge]\nexclude = ["docs/**"]\ninclude = ["web/NOTES.md"]\n')
        (repo.root / "web" / "NOTES.md").write_text("`ApiClient` retries nothing.\n")
        wait_for(lambda: not any(o.knowledge and o.knowledge.path.startswith("docs/") for o in units(c)), TIMEOUT)
        wait_for(lambda: any(o.knowledge and o.knowledge.path == "web/NOTES.md" for o in units(c)), TIMEOUT)
        shutil.rmtree(repo.root / "docs")
        d.wait_idle()
        assert c.check_knowledge().files_checked == 4


_ROUNDS = re.compile(r"(\S+): \d+ knowledge files read, .*, (\d+) rounds of commit searches\)")


def test_the_commits_that_removed_names_are_searched_side_by_side(daemon_factory: DaemonFactory) -> None:
    """A document naming four functions removed one by one since it was written: each
    dangling reference names the commit that removed its function, and the four binary
    searches over the file's eight commits ran side by side (each round's versions read and
    parsed in one batch): as many rounds as one search takes, not the four searches' sum."""
    repo = Repo()
    names = ("alpha_op", "beta_op", "gamma_op", "delta_op")
    ops = repo.root / "app" / "ops.py"
    ops.write_text("".join(f"def {n}(x):\n    return x + {i}\n\n\n" for i, n in enumerate(names)))
    (repo.root / "docs" / "ops.md").write_text(
        "# Operations\n\n" + "".join(f"Call `{n}` for step {i}.\n\n" for i, n in enumerate(names))
    )
    repo.commit("the operations", add=True)
    removed: dict[str, str] = {}
    for k in range(8):  # a removal every other commit, an unrelated edit between
        if k % 2:
            name = names[k // 2]
            repo.edit("app/ops.py", f"def {name}(x):\n    return x + {k // 2}\n\n\n", "")
            removed[name] = repo.commit(f"remove {name}")
        else:
            ops.write_text(ops.read_text() + f"# note {k}\n")
            repo.commit(f"note {k}")
    d = daemon_factory([repo.root])
    with d.client() as c:
        for name, commit in removed.items():
            found = wait_for(lambda n=name: problem(c, "docs/ops.md", n), TIMEOUT)  # type: ignore[misc]
            assert found.state is ReferenceState.DANGLING, found
            assert found.commit == commit, (name, found)
        rid = c.status().repositories[0].id
    rounds = [int(m.group(2)) for m in _ROUNDS.finditer((d.home / "state" / "graphmemd.log").read_text())
              if m.group(1) == rid]  # fmt: skip
    assert rounds, "no knowledge pass logged"
    # one search over 8 commits takes 3 or 4 steps; the four one after the other, 12 or more
    assert 3 <= max(rounds) <= 4, rounds
    d.stop()


_PASS = re.compile(r"(\S+): \d+ knowledge files read, .* in [\d.]+s \((\d+) git runs, (\d+) old parses")


def _knowledge_passes(d: Daemon) -> dict[str, tuple[int, int]]:
    """The last knowledge pass of each checkout in the daemon's log: (git runs, old parses)."""
    text = (d.home / "state" / "graphmemd.log").read_text()
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _PASS.finditer(text)}


def test_a_worktree_reads_its_knowledge_from_the_history_its_sibling_read(daemon_factory: DaemonFactory) -> None:
    """A worktree's knowledge pass asks git and parses old versions only for what its sibling's
    did not (its history is the same repository's): the same marks with the same commits, for
    a fraction of the git runs and no old parse; a commit in the worktree since is its own."""
    repo = Repo()
    commits = _make_changes(repo, None)
    d = daemon_factory([repo.root])
    tree = short_tmp() / "wt"
    with d.client() as c:
        _assert_changes_found(c, repo.root, commits)
        main_id = c.status().repositories[0].id
        first = _knowledge_passes(d)[main_id]
        assert first[1] > 0  # (the sibling parsed old versions: there is something to share)
        repo.git("worktree", "add", "-q", "-b", "side", str(tree))
        try:

            def worktree_pass() -> tuple[str, tuple[int, int]] | None:
                return next(((rid, p) for rid, p in _knowledge_passes(d).items() if rid != main_id), None)

            wt_id, (runs, parses) = wait_for(worktree_pass, TIMEOUT)  # type: ignore[misc]
            assert parses == 0, (first, runs, parses)
            assert runs < first[0] / 2, (first, runs, parses)

            def marks(rid: str) -> dict[tuple[str, str], tuple[object, ...]]:
                return {(r.path, r.text): (r.state, r.commit, r.reason) for r in c.check_knowledge(repo=rid).references}

            assert marks(wt_id)
            assert marks(wt_id) == marks(main_id)

            # the worktree's own commit re-signs ``hash_password`` again: its mark names that
            # commit; the sibling's still names the first one
            crypto = tree / "app" / "auth" / "crypto.py"
            crypto.write_text(crypto.read_text().replace("pepper: str)", "pepper: str, rounds: int)"))
            subprocess.run(["git", "-C", str(tree), "commit", "-qam", "rounds"], check=True, capture_output=True)
            again = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], check=True, capture_output=True,
                                   text=True).stdout.strip()  # fmt: skip

            def resigned() -> KnowledgeReference | None:
                r = next((r for r in c.check_knowledge(repo=wt_id).references if r.text == "hash_password()"), None)
                return r if r is not None and r.commit == again else None

            assert wait_for(resigned, TIMEOUT) is not None
            mine = next(r for r in c.check_knowledge(repo=main_id).references if r.text == "hash_password()")
            assert mine.commit == commits["resign"]
        finally:
            repo.git("worktree", "remove", "--force", str(tree))
    d.stop()
