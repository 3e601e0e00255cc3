"""What a checkout's knowledge files were when the daemon stopped: enough for the next start
to read only the files that changed while it was stopped (pure: bytes in, bytes out).

The indexer keeps, per checkout, each knowledge file's size, mtime and content digest, the
last parts of the names in it that name nothing yet (``KnowledgeKeeper._unresolved``: code
of such a name appearing later makes the file read again) and the files to judge again once
HEAD moves (read while their lines were not committed). A clean stop writes that down with
the HEAD it belongs to, a fingerprint of the code that read it and of the checkout's
``.graphmem.toml``, and the ids of the units each file gave (``KeptDocs``); the next start
takes it back only when all of those still hold (``why_not``), so that the state it arrives
at is the one a fresh read gives. Anything else, and every file is read again, as before.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

#: bump when what ``encode`` writes changes
FORMAT = 1


@dataclass(frozen=True, slots=True)
class KeptFile:
    """One knowledge file as last read: its size, mtime (ns), content digest and unit ids."""

    size: int
    mtime_ns: int
    digest: str
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KeptDocs:
    """A checkout's knowledge files as the daemon left them (see the module docstring)."""

    repo: str
    #: the fingerprint of the code that read them (daemon version, sources, size limit)
    code: str
    #: the digest of the checkout's ``.graphmem.toml`` ("" when it has none)
    selection: str
    #: the commit the checkout's last full pass saw
    head: str
    files: Mapping[str, KeptFile]
    #: file -> the last parts of its names that name nothing yet
    unresolved: Mapping[str, frozenset[str]]
    #: files to read again once HEAD moves
    judge_again: frozenset[str]


def encode(kept: KeptDocs) -> bytes:
    """``kept`` as JSON bytes (sorted: equal states encode alike)."""
    doc = {
        "format": FORMAT,
        "repo": kept.repo,
        "code": kept.code,
        "selection": kept.selection,
        "head": kept.head,
        "files": {p: [f.size, f.mtime_ns, f.digest, sorted(f.units)] for p, f in sorted(kept.files.items())},
        "unresolved": {p: sorted(n) for p, n in sorted(kept.unresolved.items()) if n},
        "judge_again": sorted(kept.judge_again),
    }
    return json.dumps(doc, separators=(",", ":")).encode("utf-8")


def decode(data: bytes) -> KeptDocs | None:
    """What ``encode`` wrote; None for anything else (another format, damaged bytes)."""
    try:
        doc = json.loads(data.decode("utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            return None
        files = {
            str(p): KeptFile(int(size), int(mtime), str(digest), tuple(str(u) for u in units))
            for p, (size, mtime, digest, units) in doc["files"].items()
        }
        return KeptDocs(
            repo=str(doc["repo"]),
            code=str(doc["code"]),
            selection=str(doc["selection"]),
            head=str(doc["head"]),
            files=files,
            unresolved={str(p): frozenset(str(n) for n in names) for p, names in doc["unresolved"].items()},
            judge_again=frozenset(str(p) for p in doc["judge_again"]),
        )
    except (UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError):
        return None


def why_not(
    kept: KeptDocs, repo: str, code: str, selection: str, head: str, units: Mapping[str, frozenset[str]]
) -> str:
    """Why ``kept`` cannot stand for a read of every file now ("" when it can): another
    checkout's, read by other code or another selection, left at another pass than the store's
    last (``head``), or the journal's units (``units``: file -> ids) are not the ones it
    read (a journal recovered or edited since)."""
    if kept.repo != repo:
        return "not this checkout's"
    if kept.code != code:
        return "written by other code"
    if kept.selection != selection:
        return ".graphmem.toml changed"
    if kept.head != head:
        return f"left at {kept.head[:12] or 'no commit'}, the store's last pass saw {head[:12] or 'no commit'}"
    for path in sorted(set(units) | set(kept.files)):
        f = kept.files.get(path)
        if f is None or frozenset(f.units) != units.get(path, frozenset()):
            return f"the journal's units of {path} are not the ones read"
    return ""
