"""Tests of graphmemd.ingest.walker: ignore rules (git semantics) and the repository walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import git, initial_commit
from graphmem.errors import InvalidArgument
from graphmemd.graph.model import Language, SkippedFile
from graphmemd.ingest.walker import RepoFilter, WalkedFile, walk_repo


def write(root: Path, rel: str, content: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    return path


def walked(root: Path, **kwargs: object) -> list[str]:
    return [item.path for item in walk_repo(root, **kwargs) if isinstance(item, WalkedFile)]  # type: ignore[arg-type]


def skipped(root: Path, **kwargs: object) -> dict[str, str]:
    return {
        item.path: item.reason
        for item in walk_repo(root, **kwargs)  # type: ignore[arg-type]
        if isinstance(item, SkippedFile)
    }


# --------------------------------------------------------------------------- ignore rules


def test_gitignore_basic_patterns(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "# comment\n\n*_pb2.py\nscratch/\n/top_only.py\n")
    for rel in ["a.py", "gen_pb2.py", "sub/gen_pb2.py", "scratch/x.py", "sub/scratch/y.py",
                "top_only.py", "sub/top_only.py", "lib/util.js"]:
        write(tmp_path, rel)
    assert walked(tmp_path) == ["a.py", "lib/util.js", "sub/top_only.py"]


def test_negation_and_no_reinclude_inside_ignored_dir(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.py\n!keep.py\ngen/\n!gen/keep2.py\n")
    for rel in ["drop.py", "keep.py", "sub/keep.py", "sub/drop.py", "gen/keep2.py", "app.go"]:
        write(tmp_path, rel)
    assert walked(tmp_path) == ["app.go", "keep.py", "sub/keep.py"]
    flt = RepoFilter(tmp_path)
    assert flt.is_ignored("gen/keep2.py")  # git cannot re-include below an ignored dir
    assert not flt.is_ignored("keep.py")


def test_dir_only_and_anchored_patterns(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "data/\nsrc/gen/\n")
    flt = RepoFilter(tmp_path)
    assert flt.is_ignored("data", is_dir=True)
    assert not flt.is_ignored("data", is_dir=False)  # a file named "data" stays
    assert flt.is_ignored("x/data/a.py")  # no slash inside the pattern: any level
    assert flt.is_ignored("src/gen/a.py")
    assert not flt.is_ignored("x/src/gen/a.py")  # slash inside: anchored to the root


def test_whitelist_idiom(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*\n!*/\n!*.py\n!.gitignore\n")
    for rel in ["a.py", "b.js", "sub/c.py", "sub/d.ts", "sub/deeper/e.py"]:
        write(tmp_path, rel)
    assert walked(tmp_path) == ["a.py", "sub/c.py", "sub/deeper/e.py"]


def test_nested_gitignore_applies_to_its_subtree_only(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.gen.py\n")
    write(tmp_path, "pkg/.gitignore", "local_*.py\n!keep.gen.py\n/anchored.py\n")
    for rel in ["local_a.py", "pkg/local_b.py", "pkg/deep/local_c.py", "x.gen.py", "pkg/keep.gen.py",
                "pkg/y.gen.py", "pkg/anchored.py", "pkg/deep/anchored.py", "anchored.py"]:
        write(tmp_path, rel)
    assert walked(tmp_path) == ["anchored.py", "local_a.py", "pkg/keep.gen.py", "pkg/deep/anchored.py"]


def test_graphmemignore_and_info_exclude(tmp_path: Path) -> None:
    write(tmp_path, ".git/info/exclude", "excluded.py\n")
    write(tmp_path, ".gitignore", "ignored_by_git.py\n")
    write(tmp_path, ".graphmemignore", "fixtures/\n!ignored_by_git.py\n")
    write(tmp_path, "sub/.graphmemignore", "*.js\n")
    for rel in ["excluded.py", "ignored_by_git.py", "fixtures/f.py", "a.js", "sub/b.js", "sub/c.py"]:
        write(tmp_path, rel)
    # .graphmemignore wins over .gitignore of the same directory
    assert walked(tmp_path) == ["a.js", "ignored_by_git.py", "sub/c.py"]


def test_gitignore_beats_info_exclude(tmp_path: Path) -> None:
    write(tmp_path, ".git/info/exclude", "*.py\n")
    write(tmp_path, ".gitignore", "!wanted.py\n")
    write(tmp_path, "wanted.py")
    write(tmp_path, "other.py")
    assert walked(tmp_path) == ["wanted.py"]


def test_builtin_dirs(tmp_path: Path) -> None:
    for rel in ["node_modules/m/index.js", "sub/vendor/v.go", "pkg.egg-info/x.py", "__pycache__/c.py",
                ".venv/lib/site.py", "build/b.py", "target/t.rs", ".git/hooks/h.py", "build.py",
                "src/out.py", "src/main.rs"]:
        write(tmp_path, rel)
    assert walked(tmp_path) == ["build.py", "src/main.rs", "src/out.py"]
    flt = RepoFilter(tmp_path)
    assert flt.is_ignored("node_modules", is_dir=True)
    assert flt.is_ignored("a/b/node_modules/c/d.js")
    assert not flt.is_ignored("node_modules")  # a *file* named node_modules


def test_builtin_dir_reincluded_but_never_vcs(tmp_path: Path) -> None:
    write(tmp_path, ".graphmemignore", "!build/\n!.git/\n")
    write(tmp_path, "build/b.py")
    write(tmp_path, ".git/x.py")
    assert walked(tmp_path) == ["build/b.py"]


def test_filter_cache_invalidation(tmp_path: Path) -> None:
    write(tmp_path, "sub/a.py")
    flt = RepoFilter(tmp_path)
    assert not flt.is_ignored("sub/a.py")
    write(tmp_path, "sub/.gitignore", "a.py\n")
    assert not flt.is_ignored("sub/a.py")  # cached until told
    assert not flt.maybe_invalidate("sub/a.py")
    assert flt.maybe_invalidate("sub/.gitignore")
    assert flt.is_ignored("sub/a.py")
    write(tmp_path, ".gitignore", "sub/\n")
    flt.invalidate("")
    assert flt.is_ignored("sub", is_dir=True)
    (tmp_path / ".gitignore").unlink()
    (tmp_path / "sub/.gitignore").unlink()
    flt.reload()
    assert not flt.is_ignored("sub/a.py")
    write(tmp_path, ".git/info/exclude", "sub/\n")
    assert flt.maybe_invalidate(".git/info/exclude")
    assert flt.is_ignored("sub/a.py")


def test_filter_odd_paths(tmp_path: Path) -> None:
    flt = RepoFilter(tmp_path)
    assert not flt.is_ignored("")
    assert not flt.is_ignored("./a/./b.py")
    assert flt.is_ignored("../outside.py")
    # deeper than the recursion limit: verdicts are computed iteratively
    deep = "/".join(["d"] * 3000) + "/x.py"
    assert not flt.is_ignored(deep)
    assert flt.is_ignored("/".join(["d"] * 3000) + "/node_modules/x.js")


def test_invalid_pattern_is_ignored_not_fatal(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "!\n[\n***/x\nskip.py\n")
    write(tmp_path, "skip.py")
    write(tmp_path, "keep.py")
    assert walked(tmp_path) == ["keep.py"]


# --------------------------------------------------------------------------- walking


def test_walk_yields_known_languages_in_sorted_order(tmp_path: Path) -> None:
    for rel in ["b.py", "a.ts", "z/inner.go", "m/x.rs", "m/A.java", "readme.md", "Makefile", "c.tsx"]:
        write(tmp_path, rel)
    items = list(walk_repo(tmp_path))
    files = [item for item in items if isinstance(item, WalkedFile)]
    assert [f.path for f in files] == ["a.ts", "b.py", "c.tsx", "m/A.java", "m/x.rs", "z/inner.go"]
    assert files[0].language is Language.TYPESCRIPT
    assert files[0].abs_path == tmp_path / "a.ts"
    assert files[0].size == len("x = 1\n")
    assert not [item for item in items if isinstance(item, SkippedFile)]
    assert list(walk_repo(tmp_path)) == items  # deterministic


def test_size_limit(tmp_path: Path) -> None:
    write(tmp_path, "big.py", "x" * 5000)
    write(tmp_path, "small.py", "x" * 10)
    assert walked(tmp_path, max_file_size=1000) == ["small.py"]
    reasons = skipped(tmp_path, max_file_size=1000)
    assert list(reasons) == ["big.py"]
    assert "5000" in reasons["big.py"]
    assert "1000" in reasons["big.py"]


def test_twenty_megabyte_file_skipped_by_default(tmp_path: Path) -> None:
    line = "value_{0} = compute({0}, 'some text')\n"
    with open(tmp_path / "huge.py", "w") as fh:
        i = 0
        while fh.tell() < 20 * 1024 * 1024:
            fh.write(line.format(i))
            i += 1
    write(tmp_path, "ok.py")
    assert walked(tmp_path) == ["ok.py"]
    assert "limit" in skipped(tmp_path)["huge.py"]


def test_non_utf8_file_name_is_skipped(tmp_path: Path) -> None:
    bad_file = os.fsdecode(b"caf\xe9.py")
    bad_dir = os.fsdecode(b"d\xff")
    write(tmp_path, bad_file)
    write(tmp_path, bad_dir + "/inner.py")
    write(tmp_path, os.fsdecode(b"notes\xe9.txt"))  # unknown language: silently left out
    write(tmp_path, "good.py")
    assert walked(tmp_path) == ["good.py"]
    reasons = skipped(tmp_path)
    assert reasons == {"caf\\xe9.py": "name is not valid UTF-8", "d\\xff": "name is not valid UTF-8"}


def test_non_utf8_file_content_is_walked(tmp_path: Path) -> None:
    write(tmp_path, "latin.py", "name = 'caf\xe9'\n".encode("latin-1"))
    assert walked(tmp_path) == ["latin.py"]


def test_symlink_loop_terminates(tmp_path: Path) -> None:
    write(tmp_path, "pkg/a.py")
    os.symlink("..", tmp_path / "pkg" / "loop")
    os.symlink(".", tmp_path / "self")
    items = list(walk_repo(tmp_path))
    assert [i.path for i in items if isinstance(i, WalkedFile)] == ["pkg/a.py"]
    reasons = {i.path: i.reason for i in items if isinstance(i, SkippedFile)}
    assert set(reasons) == {"pkg/loop", "self"}
    assert all("loop" in reason for reason in reasons.values())


def test_symlinks_files_and_escapes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    outside = tmp_path / "outside"
    write(outside, "secret.py")
    write(repo, "real/a.py")
    write(repo, "node_modules/lib/dep.js")
    os.symlink("real/a.py", repo / "alias.py")  # file link inside the root: followed
    os.symlink(outside / "secret.py", repo / "escape.py")
    os.symlink(outside, repo / "escape_dir")
    os.symlink("missing.py", repo / "broken.py")
    os.symlink("real", repo / "samedir")  # same directory again: skipped, no duplicates
    os.symlink("node_modules/lib", repo / "lib")  # target is ignored: walked via the link
    items = list(walk_repo(repo))
    assert [i.path for i in items if isinstance(i, WalkedFile)] == ["alias.py", "real/a.py", "lib/dep.js"]
    reasons = {i.path: i.reason for i in items if isinstance(i, SkippedFile)}
    assert reasons["escape.py"] == "symlink points outside the repository"
    assert reasons["escape_dir"] == "symlink points outside the repository"
    assert reasons["broken.py"] == "broken symlink"
    assert "loop" in reasons["samedir"]


def test_deeply_nested_directories(tmp_path: Path) -> None:
    rel = "/".join(["d"] * 300)
    write(tmp_path, rel + "/deep.py")
    assert walked(tmp_path) == [rel + "/deep.py"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read everything")
def test_unreadable_file_and_dir(tmp_path: Path) -> None:
    f = write(tmp_path, "secret.py")
    d = write(tmp_path, "locked/inner.py").parent
    f.chmod(0)
    d.chmod(0)
    try:
        reasons = skipped(tmp_path)
    finally:
        d.chmod(0o755)
        f.chmod(0o644)
    assert reasons["secret.py"] == "permission denied"
    assert reasons["locked"].startswith("cannot read directory")


def test_fifo_with_known_extension(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    assert skipped(tmp_path) == {"pipe.py": "not a regular file"}


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    f = write(tmp_path, "a.py")
    with pytest.raises(InvalidArgument):
        list(walk_repo(f))
    with pytest.raises(InvalidArgument):
        list(walk_repo(tmp_path / "missing"))
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(InvalidArgument):
        list(walk_repo(tmp_path, filter=RepoFilter(other)))


def test_walk_accepts_shared_filter(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "b.py\n")
    write(tmp_path, "a.py")
    write(tmp_path, "b.py")
    flt = RepoFilter(tmp_path)
    assert walked(tmp_path, filter=flt) == ["a.py"]
    assert flt.is_ignored("b.py")


def test_walk_subtree_with_repo_rules(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.gen.py\nignored/\n")
    for rel in ["top.py", "new/a.py", "new/b.gen.py", "new/deep/c.py", "new/node_modules/d.js",
                "ignored/e.py"]:
        write(tmp_path, rel)
    os.symlink("../..", tmp_path / "new" / "deep" / "up")
    items = list(walk_repo(tmp_path, under="new"))
    assert [i.path for i in items if isinstance(i, WalkedFile)] == ["new/a.py", "new/deep/c.py"]
    assert [i.path for i in items if isinstance(i, SkippedFile)] == ["new/deep/up"]
    assert list(walk_repo(tmp_path, under="ignored")) == []
    assert list(walk_repo(tmp_path, under="missing")) == []
    assert list(walk_repo(tmp_path, under="top.py")) == []
    with pytest.raises(InvalidArgument):
        list(walk_repo(tmp_path, under="../x"))


def test_invalid_root_raises_at_call(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument):
        walk_repo(tmp_path / "missing")  # no iteration needed


def test_a_worktree_inside_the_tree_is_left_to_its_own_checkout(tmp_path: Path) -> None:
    """Claude Code puts its worktrees in ``.claude/worktrees/`` inside the repository: the main
    checkout's walk leaves them out (another working tree of the same repository, like git's
    own status), and walks each of them from its own root. Another repository nested in the
    tree (a clone beside the code) is walked as before."""
    root = tmp_path / "repo"
    write(root, "app/main.py")
    initial_commit(root)
    git(root, "worktree", "add", "-q", "-b", "agent", str(root / ".claude/worktrees/agent"))
    write(root, ".claude/worktrees/agent/app/new.py")  # (an agent's edit there)
    initial_commit(write(root, "third/lib/lib.py").parent)  # a clone of something else
    assert walked(root) == ["app/main.py", "third/lib/lib.py"]
    flt = RepoFilter(root)
    assert flt.is_ignored(".claude/worktrees/agent/app/new.py")
    assert not flt.is_ignored(".claude/worktrees")
    assert walked(root / ".claude/worktrees/agent") == ["app/main.py", "app/new.py"]
    # the main working tree inside a linked one: the same repository, left out as well
    outer = tmp_path / "outer"
    git(root, "worktree", "add", "-q", "-b", "outer", str(outer))
    os.rename(root, outer / "main")
    git(outer / "main", "worktree", "repair")
    assert walked(outer) == ["app/main.py"]
