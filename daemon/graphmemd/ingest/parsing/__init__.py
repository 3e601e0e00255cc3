"""Source parsing: bytes in, :class:`graphmemd.graph.model.ParsedFile` out (tree-sitter based).

``FINGERPRINT_SCHEME`` is the version of the fingerprint definition (``sig_hash`` /
``body_hash``, see ``parsing/fingerprint.py``). Hashes stored under another scheme are not
comparable with fresh ones: a store that recorded them must re-fingerprint (re-anchor) its
observations under the current scheme instead of comparing, or every anchor would look
changed. Scheme 1 was the whitespace-stripped text with nested definitions replaced by
markers; scheme 2 is the significant-token stream, nested code included.
"""

from graphmemd.ingest.parsing.fingerprint import FINGERPRINT_SCHEME
from graphmemd.ingest.parsing.languages import SUPPORTED_EXTENSIONS, LanguageSpec, language_for_path
from graphmemd.ingest.parsing.parser import LiveTrees, bare_parse, parse_source, warm

__all__ = [
    "FINGERPRINT_SCHEME",
    "SUPPORTED_EXTENSIONS",
    "LanguageSpec",
    "LiveTrees",
    "bare_parse",
    "language_for_path",
    "parse_source",
    "warm",
]
