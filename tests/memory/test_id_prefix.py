"""An observation is named by the start of its id, as git names a commit (``graphmem show
dd76``): a unique start of at least four characters stands for the id; a shorter one, or one
no id starts with, is no observation; one that starts several ids names none and lists them,
each with a few words to tell them apart. A real journal in a temp dir; no threads."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphmem.errors import InvalidArgument, NotFound
from graphmem.types import Anchor, AnchorKind, Category, Observation
from graphmemd.memory.journal import Journal
from graphmemd.memory.observations import ObservationBook

F = Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py", "r:a.py::f", "def f(x):", "s1", "b1")


def _book(tmp_path: Path, *ids: str) -> ObservationBook:
    book = ObservationBook(Journal(tmp_path / "observations.jsonl"), lambda _o, _i: None)
    notes = [Observation(i, "r", f"note {i}: f retries twice before it gives up", Category.DECISION, 1.0, 1.0,
                         anchors=(F,)) for i in ids]  # fmt: skip
    assert book.import_observations(notes) == (len(ids), 0)
    return book


def test_a_unique_start_stands_for_the_id(tmp_path: Path) -> None:
    book = _book(tmp_path, "dd7651050f9b442a", "dd763a91bf08d076", "0fb7a8fb33054aca")
    assert book.full_id("0fb7") == "0fb7a8fb33054aca"
    assert book.full_id(" dd7651 ") == "dd7651050f9b442a"
    assert book.get(book.full_id("dd763")).id == "dd763a91bf08d076"
    assert book.full_id("0fb7a8fb33054aca") == "0fb7a8fb33054aca"


def test_a_short_or_unknown_start_is_no_observation(tmp_path: Path) -> None:
    book = _book(tmp_path, "dd7651050f9b442a", "0fb7a8fb33054aca")
    for ref in ("0fb", "beef", "0fb7a8fb33054acb"):
        with pytest.raises(NotFound, match=f"no observation '{ref}'"):
            book.get(book.full_id(ref))


def test_an_ambiguous_start_lists_the_ids_it_starts(tmp_path: Path) -> None:
    book = _book(tmp_path, "dd7651050f9b442a", "dd763a91bf08d076", "0fb7a8fb33054aca")
    with pytest.raises(InvalidArgument) as raised:
        book.full_id("dd76")
    assert raised.value.message == (
        "'dd76' starts 2 observation ids (dd763a91bf08d076 “note dd763a91bf08d076: f retries twice…”; "
        "dd7651050f9b442a “note dd7651050f9b442a: f retries twice…”): give more of it"
    )
