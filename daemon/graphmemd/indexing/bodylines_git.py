"""The shell of ``memory/bodylines``: a body change's text before it, read from git.

For each file with body changes recorded just now: the text now is the file on disk (the one
just parsed), the text before is the file in ``before`` (the commit the daemon had indexed
before this pass: HEAD when HEAD did not move, so an edit in the working tree is counted
against HEAD; the commit HEAD left when a checkout, merge or pull brought the change). One
``git show`` per file, at most ``MAX_FILES`` files per pass: a pass that marks more (a checkout
of a thousand files) leaves the rest as "body changed". Outside git, when the file is not in
``before`` or git fails, nothing is counted.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from graphmemd.ingest.gitinfo import run_git
from graphmemd.memory.bodylines import BodyQuery, count_changed

__all__ = ["MAX_FILES", "measure_bodies"]

logger = logging.getLogger(__name__)

#: Files measured per pass.
MAX_FILES = 32
#: A file larger than this is not diffed.
MAX_BYTES = 2 * 1024 * 1024


def _git_text(root: Path, *args: str) -> str | None:
    try:
        out = run_git(root, *args)
    except (OSError, subprocess.TimeoutExpired) as exc:
        logger.warning("git %s failed in %s: %s", args[0], root, exc)
        return None
    if out.returncode != 0 or len(out.stdout) > MAX_BYTES:
        return None
    return out.stdout.decode("utf-8", "replace")


def measure_bodies(root: Path, queries: Sequence[BodyQuery], before: str) -> dict[str, int]:
    """Anchor ref -> the lines its body change touched since commit ``before`` ("": HEAD), for
    the ``queries`` that can be measured."""
    if shutil.which("git") is None:
        return {}
    by_file: dict[str, list[BodyQuery]] = {}
    for q in queries:
        by_file.setdefault(q.path, []).append(q)
    counts: dict[str, int] = {}
    for qs in list(by_file.values())[:MAX_FILES]:
        try:
            path = root / qs[0].path
            if path.stat().st_size > MAX_BYTES:
                continue
            now = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        # ("./": the path relative to ``root``, which may be a folder inside the git repository;
        # outside git the command fails and the count stays unknown)
        then = _git_text(root, "show", f"{before or 'HEAD'}:./{qs[0].path}")
        if then is None:
            continue
        for q in qs:
            counts[q.anchor_ref] = count_changed(then, now, q.start_line, q.end_line)
    return counts
