"""Finding a set of texts in a few shared scans finds exactly what one scan per text finds."""

from __future__ import annotations

import random

import pytest
from graphmemd.graph.model import Language
from graphmemd.ingest.parsing.fingerprint import load_rules
from graphmemd.ingest.parsing.textscan import SHORTEST_KEY, Scan, occurrences, plan


def _naive(source: bytes, texts: list[bytes], lo: int, hi: int) -> set[tuple[int, bytes]]:
    found = set()
    for text in texts:
        start = source.find(text, lo, hi)
        while start >= 0:
            found.add((start, text))
            start = source.find(text, start + 1, hi)
    return found


def test_the_python_aliases_share_scans() -> None:
    aliases = list(load_rules(Language.PYTHON).aliases or {})
    scans = plan(aliases)
    assert len(scans) < len(aliases) / 2  # (57 aliases: 24 scans)
    assert sorted(text for scan in scans for text, _offset in scan.texts) == sorted(aliases)
    for scan in scans:
        assert len(scan.key) >= SHORTEST_KEY or any(text == scan.key for text, _offset in scan.texts)
        for text, offset in scan.texts:
            assert text[offset : offset + len(scan.key)] == scan.key


def test_the_plan_is_deterministic() -> None:
    texts = [b"failUnless", b"failIf", b"assertEquals", b"os.error", b"socket.error", b"ab"]
    forward, backward = plan(texts), plan(list(reversed(texts)))
    assert [s.key for s in forward] == [s.key for s in backward]  # (the keys do not depend on the order)
    assert [set(s.texts) for s in forward] == [set(s.texts) for s in backward]


@pytest.mark.parametrize("seed", range(40))
def test_occurrences_are_those_of_one_scan_per_text(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = b"ab.cE_"
    texts = list({bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 12))})
    source = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
    lo = rng.randint(0, len(source))
    hi = rng.randint(lo, len(source))
    keys = [bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(0, 3))]
    scans = plan(texts, shortest=rng.randint(1, 6), keys=keys)
    found = occurrences(source, scans, lo, hi)
    assert len(found) == len(set(found))  # (each once)
    assert set(found) == _naive(source, texts, lo, hi)


def test_given_keys_are_scanned_for_first() -> None:
    """A key given finds every text holding it in one scan (``Dict`` for ``t.Dict`` and
    ``typing.Dict``, which the greedy choice would split under ``typing.`` and ``.Dict``)."""
    texts = [b"Dict", b"t.Dict", b"typing.Dict", b"typing.List", b"List"]
    scans = plan(texts, keys=[b"Dict", b"List"])
    assert [(s.key, {t for t, _o in s.texts}) for s in scans] == [
        (b"Dict", {b"Dict", b"t.Dict", b"typing.Dict"}),
        (b"List", {b"typing.List", b"List"}),
    ]
    source = b"x = typing.Dict or t.Dict or Dict or DictX or typing.List"
    assert set(occurrences(source, scans, 0, len(source))) == _naive(source, texts, 0, len(source))


def test_overlapping_and_repeated_keys() -> None:
    # the key occurs twice in a text, and occurrences of a text overlap
    texts = [b"abcab", b"abcabcab"]
    source = b"abcabcabcab"
    assert set(occurrences(source, plan(texts, shortest=2), 0, len(source))) == _naive(source, texts, 0, len(source))


def test_an_empty_text_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        plan([b"x", b""])


def _every_text(source: bytes, scans: list[Scan], lo: int, hi: int) -> list[tuple[int, bytes]]:
    """``occurrences`` checking every text of a scan at each of its key's hits (the order the
    rewrites' events depend on)."""
    found = []
    for scan in scans:
        hit = source.find(scan.key, lo, hi)
        while hit >= 0:
            for text, offset in scan.texts:
                start = hit - offset
                if start >= lo and start + len(text) <= hi and source.startswith(text, start):
                    found.append((start, text))
            hit = source.find(scan.key, hit + 1, hi)
    return found


@pytest.mark.parametrize("seed", range(40))
def test_a_hit_checked_by_its_next_byte_finds_the_same_in_the_same_order(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = b"ab.cE_"
    texts = list({bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 9))) for _ in range(rng.randint(1, 12))})
    source = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 400)))
    lo = rng.randint(0, len(source))
    hi = rng.randint(lo, len(source))
    scans = list(plan(texts, shortest=rng.randint(1, 6)))
    assert occurrences(source, scans, lo, hi) == _every_text(source, scans, lo, hi)


def test_assert_equal_is_checked_against_one_alias() -> None:
    scans = plan(list(load_rules(Language.PYTHON).aliases or {}))
    scan = next(s for s in scans if s.key == b"assert")
    assert scan.by_byte is not None
    assert [text for text, _offset, _rest in scan.by_byte[ord("E")]] == [b"assertEquals"]
    assert ord("T") not in scan.by_byte  # (assertTrue: no alias starts so)
    source = b"self.assertEqual(a, b)\nself.assertEquals(a, b)\nself.assert_(x)\n"
    assert [text for _start, text in occurrences(source, scans, 0, len(source))] == [b"assertEquals", b"assert_"]
