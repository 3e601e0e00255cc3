"""Resolution of a repository's parsed files into graph edges, with a confidence on each.

Pure and in-memory: :class:`RepoResolver` keeps the latest :class:`~graphmemd.graph.model.ParsedFile`
of every file, indexes it once in :meth:`RepoResolver.set_file`, and turns imports, calls and
inheritance references into edges between ``model.file_id`` / ``model.symbol_id`` ids. The only
I/O is in ``facts.py`` (:func:`facts_from_files` reads the manifests; :func:`is_fact_file`
tells which changed paths require re-reading them).

Layout: ``index.py`` (per-file indexes and import contexts), ``lookup.py`` (names, members,
bases), ``receivers.py`` (receiver typing), ``passes.py`` (one resolution run: calls,
confidences), ``resolver.py`` (the incremental shell), ``rules.py`` (the per-language
interface), ``scopes.py`` (names by full name across files, lexical scopes) and
``packaged.py`` (the rules shared by languages with packages), one module per language
family (``python``, ``javascript`` for JS/TS, ``golang``, ``rust``, ``java``, ``cfamily``
for C/C++, ``ruby``, ``php``, ``csharp``, ``kotlin``, ``scala``, ``swift``) and
``registry.py`` (the table mapping each :class:`~graphmemd.graph.model.Language` to its
rules). The rules of the languages added after the first six are summarised in each
module's docstring and in ``docs/languages.md``. Shared code never tests a
language name: it asks the file's rules (``self_names``, ``package_files``, ``path_call`` ...).

Everything is best effort and deterministic (files are processed in path order, candidates are
probed in a fixed order, ties are broken by sorted paths). Nothing is silently dropped: an
import that does not resolve to a repository file is reported in ``external_imports``, a call
that does not resolve in ``unresolved_calls`` and a parent type in ``unresolved_inherits``.

Imports -> files (``import_into`` of each language):

* Python: dotted modules are probed as ``<root>/a/b.py``, ``.pyi``, ``a/b/__init__.py(i)``
  under every import root (the repository root, ``src/`` layouts, package dirs declared in
  ``pyproject.toml``/``setup.cfg``, sub-projects) and, for files in a directory that is not
  a package (scripts, test dirs), the importer's own directory (``sys.path[0]``). Relative
  imports walk up one directory per extra dot. ``from pkg import name`` imports ``pkg`` and,
  when ``pkg/name.py`` exists, that submodule. Function-local imports bind only inside
  their function. ``__all__`` limits what ``from m import *`` brings in.
* JavaScript/TypeScript: relative specifiers probed as written, with the extensions
  ``.ts .tsx .js .jsx .mjs .cjs .d.ts`` and as ``<spec>/index.<ext>``; bare specifiers
  through tsconfig ``paths`` and ``baseUrl`` and workspace package names (``package.json``).
* Go: the import path is mapped to a directory through the ``go.mod`` module paths; the
  import targets every ``.go`` file of that directory (``_test.go`` only from tests).
* Rust: ``mod x;`` -> ``x.rs``/``x/mod.rs``; ``use`` paths (``crate::``, ``self::``,
  ``super::``, a workspace crate, a child module) by the standard layout.
* Java: ``import p.C`` -> the file(s) of package ``p`` declaring ``C``; ``p.*`` -> the
  package; ``import static p.C.m`` / ``p.C.*`` -> members of ``C``.

Calls -> symbols (``passes.Pass``), each with its confidence (see ``passes.py``):

1. ``self.x``/``this.x`` -> the enclosing class's member, then its bases; ``super().x`` ->
   the bases only; Go/Rust methods of the type in other files of the package/crate.
2. Bare names: a nested definition of the caller or an enclosing function, (Java) members
   of enclosing classes, a top-level symbol of the file, an imported name (through
   re-exports and ``*``), the same package (Go directory, Java package), (Rust) a
   ``macro_rules!`` of the same crate. **Calling a class links to the class symbol**.
3. Dotted names: the longest prefix bound to a module (``pkg.Func``, ``a.b.func``) -> the
   symbol in that module; a typed receiver (``x.m()`` with ``x = Foo()``, ``x: Foo``,
   ``var x Foo``, ``x := pkg.NewFoo()`` through its return type, ``self.a.m()`` with
   ``self.a = Foo()`` or a field declaration) -> the method of that type or its bases; a
   prefix naming a class -> its member; Rust ``crate::``/``self::``/``super::`` paths.
4. A guess for ``receiver.method()`` left over (NAME_ONLY): ``method`` defined in exactly one
   class among this file and its imports, else in the whole repository; never for common
   method names, capitalised receivers, ``::`` paths or receivers of a stated external type.

Java overloads are told apart by argument count when exactly one overload fits.

Incremental use: ``dependents_of(paths)`` returns the files whose import resolution probed
any of ``paths`` (as an existing file or a candidate that might appear), that share a Go
package directory or Java package with them, or whose last computed edges looked into them
(re-export chains, base classes, receiver types, a guessed link). With ``narrow`` on (the
default: docs/how-it-works.md), for a Python file that was there before and after,
only the files that read it whole or read a name of it whose facts changed (``names.py``:
the record and the facts are both kept per name). Not
tracked: a guess that becomes ambiguous because some unrelated file starts defining the
same method name.
"""

from graphmemd.graph.resolution.facts import FACT_FILES, RepoFacts, facts_from_files, is_fact_file, read_repo_facts
from graphmemd.graph.resolution.resolver import RepoResolver

__all__ = ["FACT_FILES", "RepoFacts", "RepoResolver", "facts_from_files", "is_fact_file", "read_repo_facts"]
