"""PURE: graphmem's block in an agent instruction file (AGENTS.md, CLAUDE.md, GEMINI.md).

The block sits between ``BEGIN`` and ``END`` markers: written once, replaced in place when it
changes, never duplicated, and removed whole (with the blank line put before it) by ``remove``.
"""

from __future__ import annotations

import re

__all__ = ["BEGIN", "BLOCK", "END", "has_block", "remove", "upsert"]

BEGIN = "<!-- graphmem:begin -->"
END = "<!-- graphmem:end -->"

BLOCK = f"""{BEGIN}
## Code memory (graphmem)

This repository is indexed by graphmem: notes about the code (constraints, decisions, root causes,
dead ends) anchored to symbols and files, kept across sessions, and marked stale when the code
under them changes. The MCP server `graphmem` serves them.

- Starting a task: read the brief (the session-start hook adds it; else call `session_brief`).
- Before changing a function or class: `recall` with its file or symbol. A note marked STALE or
  SUSPECT may no longer hold: check the code, then `confirm_observation` if it does (unless it is
  marked not confirmable here), or save the correction with `save_observation(..., supersedes=[id])`.
- Save a note (`save_observation`) when you learn something a later session would otherwise have
  to rediscover: a constraint, a decision and its reason, the root cause of a bug, an approach
  that failed. One fact per note, written to stand alone; not what the code or git log says.
- Anchor it to the narrowest code it is about: `path/to/file.py::Class.method` (the path from the
  repository root, then the qualified name), or `path/to/file.py` for a whole file.
{END}
"""

_BLOCK_RE = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"[ \t]*\n?", re.S)


def has_block(text: str) -> bool:
    """Whether ``text`` holds graphmem's block."""
    return _BLOCK_RE.search(text) is not None


def upsert(text: str | None, block: str = BLOCK) -> str:
    """``text`` (None: no file yet) with ``block`` in place of every graphmem block (the first
    kept, any later duplicates dropped), or appended after a blank line."""
    if not text:
        return block
    matches = list(_BLOCK_RE.finditer(text))
    if not matches:
        sep = "" if text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return text + sep + block
    first = matches[0]
    out = text[: first.start()] + block
    pos = first.end()
    for m in matches[1:]:
        out += text[pos : m.start()]
        pos = m.end()
    return out + text[pos:]


def remove(text: str) -> str:
    """``text`` without graphmem's block(s) and the blank line ``upsert`` put before one."""
    out = text
    for m in reversed(list(_BLOCK_RE.finditer(text))):
        start = m.start()
        if start >= 2 and out[start - 2 : start] == "\n\n":
            start -= 1
        out = out[:start] + out[m.end() :]
    return out
