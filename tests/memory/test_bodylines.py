""""body changed: N lines" (issue 41 item 3): the pure count, and a real daemon on real git history."""

from __future__ import annotations

from collections.abc import Callable

from conftest import Daemon, copy_fixture, wait_for
from gitrepo import committed_fixture, git
from graphmem.changes import change_line
from graphmem.types import Anchor, AnchorKind, Category, ChangeKind, Observation, ObservationStatus, StaleReason
from graphmemd.graph.model import Language, SymbolInfo, SymbolKind
from graphmemd.memory.bodylines import BodyQuery, count_changed, queries, with_counts

OLD = """import os


def first(a):
    x = a + 1
    y = x * 2
    z = y - 3
    return z


def second(b):
    return b
"""


def _lines_of(text: str, name: str) -> tuple[int, int]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {name}(")) + 1
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(" ")):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return start, end


def test_three_lines_of_a_body_edited() -> None:
    new = OLD.replace("a + 1", "a + 10").replace("x * 2", "x * 20").replace("y - 3", "y - 30")
    assert count_changed(OLD, new, *_lines_of(new, "first")) == 3
    assert count_changed(OLD, new, *_lines_of(new, "second")) == 0  # a change elsewhere is not its


def test_lines_added_removed_and_a_body_cut_short() -> None:
    added = OLD.replace("    return z\n", "    log(z)\n    return z\n")
    assert count_changed(OLD, added, *_lines_of(added, "first")) == 1
    removed = OLD.replace("    y = x * 2\n", "")
    assert count_changed(OLD, removed, *_lines_of(removed, "first")) == 1
    cut = OLD.replace("    z = y - 3\n    return z\n", "")  # the body's last two lines: after its new end
    assert count_changed(OLD, cut, *_lines_of(cut, "first")) == 2
    rewritten = OLD.replace("    x = a + 1\n    y = x * 2\n", "    x = a + 1 * 2\n")  # two lines become one
    assert count_changed(OLD, rewritten, *_lines_of(rewritten, "first")) == 2
    assert count_changed(OLD, OLD, *_lines_of(OLD, "first")) == 0
    assert count_changed(OLD, OLD, 40, 50) == 0  # lines the file no longer has


class _Code:
    def __init__(self, *symbols: SymbolInfo) -> None:
        self.symbols = {s.id: s for s in symbols}

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        return self.symbols.get(symbol_id)

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        return None


def test_only_body_changes_found_now_are_measured_and_counted() -> None:
    ref = "m.py::first"
    sym = SymbolInfo("s1", "r", "m.py", "first", "first", SymbolKind.FUNCTION, Language.PYTHON, None, 4, 8,
                     "def first(a):", "sh", "bh")
    anchor = Anchor(kind=AnchorKind.SYMBOL, ref=ref, repo_id="r", path="m.py", symbol_id="s1")
    now = StaleReason(ref, ChangeKind.BODY_CHANGED, 10.0, commit="c", uncommitted=True)
    earlier = StaleReason("m.py::second", ChangeKind.BODY_CHANGED, 5.0)
    o = Observation("o", "r", "t", Category.OTHER, 1.0, 1.0, anchors=(anchor,), status=ObservationStatus.STALE,
                    stale_reasons=(now, earlier))
    assert queries([o], 10.0, _Code(sym)) == [BodyQuery(ref, "m.py", 4, 8)]
    assert queries([o], 11.0, _Code(sym)) == []
    assert queries([o], 10.0, _Code()) == []  # the symbol is gone
    counted = with_counts(o, 10.0, {ref: 3, "m.py::second": 7})
    assert [r.lines_changed for r in counted.stale_reasons] == [3, 0]
    assert with_counts(o, 10.0, {ref: 0}) is o


TOKEN_OLD = """def make_token(user_id: int) -> str:
    def payload() -> bytes:
        return str(user_id).encode()

    return b64(payload())
"""
TOKEN_NEW = """def make_token(user_id: int) -> str:
    def payload() -> bytes:
        return str(user_id + 1).encode()

    token = b64(payload())
    return token
"""


def _reason(d: Daemon, note_id: str) -> StaleReason:
    with d.client() as c:
        wait_for(lambda: c.get(note_id).status is ObservationStatus.STALE, 30)
        (r,) = c.get(note_id).stale_reasons
        return r


def test_a_body_edited_in_the_working_tree_then_in_a_commit(daemon_factory: Callable[..., Daemon]) -> None:
    repo = committed_fixture("python")
    crypto = repo / "app/auth/crypto.py"
    assert TOKEN_OLD in crypto.read_text()
    # a commit on a branch the daemon has not seen: hash_password's body edited by 3 lines
    git(repo, "checkout", "-qb", "longer")
    crypto.write_text(crypto.read_text().replace(
        "    return digest(password, salt=SALT)\n",
        "    salted = password + SALT\n    twice = digest(salted, salt=SALT)\n    return twice.lower()\n"))
    git(repo, "commit", "-qam", "hash twice")
    sha = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "main")
    d = daemon_factory([repo])
    with d.client() as c:
        hashing = c.observe("hashing is salted", anchors=["app/auth/crypto.py::hash_password"])
        token = c.observe("tokens carry the user id", anchors=["app/auth/crypto.py::make_token"])

    # uncommitted: make_token's body, 2 lines changed and 1 added
    crypto.write_text(crypto.read_text().replace(TOKEN_OLD, TOKEN_NEW))
    r = _reason(d, token.id)
    assert (r.change, r.lines_changed, r.uncommitted) == (ChangeKind.BODY_CHANGED, 3, True)
    assert change_line(r) == "`app/auth/crypto.py::make_token`: body changed: 3 lines, uncommitted"
    git(repo, "checkout", "-q", "--", "app/auth/crypto.py")
    with d.client() as c:
        wait_for(lambda: c.get(token.id).status is ObservationStatus.FRESH, 30)

    # committed: the branch's commit arrives with the merge (HEAD and the file move together)
    git(repo, "merge", "-q", "--ff-only", "longer")
    r = _reason(d, hashing.id)
    assert (r.change, r.lines_changed, r.uncommitted, r.commit) == (ChangeKind.BODY_CHANGED, 3, False, sha)
    assert change_line(r) == f"`app/auth/crypto.py::hash_password`: body changed: 3 lines, in {sha[:7]}"
    with d.client() as c:  # every surface reads the same reason: the CLI's show, here through the client
        assert c.get(hashing.id).stale_reasons[0].lines_changed == 3


def test_a_repository_registered_in_a_folder_of_a_git_repository(daemon_factory: Callable[..., Daemon]) -> None:
    """The README's walk-through: the fixture registered where it lies, a folder of the git
    repository (no ``.git`` of its own). It is in that repository: its HEAD in ``status``, the
    count read from there, the commit named once the change is committed; a file beside the
    folder changing, committed or not, does not touch its notes."""
    copied = copy_fixture("python")
    outer = copied.parent / "outer"
    repo = outer / "fixtures" / "python"
    repo.parent.mkdir(parents=True)
    copied.rename(repo)
    beside = outer / "beside.py"
    beside.write_text("def hash_password(password):\n    return password\n")
    git(outer, "init", "-q", "-b", "main")
    git(outer, "add", "-A")
    git(outer, "commit", "-qm", "the fixture")
    first = git(outer, "rev-parse", "HEAD")
    d = daemon_factory([repo])
    with d.client() as c:
        (r_status,) = c.status().repositories
        assert (r_status.head_commit, [(x.branch, x.head_commit) for x in r_status.checkouts]) == (
            first, [("main", first)])
        note = c.observe("hashing is salted", anchors=["app/auth/crypto.py::hash_password"])
    crypto = repo / "app/auth/crypto.py"
    crypto.write_text(crypto.read_text().replace(
        "return digest(password, salt=SALT)", "return digest(password.strip(), salt=SALT)"))
    r = _reason(d, note.id)
    assert (r.change, r.lines_changed, r.uncommitted) == (ChangeKind.BODY_CHANGED, 1, True)
    assert change_line(r) == "`app/auth/crypto.py::hash_password`: body changed: 1 line, uncommitted"

    # beside the folder: a change and a commit of it alone (HEAD moves) leave the note as it was
    beside.write_text("def hash_password(password):\n    return password.strip()\n")
    git(outer, "commit", "-qm", "beside", "--", "beside.py")
    second = git(outer, "rev-parse", "HEAD")
    with d.client() as c:
        wait_for(lambda: c.recall("hashing") and c.status().repositories[0].head_commit == second, 30)
        d.wait_idle()
        (r,) = c.get(note.id).stale_reasons
        assert change_line(r) == "`app/auth/crypto.py::hash_password`: body changed: 1 line, uncommitted"
        assert [a.ref for a in c.get(note.id).anchors] == ["app/auth/crypto.py::hash_password"]

        # the folder's change committed: its commit is named
        git(outer, "commit", "-qam", "strip the password")
        third = git(outer, "rev-parse", "HEAD")
        wait_for(lambda: c.recall("hashing") and c.get(note.id).stale_reasons[0].commit == third, 30)
        (r,) = c.get(note.id).stale_reasons
        assert (r.lines_changed, r.uncommitted) == (1, False)
        assert change_line(r) == f"`app/auth/crypto.py::hash_password`: body changed: 1 line, in {third[:7]}"
