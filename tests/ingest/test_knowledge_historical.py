"""Whether the text around a reference says the name is old (``ingest.knowledge.historical``)."""

from __future__ import annotations

from graphmemd.ingest.knowledge.historical import says_old, window
from graphmemd.ingest.knowledge.model import Span, Unit, UnitKind


def _at(text: str, name: str, kind: UnitKind = UnitKind.PARAGRAPH, heading: str = "Guide") -> tuple[Unit, Span]:
    unit = Unit(kind, 10, 10 + text.count("\n"), (heading,), text)
    before = text[: text.index(name)]
    line = 10 + before.count("\n")
    column = len(before) - (before.rfind("\n") + 1) + 1
    return unit, Span(line, column, line, column + len(name))


def test_a_sentence_that_says_the_name_is_old() -> None:
    for text, name in (
        ("The :exc:`MarshallingError` exceptions are deprecated in favor of :exc:`MarshmallowError`.", "Marshalling"),
        ("Setup.\nSerialized output is no longer an `OrderedDict` by default. You must set it.", "`OrderedDict`"),
        ("`Serializer` has been renamed to `Schema`.", "`Serializer`"),
        ("Use `Schema.load` instead of `Schema.validate`.", "`Schema.validate`"),
        ("The `Fixed` field was\ndropped; see the changelog.", "`Fixed`"),  # (a phrase may span lines)
    ):
        unit, span = _at(text, name)
        assert says_old(unit, span), text


def test_an_ordinary_sentence_or_the_next_one_does_not() -> None:
    unit, span = _at("Call `get_stream` to read input. It was deprecated once, long ago.", "`get_stream`")
    assert not says_old(unit, span)  # another sentence says it
    assert window(unit, span).endswith("Call `get_stream` to read input")
    unit, span = _at("Pass `callback` to run code.", "`callback`")
    assert not says_old(unit, span)
    assert not says_old(*_at("The `removed_items` list holds what was popped.", "`removed_items`"))


def test_a_section_title_counts_and_an_example_reads_its_own_line() -> None:
    unit, span = _at("* `get_binary_stream`", "`get_binary_stream`", heading="Deprecated functions")
    assert says_old(unit, span)
    code = "# deprecated since 2.0\nfrom pkg import old\nfrom pkg import older  # deprecated"
    unit, span = _at(code, "old\n", UnitKind.EXAMPLE)
    assert not says_old(unit, span)  # the comment is on another line
    unit, span = _at(code, "older", UnitKind.EXAMPLE)
    assert says_old(unit, span)
