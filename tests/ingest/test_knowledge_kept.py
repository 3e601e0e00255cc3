"""What a clean stop keeps of a checkout's knowledge files, and when the next start may use it
(``ingest.knowledge.kept``: pure)."""

from __future__ import annotations

from dataclasses import replace

from graphmemd.ingest.knowledge.kept import KeptDocs, KeptFile, decode, encode, why_not

KEPT = KeptDocs(
    repo="r1",
    code="c",
    selection="",
    head="abc123",
    files={"AGENTS.md": KeptFile(10, 99, "d1", ("u2", "u1")), "docs/empty.md": KeptFile(3, 4, "d2", ())},
    unresolved={"AGENTS.md": frozenset({"parseUser"})},
    judge_again=frozenset({"docs/empty.md"}),
)
UNITS = {"AGENTS.md": frozenset({"u1", "u2"})}


def test_encode_decode_round_trip() -> None:
    got = decode(encode(KEPT))
    assert got is not None
    assert got.files["AGENTS.md"].units == ("u1", "u2")  # sorted
    assert replace(got, files={p: replace(f, units=tuple(sorted(f.units))) for p, f in got.files.items()}) == replace(
        KEPT, files={p: replace(f, units=tuple(sorted(f.units))) for p, f in KEPT.files.items()}
    )
    assert encode(got) == encode(KEPT)


def test_anything_else_decodes_to_none() -> None:
    for data in (b"", b"\xff", b"[]", b'{"format": 99}', encode(KEPT).replace(b'"files":{', b'"files":{"x":1,')):
        assert decode(data) is None


def test_used_only_when_everything_still_holds() -> None:
    assert why_not(KEPT, "r1", "c", "", "abc123", UNITS) == ""
    assert why_not(KEPT, "r2", "c", "", "abc123", UNITS) == "not this checkout's"
    assert why_not(KEPT, "r1", "c2", "", "abc123", UNITS) == "written by other code"
    assert why_not(KEPT, "r1", "c", "s", "abc123", UNITS) == ".graphmem.toml changed"
    assert "the store's last pass saw" in why_not(KEPT, "r1", "c", "", "def456", UNITS)
    # a unit lost from the journal, or one the state does not know: read again
    assert "AGENTS.md" in why_not(KEPT, "r1", "c", "", "abc123", {"AGENTS.md": frozenset({"u1"})})
    assert "README.md" in why_not(KEPT, "r1", "c", "", "abc123", {**UNITS, "README.md": frozenset({"u9"})})
