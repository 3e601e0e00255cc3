"""glibc allocator tuning: applied on Linux/glibc, a no-op elsewhere (never an error)."""

from __future__ import annotations

import platform
import sys

import pytest
from graphmemd import malloc


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_arena_cap_and_trim_apply_on_glibc() -> None:
    assert malloc.limit_arenas(2)
    malloc.trim()
