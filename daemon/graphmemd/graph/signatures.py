"""Whether a signature change keeps what was written against the old one true (pure).

A document that mentions a function in passing stays right when the function only gained
parameters with defaults, or when only annotations or the return type changed: every call
written against the old signature still works. ``compatible(old, new)`` compares the
normalised signature texts the parser records (``def f(a,b=1)->int:``,
``func (s *Server) Start() error``, ``fetchUser(id:number):Promise<User>``) through
``graphmem.changes`` (the one parser of those texts): a renamed, removed, reordered or new
required parameter is incompatible, and so is a function that became a method (a Go
receiver added or dropped) or a changed name. A type's head is compatible when only its
bases changed.

A call a document writes with arguments (``get(url, proxies=...)``) is bound against a
Python function's current parameters (``binds``, ``call_misfit``): a keyword it no longer
takes, or more positional arguments than it accepts, and the text is wrong.

``callers_unaffected(old, new)``: a function's change no caller can notice: compatible, and
no parameter changed its default (a changed default reaches every call that leaves the
parameter out). A PEP 695 type parameter list (``def batch[V](``) is not such a change.

``respelled(old, new, same)``: ``old`` with each annotation that ``same`` calls equal to
``new``'s written as ``new`` writes it, so that saying the change in words
(``graphmem.changes``) names no annotation that was only respelled (``Optional[str]`` ->
``str | None``).

``changed_defaults(old, new)`` and ``sees_default``: when all a caller of a Python function
can notice is that some defaults changed, only the calls that leave one of those parameters
out see it (``f(x, timeout=5)`` and ``f(x, 5)`` do not, ``f(x)`` does, and so may
``f(*args, **kwargs)``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem.changes import Param, ParamKind, SignatureDelta, parse_signature, signature_delta

from graphmemd.graph.model import CallShape, ChangeKind, annotations_only


def compatible(old: str, new: str) -> bool:
    """Whether every use written against ``old`` still fits ``new`` (see the module docstring)."""
    if old == new:
        return True
    a, b = parse_signature(old), parse_signature(new)
    if a is None or b is None or a.name != b.name:
        return False
    if a.is_type and b.is_type:
        return True
    if bool(a.receiver) != bool(b.receiver):
        return False
    return not signature_delta(old, new).breaks_callers


def head_change(old_hash: str, new_hash: str, old: str, new: str) -> ChangeKind | None:
    """What changed of a symbol's head (``old``/``new`` its signature texts, the hashes of
    them the parser computed): ``SIGNATURE_CHANGED``, ``ANNOTATIONS_CHANGED`` (only what the
    annotations say: ``model.annotations_only``), or None — the same head, or one that differs
    only in the names of positional-only parameters (``unnamed_only``)."""
    if old_hash == new_hash:
        return None
    if annotations_only(old_hash, new_hash):
        return ChangeKind.ANNOTATIONS_CHANGED
    return None if unnamed_only(old, new) else ChangeKind.SIGNATURE_CHANGED


def unnamed_only(old: str, new: str) -> bool:
    """Whether two different heads say the same but for the names of parameters that were
    positional-only and still are passed by position (``def f(self,__obj:Any)`` ->
    ``def f(self,obj:Any,/)``, PEP 484's convention written as PEP 570's): no caller wrote those
    names, so no note or text about the function is touched by the change of its head."""
    delta = signature_delta(old, new)
    if not delta.respelled or delta.breaks_callers or delta.annotations_changed or delta.defaults_changed:
        return False
    if delta.bases_changed or delta.added:
        return False
    renamed = old
    for was, now in delta.respelled:
        renamed = re.sub(rf"(?<![\w$]){re.escape(was)}(?![\w$])", now, renamed)
    return _POSITIONAL_MARK.sub("", renamed) == _POSITIONAL_MARK.sub("", new)


#: PEP 570's ``/`` as a normalised signature writes it (``(a,/,b)``, ``(a,/)``)
_POSITIONAL_MARK = re.compile(r",/(?=[,)])")


def _caller_params(sig: str) -> tuple[Param, ...] | None:
    """A Python function's parameters as callers pass them (``self``/``cls`` of a method
    dropped, a ``staticmethod`` keeps its first); None for anything else (a type's head, a
    signature that cannot be parsed, another language: no keywords to bind)."""
    parsed = parse_signature(sig)
    if parsed is None or parsed.keyword != "def":
        return None
    params = parsed.params
    static = "@staticmethod" in sig[: sig.find("def")]
    if params and params[0].name in ("self", "cls") and not static:
        params = params[1:]
    return params


def call_misfit(positional: int, keywords: Sequence[str], more_positional: bool, sig: str) -> str:
    """Why a call passing ``positional`` arguments by position and ``keywords`` by name no
    longer fits the Python function ``sig`` (``no longer takes `proxies```, ``takes 1
    positional argument, not 3``), or "" when it fits or there is nothing to bind against.
    Arguments the call leaves out are not asked for (a document shows what matters);
    ``more_positional``: it writes ``...`` or ``*args`` among them (any count)."""
    params = _caller_params(sig)
    if params is None:
        return ""
    by_position = [p for p in params if p.kind in (ParamKind.POSITIONAL_ONLY, ParamKind.NORMAL)]
    by_name = {p.name for p in params if p.kind in (ParamKind.NORMAL, ParamKind.KEYWORD_ONLY)}
    any_keyword = any(p.kind is ParamKind.VAR_KEYWORD for p in params)
    any_position = any(p.kind is ParamKind.VAR_POSITIONAL for p in params)
    filled = {p.name for p in by_position[:positional]}
    for k in keywords:
        if k not in by_name and not any_keyword:
            return f"no longer takes `{k}`"
        if k in filled:
            return f"gets `{k}` twice"
    if positional > len(by_position) and not any_position and not more_positional:
        n = len(by_position)
        return f"takes {n} positional argument{'' if n == 1 else 's'}, not {positional}"
    return ""


def binds(positional: int, keywords: Sequence[str], more_positional: bool, sig: str) -> bool | None:
    """Whether such a call still fits the Python function ``sig`` (``call_misfit``); None
    when ``sig`` is no Python function's (nothing to bind against)."""
    if _caller_params(sig) is None:
        return None
    return not call_misfit(positional, keywords, more_positional, sig)


def parameter_names(sig: str) -> tuple[str, ...] | None:
    """The names of a signature's parameters as callers see them (``self``/``cls`` of a
    Python method aside), or None when it has no parameter list (a type's head, unparsable)."""
    parsed = parse_signature(sig)
    if parsed is None or parsed.is_type:
        return None
    params = _caller_params(sig)
    return tuple(p.name for p in (params if params is not None else parsed.params))


def fits_old_callers(old: str, new: str) -> bool:
    """Whether every call written against ``old`` still binds to ``new``: ``compatible``, or
    the parameters it dropped or renamed are taken by ``new``'s variadics (``evolve(inst,
    **changes)`` -> ``evolve(*args, **changes)``: a positional ``inst`` goes to ``*args``, a
    keyword one to ``**changes``) and it asks for nothing new."""
    if compatible(old, new):
        return True
    dropped = _dropped(old, new)
    return dropped is not None and all(taken for _, taken in dropped)


def fits_a_mention(old: str, new: str, text: str) -> bool:
    """Whether a text that names the function without writing a call (``pytest.fail``) still
    fits after ``old`` became ``new``: old callers fit (``fits_old_callers``), or what breaks
    them is only optional parameters removed or renamed that ``text`` does not name (pytest
    8.0 dropped ``fail``'s and ``skip``'s deprecated ``msg=``: "call ``pytest.fail`` manually"
    is as true as before; "pass ``msg``" is not). A parameter made required, a new required
    one, moved positions or a new name break every caller, whatever the text says."""
    if compatible(old, new):
        return True
    dropped = _dropped(old, new)
    if dropped is None:
        return False
    return all(taken for _, taken in dropped) or all(
        not p.required and re.search(rf"(?<![\w$]){re.escape(p.name)}(?![\w$])", text) is None for p, _ in dropped
    )


def _dropped(old: str, new: str) -> list[tuple[Param, bool]] | None:
    """The parameters of ``old`` that ``new`` no longer has by that name (removed or renamed),
    each with whether ``new``'s variadics take what a call passes for it; None when the change
    breaks callers whatever they pass (moved positions, a new name, a new required parameter, one
    made required) or the two cannot be compared (not both functions' heads of one name)."""
    a, b = parse_signature(old), parse_signature(new)
    if a is None or b is None or a.name != b.name or a.is_type or b.is_type:
        return None
    delta = signature_delta(old, new)
    if delta.reordered or delta.name_changed or any(p.required for p in delta.added):
        return None
    if _made_required(delta, b.params):
        return None  # a call that left it out no longer binds
    kinds = {p.kind for p in b.params}
    takes = {
        ParamKind.POSITIONAL_ONLY: ParamKind.VAR_POSITIONAL in kinds,
        ParamKind.KEYWORD_ONLY: ParamKind.VAR_KEYWORD in kinds,
        ParamKind.NORMAL: {ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD} <= kinds,
    }
    gone = {name for name, _ in delta.renamed} | {p.name for p in delta.removed}
    return [(p, takes.get(p.kind, True)) for p in a.params if p.name in gone]


def _made_required(delta: SignatureDelta, params: Sequence[Param]) -> bool:
    """Whether a parameter that had a default has none now and must be passed (a variadic
    that took over a keyword's name, ``k=1`` -> ``**k``, needs nothing)."""
    now = {p.name: p for p in params}
    return any(was and not new and name in now and now[name].required for name, was, new in delta.defaults_changed)


def callers_unaffected(old: str, new: str) -> bool:
    """Whether no call written against function signature ``old`` can tell ``new`` apart (see
    the module docstring)."""
    a, b = parse_signature(old), parse_signature(new)
    if a is None or b is None or a.is_type or b.is_type or not compatible(old, new):
        return False
    return not signature_delta(old, new).defaults_changed


def changed_defaults(old: str, new: str) -> tuple[str, ...]:
    """The parameters whose default changed, when that is all a caller of the Python function
    ``old`` can notice in ``new`` (compatible: besides, only annotations changed or optional
    parameters were added); () when anything else reaches its callers, or nothing does."""
    if _caller_params(old) is None or _caller_params(new) is None or not compatible(old, new):
        return ()
    return tuple(name for name, _, _ in signature_delta(old, new).defaults_changed)


@dataclass(frozen=True, slots=True)
class DefaultSeen:
    """How a call sees changed defaults: the parameters it leaves out (``names``), and whether
    it has ``*``/``**`` arguments (``starred``), so it may pass them there. No names: it may
    see them, but which cannot be told (the call cannot be bound)."""

    names: tuple[str, ...] = ()
    starred: bool = False


def sees_default(shape: CallShape, through_name: bool, sig: str, names: Sequence[str]) -> DefaultSeen | None:
    """Whether a call of ``shape`` to the Python function ``sig`` (its signature now) sees the
    changed default of one of ``names``: the ones it leaves out (``omits `timeout```), or may
    (``*``/``**`` arguments); None when it passes each of them, by position or by keyword.
    ``through_name``: the call names a method through its class (``Base.m(self, x)``): the
    instance is its first positional argument. Unknown (``sig`` no Python function's): it may,
    with no names."""
    params = _caller_params(sig)
    if params is None:
        return DefaultSeen()
    positional = shape.positionals
    parsed = parse_signature(sig)
    if through_name and parsed is not None and len(params) < len(parsed.params) and parsed.params[0].name == "self":
        positional = max(positional - 1, 0)
    by_position = [p.name for p in params if p.kind in (ParamKind.POSITIONAL_ONLY, ParamKind.NORMAL)]
    passed = {*by_position[:positional], *shape.keywords}
    left = tuple(n for n in names if n not in passed)
    return DefaultSeen(left, shape.starred) if left else None


def respelled(old: str, new: str, same: Callable[[str, str], bool]) -> str:
    """``old`` with every parameter's annotation (and the return type) that ``same`` says
    means what ``new``'s does spelled as in ``new``; ``old`` itself when there is none, or
    when the rewritten text would not read back as intended (see the module docstring)."""
    a, b = parse_signature(old), parse_signature(new)
    if a is None or b is None or old == new:
        return old
    by_new = {q.name: q for q in b.params}
    by_new.update({o: by_new[n] for o, n in signature_delta(old, new).renamed if n in by_new})
    out = old
    for p in a.params:
        q = by_new.get(p.name)
        if q is None or not p.annotation or not q.annotation or p.annotation == q.annotation:
            continue
        if not same(p.annotation, q.annotation):
            continue
        pattern = re.compile(rf"(?<=[(,*\s]){re.escape(p.name)}\s*:\s*{re.escape(p.annotation)}(?=\s*[=,)])")
        out, n = pattern.subn(f"{p.name}:{q.annotation}".replace("\\", "\\\\"), out, count=1)
        if n != 1:
            return old
    if a.returns and b.returns and a.returns != b.returns and same(a.returns, b.returns):
        at = out.rfind(a.returns)
        if at < 0:
            return old
        out = out[:at] + b.returns + out[at + len(a.returns) :]
    return out if _reads_back(out, a.params, by_new, same) else old


def _reads_back(text: str, old: Sequence[Param], by_new: dict[str, Param], same: Callable[[str, str], bool]) -> bool:
    """Whether ``text`` parses to ``old``'s parameters with the respelled annotations."""
    parsed = parse_signature(text)
    if parsed is None or [p.name for p in parsed.params] != [p.name for p in old]:
        return False
    for was, now in zip(old, parsed.params, strict=True):
        q = by_new.get(was.name)
        want = was.annotation
        if q is not None and was.annotation and q.annotation and same(was.annotation, q.annotation):
            want = q.annotation
        if now.annotation != want or now.default != was.default or now.kind is not was.kind:
            return False
    return True
