"""The baselines of ``bench_recall.py``: rankings of the same notes without graphmem.

Each baseline scores every note for a query (higher first); equal scores are ordered by a
hash of the note's id (``tie_hash``: sha256 of the note's commit), except "co-change, ties by
recency", which puts the newer note first (graphmem cannot know a note's commit date, so
the id-tie variant is the fair comparison). A baseline that needs an input the query does not
have (a file for the file-based ones) is not run for that query kind.

* random: the mean over ``RANDOM_ORDERS`` seeded shuffles (its expected score).
* same file: notes with an anchor in the opened file first.
* same directory: same file first, then notes with an anchor in the opened file's directory.
* BM25 over note text: Okapi BM25 (k1 1.2, b 0.75) over the words of each note's text; the
  query is the text, or for a file query the words of the file's name.
* import PageRank: personalised PageRank (restart on the opened file, damping 0.85) over the
  undirected graph of imports between the repository's Python files at the split (``ast``);
  a note scores its best anchor file's rank.
* Aider-style identifier map: Aider's repo map in short: identifiers defined in a file and
  referenced in another make weighted edges referencer -> definer (x10 for identifiers the
  query text mentions, x10 for long snake/camel names, x0.1 for private ones and for names
  defined in more than five files, sqrt of the reference count), personalised PageRank on the
  opened file (uniform without one); a note scores its anchors' best definition rank.
* co-change: how many of the past commits (non-merge, before the split, at most
  ``MAX_COMMIT_FILES`` files) touched both the opened file and a note's file (its best file;
  the opened file itself counts as touching itself).

Two more rankings are printed for reference, marked "(extra)", outside the issue's list and its
targets: "co-change summed" (the co-change count summed over a note's anchors instead of its
best file) and "anchor count" (notes with more anchors first, nothing about the query). They
show how much of a score comes from a note's breadth alone: relevance is "an anchor of the note
changed", so a note on more functions is relevant more often.
"""

from __future__ import annotations

import ast
import hashlib
import math
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PurePosixPath

from recall_data import Blobs, Commit, Note, git

#: Shuffles the random baseline is averaged over.
RANDOM_ORDERS = 20
#: Past commits touching more files than this are not counted by the co-change baseline.
MAX_COMMIT_FILES = 50
_WORD = re.compile(r"[A-Za-z][a-z0-9]*|[0-9]+")

#: A baseline's score of a note id for one query.
Scorer = Callable[[str], float]

FILE_BASELINES = ("same file", "same directory", "import PageRank", "co-change (ties by recency)",
                  "co-change (ties by id)", "co-change summed (extra)")
ALL_BASELINES = ("random", "same file", "same directory", "BM25", "import PageRank", "Aider map",
                 "co-change (ties by recency)", "co-change (ties by id)")
#: Not in the issue's list; printed for reference (see the module docstring).
EXTRA_BASELINES = ("co-change summed (extra)", "anchor count (extra)")
#: The baselines the targets compare with (graphmem cannot know a note's commit date).
FAIR_BASELINES = tuple(m for m in ALL_BASELINES if m != "co-change (ties by recency)")


def _name(anchor: str) -> str:
    """The bare name an anchor defines: ``a.py::Cls.meth~2`` -> ``meth``."""
    return anchor.rpartition("::")[2].rpartition(".")[2].partition("~")[0]


def words(text: str) -> list[str]:
    """Plain lowercase words (underscores split): the baselines' tokenizer."""
    return [w.lower() for w in _WORD.findall(text.replace("_", " "))]


def tie_hash(key: str) -> str:
    """The tie-break key of a note (a hash: no order hidden in the ids)."""
    return hashlib.sha256(key.encode()).hexdigest()


class BM25:
    """Okapi BM25 over word lists."""

    def __init__(self, docs: dict[str, list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = {i: Counter(ws) for i, ws in docs.items()}
        self.len = {i: len(ws) for i, ws in docs.items()}
        self.avg = sum(self.len.values()) / max(1, len(self.len))
        df: Counter[str] = Counter()
        for c in self.docs.values():
            df.update(c.keys())
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: Iterable[str]) -> dict[str, float]:
        """Document id -> score (only documents sharing a word)."""
        q = set(query)
        out: dict[str, float] = {}
        for i, tf in self.docs.items():
            s = 0.0
            for w in q:
                f = tf.get(w)
                if f:
                    norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
                    s += self.idf[w] * f * (self.k1 + 1) / (f + norm)
            if s:
                out[i] = s
        return out


def pagerank(edges: dict[str, dict[str, float]], seeds: Sequence[str], iters: int = 40) -> dict[str, float]:
    """Personalised PageRank (damping 0.85) over weighted out-edges; uniform restart without seeds."""
    nodes = sorted(set(edges) | {d for out in edges.values() for d in out} | set(seeds))
    if not nodes:
        return {}
    known = [s for s in seeds if s in nodes]
    pers = {f: 1.0 / len(known) for f in known} if known else {f: 1.0 / len(nodes) for f in nodes}
    rank = dict(pers)
    for _ in range(iters):
        nxt = {f: 0.15 * pers.get(f, 0.0) for f in nodes}
        dangling = 0.0
        for f in nodes:
            r = rank.get(f, 0.0)
            if not r:
                continue
            out = edges.get(f)
            if not out:
                dangling += r
                continue
            total = sum(out.values())
            for d, w in out.items():
                nxt[d] += 0.85 * r * w / total
        for f, p in pers.items():
            nxt[f] += 0.85 * dangling * p
        rank = nxt
    return rank


def _module_of(path: str) -> str:
    """``src/click/core.py`` -> ``click.core`` (a ``src/`` layout's prefix dropped)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[0] in ("src", "lib"):
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class RepoCode:
    """The Python files at the split, parsed once: imports between files, identifiers."""

    def __init__(self, repo: Path, split: str) -> None:
        self.trees: dict[str, ast.Module] = {}
        blobs = Blobs(repo)
        try:
            for path in git(repo, "ls-tree", "-r", "--name-only", split).splitlines():
                if path.endswith(".py"):
                    try:
                        self.trees[path] = ast.parse(blobs.get(f"{split}:{path}") or b"")
                    except (SyntaxError, ValueError, RecursionError):
                        continue
        finally:
            blobs.close()

    def import_graph(self) -> dict[str, dict[str, float]]:
        """Undirected file graph: an edge between a file and each repository file it imports."""
        modules = {_module_of(p): p for p in self.trees}
        edges: dict[str, dict[str, float]] = defaultdict(dict)
        for path, tree in self.trees.items():
            package = _module_of(path).split(".")
            if not path.endswith("__init__.py"):
                package = package[:-1]
            for node in ast.walk(tree):
                targets: list[str] = []
                if isinstance(node, ast.Import):
                    targets = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = package[: len(package) - (node.level - 1)] if node.level else []
                    mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
                    targets = [mod] + [f"{mod}.{a.name}" if mod else a.name for a in node.names]
                for t in targets:
                    dest = modules.get(t)
                    if dest and dest != path:
                        edges[path][dest] = 1.0
                        edges[dest][path] = 1.0
        return edges

    def identifiers(self) -> tuple[dict[str, set[str]], dict[str, Counter[str]]]:
        """(identifier -> files defining it, identifier -> file -> references)."""
        defines: dict[str, set[str]] = defaultdict(set)
        refs: dict[str, Counter[str]] = defaultdict(Counter)
        for path, tree in self.trees.items():
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    defines[node.name].add(path)
                elif isinstance(node, ast.Name):
                    refs[node.id][path] += 1
                elif isinstance(node, ast.Attribute):
                    refs[node.attr][path] += 1
        return defines, refs


class AiderMap:
    """Aider's repo map ranking (see the module docstring)."""

    def __init__(self, code: RepoCode) -> None:
        self.defines, self.refs = code.identifiers()

    def rank(self, seeds: Sequence[str], mentioned: set[str]) -> dict[tuple[str, str], float]:
        """(file, identifier) -> rank of that definition."""
        edges: dict[str, dict[str, float]] = defaultdict(dict)
        idents: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
        for ident, definers in self.defines.items():
            if ident not in self.refs:
                continue
            mul = 10.0 if ident in mentioned else 1.0
            if ("_" in ident or any(c.isupper() for c in ident[1:])) and len(ident) >= 8:
                mul *= 10
            if ident.startswith("_"):
                mul *= 0.1
            if len(definers) > 5:
                mul *= 0.1
            for referencer, n in self.refs[ident].items():
                for definer in definers:
                    w = mul * math.sqrt(n)
                    edges[referencer][definer] = edges[referencer].get(definer, 0.0) + w
                    idents[(referencer, definer)].append((ident, w))
        rank = pagerank(edges, seeds)
        out: dict[tuple[str, str], float] = defaultdict(float)
        for (src, dest), items in idents.items():
            total = sum(edges[src].values())
            for ident, w in items:
                out[(dest, ident)] += rank.get(src, 0.0) * w / total
        return out


def file_cochange(past: list[Commit], alias: dict[str, str]) -> dict[str, Counter[str]]:
    """file -> file -> past commits touching both (a file with itself: commits touching it)."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for c in past:
        files = sorted({alias.get(p, p) for fc in c.changes for p in (fc.new_path or fc.old_path,)})
        if not files or len(files) > MAX_COMMIT_FILES:
            continue
        for a in files:
            for b in files:
                out[a][b] += 1
    return out


class Baselines:
    """Every baseline over one history's notes."""

    def __init__(self, repo: Path, split: str, notes: list[Note], past: list[Commit], alias: dict[str, str]) -> None:
        self.notes = {n.id: n for n in notes}
        self.bm25 = BM25({n.id: words(n.text) for n in notes})
        code = RepoCode(repo, split)
        self.imports = code.import_graph()
        self.aider = AiderMap(code)
        self.co = file_cochange(past, alias)
        self._pr: dict[str, dict[str, float]] = {}

    def applies(self, method: str, files: Sequence[str]) -> bool:
        """Whether ``method`` can rank for a query with these files."""
        return bool(files) or method not in FILE_BASELINES

    def ranking(self, method: str, files: Sequence[str], text: str, rng: random.Random) -> list[list[str]]:
        """The baseline's ranking(s) of every note (several for random: averaged by the caller)."""
        ids = sorted(self.notes, key=lambda i: tie_hash(self.notes[i].sha))
        if method == "random":
            out = []
            for _ in range(RANDOM_ORDERS):
                shuffled = list(ids)
                rng.shuffle(shuffled)
                out.append(shuffled)
            return [*out]
        score = self.scorer(method, files, text)
        if method == "co-change (ties by recency)":
            return [sorted(ids, key=lambda i: (-score(i), -self.notes[i].time))]
        return [sorted(ids, key=lambda i: -score(i))]  # stable: ties keep the hash order

    def scorer(self, method: str, files: Sequence[str], text: str) -> Scorer:
        """The baseline's score of each note id for the query."""
        f = files[0] if files else ""
        if method == "same file":
            return lambda i: 1.0 if f in self.notes[i].files else 0.0
        if method == "same directory":
            d = str(PurePosixPath(f).parent)
            return lambda i: (2.0 if f in self.notes[i].files
                              else 1.0 if any(str(PurePosixPath(x).parent) == d for x in self.notes[i].files) else 0.0)
        if method == "BM25":
            s = self.bm25.scores(words(text) if text else words(PurePosixPath(f).stem))
            return lambda i: s.get(i, 0.0)
        if method == "import PageRank":
            if f not in self._pr:
                self._pr[f] = pagerank(self.imports, [f])
            pr = self._pr[f]
            return lambda i: max((pr.get(x, 0.0) for x in self.notes[i].files), default=0.0)
        if method == "Aider map":
            mentioned = set(re.findall(r"\w+", text))
            defs = self.aider.rank(list(files), mentioned)
            return lambda i: max((defs.get((a.partition("::")[0], _name(a)), 0.0) for a in self.notes[i].anchors),
                                 default=0.0)
        if method == "co-change summed (extra)":
            row = self.co.get(f, Counter())
            return lambda i: float(sum(row.get(a.partition("::")[0], 0) for a in self.notes[i].anchors))
        if method.startswith("co-change"):
            row = self.co.get(f, Counter())
            return lambda i: float(max((row.get(x, 0) for x in self.notes[i].files), default=0))
        if method == "anchor count (extra)":
            return lambda i: float(len(self.notes[i].anchors))
        raise ValueError(method)
