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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
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


_DECORATORS: Final = re.compile(r"^(?:@\S+?\s*(?=@|(?:async\s*)?def\b|class\b))+")


def undecorated(sig: str) -> str:
    """A Python signature without its decorators (``@wraps(f)def g(x):`` -> ``def g(x):``)."""
    m = _DECORATORS.match(sig)
    return sig[m.end() :] if m else sig


def compatible(old: str, new: str) -> bool:
    """Whether every use written against ``old`` still fits ``new`` (see the module docstring;
    decorators aside: one that keeps the signature changes nothing for callers)."""
    old, new = undecorated(old), undecorated(new)
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


def _head_name(sig: str) -> str:
    """The defined name of a signature text (the identifier before the parameter list, or
    after ``class``/``struct``/``interface``)."""
    head = re.sub(r"^(?:@\S+\s*)+", "", sig)
    m = _TYPE_HEAD.match(head)
    if m is not None:
        names = _NAME.findall(head[m.end() :])
        return names[0] if names else head
    cut = head.find("(")
    names = _NAME.findall(head[:cut] if cut >= 0 else head)
    return names[-1] if names else head


@dataclass(frozen=True, slots=True)
class PythonParams:
    """A Python ``def``'s parameters as a caller sees them (``self``/``cls`` dropped)."""

    positional: tuple[str, ...]  # positional-only, then positional-or-keyword, in order
    positional_only: int  # how many of ``positional`` are positional-only
    keyword_only: tuple[str, ...]
    var_positional: bool  # ``*args``
    var_keyword: bool  # ``**kwargs``
    required: frozenset[str]  # parameters without a default (variadics aside)


_DEF: Final = re.compile(r"^(?:@\S+?\s*(?=@|def\b|async\b))*(?:async\s*)?def\b")


def python_params(sig: str) -> PythonParams | None:
    """The parameters of a Python function signature as the parser records it
    (``def get(self,url:str,*,params=None,**kw)->R:``); None for anything else (a class
    head, another language)."""
    head = _DEF.match(sig)
    if head is None:
        return None
    params = _params(sig[head.end() :])  # (a decorator's parentheses are not the parameters)
    if params is None:
        return None
    bound = not re.search(r"@staticmethod\b", sig[: head.end()])
    if bound and params and _param_name(params[0]) in ("self", "cls"):
        params = params[1:]
    positional: list[str] = []
    keyword_only: list[str] = []
    required: set[str] = set()
    pos_only = 0
    star = var_pos = var_kw = False
    for p in params:
        name = _param_name(p)
        if p == "/":
            pos_only = len(positional)
        elif p == "*":
            star = True
        elif name.startswith("**"):
            var_kw = True
        elif name.startswith("*"):
            star = var_pos = True
        else:
            (keyword_only if star else positional).append(name)
            if not _optional(p):
                required.add(name)
    return PythonParams(tuple(positional), pos_only, tuple(keyword_only), var_pos, var_kw, frozenset(required))


def binds(positional: int, keywords: Sequence[str], more_positional: bool, sig: str) -> bool | None:
    """Whether a call passing ``positional`` arguments by position and ``keywords`` by name
    still fits ``sig`` — no keyword it does not take, no more positionals than it accepts
    (arguments left out are not counted: a document shows what matters); None when ``sig``
    is not a Python function's (nothing to bind against). ``more_positional``: the call
    writes ``...`` or ``*args`` among them (any count)."""
    if python_params(sig) is None:
        return None
    return not call_misfit(positional, keywords, more_positional, sig)


def parameter_names(sig: str) -> tuple[str, ...] | None:
    """The names of a signature's parameters as callers see them (``self`` aside, markers
    ``*``/``/`` kept), or None when there is no parameter list."""
    py = python_params(sig)
    if py is not None:
        return (*py.positional, *(("*",) if py.keyword_only and not py.var_positional else ()), *py.keyword_only)
    if _TYPE_HEAD.match(sig):
        return None
    params = _params(sig[sig.index(")") + 1 :] if _receiver_list(sig) else sig)
    return tuple(_param_name(p) for p in params) if params is not None else None


def call_misfit(positional: int, keywords: Sequence[str], more_positional: bool, sig: str) -> str:
    """Why such a call no longer fits ``sig`` (``no longer takes `proxies```), or ""."""
    p = python_params(sig)
    if p is None:
        return ""
    by_name = set(p.positional[p.positional_only :]) | set(p.keyword_only)
    filled = set(p.positional[:positional])
    for k in keywords:
        if k in filled:
            return f"gets `{k}` twice"
        if k not in by_name and not p.var_keyword:
            return f"no longer takes `{k}`"
    if positional > len(p.positional) and not p.var_positional and not more_positional:
        n = len(p.positional)
        return f"takes {n} positional argument{'' if n == 1 else 's'}, not {positional}"
    return ""


def _returns(sig: str) -> str:
    sig = undecorated(sig)
    if _TYPE_HEAD.match(sig) or not _DEF.match(sig):
        return ""
    params = _params(sig)
    if params is None:
        return ""
    m = re.search(r"\)->(.+?):?$", sig)
    return m.group(1) if m else ""


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _counted(word: str, names: Sequence[str]) -> str:
    return f"{word}{'s' if len(names) > 1 else ''} {_names(names)}"


def signature_words(old: str, new: str) -> str:
    """What changed from ``old`` to ``new``, in words: ``parameter `allow_redirects`
    removed, `follow_redirects` added``, ``return type `A` → `B```, ``bases changed``."""
    old_u, new_u = undecorated(old), undecorated(new)
    if _TYPE_HEAD.match(old_u) and _TYPE_HEAD.match(new_u):
        return "bases changed" if _head_name(old_u) == _head_name(new_u) else "renamed"
    phrases: list[str] = []
    a, b = parameter_names(old_u), parameter_names(new_u)
    if a is not None and b is not None:
        a = tuple(n for n in a if n not in ("*", "/"))
        b = tuple(n for n in b if n not in ("*", "/"))
        removed = [n for n in a if n not in b]
        added = [n for n in b if n not in a]
        if removed:
            phrases.append(_counted("parameter", removed) + " removed")
        if added:
            phrases.append((_names(added) if removed else _counted("parameter", added)) + " added")
        if not removed and not added and a != b:
            phrases.append("parameters reordered")
        pa, pb = python_params(old_u), python_params(new_u)
        if pa is not None and pb is not None:
            now_required = sorted((pb.required - pa.required) & set(a))
            if now_required:
                phrases.append(_counted("parameter", now_required) + " now required")
            if not phrases and pa.keyword_only != pb.keyword_only:
                phrases.append("keyword-only parameters changed")
    ra, rb = _returns(old_u), _returns(new_u)
    if ra != rb and rb and ra:
        phrases.append(f"return type `{ra}` → `{rb}`")
    elif ra != rb:
        phrases.append("return type " + (f"`{rb}` added" if rb else "removed"))
    if not phrases:
        phrases.append("decorators changed" if old_u == new_u else "annotations or defaults changed")
    return ", ".join(phrases)


def spaced(sig: str) -> str:
    """A recorded signature written as people write it: ``def f(a:int=1,*,b=2)->R:`` ->
    ``def f(a: int = 1, *, b=2) -> R:``."""
    out: list[str] = []
    depth = 0
    annotated = False
    for i, ch in enumerate(sig):
        arrow = sig[i : i + 2] == "->" or sig[i - 1 : i + 1] == "->"
        if ch in _OPEN and not arrow:
            depth += 1
        elif ch in _CLOSE and not arrow:
            depth -= 1
        if arrow and depth == 0:
            out.append(" -" if ch == "-" else "> ")
        elif ch == "," and depth >= 1:
            out.append(", " if sig[i + 1 : i + 2] not in _CLOSE else "")  # (a trailing comma dropped)
            annotated = annotated and depth > 1
        elif ch == ":" and depth == 1 and sig[i + 1 : i + 2] != "=":
            out.append(": ")
            annotated = True
        elif ch == "=" and depth == 1 and sig[i - 1 : i] not in "=!<>" and sig[i + 1 : i + 2] != "=":
            out.append(" = " if annotated else "=")
        elif ch == "|" and depth >= 1:
            out.append(" | ")
        elif ch == "d" and sig.startswith("def", i) and i and sig[i - 1] == ")" and depth == 0:
            out.append(" d")  # after a decorator's arguments
        else:
            out.append(ch)
    return "".join(out)
