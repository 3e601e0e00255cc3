"""PURE: the daemon's symbol lines mapped onto an edited buffer (graphmem.lsp.positions)."""

from __future__ import annotations

import pytest
from graphmem.lsp.positions import LineMap, definition_column, index_of_units, place_symbols, split_lines, units
from graphmem.types import Symbol

SOURCE = '''"""Accounts."""

import hashlib


class Account:
    def run(self) -> None:
        pass

    @property
    def name(self) -> str:
        return "a"


class Ledger:
    def run(self) -> None:
        return None


def helper(x: int) -> int:
    return x + 1
'''


def sym(qualname: str, kind: str, start: int, end: int) -> Symbol:
    name = qualname.rpartition(".")[2]
    return Symbol(f"r:a.py::{qualname}#{kind}", "r", "a.py", name, qualname, kind, "python", start, end, "")


SYMBOLS = [
    sym("Account", "class", 6, 12),
    sym("Account.run", "method", 7, 8),
    sym("Account.name", "method", 10, 12),  # starts at its decorator
    sym("Ledger", "class", 15, 17),
    sym("Ledger.run", "method", 16, 17),
    sym("helper", "function", 20, 21),
]


def lines_of(placed: dict[str, tuple[int, int, int]]) -> dict[str, int]:
    return {k.split("::")[1].split("#")[0]: v[0] for k, v in placed.items()}


def placed(indexed: str | None, buffer: str) -> dict[str, tuple[int, int, int]]:
    got = place_symbols(SYMBOLS, split_lines(indexed) if indexed is not None else None, split_lines(buffer))
    return {k: (p.line, p.start, p.last_line) for k, p in got.items()}


def test_unchanged_text_places_every_symbol_on_its_name() -> None:
    got = placed(SOURCE, SOURCE)
    assert lines_of(got) == {
        "Account": 5,
        "Account.run": 6,
        "Account.name": 10,  # the def line, not the decorator
        "Ledger": 14,
        "Ledger.run": 15,
        "helper": 19,
    }
    assert got["r:a.py::Account#class"] == (5, 6, 11)
    assert got["r:a.py::helper#function"][1] == 4


def test_lines_inserted_above_shift_every_symbol() -> None:
    buffer = "# one\n# two\n# three\n" + SOURCE
    assert lines_of(placed(SOURCE, buffer)) == {
        "Account": 8,
        "Account.run": 9,
        "Account.name": 13,
        "Ledger": 17,
        "Ledger.run": 18,
        "helper": 22,
    }


def test_an_edited_definition_line_is_found_by_name_and_kind_in_its_container() -> None:
    # Ledger.run's def line changes and a line is inserted in Account: the two `run` methods
    # must each stay in their own class.
    buffer = SOURCE.replace(
        "    def run(self) -> None:\n        return None", "    def run(self, fast: bool) -> None:\n        return None"
    )
    buffer = buffer.replace("        pass\n", "        pass\n        # note\n", 1)
    got = lines_of(placed(SOURCE, buffer))
    assert got["Account.run"] == 6
    assert got["Ledger"] == 15
    assert got["Ledger.run"] == 16


def test_a_symbol_renamed_in_the_buffer_is_not_placed_anywhere() -> None:
    buffer = SOURCE.replace("def helper(x: int)", "def helper2(x: int)")
    got = lines_of(placed(SOURCE, buffer))
    assert "helper" not in got
    assert got["Ledger.run"] == 15


def test_a_deleted_class_takes_its_methods_with_it() -> None:
    start = SOURCE.index("class Ledger")
    end = SOURCE.index("def helper")
    got = lines_of(placed(SOURCE, SOURCE[:start] + SOURCE[end:]))
    assert "Ledger" not in got
    assert "Ledger.run" not in got
    assert got["Account.run"] == 6  # the other `run` is not moved onto the deleted one's place
    assert got["helper"] == 14


def test_without_the_indexed_text_names_are_searched_near_their_recorded_lines() -> None:
    buffer = "\n\n" + SOURCE  # two lines more than the daemon's line numbers say
    got = lines_of(placed(None, buffer))
    assert got == {
        "Account": 7,
        "Account.run": 8,
        "Account.name": 12,
        "Ledger": 16,
        "Ledger.run": 17,
        "helper": 21,
    }


def test_calls_and_mentions_are_not_definitions() -> None:
    buffer = "x = helper(1)\nprint(helper)\nreturn helper(2)\n" + SOURCE
    got = placed(None, buffer)
    assert got["r:a.py::helper#function"][0] == 22


@pytest.mark.parametrize(
    ("line", "name", "kind", "column"),
    [
        ("    async def fetch(self):", "fetch", "method", 14),
        ("export function render(props) {", "render", "function", 16),
        ("export default class Widget extends Base {", "Widget", "class", 21),
        ("  async load(id: string): Promise<User> {", "load", "method", 8),
        ("const handler = async (req, res) => {", "handler", "function", 6),
        ("  onClick: function(e) {", "onClick", "method", 2),
        ("func (s *Server) Serve(addr string) error {", "Serve", "method", 17),
        ("type Server struct {", "Server", "struct", 5),
        ("pub fn parse<T: Read>(r: T) -> Result<()> {", "parse", "function", 7),
        ("impl Parser {", "Parser", "struct", 5),
        ("pub trait Store {", "Store", "trait", 10),
        ("    public static String encode(byte[] data) {", "encode", "method", 25),
        ("    String encode(byte[] data);", "encode", "method", 11),
        ("interface Repo<T> {", "Repo", "interface", 10),
        ("    return encode(data);", "encode", "method", None),
        ("    encode(data);", "encode", "method", None),
        ("    self.encode(data)", "encode", "method", None),
        ("    x = Server()", "Server", "class", None),
        ("if (encode(x)) {", "encode", "function", None),
    ],
)
def test_definition_lines_across_languages(line: str, name: str, kind: str, column: int | None) -> None:
    assert definition_column(line, name, kind) == column


def test_line_map_exact_and_approximate() -> None:
    old = ["a", "b", "c", "d", "e"]
    new = ["a", "x", "y", "c", "d", "e", "f"]
    m = LineMap(old, new)
    assert [m.exact(i) for i in range(5)] == [0, None, 3, 4, 5]
    assert m.approx(1) == 1  # b was replaced by x, y: same offset into the changed region
    same = LineMap(old, list(old))
    assert [same.exact(i) for i in range(5)] == [0, 1, 2, 3, 4]
    gone = LineMap(old, [])
    assert gone.exact(2) is None
    assert gone.approx(2) == 0


def test_columns_in_every_position_encoding() -> None:
    line = "s = '😀é'; def f():"
    at = line.index("def")
    assert units(line[:at], "utf-32") == at
    assert units(line[:at], "utf-16") == at + 1  # the emoji takes two UTF-16 units
    assert units(line[:at], "utf-8") == at + 3 + 1  # four bytes for the emoji, two for é
    for enc in ("utf-8", "utf-16", "utf-32"):
        assert index_of_units(line, units(line[:at], enc), enc) == at
    assert index_of_units("ab", 99) == 2


def test_split_lines_counts_lines_as_lsp_does() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\n") == ["a", ""]
    assert split_lines("form\x0cfeed") == ["form\x0cfeed"]
