"""A live edit batch goes first inside a long knowledge pass (``indexing/live.py``): a real daemon
on a real git repository whose knowledge pass is made long with a slow ``git blame`` (one second
per knowledge file, ``gitrepo.slow_git``), as an upgrade's restart reads every knowledge file
again (the size limit is part of the code fingerprint: one byte more changes no file's fate).

The edit is taken in (its note is called out stale) while ``status`` still says the pass is
reading knowledge files; afterwards every knowledge unit and note is as a daemon that ran the
same pass undisturbed and then took the same edit leaves them."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, short_tmp, wait_for
from gitrepo import git, replace_in, slow_git
from graphmem.client import GraphMem

DaemonFactory = Callable[..., Daemon]
N_DOCS = 16
UPGRADE = {"GRAPHMEM_MAX_FILE_SIZE": str(2 * 1024 * 1024 + 1)}


def _repo() -> Path:
    root = short_tmp("gmlive") / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "docs").mkdir()
    funcs = "".join(f"def f{i:02d}(x):\n    return x + {i}\n\n\n" for i in range(N_DOCS))
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text(
        f"{funcs}def old_name(x):\n    return x * 2\n\n\ndef hashed(x):\n    return x * 3\n"
    )
    for i in range(N_DOCS):
        also = " It doubles with `pkg.core.old_name`." if i in (0, N_DOCS - 1) else ""
        (root / "docs" / f"n{i:02d}.md").write_text(
            f"# Note {i}\n\n## Adding\n\nCall `pkg.core.f{i:02d}` to add {i}.{also}\n\n"
            f"## Tripling\n\n`pkg.core.hashed` triples.\n"
        )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def _edit(root: Path) -> Path:
    core = root / "pkg" / "core.py"
    replace_in(core, "def old_name(x):", "def new_name(x):")
    replace_in(core, "return x * 3", "return x * 3 + 1")
    return core


def _state(c: GraphMem) -> list[tuple[object, ...]]:
    """Every note and knowledge unit as a reader sees it (ids and times aside)."""
    out: list[tuple[object, ...]] = []
    for o in c.list(limit=0):
        k = o.knowledge
        where = (k.path, k.start_line, k.end_line) if k is not None else ()
        refs = sorted((r.text, r.target_ref) for r in o.references)
        reasons = sorted((r.change.value, r.anchor_ref, r.commit, r.detail) for r in o.stale_reasons)
        anchors = sorted(a.ref for a in o.anchors)
        out.append((where, o.text, o.status.value, refs, reasons, anchors))
    return sorted(out, key=repr)


def _reading(c: GraphMem) -> str:
    return next((r.activity for r in c.status().repositories if "reading knowledge files" in r.activity), "")


def _called_out(c: GraphMem, core: Path, note: str) -> bool:
    """Whether the post-edit call finds the edit taken in, its note called out."""
    got = c.edit_context([str(core)], wait_ms=500)
    return got.indexed and note in got.callout_ids


def test_an_edit_goes_first_in_a_long_knowledge_pass(daemon_factory: DaemonFactory) -> None:
    root = _repo()
    home = short_tmp("gmh")
    gate = short_tmp("gmgate") / "slow"
    slow = slow_git(gate.parent, gate, "blame", seconds=1)
    d = daemon_factory([root], home=home, env=slow)
    with d.client() as c:
        note = c.observe("hashed must stay a pure tripling", anchors=["pkg/core.py::hashed"], repo=str(root)).id
    assert d.stop() == 0
    twin = short_tmp("gmh2")
    shutil.copytree(home, twin, dirs_exist_ok=True)
    original = (root / "pkg" / "core.py").read_text()

    # the edit made while the upgrade's knowledge pass reads its files, slowly
    gate.touch()
    since = len(_log(home, 0))
    d = daemon_factory([root], home=home, env={**slow, **UPGRADE}, wait=False)
    with GraphMem(home=str(home), timeout=30) as c:
        wait_for(c.health, 30)
        wait_for(lambda: "knowledge files read again" in _log(home, since), 30)  # (the upgrade's pass is due)
        core = _edit(root)
        wait_for(lambda: _called_out(c, core, note), 30, 0)
        assert f"{N_DOCS} knowledge files read" not in _log(home, since), "taken in only after the pass"
        assert wait_for(lambda: _reading(c), 10)  # (the pass goes on, as status says)
        gate.unlink()
    d.wait_idle(timeout=60)
    with d.client() as c:
        interrupted = _state(c)
        assert "renamed" in repr(interrupted) or "new_name" in repr(interrupted)
    assert d.stop() == 0

    # the same pass undisturbed, then the same edit
    (root / "pkg" / "core.py").write_text(original)
    d = daemon_factory([root], home=twin, env={**slow, **UPGRADE})
    with d.client() as c:
        _edit(root)
        wait_for(lambda: _called_out(c, core, note), 30, 0)
    d.wait_idle(timeout=60)
    with d.client() as c:
        assert _state(c) == interrupted
    assert d.stop() == 0


def _log(home: Path, since: int) -> str:
    """The daemon's log from character ``since`` on."""
    return (home / "state" / "graphmemd.log").read_text()[since:]


def _big_tree(files: int, funcs: int) -> Path:
    root = short_tmp("gmbig") / "big"
    for i in range(files):
        body = "".join(f"def g{j}(x):\n    y = x + {j}\n    return helper{i % 7}(y) * {j}\n\n\n" for j in range(funcs))
        path = root / f"p{i % 20}" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"from .base import helper{i % 7}\n\n\n{body}")
    return root


def test_an_edit_goes_first_in_another_checkouts_cold_index(daemon_factory: DaemonFactory) -> None:
    """An edit in an indexed checkout while another is indexed cold (one parse worker) is taken
    in before that index pass ends: the pass lets it go first between two parsed files."""
    root = _repo()
    d = daemon_factory([root], env={"GRAPHMEM_PARSE_WORKERS": "1"})
    big = _big_tree(1500, 40)
    since = len(_log(d.home, 0))
    with d.client(30) as c:
        note = c.observe("hashed must stay a pure tripling", anchors=["pkg/core.py::hashed"], repo=str(root)).id
        c.add_repo(big)
        wait_for(lambda: any(r.files_done and r.state.value == "indexing" for r in c.status().repositories), 60)
        core = _edit(root)
        wait_for(lambda: _called_out(c, core, note), 60, 0)
        assert "indexed big-" not in _log(d.home, since), "taken in only after the other checkout's index pass"
        assert any(r.activity.startswith("indexing ") for r in c.status().repositories)  # ("indexing 9 of 15 files")
    d.wait_idle(timeout=300)
