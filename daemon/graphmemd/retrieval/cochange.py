"""Git co-change: which files and symbols change together (pure core: text in, counts out).

Input is the output of ``git log --first-parent --diff-merges=first-parent -M -p -U0
--format=%x00%H %ct`` (``cochange_git.py`` runs it); output is a ``CoChange``: the window of
recent commits, each as the set of files and symbols it touched, with paths made canonical
*as of the mined HEAD* (a rename ``a.py -> b.py`` makes every older commit's ``a.py`` count as
``b.py``), and the queries retrieval needs (partners of a file or symbol, with a strength, and
the counts behind a "changed together in 14 of the last 20 commits that touched it" reason).

Symbols, approximated (documented): mapping each hunk's line range onto the symbol ranges of the
file *at that commit* would mean parsing every file version in the window. Instead each hunk
is attributed by its function-context header (``@@ -a,b +c,d @@ def push(self):``: git's
per-language ``xfuncname`` patterns, enabled through a private attributes file) plus every
definition line the hunk itself adds or removes (``+    def close(self):``). When a hunk's first
changed line is itself a definition, its header (the *previous* definition) is ignored. A symbol
key is ``path::name`` (the bare name, not the qualname: the header does not say the class);
retrieval maps it onto every symbol of that name in that file. Misses: a change in a class body
outside any method counts for the preceding method, and a change past a nested function counts
for the nested function.

Weights: commits touching more than ``MAX_COMMIT_FILES`` files (formatter runs, vendoring,
mass renames) are skipped (their files and renames are read, their patch lines are not: an
initial import is every line of the tree); the rest weigh ``1 / log2(1 + files)`` so that a two-file commit
says more about its pair than a thirty-file one. Strength of partner ``p`` for ``x`` is
``sum(w of commits with x and p) / (sum(w of commits with x) + SMOOTHING)``: in [0, 1), low
when ``x`` changed only once or twice.
"""

from __future__ import annotations

import codecs
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Commits kept (the most recent, first-parent). 3,000 covers years of a busy project; mining
#: it takes about a second on click's history.
DEFAULT_WINDOW = 3_000
#: A commit touching more files than this is skipped (formatter runs, license headers, moves).
MAX_COMMIT_FILES = 50
#: Added to a node's total commit weight: one or two shared commits are weak evidence.
SMOOTHING = 1.0
#: Partners kept per queried node (the strongest).
MAX_PARTNERS = 400

_DEF_RX = re.compile(
    r"\b(?:def|class|func|fn|function|interface|struct|trait|enum|type|record)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)"
)
_CALLISH_RX = re.compile(r"([A-Za-z_$][\w$]*)\s*\(")
_NOT_NAMES = frozenset({"if", "for", "while", "switch", "return", "catch", "new", "super", "this", "function"})
_HUNK_RX = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")


@dataclass(frozen=True, slots=True)
class CommitChange:
    """One commit: the files and ``path::name`` symbols it touched (paths as of this commit)
    and its renames (old, new)."""

    sha: str
    time: int
    files: tuple[str, ...]
    symbols: tuple[str, ...] = ()
    renames: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Partner:
    """A node that changed together with the queried one: ``together`` of the ``total``
    commits (in the window) that touched the queried node also touched this one."""

    key: str
    strength: float
    together: int
    total: int


def _unquote(path: str) -> str:
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        raw: bytes = codecs.escape_decode(path[1:-1].encode("utf-8"))[0]
        return raw.decode("utf-8", "replace")
    return path


def _strip_prefix(path: str) -> str | None:
    path = _unquote(path.rstrip("\t"))
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


def def_name(line: str, *, header: bool = False) -> str | None:
    """The name a definition line defines (``def push(self):`` -> ``push``), or None. A hunk
    header's context is already a definition line, so there any ``name(`` counts (Java, C#)."""
    m = _DEF_RX.search(line)
    if m:
        return m.group(1)
    if header:
        for m2 in _CALLISH_RX.finditer(line):
            if m2.group(1) not in _NOT_NAMES:
                return m2.group(1)
    return None


class _CommitBuilder:
    """Accumulates one commit's file blocks while its ``git log -p`` lines stream by."""

    def __init__(self, sha: str, time: int) -> None:
        self.sha, self.time = sha, time
        self.files: dict[str, None] = {}
        self.symbols: dict[str, None] = {}
        self.renames: list[tuple[str, str]] = []
        self.old: str | None = None
        self.new: str | None = None
        self.in_hunk = False
        self.pending_ctx: str | None = None
        self.first_line = False

    def start_file(self, line: str) -> None:
        self._flush_ctx()
        self.old = self.new = None
        self.in_hunk = False
        # fallback for blocks without ---/+++ lines (pure renames, mode changes, binaries)
        body = line[len("diff --git ") :]
        if body.startswith("a/") and " b/" in body:
            a, _, b = body[2:].partition(" b/")
            self.old, self.new = a, b
            if a == b:
                self.files[b] = None

    def _path(self) -> str | None:
        return self.new or self.old

    def _flush_ctx(self) -> None:
        path = self._path()
        if self.pending_ctx and path:
            self.symbols[f"{path}::{self.pending_ctx}"] = None
        self.pending_ctx = None

    def line(self, line: str) -> None:
        if self.in_hunk:
            c = line[:1]
            if c in "+-":
                if len(self.files) > MAX_COMMIT_FILES:
                    return  # the commit is dropped (CoChange.build): its lines name nothing
                name = def_name(line[1:])
                if self.first_line:
                    self.first_line = False
                    if name is not None:
                        self.pending_ctx = None  # the header names the previous definition
                    else:
                        self._flush_ctx()
                path = self._path()
                if name is not None and path:
                    self.symbols[f"{path}::{name}"] = None
                return
            if line.startswith("@@"):
                self._hunk(line)
            return
        if line.startswith("--- "):
            self.old = _strip_prefix(line[4:])
        elif line.startswith("+++ "):
            self.new = _strip_prefix(line[4:])
            path = self._path()
            if path:
                self.files[path] = None
        elif line.startswith("rename from "):
            self.old = _unquote(line[len("rename from ") :])
        elif line.startswith("rename to "):
            self.new = _unquote(line[len("rename to ") :])
            if self.old:
                self.renames.append((self.old, self.new))
            self.files[self.new] = None
        elif line.startswith("@@"):
            path = self._path()
            if path:
                self.files[path] = None
            self._hunk(line)

    def _hunk(self, line: str) -> None:
        self._flush_ctx()
        self.in_hunk = True
        self.first_line = True
        if len(self.files) > MAX_COMMIT_FILES:
            self.pending_ctx = None
            return
        m = _HUNK_RX.match(line)
        self.pending_ctx = def_name(m.group(1), header=True) if m and m.group(1) else None

    def build(self) -> CommitChange:
        self._flush_ctx()
        return CommitChange(self.sha, self.time, tuple(self.files), tuple(self.symbols), tuple(self.renames))


def parse_log(lines: Iterable[str]) -> list[CommitChange]:
    """Commits (newest first, as git prints them) from ``git log -p`` output whose commit
    headers are ``\\0<sha> <unix time>``."""
    out: list[CommitChange] = []
    cur: _CommitBuilder | None = None
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith("\x00"):
            if cur is not None:
                out.append(cur.build())
            sha, _, ts = line[1:].partition(" ")
            cur = _CommitBuilder(sha.strip(), int(ts.strip() or 0))
        elif cur is None:
            continue
        elif line.startswith("diff --git "):
            cur.start_file(line)
        else:
            cur.line(line)
    if cur is not None:
        out.append(cur.build())
    return out


def _canonical(commits: Sequence[CommitChange], alias: dict[str, str]) -> list[CommitChange]:
    """Rewrite paths (newest first) so that each names the file as it is called at the newest
    commit; ``alias`` (old path -> current path) is extended in place with the renames seen."""

    def canon(p: str) -> str:
        return alias.get(p, p)

    def canon_sym(s: str) -> str:
        path, _, name = s.partition("::")
        return f"{canon(path)}::{name}"

    out: list[CommitChange] = []
    for c in commits:
        files = tuple(dict.fromkeys(canon(f) for f in c.files))
        symbols = tuple(dict.fromkeys(canon_sym(s) for s in c.symbols))
        out.append(CommitChange(c.sha, c.time, files, symbols, c.renames))
        for old, new in c.renames:
            if old != new:
                alias[old] = canon(new)
    return out


def commit_weight(n_files: int) -> float:
    """How much one commit says about each pair it touches (see the module docstring)."""
    return 1.0 / math.log2(1 + max(1, n_files))


@dataclass
class CoChange:
    """Co-change of one repository's recent history (newest commit first)."""

    head: str
    commits: list[CommitChange]
    window: int = DEFAULT_WINDOW
    _by_file: dict[str, list[int]] = field(default_factory=dict, init=False, repr=False)
    _by_symbol: dict[str, list[int]] = field(default_factory=dict, init=False, repr=False)
    _cache: dict[tuple[str, bool], list[Partner]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        by_file: dict[str, list[int]] = defaultdict(list)
        by_symbol: dict[str, list[int]] = defaultdict(list)
        for i, c in enumerate(self.commits):
            for f in c.files:
                by_file[f].append(i)
            for s in c.symbols:
                by_symbol[s].append(i)
        self._by_file = dict(by_file)
        self._by_symbol = dict(by_symbol)

    @classmethod
    def build(cls, head: str, commits: Sequence[CommitChange], window: int = DEFAULT_WINDOW) -> CoChange:
        """From raw parsed commits (newest first): large commits dropped, paths made canonical."""
        # renames are taken from every commit (a tree move is usually one huge commit), then
        # the large commits are dropped
        kept = [c for c in _canonical(commits, {}) if 0 < len(c.files) <= MAX_COMMIT_FILES]
        return cls(head, kept[:window], window)

    def extend(self, head: str, newer: Sequence[CommitChange]) -> CoChange:
        """A new ``CoChange`` with ``newer`` (raw, newest first, all after ``self.head``)
        prepended; renames among them are applied to the older commits too."""
        alias: dict[str, str] = {}
        kept = [c for c in _canonical(newer, alias) if 0 < len(c.files) <= MAX_COMMIT_FILES]
        older = _canonical(self.commits, alias) if alias else list(self.commits)
        return CoChange(head, (kept + older)[: self.window], self.window)

    # ------------------------------------------------------------------ queries

    def __len__(self) -> int:
        return len(self.commits)

    def touches(self, key: str) -> int:
        """How many commits in the window touched this file (or ``path::name`` symbol)."""
        return len(self._index(key).get(key, ()))

    def symbol_share(self, key: str) -> float:
        """How often the ``path::name`` symbol changes when its file does: the commits touching
        it / (the commits touching its file + ``SMOOTHING``), 0..1 (0: never in the window)."""
        mine = self._by_symbol.get(key)
        if not mine:
            return 0.0
        return len(mine) / (len(self._by_file.get(key.partition("::")[0], ())) + SMOOTHING)

    def _index(self, key: str) -> dict[str, list[int]]:
        return self._by_symbol if "::" in key else self._by_file

    def partners(self, key: str, limit: int = 50, *, symbols: bool | None = None) -> list[Partner]:
        """What changed with ``key`` (a file, or a ``path::name`` symbol), strongest first (ties:
        more shared commits, then the more recent). ``symbols`` picks the partners' kind
        (default: the key's own kind): the symbols that changed with a file are how a file
        query ranks the symbols of its own and of other files. Cached (the object is immutable)."""
        want_symbols = ("::" in key) if symbols is None else symbols
        cache_key = (key, want_symbols)
        cached = self._cache.get(cache_key)
        if cached is None:
            cached = self._partners(key, want_symbols)
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[cache_key] = cached
        return cached[:limit]

    def _partners(self, key: str, want_symbols: bool) -> list[Partner]:
        mine = self._index(key).get(key, ())
        if not mine:
            return []
        total_w = 0.0
        shared_w: dict[str, float] = defaultdict(float)
        shared_n: dict[str, int] = defaultdict(int)
        newest: dict[str, int] = {}
        for i in mine:
            c = self.commits[i]
            w = commit_weight(len(c.files))
            total_w += w
            for other in c.symbols if want_symbols else c.files:
                if other != key:
                    shared_w[other] += w
                    shared_n[other] += 1
                    newest.setdefault(other, i)
        denom = total_w + SMOOTHING
        ranked = sorted(shared_w, key=lambda k: (-shared_w[k], -shared_n[k], newest[k], k))
        return [Partner(k, shared_w[k] / denom, shared_n[k], len(mine)) for k in ranked[:MAX_PARTNERS]]

    def strength(self, a: str, b: str) -> Partner | None:
        """The co-change of ``b`` relative to ``a`` (both files or both symbols), or None."""
        index = self._index(a)
        mine = index.get(a, ())
        theirs = set(index.get(b, ()))
        if not mine or not theirs:
            return None
        total_w = together_w = 0.0
        together = 0
        for i in mine:
            w = commit_weight(len(self.commits[i].files))
            total_w += w
            if i in theirs:
                together_w += w
                together += 1
        if not together:
            return None
        return Partner(b, together_w / (total_w + SMOOTHING), together, len(mine))

    # ------------------------------------------------------------------ persistence form

    def to_json(self) -> dict[str, object]:
        """A JSON-able form (``from_json`` reverses it); renames are already applied."""
        return {
            "version": 1,
            "head": self.head,
            "window": self.window,
            "commits": [[c.sha, c.time, list(c.files), list(c.symbols)] for c in self.commits],
        }

    @classmethod
    def from_json(cls, data: object) -> CoChange | None:
        """The ``CoChange`` saved by ``to_json``, or None when the data is not that."""
        if not isinstance(data, dict) or data.get("version") != 1:
            return None
        try:
            commits = [
                CommitChange(str(sha), int(t), tuple(map(str, files)), tuple(map(str, syms)))
                for sha, t, files, syms in data["commits"]
            ]
            return cls(str(data["head"]), commits, int(data["window"]))
        except (KeyError, TypeError, ValueError):
            return None
