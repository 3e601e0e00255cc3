"""Whether a signature change keeps what was written against the old one true (pure).

A document that mentions a function in passing stays right when the function only gained
parameters with defaults, or when only annotations or the return type changed: every call
written against the old signature still works. ``compatible(old, new)`` compares the
normalised signature texts the parser records (``def f(a,b=1)->int:``,
``func (s *Server) Start() error``, ``fetchUser(id:number):Promise<User>``): the parameter
names of the old list must come first, in order, in the new list (``self`` and annotations
aside), and every added parameter must have a default or be variadic (``*args``,
``**kwargs``, ``...rest``). A renamed, removed, reordered or new required parameter is
incompatible. A class head is compatible when only its bases changed.

``callers_unaffected(old, new)``: a function's change no caller can notice: compatible, and
every old parameter keeps its default (a changed default reaches every call that leaves the
parameter out).
"""

from __future__ import annotations

import re
from typing import Final

_NAME: Final = re.compile(r"[A-Za-z_$][\w$]*")
_OPEN: Final = "([{<"
_CLOSE: Final = ")]}>"


def _params(sig: str) -> list[str] | None:
    """The top-level parameters of the first parameter list, or None when there is none."""
    start = sig.find("(")
    if start < 0:
        return None
    depth = 0
    cur: list[str] = []
    out: list[str] = []
    for ch in sig[start + 1 :]:
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            if depth == 0:
                out.append("".join(cur))
                return [p.strip() for p in out if p.strip()]
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    return None


def _receiver_list(sig: str) -> bool:
    """Whether the first parenthesis is a Go method's receiver (``func (s *T) Name(...)``)."""
    return sig.startswith("func(") or sig.startswith("func (")


def _param_name(p: str) -> str:
    """A parameter's name: before its annotation or default (``a:int=1`` -> ``a``;
    ``*args`` -> ``*args``; Go/Java ``name Type`` / ``Type name`` keep the last identifier)."""
    head = re.split(r"[:=]", p, maxsplit=1)[0].strip()
    stars = head[: len(head) - len(head.lstrip("*."))]
    names: list[str] = _NAME.findall(head)
    if not names:
        return head
    return stars + (names[0] if ":" in p or "=" in p or len(names) == 1 else names[-1])


def _optional(p: str) -> bool:
    """Whether callers may leave the parameter out: a default, or variadic."""
    head = p.split(":", 1)[0].strip()
    return "=" in p.replace("==", "") or p.startswith(("*", "...")) or p == "/" or head.endswith("?")


_TYPE_HEAD: Final = re.compile(
    r"^(?:@\S+\s*)*(?:(?:export|default|public|private|protected|abstract|final|static|pub|sealed)\s+)*"
    r"(?:class|struct|interface|trait|enum|type)\b"
)


#: A type parameter list before a parameter list (``def batch[V](``, ``fn identity<T>(``).
_TYPE_PARAMS: Final = re.compile(r"(?:\[[^()]*\]|<[^()]*>)\s*$")


def compatible(old: str, new: str) -> bool:
    """Whether every use written against ``old`` still fits ``new`` (see the module docstring)."""
    if old == new:
        return True
    if _TYPE_HEAD.match(old) and _TYPE_HEAD.match(new):
        return _head_name(old) == _head_name(new)
    if _receiver_list(old) != _receiver_list(new):
        return False
    if _receiver_list(old):
        old, new = old[old.index(")") + 1 :], new[new.index(")") + 1 :]
    a, b = _params(old), _params(new)
    if a is None or b is None or _head_name(old) != _head_name(new):
        return False
    names_a = [n for n in map(_param_name, a) if n not in ("*", "/")]
    kept = iter(map(_param_name, b))
    if not all(any(n == m for m in kept) for n in names_a):  # the old names, in order
        return False
    old_names = set(names_a)
    return all(_param_name(p) in old_names or _param_name(p) in ("*", "/") or _optional(p) for p in b)


def _default(p: str) -> str:
    """A parameter's default text (``a:int=1`` -> ``1``; none: ``""``)."""
    depth = 0
    for i, ch in enumerate(p):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == "=" and depth == 0 and p[i + 1 : i + 2] != "=" and p[i - 1 : i] not in ("=", "!", "<", ">"):
            return p[i + 1 :].strip()
    return ""


def callers_unaffected(old: str, new: str) -> bool:
    """Whether no call written against function signature ``old`` can tell ``new`` apart: the
    change is ``compatible`` and no parameter of ``old`` changed its default."""
    if _TYPE_HEAD.match(old) or _TYPE_HEAD.match(new) or not compatible(old, new):
        return False
    if _receiver_list(old):
        old, new = old[old.index(")") + 1 :], new[new.index(")") + 1 :]
    a, b = _params(old) or [], _params(new) or []
    defaults = {_param_name(p): _default(p) for p in b}
    return all(defaults.get(_param_name(p)) == _default(p) for p in a)


def _head_name(sig: str) -> str:
    """The defined name of a signature text (the identifier before the parameter list, or
    after ``class``/``struct``/``interface``)."""
    head = re.sub(r"^(?:@\S+\s*)+", "", sig)
    m = _TYPE_HEAD.match(head)
    if m is not None:
        names = _NAME.findall(head[m.end() :])
        return names[0] if names else head
    cut = head.find("(")
    before = _TYPE_PARAMS.sub("", head[:cut]) if cut >= 0 else head  # (``def f[T](``: PEP 695)
    names = _NAME.findall(before)
    return names[-1] if names else head
