"""A live edit's incremental re-parse (``parse_source(..., trees=LiveTrees)``) equals a cold
``parse_source`` of the same bytes after every edit, on real files of several languages; the
edit computation (``parsing/edits.py``) describes the change exactly and minimally; a real
pool's worker re-parses live edits incrementally and bulk jobs never."""

from __future__ import annotations

import logging
import random
import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
from graphmemd.graph.model import Language
from graphmemd.indexing.batch_timing import BatchTiming
from graphmemd.ingest.parse_pool import LIVE_FILES, ParsePool
from graphmemd.ingest.parsing import language_for_path, parse_source
from graphmemd.ingest.parsing.edits import edit_between, point
from graphmemd.ingest.parsing.parser import LiveTrees

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
BIG = 64 * 1024 * 1024  # bounds that never drop the file under test

# stdlib Python (the largest the hook benchmark edits among them), then the largest fixture
# file of each other language
PYTHON_FILES = [STDLIB / "_pydecimal.py", STDLIB / "typing.py", STDLIB / "argparse.py"]
OTHER_LANGUAGES = [
    "go",
    "rust",
    "typescript",
    "javascript",
    "java",
    "c",
    "cpp",
    "ruby",
    "php",
    "csharp",
    "kotlin",
    "scala",
    "swift",
]


def _largest(language_dir: str) -> Path:
    files = [p for p in (FIXTURES / language_dir).rglob("*") if p.is_file() and language_for_path(p.name) is not None]
    return max(files, key=lambda p: p.stat().st_size)


_DEF = {
    Language.PYTHON: re.compile(rb"(?m)^([ \t]*)def \w+\(([^)\n]*)\)"),
}
_LINE = re.compile(rb"(?m)^[ \t]+\S[^\n]*\n")
#: an indented statement line: a deletion leaves the syntax intact
_STATEMENT = re.compile(rb"(?m)^[ \t]+(?:return [^\n]*|[^\n]*;[ \t]*)\n")


def _edits(source: bytes, language: Language, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    """(what, the new bytes) for a series of targeted then random edits, each applied to the
    previous version."""
    text = source
    # targeted: a line inserted inside a function, then another deleted, a signature changed,
    # a function added
    comment = b"# incr\n" if language in (Language.PYTHON, Language.RUBY) else b"// incr\n"
    lines = list(_LINE.finditer(text))
    m = lines[len(lines) // 2]
    indent = m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())]
    text = text[: m.end()] + indent + comment + text[m.end() :]
    yield "insert a line inside a function", text
    statements = list(_STATEMENT.finditer(text)) or [m for m in _LINE.finditer(text) if comment in m.group(0)]
    m = statements[len(statements) // 3]
    text = text[: m.start()] + text[m.end() :]
    yield "delete a line inside a function", text
    if language in _DEF:
        sigs = list(_DEF[language].finditer(text))
        m = sigs[len(sigs) // 2]
        params = m.group(2)
        text = text[: m.start(2)] + params + (b", " if params.strip() else b"") + b"_incr=None" + text[m.end(2) :]
        yield "change a signature", text
        text = text + b"\n\ndef added_incr(a, b):\n    return a + b\n"
        yield "add a function at the end", text
    else:
        i = text.find(b"(", len(text) // 2)
        text = text[: i + 1] + b" " + text[i + 1 :]
        yield "a space inside a parameter list", text
    text = b"\n" + text
    yield "edit at the start", text
    text = text + b"\n"
    yield "edit at the end", text
    before = text
    at = text.find(b"\n", len(text) // 2)
    text = text[:at] + b" ) ( {[" + text[at:]
    yield "break the syntax", text
    text = before
    yield "repair it", text
    yield "the same bytes again", text
    # random: a line deleted, duplicated, moved, or a word renamed
    for _ in range(12):
        lines = text.splitlines(keepends=True)
        i = rng.randrange(len(lines))
        choice = rng.randrange(4)
        if choice == 0:
            del lines[i]
        elif choice == 1:
            lines.insert(i, lines[i])
        elif choice == 2:
            lines.insert(rng.randrange(len(lines)), lines.pop(i))
        else:
            words = list(re.finditer(rb"[A-Za-z_]\w+", lines[i]))
            if words:
                w = rng.choice(words)
                lines[i] = lines[i][: w.end()] + b"_r" + lines[i][w.end() :]
        text = b"".join(lines)
        yield f"random edit {choice} at line {i}", text


def _check_series(path: Path, seed: int, source: bytes | None = None) -> LiveTrees:
    source = path.read_bytes() if source is None else source
    language = language_for_path(path.name)
    assert language is not None
    rel = path.name
    trees = LiveTrees(max_files=4, max_bytes=BIG)
    assert parse_source(rel, source, language, trees=trees) == parse_source(rel, source, language)
    for what, text in _edits(source, language, random.Random(seed)):
        got = parse_source(rel, text, language, trees=trees)
        assert got == parse_source(rel, text, language), f"{path.name}: {what}"
    return trees


@pytest.mark.parametrize("path", PYTHON_FILES, ids=lambda p: p.name)
def test_incremental_equals_cold_on_stdlib_python(path: Path) -> None:
    trees = _check_series(path, seed=41)
    assert trees.reused >= 6  # the incremental path ran (not only fresh parses)


def test_incremental_equals_cold_with_crlf_tabs_and_invalid_utf8() -> None:
    """Rows are counted by ``\\n`` only and columns in bytes, as tree-sitter counts them."""
    source = (STDLIB / "argparse.py").read_bytes().replace(b"\n", b"\r\n").replace(b"    ", b"\t")
    source = source.replace(b"# Author:", b"# Auth\xe9r \xff\xfe:", 1)
    trees = _check_series(STDLIB / "argparse.py", seed=5, source=source)
    assert trees.reused >= 4


@pytest.mark.parametrize("language_dir", OTHER_LANGUAGES)
def test_incremental_equals_cold_on_other_languages(language_dir: str) -> None:
    trees = _check_series(_largest(language_dir), seed=7)
    assert trees.reused >= 4


def test_the_edit_is_exact_and_minimal() -> None:
    rng = random.Random(3)
    alphabet = b"ab\n"
    for _ in range(3000):
        size = rng.choice([0, 1, 5, 4095, 4096, 4097, 9000])
        old = bytes(rng.choice(alphabet) for _ in range(size)) if size < 100 else rng.randbytes(size)
        new = bytearray(old)
        for _ in range(rng.randrange(3)):
            at = rng.randrange(len(new) + 1)
            new[at : at + rng.randrange(4)] = bytes(rng.choice(alphabet) for _ in range(rng.randrange(4)))
        new_b = bytes(new)
        edit = edit_between(old, new_b)
        if old == new_b:
            assert edit is None
            continue
        assert edit is not None
        s, oe, ne = edit.start_byte, edit.old_end_byte, edit.new_end_byte
        assert old[:s] == new_b[:s]
        assert old[oe:] == new_b[ne:]
        assert len(old) - oe == len(new_b) - ne
        assert s <= oe
        assert s <= ne
        # minimal: the prefix is the longest common one, the suffix the longest that fits after it
        assert s == len(old) or s == len(new_b) or old[s] != new_b[s]
        assert oe == s or ne == s or old[oe - 1] != new_b[ne - 1]
        for data, offset, got in (
            (old, s, edit.start_point),
            (old, oe, edit.old_end_point),
            (new_b, ne, edit.new_end_point),
        ):
            head = data[:offset].split(b"\n")
            assert got == (len(head) - 1, len(head[-1])) == point(data, offset)


def test_bounds_drop_the_least_recently_parsed() -> None:
    files = [STDLIB / name for name in ("abc.py", "bisect.py", "colorsys.py")]
    trees = LiveTrees(max_files=2, max_bytes=BIG)
    for p in files:
        parse_source(p.name, p.read_bytes(), trees=trees)
    assert len(trees) == 2
    parse_source("abc.py", files[0].read_bytes(), trees=trees)  # dropped: parsed fresh
    assert trees.reused == 0
    parse_source("colorsys.py", files[2].read_bytes() + b"\n", trees=trees)
    assert trees.reused == 1
    small = LiveTrees(max_files=8, max_bytes=trees.held_bytes // 2)
    for p in files:
        parse_source(p.name, p.read_bytes(), trees=small)
    assert small.held_bytes <= small.max_bytes
    assert 0 < len(small) < 3


def test_a_worker_re_parses_a_live_edit_incrementally_and_a_bulk_job_never(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Through a real pool: a live edit of a file the worker parsed before is re-parsed from
    its kept tree (``ParseOutcome.incremental``, counted in the batch's log line) with the cold
    result; a bulk job's files never are, and the worker drops its trees when given one."""
    source = (STDLIB / "typing.py").read_bytes()
    path = tmp_path / "typing.py"
    path.write_bytes(source)
    others = [tmp_path / f"m{i}.py" for i in range(LIVE_FILES + 1)]
    for p in others:
        p.write_bytes(b"def f(a):\n    return a\n")
    with ParsePool(1) as pool:
        first = pool.parse_one("typing.py", path)
        assert not first.incremental
        edited = source.replace(b"def _type_convert(arg,", b"def _type_convert(arg, _live=None,", 1)
        assert edited != source
        path.write_bytes(edited)
        again = pool.parse_one("typing.py", path)
        assert again.incremental
        assert again.parsed == parse_source("typing.py", edited)
        timing = BatchTiming()
        timing.parsing([path], lambda: 0)
        timing.took(again.worker_ms, again.incremental)
        with caplog.at_level(logging.INFO, logger="graphmemd.indexing.batch_timing"):
            timing.log("repo", 1, 1, 0)
        assert "on 1, 1 re-parsed incrementally" in caplog.text
        # a bulk job (more than LIVE_FILES files) with the file among them: parsed cold, and
        # the worker's kept trees are gone after it
        path.write_bytes(edited + b"\n")
        bulk = list(pool.parse_many([("typing.py", path), *((p.name, p) for p in others)]))
        assert [o.incremental for o in bulk] == [False] * len(bulk)
        path.write_bytes(edited + b"\n\n")
        after = pool.parse_one("typing.py", path)
        assert not after.incremental
        assert after.parsed == parse_source("typing.py", edited + b"\n\n")
