"""A note anchored to a file without symbols (``from x import *``, a data file) carries the
file's content fingerprint: ``content:`` and a 128-digit blake2b, 136 characters. The codec
once held fingerprints to 128, so such a note's every record was refused when read back: at
the next start it was quarantined and gone from every list. It must survive a restart."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import STORE_ENGINE
from graphmem.types import Anchor, AnchorKind, Category, Observation
from graphmemd.graph.model import file_fingerprint
from graphmemd.ingest.parse_pool import content_hash
from graphmemd.memory.journal import Journal, quarantine_lines
from graphmemd.memory.obsdoc import from_doc, to_doc
from graphmemd.memory.observations import ObservationBook
from graphmemd.memory.recovery import quarantine_path_for, recover_observations
from graphmemd.store.engine import Store

CONTENT = file_fingerprint([], content_hash(b"from attr.exceptions import *\n"))
SYMBOL = Anchor(AnchorKind.SYMBOL, "a.py::f", "r", "a.py", "r:a.py::f", "def f(x):", "s1", "b1")
FILE = Anchor(AnchorKind.FILE, "src/attrs/exceptions.py", "r", "src/attrs/exceptions.py", body_hash=CONTENT)


def test_a_symbol_less_files_fingerprint_is_longer_than_an_id_and_round_trips() -> None:
    assert len(CONTENT) == 136
    o = Observation("n1", "r", "re-exports only", Category.CONVENTION, 1.0, 1.0, anchors=(FILE,))
    back = from_doc(to_doc(o))
    assert back.anchors[0].body_hash == CONTENT


def test_a_note_on_a_symbol_less_file_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "observations.jsonl"
    journal = Journal(path)
    book = ObservationBook(journal, lambda _o, _i: None)
    note = book.create(
        repo_id="r",
        text="this module only re-exports attr.exceptions: keep it in step",
        category=Category.CONVENTION,
        tags=(),
        source="cli",
        confidence=1.0,
        anchors=(FILE,),
    )
    journal.close()
    store = Store(tmp_path / "graph.kuzu", buffer_pool_mb=64, engine=STORE_ENGINE)
    try:
        journal = Journal(path)  # a restart: the journal read back and reconciled with the store
        book = ObservationBook(journal, lambda _o, _i: None)
        report = recover_observations(journal, book, store)
        assert report.rejected_records == 0
        assert book.get(note.id).anchors[0].body_hash == CONTENT
        assert not quarantine_path_for(path).exists()
        journal.close()
    finally:
        store.close()


def test_a_note_quarantined_at_an_earlier_start_comes_back(tmp_path: Path) -> None:
    """A journal record an earlier version refused (its fingerprint over the old limit) was moved
    to the quarantine file; valid now, the next start puts it back, and only it leaves the file."""
    path = tmp_path / "observations.jsonl"
    journal = Journal(path)
    book = ObservationBook(journal, lambda _o, _i: None)
    kept = book.create(repo_id="r", text="a note that stays", category=Category.OTHER, tags=(), source="cli",
                       confidence=1.0, anchors=(SYMBOL,))  # fmt: skip
    lost = book.create(repo_id="r", text="this module only re-exports", category=Category.CONVENTION, tags=(),
                       source="cli", confidence=1.0, anchors=(FILE,))  # fmt: skip
    journal.close()
    lines = path.read_bytes().splitlines()
    (record,) = [json.loads(ln) for ln in lines if lost.id.encode() in ln]
    path.write_bytes(b"".join(ln + b"\n" for ln in lines if lost.id.encode() not in ln))  # as the old start left it
    qpath = quarantine_path_for(path)
    reason = f"observation {lost.id}: anchors[0].body_hash: is 136 characters; the limit is 128"
    quarantine_lines(qpath, path, [(record["seq"], reason, json.dumps(record, sort_keys=True))])
    quarantine_lines(qpath, path, [(7, "unknown op 'zap'", json.dumps({"op": "zap", "seq": 7}))])  # still invalid
    store = Store(tmp_path / "graph.kuzu", buffer_pool_mb=64, engine=STORE_ENGINE)
    try:
        for _ in range(2):  # and a second start changes nothing more
            journal = Journal(path)
            book = ObservationBook(journal, lambda _o, _i: None)
            recover_observations(journal, book, store)
            assert book.get(lost.id).anchors[0].body_hash == CONTENT
            assert book.get(kept.id).text == "a note that stays"
            journal.close()
            left = [json.loads(ln) for ln in qpath.read_bytes().splitlines()]
            assert [e["reason"] for e in left] == ["unknown op 'zap'"]
    finally:
        store.close()
