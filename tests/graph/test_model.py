"""The domain model's compact form of many records (``columns_of`` and ``from_columns``: a
warm restart's snapshot keeps its symbols so, the parse cache's codec builds references so):
built back, they are equal to the originals, hash alike and are as frozen."""

from __future__ import annotations

import dataclasses

import pytest
from graphmemd.graph.model import CallRef, SymbolInfo, columns_of, from_columns, symbols_of
from graphmemd.ingest.parsing.parser import parse_source

SOURCE = b"class A:\n    def f(self):\n        return g()\n\n    def g(self):\n        pass\n\ndef h():\n    pass\n"


def test_symbols_built_back_from_their_columns_are_the_originals() -> None:
    originals = symbols_of("r", parse_source("m.py", SOURCE))
    assert len(originals) == 4
    assert any(s.parent_id is None for s in originals)
    assert any(s.parent_id is not None for s in originals)
    columns = columns_of(SymbolInfo, originals)
    assert len(columns) == len(dataclasses.fields(SymbolInfo))
    back = from_columns(SymbolInfo, columns)
    assert back == originals
    assert [hash(s) for s in back] == [hash(s) for s in originals]
    assert [s.ref for s in back] == [s.ref for s in originals]
    with pytest.raises(dataclasses.FrozenInstanceError):
        back[0].name = "changed"  # type: ignore[misc]
    assert from_columns(SymbolInfo, columns_of(SymbolInfo, [])) == []


def test_columns_that_do_not_fit_are_refused() -> None:
    columns = columns_of(SymbolInfo, symbols_of("r", parse_source("m.py", SOURCE)))
    with pytest.raises(ValueError, match="columns"):
        from_columns(SymbolInfo, columns[:-1])
    with pytest.raises(ValueError, match="columns"):
        from_columns(SymbolInfo, [*columns[:-1], columns[-1][:-1]])


def test_only_slots_dataclasses_without_post_init_are_built_from_columns() -> None:
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            assert self.a >= 0

    for cls in (NoSlots, Checked):
        with pytest.raises(TypeError, match="slots dataclass"):
            from_columns(cls, [[1]])
    calls = [CallRef("f", "g", "g", 1, 2), CallRef("f", "h.i", "i", 3)]
    assert from_columns(CallRef, columns_of(CallRef, calls)) == calls
