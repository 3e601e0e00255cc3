"""Restarting the daemon with nothing changed writes no unit of a knowledge file: through the
running daemon, on a real git repository laid out like attrs (``attrs`` re-exports ``attr``'s
names, then binds ``asdict`` again from ``attr._next_gen``), restarted twice under other string
hash seeds, once reading every knowledge file again. The example's ``asdict`` means
``attr._next_gen.asdict`` (the later binding, as Python runs it) at every start (it flipped
between ``_funcs`` and ``_next_gen``: a "reanchored" history entry and a journal record at
every restart); a unit anchored to a file without symbols (``attrs/exceptions.py``) is read
back, not quarantined and written again."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import Daemon, short_tmp

DaemonFactory = Callable[..., Daemon]

FILES = {
    "pyproject.toml": '[project]\nname = "attrs"\n',
    "src/attr/__init__.py": "from ._funcs import asdict, astuple\nfrom ._next_gen import define\n",
    "src/attr/_funcs.py": "def asdict(inst):\n    return {}\n\n\ndef astuple(inst):\n    return ()\n",
    "src/attr/_next_gen.py": (
        "from . import _funcs\n\n\ndef asdict(inst):\n    return _funcs.asdict(inst)\n\n\n"
        "def define(cls):\n    return cls\n"
    ),
    "src/attr/exceptions.py": "class FrozenError(AttributeError):\n    pass\n",
    "src/attrs/__init__.py": (
        "from attr import (\n    asdict,\n    astuple,\n    define,\n)\nfrom attr._next_gen import asdict\n"
    ),
    "src/attrs/exceptions.py": "from attr.exceptions import *  # noqa: F403\n",
    "README.md": (
        "# attrs\n\n## Example\n\n```pycon\n>>> from attrs import asdict, define\n>>> @define\n... class C:\n"
        "...     x: int\n>>> asdict(C(1))\n{'x': 1}\n```\n\n## Exceptions\n\n"
        "All exceptions are available from `attrs.exceptions` (the same module as `attr.exceptions`).\n"
    ),
}


def _git(root: Path, clock: int, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_COMMITTER_DATE": f"{clock} +0000",
        "GIT_AUTHOR_DATE": f"{clock} +0000",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def _repo() -> Path:
    """The layout, committed; then ``_next_gen.asdict`` changes (a reason the unit keeps)."""
    root = short_tmp("gmf") / "attrs"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    clock = int(time.time()) - 1000
    _git(root, clock, "init", "-q", "-b", "main")
    _git(root, clock, "add", "-A")
    _git(root, clock, "commit", "-qm", "code and docs")
    path = root / "src/attr/_next_gen.py"
    path.write_text(path.read_text().replace("def asdict(inst):", "def asdict(inst, *, recurse=True):"))
    _git(root, clock + 10, "commit", "-qam", "asdict: recurse")
    return root


def _units(journal: Path) -> dict[str, dict[str, Any]]:
    """The units of knowledge files in the journal, by id (the last record of each)."""
    out: dict[str, dict[str, Any]] = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("op") == "put" and rec["obs"].get("knowledge"):
            out[rec["obs"]["id"]] = rec["obs"]
    return out


def test_a_restart_resolves_as_the_first_start_and_writes_nothing(daemon_factory: DaemonFactory) -> None:
    root = _repo()
    d = daemon_factory([root], env={"PYTHONHASHSEED": "0"})
    with d.client() as c:
        assert c.check_knowledge(wait_current=True).references is not None
    journal = d.home / "data" / "observations.jsonl"
    assert d.stop() == 0
    written = journal.read_bytes()
    units = _units(journal)
    (example,) = [u for u in units.values() if u["knowledge"]["path"] == "README.md" and ">>>" in u["text"]]
    targets = {r["text"]: r["target_ref"] for r in example["references"]}
    assert targets["asdict"] == "src/attr/_next_gen.py::asdict", targets
    assert any("attrs/exceptions.py" in json.dumps(u["anchors"]) for u in units.values())  # (no symbols there)
    log = d.home / "state" / "graphmemd.log"
    # the old code's answer followed the seed (and the repository's id, from its temporary
    # path): one restart in two flipped it. These restarts read every knowledge file again (the
    # state a clean stop keeps removed), the last only those that changed (none).
    for seed, reread in (("1", True), ("2", True), ("3", True), ("4", True), ("5", True), ("6", False)):
        if reread:
            kept = list((d.home / "data" / "snapshots").glob("*.know"))
            assert kept
            for k in kept:
                k.unlink()
        offset = log.stat().st_size
        d = daemon_factory([root], home=d.home, env={"PYTHONHASHSEED": seed})
        with d.client() as c:
            assert c.check_knowledge(wait_current=True).references is not None
        assert d.stop() == 0
        read = [int(m) for m in re.findall(r": (\d+) knowledge files read", log.read_text()[offset:])]
        assert (sum(read) > 0) is reread, read
        assert journal.read_bytes() == written, seed
        assert not (d.home / "data" / "observations.jsonl.quarantine").exists()
    history = [e["kind"] for u in _units(journal).values() for e in u.get("history", ())]
    assert "reanchored" not in history
