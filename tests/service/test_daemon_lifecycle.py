"""Daemon lifecycle against REAL daemon processes on real Unix sockets: start/stop, file
modes, the single-daemon lock, crash recovery, standard health/reflection, argument
validation, responsiveness while cold-indexing, hostile files, and repository add/remove."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sysconfig
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from conftest import Daemon, copy_fixture, short_tmp, spawn_daemon, wait_for
from graphmem.client import GraphMem
from graphmem.errors import DaemonNotRunning, GraphMemError, InvalidArgument, NotFound, Timeout
from graphmem.paths import resolve_paths
from graphmem.types import EventKind, IndexState, ObservationStatus
from graphmem.v1 import service_pb2, service_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

DaemonFactory = Callable[..., Daemon]

#: Counted by hand from fixtures/repos/python: 9 .py files (4 of them packages' __init__.py).
PY_FILES = 9
#: routes.py 3 (create_user, promote, health), crypto.py 3 (hash_password, make_token,
#: make_token.payload), service.py 5 (AuthError, AuthService, __init__, register, login),
#: models.py 7 (Model, Model.save, User, User.Meta, User.display_name, Admin,
#: Admin.display_name), encoding.py 3 (to_bytes, b64, digest).
PY_SYMBOL_REFS = frozenset({
    "app/api/routes.py::create_user",
    "app/api/routes.py::promote",
    "app/api/routes.py::health",
    "app/auth/crypto.py::hash_password",
    "app/auth/crypto.py::make_token",
    "app/auth/crypto.py::make_token.payload",
    "app/auth/service.py::AuthError",
    "app/auth/service.py::AuthService",
    "app/auth/service.py::AuthService.__init__",
    "app/auth/service.py::AuthService.register",
    "app/auth/service.py::AuthService.login",
    "app/models.py::Model",
    "app/models.py::Model.save",
    "app/models.py::User",
    "app/models.py::User.Meta",
    "app/models.py::User.display_name",
    "app/models.py::Admin",
    "app/models.py::Admin.display_name",
    "app/util/encoding.py::to_bytes",
    "app/util/encoding.py::b64",
    "app/util/encoding.py::digest",
})
PY_SYMBOLS = len(PY_SYMBOL_REFS)  # 21


@pytest.fixture(scope="module")
def shared_daemon() -> Iterator[Daemon]:
    """One daemon on the python fixture for the tests that leave it as they found it
    (each daemon start costs seconds)."""
    d = spawn_daemon(short_tmp(), [copy_fixture("python")])
    yield d
    if d.proc.poll() is None:
        d.proc.kill()
        d.proc.wait(10)


def _socket(d: Daemon) -> Path:
    return resolve_paths(d.home, {}).socket


def _pidfile(d: Daemon) -> Path:
    return resolve_paths(d.home, {}).pid


def _all_refs(c: GraphMem, repo: str = "") -> set[str]:
    return {s.ref for s in c.find_symbols("*", repo=repo, limit=1000)}


# ---------------------------------------------------------------------------- start / stop


def test_start_status_shutdown_cleanup(py_daemon: Daemon, py_repo: Path) -> None:
    sock, pidfile = _socket(py_daemon), _pidfile(py_daemon)
    with py_daemon.client() as c:
        st = c.status()
        assert st.serving
        assert st.pid == py_daemon.proc.pid
        assert st.socket_path == str(sock)
        assert len(st.repositories) == 1
        repo = st.repositories[0]
        assert repo.root == str(py_repo.resolve())
        assert repo.state is IndexState.READY
        assert repo.error == ""
        assert (repo.files, repo.symbols) == (PY_FILES, PY_SYMBOLS)
        assert repo.skipped_files == 0
        assert _all_refs(c) == PY_SYMBOL_REFS
    assert sock.exists()
    assert int(pidfile.read_text().strip()) == py_daemon.proc.pid

    with py_daemon.client() as c:
        c.shutdown()
    assert py_daemon.proc.wait(30) == 0
    with py_daemon.client(timeout=2) as c, pytest.raises(DaemonNotRunning):
        c.status()
    assert not sock.exists()
    assert not sock.is_symlink()
    assert not pidfile.exists()


def test_socket_and_runtime_dir_are_owner_only(shared_daemon: Daemon) -> None:
    sock = _socket(shared_daemon)
    st = os.stat(sock)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
    assert stat.S_IMODE(os.stat(sock.parent).st_mode) == 0o700, oct(os.stat(sock.parent).st_mode)


def test_second_daemon_on_same_home_exits_3(shared_daemon: Daemon) -> None:
    py_daemon, py_repo = shared_daemon, shared_daemon.repos[0]
    with py_daemon.client() as c:
        obs = c.observe("the first daemon owns this store", anchors=["app/models.py::User"])

    second = spawn_daemon(py_daemon.home, [py_repo], wait=False)
    try:
        rc = second.proc.wait(20)
    except subprocess.TimeoutExpired:
        second.proc.kill()
        second.proc.wait(10)
        pytest.fail("a second daemon on the same GRAPHMEM_HOME kept running")
    assert second.proc.stderr is not None
    err = second.proc.stderr.read().decode()
    assert rc == 3, err
    assert str(py_daemon.proc.pid) in err, err
    assert str(_socket(py_daemon)) in err, err

    # the first daemon is untouched: same socket, same pid file, still serving its data
    assert py_daemon.proc.poll() is None
    assert int(_pidfile(py_daemon).read_text().strip()) == py_daemon.proc.pid
    with py_daemon.client() as c:
        st = c.status()
        assert st.serving
        assert st.pid == py_daemon.proc.pid
        assert c.get(obs.id).text == obs.text
        assert obs.id in {o.id for o in c.list()}


def test_kill9_leaves_stale_files_and_restart_recovers(
        daemon_factory: DaemonFactory, py_daemon: Daemon, py_repo: Path) -> None:
    with py_daemon.client() as c:
        saved = [c.observe(f"kept across a crash #{i}", anchors=["app/auth/service.py::AuthService.login"])
                 for i in range(3)]
    old_pid = py_daemon.proc.pid
    py_daemon.kill9()
    sock, pidfile = _socket(py_daemon), _pidfile(py_daemon)
    assert sock.exists(), "SIGKILL cannot clean up: the socket file is expected to be left behind"
    assert int(pidfile.read_text().strip()) == old_pid
    with py_daemon.client(timeout=2) as c, pytest.raises(DaemonNotRunning):
        c.status()

    d2 = daemon_factory([py_repo], home=py_daemon.home)
    assert int(pidfile.read_text().strip()) == d2.proc.pid != old_pid
    with d2.client() as c:
        st = c.status()
        assert st.serving
        assert st.pid == d2.proc.pid
        assert st.repositories[0].symbols == PY_SYMBOLS
        listed = {o.id: o for o in c.list(limit=0)}
        for o in saved:
            assert listed[o.id].text == o.text
            assert c.get(o.id).anchors[0].ref == "app/auth/service.py::AuthService.login"
        assert st.observations == len(saved)


# ---------------------------------------------------------------------------- standard gRPC services


def test_grpc_health_and_reflection(shared_daemon: Daemon) -> None:
    with grpc.insecure_channel(f"unix:{_socket(shared_daemon)}") as ch:
        health = health_pb2_grpc.HealthStub(ch)
        for service in ("", "graphmem.v1.DaemonService", "graphmem.v1.ObservationService"):
            resp = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert resp.status == health_pb2.HealthCheckResponse.SERVING, service

        refl = reflection_pb2_grpc.ServerReflectionStub(ch)
        req = reflection_pb2.ServerReflectionRequest(list_services="")
        responses = list(refl.ServerReflectionInfo(iter([req]), timeout=5))
        assert len(responses) == 1
        names = {s.name for s in responses[0].list_services_response.service}
        assert "graphmem.v1.DaemonService" in names
        assert {"graphmem.v1.ObservationService", "graphmem.v1.RetrievalService",
                "grpc.health.v1.Health"} <= names


# ---------------------------------------------------------------------------- validation


def test_invalid_requests_are_invalid_argument(shared_daemon: Daemon) -> None:
    with shared_daemon.client() as c:
        saved_before = {o.id for o in c.list(limit=0)}
        with pytest.raises(InvalidArgument, match="empty"):
            c.observe("", anchors=["app/models.py::User"])
        with pytest.raises(InvalidArgument, match="empty"):
            c.observe("   \n\t", anchors=["app/models.py::User"])

        with pytest.raises(InvalidArgument) as unresolved:
            c.observe("typo in the anchor", anchors=["app/auth/service.py::AuthService.logn"])
        msg = str(unresolved.value)
        assert "app/auth/service.py::AuthService.logn" in msg
        assert "AuthService.login" in msg  # the close match is suggested

        with pytest.raises(InvalidArgument, match=r"files|symbols|text"):
            c.recall()
        with pytest.raises(InvalidArgument, match="hops"):
            c.recall("login", hops=99)
        with pytest.raises(InvalidArgument, match="pattern"):
            c.find_symbols("")
        assert {o.id for o in c.list(limit=0)} == saved_before  # the rejected creates saved nothing

    with grpc.insecure_channel(f"unix:{_socket(shared_daemon)}") as ch:
        stub = service_pb2_grpc.ObservationServiceStub(ch)  # type: ignore[no-untyped-call]
        req = service_pb2.CreateObservationRequest(
            text="a category from the future", category=99, anchors=["app/models.py::User"],  # type: ignore[arg-type]
            idempotency_key="bad-category")
        with pytest.raises(grpc.RpcError) as raised:
            stub.CreateObservation(req, timeout=5)
        err = raised.value
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (err.code(), err.details())
        assert "category" in (err.details() or "")

        sym = service_pb2_grpc.SymbolServiceStub(ch)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as raised:
            sym.FindSymbols(service_pb2.FindSymbolsRequest(pattern=""), timeout=5)
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT

        ret = service_pb2_grpc.RetrievalServiceStub(ch)  # type: ignore[no-untyped-call]
        with pytest.raises(grpc.RpcError) as raised:
            ret.Retrieve(service_pb2.RetrieveRequest(text="login", hops=99), timeout=5)
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# ---------------------------------------------------------------------------- busy daemon


def _stdlib_copy() -> Path:
    dest = short_tmp("gmr") / "stdlib"
    shutil.copytree(
        sysconfig.get_paths()["stdlib"], dest, symlinks=True,
        ignore=shutil.ignore_patterns("test", "tests", "idlelib", "site-packages", "__pycache__", "*.pyc"))
    return dest


def test_status_answers_quickly_while_cold_indexing(daemon_factory: DaemonFactory) -> None:
    repo = _stdlib_copy()
    d = daemon_factory([repo], wait=False)
    slow: list[tuple[float, str]] = []  # (seconds, what)
    progress: list[tuple[int, int]] = []
    ready = False
    deadline = time.monotonic() + 120
    with d.client(timeout=2.0) as c:
        while time.monotonic() < deadline:
            assert d.proc.poll() is None, "daemon died while indexing"
            t0 = time.monotonic()
            try:
                st = c.status()
            except DaemonNotRunning:  # socket not bound yet (first ~1-2 s)
                time.sleep(0.05)
                continue
            except Timeout:
                slow.append((time.monotonic() - t0, f"timed out; last progress {progress[-1:]}"))
                continue
            elapsed = time.monotonic() - t0
            if elapsed >= 2.0:
                phase = st.repositories[0].state.value if st.repositories else "starting"
                slow.append((elapsed, f"{phase}; last progress {progress[-1:]}"))
            if st.repositories:
                r = st.repositories[0]
                if r.state is IndexState.INDEXING and r.files_total > 0:
                    assert 0 <= r.files_done <= r.files_total
                    progress.append((r.files_done, r.files_total))
                if r.state is IndexState.READY:
                    ready = True
                    assert r.files > 500
                    assert r.symbols > 10_000
                    break
            time.sleep(0.05)
    assert ready, f"the stdlib copy was not indexed within the deadline; last progress {progress[-1:]}"
    assert progress, "no status call ever showed state 'indexing' with progress"
    if not any(0 < done < total for done, total in progress):
        # the polls raced past the parse (it can take well under a second): every progress
        # report the daemon published is also in its event buffer, from the first one on
        with d.client() as c:
            stream = c.events(kinds=[EventKind.INDEX_PROGRESS], after_seq=0)
            timer = threading.Timer(10, stream.cancel)
            timer.start()
            try:
                for e in stream:
                    assert e.progress is not None
                    progress.append((e.progress.files_done, e.progress.files_total))
                    if e.progress.files_done == e.progress.files_total:
                        break
            except GraphMemError:
                pass  # cancelled by the timer: what arrived is in ``progress``
            finally:
                timer.cancel()
                stream.cancel()
    assert any(0 < done < total for done, total in progress), progress[:5]
    assert not slow, f"status calls took >= 2 s while indexing: {slow}"


# ---------------------------------------------------------------------------- hostile files


def test_bad_files_do_not_crash_the_daemon(daemon_factory: DaemonFactory) -> None:
    repo = copy_fixture("python")
    (repo / "blob.py").write_bytes(b"def blob_fn():\n    pass\n" + b"\x00\x01\x02\x00" * 64)
    (repo / "latin.py").write_bytes(  # Latin-1 bytes: invalid UTF-8
        b"# caf\xe9 cr\xe8me br\xfbl\xe9e\n\ndef latin_fn():\n    return '\xe9t\xe9'\n")
    (repo / "broken_syntax.py").write_text(
        "def good_before_error():\n    return 1\n\n\nx = = 2 )))\n", encoding="utf-8")
    depth = 5000
    (repo / "deep.py").write_text("DEEP = " + "(" * depth + "1" + ")" * depth + "\n", encoding="utf-8")
    big_lines: list[str] = []
    size, i = 0, 0
    while size < 3 * 1024 * 1024:
        line = f"def big_fn_{i}():\n    return {i}  # padding padding padding padding padding\n\n"
        big_lines.append(line)
        size += len(line)
        i += 1
    (repo / "big.py").write_text("".join(big_lines), encoding="utf-8")
    loop = repo / "loopdir"
    loop.mkdir()
    (loop / "up").symlink_to("..")
    (loop / "self").symlink_to(".")
    (loop / "a").symlink_to("b")
    (loop / "b").symlink_to("a")

    d = daemon_factory([repo])
    assert d.proc.poll() is None
    expected_new = {"latin.py::latin_fn", "broken_syntax.py::good_before_error"}
    with d.client() as c:
        st = c.status()
        assert st.serving
        r = st.repositories[0]
        assert r.state is IndexState.READY
        assert r.error == ""
        refs = _all_refs(c)
        assert refs >= PY_SYMBOL_REFS, sorted(PY_SYMBOL_REFS - refs)
        assert refs - PY_SYMBOL_REFS == expected_new
        assert r.symbols == PY_SYMBOLS + len(expected_new)
        assert not any(ref.startswith(("big.py", "blob.py")) for ref in refs)
        assert r.skipped_files >= 2
        # still fully usable
        o = c.observe("latin-1 file kept", anchors=["latin.py::latin_fn"])
        assert c.get(o.id).status is ObservationStatus.FRESH
    assert d.proc.poll() is None


# ---------------------------------------------------------------------------- repositories


def test_repo_add_list_remove(daemon_factory: DaemonFactory, py_daemon: Daemon, py_repo: Path) -> None:
    go = copy_fixture("go")
    with py_daemon.client() as c:
        py_obs = c.observe("python side stays", anchors=["app/models.py::User"])
        added = c.add_repo(go)
        assert added.root == str(go.resolve())
        go_id = added.id

        def go_ready() -> bool:
            return any(r.id == go_id and r.state is IndexState.READY and r.symbols > 0
                       for r in c.list_repos())

        wait_for(go_ready, 30)
        py_daemon.wait_idle()
        repos = {r.id: r for r in c.list_repos()}
        assert len(repos) == 2
        go_repo = repos[go_id]
        assert go_repo.files >= 5
        go_syms = c.find_symbols("*", repo=go_id, limit=1000)
        assert go_syms
        assert all(s.repo_id == go_id and s.language == "go" for s in go_syms)
        go_obs = c.observe("go side is kept on removal", anchors=[go_syms[0].ref], repo=go_id)
        assert go_obs.repo_id == go_id

        caches = resolve_paths(py_daemon.home, {}).parse_cache
        wait_for(lambda: len(list(caches.glob("*.pack"))) == 2, 30)  # one parse cache per repository
        c.remove_repo(go_id)
        assert len(list(caches.glob("*.pack"))) == 1  # the removed repository's is gone
        assert {r.id for r in c.list_repos()} == {py_obs.repo_id}
        assert go_id not in {r.id for r in c.status().repositories}
        kept = c.get(go_obs.id)  # kept as it was: registering the repository again restores it
        assert kept.status is ObservationStatus.FRESH
        assert kept.text == go_obs.text
        assert c.get(py_obs.id).status is ObservationStatus.FRESH
        with pytest.raises((NotFound, InvalidArgument)):
            c.find_symbols("*", repo=go_id)

    # the removal is persisted: a restart does not bring the repository back
    assert py_daemon.stop() == 0
    d2 = daemon_factory([py_repo], home=py_daemon.home)
    with d2.client() as c:
        assert [r.id for r in c.list_repos()] == [py_obs.repo_id]
        assert c.get(go_obs.id).status is ObservationStatus.FRESH  # kept, not judged while unregistered
