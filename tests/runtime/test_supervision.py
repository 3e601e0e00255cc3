"""Every long-lived loop is supervised: an unexpected exception injected into it shows as
DEGRADED with the reason in status, the daemon keeps answering, and the next unit of work
succeeds. Real daemon, real repository copies; the faults are armed with
``GRAPHMEM_INJECT_FAULTS`` (``daemon/graphmemd/faults.py``)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, copy_fixture, wait_for
from graphmem.client import GraphMem
from graphmem.paths import resolve_paths
from graphmem.types import IndexState
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread, install_excepthook

TIMEOUT = 30.0


def degraded_with(c: GraphMem, text: str) -> bool:
    st = c.status()
    return not st.healthy and any(text in r for r in st.degraded_reasons)


def healthy(c: GraphMem) -> bool:
    st = c.status()
    return st.healthy and all(r.state is IndexState.READY and not r.error for r in st.repositories)


def symbols_found(c: GraphMem, name: str) -> bool:
    return any(s.name == name for s in c.find_symbols(name))


def start_with_fault(daemon_factory: Callable[..., Daemon], point: str, repos: list[Path]) -> Daemon:
    return daemon_factory(repos, wait=False, env={"GRAPHMEM_INJECT_FAULTS": f"{point}:1"})


def wait_serving(d: Daemon) -> GraphMem:
    def up() -> bool:
        try:
            with d.client(timeout=2) as c:
                return c.health()
        except Exception:  # noqa: BLE001 - not up yet: keep polling
            return False

    wait_for(up, TIMEOUT)
    return d.client()


def test_indexer_crash_fails_one_job_and_the_next_succeeds(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = start_with_fault(daemon_factory, "indexer", [])
    with wait_serving(d) as c:
        c.add_repo(repo)  # its index job hits the fault
        wait_for(lambda: degraded_with(c, "indexer: InjectedFault"), TIMEOUT)
        assert c.health()  # still answering
        assert not symbols_found(c, "hash_password")
        list(c.index(str(repo)))  # the next job succeeds
        wait_for(lambda: healthy(c), TIMEOUT)
        assert symbols_found(c, "hash_password")
        assert "InjectedFault" in c.status().last_error


def test_store_writer_crash_fails_one_write_and_the_next_succeeds(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = start_with_fault(daemon_factory, "store-writer", [])
    with wait_serving(d) as c:
        c.add_repo(repo)  # the first store write of its index hits the fault
        wait_for(lambda: degraded_with(c, "store-writer: InjectedFault"), TIMEOUT)
        assert c.health()
        d.wait_idle()
        o = c.observe("the writer survived", anchors=["app/auth/crypto.py::hash_password"], repo=str(repo))
        wait_for(lambda: healthy(c), TIMEOUT)  # the writes after it went through
        assert [r.observation.id for r in c.recall("writer survived", repo=str(repo)).results] == [o.id]


def test_parse_pool_crash_is_replaced_by_a_new_pool(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = start_with_fault(daemon_factory, "parse-pool", [])
    with wait_serving(d) as c:
        c.add_repo(repo)  # the dispatcher dies on the first file it hands out
        wait_for(lambda: degraded_with(c, "parse-pool: InjectedFault"), TIMEOUT)
        assert c.health()
        list(c.index(str(repo)))  # a new pool parses
        wait_for(lambda: healthy(c), TIMEOUT)
        assert symbols_found(c, "hash_password")


def test_watcher_batch_crash_rescans_and_loses_nothing(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    d = start_with_fault(daemon_factory, "watcher", [repo])
    with wait_serving(d) as c:
        d.wait_idle()
        (repo / "app" / "extra.py").write_text("def brand_new_helper():\n    return 1\n")
        wait_for(lambda: degraded_with(c, "watcher: InjectedFault"), TIMEOUT)
        # the lost batch is recovered by a rescan of the repository
        wait_for(lambda: symbols_found(c, "brand_new_helper"), TIMEOUT)
        (repo / "app" / "extra2.py").write_text("def second_helper():\n    return 2\n")
        wait_for(lambda: symbols_found(c, "second_helper"), TIMEOUT)
        wait_for(lambda: healthy(c), TIMEOUT)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_supervised_thread_restarts_after_a_crash_and_excepthook_reports() -> None:
    health = Health()
    calls: list[int] = []
    done = threading.Event()

    def step() -> bool:
        calls.append(1)
        if len(calls) == 1:
            raise ValueError("boom")
        health.recover("loop")
        done.set()
        return False

    loop = SupervisedThread("loop", step, health)
    loop.start()
    assert done.wait(5)
    loop.join(5)
    assert len(calls) == 2
    assert health.crashes == 1
    assert not health.degraded()
    assert health.last_error == "loop: ValueError: boom"

    before = threading.excepthook
    install_excepthook(health)
    try:
        t = threading.Thread(target=lambda: 1 / 0, name="doomed")
        t.start()
        t.join()
    finally:
        threading.excepthook = before
    assert [d.component for d in health.degraded()] == ["thread doomed"]
    assert "ZeroDivisionError" in health.degraded()[0].reason


def test_a_one_off_supervised_task_reports_its_failure_with_a_traceback_and_is_not_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    health = Health()
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        raise OSError("no forkserver")

    task = SupervisedThread.once("parse-pool", work, health, failure="the parse workers did not start")
    with caplog.at_level("ERROR", logger="graphmemd.runtime.supervisor"):
        task.start()
        task.join(5)
    assert not task.is_alive()
    assert calls == [1]
    assert [d.component for d in health.degraded()] == ["parse-pool"]
    assert health.last_error == "parse-pool: OSError: no forkserver"
    [record] = caplog.records
    assert record.getMessage() == "the parse workers did not start: OSError: no forkserver"
    assert record.exc_info is not None  # the traceback is in the log

    ran = threading.Event()
    fine = SupervisedThread.once("other", ran.set, health, failure="never said")
    fine.start()
    fine.join(5)
    assert ran.is_set()
    assert not fine.is_alive()
    assert [d.component for d in health.degraded()] == ["parse-pool"]


def test_a_failed_background_start_of_the_parse_workers_shows_in_status_and_the_log(
    daemon_factory: Callable[..., Daemon],
) -> None:
    repo = copy_fixture("python")
    d = start_with_fault(daemon_factory, "parse-start", [repo])
    with wait_serving(d) as c:
        wait_for(lambda: degraded_with(c, "parse-pool: InjectedFault"), TIMEOUT)
        log = resolve_paths(str(d.home), {}).log.read_text(encoding="utf-8")
        assert "the parse workers did not start: InjectedFault" in log
        # the supervisor logged it with its traceback
        after = log.split("the parse workers did not start: InjectedFault", 1)[1]
        assert after.splitlines()[1].startswith("Traceback (most recent call last):")


def test_the_store_writer_refuses_writes_while_the_disk_is_nearly_full() -> None:
    """Kùzu can crash the process after a write that ran out of space, so the writer does not
    let one start (nor its upkeep) while the store's file system is nearly full; the refused
    write fails alone and the writer goes on once space returns."""
    from graphmem.errors import ResourceExhausted
    from graphmemd.store.writer import StoreWriter

    problem = ["disk full: 0 KiB free"]
    upkeep: list[str] = []
    health = Health()
    writer = StoreWriter(health, lambda: upkeep.append("idle"), space_check=lambda: problem[0])
    try:
        refused = writer.submit(lambda: "written")
        with pytest.raises(ResourceExhausted, match="disk full"):
            refused.result(10)
        assert upkeep == []
        assert not health.degraded()  # the disk, not the writer: status reports it (Core.space_problem)
        problem[0] = ""
        assert writer.submit(lambda: "written").result(10) == "written"
        wait_for(lambda: upkeep == ["idle"], 10)
        assert not health.degraded()
    finally:
        writer.close()


def test_urgent_store_writes_jump_the_queue_and_run_between_a_long_writes_steps() -> None:
    """Observation copies (an acknowledgement waits for them) run before queued graph writes,
    and inside a long write wherever it calls ``between_steps`` (a bulk load's chunks)."""
    from graphmemd.store.writer import StoreWriter

    order: list[str] = []
    gate = threading.Event()
    writer = StoreWriter(Health(), lambda: None)
    try:
        writer.submit(gate.wait)  # holds the writer while the rest is queued
        writer.submit(lambda: order.append("graph 1"))

        def long_write() -> None:
            order.append("load chunk 1")
            writer.submit(lambda: order.append("urgent during the load"), urgent=True)
            writer.between_steps()
            order.append("load chunk 2")

        writer.submit(long_write)
        writer.submit(lambda: order.append("urgent 1"), urgent=True)
        writer.submit(lambda: order.append("urgent 2"), urgent=True)
        writer.between_steps()  # not the writer thread: nothing runs here
        gate.set()
        writer.submit(lambda: None).result(10)
        assert order == ["urgent 1", "urgent 2", "graph 1", "load chunk 1", "urgent during the load", "load chunk 2"]
    finally:
        gate.set()
        writer.close()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="thread names are read from /proc (Linux)")
def test_a_supervised_loop_is_named_where_top_shows_threads(daemon_factory: Callable[..., Daemon]) -> None:
    """Every loop of a running daemon shows its own name to ``top -H`` / ``ps -L`` (a thread
    using CPU is then told from its siblings without a debugger): ``gm-<loop>``, a root's
    watcher ``gm-w:<folder>``."""
    d = daemon_factory(repos=[copy_fixture("python")])
    d.wait_idle()
    names = set()
    for task in Path(f"/proc/{d.proc.pid}/task").iterdir():
        with contextlib.suppress(OSError):  # (a thread that ended meanwhile)
            names.add((task / "comm").read_text().strip())
    assert {"gm-store-writer", "gm-indexer", "gm-worktrees", "gm-cochange", "gm-parse-disp"} <= names
    assert "gm-w:python" in names
