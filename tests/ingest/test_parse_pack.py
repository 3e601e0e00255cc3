"""The parse cache's pack files: the codec (pure) and the files on disk (real files in a
temp dir): last record wins, removals, a torn or damaged tail is cut off and appends go on
after it, compaction keeps exactly the live parses, and a repository's cache can be dropped;
a restart's read of the heads alone, and each text read and checked later."""

from __future__ import annotations

import os
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
from graphmemd.ingest import parse_pack
from graphmemd.ingest.parse_pack import (
    MAGIC,
    CachedHead,
    CachedParse,
    ParsePack,
    encode_put,
    encode_remove,
    heads,
    records,
)
from graphmemd.ingest.parsing.parser import parse_source


def row(path: str, n: int = 0, size: int = 100) -> CachedParse:
    data = f'["parse of {path}",{n}]' + "x" * n
    return CachedParse(path, size, 1_700_000_000_000_000_000 + n, f"hash{n}", "v1", data)


def by_path(pack: ParsePack, repo: str = "r") -> dict[str, CachedParse]:
    return {r.path: r for r in pack.load(repo)}


def test_the_codec_round_trips_and_stops_at_damage() -> None:
    rows = [row("a.py"), row("dir/ü.py", 3), row("b.py", 7)]
    buf = MAGIC + b"".join(encode_put(r) for r in rows) + encode_remove("a.py")
    got = list(records(buf))
    assert [r.parse for r in got] == [*rows, None]
    assert got[-1].path == "a.py"
    assert got[-1].end == len(buf)
    for cut in range(len(MAGIC), len(buf)):  # any torn tail: only whole records before it
        sound = list(records(buf[:cut]))
        assert all(r.end <= cut for r in sound)
        assert len(sound) == sum(1 for r in got if r.end <= cut)
    flipped = bytearray(buf)
    flipped[got[1].start + 12] ^= 0xFF  # inside the second record's payload
    assert [r.parse for r in records(bytes(flipped))] == rows[:1]


def head_of(r: CachedParse) -> CachedHead:
    return CachedHead(r.path, r.size, r.mtime_ns, r.content_hash, r.version)


def test_the_heads_codec_reads_the_framing_without_the_texts() -> None:
    rows = [row("a.py"), row("dir/ü.py", 3), row("b.py", 7)]
    buf = MAGIC + b"".join(encode_put(r) for r in rows) + encode_remove("a.py")
    got = list(records(buf))
    assert list(heads(buf)) == [(r.start, r.end, r.path, None if r.parse is None else head_of(r.parse)) for r in got]
    for cut in range(len(MAGIC), len(buf)):  # a torn tail: the whole records before it, as ``records``
        assert [h[1] for h in heads(buf[:cut])] == [r.end for r in got if r.end <= cut]
    flipped = bytearray(buf)
    flipped[got[1].end - 1] ^= 0xFF  # the second record's text: its framing is sound
    assert [h[2] for h in heads(bytes(flipped))] == ["a.py", "dir/ü.py", "b.py", "a.py"]
    flipped = bytearray(buf)
    flipped[got[1].start + 8] = 9  # the second record's op: the framing ends there
    assert [h[2] for h in heads(bytes(flipped))] == ["a.py"]


def test_heads_then_texts_checked_one_by_one(tmp_path: Path) -> None:
    """A restart reads the heads (no texts, no checksums); each text is read and checked
    when it is needed: a damaged record raises, a superseded or removed one is None."""
    pack = ParsePack(tmp_path / "parses")
    pack.put_rows("r", [row("a.py", 1), row("b.py", 2), row("c.py", 3)])
    pack.put_rows("r", [row("a.py", 4)])
    pack.remove("r", ["c.py"])
    (file,) = (tmp_path / "parses").glob("*.pack")
    b_start = next(rec for rec in records(file.read_bytes()) if rec.path == "b.py").end
    with file.open("r+b") as f:  # the last byte of b.py's text: only its checksum tells
        f.seek(b_start - 1)
        last = f.read(1)
        f.seek(b_start - 1)
        f.write(bytes([last[0] ^ 0x01]))

    fresh = ParsePack(tmp_path / "parses")
    got = {h.path: h for h in fresh.heads("r")}
    assert got == {"a.py": head_of(row("a.py", 4)), "b.py": head_of(row("b.py", 2))}
    assert fresh.text("r", got["a.py"]) == row("a.py", 4).data
    with pytest.raises(ValueError, match="damaged"):
        fresh.text("r", got["b.py"])
    fresh.put_rows("r", [row("a.py", 5)])  # parsed again after the restart read its head
    assert fresh.text("r", got["a.py"]) is None
    fresh.remove("r", ["a.py"])
    assert fresh.text("r", got["a.py"]) is None
    assert fresh.heads("missing") == []


def test_heads_cut_a_torn_tail_and_appends_follow(tmp_path: Path) -> None:
    pack = ParsePack(tmp_path / "parses")
    pack.put_rows("r", [row("a.py", 1), row("b.py", 2)])
    (file,) = (tmp_path / "parses").glob("*.pack")
    file.write_bytes(file.read_bytes()[:-5])  # a crash in the middle of b.py's record
    fresh = ParsePack(tmp_path / "parses")
    assert [h.path for h in fresh.heads("r")] == ["a.py"]
    fresh.put_rows("r", [row("c.py", 3)])
    assert by_path(ParsePack(tmp_path / "parses")) == {"a.py": row("a.py", 1), "c.py": row("c.py", 3)}
    file.write_bytes(b"\x00garbage")
    assert ParsePack(tmp_path / "parses").heads("r") == []
    file.write_bytes(b"")
    assert ParsePack(tmp_path / "parses").heads("r") == []


def test_last_record_wins_and_removals_forget(tmp_path: Path) -> None:
    pack = ParsePack(tmp_path / "parses")
    assert pack.load("r") == []
    pack.put_rows("r", [row("a.py", 1), row("b.py", 2)])
    pack.put_rows("r", [row("a.py", 5)])
    pack.remove("r", ["b.py", "never-cached.py"])
    pack.put_rows("other", [row("a.py", 9)])
    assert by_path(ParsePack(tmp_path / "parses")) == {"a.py": row("a.py", 5)}
    assert by_path(ParsePack(tmp_path / "parses"), "other") == {"a.py": row("a.py", 9)}


def test_a_torn_tail_is_cut_off_and_appends_follow_the_sound_part(tmp_path: Path) -> None:
    pack = ParsePack(tmp_path / "parses")
    pack.put_rows("r", [row("a.py", 1), row("b.py", 2)])
    (file,) = (tmp_path / "parses").glob("*.pack")
    whole = file.read_bytes()
    file.write_bytes(whole[:-5])  # a crash in the middle of b.py's record
    fresh = ParsePack(tmp_path / "parses")
    assert by_path(fresh) == {"a.py": row("a.py", 1)}
    assert file.stat().st_size < len(whole) - 5  # cut back to the end of a.py's record
    fresh.put_rows("r", [row("c.py", 3)])
    assert by_path(ParsePack(tmp_path / "parses")) == {"a.py": row("a.py", 1), "c.py": row("c.py", 3)}


def test_a_file_that_is_not_a_pack_is_started_again(tmp_path: Path) -> None:
    (tmp_path / "parses").mkdir()
    pack = ParsePack(tmp_path / "parses")
    pack.put_rows("r", [row("a.py")])
    (file,) = (tmp_path / "parses").glob("*.pack")
    file.write_bytes(b"garbage, not a pack")
    pack = ParsePack(tmp_path / "parses")
    assert pack.load("r") == []
    pack.put_rows("r", [row("b.py")])
    assert by_path(ParsePack(tmp_path / "parses")) == {"b.py": row("b.py")}


def test_compaction_keeps_exactly_the_live_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_pack, "COMPACT_MIN_DEAD", 4096)
    pack = ParsePack(tmp_path / "parses")
    expected: dict[str, CachedParse] = {}
    for rnd in range(40):
        rows = [row(f"f{i}.py", rnd * 10 + i) for i in range(10)]
        pack.put_rows("r", rows)
        expected.update((r.path, r) for r in rows)
        if rnd % 3 == 0:
            pack.remove("r", [f"f{rnd % 10}.py"])
            expected.pop(f"f{rnd % 10}.py", None)
    (file,) = (tmp_path / "parses").glob("*.pack")
    live = sum(len(encode_put(r)) for r in expected.values())
    assert file.stat().st_size <= len(MAGIC) + live + max(4096, live) + 20_000  # compacted along the way
    assert by_path(pack) == expected
    assert by_path(ParsePack(tmp_path / "parses")) == expected


def test_drop_forgets_a_repository(tmp_path: Path) -> None:
    pack = ParsePack(tmp_path / "parses")
    pack.put_rows("r", [row("a.py")])
    pack.put_rows("s", [row("a.py")])
    pack.drop("r")
    assert pack.load("r") == []
    assert by_path(ParsePack(tmp_path / "parses"), "s") == {"a.py": row("a.py")}


def test_put_encodes_the_parse_unless_the_worker_did(tmp_path: Path) -> None:
    from graphmemd.graph.model import FileRecord, Language
    from graphmemd.ingest import parsecache

    parsed = parse_source("m.py", b"def f():\n    return g()\n")
    rec = FileRecord("r", "m.py", Language.PYTHON, "h1", 24, 1.0, 0, 42)
    pack = ParsePack(tmp_path / "parses")
    pack.put("r", [(rec, parsed), (replace(rec, path="n.py"), parsed)], {"n.py": "worker text"})
    got = by_path(pack)
    assert parsecache.decode(got["m.py"].data) == parsed
    assert got["m.py"].version == parsecache.PARSER_VERSION
    assert (got["m.py"].size, got["m.py"].mtime_ns, got["m.py"].content_hash) == (24, 42, "h1")
    assert got["n.py"].data == "worker text"


def test_an_outline_decodes_only_the_symbols() -> None:
    from graphmemd.ingest import parsecache

    source = b"import os\nclass A(B):\n    def f(self, x: int) -> str:\n        return os.path.join(g(x))\n"
    parsed = parse_source("m.py", source)
    assert parsed.calls
    assert parsed.imports
    assert parsed.inherits
    outline = parsecache.decode(parsecache.encode(parsed), outline=True)
    assert outline == replace(parsed, imports=(), calls=(), inherits=(), types=())


def test_a_failed_append_leaves_the_pack_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails half-way (a full disk) is cut off again: the pack keeps what it had,
    the error is a StoreError, and the next append works."""
    import errno
    import io

    from graphmem.errors import StoreError

    pack = ParsePack(tmp_path / "parses")
    pack.put_rows("r", [row("a.py", 1)])
    (file,) = (tmp_path / "parses").glob("*.pack")
    before = file.read_bytes()
    real_open = Path.open

    class Full(io.FileIO):
        def write(self, data: object) -> int:
            super().write(bytes(data[:10]))  # type: ignore[index]
            raise OSError(errno.ENOSPC, "No space left on device")

    def fake_open(self: Path, mode: str = "r", *args: object, **kwargs: object) -> object:
        return Full(str(self), mode.replace("b", "")) if self == file and mode == "r+b" else real_open(self, mode)

    monkeypatch.setattr(Path, "open", fake_open)
    with pytest.raises(StoreError, match="No space"):
        pack.put_rows("r", [row("b.py", 2)])
    monkeypatch.setattr(Path, "open", real_open)
    assert file.read_bytes() == before
    pack.put_rows("r", [row("c.py", 3)])
    assert by_path(ParsePack(tmp_path / "parses")) == {"a.py": row("a.py", 1), "c.py": row("c.py", 3)}


def test_prune_keeps_only_the_packs_of_known_repositories(tmp_path: Path) -> None:
    pack = ParsePack(tmp_path / "parses")
    for repo in ("kept", "gone", "also-gone"):
        pack.put_rows(repo, [row("a.py")])
    (tmp_path / "parses" / "x.tmp").write_bytes(b"half a rewrite")
    fresh = ParsePack(tmp_path / "parses")
    assert len(fresh.prune(["kept", "never-cached"])) == 3
    assert sorted(p.suffix for p in (tmp_path / "parses").iterdir()) == [".pack"]
    assert by_path(fresh, "kept") == {"a.py": row("a.py")}
    assert fresh.load("gone") == []


def test_compaction_copies_one_record_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compaction does not hold the live parses in memory at once (a 4.7 M-line tree's
    pack is ~5 times the 43 MB of a 0.9 M-line one), and keeps exactly them."""
    monkeypatch.setattr(parse_pack, "COMPACT_MIN_DEAD", 1024)
    pack = ParsePack(tmp_path / "parses")
    expected: dict[str, CachedParse] = {}

    def put(path: str, n: int) -> None:  # ~100 KB that does not compress away
        r = replace(row(path, n), data=os.urandom(50_000).hex())
        pack.put_rows("r", [r])
        expected[path] = r

    paths = [f"f{i}.py" for i in range(100)]  # ~10 MB live
    for rnd in range(2):  # the second round makes the first one's records dead
        for p in paths:
            put(p, rnd)
    (file,) = (tmp_path / "parses").glob("*.pack")
    peaks: list[int] = []
    tracemalloc.start()
    try:
        for p in paths:  # a third round: compacts once the dead outweigh the live
            before = file.stat().st_size
            tracemalloc.reset_peak()
            put(p, 2)
            if file.stat().st_size < before:
                peaks.append(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()
    assert peaks  # it compacted
    assert max(peaks) < 2_000_000  # a record (~100 KB) at a time and bookkeeping, not ~10 MB
    assert by_path(pack) == expected
    assert by_path(ParsePack(tmp_path / "parses")) == expected


def test_the_parse_codec_refuses_what_it_did_not_write() -> None:
    """A cached parse is decoded field by field, column by column: anything that is not one
    it encoded is a ValueError (its file is parsed again), never a half-built parse."""
    import json

    from graphmemd.graph.model import ParsedSymbol
    from graphmemd.ingest import parsecache

    parsed = parse_source("m.py", b"class A(B):\n    def f(self):\n        return g()\n\ndef h():\n    pass\n")
    text = parsecache.encode(parsed)
    assert parsecache.decode(text) == parsed
    assert any(s.parent is None for s in parsed.symbols)
    assert any(s.parent for s in parsed.symbols)
    row = json.loads(text)
    i = [name for name, _hint in parsecache._FILE_LAYOUT].index("symbols")
    kind = [name for name, _hint in parsecache._layout(ParsedSymbol)].index("kind")
    symbol = row[i][0]

    def with_symbols(*symbols: object) -> str:
        return json.dumps([*row[:i], list(symbols), *row[i + 1 :]])

    damaged = [
        "not json",
        json.dumps({"a": 1}),
        json.dumps(row[:-1]),
        with_symbols("not a row"),
        with_symbols(symbol[:-1]),
        with_symbols([*symbol[:kind], "no-such-kind", *symbol[kind + 1 :]]),
        with_symbols(symbol, [*symbol, "one field too many"]),
    ]
    for bad in damaged:
        with pytest.raises(ValueError, match=r"not (an )?encoded"):
            parsecache.decode(bad)
