"""PHP: namespaces (the package of a file), ``use`` of classes and functions (groups and
aliases too) resolved to the file Composer's PSR-4 autoload maps them to (``composer.json``
``autoload``/``autoload-dev`` ``psr-4``), else to whatever file defines that full name;
``$this->m()``, ``self::``/``static::``, ``parent::``, typed properties and parameters,
``new Foo()`` calls the class. A bare ``f()`` is a function of the namespace, else the global
one (never a method: PHP has no implicit ``$this``)."""

from __future__ import annotations

import posixpath

from graphmemd.graph.model import Language
from graphmemd.graph.resolution.index import CtxBuilder, norm
from graphmemd.graph.resolution.packaged import PackageRules
from graphmemd.graph.resolution.rules import words


class PhpRules(PackageRules):
    """PHP: namespaces, ``use``, Composer PSR-4."""

    family = "php"
    languages = (Language.PHP,)
    self_names = frozenset({"this", "self", "static"})
    super_names = frozenset({"parent"})
    import_separator = "\\"
    bare_members = False
    common_methods = words(
        "get set has add remove count toArray all first last map filter each push pop merge with where find "
        "save delete update create make handle run execute __construct __toString __get __set __call"
    )

    def files_of(self, full: str, b: CtxBuilder) -> list[str]:
        """The file PSR-4 maps ``full`` to (``App\\Models\\User`` -> ``src/Models/User.php``),
        else every file defining it."""
        for prefix, dirs in sorted(self.r.facts.php_psr4.items(), key=lambda x: -len(x[0])):
            dotted = prefix.replace("\\", ".").strip(".")
            if dotted and not full.startswith(dotted + "."):
                continue
            rest = full[len(dotted) + 1 :] if dotted else full
            found = b.probe(norm(posixpath.join(d, *rest.split("."))) + ".php" for d in dirs)
            if found is not None:
                return [found]
        return super().files_of(full, b)
