"""glibc allocator tuning: applied on Linux/glibc, a no-op elsewhere (never an error)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest
from graphmemd.runtime import malloc


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_arena_cap_and_trim_apply_on_glibc() -> None:
    assert malloc.limit_arenas(2)
    malloc.trim()


def _pool_after_setup(env: dict[str, str]) -> str:
    code = (
        "from graphmemd.runtime import malloc; malloc.arrow_uses_malloc(); import pyarrow as pa;"
        " print(pa.default_memory_pool().backend_name)"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=60)
    return out.stdout.strip()


def test_arrow_tables_use_the_system_allocator_unless_the_user_chose_a_pool() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    assert _pool_after_setup(env) == "system"
    assert _pool_after_setup({**env, "ARROW_DEFAULT_MEMORY_POOL": "jemalloc"}) == "jemalloc"
