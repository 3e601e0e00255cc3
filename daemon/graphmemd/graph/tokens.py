"""Words of code and prose for the text indexes (pure): identifier-aware tokenization.

``terms_of`` turns an identifier, a path, a dotted name or a sentence into index terms:

* words are the runs of letters and digits; anything else separates them, so a dotted path
  (``click.core.Command``), a file name (``_termui_impl.py``), a ``path::Qualified.name``
  reference and prose all split into their parts;
* ``snake_case`` and ``camelCase`` / ``PascalCase`` / ``HTTPServer`` split into their words,
  each lowercased and stemmed (Snowball English: ``parsing`` and ``parser`` -> ``pars``);
* an identifier made of several words also gives its *compound*: the words joined, lowercased,
  unstemmed (``get_user_by_id`` and ``getUserById`` both give ``getuserbyid``), so naming an
  identifier exactly matches it more strongly than naming its words apart;
* English function words are dropped (in a question they carry no meaning; they are rare in
  identifiers, so BM25 would weigh them heavily), and so are bare numbers.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]  # no stubs; used through one call (_stem)

#: An identifier-like token: letters, digits and underscores (``\w`` without the rest).
_TOKEN_RE = re.compile(r"\w+")

#: English function words: in a question they carry no meaning, and they are rare in
#: identifiers, so BM25 would weigh them heavily if they were kept.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
    ]
)

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The Snowball English stem of a lowercase word."""
    return str(_STEMMER.stemWord(word))


def split_words(part: str) -> list[str]:
    """The words of one underscore-free part, split where the case or a digit run changes:
    ``HTTPServer`` -> HTTP, Server; ``getById`` -> get, By, Id; ``utf8Codec`` -> utf, 8, Codec
    (any script with letter case: ``ÄnderungsDatum`` -> Änderungs, Datum)."""
    words: list[str] = []
    start = 0
    for i in range(1, len(part)):
        prev, ch = part[i - 1], part[i]
        if ch.isdigit() != prev.isdigit():
            cut = True
        elif ch.isupper():
            cut = not prev.isupper()  # aB -> a|B
        else:  # HTTPServer: the last capital of a run starts the next word
            cut = prev.isupper() and i - 1 > start and ch.islower()
            if cut:
                words.append(part[start : i - 1])
                start = i - 1
                continue
        if cut:
            words.append(part[start:i])
            start = i
    if part:
        words.append(part[start:])
    return words


@lru_cache(maxsize=1 << 16)
def token_terms(token: str) -> tuple[str, ...]:
    """The terms of one ``\\w+`` token: its compound first (when it has several words), then
    each word stemmed (``parse_args`` -> parseargs, pars, arg)."""
    words = [w.lower() for part in token.split("_") if part for w in split_words(part)]
    out = [stem(w) for w in words if w not in STOPWORDS and not w.isdigit()]
    if len(words) > 1:
        compound = "".join(words)
        if compound not in STOPWORDS and not compound.isdigit():
            out.insert(0, compound)
    return tuple(out)


def terms_of(text: str) -> list[str]:
    """The index terms of an identifier, a path or a question, in order (with repeats)."""
    out: list[str] = []
    for token in _TOKEN_RE.findall(text):
        out.extend(token_terms(token))
    return out
