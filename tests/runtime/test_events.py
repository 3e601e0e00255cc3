"""The event stream: sequence numbers, resume after a disconnect (replay buffer, gaps reported),
headers at once, every observation action, and ``daemon stop`` under 1 s with a subscriber.

Pure parts (the bus, the action rule) run in-process; the rest against a real daemon."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import grpc
import pytest
from conftest import ROOT, Daemon, wait_for
from graphmem.errors import GraphMemError
from graphmem.types import (
    Anchor,
    AnchorKind,
    Category,
    ChangeKind,
    Event,
    EventKind,
    Observation,
    ObservationAction,
    ObservationStatus,
    StaleReason,
)
from graphmem.v1 import service_pb2, service_pb2_grpc
from graphmemd.runtime.events import EventBus, action_for_change

ANCHOR = "app/auth/crypto.py::hash_password"
OLD_BODY = "return digest(password, salt=SALT)"


def _event(n: int, repo: str = "r") -> Event:
    return Event(EventKind.WATCHER_DEGRADED, 0.0, repo, message=f"m{n}")


# ---------------------------------------------------------------------------- the bus (pure)


def test_seq_numbers_and_resume_from_the_replay_buffer() -> None:
    bus = EventBus(replay_size=5)
    published = [bus.publish(_event(n)) for n in range(3)]
    assert [e.seq for e in published] == [1, 2, 3]
    sub = bus.subscribe(after_seq=1)
    got = [sub.get(0) for _ in range(2)]
    assert [e.seq for e in got if e] == [2, 3]
    bus.publish(_event(3))
    live = sub.get(1)
    assert live is not None
    assert live.seq == 4
    assert sub.get(0) is None


def test_a_resume_point_older_than_the_buffer_is_reported() -> None:
    bus = EventBus(replay_size=3)
    for n in range(10):
        bus.publish(_event(n))
    sub = bus.subscribe(after_seq=2)
    lost = sub.get(0)
    assert lost is not None
    assert lost.kind is EventKind.EVENTS_LOST
    assert "events 3..7" in lost.message
    assert lost.seq == 7
    assert [e.seq for e in (sub.get(0), sub.get(0), sub.get(0)) if e] == [8, 9, 10]


def test_a_resume_point_from_a_previous_run_is_reported() -> None:
    bus = EventBus()
    bus.publish(_event(0))
    sub = bus.subscribe(after_seq=50)
    lost = sub.get(0)
    assert lost is not None
    assert lost.kind is EventKind.EVENTS_LOST
    assert "restarted" in lost.message


def test_a_slow_subscriber_is_told_about_the_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphmemd.runtime.events as events

    monkeypatch.setattr(events, "QUEUE_SIZE", 3)
    bus = EventBus()
    sub = bus.subscribe(kinds=[EventKind.FILE_INDEXED])  # EVENTS_LOST comes whatever the filter
    for n in range(6):
        bus.publish(Event(EventKind.FILE_INDEXED, 0.0, "r", path=f"f{n}"))
    lost = sub.get(0)
    assert lost is not None
    assert lost.kind is EventKind.EVENTS_LOST
    assert "events 1..3" in lost.message
    assert [e.path for e in (sub.get(0), sub.get(0), sub.get(0)) if e] == ["f3", "f4", "f5"]


def test_close_wakes_subscribers_at_once() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    woke: list[float] = []

    def wait() -> None:
        t0 = time.monotonic()
        sub.get(timeout=30)
        woke.append(time.monotonic() - t0)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.05)
    bus.close()
    t.join(5)
    assert woke
    assert woke[0] < 1.0
    assert bus.subscribe().get(0) is None  # subscribing after close ends at once


def _obs(status: ObservationStatus, *reasons: tuple[str, ChangeKind]) -> Observation:
    anchor = Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py")
    return Observation(
        id="o1",
        repo_id="r",
        text="t",
        category=Category.OTHER,
        created_at=1.0,
        updated_at=1.0,
        status=status,
        anchors=(anchor,),
        stale_reasons=tuple(StaleReason(ref, change, 1.0) for ref, change in reasons),
    )


def test_action_for_change() -> None:
    fresh = _obs(ObservationStatus.FRESH)
    body = _obs(ObservationStatus.STALE, ("a.py::f", ChangeKind.BODY_CHANGED))
    both = _obs(
        ObservationStatus.STALE, ("a.py::f", ChangeKind.BODY_CHANGED), ("a.py::f", ChangeKind.SIGNATURE_CHANGED)
    )
    renamed = _obs(ObservationStatus.STALE, ("a.py::f", ChangeKind.RENAMED))
    suspect = _obs(ObservationStatus.SUSPECT, ("a.py::f", ChangeKind.DEPENDENCY_CHANGED))
    assert action_for_change(fresh, body) is ObservationAction.STALE
    assert action_for_change(body, both) is ObservationAction.STALE  # more of its code changed
    assert action_for_change(body, fresh) is ObservationAction.FRESH
    assert action_for_change(fresh, renamed) is ObservationAction.RENAMED
    assert action_for_change(both, body) is ObservationAction.UPDATED
    assert action_for_change(fresh, suspect) is ObservationAction.SUSPECT
    assert action_for_change(suspect, fresh) is ObservationAction.FRESH
    assert action_for_change(suspect, body) is ObservationAction.STALE
    archived = replace(fresh, status=ObservationStatus.ARCHIVED)
    archived_changed = replace(body, status=ObservationStatus.ARCHIVED)
    assert action_for_change(archived, archived_changed) is ObservationAction.UPDATED


# ---------------------------------------------------------------------------- against the daemon


def _stub(d: Daemon) -> service_pb2_grpc.EventServiceStub:
    channel = grpc.insecure_channel(f"unix:{d.home / 'run' / 'graphmemd.sock'}")
    return service_pb2_grpc.EventServiceStub(channel)  # type: ignore[no-untyped-call]


def test_headers_arrive_before_any_event(py_daemon: Daemon) -> None:
    call = _stub(py_daemon).Subscribe(service_pb2.SubscribeRequest(), timeout=30)
    t0 = time.monotonic()
    metadata = call.initial_metadata()  # blocks until the server sent its headers
    assert time.monotonic() - t0 < 2.0
    assert metadata is not None
    call.cancel()


def test_resume_after_a_disconnect(py_daemon: Daemon) -> None:
    with py_daemon.client() as c:
        stream = c.events(kinds=[EventKind.OBSERVATION_CHANGED])
        first = c.observe("first note on hash_password", anchors=[ANCHOR])
        seen = next(stream)
        assert seen.observation_id == first.id
        stream.cancel()
        # while disconnected: two more
        second = c.observe("second note on hash_password", anchors=[ANCHOR])
        third = c.observe("third note on hash_password", anchors=[ANCHOR])
        resumed = c.events(kinds=[EventKind.OBSERVATION_CHANGED], after_seq=seen.seq)
        got = [next(resumed), next(resumed)]
        resumed.cancel()
    assert [e.observation_id for e in got] == [second.id, third.id]
    assert got[0].seq > seen.seq
    assert got[1].seq > got[0].seq


def _collect(
    d: Daemon, into: list[Event], stop: threading.Event, errors: list[Exception] | None = None
) -> threading.Thread:
    """Subscribe on a thread; events into ``into``; a stream failure into ``errors``."""

    def run() -> None:
        with d.client() as c:
            stream = c.events()
            while not stop.is_set():
                try:
                    into.append(next(stream))
                except StopIteration:
                    return
                except GraphMemError as exc:
                    if errors is not None:
                        errors.append(exc)
                    return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_every_observation_action_is_streamed(py_daemon: Daemon) -> None:
    events: list[Event] = []
    stop = threading.Event()
    _collect(py_daemon, events, stop)
    wait_for(lambda: len(py_daemon.client().status().repositories) > 0)
    time.sleep(0.3)  # let the subscription register before the first action
    source = py_daemon.repos[0] / "app" / "auth" / "crypto.py"
    code = source.read_text()
    with py_daemon.client() as c:
        o = c.observe("salted with SALT", anchors=[ANCHOR])
        c.update(o.id, text="salted with the module constant SALT")
        source.write_text(code.replace(OLD_BODY, "return digest(password.strip(), salt=SALT)"))
        wait_for(lambda: c.get(o.id).status is ObservationStatus.STALE, 15)
        source.write_text(code)  # back as it was: fresh again
        wait_for(lambda: c.get(o.id).status is ObservationStatus.FRESH, 15)
        source.write_text(code.replace(OLD_BODY, "return digest(password.strip(), salt=SALT)"))
        wait_for(lambda: c.get(o.id).status is ObservationStatus.STALE, 15)
        source.write_text(
            code.replace("def hash_password(", "def hash_password2(").replace(
                OLD_BODY, "return digest(password.strip(), salt=SALT)"
            )
        )
        wait_for(lambda: c.get(o.id).needs_review, 15)
        c.confirm(o.id, confirmed_by="test")
        c.archive(o.id)
        gone = c.observe("to be deleted", anchors=[ANCHOR.replace("hash_password", "hash_password2")])
        c.delete(gone.id)

        def actions() -> set[ObservationAction]:
            return {e.action for e in events if e.action is not None}

        wanted = {
            ObservationAction.CREATED,
            ObservationAction.UPDATED,
            ObservationAction.STALE,
            ObservationAction.FRESH,
            ObservationAction.RENAMED,
            ObservationAction.CONFIRMED,
            ObservationAction.ARCHIVED,
            ObservationAction.DELETED,
        }
        try:
            wait_for(lambda: wanted <= actions(), 10)
        finally:
            stop.set()
    deleted = [e for e in events if e.action is ObservationAction.DELETED]
    assert deleted[0].observation_id == gone.id
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)
    assert len(set(seqs)) == len(seqs)


def test_daemon_stop_with_a_subscriber_takes_under_a_second(
    daemon_factory: Callable[..., Daemon], py_repo: Path
) -> None:
    d = daemon_factory([py_repo])
    events: list[Event] = []
    errors: list[Exception] = []
    stop = threading.Event()
    t = _collect(d, events, stop, errors)
    time.sleep(0.3)
    env = d.env
    env["PYTHONPATH"] = f"{ROOT / 'clients'}:{ROOT / 'daemon'}:{env.get('PYTHONPATH', '')}"
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "daemon", "stop"], env=env, capture_output=True, text=True, timeout=60
    )
    elapsed = time.monotonic() - t0
    assert out.returncode == 0, out.stderr
    assert elapsed < 1.0, f"daemon stop took {elapsed:.2f} s with a subscriber connected"
    t.join(5)
    assert not t.is_alive()
    assert errors == []  # the subscriber's stream ended with OK, not a broken connection
    d.proc.wait(5)
