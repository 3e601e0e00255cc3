"""Per-language data for the generic, query-driven extractor in ``parser.py``.

Adding a language means: add its grammar wheel to ``pyproject.toml``, add a
:class:`LanguageSpec` row below and a ``queries/<name>.scm`` file. Nothing here imports
tree_sitter; ``parser.py`` loads the grammar named by ``grammar_module``/``grammar_function``.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmemd.graph.model import Language


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """What the extractor needs to know about one language (besides its query file).

    * ``extensions``: file suffixes (lower case, with the dot) mapped to this language.
    * ``grammar_module`` / ``grammar_function``: the grammar wheel and the function in it
      returning the ``TSLanguage *`` capsule.
    * ``query_files``: file names under ``parsing/queries/``, concatenated into the
      language's single query (TSX = the TypeScript query plus JSX patterns).
    * ``path_separator``: separator of an ``@import.path`` capture (its last segment is the
      imported name, the rest the module), and of ``@import.scope`` prefixes.
    * ``quoted_modules``: strip quotes from ``@import.module`` (string specifiers).
    * ``docstring``: ``(statement type, child type)`` of a leading docstring: when the first
      non-comment statement of a ``@body`` is such a statement wrapping such a child, it is
      left out of the body hash (Python ``expression_statement`` > ``string``).
    """

    language: Language
    extensions: tuple[str, ...]
    grammar_module: str
    grammar_function: str
    query_files: tuple[str, ...]
    path_separator: str = "."
    quoted_modules: bool = False
    docstring: tuple[str, str] | None = None


SPECS: dict[Language, LanguageSpec] = {
    spec.language: spec
    for spec in (
        LanguageSpec(
            language=Language.PYTHON,
            extensions=(".py",),
            grammar_module="tree_sitter_python",
            grammar_function="language",
            query_files=("python.scm",),
            docstring=("expression_statement", "string"),
        ),
        LanguageSpec(
            language=Language.JAVASCRIPT,
            extensions=(".js", ".mjs", ".cjs", ".jsx"),
            grammar_module="tree_sitter_javascript",
            grammar_function="language",
            query_files=("javascript.scm",),
            quoted_modules=True,
        ),
        LanguageSpec(
            language=Language.TYPESCRIPT,
            extensions=(".ts", ".mts", ".cts"),
            grammar_module="tree_sitter_typescript",
            grammar_function="language_typescript",
            query_files=("typescript.scm",),
            quoted_modules=True,
        ),
        LanguageSpec(
            language=Language.TSX,
            extensions=(".tsx",),
            grammar_module="tree_sitter_typescript",
            grammar_function="language_tsx",
            query_files=("typescript.scm", "tsx.scm"),
            quoted_modules=True,
        ),
        LanguageSpec(
            language=Language.GO,
            extensions=(".go",),
            grammar_module="tree_sitter_go",
            grammar_function="language",
            query_files=("go.scm",),
            quoted_modules=True,
        ),
        LanguageSpec(
            language=Language.RUST,
            extensions=(".rs",),
            grammar_module="tree_sitter_rust",
            grammar_function="language",
            query_files=("rust.scm",),
            path_separator="::",
        ),
        LanguageSpec(
            language=Language.JAVA,
            extensions=(".java",),
            grammar_module="tree_sitter_java",
            grammar_function="language",
            query_files=("java.scm",),
        ),
    )
}

#: Extension (lower case, with the dot) -> language.
EXTENSION_LANGUAGE: dict[str, Language] = {ext: spec.language for spec in SPECS.values() for ext in spec.extensions}

#: Every file suffix some language claims.
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(EXTENSION_LANGUAGE)


def language_for_path(path: str) -> Language | None:
    """The language of ``path`` by its extension (case-insensitive), or None."""
    slash = max(path.rfind("/"), path.rfind("\\"))
    dot = path.rfind(".")
    if dot <= slash + 1:  # no suffix, or a dotfile like ".py"
        return None
    return EXTENSION_LANGUAGE.get(path[dot:].lower())
