"""The registration table: which :class:`LanguageRules` resolves which language.

Adding a language means: a module with its ``LanguageRules`` subclass and one entry here.
"""

from __future__ import annotations

from graphmemd.model import Language
from graphmemd.resolution.rules import LanguageRules


def _table() -> dict[Language, type[LanguageRules]]:
    # imported here: the language modules import the shared pass, which imports this table's users
    from graphmemd.resolution.golang import GoRules
    from graphmemd.resolution.java import JavaRules
    from graphmemd.resolution.javascript import JavaScriptRules
    from graphmemd.resolution.python import PythonRules
    from graphmemd.resolution.rust import RustRules

    families: tuple[type[LanguageRules], ...] = (PythonRules, JavaScriptRules, GoRules, RustRules, JavaRules)
    return {lang: cls for cls in families for lang in cls.languages}


_TABLE: dict[Language, type[LanguageRules]] = {}


def rules_for(language: Language) -> type[LanguageRules]:
    """The rules class of ``language`` (the base rules for a language nobody registered)."""
    if not _TABLE:
        _TABLE.update(_table())
    return _TABLE.get(language, LanguageRules)
