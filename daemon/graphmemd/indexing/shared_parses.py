"""One parse per content: a file another checkout of the repository already parsed is not
parsed again.

Before a pass or a watcher batch sends its files to the parse workers, each file is read and
hashed (the content hash the parse cache keeps; a new checkout's pass hashed them already)
and looked up, by path and hash, in the parse caches of the other checkouts of its
repository (``ParsePack.text``: one record read and checked, never the whole pack) — in
those whose graph holds that content at that path (``holds``; the others' caches cannot
have it, so an edit whose content is new to the repository reads none of them). A hit is
that checkout's parse, decoded as a warm restart decodes it, and goes down the same path as
a fresh parse: the resolver, the delta, this checkout's parse cache (a parse still queued
for a sibling's cache is taken from the queue). Only the rest is parsed. A checkout alone in
its repository skips all of this (nothing is read twice).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from graphmemd.ingest.parse_pack import CachedHead, ParsePack
from graphmemd.ingest.parse_pool import ParseOutcome, ParsePool, hashed_file
from graphmemd.ingest.parsecache import PARSER_VERSION, decode
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime

logger = logging.getLogger(__name__)


class SharedParses:
    """Finds the parses of a checkout's files among its siblings' parse caches."""

    def __init__(
        self,
        registry: RepoRegistry,
        parses: ParsePack,
        max_file_size: int,
        queued: Callable[[str, str, str], str | None] = lambda _r, _p, _h: None,
        holds: Callable[[str, str, str], bool] = lambda _r, _p, _h: True,
    ) -> None:
        self._registry = registry
        self._parses = parses
        self._max = max_file_size
        #: a parse queued for a sibling's cache and not written yet (``DeltaSink.queued_parse``)
        self._queued = queued
        #: (checkout id, path, content hash) -> whether that checkout's graph has that content
        #: at that path now (its parse cache has no other parse of the path to give)
        self._holds = holds

    def outcomes(
        self,
        rt: RepoRuntime,
        todo: Sequence[tuple[str, Path]],
        pool: Callable[[], ParsePool],
        hashed: Mapping[str, tuple[str, int]] | None = None,
    ) -> Iterator[tuple[ParseOutcome, bool]]:
        """Each file's parse outcome, and whether it was parsed now: the parses a sibling
        checkout has of the same content first, then the workers' (``pool``) for the rest.
        The workers start on those before it returns (a caller may do other work meanwhile,
        then read every outcome); ``hashed``: the (content hash, size) of files of ``todo`` the caller read already."""
        shared, rest = self.split(rt, todo, hashed)
        # (nothing to parse needs no workers: a warm restart's pass does not wait for them)
        parsing = pool().parse_now(rest) if rest else iter(())
        return itertools.chain(((out, False) for out in shared), ((out, True) for out in parsing))

    def split(
        self, rt: RepoRuntime, todo: Sequence[tuple[str, Path]], hashed: Mapping[str, tuple[str, int]] | None = None
    ) -> tuple[list[ParseOutcome], list[tuple[str, Path]]]:
        """(the files of ``todo`` a sibling checkout has parsed with the same content, as
        parse outcomes; the files left to parse). ``hashed``: path -> (content hash, size) of
        files already read (not read again)."""
        siblings = [s.id for s in self._registry.siblings(rt.id) if s.n_files]
        if not siblings or not todo:
            return [], list(todo)
        found: list[ParseOutcome] = []
        rest: list[tuple[str, Path]] = []
        known = hashed or {}
        for rel, path in todo:
            outcome = self._find(rel, path, siblings, known.get(rel))
            (found.append(outcome) if outcome is not None else rest.append((rel, path)))
        if found:
            logger.debug("%s: %d of %d files shared with its sibling checkouts", rt.id, len(found), len(todo))
        return found, rest

    def _find(
        self, rel: str, path: Path, siblings: Sequence[str], hashed: tuple[str, int] | None
    ) -> ParseOutcome | None:
        if hashed is None:
            hashed = hashed_file(path, self._max)
            if hashed is None:
                return None
        digest, size = hashed
        wanted = CachedHead(rel, size, 0, digest, PARSER_VERSION)
        for sibling in siblings:
            try:
                text = self._queued(sibling, rel, digest)
                if text is None and self._holds(sibling, rel, digest):
                    text = self._parses.text(sibling, wanted)
                if text is None:
                    continue
                return ParseOutcome(rel, decode(text), digest, size, None, cache=text)
            except ValueError as exc:  # a damaged record: try the next one, else parse
                logger.debug("shared parse of %s in %s unusable: %s", rel, sibling, exc)
        return None
