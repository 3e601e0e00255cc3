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

``callers_unaffected(old, new)``: a function's change no caller can notice: compatible, and
no parameter changed its default (a changed default reaches every call that leaves the
parameter out). A PEP 695 type parameter list (``def batch[V](``) is not such a change.
"""

from __future__ import annotations

from graphmem.changes import parse_signature, signature_delta


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


def callers_unaffected(old: str, new: str) -> bool:
    """Whether no call written against function signature ``old`` can tell ``new`` apart (see
    the module docstring)."""
    a, b = parse_signature(old), parse_signature(new)
    if a is None or b is None or a.is_type or b.is_type or not compatible(old, new):
        return False
    return not signature_delta(old, new).defaults_changed
