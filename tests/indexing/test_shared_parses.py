"""One parse per content (``indexing/shared_parses.py``): a checkout's file is taken from a
sibling checkout's parse cache when that sibling's graph holds the same content at that path,
and only then is that cache read; a file the caller hashed already is not read again. Real
git worktrees, a real registry and real parse caches on disk."""

from __future__ import annotations

from pathlib import Path

from conftest import short_tmp
from gitrepo import git, initial_commit
from graphmemd.indexing.shared_parses import SharedParses
from graphmemd.ingest.parse_pack import CachedHead, CachedParse, ParsePack
from graphmemd.ingest.parse_pool import content_hash
from graphmemd.ingest.parsecache import PARSER_VERSION, encode
from graphmemd.ingest.parsing.parser import parse_source
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime

OLD = b"def f():\n    return 1\n"
NEW = b"def f():\n    return 2\n"


class CountedPack(ParsePack):
    """A real parse pack that counts the records read from it."""

    reads = 0

    def text(self, repo_id: str, head: CachedHead) -> str | None:
        CountedPack.reads += 1
        return super().text(repo_id, head)


def checkouts(tmp: Path) -> tuple[RepoRegistry, RepoRuntime, RepoRuntime]:
    """A repository with ``a.py`` (OLD) and a worktree of it, both registered; the first has
    indexed its file (its parse is in its cache)."""
    root = tmp / "r"
    root.mkdir()
    (root / "a.py").write_bytes(OLD)
    initial_commit(root, "a")
    git(root, "worktree", "add", "-q", "-b", "wt", str(tmp / "wt"))
    registry = RepoRegistry(tmp / "repos.json")
    first, _ = registry.register(root)
    second, _ = registry.register(tmp / "wt")
    first.n_files = 1
    return registry, first, second


def test_a_content_a_sibling_holds_is_taken_from_its_cache_and_no_other_is_looked_up() -> None:
    tmp = short_tmp("gms").resolve()
    registry, first, second = checkouts(tmp)
    pack = CountedPack(tmp / "parses")
    digest = content_hash(OLD)
    pack.put_rows(
        first.id, [CachedParse("a.py", len(OLD), 0, digest, PARSER_VERSION, encode(parse_source("a.py", OLD)))]
    )
    held = {(first.id, "a.py", digest)}
    shared = SharedParses(registry, pack, 1 << 20, holds=lambda rid, path, h: (rid, path, h) in held)
    mine = [("a.py", second.root / "a.py")]

    found, rest = shared.split(second, mine)
    assert [(o.path, o.content_hash, [s.name for s in o.parsed.symbols]) for o in found if o.parsed] == [
        ("a.py", digest, ["f"])
    ]
    assert rest == []
    assert CountedPack.reads == 1

    # edited in the worktree: content no sibling holds: parsed, and the sibling's cache not read
    (second.root / "a.py").write_bytes(NEW)
    CountedPack.reads = 0
    assert shared.split(second, mine) == ([], mine)
    assert CountedPack.reads == 0

    # a file the caller read and hashed already is not read again: its (hash, size) stands
    (second.root / "a.py").unlink()
    found, rest = shared.split(second, mine, {"a.py": (digest, len(OLD))})
    assert [o.path for o in found] == ["a.py"]
    assert rest == []
