"""The in-memory text indexes: BM25 over the words of symbols and of observations.

Each lives beside what it indexes and changes in the same step: the code graph's symbol
index file by file in the graph swap, the observation index with the observation book. So
text search is complete the moment a change is applied: no bulk rebuild, no window in which
documents are missing, nothing to wait for in the store. (They replaced Kùzu's full-text
indexes: the symbol one had to be dropped and rebuilt around every bulk write, and in Kùzu
0.11.3 an fts index keeps ~67 KB of native memory per deleted row and costs ~60 MB of RSS
just by existing.)

A document is a list of words. A symbol's are the words of its qualified name and of its
file's path (``UserStore.getById`` in ``app/users.py`` -> ``userstore user store getbyid get
by id app users py``); an observation's, those of its text, its tags and its anchors' names
and paths. Words come from ``tokens.terms_of`` (identifier-aware: snake_case, camelCase,
dotted paths and file names split, compounds kept; stemmed with Snowball English, the
algorithm Kùzu's index used; English function words dropped), so a question in prose matches
the identifiers it names.

Documents are grouped under a key (a file id; an observation id) that is replaced or removed
as a whole. Storage is compact: documents are integer ordinals, postings are ``array('I')``
per term, and a removed group's documents are tombstoned and swept out once they make up
half the index. Pure: no I/O, no threads (the owner's lock guards it).
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from graphmemd.graph.tokens import terms_of

#: BM25 parameters (the usual defaults; Kùzu's index used the same)
K1 = 1.2
B = 0.75
#: compact the postings when tombstoned documents outnumber this and the live ones
COMPACT_MIN_DEAD = 20_000

__all__ = ["COMPACT_MIN_DEAD", "K1", "B", "TextIndex", "terms_of", "text_layout"]


@dataclass(slots=True)
class _Group:
    """The documents of one group: ordinals ``first .. first + count - 1`` and their terms."""

    first: int
    count: int
    #: term ids of every document, one after another (``ends[i]`` ends document i)
    terms: array[int]
    ends: array[int]


def text_layout() -> str:
    """The attributes a ``TextIndex`` and its groups keep (a snapshot's layout fingerprint)."""
    return ",".join([*sorted(vars(TextIndex())), *_Group.__slots__])


class TextIndex:
    """BM25 over documents kept in groups (``put`` / ``remove``)."""

    def __init__(self) -> None:
        self._vocab: dict[str, int] = {}
        self._postings: list[array[int]] = []  # term id -> document ordinals (one per occurrence)
        self._df: array[int] = array("I")  # term id -> live documents holding it
        self._doc_id: list[str | None] = []  # ordinal -> document id (None: removed)
        self._doc_repo: list[str] = []
        self._doc_len: array[int] = array("I")
        self._groups: dict[str, _Group] = {}
        self._live = 0
        self._total_len = 0

    def __len__(self) -> int:
        return self._live

    # ------------------------------------------------------------------ updates

    def put(self, key: str, repo_id: str, shared: str, docs: Iterable[tuple[str, str]]) -> None:
        """Index the documents ``(id, text)`` of one group (``key``), replacing what the group
        had; ``shared`` is text every document of the group has too (a symbol's file path)."""
        self.remove(key)
        docs = list(docs)
        if not docs:
            return
        postings, df = self._postings, self._df
        path_ids = self._term_ids(terms_of(shared))
        path_set = set(path_ids)
        first = len(self._doc_id)
        terms, ends = array("I"), array("I")
        for doc, (_id, text) in enumerate(docs, first):
            own = self._term_ids(terms_of(text))
            for t in own:
                postings[t].append(doc)
            for t in set(own) - path_set:  # the shared terms are counted once per document below
                df[t] += 1
            terms.extend(own)
            terms.extend(path_ids)
            ends.append(len(terms))
            self._doc_len.append(len(own) + len(path_ids))
        every = range(first, first + len(docs))
        for t in path_ids:  # the shared words are in every document of the group
            postings[t].extend(every)
        for t in path_set:
            df[t] += len(docs)
        self._doc_id.extend(i for i, _t in docs)
        self._doc_repo.extend([repo_id] * len(docs))
        self._groups[key] = _Group(first, len(docs), terms, ends)
        self._live += len(docs)
        self._total_len += len(terms)

    def remove(self, key: str) -> None:
        """Drop the documents of one group (nothing if it has none)."""
        docs = self._groups.pop(key, None)
        if docs is None:
            return
        start = 0
        for i, end in enumerate(docs.ends):
            for t in set(docs.terms[start:end]):
                self._df[t] -= 1
            start = end
            self._doc_id[docs.first + i] = None
            self._total_len -= self._doc_len[docs.first + i]
        self._live -= docs.count
        dead = len(self._doc_id) - self._live
        if dead > COMPACT_MIN_DEAD and dead > self._live:
            self._compact()

    def extract(self, keys: Iterable[str]) -> TextIndex:
        """An index holding only the groups ``keys`` (with the same documents and words): a
        repository's share, to ``absorb`` into another index. When ``keys`` holds every group
        this index has, the index itself; otherwise a new one, renumbered compactly."""
        keys = set(keys)
        if keys.issuperset(self._groups):
            return self
        part = TextIndex()
        words = list(self._vocab)  # term id -> word (ids are given in insertion order)
        new: dict[int, int] = {}
        for key in keys:
            docs = self._groups.get(key)
            if docs is None:
                continue
            for t in docs.terms:
                if t not in new:
                    new[t] = part._term_ids([words[t]])[0]
            terms = array("I", [new[t] for t in docs.terms])
            part._add_group(key, docs, terms, self._doc_id, self._doc_repo, self._doc_len)
        return part

    def copy_group(self, key: str, as_key: str, repo_id: str, rename: Callable[[str], str]) -> None:
        """Index the documents of group ``key`` again as group ``as_key`` of ``repo_id``, each
        document id renamed by ``rename``: the same words, without reading the texts again
        (a checkout derived from a sibling's equal files: ``codegraph.derive_files``). The new
        group shares the old one's arrays of words (a group's are never changed in place)."""
        docs = self._groups.get(key)
        if docs is None:
            return
        first, count = docs.first, docs.count  # (read before ``remove``, which may renumber the documents)
        ids = [rename(i) if (i := self._doc_id[n]) is not None else None for n in range(first, first + count)]
        lengths = self._doc_len[first : first + count]
        self.remove(as_key)  # (it may renumber: ``docs``' words stay as read)
        self._add_group(as_key, replace(docs, first=0), docs.terms, ids, [repo_id] * count, lengths)

    def _add_group(
        self,
        key: str,
        docs: _Group,
        terms: array[int],
        ids: Sequence[str | None],
        repos: Sequence[str],
        lengths: array[int],
    ) -> None:
        """Append the group ``docs`` under ``key``: its words mapped to this index's term ids
        (``terms``), its documents' ids, repositories and lengths read from ``ids``, ``repos``
        and ``lengths`` (another index's, or this one's before ``_compact``)."""
        first = len(self._doc_id)
        postings, df = self._postings, self._df
        start = 0
        for doc, end in enumerate(docs.ends, first):
            own = terms[start:end]
            for t in own:
                postings[t].append(doc)
            for t in set(own):
                df[t] += 1
            start = end
        at, to = docs.first, docs.first + docs.count
        self._doc_id.extend(ids[at:to])
        self._doc_repo.extend(repos[at:to])
        self._doc_len.extend(lengths[at:to])
        self._groups[key] = _Group(first, docs.count, terms, docs.ends)  # (never changed in place: shared)
        self._live += docs.count
        self._total_len += len(terms)

    def absorb(self, part: TextIndex) -> None:
        """Add every group of ``part`` (an ``extract``), replacing groups of the same keys.
        An empty index takes ``part``'s storage as it is (a warm restart's first repository)."""
        if not self._groups and not self._vocab:
            self.__dict__.update(vars(part))
            return
        for key in part._groups:
            self.remove(key)
        ids = self._term_ids(list(part._vocab))
        for key, docs in part._groups.items():
            terms = array("I", [ids[t] for t in docs.terms])
            self._add_group(key, docs, terms, part._doc_id, part._doc_repo, part._doc_len)

    def _term_ids(self, terms: Sequence[str]) -> list[int]:
        out: list[int] = []
        for term in terms:
            t = self._vocab.get(term)
            if t is None:
                t = self._vocab[term] = len(self._postings)
                self._postings.append(array("I"))
                self._df.append(0)
            out.append(t)
        return out

    def _compact(self) -> None:
        """Renumber the live documents and rebuild the postings without the tombstones."""
        groups = sorted(self._groups.items(), key=lambda kv: kv[1].first)
        ids, repos, lengths = self._doc_id, self._doc_repo, self._doc_len
        self._doc_id, self._doc_repo, self._doc_len = [], [], array("I")
        self._postings = [array("I") for _ in self._postings]
        self._df = array("I", [0]) * len(self._df)
        self._groups, self._live, self._total_len = {}, 0, 0
        for key, docs in groups:
            self._add_group(key, docs, docs.terms, ids, repos, lengths)

    # ------------------------------------------------------------------ queries

    def search(self, text: str, limit: int, repo_id: str = "") -> list[tuple[str, float]]:
        """The ``limit`` best (document id, BM25 score) for ``text``, best first (ties by id);
        only documents of ``repo_id`` when given."""
        query = {t for t in (self._vocab.get(term) for term in terms_of(text)) if t is not None}
        if not query or not self._live or limit <= 0:
            return []
        n, avg = self._live, self._total_len / self._live
        scores: dict[int, float] = {}
        for t in query:
            df = self._df[t]
            if not df:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for doc, tf in Counter(self._postings[t]).items():
                if self._doc_id[doc] is None or (repo_id and self._doc_repo[doc] != repo_id):
                    continue
                norm = tf + K1 * (1 - B + B * self._doc_len[doc] / avg)
                scores[doc] = scores.get(doc, 0.0) + idf * tf * (K1 + 1) / norm
        best = heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], self._doc_id[kv[0]] or ""))
        return [(self._doc_id[doc] or "", score) for doc, score in best]
