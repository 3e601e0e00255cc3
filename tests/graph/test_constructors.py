"""What a call of a class runs (``graph.constructors``, pure): classes parsed from real
source, bases linked by name as the code's resolution links them."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.changes import parse_signature
from graphmemd.graph.constructors import constructor
from graphmemd.graph.model import SymbolInfo, symbols_of
from graphmemd.ingest.parsing.parser import parse_source

SOURCE = b"""
import abc
import attr
from dataclasses import dataclass
from functools import total_ordering
from external import Model


class Base:
    def __init__(self, url, *, timeout=5):
        pass


class Client(Base):
    def __init__(self, url, *, retries=3):
        pass


class Session(Base):
    def close(self):
        pass


class Left:
    def helper(self):
        pass


class Both(Left, Session):
    pass


class Made:
    def __new__(cls, value):
        pass


@total_ordering
class Ordered(Base):
    pass


class Abstract(abc.ABC, metaclass=abc.ABCMeta):
    def __init__(self, name):
        pass


class Error(Exception):
    def __init__(self, message, code=1):
        pass


@dataclass(frozen=True)
class Point:
    x: int


@attr.s
class Record(Base):
    name = attr.ib()


class Plugin(metaclass=type("M", (type,), {})):
    def __init__(self, name):
        pass


class Meta(type):
    pass


class Hooked(metaclass=Meta):
    def __init__(self, name):
        pass


class Row(Model):
    def __init__(self, values):
        pass


class FromPoint(Point):
    pass


class Nothing:
    pass
"""


class Lookup:
    """The classes of one parsed file; bases linked by name (as INHERITS edges are)."""

    def __init__(self, symbols: list[SymbolInfo]) -> None:
        self.by_qual = {s.qualname: s for s in symbols}

    def member(self, cls: SymbolInfo, name: str) -> SymbolInfo | None:
        return self.by_qual.get(f"{cls.qualname}.{name}")

    def bases(self, cls: SymbolInfo) -> Sequence[SymbolInfo]:
        parsed = parse_signature(cls.signature[cls.signature.index("class") :])
        names = {b.split("[")[0].rsplit(".", 1)[-1] for b in parsed.bases} if parsed is not None else set()
        return [s for n, s in self.by_qual.items() if n in names]


def _runs(name: str) -> str | None:
    syms = symbols_of("r", parse_source("shop/client.py", SOURCE))
    lookup = Lookup(syms)
    found = constructor(lookup.by_qual[name], lookup)
    return found.qualname if found is not None else None


def test_own_init_then_new_then_the_nearest_base() -> None:
    assert _runs("Client") == "Client.__init__"
    assert _runs("Session") == "Base.__init__"
    assert _runs("Both") == "Base.__init__"  # depth first, left to right: Left has none
    assert _runs("Made") == "Made.__new__"
    assert _runs("Nothing") is None


def test_plain_decorators_metaclasses_and_builtin_bases_keep_it_known() -> None:
    assert _runs("Ordered") == "Base.__init__"
    assert _runs("Abstract") == "Abstract.__init__"
    assert _runs("Error") == "Error.__init__"


def test_generated_or_replaced_constructors_are_unknown() -> None:
    assert _runs("Point") is None  # @dataclass
    assert _runs("Record") is None  # @attr.s, though Base has an __init__
    assert _runs("FromPoint") is None  # a base whose constructor is generated
    assert _runs("Plugin") is None  # a metaclass written as a call
    assert _runs("Hooked") is None  # a metaclass of the repository (its __call__ may do anything)
    assert _runs("Row") is None  # a base outside the repository


def test_a_function_is_no_class() -> None:
    syms = symbols_of("r", parse_source("shop/client.py", SOURCE))
    lookup = Lookup(syms)
    assert constructor(lookup.by_qual["Base.__init__"], lookup) is None
