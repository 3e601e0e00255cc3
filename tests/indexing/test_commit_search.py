"""Binary searches over a file's commits run side by side (``commit_search``): pure."""

from __future__ import annotations

import random

from graphmemd.indexing.commit_search import Bisection, Version, bisect_together


def _alone(commits: list[Version], first_fit: int) -> tuple[str, list[Version]]:
    """One search by itself: its answer and the versions it read, in order."""
    s, seen = Bisection(commits), []
    while not s.done:
        seen.append(s.next)
        s.answer(commits.index(s.next) >= first_fit)
    return s.found, seen


def test_searches_side_by_side_answer_as_each_alone_in_as_many_rounds_as_the_longest() -> None:
    rng = random.Random(7)
    files = [[(f"c{f}-{i}", f"f{f}.py") for i in range(rng.randint(0, 40))] for f in range(12)]
    fits_from = [rng.randint(0, len(c)) for c in files]  # (len: no version fits)
    searches = [Bisection(c) for c in files]
    batches: list[list[Version]] = []
    rounds = bisect_together(searches, batches.append, lambda i, v: files[i].index(v) >= fits_from[i])
    alone = [_alone(c, k) for c, k in zip(files, fits_from, strict=True)]
    assert [s.found for s in searches] == [found for found, _ in alone]
    assert rounds == max(len(seen) for _, seen in alone) == len(batches)
    # each round asked at once for every running search's next version, each version once
    for k, batch in enumerate(batches):
        assert sorted(batch) == sorted({seen[k] for _, seen in alone if len(seen) > k})


def test_a_search_with_no_commit_ends_at_once() -> None:
    s = Bisection([])
    assert s.done
    assert bisect_together([s], lambda _v: None, lambda _i, _v: True) == 0
    assert s.found == ""


def test_the_removals_searched_ahead_are_the_symbols_a_name_gone_bore_then() -> None:
    from graphmemd.graph.model import SymbolInfo, SymbolKind
    from graphmemd.indexing.knowledge_history import AHEAD_PER_NAME, _removals_ahead
    from graphmemd.ingest.knowledge.model import RefKind, Span, TargetKind, TextRef

    def ref(target: str) -> TextRef:
        return TextRef(RefKind.CODE, TargetKind.SYMBOL, target, target, Span(1, 1, 1, 2))

    def sym(path: str, qualname: str) -> SymbolInfo:
        kind = SymbolKind.METHOD if "." in qualname else SymbolKind.FUNCTION
        return SymbolInfo(
            f"r:{path}::{qualname}#{kind.value}", "r", path, qualname.rsplit(".", 1)[-1], qualname, kind, "python",
            None, 1, 2, "", "", "",
        )  # fmt: skip

    when = ("c1", 100)
    parsed = {
        ("c1", "a.py"): [sym("a.py", "login"), sym("a.py", "Auth.login"), sym("a.py", "logout")],
        ("c0", "b.py"): [sym("b.py", "login")],  # (another commit's version: not the unit's)
        ("c1", "c.py"): None,
        ("c1", "many.py"): [sym("many.py", f"C{i}.get") for i in range(AHEAD_PER_NAME + 1)],
    }
    got = _removals_ahead([(ref("AuthService.login"), when), (ref("get"), when), (ref("login"), None)], parsed)
    assert sorted(got) == [("a.py", "Auth.login", "method", when), ("a.py", "login", "function", when)]
