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
    * ``scope_separator``: a ``@name`` written with its scope (C++ ``void app::Store::save()``,
      ``namespace a::b``) is split on it: the last segment is the name, the rest (template
      arguments dropped) qualifies it as a ``@receiver`` does.
    * ``blanks``: regular expressions (bytes) whose first group is replaced by as many spaces
      before the tree is built, so the grammar reads around it (the text and every position
      stay the source's; never on a preprocessor line): C/C++ export and calling-convention
      macros, which no grammar can tell from a type (``class GTEST_API_ UnitTest {`` reads
      as a function named ``UnitTest`` returning ``class GTEST_API_``). A pattern starting
      with ``(?#needs:A,B)`` runs only on sources holding ``A`` or ``B`` (a scan that tries
      every position costs ~10 % of a bare parse).
    * ``builtin_types``: stated types that never name a repository type and are not kept
      for receiver typing (None: the scalar and string types of the first six languages;
      C++ keeps every type its patterns capture: ``String`` is a class there).
    * ``unwrap_types``: a regular expression over a stated type (or a constructing call) as
      written; when it matches, the type is its first group: C++ smart pointers stand for
      what they point to (``std::unique_ptr<Store> p; p->save()``, ``std::make_shared<Store>()``).
    * ``method_containers``: kinds (``SymbolKind`` values) besides the class-like ones whose
      functions are methods (Ruby ``module``).
    * ``name_strip``: characters stripped from both ends of a definition's name (Ruby
      ``attr_reader :name`` defines ``name``).
    * ``sigils``: characters dropped from typed variable names and called expressions (Ruby
      ``@store = Store.new`` types ``self.store``, with the pattern's ``type.prefix``, and
      ``@store.save`` calls ``store.save``; PHP ``$this->repo->put()`` calls ``this.repo.put``).
    * ``separator_alias``: written for ``::`` in called expressions, stated types and bases
      (PHP ``\\App\\Models\\User``).
    * ``package_separator``: the ``@package`` is split on it and joined with ``.`` (PHP
      ``namespace App\\Models`` is the package ``App.Models``).
    """

    language: Language
    extensions: tuple[str, ...]
    grammar_module: str
    grammar_function: str
    query_files: tuple[str, ...]
    path_separator: str = "."
    quoted_modules: bool = False
    docstring: tuple[str, str] | None = None
    scope_separator: str | None = None
    blanks: tuple[bytes, ...] = ()
    builtin_types: frozenset[str] | None = None
    unwrap_types: str | None = None
    method_containers: tuple[str, ...] = ()
    name_strip: str = ""
    sigils: str = ""
    separator_alias: str = ""
    package_separator: str = ""


#: C/C++ macros read as blanks: an ALL-CAPS word between ``class``/``struct`` and a class
#: name; an export macro (``..._API``, ``..._EXPORT`` ...) starting a declaration; an ALL_CAPS
#: word between a declaration's type and its name (``void JUCE_CALLTYPE f()``, ``WINAPI``); a
#: line holding nothing but an ALL_CAPS macro or its invocation, its arguments possibly over
#: several lines (``JUCE_DECLARE_NON_COPYABLE (X)``
#: in a class body, ``JUCE_END_IGNORE_WARNINGS_MSVC``: no semicolon follows, so the grammar
#: loses the rest of the class or namespace), unless the line before ends in an operator or a
#: comma or the line after starts with one or with a brace (then it is an operand, an
#: enumerator or a function-like macro heading a body: ``TEST_F(A, b)`` + ``{``); a
#: thread-safety annotation after a declarator (``void f() GTEST_LOCK_EXCLUDED_(mu);``,
#: ``int n_ GUARDED_BY(mu_);``: read as the name).
_C_BLANKS = (
    *(
        rb"%s[ \t]+([A-Z_][A-Z0-9_]*)\s+(?=[A-Za-z_][\w:]*\s*(?:final\b\s*)?[:{<])" % keyword
        for keyword in (b"class", b"struct", b"union")  # (one literal each: three fast scans)
    ),
    rb"(?#needs:_API,_EXPORT,_IMPORT,_DLL,_PUBLIC,_VISIBILITY,_CALLTYPE)"  # (its name ends in one)
    rb"\n[ \t]*(?:(?:static|inline|extern|virtual|explicit|friend|constexpr)[ \t]+)*"
    rb"([A-Z][A-Z0-9_]*(?:_API_?|_EXPORTS?|_IMPORT|_DLL|_PUBLIC|_VISIBILITY|_CALLTYPE))[ \t]+(?=[A-Za-z_~])",
    rb"[ \t&*]([A-Z][A-Z0-9]*_[A-Z0-9_]+|WINAPI|CALLBACK|APIENTRY)\s+(?=operator\b|[A-Za-z_~][\w:~]*\s*\()",
    *(
        rb"\n(?<![,(|&+?<!~^%%\[]\n)%s([A-Z][A-Z0-9]*+_[A-Z0-9_]++(?:[ \t]*+\((?:[^()]|\([^()]*+\))*+\))?)"
        rb"[ \t]*+(?://[^\n]*+)?\r?(?=\n[ \t]*+(?:[^-\s=()%s,;.?:|&+*<>!^%%\[\]]|\r?\n|$))" % variant
        for variant in ((rb"[ \t]*+", rb"{"), (rb"[ \t]++", rb""))  # (indented: a statement, `{` may follow)
    ),
    rb"(?#needs:LOCK_EXCLUDED,LOCKS_EXCLUDED,LOCK_REQUIRED,LOCKS_REQUIRED,LOCK_RETURNED,GUARDED_BY)"
    rb"[ \t\n]((?:[A-Z][A-Z0-9_]*?_)?(?:LOCKS?_EXCLUDED|LOCKS?_REQUIRED|LOCK_RETURNED"
    rb"|GUARDED_BY)_?[ \t]*+\((?:[^()\n]|\([^()\n]*+\))*+\))",
)

#: C++ smart pointers (the standard ones, and any template named ``...Ptr``, ``...Pointer``,
#: ``...Ref``, ``...Reference``) and their factories: the type they point to.
_CPP_POINTERS = (
    r"^\s*(?:const\s+)?(?:[\w]+::)*(?:\w*(?:Ptr|ptr|Pointer|Ref|Reference)|optional|make_unique|make_shared)"
    r"\s*<\s*(?:const\s+)?((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)"
)

#: Kotlin's and Scala's built-in types: never a repository type.
_JVM_BUILTINS = frozenset(
    {
        *("Int", "Long", "Short", "Byte", "Double", "Float", "Boolean", "Char", "String", "Unit", "Any"),
        *("Nothing", "Number", "Array", "List", "MutableList", "Map", "MutableMap", "Set", "MutableSet"),
        *("Sequence", "Pair", "Triple", "Seq", "Vector", "Option", "Some", "Either", "Future"),
    }
)

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
        LanguageSpec(
            language=Language.C,
            extensions=(".c",),
            grammar_module="tree_sitter_c",
            grammar_function="language",
            query_files=("c.scm",),
            quoted_modules=True,
            blanks=_C_BLANKS[3:],
        ),
        LanguageSpec(
            # `.h` is C++: its grammar reads C headers too (and `extern "C"`), the C grammar
            # reads no class, namespace or template
            language=Language.CPP,
            extensions=(".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl", ".tpp"),
            grammar_module="tree_sitter_cpp",
            grammar_function="language",
            query_files=("c.scm", "c_types.scm", "cpp.scm"),
            quoted_modules=True,
            path_separator="::",
            scope_separator="::",
            blanks=_C_BLANKS,
            builtin_types=frozenset(),
            unwrap_types=_CPP_POINTERS,
        ),
        LanguageSpec(
            language=Language.RUBY,
            extensions=(".rb", ".rake", ".gemspec", ".ru"),
            grammar_module="tree_sitter_ruby",
            grammar_function="language",
            query_files=("ruby.scm",),
            path_separator="/",
            scope_separator="::",
            method_containers=("module",),
            name_strip=":",
            sigils="@",
        ),
        LanguageSpec(
            language=Language.PHP,
            extensions=(".php", ".phtml", ".php8", ".inc"),
            grammar_module="tree_sitter_php",
            grammar_function="language_php",
            query_files=("php.scm",),
            path_separator="\\",
            sigils="$",
            separator_alias="\\",
            package_separator="\\",
            builtin_types=frozenset({"parent", "mixed", "object", "iterable", "callable"}),
        ),
        LanguageSpec(
            language=Language.CSHARP,
            extensions=(".cs",),
            grammar_module="tree_sitter_c_sharp",
            grammar_function="language",
            query_files=("csharp.scm",),
            builtin_types=frozenset({"var", "dynamic", "object", "string", "String", "Object"}),
        ),
        LanguageSpec(
            language=Language.KOTLIN,
            extensions=(".kt", ".kts"),
            grammar_module="tree_sitter_kotlin",
            grammar_function="language",
            query_files=("kotlin.scm",),
            builtin_types=_JVM_BUILTINS,
        ),
        LanguageSpec(
            language=Language.SCALA,
            extensions=(".scala", ".sc"),
            grammar_module="tree_sitter_scala",
            grammar_function="language",
            query_files=("scala.scm",),
            builtin_types=_JVM_BUILTINS,
        ),
        LanguageSpec(
            language=Language.SWIFT,
            extensions=(".swift",),
            grammar_module="tree_sitter_swift",
            grammar_function="language",
            query_files=("swift.scm",),
            builtin_types=frozenset(
                {"Int", "Int64", "Int32", "UInt", "Double", "Float", "Bool", "String", "Character", "Void", "Any"}
            ),
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
