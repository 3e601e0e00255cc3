"""A change that re-resolves only the files reading a changed name (narrowed dependents:
``RepoResolver.dependents_of``) leaves the files that call into the changed file alone, in
the graph and in the store: the store the daemon leaves (what a restart without a snapshot
reads its edges from) still has every caller of a function whose body was edited. Through
the real daemon, on the store engine the tests run on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import STORE_ENGINE, Daemon, store_file, wait_for
from graphmem.client import GraphMem
from graphmemd.store.engine import Store

DaemonFactory = Callable[..., Daemon]
CRYPTO = "app/auth/crypto.py"


def callers(c: GraphMem, ref: str) -> list[str]:
    return sorted(x.ref for x in c.symbol(ref).callers)


def test_a_body_edit_keeps_its_callers_edges_in_the_store(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    ref = f"{CRYPTO}::hash_password"
    with d.client() as c:
        before, end = callers(c, ref), c.symbol(ref).symbol.end_line
        assert len(before) == 2  # (the service's register and login)
        path = py_repo / CRYPTO
        text = path.read_text(encoding="utf-8")
        # hash_password's body edited: no name of the file changed, its callers are not
        # resolved again (their edges into it are kept as they are)
        body = "    return digest(password, salt=SALT)"
        path.write_text(text.replace(body, "    return digest(\n        password, salt=SALT\n    )"), encoding="utf-8")
        wait_for(lambda: c.symbol(ref).symbol.end_line == end + 2, timeout=30)
        d.wait_idle()
        assert callers(c, ref) == before
        rid = c.status().repositories[0].id
    assert d.stop() == 0
    # the store as the daemon left it (a restart would read its edges back, then correct
    # them once idle: ``restore.hand_over``)
    store = Store(store_file(d.home), buffer_pool_mb=64, max_db_size_gb=1, engine=STORE_ENGINE)
    try:
        edges = store.load_resolved_edges(rid)
    finally:
        store.close()
    target = f"{rid}:{ref}#function"
    stored = sorted(a.split(":", 1)[1].rsplit("#", 1)[0] for a, b, _ in edges.calls if b == target)
    assert stored == before
