"""A worktree on a branch that renames, removes and adds functions in files others import,
derived from the first checkout (``indexing/derive.py``): its differing files are changes of
the sibling's versions, so only the files reading a name that changed are resolved again
(``RepoResolver.derive``'s ``later``), and the edges of the other files into them are the
sibling's, held back until those files are in (``codegraph.Derived.held``, the store's
``Held``). Through the real daemon and real ``git worktree``, against a cold index of the
same checkout: what it answers, its resolution statistics, the store rows it leaves (what a
restart reads its edges from) and its notes' states."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import STORE_ENGINE, Daemon, store_file, wait_for
from gitrepo import git
from graphmem.client import GraphMem
from graphmemd.store.engine import Store
from test_worktree_derive import TIMEOUT, add_feature_worktree, answers, branch_repo, resolution, this_run
from test_worktrees import ready

DaemonFactory = Callable[..., Daemon]

#: the notes saved in the first checkout: anchor -> text
NOTES = {
    "app/auth/crypto.py::hash_password": "hash_password salts with a constant",  # equal on the branch
    "app/auth/crypto.py::make_token": "make_token encodes the user id",  # renamed on the branch
    "app/util/encoding.py::digest": "digest is a salted sha256",  # equal
    "app/util/encoding.py::b64": "b64 is standard base64",  # removed on the branch
    "app/models.py::User.display_name": "display_name is the mail's local part",  # its file gains a method
    "app/api/routes.py::health": "health answers ok in base64",  # an equal file calling b64
    "app/auth/service.py::AuthService.login": "login checks the hash, then makes a token",  # equal, calls make_token
}


#: a file on main and the branch alike: its call of ``digest`` (crypto's import of
#: encoding's) goes to crypto's own ``digest`` on the branch, though encoding's stays
TOKENS = "from app.auth.crypto import *\n\n\ndef token_digest(v: str) -> str:\n    return digest(v)\n"
#: a file on main and the branch alike reading only names the branch keeps: not resolved
#: again, its edges into the differing files are the sibling's
USERS = (
    "from app.models import Model\nfrom app.util.encoding import digest\n\n\n"
    "def fingerprint(u: str) -> str:\n    return digest(u)\n\n\nclass Member(Model):\n    pass\n"
)


def change(a: Path) -> None:
    """The branch: crypto's make_token renamed (service imports it), a function added and
    its own digest defined (shadowing encoding's, which tokens reaches through crypto);
    encoding's b64 removed (crypto, routes call it) and b32 added; models' User gains a
    method. hash_password, encoding's digest and every other file as on main."""
    crypto = a / "app/auth/crypto.py"
    text = crypto.read_text().replace("b64, digest", "b32, digest").replace("make_token", "issue_token")
    crypto.write_text(text.replace("return b64(payload())", "return b32(payload())") + "\n\ndef verify() -> bool:\n"
                      "    return hash_password('x') == hash_password('x')\n\n\ndef digest(value: str, salt: str = '')"
                      " -> str:\n    return salt + value\n")  # fmt: skip
    encoding = a / "app/util/encoding.py"
    text = encoding.read_text()
    start = text.index("def b64(")
    end = text.index("def digest(")
    encoding.write_text(text[:start] + text[end:] + "\n\ndef b32(data: bytes) -> str:\n"
                        "    return base64.b32encode(data).decode('ascii')\n")  # fmt: skip
    models = a / "app/models.py"
    models.write_text(models.read_text().replace(
        '        return self.email.split("@")[0]\n',
        '        return self.email.split("@")[0]\n\n    def is_admin(self) -> bool:\n        return False\n',
    ))  # fmt: skip


def save_notes(c: GraphMem, checkout: Path) -> None:
    for anchor, text in NOTES.items():
        c.observe(text, anchors=[anchor], repo=str(checkout))


def states(c: GraphMem, checkout: Path) -> dict[str, tuple[object, ...]]:
    """Each note's state as ``checkout`` shows it, by its text: status, branch, why stale."""
    out: dict[str, tuple[object, ...]] = {}
    for o in c.list(repo=str(checkout), limit=0):
        reasons = tuple(sorted((r.anchor_ref, r.change.value, r.new_ref, r.dependency_ref) for r in o.stale_reasons))
        out[o.text] = (o.status.value, o.on_branch, reasons)
    assert sorted(out) == sorted(NOTES.values())
    return out


def stored_edges(home: Path, repo_id: str) -> dict[str, set[tuple[object, ...]]]:
    """The resolved edges the store left for ``repo_id``, its id stripped from each end."""
    store = Store(store_file(home), buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE)
    try:
        e = store.load_resolved_edges(repo_id)
    finally:
        store.close()
    cut = len(repo_id) + 1

    def bare(edges: tuple[tuple[object, ...], ...]) -> set[tuple[object, ...]]:
        return {tuple(x[cut:] if isinstance(x, str) and x.startswith(repo_id + ":") else x for x in t) for t in edges}

    # (not the unresolved calls: the store keeps them on the node rows, and a write of a
    # file's re-resolved edges alone — ``replace_files``' ``edge_sources`` — leaves its rows'
    # as they were, on every incremental path: the restart's hand-over re-resolves them)
    return {"imports": bare(e.imports), "external": bare(e.external_imports), "calls": bare(e.calls),
            "inherits": bare(e.inherits)}  # fmt: skip


def checkout_id(c: GraphMem, root: Path) -> str:
    (r,) = [r for r in c.status().repositories if r.root == str(root)]
    return r.id


def repo() -> Path:
    """The python fixture with ``TOKENS`` on main, and the branch ``feature`` (``change``)."""

    def tokens_then_change(a: Path) -> None:
        git(a, "checkout", "-q", "main")
        (a / "app/auth/tokens.py").write_text(TOKENS)
        (a / "app/auth/users.py").write_text(USERS)
        git(a, "add", "-A")
        git(a, "commit", "-q", "-m", "tokens")
        git(a, "checkout", "-q", "-B", "feature")
        change(a)

    return branch_repo(tokens_then_change)


def test_a_branch_worktree_is_narrowed_and_equals_a_cold_index(daemon_factory: DaemonFactory) -> None:
    a = repo()
    d = daemon_factory([a])
    with d.client() as c:
        save_notes(c, a)
        before = answers(c, a)
        b = add_feature_worktree(c, a)
        d.wait_idle()
        log = this_run(d.home)
        derived, derived_stats, derived_states = answers(c, b), resolution(c, b), states(c, b)
        assert answers(c, a) == before
        rid_b = checkout_id(c, b)
        # what the branch changed, as derived: service's call of make_token no longer
        # resolves; its call of hash_password (an equal function of a differing file) does
        login = derived["app/auth/service.py::AuthService.login"]
        assert "app/auth/crypto.py::hash_password" in login[1]
        assert not any("make_token" in ref for ref in login[1])
        assert derived["app/auth/tokens.py::token_digest"][1] == ("app/auth/crypto.py::digest",)
        assert derived["app/auth/users.py::fingerprint"][1] == ("app/util/encoding.py::digest",)
        assert derived["app/auth/users.py::Member"][2] == ("app/models.py::Model",)
    assert d.stop() == 0
    derived_rows = stored_edges(d.home, rid_b)

    # a cold index of the same checkout (a daemon of its own, B first), the same notes
    # saved in the first checkout once it is there (derived from B: B stays cold)
    cold = daemon_factory([b])
    with cold.client() as c:
        wait_for(lambda: ready(c, b), TIMEOUT)
        cold.wait_idle()
        alone, alone_stats = answers(c, b), resolution(c, b)
        if not any(r.root == str(a) for r in c.status().repositories):
            c.add_repo(a)
        wait_for(lambda: ready(c, a), TIMEOUT)
        cold.wait_idle()
        save_notes(c, a)
        cold.wait_idle()
        alone_states = states(c, b)
        rid_alone = checkout_id(c, b)
    assert cold.stop() == 0
    alone_rows = stored_edges(cold.home, rid_alone)

    assert sorted(derived) == sorted(alone)
    for ref, answer in alone.items():
        assert derived[ref] == answer, ref
    assert derived_stats == alone_stats
    for kind, rows in alone_rows.items():
        assert derived_rows[kind] == rows, (kind, sorted(derived_rows[kind] ^ rows))
    assert derived_states == alone_states
    # narrowed: the sibling's edges into the differing files held and linked, and not every
    # file that consulted them resolved again (tokens, service and routes read a changed name;
    # models' readers read none: its method was added)
    took = re.search(r"wt-b\S*: \d+ of \d+ files derived .* (\d+) edges into (\d+) differing files held", log)
    assert took is not None, log
    assert int(took[1]) >= 1, log
    assert int(took[2]) == 3, log
    applied = re.search(r"wt-b\S*: 3 differing files resolved with (\d+) dependents; (\d+) held edges into them", log)
    assert applied is not None, log
    assert int(applied[1]) == 3, log  # routes, service, tokens: not users (nor auth/__init__, models' readers)
    assert int(applied[2]) >= 2, log  # (users' two imports and its calls and base)
