"""Scala: packages (files of one package see each other's top-level names), imports of
members and packages (``import a.b.C``, ``import a.b._``, ``import a.b.{C, D => E}``),
``this.``/``super.``, members of the enclosing classes and traits and their bases (implicit
``this``), companion objects (``Cart.empty(...)`` on the object beside ``class Cart``),
``new T(...)`` and a case class's ``T(...)`` call the class, overloads told apart by arity."""

from __future__ import annotations

from graphmemd.graph.model import Language
from graphmemd.graph.resolution.packaged import PackageRules
from graphmemd.graph.resolution.rules import words


class ScalaRules(PackageRules):
    """Scala: packages, imports, companions, traits, overloads by arity."""

    family = "scala"
    languages = (Language.SCALA,)
    self_names = frozenset({"this"})
    super_names = frozenset({"super"})
    members_in_scope = True
    overloads_by_arity = True
    common_methods = words(
        "toString equals hashCode apply unapply get map flatMap filter foreach fold foldLeft reduce sum size "
        "isEmpty nonEmpty head tail contains mkString toList toSeq toMap getOrElse copy close run"
    )
