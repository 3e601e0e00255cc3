"""Golden parse output: the full ``parse_source`` result (symbols with their fingerprints,
calls, imports, typed names, inheritance, exports) of a few sources in every language,
pinned by digest (the languages added after the first six: their many-styles files and one
fixture file each).

Speed work on the extractor must not change a single byte of it: fingerprints are stored,
and a changed fingerprint marks observations stale (or needs a scheme upgrade). A deliberate
change of the output is a fingerprint scheme change (``FINGERPRINT_SCHEME``) or an
extraction change: update the digests in the same commit, saying why.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from graphmemd.ingest.parsing import parse_source

FP_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures_fp"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "repos"

PY = b'''"""Module docstring."""
from __future__ import annotations
import os, sys as system; import typing
from .pkg import (a, b as c,)
from typing import *

__all__ = ["Store", 'helper']


def deco(f):  # a comment
    return f


@deco
class Store(Base, metaclass=Meta):
    """A store."""

    limit: int = 0X1F + 1_000 + 1E5 + 3j

    def __init__(self, path: str, conn: Connection | None = None) -> None:
        self.path = path; self.conn = conn
        self.cache = Cache(path)

    @typing.overload
    def get(self, k: int) -> int: ...
    @typing.overload
    def get(self, k: str) -> str: ...
    def get(self, k):
        return self.cache.get(k) if k else (lambda y: y + 1)(k)

    @property
    def size(self) -> int:
        def inner(x, *args, **kwargs):
            class Local:
                pass
            return [i ** 2 for i in range(x) if i % 2] or {'a': f"{x!r:>{10}} {x=}"}
        with open(self.path) as fh, lock():
            total = inner(len(fh.read()))
        try:
            pass
        except (OSError, ValueError) as exc:
            raise RuntimeError(rb'\\x41' b"\\x41" U'\\N{EM DASH}' "a" 'b') from exc
        elif_like = 1 if total else 2
        return total


def helper(a, b=(1, 2), *, c: "Store" = None) -> Store:
    if a:
        return Store(a)
    elif b:
        return os.path.join(a, b)
    else:
        for x in a: yield x
    return system.exit(await_it(a) + -b * (c or 1))
'''

GO = b"""package server

import (
\t"fmt"
\tauth "example.com/app/auth"
)

type Server struct{ base Base }

func (s *Server) Handle(req *Request) (*Response, error) {
\tresp := NewResponse(req) // build
\tfmt.Println("a\\tb", 0x1F, 1e5)
\tfor i := 0; i < 3; i++ {
\t\tgo func() { s.base.Run(i) }()
\t}
\treturn resp, auth.Check(req)
}
"""

JAVA = b"""package com.example.app;

import java.util.List;
import static java.lang.Math.*;

public class Repo extends Base implements Store, Closeable {
    private final List<String> items = new ArrayList<>();

    public Repo(String name) { super(name); }

    /** Saves. */
    public void save(String item) { items.add(item); this.log("saved " + item); }
    public void save(String item, int n) { for (int i = 0; i < n; i++) save(item); }
    int size() { return items.size() + 0x1F; }
}
"""

RUST = b"""use std::collections::{HashMap, hash_map::Entry};
use crate::store::Store as S;
mod util;

pub struct Cache { map: HashMap<String, u32> }

impl Cache {
    pub fn new() -> Self { Cache { map: HashMap::new() } }
    fn get(&self, k: &str) -> Option<u32> {
        let v = self.map.get(k).copied(); // lookup
        println!("{} {}", k, 0xFF_u8);
        v
    }
}

impl S for Cache {
    fn load(&mut self) { let s = String::from("a\\tb"); self.map.insert(s, 1_000); }
}
"""

SOURCES: dict[str, bytes] = {
    "m.py": PY,
    "server.go": GO,
    "Repo.java": JAVA,
    "cache.rs": RUST,
    "styles.js": (FP_FIXTURES / "styles.js").read_bytes(),
    "styles.ts": (FP_FIXTURES / "styles.ts").read_bytes(),
    "styles.tsx": (FP_FIXTURES / "styles.tsx").read_bytes(),
    "many_styles.c": (FP_FIXTURES / "many_styles.c").read_bytes(),
    "many_styles.cpp": (FP_FIXTURES / "many_styles.cpp").read_bytes(),
    "many_styles.rb": (FP_FIXTURES / "many_styles.rb").read_bytes(),
    "many_styles.php": (FP_FIXTURES / "many_styles.php").read_bytes(),
    "Order.cs": (FIXTURES / "csharp/src/Shop.Core/Models/Order.cs").read_bytes(),
    "Cart.kt": (FIXTURES / "kotlin/src/main/kotlin/shop/model/Cart.kt").read_bytes(),
    "Cart.scala": (FIXTURES / "scala/src/main/scala/shop/model/Cart.scala").read_bytes(),
    "Cart.swift": (FIXTURES / "swift/Sources/ShopCore/Cart.swift").read_bytes(),
}

# sha256 of repr(parse_source(path, source)), first 16 hex digits; "#1": scheme=1. Changed
# for issue 41's call shapes: every ``CallRef`` has ``shape`` (Python's calls record theirs),
# and two calls starting at one byte (``super().close()``) now come inner first; nothing else
# differs (checked on these sources and 220 stdlib files, calls compared in a fixed order).
GOLDEN = {
    "Repo.java": "38c2e4fcbe62dcf1",
    "Repo.java#1": "612011204af796e9",
    "cache.rs": "a59f26087931cf23",
    "cache.rs#1": "9d3a423e44093b6e",
    "m.py": "9acf81d24bb61928",  # scheme 3: annotations in their own half (issue 41)
    "m.py#1": "bcafc05d6add8614",
    "server.go": "b73def272685e84e",
    "server.go#1": "1520f27ad4742b4e",
    "styles.js": "fe4d4d3b35de735c",
    "styles.js#1": "3b7e57ac76a0e928",
    "styles.ts": "b09a7b3f8cace3b4",
    "styles.tsx": "77b38850e474d150",
    "many_styles.c": "dd3a6881fba7e158",
    "many_styles.cpp": "193f212ea4004c2b",
    "many_styles.rb": "1f3089e671e0f6d4",
    "many_styles.php": "61d1ae0fb0148a01",
    "Order.cs": "e6553afc1084fadb",
    "Cart.kt": "5b6ffcb71abb766d",
    "Cart.scala": "5d7ac55a2b8fd450",
    "Cart.swift": "a24e1aa0376371a6",
}


def _digest(path: str) -> str:
    name, _, scheme = path.partition("#")
    parsed = parse_source(name, SOURCES[name], scheme=int(scheme or 2))
    return hashlib.sha256(repr(parsed).encode()).hexdigest()[:16]


@pytest.mark.parametrize("path", sorted(GOLDEN))
def test_parse_output_is_unchanged(path: str) -> None:
    assert _digest(path) == GOLDEN[path]


def test_every_source_is_pinned() -> None:
    assert {p.partition("#")[0] for p in GOLDEN} == set(SOURCES)
