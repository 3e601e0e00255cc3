"""Issue #15, failure 14: an unexpected exception in the store writer or the indexer does not
end the thread; every acknowledged observation stays. An acknowledgement waits for both
copies, so a create whose store copy failed is written again (by the daemon once, then by the
client's retry with the same idempotency key) before it is acknowledged: even without the
journal, the store alone has every acknowledged observation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, wait_for
from faultlib import assert_all_present, observe_many
from graphmem.client import GraphMem


def _searchable(c: GraphMem, acked: dict[str, str]) -> bool:
    return set(acked) <= {r.observation.id for r in c.recall("tokens expire", limit=200).results}


def test_14_store_writer_faults_are_repaired_from_the_journal(
    daemon_factory: Callable[..., Daemon], py_repo: Path
) -> None:
    # the first 12 store writes crash: the index's (about half) and the first observation
    # copies; the supervisor's pauses between consecutive crashes (doubling up to 5 s) make
    # that ~31 s, then the later writes succeed and the failed copies are repaired
    d = daemon_factory([py_repo], env={"GRAPHMEM_INJECT_FAULTS": "store-writer:12"})
    with d.client() as c:
        acked = observe_many(c, 8)
        assert_all_present(c, acked)
        wait_for(lambda: _searchable(c, acked), 15)  # text search is in memory: at once
        wait_for(lambda: not any("store-writer" in r for r in c.status().degraded_reasons), 60)
    log = d.home / "state" / "graphmemd.log"
    assert "injected fault at store-writer" in log.read_text()
    d.kill9()
    (d.home / "data" / "observations.jsonl").unlink()  # the store's copies must hold them all
    d2 = daemon_factory([py_repo], home=d.home)
    with d2.client() as c:
        assert_all_present(c, acked)
        assert _searchable(c, acked)
