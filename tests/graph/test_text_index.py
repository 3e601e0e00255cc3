"""The in-memory text index (pure): terms, BM25 ranking, repository scope, and that
every update (replace, remove, compaction) answers exactly what an index built from scratch
over the same files answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from graphmemd.graph import text_index
from graphmemd.graph.text_index import TextIndex, terms_of


def _file(i: int, n: int) -> tuple[str, str, str, list[tuple[str, str]]]:
    path = f"pkg{i % 7}/mod_{i}.py"
    key = f"r:{path}"
    return key, "r", path, [(f"{key}::Thing{i}_{j}.method{j % 5}#m", f"Thing{i}_{j}.method{j % 5}") for j in range(n)]


def _put_or_remove(
    rng: random.Random,
    t: TextIndex,
    live: dict[str, tuple[str, str, str, list[tuple[str, str]]]],
    f: tuple[str, str, str, list[tuple[str, str]]],
) -> None:
    """One random update of ``t`` (remove ``f``'s group, or put it), mirrored in ``live``."""
    if rng.random() < 0.3:
        t.remove(f[0])
        live.pop(f[0], None)
    else:
        t.put(*f)
        live[f[0]] = f


def test_terms_split_identifiers_and_prose() -> None:
    assert terms_of("getUserById") == ["getuserbyid", "get", "user", "id"]
    assert terms_of("parse_args") == ["parseargs", "pars", "arg"]
    assert terms_of("app/HTTPServer.py") == ["app", "httpserver", "http", "server", "py"]
    # function words of a question are dropped, the rest stemmed like the identifiers
    assert terms_of("Why does the connection pool retry?") == ["connect", "pool", "retri"]
    assert terms_of("") == []


def test_ranking_prefers_the_symbol_named_by_the_query() -> None:
    t = TextIndex()
    pool = [("r:net/pool.py::ConnectionPool#c", "ConnectionPool"),
            ("r:net/pool.py::ConnectionPool.acquire#m", "ConnectionPool.acquire")]  # fmt: skip
    t.put("r:net/pool.py", "r", "net/pool.py", pool)
    t.put("r:auth/login.py", "r", "auth/login.py", [("r:auth/login.py::login#f", "login")])
    hits = t.search("connection pool", 10)
    assert [h[0] for h in hits] == ["r:net/pool.py::ConnectionPool#c", "r:net/pool.py::ConnectionPool.acquire#m"]
    assert hits[0][1] > hits[1][1] > 0
    assert t.search("login", 10)[0][0] == "r:auth/login.py::login#f"
    assert t.search("nothing matches", 10) == []
    assert t.search("login", 0) == []


def test_repository_scope() -> None:
    t = TextIndex()
    t.put("a:x.py", "a", "x.py", [("a:x.py::handler#f", "handler")])
    t.put("b:x.py", "b", "x.py", [("b:x.py::handler#f", "handler")])
    assert {h[0] for h in t.search("handler", 10)} == {"a:x.py::handler#f", "b:x.py::handler#f"}
    assert [h[0] for h in t.search("handler", 10, "b")] == ["b:x.py::handler#f"]


def test_replace_and_remove_keep_the_counts_exact() -> None:
    t = TextIndex()
    t.put("r:a.py", "r", "a.py", [("r:a.py::old_name#f", "old_name")])
    t.put("r:a.py", "r", "a.py", [("r:a.py::new_name#f", "new_name")])
    assert len(t) == 1
    assert t.search("old", 5) == []
    assert [h[0] for h in t.search("new name", 5)] == ["r:a.py::new_name#f"]
    t.remove("r:a.py")
    t.remove("r:never-indexed.py")
    assert len(t) == 0
    assert t.search("new", 5) == []


@pytest.mark.parametrize("compact_at", [10, 10**9])
def test_any_sequence_of_updates_answers_like_a_fresh_index(monkeypatch: pytest.MonkeyPatch, compact_at: int) -> None:
    monkeypatch.setattr(text_index, "COMPACT_MIN_DEAD", compact_at)
    rng = random.Random(7)
    live: dict[str, tuple[str, str, str, list[tuple[str, str]]]] = {}
    t = TextIndex()
    for step in range(300):
        i = rng.randrange(40)
        _put_or_remove(rng, t, live, _file(i, rng.randrange(0, 12)))
        if step % 50 == 49:
            fresh = TextIndex()
            for g in sorted(live.values()):
                fresh.put(*g)
            assert len(t) == len(fresh)
            for q in ("thing method1", "pkg3 mod", "method4", "thing12 method2 pkg5"):
                got, want = t.search(q, 20), fresh.search(q, 20)
                assert [h[0] for h in got] == [h[0] for h in want], q
                assert [round(h[1], 9) for h in got] == [round(h[1], 9) for h in want], q


def _letters(j: int) -> str:
    return "".join(chr(97 + (j // 26**k) % 26) for k in range(3))


def test_a_batch_of_5000_symbols_is_searchable_at_once() -> None:
    t = TextIndex()
    syms = [(f"r:gen.py::make_{_letters(j)}_helper#f", f"make_{_letters(j)}_helper") for j in range(5000)]
    t.put("r:gen.py", "r", "gen.py", syms)
    assert len(t) == 5000
    for j in (0, 2345, 4999):
        assert t.search(f"{_letters(j)} helper", 1)[0][0] == f"r:gen.py::make_{_letters(j)}_helper#f"


def test_the_observation_book_keeps_its_text_index_with_every_change(tmp_path: Path) -> None:
    """Observations are searchable when saved, by their text and tags; an edit replaces the
    words, a status change keeps them, a delete removes them, and a replay rebuilds them."""
    from graphmem.types import Anchor, AnchorKind, Category, ObservationStatus
    from graphmemd.memory.journal import Journal
    from graphmemd.memory.observations import ObservationBook

    def make(journal: Journal) -> ObservationBook:
        return ObservationBook(journal, lambda _o, _i: None)

    def hits(book: ObservationBook, q: str) -> list[str]:
        return [oid for oid, _score in book.search(q, 10)]

    on_file = (Anchor(kind=AnchorKind.FILE, ref="app/db.py", repo_id="r", path="app/db.py"),)
    with Journal(tmp_path / "observations.jsonl") as journal:
        book = make(journal)
        pool = book.create(repo_id="r", text="The second connection pool exists for retries",
                           category=Category.DECISION, tags=["database"], source="t", confidence=1.0,
                           anchors=on_file)  # fmt: skip
        auth = book.create(repo_id="r", text="Tokens are compared in constant time", category=Category.CONSTRAINT,
                           tags=["security"], source="t", confidence=1.0, anchors=on_file)  # fmt: skip
        assert hits(book, "why is there a second pool?") == [pool.id]
        assert hits(book, "security") == [auth.id]  # tags count
        book.update(pool.id, text="One pool per tenant")
        assert hits(book, "retries") == []
        assert hits(book, "tenant pools") == [pool.id]
        book.update(auth.id, status=ObservationStatus.ARCHIVED)
        assert hits(book, "constant time") == [auth.id]  # who recalls archived notes decides
        book.delete(auth.id)
        assert hits(book, "constant time") == []
    with Journal(tmp_path / "observations.jsonl") as journal:
        again = make(journal)
        again.load()
        assert hits(again, "tenant") == [pool.id]
        assert hits(again, "constant time") == []


@pytest.mark.parametrize("into", ["empty", "other repository", "stale copy"])
def test_an_extracted_part_absorbed_elsewhere_answers_like_a_fresh_index(into: str) -> None:
    """A warm restart's snapshot: one repository's groups lifted out of a used index (with
    tombstones and compactions behind it), pickled, and absorbed into another index."""
    import pickle

    rng = random.Random(11)
    live: dict[str, tuple[str, str, str, list[tuple[str, str]]]] = {}
    t = TextIndex()
    for _ in range(400):
        i, repo = rng.randrange(40), rng.choice("ab")
        key, _r, path, docs = _file(i, rng.randrange(0, 12))
        _put_or_remove(rng, t, live, (f"{repo}{key[1:]}", repo, path, [(f"{repo}{d[1:]}", x) for d, x in docs]))
    ours = [f for k, f in sorted(live.items()) if k.startswith("a:")]
    part = pickle.loads(pickle.dumps(t.extract(f[0] for f in ours)))
    target = TextIndex()
    if into == "other repository":
        for f in sorted(live.values()):
            if f[1] == "b":
                target.put(*f)
    elif into == "stale copy":  # groups of the same keys, other documents: replaced
        for key, repo, path, docs in ours:
            if docs:  # (a group without documents is not kept, nor extracted)
                    target.put(key, repo, path, [(f"{key}::gone#f", "gone obsolete")])
    target.absorb(part)
    fresh = TextIndex()
    for f in sorted(live.values()):
        if into == "other repository" or f[1] == "a":
            fresh.put(*f)
    assert len(target) == len(fresh)
    assert target.search("gone obsolete", 5) == []
    for q in ("thing method1", "pkg3 mod", "method4", "thing12 method2 pkg5"):
        for repo in ("", "a", "b"):
            got, want = target.search(q, 30, repo), fresh.search(q, 30, repo)
            assert [h[0] for h in got] == [h[0] for h in want], (q, repo)
            assert [round(h[1], 9) for h in got] == [round(h[1], 9) for h in want], (q, repo)
    target.put(*ours[0])  # and it stays an index that updates
    target.remove(ours[1][0])
    assert len(target) == len(fresh) - len(ours[1][3])
