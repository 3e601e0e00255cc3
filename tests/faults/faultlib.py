"""Helpers of the fault tests: acknowledged writes, and the check that every one survived."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

from conftest import Daemon, store_file
from graphmem.client import GraphMem
from graphmem.types import ObservationStatus

ANCHOR = "app/auth/crypto.py::make_token"
ALL_STATUSES = list(ObservationStatus)


def observe_many(c: GraphMem, n: int, prefix: str = "note") -> dict[str, str]:
    """Create ``n`` observations; returns id -> text of every acknowledged one."""
    acked: dict[str, str] = {}
    for i in range(n):
        text = f"{prefix} {i} tokens expire after use {random.random():.6f}"
        o = c.observe(text, anchors=[ANCHOR], tags=["fault"])
        acked[o.id] = text
    return acked


def assert_all_present(c: GraphMem, acked: dict[str, str]) -> None:
    """Every acknowledged observation is listed exactly once, with its text."""
    listed = c.list(statuses=ALL_STATUSES, limit=0)
    ids = [o.id for o in listed]
    assert len(ids) == len(set(ids)), "an observation is listed twice"
    by_id = {o.id: o.text for o in listed}
    missing = sorted(set(acked) - set(by_id))
    assert not missing, f"{len(missing)} acknowledged observations lost: {missing[:5]}"
    wrong = [i for i, text in acked.items() if by_id[i] != text]
    assert not wrong, f"texts changed: {wrong[:5]}"


def data_dir(d: Daemon) -> Path:
    return d.home / "data"


def store_files(d: Daemon) -> tuple[Path, Path]:
    db = store_file(d.home)
    return db, Path(str(db) + ".wal")


def clone_home(src: Path, dst: Path) -> Path:
    """A copy of a daemon home's data (no socket, no pid), to damage one variant each."""
    dst.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src / "data", dst / "data")
    for name in ("state", "run"):
        (dst / name).mkdir(exist_ok=True)
    return dst


def flip_bits(path: Path, seed: int, flips: int = 1) -> None:
    """Flip ``flips`` random bits of ``path`` in place."""
    rnd = random.Random(seed)
    data = bytearray(path.read_bytes())
    for _ in range(flips):
        i = rnd.randrange(len(data))
        data[i] ^= 1 << rnd.randrange(8)
    path.write_bytes(bytes(data))
    os.sync()
