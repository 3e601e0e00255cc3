"""Kotlin: packages (files of one package see each other's top-level names), imports of
classes and functions (``import a.b.C``, ``import a.b.*``, ``import a.b.C as D``),
``this.``/``super.``, members of the enclosing classes and their bases (implicit ``this``),
companion objects (their functions are the class's), extension functions (``fun Cart.x()``
is a method of ``Cart``, in whatever file), ``Foo(...)`` calls the class, overloads told apart
by arity."""

from __future__ import annotations

from graphmemd.graph.model import Language
from graphmemd.graph.resolution.packaged import PackageRules
from graphmemd.graph.resolution.rules import words


class KotlinRules(PackageRules):
    """Kotlin: packages, imports, extension functions, companions, overloads by arity."""

    family = "kotlin"
    languages = (Language.KOTLIN,)
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    members_in_scope = True
    detached_methods = True
    overloads_by_arity = True
    common_methods = words(
        "toString equals hashCode get set put add remove contains size isEmpty map filter forEach let also "
        "apply run with first last count sum sumOf any all none joinToString toList toSet toMap plus minus "
        "copy invoke close use print println format"
    )
