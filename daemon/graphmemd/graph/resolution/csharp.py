"""C#: namespaces as packages (a file sees the types of its namespace and of the namespaces
enclosing it), ``using`` a namespace (its types visible), ``using X = A.B.C`` aliases,
``this.``/``base.``, members of the enclosing classes and their bases (implicit ``this``),
``partial`` classes (one type, its members in any file), overloads told apart by arity."""

from __future__ import annotations

from graphmemd.graph.model import Language
from graphmemd.graph.resolution.packaged import PackageRules
from graphmemd.graph.resolution.rules import words


class CSharpRules(PackageRules):
    """C#: namespaces, ``using``, partial classes, overloads by arity."""

    family = "csharp"
    languages = (Language.CSHARP,)
    self_names = frozenset({"this"})
    super_names = frozenset({"base"})
    members_in_scope = True
    detached_methods = True
    overloads_by_arity = True
    package_parents = True
    common_methods = words(
        "ToString Equals GetHashCode GetType Add Remove Contains Count Clear Get Set TryGetValue Dispose "
        "Any Where Select First FirstOrDefault ToList ToArray OrderBy Sum Max Min Append Insert Format "
        "Write WriteLine Read Run Start Stop Wait Invoke"
    )
