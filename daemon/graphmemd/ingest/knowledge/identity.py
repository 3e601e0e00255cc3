"""A unit's identity across edits of its file (pure).

A unit is known by its heading path and its content. When a file is read again, its new
units are paired with the units it had before, best evidence first:

1. the same heading path and the same content (lines moved: an edit elsewhere);
2. the same content under another heading (the unit moved to another section);
3. under the same heading path, the most similar unpaired unit (``difflib`` ratio at least
   ``EDITED_SIMILARITY``): the unit itself was edited.

A paired unit keeps its id, so confirmations and events keep referring to it. A new unit's
id is derived from the repository, the file, its heading path, its content and its rank
among units with the same key: reading the same file again gives the same ids.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from graphmemd.ingest.knowledge.model import Unit

EDITED_SIMILARITY: Final = 0.5
_SPACE: Final = re.compile(r"\s+")


def normalized(text: str) -> str:
    """A unit's content for identity: whitespace runs collapsed (reflowing is no edit)."""
    return _SPACE.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class KnownUnit:
    """A unit as it was: its id, heading path and content."""

    id: str
    heading_path: tuple[str, ...]
    text: str


def unit_id(repo_id: str, path: str, heading_path: Sequence[str], text: str, rank: int) -> str:
    """The id of a new unit (16 hex digits, like every observation id)."""
    key = "\x00".join((repo_id, path, "\x1f".join(heading_path), normalized(text), str(rank)))
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def _ratio(a: str, b: str) -> float:
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if sm.real_quick_ratio() < EDITED_SIMILARITY or sm.quick_ratio() < EDITED_SIMILARITY:
        return 0.0
    return sm.ratio()


def pair_units(repo_id: str, path: str, old: Sequence[KnownUnit], new: Sequence[Unit]) -> list[str]:
    """The id of each of ``new`` (in order): an old unit's id when paired, else a new id.
    Old units left unpaired are gone."""
    ids: list[str | None] = [None] * len(new)
    free = {o.id: o for o in old}
    norm_old = {o.id: normalized(o.text) for o in old}
    norm_new = [normalized(u.text) for u in new]

    def take(i: int, oid: str) -> None:
        ids[i] = oid
        del free[oid]

    for same_heading in (True, False):
        for i, u in enumerate(new):
            if ids[i] is not None:
                continue
            match = next(
                (
                    o.id
                    for o in free.values()
                    if norm_old[o.id] == norm_new[i] and (o.heading_path == u.heading_path or not same_heading)
                ),
                None,
            )
            if match is not None:
                take(i, match)
    candidates = sorted(
        (
            (-_ratio(norm_old[o.id], norm_new[i]), i, o.id)
            for i, u in enumerate(new)
            if ids[i] is None
            for o in free.values()
            if o.heading_path == u.heading_path
        ),
    )
    for score, i, oid in candidates:
        if -score >= EDITED_SIMILARITY and ids[i] is None and oid in free:
            take(i, oid)
    ranks: dict[tuple[tuple[str, ...], str], int] = {}
    out: list[str] = []
    for i, u in enumerate(new):
        key = (u.heading_path, norm_new[i])
        ranks[key] = ranks.get(key, 0) + 1
        out.append(ids[i] or unit_id(repo_id, path, u.heading_path, u.text, ranks[key]))
    return out
