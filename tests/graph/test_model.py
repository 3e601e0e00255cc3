"""The domain model's compact form of many symbols (``symbol_columns`` and
``symbols_from_columns``, what a warm restart's snapshot holds): built back, the symbols are
equal to the originals, hash alike and are as frozen."""

from __future__ import annotations

import dataclasses

import pytest
from graphmemd.graph.model import SymbolInfo, symbol_columns, symbols_from_columns, symbols_of
from graphmemd.ingest.parsing.parser import parse_source

SOURCE = b"class A:\n    def f(self):\n        return g()\n\n    def g(self):\n        pass\n\ndef h():\n    pass\n"


def test_symbols_built_back_from_their_columns_are_the_originals() -> None:
    originals = symbols_of("r", parse_source("m.py", SOURCE))
    assert len(originals) == 4
    assert any(s.parent_id is None for s in originals)
    assert any(s.parent_id is not None for s in originals)
    columns = symbol_columns(originals)
    assert len(columns) == len(dataclasses.fields(SymbolInfo))
    back = symbols_from_columns(columns)
    assert back == originals
    assert [hash(s) for s in back] == [hash(s) for s in originals]
    assert [s.ref for s in back] == [s.ref for s in originals]
    with pytest.raises(dataclasses.FrozenInstanceError):
        back[0].name = "changed"  # type: ignore[misc]
    assert symbols_from_columns(symbol_columns([])) == []


def test_columns_that_do_not_fit_are_refused() -> None:
    columns = symbol_columns(symbols_of("r", parse_source("m.py", SOURCE)))
    with pytest.raises(ValueError, match="columns"):
        symbols_from_columns(columns[:-1])
    with pytest.raises(ValueError, match="columns"):
        symbols_from_columns([*columns[:-1], columns[-1][:-1]])
