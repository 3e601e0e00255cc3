"""GetFileOutline against a real daemon: a file's symbols in source order with their line
ranges, the hash of the text those lines refer to, and the notes anchored to the file or its
symbols (also a removed symbol's; not archived ones)."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest
from conftest import Daemon, wait_for
from graphmem.errors import InvalidArgument
from graphmem.types import ObservationStatus

CRYPTO = "app/auth/crypto.py"


def test_outline_of_a_file_with_notes(py_daemon: Daemon, tmp_path: Path) -> None:
    repo = py_daemon.repos[0]
    crypto = repo / CRYPTO
    with py_daemon.client() as gm:
        on_symbol = gm.observe("constant time", anchors=[f"{CRYPTO}::hash_password"])
        on_file = gm.observe("security reviewed", anchors=[CRYPTO])
        on_nested = gm.observe("payload is bytes", anchors=[f"{CRYPTO}::make_token.payload"])
        archived = gm.observe("old", anchors=[f"{CRYPTO}::make_token"])
        gm.archive(archived.id)
        elsewhere = gm.observe("routes", anchors=["app/api/routes.py"])

        out = gm.file_outline(str(crypto))
        assert (out.repo_id, out.repo_root, out.path, out.indexed, out.language) == (
            gm.list_repos()[0].id,
            str(repo.resolve()),
            CRYPTO,
            True,
            "python",
        )
        assert out.content_hash == hashlib.blake2b(crypto.read_bytes()).hexdigest()
        assert [(s.qualname, s.kind, s.start_line, s.end_line) for s in out.symbols] == [
            ("hash_password", "function", 8, 9),
            ("make_token", "function", 12, 16),
            ("make_token.payload", "function", 13, 14),
        ]
        assert [o.id for o in out.observations] == [on_symbol.id, on_file.id, on_nested.id]
        assert elsewhere.id not in {o.id for o in out.observations}
        assert out.freshness is not None
        assert out.freshness.current
        assert gm.file_outline(CRYPTO, repo=str(repo)).symbols == out.symbols  # relative to the repository

        # The symbol goes away: its note is stale, and still in the outline (nowhere else to show it).
        crypto.write_text(
            crypto.read_text().replace(
                "def hash_password(password: str) -> str:\n    return digest(password, salt=SALT)\n", ""
            )
        )
        deadline = time.monotonic() + 10
        while gm.get(on_symbol.id).status is not ObservationStatus.STALE:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        wait_for(
            lambda: [s.qualname for s in gm.file_outline(str(crypto)).symbols] == ["make_token", "make_token.payload"]
        )
        after = gm.file_outline(str(crypto))
        gone = next(o for o in after.observations if o.id == on_symbol.id)
        assert gone.status is ObservationStatus.STALE
        assert after.content_hash == hashlib.blake2b(crypto.read_bytes()).hexdigest()

        notes = repo / "NOTES.txt"
        notes.write_text("not source\n")
        plain = gm.file_outline(str(notes))
        assert (plain.indexed, plain.symbols, plain.content_hash) == (False, (), "")

        with pytest.raises(InvalidArgument, match="not inside a registered repository"):
            gm.file_outline(str(tmp_path / "x.py"))
        with pytest.raises(InvalidArgument, match="path is required"):
            gm.file_outline("")
