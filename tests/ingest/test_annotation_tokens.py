"""The annotation reader's name characters: written as classes that compile fast, the same
characters as the plain ranges they replace, for every code point."""

from __future__ import annotations

import re

from graphmemd.ingest.parsing import annotations
from graphmemd.ingest.parsing.annotations import AnnotationRules, canonical

#: what a name's first and later characters were written as (slow to compile: ~10 ms)
SPEC_START = re.compile(r"[A-Za-z_\u0080-\uffff]")
SPEC_CONT = re.compile(r"[\w\u0080-\uffff]")


def test_name_characters_are_the_specified_ones_for_every_code_point() -> None:
    start, cont = re.compile(annotations._NAME_START), re.compile(annotations._NAME_CONT)
    chars = [chr(c) for c in range(0x110000)]
    assert [c for c in chars if bool(start.fullmatch(c)) != bool(SPEC_START.fullmatch(c))] == []
    assert [c for c in chars if bool(cont.fullmatch(c)) != bool(SPEC_CONT.fullmatch(c))] == []


def test_names_read_alike_across_scripts_and_dots() -> None:
    rules = AnnotationRules(modules=frozenset({"typing"}), aliases={"List": "list"})
    assert canonical("typing.List[ Größe ]", rules) == "list[Größe]"
    assert canonical("модуль . Тип | None", rules) == "модуль.Тип|None"
    assert canonical("_x9[ 𝔘 ]", rules) == "_x9[𝔘]"  # (an astral letter: not read, compared without spaces)
