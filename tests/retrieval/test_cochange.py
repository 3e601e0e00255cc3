"""Co-change pure core (no git): parsing ``git log -p -U0`` output, weights, renames,
incremental extension, persistence form; plus the shell against a real git history."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from graphmem.types import IndexState
from graphmemd.retrieval.cochange import MAX_COMMIT_FILES, CoChange, CommitChange, commit_weight, def_name, parse_log
from graphmemd.retrieval.cochange_git import CoChangeFiles, CoChangeKeeper, CoChangeMiner
from graphmemd.retrieval.cosignal import FILE_SHARE, MIN_HISTORY, cochange_signals, node_signal

LOG = """\
\x00c3 300

diff --git a/pkg/app.py b/pkg/app.py
index 1..2 100644
--- a/pkg/app.py
+++ b/pkg/app.py
@@ -10,2 +10,3 @@ class App:
-        x = 1
+        x = 2
@@ -40,0 +41,4 @@ def run(self):
+    def close(self):
+        pass
diff --git a/pkg/db.py b/pkg/db.py
--- a/pkg/db.py
+++ b/pkg/db.py
@@ -5 +5 @@ def connect(url):
-    return open(url)
+    return open(url, "rb")
\x00c2 200

diff --git a/old/util.py b/pkg/util.py
similarity index 90%
rename from old/util.py
rename to pkg/util.py
--- a/old/util.py
+++ b/pkg/util.py
@@ -1 +1 @@ def helper():
-    pass
+    return 1
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-old
+new
\x00c1 100

diff --git a/old/util.py b/old/util.py
--- a/old/util.py
+++ b/old/util.py
@@ -3 +3 @@ def helper():
-    a
+    b
diff --git a/pkg/app.py b/pkg/app.py
--- a/pkg/app.py
+++ b/pkg/app.py
@@ -12 +12 @@ def run(self):
---- a comment line that starts with dashes
+--- still content, not a header
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def vanished():
-    pass
"""


def test_parse_log_files_symbols_and_renames() -> None:
    commits = parse_log(LOG.splitlines())
    assert [c.sha for c in commits] == ["c3", "c2", "c1"]
    c3, c2, c1 = commits
    assert c3.time == 300
    assert c3.files == ("pkg/app.py", "pkg/db.py")
    # header context App (first hunk), close (a definition line: the run header is ignored), connect
    assert c3.symbols == ("pkg/app.py::App", "pkg/app.py::close", "pkg/db.py::connect")
    assert c2.renames == (("old/util.py", "pkg/util.py"),)
    assert c2.files == ("pkg/util.py", "README.md")
    assert c2.symbols == ("pkg/util.py::helper",)
    # a removed line starting with "---" inside a hunk is content, not a file header
    assert c1.files == ("old/util.py", "pkg/app.py", "gone.py")
    assert "pkg/app.py::run" in c1.symbols
    assert "gone.py::vanished" in c1.symbols


def test_a_commit_too_large_to_count_keeps_its_files_and_renames_but_names_no_symbols() -> None:
    blocks = [
        f"diff --git a/m{i}.py b/m{i}.py\n--- a/m{i}.py\n+++ b/m{i}.py\n@@ -1 +1 @@ def f{i}():\n-    x\n+def g{i}():\n"
        for i in range(MAX_COMMIT_FILES + 5)
    ]
    rename = "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n"
    small = "diff --git a/s.py b/s.py\n--- a/s.py\n+++ b/s.py\n@@ -1 +1 @@ def run():\n+def helper():\n"
    log = "\x00big 20\n" + "".join(blocks) + rename + "\x00small 10\n" + small
    big, little = parse_log(log.splitlines())
    assert len(big.files) == MAX_COMMIT_FILES + 6
    assert big.renames == (("old.py", "new.py"),)
    # the first MAX_COMMIT_FILES files' symbols may be read; none past the limit
    assert not any(sym.startswith(f"m{MAX_COMMIT_FILES + 1}.py") for sym in big.symbols)
    assert little.symbols == ("s.py::helper",)  # (a definition first: the header is the one before)


def test_def_name_per_language() -> None:
    assert def_name("    def push(self, x):") == "push"
    assert def_name("class AppContext(Base):") == "AppContext"
    assert def_name("func (s *Server) Handle(w http.ResponseWriter) {") == "Handle"
    assert def_name("pub fn new(x: i32) -> Self {") == "new"
    assert def_name("export async function load(url) {") == "load"
    assert def_name("x = compute(1)") is None
    assert def_name("public void save(Item item) {", header=True) == "save"


def test_renames_make_older_paths_current_and_counts() -> None:
    co = CoChange.build("c3", parse_log(LOG.splitlines()))
    # c1's old/util.py is pkg/util.py as of the mined head
    assert co.commits[2].files[0] == "pkg/util.py"
    assert co.touches("pkg/util.py") == 2
    assert co.touches("pkg/util.py::helper") == 2
    partners = {p.key: p for p in co.partners("pkg/util.py")}
    assert set(partners) == {"README.md", "pkg/app.py", "gone.py"}
    app = partners["pkg/app.py"]
    assert (app.together, app.total) == (1, 2)
    # strength = shared weight / (own weight + smoothing)
    own = commit_weight(2) + commit_weight(3)
    assert app.strength == pytest.approx(commit_weight(3) / (own + 1.0))
    sym = {p.key for p in co.partners("pkg/util.py::helper")}
    assert sym == {"pkg/app.py::run", "gone.py::vanished"}
    # a file's symbol partners: what a file query ranks
    assert "pkg/app.py::run" in {p.key for p in co.partners("pkg/util.py", symbols=True)}
    assert co.strength("pkg/util.py", "pkg/app.py") == app


def test_large_commits_are_skipped_but_their_renames_apply() -> None:
    big = CommitChange("big", 50, tuple(f"new/f{i}.py" for i in range(MAX_COMMIT_FILES + 1)),
                       renames=tuple((f"old/f{i}.py", f"new/f{i}.py") for i in range(MAX_COMMIT_FILES + 1)))
    old = CommitChange("old", 10, ("old/f1.py", "old/f2.py"))
    co = CoChange.build("big", [big, old])
    assert [c.sha for c in co.commits] == ["old"]
    assert co.commits[0].files == ("new/f1.py", "new/f2.py")
    assert commit_weight(2) > commit_weight(30)


def test_extend_prepends_applies_new_renames_and_keeps_the_window() -> None:
    base = CoChange.build("b", [CommitChange("b", 2, ("a.py", "b.py")), CommitChange("a", 1, ("a.py", "c.py"))],
                          window=3)
    newer = [CommitChange("d", 4, ("z.py", "b.py"), renames=(("a.py", "z.py"),)),
             CommitChange("c", 3, ("a.py", "b.py"))]
    co = base.extend("d", newer)
    assert co.head == "d"
    assert [c.sha for c in co.commits] == ["d", "c", "b"]  # window 3: the oldest fell out
    assert co.commits[1].files == ("z.py", "b.py")
    assert co.commits[2].files == ("z.py", "b.py")
    assert co.partners("z.py")[0].key == "b.py"
    assert co.partners("z.py")[0].together == 3
    back = CoChange.from_json(co.to_json())
    assert back is not None
    assert back.commits == [CommitChange(c.sha, c.time, c.files, c.symbols) for c in co.commits]
    assert CoChange.from_json({"version": 99}) is None


def test_signals_map_partners_onto_graph_nodes() -> None:
    co = CoChange.build("h", [CommitChange("h", 1, ("a.py", "b.py"), ("a.py::f", "b.py::g")),
                              CommitChange("g", 0, ("a.py", "b.py"), ("a.py::f",))])
    files = {"a.py": "r:a.py", "b.py": "r:b.py"}
    syms = {("b.py", "g"): ["r:b.py::g#function"], ("b.py", "h"): ["r:b.py::h#function"]}
    sig, partners = cochange_signals(co, ["a.py"], [], files.get, lambda p, n: syms.get((p, n), []))
    assert partners == ["r:b.py"]
    assert sig["r:b.py"].together == 2
    assert sig["r:b.py::g#function"].together == 1
    file_of = {"r:b.py::g#function": "r:b.py", "r:b.py::h#function": "r:b.py"}.get
    inherited = node_signal(sig, "r:b.py::h#function", file_of)
    assert inherited is not None
    assert inherited.strength == pytest.approx(sig["r:b.py"].strength * FILE_SHARE)
    assert sig["r:b.py"].why("b.py") == (
        "b.py changed together with a.py in 2 of the 2 commits that touched it (too little history to be sure)"
    )
    assert not sig["r:b.py"].explains  # two commits are not history enough to give it as a reason
    assert replace(sig["r:b.py"], total=MIN_HISTORY).explains
    assert "in 2 of the last 3 commits that touched it" in replace(sig["r:b.py"], total=MIN_HISTORY).why("b.py")
    # with the symbol's share of its file's changes (the chain rule) instead of the flat share
    share = {"r:b.py::h#function": 0.25}
    chained = node_signal(sig, "r:b.py::h#function", file_of, lambda n: share.get(n, 0.0))
    assert chained is not None
    assert chained.strength == pytest.approx(sig["r:b.py"].strength * 0.25)
    assert (chained.together, chained.seed) == (2, "a.py")
    # a symbol's own co-change wins when it is stronger than its file's share
    own = node_signal(sig, "r:b.py::g#function", file_of, lambda n: 0.0)
    assert own == sig["r:b.py::g#function"]


def test_symbol_share_is_how_often_a_symbol_changes_when_its_file_does() -> None:
    co = CoChange.build("h", [CommitChange("c3", 3, ("a.py",), ("a.py::f",)),
                              CommitChange("c2", 2, ("a.py",), ("a.py::f", "a.py::g")),
                              CommitChange("c1", 1, ("a.py", "b.py"), ("a.py::f",))])
    assert co.symbol_share("a.py::f") == pytest.approx(3 / (3 + 1))  # smoothed: 3 of 3 commits
    assert co.symbol_share("a.py::g") == pytest.approx(1 / (3 + 1))
    assert co.symbol_share("a.py::never") == 0.0
    assert co.symbol_share("b.py::f") == 0.0


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args],
                   cwd=root, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_miner_and_keeper_on_a_real_history(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q")
    (root / "a.py").write_text("def f():\n    return 1\n")
    (root / "b.py").write_text("def g():\n    return 1\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    for i in range(2, 4):
        (root / "a.py").write_text(f"def f():\n    return {i}\n")
        (root / "b.py").write_text(f"def g():\n    return {i}\n")
        _git(root, "commit", "-qam", f"change {i}")
    keeper = CoChangeKeeper(tmp_path / "data")
    co = keeper.refresh("r", root)
    assert co is not None
    assert len(co) == 3
    assert {p.key: p.together for p in co.partners("a.py::f")} == {"b.py::g": 3}
    assert keeper.get("r") is co
    saved = CoChangeFiles(tmp_path / "data" / "cochange").load("r")
    assert saved is not None
    assert saved.head == co.head
    # a restart reloads the saved file: nothing is mined while HEAD has not moved
    reloaded = CoChangeKeeper(tmp_path / "data")

    def no_git(*_a: object) -> None:
        raise AssertionError("mined again instead of reloading")

    reloaded.miner.mine = no_git  # type: ignore[method-assign,assignment]
    reloaded.miner.extend = no_git  # type: ignore[method-assign,assignment]
    again0 = reloaded.refresh("r", root)
    assert again0 is not None
    assert again0.commits == co.commits
    # HEAD moves: only the new commit is read (extend), and it is persisted
    (root / "a.py").write_text("def f():\n    return 9\n")
    (root / "c.py").write_text("def h():\n    pass\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "four")
    again = CoChangeKeeper(tmp_path / "data").refresh("r", root)
    assert again is not None
    assert len(again) == 4
    assert again.partners("a.py")[0].key == "b.py"
    assert again.strength("c.py", "a.py") is not None
    # a tree without git has no co-change
    plain = tmp_path / "plain"
    plain.mkdir()
    assert CoChangeKeeper(tmp_path / "data").refresh("p", plain) is None
    assert CoChangeMiner().mine(plain, "") is None


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_folder_of_a_repository_is_mined_from_its_own_commits_by_its_own_paths(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    folder = outer / "sub"
    folder.mkdir(parents=True)
    _git(outer, "init", "-q")
    for i in range(1, 4):
        (folder / "a.py").write_text(f"def f():\n    return {i}\n")
        (folder / "b.py").write_text(f"def g():\n    return {i}\n")
        (outer / "beside.py").write_text(f"def h():\n    return {i}\n")
        _git(outer, "add", "-A")
        _git(outer, "commit", "-qm", f"change {i}")
    for i in range(3):  # commits beside the folder only: not the folder's history
        (outer / "beside.py").write_text(f"def h():\n    return {i + 10}\n")
        _git(outer, "commit", "-qam", f"beside {i}")
    co = CoChangeKeeper(tmp_path / "data").refresh("sub", folder)
    assert co is not None
    assert len(co) == 3
    assert {p.key: p.together for p in co.partners("a.py::f")} == {"b.py::g": 3}
    assert co.strength("a.py", "beside.py") is None


@dataclass
class Repo:
    """What ``CoChangeKeeper.step`` reads of a registered repository."""

    id: str
    root: Path
    state: IndexState
    unwritten: int = 0


def _one_commit_repo(root: Path) -> Path:
    root.mkdir()
    _git(root, "init", "-q")
    (root / "a.py").write_text("def f():\n    return 1\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "one")
    return root


def test_a_round_mines_only_repositories_ready_with_their_writes_durable(tmp_path: Path) -> None:
    """Mining waits for the index pass and for its store write (``unwritten``): it never
    competes with either for the cores."""
    root = _one_commit_repo(tmp_path / "repo")
    keeper = CoChangeKeeper(tmp_path / "data", interval=0, idle_interval=0)
    repo = Repo("r", root, IndexState.INDEXING)
    assert keeper.step(lambda: [repo])
    assert keeper.get("r") is None
    repo.state, repo.unwritten = IndexState.READY, 1  # queryable, its bulk write still queued
    assert keeper.step(lambda: [repo])
    assert keeper.get("r") is None
    repo.unwritten = 0  # durable
    assert keeper.step(lambda: [repo])
    assert keeper.get("r") is not None


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_new_worktree_starts_from_its_siblings_co_change(tmp_path: Path) -> None:
    """A worktree at the commit a sibling was mined at takes that co-change without running
    git (``git log -p`` of a large history is seconds of CPU beside its derivation); one on a
    branch ahead of it reads only the commits between."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for i in range(1, 4):
        (root / "a.py").write_text(f"def f():\n    return {i}\n")
        (root / "b.py").write_text(f"def g():\n    return {i}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"change {i}")
    keeper = CoChangeKeeper(tmp_path / "data")
    first = keeper.refresh("main", root)
    assert first is not None
    assert len(first) == 3
    same, ahead = tmp_path / "same", tmp_path / "ahead"
    _git(root, "worktree", "add", "-q", "-b", "same", str(same), "main")
    _git(root, "worktree", "add", "-q", "-b", "ahead", str(ahead), "main")
    (ahead / "a.py").write_text("def f():\n    return 9\n")
    (ahead / "c.py").write_text("def h():\n    return 9\n")
    _git(ahead, "add", "-A")
    _git(ahead, "commit", "-qm", "ahead")

    def no_git(*_a: object) -> None:
        raise AssertionError("mined whole instead of starting from a sibling's co-change")

    keeper.miner.mine = no_git  # type: ignore[method-assign,assignment]
    real_extend = keeper.miner.extend
    keeper.miner.extend = no_git  # type: ignore[method-assign,assignment]
    twin = keeper.refresh("same", same)
    assert twin is first
    assert CoChangeFiles(tmp_path / "data" / "cochange").load("same") is not None  # a restart reads it back
    keeper.miner.extend = real_extend  # type: ignore[method-assign]
    extended = keeper.refresh("ahead", ahead)
    assert extended is not None
    assert len(extended) == 4
    assert extended.strength("c.py", "a.py") is not None
    assert keeper.get("main") is first  # the sibling's own is unchanged


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_folder_does_not_start_from_the_whole_trees_co_change(tmp_path: Path) -> None:
    """A checkout registered as a folder is mined from that folder's commits: another
    checkout's co-change of the whole tree at the same commit is not taken."""
    outer = tmp_path / "outer"
    folder = outer / "sub"
    folder.mkdir(parents=True)
    _git(outer, "init", "-q")
    for i in range(1, 3):
        (folder / "a.py").write_text(f"def f():\n    return {i}\n")
        (outer / "beside.py").write_text(f"def h():\n    return {i}\n")
        _git(outer, "add", "-A")
        _git(outer, "commit", "-qm", f"change {i}")
    keeper = CoChangeKeeper(tmp_path / "data")
    whole = keeper.refresh("whole", outer)
    sub = keeper.refresh("sub", folder)
    assert whole is not None
    assert sub is not None
    assert sub is not whole
    assert sub.touches("beside.py") == 0
    assert whole.touches("beside.py") == 2


def test_no_round_mines_while_an_index_pass_runs(tmp_path: Path) -> None:
    """While any repository's pass runs (a new worktree being derived), no mining starts:
    ``git log -p`` would take the cores the pass needs."""
    root = _one_commit_repo(tmp_path / "repo")
    keeper = CoChangeKeeper(tmp_path / "data", interval=0, idle_interval=0)
    ready, other = Repo("r", root, IndexState.READY), Repo("w", tmp_path / "w", IndexState.INDEXING)
    assert keeper.step(lambda: [ready, other])
    assert keeper.get("r") is None
    other.state = IndexState.WARMING
    assert keeper.step(lambda: [ready, other])
    assert keeper.get("r") is None
    other.state = IndexState.READY
    assert keeper.step(lambda: [ready])
    assert keeper.get("r") is not None


def test_with_every_head_mined_a_round_waits_the_idle_pause_unless_woken(tmp_path: Path) -> None:
    """An idle daemon reads no HEAD every 2 s: once every repository is mined up to its HEAD,
    the next round comes ``idle_interval`` later, or as soon as the git directories' watch
    wakes it (a commit) — and then it takes the new commit."""
    import threading
    import time

    root = _one_commit_repo(tmp_path / "repo")
    keeper = CoChangeKeeper(tmp_path / "data", interval=0.01, idle_interval=600)
    repo = Repo("r", root, IndexState.READY)
    rounds: list[float] = []

    def loop() -> None:
        while keeper.step(lambda: [repo]):
            rounds.append(time.monotonic())

    t = threading.Thread(target=loop, daemon=True)
    t.start()
    try:
        deadline = time.monotonic() + 5
        while keeper.get("r") is None and time.monotonic() < deadline:
            time.sleep(0.02)
        first = keeper.get("r")
        assert first is not None
        time.sleep(0.5)
        assert len(rounds) <= 1, f"{len(rounds)} rounds in 0.5 s with nothing to do"
        (root / "a.py").write_text("def f():\n    return 2\n")
        _git(root, "commit", "-qam", "two")
        keeper.wake()
        deadline = time.monotonic() + 5
        while (got := keeper.get("r")) is first and time.monotonic() < deadline:
            time.sleep(0.02)
        assert got is not None
        assert got is not first
        assert len(got) == 2
    finally:
        keeper.stop()
        t.join(5)
    assert not t.is_alive()
