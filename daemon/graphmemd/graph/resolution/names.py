"""What one file exports, per name, to other files' resolution; and which names changed.

A resolution run records what it read of *another* file either as the whole file (the
file's path: "all names of that file") or as one name of it (:func:`name_key`): a top-level
name (``f``, ``C``: the lookup of ``m.f``, ``from m import C``) or a method name
(:func:`method_key`: the name-only guess ``x.m()`` reads every method ``m`` of the files
the caller imports). A file's facts are bucketed by those names (:func:`name_facts`): a
top-level name's bucket holds every fact keyed by a qualified name under it (the symbols
``C``, ``C.m``, ``C.m~2``, their kinds, arities, overloads, return and attribute types,
stated bases, and the module variable bound to the name), so whatever a resolution reads
through a symbol it found by that name is in that name's bucket. What is not keyed by a
name — ``__all__``, the imports (re-exports, star imports), the package, the language —
is the module-wide bucket :data:`ALL`: when it changes, every name of the file counts as
changed. :func:`changed_names` compares two files' facts bucket by bucket.

Pure: no I/O, no resolver state."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from graphmemd.graph.model import ImportRef, InheritRef, ParsedSymbol, TypeRef
from graphmemd.graph.resolution.index import FileIndex

#: the module-wide bucket (and, among changed names, "every name of the file")
ALL = "\0*"
#: separates a file's path from one of its names in a recorded key
SEP = "\0"
#: prefix of a method-name key (``name_key(path, method_key("m"))``)
_METHOD = "\0m:"
#: prefix of a typed-name key: whether a name has a stated type in some scope of the file
TYPED = "\0t:"

Facts = dict[str, tuple[object, ...]]


def name_key(path: str, name: str) -> str:
    """The recorded key of ``name`` (a top-level name or a :func:`method_key`) of ``path``
    (interned: many files' records hold the same keys)."""
    return sys.intern(path + SEP + name)


def method_key(name: str) -> str:
    """The name under which the methods called ``name`` of a file are bucketed."""
    return _METHOD + name


def typed_key(name: str) -> str:
    """The name under which the scopes stating a type for ``name`` are bucketed (a read of
    ``name in fi.typed_names`` that is not followed by the type itself)."""
    return TYPED + name


def path_of(key: str) -> str:
    """The file a recorded key reads: itself for a path, the path part of a :func:`name_key`."""
    return key.partition(SEP)[0]


def reads_symbol(keys: frozenset[str], path: str, qualname: str) -> bool:
    """Whether a record's ``keys`` read, of the file ``path``, the symbol ``qualname``: the
    whole file, the top-level name it is under, or (a method) its name-only guess."""
    if path in keys or name_key(path, top(qualname)) in keys:
        return True
    _, dot, last = qualname.rpartition(".")
    return bool(dot) and name_key(path, method_key(last.partition("~")[0])) in keys


def top(qualname: str) -> str:
    """The top-level name a qualified name is under: ``C.m~2`` -> ``C``."""
    if qualname.isidentifier():
        return qualname
    return qualname.partition(".")[0].partition("~")[0]


def _imports(imports: Iterable[ImportRef]) -> tuple[object, ...]:
    """The imports as written, less their lines (a line moved is no import changed)."""
    return tuple(sorted(((i.module, i.names, i.alias, i.scope, i.is_mod_decl) for i in imports), key=repr))


def _type(t: TypeRef | None) -> tuple[object, ...] | None:
    """A stated type, less its line."""
    return None if t is None else (t.scope, t.name, t.type, t.from_call, t.attr)


def _types(table: Mapping[str, TypeRef]) -> tuple[object, ...]:
    return tuple(sorted((n, _type(t)) for n, t in table.items()))


def _bases(refs: Iterable[InheritRef]) -> tuple[object, ...]:
    """Stated bases, less their lines."""
    return tuple((r.child, r.parent, r.kind) for r in refs)


def _symbol(s: ParsedSymbol) -> tuple[object, ...]:
    """What other files' resolution reads of a symbol: not where it is, nor its body's hash
    (a body edited is no name changed; what it returns is the file's ``returns``)."""
    return (s.name, s.qualname, s.kind, s.parent, s.signature, s.sig_hash)


def _canonical(facts: tuple[object, ...]) -> tuple[object, ...]:
    """``facts`` in an order that does not depend on where they are in the file (sorted by
    their ``repr``; one fact, most names' bucket, as it is: its ``repr`` is the dear part)."""
    return facts if len(facts) == 1 else tuple(sorted(facts, key=repr))


def _same(before: tuple[object, ...], after: tuple[object, ...] | None) -> bool:
    """Whether two buckets hold the same facts, in whatever order the files list them: as
    listed first (a file edited elsewhere lists them in the same order: no ``repr`` taken),
    then in :func:`_canonical` order (definitions moved within the file)."""
    if before == after:
        return True
    return after is not None and len(before) == len(after) and _canonical(before) == _canonical(after)


def name_facts(fi: FileIndex) -> Facts:
    """``fi``'s facts bucketed by name: each top-level name's, each method name's, and the
    module-wide bucket ``ALL`` (see the module doc). A bucket lists its facts in the file's
    order: :func:`changed_names` compares them in an order of their own where they differ."""
    per_q: dict[str, list[object]] = {}
    for q, s in fi.syms.items():
        ret = fi.returns.get(q)
        attrs = fi.attr_types.get(q)
        per_q.setdefault(top(q), []).append(
            (
                q,
                _symbol(s),  # (its id is its path, name and kind: the same in every checkout)
                fi.arity.get(q),
                tuple(fi.overloads.get(q, ())),
                _type(ret),
                _types(attrs) if attrs else (),
                _bases(fi.inherits_by_child.get(q, ())),
            )
        )
    for q, refs in fi.inherits_by_child.items():  # (a base stated for a name the file does not define)
        if q not in fi.syms:
            per_q.setdefault(top(q), []).append((q, _bases(refs)))
    for q, t in fi.returns.items():
        if q not in fi.syms:
            per_q.setdefault(top(q), []).append((q, "returns", _type(t)))
    for q, attrs in fi.attr_types.items():
        if q not in fi.syms:
            per_q.setdefault(top(q), []).append((q, "attrs", _types(attrs)))
    for name, t in fi.module_vars.items():
        per_q.setdefault(top(name), []).append(("=", name, _type(t)))
    local_vars = fi.local_vars()  # (unpacked on each call: once here)
    for scope, local in local_vars.items():  # (read through a scope of the name: its bases, types)
        per_q.setdefault(top(scope), []).append(("locals", scope, _types(local)))
    out: Facts = {name: tuple(facts) for name, facts in per_q.items()}
    methods: dict[str, list[object]] = {}
    for q, s in fi.syms.items():
        if "." in q:
            methods.setdefault(method_key(s.name.partition("~")[0]), []).append((q, _symbol(s)))
    for key, facts in methods.items():
        out[key] = tuple(facts)
    typed: dict[str, list[str]] = {}
    for scope, table in (("", fi.module_vars), *local_vars.items()):
        for n in table:
            typed.setdefault(typed_key(n), []).append(scope)
    for key, scopes in typed.items():
        out[key] = tuple(sorted(scopes))
    out[ALL] = (
        fi.parsed.language,
        fi.package,
        tuple(sorted(fi.exports)) if fi.exports is not None else None,
        fi.struct_key,
        _imports(fi.parsed.imports),
    )
    return out


def changed_names(before: Mapping[str, tuple[object, ...]], after: Mapping[str, tuple[object, ...]]) -> frozenset[str]:
    """The names whose facts differ between ``before`` and ``after`` (added and removed
    names included); ``{ALL}`` when the module-wide facts differ (every name changed)."""
    if before.get(ALL) != after.get(ALL):
        return frozenset({ALL})
    out = {k for k, v in before.items() if not _same(v, after.get(k))}
    out.update(k for k in after if k not in before)
    return frozenset(out)
