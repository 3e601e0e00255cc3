#!/usr/bin/env python3
"""Recall quality on real histories under an independent protocol (issue 32), against baselines.

For each history (default: click and attrs from ``../shared/corpora/``; any other git
repository or bundle path may be given):

* The history is split at a date (``--split-date``; default: the date that leaves
  ``--after-share`` of its non-merge commits after it). Notes and tasks come from
  ``recall_data.py`` (``ast`` on each file before and after each commit, independent of
  graphmem): notes = the last 800 non-merge commits before the split that changed 1 to 20
  functions of source files (tests, docs, examples excluded), text = subject + first body
  lines, anchored to every function the commit changed that still exists at the split; tasks =
  the later commits that changed >= 2 source files.
* A clone is checked out at the split and registered with a real daemon (graphmem at its
  defaults); the notes are saved with the real client (``observe``); the daemon mines the
  history up to the split itself. The clone gets a ``.graphmem.toml`` that turns off notes
  from the repository's documentation files, and graphmem's ranking is read over the
  benchmark's notes only (the baselines rank the same notes).
* Per task, the opened file F is drawn (seeded) among its changed source files; relevant =
  the notes anchored to functions the task changed in its OTHER files; the notes anchored
  only in F are removed from every ranking before scoring. Queries: ``file`` (files=[F]),
  ``text`` (the subject), ``file+text``, and (not part of the protocol) ``symbols`` (F's
  functions the task changed). graphmem: ``recall`` with limit 200.
* Baselines on the same notes (``recall_baselines.py``): random, same file, same
  directory, BM25 over note text, personalised PageRank over the import graph, an Aider-style
  identifier map, co-change counts from the same past commits with ties by recency and,
  separately, by a hash of the note id.
* nDCG@10 and recall@10 per query; means per kind, per history and pooled; paired bootstrap
  95 % intervals (``--bootstrap`` resamples of the queries, within each history for the pool)
  of graphmem's nDCG@10 minus and over each baseline's.

``--with-docs`` (issue 42 item 9): the clone keeps its documentation, indexed as users have it
(code examples included), and graphmem is also scored with the doc units left in its list
(``graphmem+docs``: never relevant, they can only push notes down); the ratio with / without per
query kind (target: >= 0.97 on file queries) and the doc units per top 10 are printed. Its dump
also holds the doc units of each ranking (``unit``: their text, with their anchors' confidence).

Prints one table per history plus the pool, the intervals, the 1-min load average;
``--json`` prints one JSON object instead. ``--dump FILE`` writes every query with graphmem's
results and their score components (JSON lines) for offline fitting (``fit_ranking.py``), and
beside it ``FILE.notes.json``: each note's anchors, commit and time, for studying misses.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchlib import ROOT, DaemonProc, percentile, short_home
from graphmem.errors import InvalidArgument
from graphmem.types import Category
from recall_baselines import ALL_BASELINES, EXTRA_BASELINES, FAIR_BASELINES, Baselines
from recall_data import DataSet, build, default_split_date, git, split_commit

CORPORA = ROOT.parent / "shared" / "corpora"
if not CORPORA.exists():
    CORPORA = Path("/work/shared/corpora")
DEFAULT_HISTORIES = (CORPORA / "click.bundle", CORPORA / "attrs.bundle")
K = 10
LIMIT = 200
KINDS = ("file", "text", "file+text", "symbols")
#: graphmem's ranking with the repository's documentation units left in the list (``--with-docs``)
WITH_DOCS = "graphmem+docs"
METHODS = ("graphmem", WITH_DOCS, *ALL_BASELINES, *EXTRA_BASELINES)


@dataclass
class Query:
    """One query of one task: what is asked, the truth and the excluded notes."""

    history: str
    task: str
    kind: str
    files: list[str]
    symbols: list[str]
    text: str
    relevant: set[str]
    excluded: set[str]
    drawn: bool = True
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)  # method -> (nDCG@10, recall@10)


def ndcg(ranked: Sequence[str], relevant: set[str], k: int = K) -> float:
    """Binary-relevance nDCG@k."""
    dcg = sum(1 / math.log2(i + 2) for i, x in enumerate(ranked[:k]) if x in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked: Sequence[str], relevant: set[str], k: int = K) -> float:
    """Share of the relevant notes in the top k."""
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def make_queries(ds: DataSet, seed: int, every_file: bool = False) -> list[Query]:
    """Three (or four) queries per task with relevant notes (see the module docstring). With
    ``every_file``, also the queries of every other file of each task as the opened one
    (``drawn`` False: training data for ``fit_ranking.py``, never in the tables)."""
    by_anchor: dict[str, set[str]] = {}
    for n in ds.notes:
        for a in n.anchors:
            by_anchor.setdefault(a, set()).add(n.id)
    out: list[Query] = []
    for t in ds.tasks:
        drawn = random.Random(f"{seed}:{t.sha}").choice(t.files)
        for f in [drawn, *(x for x in t.files if x != drawn and every_file)]:
            other = {f"{p}::{q}" for p, qs in t.functions.items() if p != f for q in qs}
            excluded = {n.id for n in ds.notes if n.files == {f}}
            relevant = {i for a in other for i in by_anchor.get(a, ())} - excluded
            if not relevant:
                continue

            def mk(kind: str, files: list[str], syms: list[str], text: str, sha: str = t.sha,
                   rel: set[str] = relevant, ex: set[str] = excluded, is_drawn: bool = f == drawn) -> Query:
                return Query(ds.name, sha, kind, files, syms, text, rel, ex, drawn=is_drawn)

            out += [mk("file", [f], [], ""), mk("text", [], [], t.subject), mk("file+text", [f], [], t.subject)]
            syms = sorted(f"{f}::{q}" for q in t.functions.get(f, ()))
            if syms:
                out.append(mk("symbols", [], syms, ""))
    return out


def clone(source: Path, dest: Path) -> Path:
    """A private clone of a bundle or repository (never the original)."""
    subprocess.run(["git", "-c", "advice.detachedHead=false", "clone", "-q", str(source), str(dest)], check=True)
    return dest


def save_notes(c: object, ds: DataSet, repo_id: str) -> int:
    """Every note saved through the real client; returns how many the daemon could not anchor."""
    from graphmem.client import GraphMem

    assert isinstance(c, GraphMem)
    unresolved = 0
    for n in ds.notes:
        try:
            n.id = c.observe(n.text, anchors=n.anchors, repo=repo_id, category=Category.DECISION, source="bench").id
        except InvalidArgument:  # a definition graphmem names differently
            unresolved += 1
    ds.notes = [n for n in ds.notes if n.id]
    return unresolved


def run_graphmem(c: object, repo_id: str, queries: list[Query], dump: list[dict[str, object]], lat: list[float],
                 known: set[str], docs: dict[str, int] | None = None) -> None:
    """graphmem's ranking of every query (limit 200) over the benchmark's notes (``known``), scored.
    With ``docs`` (the repository's documentation indexed): also the ranking with the doc units
    left in the list (``WITH_DOCS``; they are never relevant, so they can only push notes down),
    and ``docs`` counts the doc units in the top 10 of each query kind."""
    from graphmem.client import GraphMem

    assert isinstance(c, GraphMem)
    for q in queries:
        t = time.perf_counter()
        try:
            r = c.recall(q.text, files=q.files, symbols=q.symbols, repo=repo_id, limit=LIMIT)
        except InvalidArgument:  # a symbol graphmem names differently: the query is dropped
            q.kind = "unresolvable"
            continue
        lat.append((time.perf_counter() - t) * 1000)
        ids = [x.observation.id for x in r.results]
        ranked = [i for i in ids if i not in q.excluded and i in known]
        q.scores["graphmem"] = (ndcg(ranked, q.relevant), recall_at(ranked, q.relevant))
        if docs is not None:
            units = {x.observation.id for x in r.results if x.observation.knowledge is not None}
            with_docs = [i for i in ids if i not in q.excluded and (i in known or i in units)]
            q.scores[WITH_DOCS] = (ndcg(with_docs, q.relevant), recall_at(with_docs, q.relevant))
            if q.drawn:
                docs[q.kind] = docs.get(q.kind, 0) + sum(1 for i in with_docs[:K] if i in units)
                docs[q.kind + " queries"] = docs.get(q.kind + " queries", 0) + 1
        dump.append({
            "history": q.history, "task": q.task, "kind": q.kind, "drawn": q.drawn, "relevant": sorted(q.relevant),
            "excluded": sorted(q.excluded),
            "results": [{"id": x.observation.id, "score": x.score, **asdict(x.components),
                         **({"unit": x.observation.text[:80], "anchors": [[a.ref, a.confidence] for a in
                                                                          x.observation.anchors]}
                            if x.observation.id not in known else {})}
                        for x in r.results if x.observation.id in known or docs is not None],
        })


def run_baselines(base: Baselines, queries: list[Query], seed: int) -> None:
    """Every baseline's ranking of every query it applies to, scored."""
    rng = random.Random(seed)
    for q in queries:
        files = q.files or sorted({s.partition("::")[0] for s in q.symbols})
        text = q.text or " ".join(s.rpartition("::")[2].replace(".", " ") for s in q.symbols)
        for m in (*ALL_BASELINES, *EXTRA_BASELINES):
            if not base.applies(m, files):
                continue
            runs = [[i for i in r if i not in q.excluded] for r in base.ranking(m, files, text, rng)]
            q.scores[m] = (sum(ndcg(r, q.relevant) for r in runs) / len(runs),
                           sum(recall_at(r, q.relevant) for r in runs) / len(runs))


def one_history(source: Path, args: argparse.Namespace, tmp: Path, dump: list[dict[str, object]],
                notes: dict[str, dict[str, object]]) -> tuple[dict[str, object], list[Query]]:
    """Build, save, query and score one history."""
    name = source.name.removesuffix(".bundle")
    repo = clone(source, tmp / name)
    date = args.split_date or default_split_date(repo, round(args.after_share * len(
        git(repo, "log", "--no-merges", "--format=%H", "HEAD").split())))
    split = split_commit(repo, date)
    t0 = time.perf_counter()
    ds = build(repo, name, split)
    build_s = time.perf_counter() - t0
    git(repo, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", split)
    if not args.with_docs:  # the benchmark's notes only: no units from the repository's documentation
        (repo / ".graphmem.toml").write_text("[knowledge]\ndefaults = false\n")
    home = short_home()
    d = DaemonProc(home, [repo])
    lat: list[float] = []
    try:
        d.wait_ready()
        with d.client(120) as c:
            repo_id = c.list_repos()[0].id
            unresolved = save_notes(c, ds, repo_id)
            d.wait_durable()
            deadline = time.monotonic() + 120  # the daemon mines co-change in the background
            while not list(home.rglob("cochange/*.json")) and time.monotonic() < deadline:
                time.sleep(0.1)
            queries = make_queries(ds, args.seed, every_file=bool(args.dump))
            docs: dict[str, int] | None = {} if args.with_docs else None
            if docs is not None:
                docs["units"] = sum(1 for o in c.list(repo=repo_id, limit=0) if o.knowledge is not None)
            run_graphmem(c, repo_id, queries, dump, lat, {n.id for n in ds.notes}, docs)
            queries = [q for q in queries if q.kind != "unresolvable" and q.drawn]
            notes[name] = {n.id: {"anchors": n.anchors, "time": n.time, "sha": n.sha} for n in ds.notes}
    finally:
        d.stop()
        shutil.rmtree(home, ignore_errors=True)
    if not args.no_baselines:
        run_baselines(Baselines(repo, split, ds.notes, ds.past, ds.alias), queries, args.seed)
    info = {
        "history": name, "split_date": date, "split": split[:10], "notes": len(ds.notes),
        "unresolved_notes": unresolved, "mass_refactors_skipped": ds.skipped_mass, "tasks": len(ds.tasks),
        "tasks_scored": len({q.task for q in queries}), "dataset_seconds": round(build_s, 1),
        "latency_ms": {"p50": round(percentile(lat, 50), 2), "p99": round(percentile(lat, 99), 2)},
    }
    if docs is not None:
        info["doc_units"] = docs
    return info, queries


# ----------------------------------------------------------------------------- figures


def means(queries: list[Query], kind: str) -> dict[str, tuple[float, float, int]]:
    """method -> (mean nDCG@10, mean recall@10, queries) over the queries of one kind."""
    out: dict[str, tuple[float, float, int]] = {}
    for m in METHODS:
        vals = [q.scores[m] for q in queries if q.kind == kind and m in q.scores]
        if vals:
            out[m] = (sum(a for a, _ in vals) / len(vals), sum(b for _, b in vals) / len(vals), len(vals))
    return out


def bootstrap(queries: list[Query], kind: str, method: str, rounds: int, seed: int) -> dict[str, float]:
    """Paired bootstrap of graphmem vs ``method`` on nDCG@10: mean difference and ratio with
    95 % intervals (queries resampled within each history)."""
    groups: dict[str, list[tuple[float, float]]] = {}
    for q in queries:
        if q.kind == kind and method in q.scores:
            groups.setdefault(q.history, []).append((q.scores["graphmem"][0], q.scores[method][0]))
    pairs = [p for g in groups.values() for p in g]
    if not pairs:
        return {}
    rng = random.Random(seed)
    diffs, ratios = [], []
    for _ in range(rounds):
        sample = [g[rng.randrange(len(g))] for g in groups.values() for _ in g]
        a, b = sum(x for x, _ in sample), sum(y for _, y in sample)
        diffs.append((a - b) / len(sample))
        ratios.append(a / b if b else float("inf"))
    diffs.sort()
    ratios.sort()
    a, b = sum(x for x, _ in pairs), sum(y for _, y in pairs)
    lo, hi = int(0.025 * rounds), min(rounds - 1, int(0.975 * rounds))
    return {"diff": round((a - b) / len(pairs), 4), "diff_lo": round(diffs[lo], 4), "diff_hi": round(diffs[hi], 4),
            "ratio": round(a / b, 3) if b else float("inf"), "ratio_lo": round(ratios[lo], 3),
            "ratio_hi": round(ratios[hi], 3)}


def summary(queries: list[Query], rounds: int, seed: int) -> dict[str, object]:
    """Means per kind and method, the best baselines per kind (of the issue's list, and of its
    fair ones: without ties by recency), intervals against each baseline, the targets."""
    table = {k: means(queries, k) for k in KINDS}
    best = {k: max((m for m in t if m in ALL_BASELINES), key=lambda m: t[m][0])
            for k, t in table.items() if any(m in ALL_BASELINES for m in t)}
    fair = {k: max((m for m in t if m in FAIR_BASELINES), key=lambda m: t[m][0])
            for k, t in table.items() if any(m in FAIR_BASELINES for m in t)}
    intervals = {k: {m: bootstrap(queries, k, m, rounds, seed) for m in table[k] if m != "graphmem"}
                 for k in KINDS if table[k]}
    g = {k: t["graphmem"][0] for k, t in table.items() if "graphmem" in t}
    targets = {}
    if "file" in g and "file" in best:
        targets["file_lead_fair"] = round(g["file"] / max(table["file"][fair["file"]][0], 1e-9), 3)
        targets["file_lead_any"] = round(g["file"] / max(table["file"][best["file"]][0], 1e-9), 3)
    for k, t in table.items():
        if WITH_DOCS in t and "graphmem" in t:
            targets[f"{k}_with_docs_ratio"] = round(t[WITH_DOCS][0] / max(t["graphmem"][0], 1e-9), 3)
    if {"file", "text", "file+text"} <= set(g):
        targets["file+text_minus_best_part"] = round(g["file+text"] - max(g["file"], g["text"]), 4)
    return {"table": table, "best_baseline": best, "best_fair_baseline": fair, "intervals": intervals,
            "targets": targets}


def print_summary(title: str, s: dict[str, object]) -> None:
    """One history's (or the pool's) table and intervals."""
    table: dict[str, dict[str, tuple[float, float, int]]] = s["table"]  # type: ignore[assignment]
    best: dict[str, str] = s["best_baseline"]  # type: ignore[assignment]
    intervals: dict[str, dict[str, dict[str, float]]] = s["intervals"]  # type: ignore[assignment]
    print(f"\n== {title}: nDCG@10 / recall@10 (queries per kind in brackets; '-': not applicable)")
    head = f"{'method':<28}" + "".join(f"{k + ' [' + str(table[k].get('graphmem', (0, 0, 0))[2]) + ']':>22}"
                                        for k in KINDS if table[k])
    print(head)
    print("-" * len(head))
    for m in METHODS:
        cells = "".join(f"{table[k][m][0]:>13.3f} /{table[k][m][1]:>6.3f}" if m in table[k] else f"{'-':>22}"
                        for k in KINDS if table[k])
        print(f"{m:<28}{cells}")
    for k in KINDS:
        if not table[k]:
            continue
        if k not in best:
            continue
        fair: dict[str, str] = s["best_fair_baseline"]  # type: ignore[assignment]
        print(f"  {k}: best baseline {best[k]} (without ties by recency: {fair[k]}); graphmem vs each "
              "(nDCG@10 difference, ratio; 95 % paired bootstrap):")
        for m, iv in intervals[k].items():
            print(f"    {m:<28} {iv['diff']:+.3f} [{iv['diff_lo']:+.3f}, {iv['diff_hi']:+.3f}]  "
                  f"{iv['ratio']:.2f}x [{iv['ratio_lo']:.2f}, {iv['ratio_hi']:.2f}]")
    t: dict[str, float] = s["targets"]  # type: ignore[assignment]
    if t:
        print(f"  targets: file lead over the best baseline without ties by recency "
              f"{t.get('file_lead_fair', float('nan')):.2f}x, over every listed baseline "
              f"{t.get('file_lead_any', float('nan')):.2f}x (>= 1.5x); "
              f"file+text - max(file, text) {t.get('file+text_minus_best_part', float('nan')):+.3f} (>= 0)")
    if "file_with_docs_ratio" in t:
        print("  with the doc units in the list / without (nDCG@10; target >= 0.97 on file queries): "
              + ", ".join(f"{k} {t[k + '_with_docs_ratio']:.3f}" for k in KINDS if k + "_with_docs_ratio" in t))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("histories", nargs="*", type=Path, help="git bundles or repositories (default: click, attrs)")
    ap.add_argument("--split-date", default="", help="YYYY-MM-DD, for every history (default: see --after-share)")
    ap.add_argument("--after-share", type=float, default=0.4,
                    help="default split: the date leaving this share of the non-merge commits after it (0.4)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bootstrap", type=int, default=2000)
    ap.add_argument("--dump", type=Path, help="write every query with graphmem's components here (JSON lines), "
                    "with the queries of every file of each task as the opened one (training data)")
    ap.add_argument("--no-baselines", action="store_true", help="graphmem only (faster, for development)")
    ap.add_argument("--with-docs", action="store_true",
                    help="index the repository's documentation as users have it, and score graphmem with its units "
                    "in the list (graphmem+docs) and taken out (graphmem)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--save", type=Path, help="also write the JSON object to this file")
    args = ap.parse_args()
    histories = args.histories or list(DEFAULT_HISTORIES)
    load = os.getloadavg()[0]
    print(f"[load average {load:.2f} at start]", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix="gmrecall"))
    dump: list[dict[str, object]] = []
    notes: dict[str, dict[str, object]] = {}
    infos, everything = [], []
    t0 = time.perf_counter()
    try:
        for h in histories:
            info, queries = one_history(h.resolve(), args, tmp, dump, notes)
            infos.append(info)
            everything.extend(queries)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.dump:
        args.dump.write_text("".join(json.dumps(d) + "\n" for d in dump))
        args.dump.with_suffix(".notes.json").write_text(json.dumps(notes))  # for studying misses
    per = {i["history"]: summary([q for q in everything if q.history == i["history"]], args.bootstrap, args.seed)
           for i in infos}
    pool = summary(everything, args.bootstrap, args.seed)
    load_end = os.getloadavg()[0]
    out = {"histories": infos, "per_history": per, "pool": pool, "load_1min": [round(load, 2), round(load_end, 2)],
           "seconds": round(time.perf_counter() - t0, 1)}
    if args.save:
        args.save.write_text(json.dumps(out))
    if args.json:
        print(json.dumps(out))
        return 0
    for i in infos:
        print(f"{i['history']}: split {i['split_date']} ({i['split']}), {i['notes']} notes "
              f"({i['unresolved_notes']} not anchorable by graphmem, {i['mass_refactors_skipped']} mass refactors "
              f"skipped), {i['tasks']} tasks, {i['tasks_scored']} with other files' knowledge; "
              f"recall p50 {i['latency_ms']['p50']} ms, p99 {i['latency_ms']['p99']} ms")
        if "doc_units" in i:
            d = i["doc_units"]
            print(f"  {d.get('units', 0)} doc units indexed; doc units in the top 10, per query: "
                  + ", ".join(f"{k} {d[k] / max(d[k + ' queries'], 1):.2f}" for k in KINDS if k in d))
    for name, s in per.items():
        print_summary(name, s)
    if len(per) > 1:
        print_summary("pool", pool)
    print(f"\nload average (1 min) {load:.2f} at start, {load_end:.2f} at end; {out['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
