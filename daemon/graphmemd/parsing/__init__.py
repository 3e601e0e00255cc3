"""Source parsing: bytes in, :class:`graphmemd.model.ParsedFile` out (tree-sitter based)."""

from graphmemd.parsing.languages import SUPPORTED_EXTENSIONS, LanguageSpec, language_for_path
from graphmemd.parsing.parser import bare_parse, parse_source

__all__ = ["SUPPORTED_EXTENSIONS", "LanguageSpec", "bare_parse", "language_for_path", "parse_source"]
