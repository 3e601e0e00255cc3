"""Tests of graphmemd.ingest.parse_pool with real worker processes and the real parser."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import fields, replace
from pathlib import Path

import pytest
from graphmem.errors import FailedPrecondition, InvalidArgument
from graphmemd.graph.model import Language, ParsedFile, SkippedFile
from graphmemd.ingest import parse_pool, parsecache
from graphmemd.ingest.knowledge.model import CallShape
from graphmemd.ingest.parse_pool import LIVE_FILES, WORKER_NICENESS, ParseOutcome, ParsePool
from graphmemd.ingest.parsing import parse_source

SMALL_PY = b"import os\n\nclass A(Base):\n    def run(self):\n        return os.getcwd()\n"


def write(root: Path, rel: str, content: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


def generated_python(approx_bytes: int) -> bytes:
    """Valid, symbol-dense Python of about the given size (slow to parse and extract)."""
    block = "class C{0}(Base):\n    def m(self, x):\n        return helper_{0}(x) + self.other(x)\n\n"
    parts: list[str] = []
    size = 0
    i = 0
    while size < approx_bytes:
        part = block.format(i)
        parts.append(part)
        size += len(part)
        i += 1
    return "".join(parts).encode()


def by_path(outcomes: Iterator[ParseOutcome] | list[ParseOutcome]) -> dict[str, ParseOutcome]:
    return {o.path: o for o in outcomes}


@pytest.fixture(scope="module")
def pool() -> Iterator[ParsePool]:
    with ParsePool(2, timeout_s=30.0) as p:
        yield p


def small_files(root: Path, n: int) -> list[tuple[str, Path]]:
    files = []
    for i in range(n):
        files.append((f"m{i}.py", write(root, f"m{i}.py", SMALL_PY + f"def f{i}():\n    pass\n".encode())))
    return files


def parses_on_new_workers(p: ParsePool, root: Path, n: int, old: set[int]) -> None:
    """Parse ``n`` small files: all of them parsed, and the pool then has two workers, none of
    them one of ``old``."""
    results = by_path(p.parse_many(small_files(root, n)))
    assert len(results) == n
    assert all(o.parsed is not None for o in results.values())
    new = set(p.worker_pids())
    assert len(new) == 2
    assert not new & old


# --------------------------------------------------------------------------- basics


def test_parse_many_parses_all_files(pool: ParsePool, tmp_path: Path) -> None:
    files = small_files(tmp_path, 25)
    js_source = b"import x from './x';\nfunction go() { x(); }\n"
    files.append(("web/app.js", write(tmp_path, "web/app.js", js_source)))
    results = by_path(pool.parse_many(files))
    assert set(results) == {rel for rel, _ in files}
    for rel, abs_path in files:
        outcome = results[rel]
        assert outcome.skipped is None
        assert outcome.parsed is not None
        data = abs_path.read_bytes()
        assert outcome.content_hash == hashlib.blake2b(data).hexdigest() == parse_pool.content_hash(data)
        assert outcome.size == len(data)
    py = results["m3.py"].parsed
    assert py is not None
    assert py == parse_source("m3.py", (tmp_path / "m3.py").read_bytes())  # same as in-process
    assert {s.qualname for s in py.symbols} >= {"A", "A.run", "f3"}
    js = results["web/app.js"].parsed
    assert js is not None
    assert js.language is Language.JAVASCRIPT


def test_parse_one_and_empty_batch(pool: ParsePool, tmp_path: Path) -> None:
    path = write(tmp_path, "one.py", SMALL_PY)
    outcome = pool.parse_one("one.py", path)
    assert outcome.parsed is not None
    assert outcome.parsed.path == "one.py"
    assert list(pool.parse_many([])) == []


def test_bare_mode_returns_no_parsed_file(pool: ParsePool, tmp_path: Path) -> None:
    files = small_files(tmp_path, 5)
    outcomes = list(pool.parse_many(files, bare=True))
    assert len(outcomes) == 5
    for outcome in outcomes:
        assert outcome.parsed is None
        assert outcome.skipped is None
        assert outcome.size > 0


def test_code_examples_of_knowledge_files_are_read_in_the_workers(pool: ParsePool, tmp_path: Path) -> None:
    doc = tmp_path / "guide.md"
    doc.write_bytes(b"\xef\xbb\xbf# Guide\r\n\r\n```python\r\nimport pkg\r\npkg.run(1, fast=True)\r\n```\r\n")
    plain = tmp_path / "plain.md"
    plain.write_text("# Nothing\n\nNo code here.\n")
    got = {o.path: o for o in pool.read_examples([("docs/guide.md", doc), ("docs/plain.md", plain)])}
    (unit,) = got["docs/guide.md"].examples or ()
    (ref,) = unit.refs
    assert (ref.target, ref.span.line, ref.span.column) == ("pkg.run", 5, 1)
    assert ref.call == CallShape(("fast",), 1, False)
    assert got["docs/plain.md"].examples == ()
    assert got["docs/plain.md"].parsed is None


def test_skips_binary_missing_unsupported_and_too_large(pool: ParsePool, tmp_path: Path) -> None:
    binary = write(tmp_path, "blob.py", b"x = 1\n\x00\x01\x02" + b"\xff" * 100)
    big = write(tmp_path, "big.py", b"x = 1\n" * (parse_pool.DEFAULT_MAX_FILE_SIZE // 6 + 10))
    text = write(tmp_path, "notes.txt", b"hello\n")
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    batch = [
        ("blob.py", binary),
        ("big.py", big),
        ("notes.txt", text),
        ("gone.py", tmp_path / "gone.py"),
        ("pipe.py", fifo),
    ]
    results = by_path(pool.parse_many(batch))
    blob = results["blob.py"]
    assert blob.skipped is not None
    assert "binary" in blob.skipped.reason
    assert blob.content_hash == hashlib.blake2b(binary.read_bytes()).hexdigest()
    too_big = results["big.py"]
    assert too_big.skipped is not None
    assert "limit" in too_big.skipped.reason
    assert too_big.size == big.stat().st_size
    assert results["notes.txt"].skipped == SkippedFile("notes.txt", "unsupported file type")
    assert results["gone.py"].skipped == SkippedFile("gone.py", "file not found")
    assert results["pipe.py"].skipped == SkippedFile("pipe.py", "not a regular file")


def test_non_utf8_content_is_parsed(pool: ParsePool, tmp_path: Path) -> None:
    source = "name = 'caf\xe9'\n\ndef greet():\n    return name\n".encode("latin-1")
    path = write(tmp_path, "latin.py", source)
    outcome = pool.parse_one("latin.py", path)
    assert outcome.parsed is not None, outcome.skipped
    assert [s.qualname for s in outcome.parsed.symbols] == ["greet"]


def test_deep_nesting_does_not_break_the_pool(pool: ParsePool, tmp_path: Path) -> None:
    calls = write(tmp_path, "calls.py", b"x = " + b"f(" * 5000 + b")" * 5000 + b"\n")
    brackets = write(tmp_path, "lists.py", b"y = " + b"[" * 5000 + b"]" * 5000 + b"\n")
    js = write(tmp_path, "fns.js", b"function a() {" * 5000 + b"}" * 5000 + b"\n")
    results = by_path(pool.parse_many([("calls.py", calls), ("lists.py", brackets), ("fns.js", js)]))
    assert set(results) == {"calls.py", "lists.py", "fns.js"}
    for outcome in results.values():
        assert (outcome.parsed is None) != (outcome.skipped is None)
    assert pool.parse_one("after.py", write(tmp_path, "after.py", SMALL_PY)).parsed is not None


# --------------------------------------------------------------------------- concurrency


def test_concurrent_callers(pool: ParsePool, tmp_path: Path) -> None:
    files = small_files(tmp_path, 40)
    results: dict[int, dict[str, ParseOutcome]] = {}
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            if n == 0:
                results[n] = {"m7.py": pool.parse_one("m7.py", tmp_path / "m7.py")}
            else:
                results[n] = by_path(pool.parse_many(files))
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)
            raise

    threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert results[0]["m7.py"].parsed is not None
    for n in (1, 2, 3):
        assert set(results[n]) == {rel for rel, _ in files}
        assert all(o.parsed is not None for o in results[n].values())


def test_abandoned_generator_is_cancelled(pool: ParsePool, tmp_path: Path) -> None:
    files = small_files(tmp_path, 60)
    gen = pool.parse_many(files)
    first = next(gen)
    assert first.parsed is not None
    gen.close()
    assert pool.parse_one("m1.py", tmp_path / "m1.py").parsed is not None
    assert len(by_path(pool.parse_many(files[:10]))) == 10


# --------------------------------------------------------------------------- failures


def test_timeout_kills_and_respawns_worker(tmp_path: Path) -> None:
    big = write(tmp_path, "big.py", generated_python(1_500_000))
    with ParsePool(1, timeout_s=0.25) as p:
        before = p.worker_pids()
        outcome = p.parse_one("big.py", big)
        assert outcome.parsed is None
        assert outcome.skipped is not None
        assert outcome.skipped.reason == "parse timed out after 0.25s"
        after_files = small_files(tmp_path, 5)
        results = by_path(p.parse_many(after_files))
        assert all(o.parsed is not None for o in results.values()), results
        assert p.worker_pids() != before


def cpu_ticks(pid: int) -> int:
    """User + system CPU ticks a process has used (0 once it is gone)."""
    try:
        fields_ = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields_[11]) + int(fields_[12])


def wait_busy(pids: set[int], timeout: float = 30.0) -> None:
    """Until one of ``pids`` is visibly working (a few ticks of CPU since the call)."""
    base = {pid: cpu_ticks(pid) for pid in pids}
    deadline = time.monotonic() + timeout
    while not any(cpu_ticks(pid) >= base[pid] + 3 for pid in pids):
        assert time.monotonic() < deadline, "no worker started parsing"
        time.sleep(0.01)


def test_a_worker_kept_from_the_cpu_is_waited_for_not_killed(tmp_path: Path) -> None:
    """At load ~12 small files (and the first swift file, whose queries compile first) went
    past the timeout on the clock while their niced worker waited for a CPU, and were skipped
    for good. The timeout is the worker's CPU time on the file: a worker stopped (SIGSTOP) for
    four times its timeout in the middle of a file is waited for and the file parsed; past
    ``HARD_TIMEOUT_FACTOR`` times the timeout on the clock it is killed whatever its CPU."""
    # (~0.25 s of CPU to parse here: within the timeout on a slower machine too, long enough to
    # be stopped in the middle; 400 kB took 0.47-0.56 s, and was skipped for its CPU time)
    mid = write(tmp_path, "mid.py", generated_python(200_000))
    with ParsePool(1, timeout_s=0.5) as p:
        (pid,) = p.worker_pids()
        got: list[ParseOutcome] = []
        thread = threading.Thread(target=lambda: got.append(p.parse_one("mid.py", mid)))
        thread.start()
        wait_busy({pid})
        os.kill(pid, signal.SIGSTOP)
        time.sleep(2.0)
        with contextlib.suppress(ProcessLookupError):  # (killed meanwhile: what this test fails on)
            os.kill(pid, signal.SIGCONT)
        thread.join(60)
        assert got[0].skipped is None, got[0].skipped
        assert got[0].parsed is not None
        assert list(p.worker_pids()) == [pid]  # the same worker: it was not killed
        thread = threading.Thread(target=lambda: got.append(p.parse_one("mid.py", mid)))
        thread.start()
        wait_busy({pid})
        os.kill(pid, signal.SIGSTOP)  # stopped for good: the clock decides at last
        thread.join(60)
        assert got[1].skipped is not None
        assert got[1].skipped.reason == "parse timed out after 0.5s"


def test_worker_killed_mid_task(tmp_path: Path) -> None:
    big = write(tmp_path, "big.py", generated_python(4_000_000))
    with ParsePool(2, timeout_s=120.0, max_file_size=8 * 1024 * 1024) as p:
        old = set(p.worker_pids())
        assert len(old) == 2
        got: list[ParseOutcome] = []
        thread = threading.Thread(target=lambda: got.append(p.parse_one("big.py", big)))
        thread.start()
        wait_busy(old)
        for pid in old:  # one of them is parsing big.py, the other is idle
            os.kill(pid, signal.SIGKILL)
        thread.join(60)
        assert got, "parse_one did not return"
        outcome = got[0]
        assert outcome.skipped is not None, "big.py parsed before the kill; make it bigger"
        assert "SIGKILL" in outcome.skipped.reason
        parses_on_new_workers(p, tmp_path, 10, old)


def test_twenty_megabyte_file(tmp_path: Path) -> None:
    huge = write(tmp_path, "huge.py", generated_python(20 * 1024 * 1024))
    small = write(tmp_path, "small.py", SMALL_PY)
    with ParsePool(1, timeout_s=5.0) as p:
        outcome = p.parse_one("huge.py", huge)
        assert outcome.skipped is not None
        assert "limit" in outcome.skipped.reason
    with ParsePool(1, timeout_s=5.0, max_file_size=64 * 1024 * 1024) as p:
        outcome = p.parse_one("huge.py", huge)
        if outcome.skipped is not None:  # timed out, or hit the memory cap: a clean skip
            assert any(word in outcome.skipped.reason for word in ("timed out", "died", "memory")), outcome
        else:
            assert outcome.parsed is not None
        assert p.parse_one("small.py", small).parsed is not None


def test_memory_limit_is_applied(tmp_path: Path) -> None:
    with ParsePool(1, memory_limit_mb=1536) as p:
        (pid,) = p.worker_pids()
        limits = Path(f"/proc/{pid}/limits").read_text()
        line = next(x for x in limits.splitlines() if x.startswith("Max address space"))
        assert str(1536 * 1024 * 1024) in line
        assert p.parse_one("a.py", write(tmp_path, "a.py", SMALL_PY)).parsed is not None


def test_memory_limit_hit_skips_file(tmp_path: Path) -> None:
    huge = write(tmp_path, "huge.py", generated_python(12 * 1024 * 1024))
    with ParsePool(1, timeout_s=60.0, max_file_size=64 * 1024 * 1024, memory_limit_mb=None) as probe:
        (pid,) = probe.worker_pids()
        status = Path(f"/proc/{pid}/status").read_text()
        vm_kb = int(next(x for x in status.splitlines() if x.startswith("VmSize")).split()[1])
    limit_mb = vm_kb // 1024 + 150  # room to start and read the file, not to parse it
    with ParsePool(1, timeout_s=60.0, max_file_size=64 * 1024 * 1024, memory_limit_mb=limit_mb) as p:
        outcome = p.parse_one("huge.py", huge)
        assert outcome.skipped is not None, "parsed within the memory cap"
        assert any(word in outcome.skipped.reason for word in ("memory", "died", "failed")), outcome
        assert p.parse_one("small.py", write(tmp_path, "small.py", SMALL_PY)).parsed is not None


# --------------------------------------------------------------------------- lifecycle


def test_lifecycle_and_arguments(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument):
        ParsePool(0)
    with pytest.raises(InvalidArgument):
        ParsePool(1, timeout_s=0)
    with pytest.raises(InvalidArgument):
        ParsePool(1, start_method="fork")
    p = ParsePool(1)
    with pytest.raises(FailedPrecondition):
        list(p.parse_many([("a.py", tmp_path / "a.py")]))
    p.start()
    pids = p.worker_pids()
    with pytest.raises(FailedPrecondition):
        p.start()
    p.close()
    p.close()  # idempotent
    with pytest.raises(FailedPrecondition):
        list(p.parse_many([("a.py", tmp_path / "a.py")]))
    assert p.worker_pids() == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def wait_for(what: str, check: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_idle_workers_exit_and_the_next_file_starts_them(tmp_path: Path) -> None:
    """With ``idle_s`` the workers of an idle pool exit (their processes are gone, not
    just unlisted) but one that parsed nothing, a file submitted afterwards starts them again
    and is parsed, and a busy pool keeps them (a parse longer than ``idle_s`` does not count
    as idle)."""
    with pytest.raises(InvalidArgument):
        ParsePool(1, idle_s=-1)
    with ParsePool(2, timeout_s=60.0, idle_s=0.3) as p:
        first = set(p.worker_pids())
        assert len(first) == 2
        wait_for("idle workers to exit", lambda: len(p.worker_pids()) == 1 and sum(map(gone, first)) == 1)
        assert p.standby() == (p.worker_pids()[0], ())  # nothing parsed yet: nothing to compile
        parses_on_new_workers(p, tmp_path, 6, first - set(p.worker_pids()))
        used = set(p.worker_pids())
        wait_for("workers that parsed to exit", lambda: all(gone(pid) for pid in used))
        wait_for("a standby in their place", lambda: len(p.worker_pids()) == 1 and p.standby() is not None)
        warm = (Language.PYTHON,)
        wait_for("the standby to compile Python's queries", lambda: p.standby() == (p.worker_pids()[0], warm))
        assert not used & set(p.worker_pids())
        big = write(tmp_path, "big.py", generated_python(1_500_000))
        seen: set[int] = set()
        got: list[ParseOutcome] = []
        thread = threading.Thread(target=lambda: got.append(p.parse_one("big.py", big)))
        started = time.monotonic()
        thread.start()
        while thread.is_alive():  # one worker parses big.py for well over idle_s
            seen |= set(p.worker_pids())
            thread.join(0.05)
        assert time.monotonic() - started > 0.6, "big.py parsed too fast to test a busy pool; make it bigger"
        assert got
        assert got[0].parsed is not None
        assert len(seen) == 1, "the worker was stopped while the pool was busy (or the standby was not used)"
    with ParsePool(1, timeout_s=60.0) as never:  # idle_s=None: the workers stay
        pids = never.worker_pids()
        time.sleep(0.5)
        assert never.worker_pids() == pids
        assert not gone(pids[0])


def test_a_live_edit_is_parsed_at_the_daemons_priority_a_bulk_job_below_it(tmp_path: Path) -> None:
    """A job of a few files (an edit someone waits for) runs at the daemon's priority; from its
    first file of a larger job on, a worker runs ``WORKER_NICENESS`` lower, until it exits."""
    own = os.getpriority(os.PRIO_PROCESS, 0)
    with ParsePool(1, timeout_s=60.0) as p:
        (pid,) = p.worker_pids()
        assert p.parse_one("a.py", write(tmp_path, "a.py", SMALL_PY)).parsed is not None
        assert os.getpriority(os.PRIO_PROCESS, pid) == own
        assert len(list(p.parse_many(small_files(tmp_path, LIVE_FILES)))) == LIVE_FILES
        assert os.getpriority(os.PRIO_PROCESS, pid) == own
        assert len(list(p.parse_many(small_files(tmp_path, LIVE_FILES + 1)))) == LIVE_FILES + 1
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(own + WORKER_NICENESS, 19)
        assert p.parse_one("a.py", tmp_path / "a.py").parsed is not None
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(own + WORKER_NICENESS, 19)


def test_close_releases_waiting_callers(tmp_path: Path) -> None:
    big = write(tmp_path, "big.py", generated_python(1_500_000))
    p = ParsePool(1, timeout_s=60.0)
    p.start()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            list(p.parse_many([("big.py", big)] * 5))
        except FailedPrecondition as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    wait_busy(set(p.worker_pids()))
    p.close()
    thread.join(30)
    assert not thread.is_alive()
    assert len(errors) == 1


def test_spawn_start_method(tmp_path: Path) -> None:
    with ParsePool(1, start_method="spawn") as p:
        assert p.parse_one("a.py", write(tmp_path, "a.py", SMALL_PY)).parsed is not None


# --------------------------------------------------------------------------- wire format


def test_wire_codec_round_trip() -> None:
    source = (
        b"import os\nfrom .x import y as z\n\nclass A(Base, metaclass=M):\n    def run(self):\n"
        b"        return os.getcwd(helper())\n\ndef top():\n    A().run()\n"
    )
    parsed = parse_source("pkg/mod.py", source)
    assert parsed.symbols
    assert parsed.imports
    assert parsed.calls
    assert parsed.inherits
    outcome = ParseOutcome("pkg/mod.py", parsed, "h", len(source), None)
    back = parse_pool._decode_outcome(parse_pool._encode_outcome(outcome))
    assert back == replace(outcome, cache=parsecache.encode(parsed))
    assert back.parsed == parsed
    skipped = ParseOutcome("b.py", None, None, 3, SkippedFile("b.py", "why"))
    assert parse_pool._decode_outcome(parse_pool._encode_outcome(skipped)) == skipped


def test_parse_cache_codec_covers_every_nested_field() -> None:
    # tuples of model objects (not tuples of plain values such as ``arities``/``exports``)
    nested = {f.name for f in fields(ParsedFile) if str(f.type).startswith("tuple[") and str(f.type)[6:7].isupper()}
    assert nested == set(parsecache._NESTED)


def test_hashed_file_reads_what_the_workers_would_parse(tmp_path: Path) -> None:
    """``hashed_file``: a file's content hash and size as read now, the one reading both the
    shared-parse lookup and a worktree's derivation use; nothing for a file over the limit or
    one that cannot be read (the parse workers say why when they get it)."""
    f = tmp_path / "a.py"
    f.write_bytes(SMALL_PY)
    assert parse_pool.hashed_file(f, len(SMALL_PY)) == (parse_pool.content_hash(SMALL_PY), len(SMALL_PY))
    assert parse_pool.hashed_file(f, len(SMALL_PY) - 1) is None
    assert parse_pool.hashed_file(tmp_path / "gone.py", 1 << 20) is None
    assert parse_pool.hashed_file(tmp_path, 1 << 20) is None  # a directory: read_bytes fails
