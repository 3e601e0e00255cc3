from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from graphmem.errors import FailedPrecondition, InvalidArgument
from graphmemd.memory.journal import Journal


def seq(record: dict[str, object]) -> int:
    value = record["seq"]
    assert isinstance(value, int)
    return value


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def test_append_assigns_increasing_seq_and_writes_canonical_lines(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "j.jsonl"
    with Journal(path) as j:
        assert j.append({"b": 1, "a": "é"}) == 1
        assert j.append({"seq": 99, "x": None}) == 2  # an input seq is replaced
        assert j.append_many([{"n": 1}, {"n": 2}]) == [3, 4]
        assert j.append_many([]) == []
        assert j.last_seq == 4
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    first = raw.split(b"\n")[0]
    assert first == '{"a":"é","b":1,"seq":1}'.encode()
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)


def test_seq_continues_after_reopen(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append_many([{"i": i} for i in range(5)])
    with Journal(path) as j:
        assert j.append({"i": 5}) == 6
        assert [r["seq"] for r in j.replay()] == [1, 2, 3, 4, 5, 6]


def test_replay_sets_seq_without_second_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append_many([{"i": i} for i in range(3)])
    j = Journal(path)
    assert len(list(j.replay())) == 3
    scans: list[int] = []
    original = Journal._iter_records

    def counting(self: Journal, size: int) -> Iterator[dict[str, object]]:
        scans.append(size)
        return original(self, size)

    monkeypatch.setattr(Journal, "_iter_records", counting)
    assert j.append({"i": 3}) == 4
    assert scans == []
    j.close()


def test_unserialisable_record_is_rejected_and_nothing_written(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append({"ok": True})
        with pytest.raises(InvalidArgument):
            j.append_many([{"ok": 1}, {"bad": object()}])
        with pytest.raises(InvalidArgument):
            j.append({"nan": float("nan")})
        with pytest.raises(InvalidArgument):
            j.append({"surrogate": "\ud800"})
        assert j.append({"ok": 2}) == 2
    assert len(path.read_bytes().splitlines()) == 2


def test_append_fsyncs_once_per_call_and_dir_on_create(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    j = Journal(tmp_path / "j.jsonl")
    assert len(calls) == 2  # the new file and its directory
    calls.clear()
    j.append_many([{"i": i} for i in range(10)])
    assert len(calls) == 1
    j.append({"i": 10})
    assert len(calls) == 2
    j.close()
    calls.clear()
    Journal(tmp_path / "j.jsonl").close()  # existing file: no fsync needed
    assert calls == []


def test_concurrent_appends_get_unique_seqs(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    j = Journal(path)
    results: list[list[int]] = [[] for _ in range(8)]

    def worker(k: int) -> None:
        for i in range(50):
            results[k].append(j.append({"t": k, "i": i}))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seqs = sorted(s for r in results for s in r)
    assert seqs == list(range(1, 401))
    replayed = list(j.replay())
    assert [r["seq"] for r in replayed] == list(range(1, 401))
    j.close()


_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from graphmemd.memory.journal import Journal

    j = Journal(Path(sys.argv[1]))
    pad = "x" * 3000
    i = 0
    while True:
        if i % 7 == 0:
            seqs = j.append_many([{"i": i, "pad": pad}, {"i": i + 1, "pad": pad}])
            i += 2
        else:
            seqs = [j.append({"i": i, "pad": pad})]
            i += 1
        for s in seqs:
            sys.stdout.write(f"{s}\\n")
        sys.stdout.flush()
    """
)


@pytest.mark.parametrize("kill_after", [1, 50, 400])
def test_records_survive_sigkill_exactly_once(tmp_path: Path, kill_after: int) -> None:
    path = tmp_path / "j.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    acknowledged: list[int] = []
    try:
        while len(acknowledged) < kill_after:
            line = proc.stdout.readline()
            assert line, "child died early"
            acknowledged.append(int(line))
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate(timeout=30)
    acknowledged += [int(x) for x in rest.split()]
    assert proc.returncode == -signal.SIGKILL

    with Journal(path) as j:
        seqs = [seq(r) for r in j.replay()]
    assert seqs == sorted(set(seqs)), "each record exactly once, in order"
    assert set(acknowledged) <= set(seqs)
    assert seqs == list(range(1, len(seqs) + 1))
    assert path.read_bytes().endswith(b"\n")


def test_torn_last_line_is_truncated_and_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append_many([{"i": 0}, {"i": 1}])
    good = path.read_bytes()
    with open(path, "ab") as f:
        f.write(b'{"i":2,"seq":3,"te')
    with caplog.at_level(logging.WARNING, logger="graphmemd.memory.journal"), Journal(path) as j:
        assert [r["i"] for r in j.replay()] == [0, 1]
        assert path.read_bytes() == good
        assert j.append({"i": 2}) == 3
    assert any("torn last line" in r.getMessage() for r in caplog.records)


def test_torn_line_detected_by_replay_of_open_journal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "j.jsonl"
    j = Journal(path)
    j.append({"i": 0})
    with open(path, "ab") as f:  # e.g. another writer died mid-line
        f.write(b'{"i":1')
    with caplog.at_level(logging.WARNING, logger="graphmemd.memory.journal"):
        assert [r["i"] for r in j.replay()] == [0]
    assert any("torn last line" in r.getMessage() for r in caplog.records)
    assert j.append({"i": 1}) == 2
    assert [r["i"] for r in j.replay()] == [0, 1]
    j.close()


def test_complete_last_line_missing_newline_is_kept(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"i":0,"seq":1}\n{"i":1,"seq":2}')
    with caplog.at_level(logging.WARNING, logger="graphmemd.memory.journal"), Journal(path) as j:
        assert [r["i"] for r in j.replay()] == [0, 1]
        assert j.append({"i": 2}) == 3
    assert path.read_bytes().count(b"\n") == 3
    assert any("lacked its newline" in r.getMessage() for r in caplog.records)


def test_long_torn_tail_spanning_chunks(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append({"i": 0})
    with open(path, "ab") as f:
        f.write(b'{"pad":"' + b"y" * 200_000)
    with Journal(path) as j:
        assert [r["i"] for r in j.replay()] == [0]
    assert path.read_bytes() == b'{"i":0,"seq":1}\n'


def test_corrupt_middle_line_is_skipped_and_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.jsonl"
    with Journal(path) as j:
        j.append_many([{"i": i} for i in range(5)])
    lines = _lines(path)
    lines[1] = b'{"i":1,"se\x00q":2'  # damaged in place
    lines[3] = b"\xff\xfe not utf-8"
    path.write_bytes(b"\n".join(lines))
    with caplog.at_level(logging.ERROR, logger="graphmemd.memory.journal"), Journal(path) as j:
        assert [r["i"] for r in j.replay()] == [0, 2, 4]
        assert j.append({"i": 5}) == 6
    messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("corrupt line 2" in m for m in messages)
    assert any("corrupt line 4" in m for m in messages)


def test_non_object_line_is_corrupt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b'{"seq":1}\n[1,2]\n\n{"seq":2}\n')
    with caplog.at_level(logging.ERROR, logger="graphmemd.memory.journal"), Journal(path) as j:
        assert [r["seq"] for r in j.replay()] == [1, 2]
    assert any("corrupt line 2" in r.getMessage() for r in caplog.records)


def test_compact_rewrites_atomically(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    j = Journal(path)
    j.append_many([{"i": i} for i in range(6)])
    keep = [r for r in j.replay() if int(str(r["i"])) % 2 == 0]
    assert j.compact([*keep, {"new": True}], expected_last_seq=6) == 4
    records = list(j.replay())
    assert [r["seq"] for r in records] == [1, 3, 5, 7]
    assert records[-1]["new"] is True
    assert j.append({"after": 1}) == 8
    assert [p.name for p in tmp_path.iterdir()] == ["j.jsonl"]  # no temp file left
    j.close()
    with Journal(path) as j2:
        assert [r["seq"] for r in j2.replay()] == [1, 3, 5, 7, 8]


def test_compact_from_replay_generator_and_guards(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    j = Journal(path)
    j.append_many([{"i": i} for i in range(3)])
    assert j.compact(r for r in j.replay() if r["i"] != 1) == 2  # no deadlock
    with pytest.raises(FailedPrecondition):
        j.compact([], expected_last_seq=1)
    with pytest.raises(InvalidArgument):
        j.compact([{"seq": 3}, {"seq": 2}])
    assert [r["i"] for r in j.replay()] == [0, 2]
    j.close()


def test_closed_journal_refuses(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.jsonl")
    j.close()
    j.close()
    with pytest.raises(ValueError, match="closed"):
        j.append({})


def test_replay_is_a_snapshot(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.jsonl")
    j.append_many([{"i": i} for i in range(3)])
    it = j.replay()
    first = next(it)
    j.append({"i": 3})
    assert [first, *it] == [{"i": 0, "seq": 1}, {"i": 1, "seq": 2}, {"i": 2, "seq": 3}]
    assert json.loads(_lines(j.path)[3]) == {"i": 3, "seq": 4}
    j.close()
