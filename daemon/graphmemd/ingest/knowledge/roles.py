"""Sphinx roles and directives that name code, shared by the rST and MyST readers (pure).

``role_target`` applies Sphinx's own conventions to a role's text: an explicit title
(``title <target>``), ``~`` (show the last component only), ``!`` (no link), and the
``()`` Sphinx adds to functions.
"""

from __future__ import annotations

import re
from typing import Final

from graphmemd.ingest.knowledge.classify import clean_name, is_path_like
from graphmemd.ingest.knowledge.model import TargetKind

#: Python-domain roles whose target is an object (with or without the ``py:`` domain)
CODE_ROLES: Final = frozenset(
    {"func", "class", "meth", "mod", "attr", "exc", "data", "obj", "const", "any", "type", "function", "method"}
)
#: roles whose target is a file
FILE_ROLES: Final = frozenset({"file", "source"})
#: every other role Sphinx and its common extensions define (read, not a reference to code)
OTHER_ROLES: Final = (
    "ref", "doc", "term", "envvar", "option", "program", "samp", "command", "kbd", "keyword",
    "abbr", "issue", "pr", "user", "gh", "pypi", "bpo", "dfn", "guilabel", "menuselection",
    "mimetype", "newsgroup", "regexp", "makevar", "token", "numref", "download", "std:ref",
    "std:doc", "c:func", "c:type", "c:macro", "cpp:func", "cpp:class", "js:func", "js:class",
)  # fmt: skip
#: directives whose argument names a Python object (autodoc and the py domain)
CODE_DIRECTIVES: Final = frozenset(
    {
        "function", "class", "method", "attribute", "data", "exception", "decorator", "classmethod",
        "staticmethod", "property", "autofunction", "autoclass", "automethod", "autoattribute",
        "autodata", "autoexception", "autodecorator", "autoproperty",
    }
)  # fmt: skip
#: directives whose body documents the members of the class they name
CLASS_DIRECTIVES: Final = frozenset({"class", "autoclass", "exception", "autoexception"})
#: directives that set the module later relative names resolve under
MODULE_DIRECTIVES: Final = frozenset({"module", "currentmodule", "automodule"})

_EXPLICIT_TITLE: Final = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.DOTALL)


_WANTS: Final = {
    "mod": "module", "module": "module", "automodule": "module",
    "class": "class", "exc": "class", "exception": "class", "autoclass": "class", "autoexception": "class",
    "func": "callable", "meth": "callable", "method": "callable",
    "automethod": "callable", "decorator": "callable", "autodecorator": "callable",
    "function": "toplevel", "autofunction": "toplevel", "data": "toplevel", "autodata": "toplevel",
    "classmethod": "callable", "staticmethod": "callable",
}  # fmt: skip


def wanted(role: str) -> str:
    """What a role or directive names: ``module``, ``class``, ``callable``, ``toplevel`` (a
    module-level name: ``.. function::``, ``.. data::``, resolved before any member) or ""
    (anything)."""
    return _WANTS.get(role.split(":")[-1], "")


def is_code_role(role: str) -> bool:
    """Whether ``role`` (``func``, ``py:func``, ``py:meth`` ...) names code or a file."""
    name = role.split(":")[-1] if role.startswith("py:") else role
    return name in CODE_ROLES or name in FILE_ROLES


def role_target(role: str, text: str) -> tuple[TargetKind, str] | None:
    """What a role's text names, per Sphinx: (kind, target), or None for a role that does
    not name code (``:ref:``, ``:doc:``, ``:issue:`` ...)."""
    if not is_code_role(role):
        return None
    m = _EXPLICIT_TITLE.match(text)
    target = (m.group(2) if m else text).strip().lstrip("!~")
    if role.split(":")[-1] in FILE_ROLES:
        return (TargetKind.PATH, target) if is_path_like(target) else None
    name = clean_name(target)
    if name is None:
        return None
    return TargetKind.SYMBOL, name.lstrip(".")
