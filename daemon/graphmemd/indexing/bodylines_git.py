"""The shell of ``memory/bodylines``: a body change's text before it, read from git.

For each file with body changes recorded just now: the text now is the file on disk (the one
just parsed), the text before is the file at HEAD for an uncommitted change, and for a
committed one the file in the parent of the last commit (up to the reason's commit) that
touched it. One ``git show`` (and, committed, one ``git log``) per file, at most
``MAX_FILES`` files per pass: a pass that marks more (a checkout of a thousand files) leaves
the rest as "body changed". Outside git, or when git fails, nothing is counted.
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


def _before(root: Path, q: BodyQuery) -> str | None:
    """The file's text before the change (module docstring), or None when git cannot say."""
    if q.uncommitted:
        return _git_text(root, "show", f"HEAD:{q.path}")
    if not q.commit:
        return None
    last = (_git_text(root, "log", "-1", "--format=%H", q.commit, "--", q.path) or "").strip()
    return _git_text(root, "show", f"{last}^:{q.path}") if last else None


def measure_bodies(root: Path, queries: Sequence[BodyQuery]) -> dict[str, int]:
    """Anchor ref -> the lines its body change touched, for the ``queries`` that can be measured."""
    if not (root / ".git").exists() or shutil.which("git") is None:
        return {}
    by_file: dict[tuple[str, bool, str], list[BodyQuery]] = {}
    for q in queries:
        by_file.setdefault((q.path, q.uncommitted, q.commit), []).append(q)
    counts: dict[str, int] = {}
    for qs in list(by_file.values())[:MAX_FILES]:
        try:
            path = root / qs[0].path
            if path.stat().st_size > MAX_BYTES:
                continue
            now = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        before = _before(root, qs[0])
        if before is None:
            continue
        for q in qs:
            counts[q.anchor_ref] = count_changed(before, now, q.start_line, q.end_line)
    return counts
