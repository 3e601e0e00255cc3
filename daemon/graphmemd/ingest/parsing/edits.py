"""The one edit that turns a file's previous bytes into its new bytes (pure; no tree-sitter).

tree-sitter re-parses a changed file incrementally when told what changed
(``Tree.edit``): the start of the change, where it ended in the old bytes and where it ends
in the new ones, each as a byte offset and a (row, column) point, rows counted by ``\\n``
and columns in bytes, as tree-sitter counts them. :func:`edit_between` finds that as the
bytes between the longest common prefix and the longest common suffix that do not overlap.
Any such edit is a correct description of the change (the parse then equals a fresh one);
the smallest lets tree-sitter reuse the most.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Edit", "edit_between"]

#: bytes compared per step before the first difference is narrowed down (a slice comparison:
#: C speed; a byte loop in Python over a 200 KB file would cost milliseconds)
_BLOCK = 4096


@dataclass(frozen=True, slots=True)
class Edit:
    """One change from old to new bytes: ``old[start:old_end]`` became ``new[start:new_end]``."""

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start_point: tuple[int, int]
    old_end_point: tuple[int, int]
    new_end_point: tuple[int, int]


def edit_between(old: bytes, new: bytes) -> Edit | None:
    """The edit from ``old`` to ``new`` (None: they are equal)."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    start = _common_prefix(old, new, limit)
    tail = _common_suffix(old, new, limit - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    return Edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=point(old, start),
        old_end_point=point(old, old_end),
        new_end_point=point(new, new_end),
    )


def point(data: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter's (row, column) of byte ``offset`` in ``data``: newlines before it, and
    bytes since the last of them."""
    return data.count(b"\n", 0, offset), offset - (data.rfind(b"\n", 0, offset) + 1)


def _common_prefix(a: bytes, b: bytes, limit: int) -> int:
    """The length of the longest common prefix of ``a`` and ``b``, at most ``limit``."""
    lo = 0
    while lo + _BLOCK <= limit and a[lo : lo + _BLOCK] == b[lo : lo + _BLOCK]:
        lo += _BLOCK
    hi = min(lo + _BLOCK, limit)  # a[:lo] == b[:lo]; the first difference is before hi, or none is
    while lo < hi:  # the largest n in [lo, hi] with a[lo:n] == b[lo:n]
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """The length of the longest common suffix of ``a`` and ``b``, at most ``limit``."""
    la, lb = len(a), len(b)
    n = 0
    while n + _BLOCK <= limit and a[la - n - _BLOCK : la - n] == b[lb - n - _BLOCK : lb - n]:
        n += _BLOCK
    hi = min(n + _BLOCK, limit)
    while n < hi:  # the largest m in [n, hi] with a[la-m:la-n] == b[lb-m:lb-n]
        mid = (n + hi + 1) // 2
        if a[la - mid : la - n] == b[lb - mid : lb - n]:
            n = mid
        else:
            hi = mid - 1
    return n
