"""The registration table: which :class:`LanguageRules` resolves which language.

Adding a language means: a module with its ``LanguageRules`` subclass and one entry here.
"""

from __future__ import annotations

from graphmemd.graph.model import Language
from graphmemd.graph.resolution.cfamily import CFamilyRules
from graphmemd.graph.resolution.csharp import CSharpRules
from graphmemd.graph.resolution.golang import GoRules
from graphmemd.graph.resolution.java import JavaRules
from graphmemd.graph.resolution.javascript import JavaScriptRules
from graphmemd.graph.resolution.kotlin import KotlinRules
from graphmemd.graph.resolution.php import PhpRules
from graphmemd.graph.resolution.python import PythonRules
from graphmemd.graph.resolution.ruby import RubyRules
from graphmemd.graph.resolution.rules import LanguageRules
from graphmemd.graph.resolution.rust import RustRules
from graphmemd.graph.resolution.scala import ScalaRules
from graphmemd.graph.resolution.swift import SwiftRules


def _table() -> dict[Language, type[LanguageRules]]:
    families: tuple[type[LanguageRules], ...] = (
        PythonRules,
        JavaScriptRules,
        GoRules,
        RustRules,
        JavaRules,
        CFamilyRules,
        RubyRules,
        PhpRules,
        CSharpRules,
        KotlinRules,
        ScalaRules,
        SwiftRules,
    )
    return {lang: cls for cls in families for lang in cls.languages}


_TABLE: dict[Language, type[LanguageRules]] = {}


def rules_for(language: Language) -> type[LanguageRules]:
    """The rules class of ``language`` (the base rules for a language nobody registered)."""
    if not _TABLE:
        _TABLE.update(_table())
    return _TABLE.get(language, LanguageRules)
