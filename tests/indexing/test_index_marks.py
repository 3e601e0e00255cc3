"""INDEX_QUERYABLE and INDEX_DURABLE: the daemon says when an index pass or a change batch
answers every query kind completely, and when everything it wrote is in the store.

Against a real daemon: the first index, a large batch that drops and rebuilds the symbol
text index, and a restart (whose cached parses must have been written by INDEX_DURABLE)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon
from graphmem.client import EventStream
from graphmem.errors import GraphMemError
from graphmem.types import Event, EventKind

DaemonFactory = Callable[..., Daemon]
MARKS = [EventKind.INDEX_QUERYABLE, EventKind.INDEX_DURABLE]


def _next_mark(stream: EventStream, timeout: float = 60.0) -> Event:
    """The next mark, or fail after ``timeout`` (the stream is cancelled: no hang)."""
    timer = threading.Timer(timeout, stream.cancel)
    timer.start()
    try:
        for e in stream:
            if e.kind in MARKS:
                return e
    except GraphMemError as exc:
        raise AssertionError(f"no index mark within {timeout}s: {exc}") from exc
    finally:
        timer.cancel()
    raise AssertionError(f"no index mark within {timeout}s (the stream ended)")


def _pair(stream: EventStream) -> tuple[Event, Event]:
    """The next INDEX_QUERYABLE and the INDEX_DURABLE after it."""
    q = _next_mark(stream)
    assert q.kind is EventKind.INDEX_QUERYABLE, q
    d = _next_mark(stream)
    assert d.kind is EventKind.INDEX_DURABLE, d
    assert d.seq > q.seq
    assert d.at >= q.at
    return q, d


def _symbol_words(i: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return "".join(letters[(i // 26**k) % 26] for k in range(4))


def test_first_index_then_queryable_then_durable(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        stream = c.events(kinds=MARKS, after_seq=0)  # from the start of the buffer
        q, _ = _pair(stream)
        stream.cancel()
        (repo,) = c.status().repositories
        assert q.repo_id == repo.id
        assert f"{repo.files} files" in q.message
        assert c.find_symbols("hash_password")


def test_a_large_batch_is_searchable_at_queryable(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        stream = c.events(kinds=MARKS, after_seq=0)
        _pair(stream)  # the first index
        big = py_repo / "app" / "generated.py"
        # more symbols than a bulk write keeps the text index for: it is dropped and rebuilt
        big.write_text("".join(f"def made_{_symbol_words(i)}_helper():\n    return {i}\n\n\n" for i in range(3000)))
        _pair(stream)
        stream.cancel()
        answer = c.recall(_symbol_words(2345))
        assert not any("being rebuilt" in w for w in answer.warnings), answer.warnings
        assert [s.name for s in c.find_symbols(f"made_{_symbol_words(2345)}_helper")]


def test_durable_means_a_restart_parses_nothing(daemon_factory: DaemonFactory, py_repo: Path) -> None:
    d = daemon_factory([py_repo])
    with d.client() as c:
        stream = c.events(kinds=MARKS, after_seq=0)
        _pair(stream)
        (py_repo / "app" / "extra.py").write_text("def extra():\n    return 1\n")
        _pair(stream)
        stream.cancel()
    home = d.home
    assert d.stop() == 0
    d2 = daemon_factory([py_repo], home=home)
    with d2.client() as c:
        stream = c.events(kinds=MARKS, after_seq=0)
        _pair(stream)  # the restart's pass: nothing changed, nothing written
        stream.cancel()
        (repo,) = c.status().repositories
        assert repo.files_parsed == 0

