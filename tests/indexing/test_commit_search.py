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
