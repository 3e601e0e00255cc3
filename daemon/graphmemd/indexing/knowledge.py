"""Knowledge files kept as observations: the shell around the pure readers and graders, on
the indexer thread (after the code of the same pass or batch is in the graph).

A file is read again when its content changed (its size or modification time first:
``RepoRuntime.doc_stats``; then its digest), when it names code a pass or batch renamed, moved
or removed, or a name that named nothing until code of it appeared, and once HEAD moves when
it was read while its lines were not committed (the commit of a unit's lines, from ``git
blame``, is what its references are judged from). A clean stop writes that state down
(``export_kept``, ``ingest.knowledge.kept``) and the next start takes it back (``take_back``), so a
restart reads only the files that changed while the daemon was stopped. Its units
are paired with the file's units as they were (``identity.pair_units``; a shared note by its
``id``); a unit whose text is unchanged keeps its anchors and reasons, a new or edited one is
anchored as it was written (``knowledge_history``). References are resolved against the
graph (``graph.knowledge_refs``); every unit is graded (``memory.knowledge``) and what changed
is journaled with one event each (``Memory.apply_knowledge``); units gone from their file,
and files gone, are deleted.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from graphmem import types as shared_types
from graphmem.types import Anchor, AnchorKind, ChangeKind, EdgeKind, KnowledgeKind, Observation, StaleReason

from graphmemd import __version__
from graphmemd.graph.delta import GraphDelta
from graphmemd.graph.graphstate import GraphState
from graphmemd.graph.knowledge_refs import RefIndex, Resolution, enclosing
from graphmemd.graph.model import ChangeKind as ModelChange
from graphmemd.graph.model import SymbolInfo, file_id
from graphmemd.graph.served import hook_names
from graphmemd.indexing.change_commits import UnitCommit
from graphmemd.indexing.history_shared import SharedHistory, scope
from graphmemd.indexing.knowledge_history import KnowledgeHistory, resolve_use, unit_commit
from graphmemd.indexing.knowledge_served import Gone, served_as
from graphmemd.indexing.live import NEVER, LiveBatches
from graphmemd.ingest.activity import Activity, Doing
from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.gitinfo import git_place, head_commit, is_ancestor
from graphmemd.ingest.knowledge import kept as kept_state
from graphmemd.ingest.knowledge.examples import own_examples
from graphmemd.ingest.knowledge.identity import KnownUnit, normalized, pair_units
from graphmemd.ingest.knowledge.model import KnowledgeDoc, RefKind, TargetKind, TextRef, Unit
from graphmemd.ingest.knowledge.notes import SharedNote
from graphmemd.ingest.knowledge.read import decode, read_doc, read_note
from graphmemd.ingest.knowledge.selection import CONFIG_FILE, parse_config
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.registry import RepoRuntime
from graphmemd.ingest.scan import DocChanges
from graphmemd.ingest.walker import WalkedDoc
from graphmemd.memory.anchors import evaluate_anchor, symbol_anchor
from graphmemd.memory.knowledge import RefFinding, UnitFinding, grade, unit_observation
from graphmemd.memory.memory import Memory

logger = logging.getLogger(__name__)
_GONE = (ChangeKind.REMOVED, ChangeKind.RENAMED)
#: knowledge files read and planned together, their old versions fetched in one batch of git
#: reads and old parses: a live batch waits at most for one group's reading or one file's units
GROUP = 4


@dataclass
class _Pass:
    """What one knowledge pass over a repository computes once: the reference index over the
    current graph and the repository's history."""

    rt: RepoRuntime
    index: RefIndex
    history: KnowledgeHistory
    now: float
    head: str
    puts: list[Observation] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    #: old versions of code files to read in one batch: for anchors as written, for names gone
    baselines: set[tuple[str, str]] = field(default_factory=set)
    gone: list[tuple[TextRef, UnitCommit]] = field(default_factory=list)
    #: symbols changed since their units were written: the commits that changed them, found at once
    changed: list[tuple[SymbolInfo, tuple[str, int]]] = field(default_factory=list)


#: a unit, its id, its previous observation, whether its text is unchanged, the commit of its lines
_Plan = tuple[Unit, str, Observation | None, bool, UnitCommit]
#: a file's units, its shared note's fields, its units as they were, each unit's id and previous one
_Loaded = tuple[KnowledgeDoc, dict[int, SharedNote], list[Observation], list[tuple[str, Observation | None]]]


@dataclass
class _Tally:
    """What the passes of one ``_sync`` did (a live batch going first starts a new one)."""

    written: int = 0
    deleted: int = 0
    git: int = 0
    parses: int = 0
    rounds: int = 0
    yielded: int = 0

    def add(self, ctx: _Pass, n: int) -> None:
        """Count a pass whose units were just written (``n``: units written and deleted)."""
        self.written += n - len(ctx.deletes)
        self.deleted += len(ctx.deletes)
        self.git += ctx.history.git.calls
        self.parses += ctx.history.parses
        self.rounds += ctx.history.changes.rounds + ctx.history.gone_rounds
        ctx.puts, ctx.deletes = [], []


@dataclass(frozen=True, slots=True)
class _Before:
    """What a unit's previous version said of one reference: its anchor and reasons."""

    anchor_key: str
    finding: RefFinding


class KnowledgeKeeper:
    """Reads knowledge files into units and keeps their observations current."""

    def __init__(
        self,
        memory: Memory,
        state: GraphState,
        pool: Callable[[], ParsePool],
        max_file_size: int,
        hand_over: Callable[[RepoRuntime], None],
        live: LiveBatches = NEVER,
    ) -> None:
        self._memory = memory
        #: live edit batches that go first between two files (``live.py``)
        self._live = live
        #: gives the resolver the parses a warm restart read back (``Indexer._hand_over``):
        #: references resolve against what the code's resolution knows, as on a cold index
        self._hand_over = hand_over
        self._state = state
        self._pool = pool
        self._max_file_size = max_file_size
        # the fingerprint of the code this process runs, taken now: taken first at the clean
        # stop (a first start keeps nothing to compare), it would read the sources an upgrade
        # put on disk meanwhile, and the next start would keep what this code read
        code_fingerprint(max_file_size)
        self._configs: dict[str, bytes | None] = {}
        #: repository -> knowledge file -> the last parts of the names in it that name nothing
        #: now (never did, or dangling): read again when code of such a name appears
        self._unresolved: dict[str, dict[str, set[str]]] = {}
        #: repository -> knowledge files read by watcher batches since HEAD last moved, or read
        #: with lines not committed: read while a checkout was writing the tree (part of the
        #: code new, HEAD old or new) or before their lines were committed, they are judged
        #: again once HEAD has moved
        self._read_in_batches: dict[str, set[str]] = {}
        #: repository -> knowledge file -> the digest of the content last read
        self._digests: dict[str, dict[str, str]] = {}
        #: knowledge files read by this keeper (a restart that changed nothing reads none)
        self.files_read = 0
        #: what git's history answered, for every checkout of a repository (``history_shared``)
        self._history = SharedHistory()

    # ------------------------------------------------------------------ selection

    def load_selection(self, rt: RepoRuntime) -> bool:
        """Read ``.graphmem.toml`` again; True when the selection it gives changed."""
        try:
            data: bytes | None = (rt.root / CONFIG_FILE).read_bytes()
        except OSError:
            data = None
        if rt.id in self._configs and self._configs[rt.id] == data:
            return False
        self._configs[rt.id] = data
        rt.knowledge, rt.knowledge_error = parse_config(data)
        if rt.knowledge_error:
            logger.warning("%s: %s", rt.id, rt.knowledge_error)
        return True

    # ------------------------------------------------------------------ passes

    def full_pass(
        self, rt: RepoRuntime, docs: list[WalkedDoc], head_moved: bool, delta: GraphDelta | None = None
    ) -> int:
        """After a full walk: read the knowledge files that changed, that name code the pass
        renamed, moved or removed (``_touched``) or a name it added (``_awaiting``), and when
        HEAD moved the ones watcher batches read since it last moved (judged then against a
        tree half checked out, or before they were committed: now as a cold check judges
        them); drop the ones gone."""
        present = {d.path for d in docs}
        gone = (self._memory.book.knowledge_files(rt.id) | set(rt.doc_stats)) - present
        touched = self._touched(rt, delta) | self._awaiting(rt, delta)
        if head_moved:
            touched |= self._read_in_batches.pop(rt.id, set())
        todo = [d.path for d in docs if d.path in touched or _changed(rt, self._digests, d.path, d.abs_path)]
        n = self._sync(rt, todo, gone)
        if head_moved:
            n += self.refresh_commits(rt)
        return n

    def batch(self, rt: RepoRuntime, changes: DocChanges, delta: GraphDelta | None = None) -> int:
        """After a watcher batch: read the changed knowledge files, drop the removed ones,
        and read again the files naming what the batch's code added (a name written before
        its code, or code that came back in a later batch than its removal: it resolves now)
        or renamed, moved or removed (``_touched``)."""
        todo = self._todo(rt, changes, delta)
        if not todo and not changes.removed:
            return 0
        self._read_in_batches.setdefault(rt.id, set()).update(todo)
        return self._sync(rt, sorted(todo), changes.removed - changes.changed)

    def reads(self, rt: RepoRuntime, changes: DocChanges, delta: GraphDelta | None = None) -> bool:
        """Whether ``batch`` would read knowledge files (and with them the graph's imports and
        bases: the indexer resolves a batch's dependents before it then, ``Indexer._changes``)."""
        return bool(self._todo(rt, changes, delta))

    def _todo(self, rt: RepoRuntime, changes: DocChanges, delta: GraphDelta | None) -> set[str]:
        return (changes.changed | self._awaiting(rt, delta) | self._touched(rt, delta)) - changes.removed

    def _awaiting(self, rt: RepoRuntime, delta: GraphDelta | None) -> set[str]:
        """The knowledge files with a name that names nothing now and that ``delta`` added
        (by its last part), or all of them when it added or changed a module's lazy hook
        (``__getattr__``: it may serve such a name): a name written before its code, or code
        that comes back (a checkout moving ``click/`` to ``src/click/`` may be seen as two
        batches: removed, added)."""
        if delta is None:
            return set()
        waiting = self._unresolved.get(rt.id, {})
        hooks = hook_names()
        hook_changed = any(
            c.new is not None and c.new.qualname in hooks and c.kind is not ModelChange.UNCHANGED for c in delta.changes
        )
        if delta.cold or hook_changed:
            # no symbol diff (the repository had no code): anything may have come; a module's
            # lazy hook added or changed: it may serve a name gone (``served_as``)
            return {path for path, names in waiting.items() if names}
        fresh = (ModelChange.ADDED, ModelChange.RENAMED)
        added = {c.new.qualname.rsplit(".", 1)[-1] for c in delta.changes if c.new and c.kind in fresh}
        return {path for path, names in waiting.items() if names & added}

    def _touched(self, rt: RepoRuntime, delta: GraphDelta | None) -> set[str]:
        """The knowledge files with a unit anchored to code ``delta`` renamed, moved or removed,
        or to a module's lazy hook it changed (a name served with a warning: ``served_as``).

        Memory follows the rename of an anchor with a RENAMED reason (the text still says the
        old name); whether the name as written still names that code (``pkg.fields`` after
        ``pkg/`` moved to ``src/pkg/``), or now names other code, only resolving it again tells."""
        if delta is None:
            return set()
        if delta.cold:  # no symbol diff: every unit anchored to code is judged again
            return self._memory.book.knowledge_files(rt.id)
        ids = {file_id(rt.id, p) for p in delta.removed}
        hooks = hook_names()  # a module's lazy hook changed: the names it serves may have changed
        for c in delta.changes:
            if c.kind is ModelChange.RENAMED and c.new is not None:
                ids.add(c.new.id)
            elif c.kind is ModelChange.REMOVED and c.old is not None:
                ids.add(c.old.id)
            elif c.new is not None and c.new.qualname in hooks and c.kind is not ModelChange.UNCHANGED:
                ids.add(c.new.id)
        if not ids:
            return set()
        hit = self._memory.book.anchored_in(dict.fromkeys(ids))
        return {o.knowledge.path for obs in hit.values() for o in obs if o.knowledge is not None and o.repo_id == rt.id}

    def sync_paths(self, rt: RepoRuntime, paths: Iterable[str]) -> int:
        """Read these knowledge files now (a shared note just written)."""
        return self._sync(rt, list(paths), ())

    def _new_pass(self, rt: RepoRuntime) -> _Pass:
        self._hand_over(rt)  # (else a restart's files are not the resolver's yet: names resolve otherwise)
        graph = self._state.graph  # the indexer thread is the graph's only writer
        symbols = [s for s in graph.symbols.values() if s.repo_id == rt.id]
        paths = [n.path for n in graph.repo_files(rt.id)]

        imported: dict[str, list[str]] = {}

        def imports(path: str) -> list[str]:
            got = imported.get(path)
            if got is None:
                got = imported[path] = [graph.ref_of(f) for f in graph.out(file_id(rt.id, path), EdgeKind.IMPORTS)]
            return got

        def bases(s: SymbolInfo) -> list[SymbolInfo]:
            return [b for i in graph.out(s.id, EdgeKind.INHERITS) if (b := graph.symbols.get(i)) is not None]

        now = time.time()
        history = _history(rt, self._history, self._pool, self._state, now)
        exports = rt.resolver.exports()  # (the indexer thread owns the resolver)
        index = RefIndex(symbols, paths, imports, exports, bases)
        return _Pass(rt, index, history, now, history.git.head)

    def _sync(self, rt: RepoRuntime, paths: Iterable[str], gone: Iterable[str]) -> int:
        """Read ``paths`` again and drop ``gone``, in groups of ``GROUP`` files; between two files,
        a waiting live batch goes first (``live.py``)."""
        left, gone = list(paths), list(gone)
        if not left and not gone:
            return 0
        started, tally, total, before = time.monotonic(), _Tally(), len(left), rt.activity
        ctx = self._new_pass(rt)
        done = 1
        try:
            while left:
                rt.activity = Activity(Doing.KNOWLEDGE, total - len(left), total)
                group, left = left[:GROUP], left[GROUP:]
                done = self._group(ctx, group, drop=done > 0)  # (never dropped twice in a row: it progresses)
                left = group[done:] + left
                if left and self._live.waiting():  # the units judged so far written (the batch sees them),
                    tally.add(ctx, self._memory.apply_knowledge(ctx.puts, ctx.deletes))
                    ctx.history.close()
                    tally.yielded += self._live.run()  # the batch, then a new pass over the graph it left
                    ctx = self._new_pass(rt)
        finally:
            ctx.history.close()
            rt.activity = before
        self.files_read += total
        for path in gone:
            rt.doc_stats.pop(path, None)
            self._digests.get(rt.id, {}).pop(path, None)
            self._read_in_batches.get(rt.id, set()).discard(path)
            self._unresolved.get(rt.id, {}).pop(path, None)
            ctx.deletes.extend(o.id for o in self._memory.book.from_file(rt.id, path))
        tally.add(ctx, self._memory.apply_knowledge(ctx.puts, ctx.deletes))
        logger.info(
            "%s: %d knowledge files read, %d gone, %d units written, %d deleted in %.2fs (%d git runs, %d old parses, "
            "%d rounds of commit searches)%s",
            rt.id, total, len(gone), tally.written, tally.deleted, time.monotonic() - started, tally.git, tally.parses,
            tally.rounds,
            f"; {tally.yielded} live batch{'es' if tally.yielded != 1 else ''} went first" if tally.yielded else "",
        )  # fmt: skip
        return tally.written + tally.deleted

    def _group(self, ctx: _Pass, paths: list[str], drop: bool) -> int:
        """Read, plan and judge the knowledge files ``paths`` (their old versions fetched in one
        batch); how many of them are done: all, or fewer when a live batch waits after one, or
        none when it waits while they are read (``drop``: nothing judged yet, read again after)."""
        examples = _examples(self._pool, ctx.rt, paths)
        loaded: list[tuple[int, _Loaded]] = []
        for i, p in enumerate(paths):
            if drop and self._live.waiting():
                return 0
            if got := self._read_file(ctx, p, examples.get(p, ())):
                loaded.append((i, got))
        _blame_ahead(ctx, [doc for _, (doc, _, _, _) in loaded])
        uncommitted = self._read_in_batches.setdefault(ctx.rt.id, set())
        plans = [_plan(ctx, doc, previous, uncommitted) for _, (doc, _, _, previous) in loaded]
        ctx.history.prefetch(ctx.baselines, ctx.gone, ctx.changed)  # every old version this group needs, at once
        # (the names gone that _finding looks for in history: those no symbol answers to now)
        ctx.history.prefetch_gone([(r, w) for r, w in ctx.gone if not _mentioned(ctx, r)], ctx.index)
        ctx.baselines, ctx.gone, ctx.changed = set(), [], []
        for k, ((_, (doc, notes, old, _)), plan) in enumerate(zip(loaded, plans, strict=True)):
            self._units(ctx, doc, notes, old, plan)
            if k + 1 < len(loaded) and self._live.waiting():
                return loaded[k + 1][0]  # (the files after it are read again, against the graph as the batch leaves it)
        return len(paths)

    # ------------------------------------------------------------------ one file

    def _read_file(self, ctx: _Pass, path: str, examples: tuple[Unit, ...] = ()) -> _Loaded | None:
        """A knowledge file's units (its code examples' among them: ``examples``, only the
        references to the repository's own modules kept), the observations its units were,
        and each unit's previous observation (paired by identity); None when it is no
        knowledge file now."""
        rt = ctx.rt
        old = self._memory.book.from_file(rt.id, path)
        kind = rt.knowledge.kind_of(path)
        abs_path = rt.root / path
        try:
            st = abs_path.stat()
            data = abs_path.read_bytes() if kind is not None and st.st_size <= self._max_file_size else None
        except OSError:
            data = None
        if data is None or kind is None:
            rt.doc_stats.pop(path, None)
            self._digests.get(rt.id, {}).pop(path, None)
            ctx.deletes.extend(o.id for o in old)
            return None
        rt.doc_stats[path] = (st.st_size, st.st_mtime_ns)
        self._digests.setdefault(rt.id, {})[path] = _digest(data)
        try:
            doc, notes = _read(path, data, kind)
            if examples:
                units = [*doc.units, *own_examples(examples, ctx.index.has_module)]
                doc = replace(doc, units=tuple(sorted(units, key=lambda u: (u.start_line, u.end_line))))
        except Exception:  # a reader failing on odd input must not fail the code's index pass
            logger.exception("%s: cannot read knowledge file %s", rt.id, path)
            rt.skipped[path] = "knowledge file could not be read (see the daemon log)"
            return None
        rt.skipped.pop(path, None)
        known = [KnownUnit(o.id, o.knowledge.heading_path, o.text) for o in old if o.knowledge is not None]
        ids = pair_units(rt.id, doc.path, known, doc.units)
        ids = [notes[i].id if i in notes else oid for i, oid in enumerate(ids)]
        before = {o.id: o for o in old}
        return doc, notes, old, [(oid, before.get(oid)) for oid in ids]

    def _units(
        self, ctx: _Pass, doc: KnowledgeDoc, notes: dict[int, SharedNote], old: list[Observation], plans: list[_Plan]
    ) -> None:
        rt = ctx.rt
        kept: set[str] = set()
        waiting = self._unresolved.setdefault(rt.id, {})
        waiting.pop(doc.path, None)
        for i, (unit, oid, previous, unchanged, when) in enumerate(plans):
            found = [(r, self._finding(ctx, doc.path, r, when, previous, unchanged)) for r in unit.refs]
            refs = [f for _, f in found if f is not None]
            missing = {
                r.target.rsplit(".", 1)[-1]
                for r, f in found
                if r.target_kind is TargetKind.SYMBOL and (f is None or any(x.change in _GONE for x in f.reasons))
            }
            if missing:
                waiting.setdefault(doc.path, set()).update(missing)
            if not refs:
                continue
            finding = UnitFinding(unit, oid, tuple(refs), notes.get(i))
            o = unit_observation(rt.id, doc.path, doc.kind, finding, previous, ctx.now)
            if unchanged and previous is not None:
                o = _keep_history(o, previous)
            ctx.puts.append(grade(o, self._state, ctx.now, ctx.head))
            kept.add(oid)
        ctx.deletes.extend(o.id for o in old if o.id not in kept)

    # ------------------------------------------------------------------ one reference

    def _resolve(self, ctx: _Pass, doc_path: str, ref: TextRef, when: UnitCommit) -> Resolution | RefFinding | None:
        """What ``ref`` names now; a link to a line names the symbol that was there when the
        link was written (a ``RefFinding`` when that symbol is gone since)."""
        if ref.target_kind is TargetKind.SYMBOL:
            return resolve_use(ctx.index, ref)
        res = ctx.index.resolve_path(ref.target, ref.line, doc_path)
        if res is None or not ref.line or when is None:
            return res
        old = ctx.history.old_symbols([(when[0], res.path)])[(when[0], res.path)] or []
        then = enclosing(old, ref.line)
        if then is None:
            return res
        now = next((s for s in ctx.index.symbols if s.path == res.path and s.qualname == then.qualname), None)
        if now is not None:
            return Resolution(res.path, now)
        anchor, reason = ctx.history.gone(then, old, res.path, when, ctx.index.symbols)
        return RefFinding(ref, anchor, (reason,), ctx.index.close_matches(then.qualname))

    def _finding(
        self, ctx: _Pass, doc_path: str, ref: TextRef, when: UnitCommit, previous: Observation | None, unchanged: bool
    ) -> RefFinding | None:
        res = self._resolve(ctx, doc_path, ref, when)
        if isinstance(res, RefFinding):
            return res
        before = _before(previous, ref) if previous is not None else None
        if res is not None:
            key = res.symbol.id if res.symbol is not None else f"{ctx.rt.id}:{res.path}"
            if unchanged and when is None and before is not None and before.anchor_key == key:
                # a unit not committed (or outside git) keeps the anchor it was first read with
                # (no history to judge it by); the name as written still names the code its
                # anchor followed: no rename of it. A committed unit is judged from history,
                # as a cold check judges it: the commit of its lines may have moved (lines
                # re-committed with the same words) and the anchor with it
                kept = tuple(r for r in before.finding.reasons if r.change is not ChangeKind.RENAMED)
                return replace(before.finding, ref=ref, reasons=kept, named=_called(res))
            anchor, reasons = ctx.history.baseline(res, when)
            return RefFinding(ref, anchor, reasons, named=_called(res))
        if before is not None and _gone(ctx, before):  # it named code before: dangling now
            # a committed unit as a cold check judges it (the commit that removed or renamed it
            # found in history); the reason memory followed live when history finds nothing
            named = ctx.history.named_at(ref, when, ctx.index) if when is not None else None
            got = named or _gone_before(ctx, ref, before)  # history finds nothing: what memory followed
            return _gone_finding(ctx, ref, got) if got is not None else _as_before(ctx, ref, before)
        # (code still there, not renamed, that the name no longer reaches — now ambiguous, say —
        # is judged as a cold check judges it: from what the name means now and meant when written)
        if _mentioned(ctx, ref):
            return None  # several symbols answer to it now: ambiguous, not gone
        got = ctx.history.named_at(ref, when, ctx.index)
        return _gone_finding(ctx, ref, got) if got is not None else None

    # ------------------------------------------------------------------ commits

    def refresh_commits(self, rt: RepoRuntime) -> int:
        """After HEAD moved: name the commit of changes seen before they were committed."""
        todo = [
            o
            for o in self._memory.book.all()
            if o.repo_id == rt.id and o.knowledge is not None and any(not r.commit for r in o.stale_reasons)
        ]
        if not todo:
            return 0
        ctx = self._new_pass(rt)
        for o in todo:  # (old versions are parsed only to date a removal: few)
            assert o.knowledge is not None
            blame = ctx.history.git.blame(o.knowledge.path)
            when = unit_commit(blame, o.knowledge.start_line, o.knowledge.end_line)
            reasons = tuple(_named_commit(ctx, r, o, when) for r in o.stale_reasons)
            if reasons != o.stale_reasons:
                ctx.puts.append(grade(replace(o, stale_reasons=reasons, updated_at=ctx.now), self._state, ctx.now, ""))
        ctx.history.close()
        return self._memory.apply_knowledge(ctx.puts, ())


def export_kept(keeper: KnowledgeKeeper, rt: RepoRuntime) -> bytes:
    """What ``rt``'s knowledge files are now (``keeper``'s tables), for the next start (a
    clean stop: the indexer has stopped, the journal holds every unit)."""
    book = keeper._memory.book
    digests = keeper._digests.get(rt.id, {})
    files = {
        path: kept_state.KeptFile(size, mtime, digests.get(path, ""), tuple(o.id for o in book.from_file(rt.id, path)))
        for path, (size, mtime) in rt.doc_stats.items()
    }
    kept = kept_state.KeptDocs(
        repo=rt.id,
        code=code_fingerprint(keeper._max_file_size),
        selection=_selection(rt.root),
        head=rt.indexed_commit,
        files=files,
        unresolved={p: frozenset(n) for p, n in keeper._unresolved.get(rt.id, {}).items()},
        judge_again=frozenset(keeper._read_in_batches.get(rt.id, set())),
    )
    return kept_state.encode(kept)


def take_back(keeper: KnowledgeKeeper, rt: RepoRuntime, data: bytes | None) -> str:
    """Take back into ``keeper`` what ``export_kept`` wrote at the last clean stop, when it still stands for a
    read of every file (``kept.why_not``) and HEAD did not leave its history (a commit
    whose ancestor is the kept HEAD leaves every unchanged line's commit as it was; a
    rebase, reset or another branch may change them all); returns why not ("" when taken).
    On the indexer thread, before the checkout's first pass."""
    kept = kept_state.decode(data) if data is not None else None
    if kept is None:
        return "none kept" if data is None else "unreadable"
    book = keeper._memory.book
    units = {p: frozenset(o.id for o in book.from_file(rt.id, p)) for p in book.knowledge_files(rt.id)}
    why = kept_state.why_not(
        kept, rt.id, code_fingerprint(keeper._max_file_size), _selection(rt.root), rt.indexed_commit, units
    )
    head = head_commit(rt.root)
    if not why and head != kept.head and kept.head and not is_ancestor(rt.root, kept.head, head):
        why = f"HEAD moved off {kept.head[:12]}'s history"
    if why:
        return why
    rt.doc_stats.update({p: (f.size, f.mtime_ns) for p, f in kept.files.items()})
    keeper._digests[rt.id] = {p: f.digest for p, f in kept.files.items() if f.digest}
    keeper._unresolved[rt.id] = {p: set(n) for p, n in kept.unresolved.items()}
    keeper._read_in_batches[rt.id] = set(kept.judge_again)
    return ""


def _changed(rt: RepoRuntime, digests: dict[str, dict[str, str]], path: str, abs_path: Path) -> bool:
    """Whether a knowledge file is not as last read: its size or mtime differ and so does
    its content (a file written again with the same bytes, e.g. by a checkout, is not)."""
    st = _stat(abs_path)
    if st is None or rt.doc_stats.get(path) == st:
        return st is None
    digest = digests.get(rt.id, {}).get(path)
    try:
        same = digest is not None and _digest(abs_path.read_bytes()) == digest
    except OSError:
        return True
    if same:
        rt.doc_stats[path] = st
    return not same


def _examples(pool: Callable[[], ParsePool], rt: RepoRuntime, paths: list[str]) -> dict[str, tuple[Unit, ...]]:
    """The code-example units of these knowledge files (shared notes aside), read in the
    parse workers in one batch: tree-sitter holds the GIL."""
    todo = [(p, rt.root / p) for p in paths if rt.knowledge.kind_of(p) not in (None, KnowledgeKind.SHARED_NOTE)]
    if not todo:
        return {}
    out: dict[str, tuple[Unit, ...]] = {}
    for got in pool().read_examples(todo):
        if got.examples:
            out[got.path] = got.examples
    return out


def _plan(
    ctx: _Pass, doc: KnowledgeDoc, previous: list[tuple[str, Observation | None]], uncommitted: set[str]
) -> list[_Plan]:
    """Each unit with its id, its previous observation, whether its text is unchanged,
    and the commit that last changed its lines; notes in ``ctx`` the old versions of
    code its references will need (read in one batch for the whole pass); adds ``doc`` to
    ``uncommitted`` when a unit's lines are not committed (read again once HEAD moves)."""
    plans: list[_Plan] = []
    blame = ctx.history.git.blame(doc.path) if doc.units else None
    for unit, (oid, prev) in zip(doc.units, previous, strict=True):
        unchanged = prev is not None and normalized(prev.text) == normalized(unit.text)
        # an unchanged unit too: what it names may have moved (a line link, a name now
        # meaning other code) and is judged as written, like a cold index judges it
        when = unit_commit(blame, unit.start_line, unit.end_line) if blame is not None else None
        plans.append((unit, oid, prev, unchanged, when))
        if when is None:
            # lines not committed (or outside git): their commit is known once HEAD moves
            uncommitted.add(doc.path)
            continue
        for ref in unit.refs:
            if ref.target_kind is TargetKind.PATH:
                res = ctx.index.resolve_path(ref.target, ref.line, doc.path)
                if res is not None and ref.line:
                    ctx.baselines.add((when[0], res.path))
                continue
            found = resolve_use(ctx.index, ref)
            if found is None:
                if prev is None or _before(prev, ref) is None:
                    ctx.gone.append((ref, when))
            elif found.symbol is not None and ctx.history.symbol_changed(found.symbol, when):
                ctx.baselines.add((when[0], found.path))
                ctx.changed.append((found.symbol, when))
    return plans


def _mentioned(ctx: _Pass, ref: TextRef) -> bool:
    """Whether ``ref``, a name that resolves to no one symbol, is one that several answer to now."""
    return ref.target_kind is TargetKind.SYMBOL and ctx.index.mentions(ref.target, ref.module, ref.scope)


def _blame_ahead(ctx: _Pass, docs: Sequence[KnowledgeDoc]) -> None:
    """Blame, several at once (``GitHistory.blame_all``), what ``_plan`` will blame one by one:
    the files of ``docs`` with units, then the code files their committed units name."""
    git = ctx.history.git
    git.blame_all(d.path for d in docs if d.units)
    code: list[str] = []
    for d in docs:
        blame = git.blame(d.path) if d.units else {}
        for unit in d.units:
            if unit_commit(blame, unit.start_line, unit.end_line) is None:
                continue
            for ref in unit.refs:
                found = resolve_use(ctx.index, ref) if ref.target_kind is not TargetKind.PATH else None
                if found is not None and found.symbol is not None:
                    code.append(found.symbol.path)
    git.blame_all(code)


def _history(
    rt: RepoRuntime, shared: SharedHistory, pool: Callable[[], ParsePool], state: GraphState, now: float
) -> KnowledgeHistory:
    """A pass's view of ``rt``'s history, with what ``shared`` kept of its repository's."""
    place = git_place(rt.root)
    if place is None:
        return KnowledgeHistory(rt.id, GitHistory(rt.root), pool, state, now)
    kept = shared.of(scope(str(place.common_dir), place.prefix))
    return KnowledgeHistory(rt.id, GitHistory(rt.root, ids=kept.ids, blames=kept.blames), pool, state, now, kept.parses)


def _named_commit(ctx: _Pass, r: StaleReason, o: Observation, when: UnitCommit) -> StaleReason:
    """``r`` with the commit that made the change, once it is committed."""
    if r.commit:
        return r
    code = ctx.history.code
    commit = ""
    if r.change is ChangeKind.RENAMED:
        path, _, qualname = r.anchor_ref.rpartition("::")
        new = next((a for a in o.anchors if a.ref == r.new_ref), None)
        kind = new.symbol_id.rpartition("#")[2] if new is not None else ""
        commit = ctx.history.gone_commit(path, qualname, kind, when) if path and kind else ""
    elif r.change is ChangeKind.DEPENDENCY_CHANGED:
        dep = code.symbol(r.dependency_id)
        commit = ctx.history.change_commit(dep, when) if dep is not None else ""
    else:
        a = next((a for a in o.anchors if a.ref == r.anchor_ref), None)
        s = code.symbol(a.symbol_id) if a is not None and a.symbol_id else None
        if s is not None:
            commit = ctx.history.reason_commit(s, when, r)
        elif a is not None and a.symbol_id and r.change is ChangeKind.REMOVED:
            qualname, _, kind = a.symbol_id.rpartition("::")[2].rpartition("#")
            commit = ctx.history.gone_commit(a.path, qualname, kind, when)
    return replace(r, commit=commit, uncommitted=False) if commit else r


def _gone_finding(ctx: _Pass, ref: TextRef, got: Gone) -> RefFinding | None:
    """The finding of a name gone as a symbol: dangling (with the closest names there are
    now), deprecated (a module still serves it with a warning: the served code is what it
    names), or nothing to say (served without a warning, or a bare name the code now imports
    from outside the repository: ``_imported_instead``)."""
    if got.reason is not None and _imported_instead(ctx, ref, (got.reason,)):
        return None
    dangling = got.reason is not None and got.reason.change in _GONE
    close = ctx.index.close_matches(ref.target.lstrip(".")) if dangling else ()
    reasons = (got.reason,) if got.reason is not None else ()
    return RefFinding(ref, got.anchor, reasons, close, named=got.named)


def _as_before(ctx: _Pass, ref: TextRef, before: _Before) -> RefFinding | None:
    """A reference gone as memory last judged it, with the closest names there are now;
    nothing when the code now imports the name from outside (``_imported_instead``)."""
    if _imported_instead(ctx, ref, before.finding.reasons):
        return None
    return replace(before.finding, ref=ref, close_matches=ctx.index.close_matches(ref.target.lstrip(".")))


def _imported_instead(ctx: _Pass, ref: TextRef, reasons: Sequence[StaleReason]) -> bool:
    """Whether a bare name whose definition was removed (not renamed) still names what the
    code imports under it from outside the repository: Jinja 3.1 removed its deprecated
    ``class Markup(markupsafe.Markup)`` and imports ``Markup`` from ``markupsafe`` in its
    modules, so "wrap it in ``Markup``" still holds. Not for a name a Sphinx role reads under
    a ``currentmodule`` (``jinja2.Markup`` is gone), a dotted one or one read in a section's
    scope: those name the repository's own code."""
    if ref.target_kind is not TargetKind.SYMBOL or ref.scope or (ref.module and ref.kind is not RefKind.CODE):
        return False
    if not any(r.change is ChangeKind.REMOVED for r in reasons):
        return False
    return ctx.index.foreign(ref.target)


def _gone_before(ctx: _Pass, ref: TextRef, before: _Before) -> Gone | None:
    """A reference whose previous anchor's code is gone, in a unit whose lines were written
    after the name went (history knows no code it named then: ``.. class:: OrderedMultiDict``
    rewritten to say it is deprecated in the commit that made ``__getattr__`` serve it):
    deprecated when a module still serves the name with a warning (``served_as``), else
    dangling for the reason memory followed (the anchor's removal when it followed none yet:
    the pass can read the text before memory judged the unit)."""
    anchor = before.finding.anchor
    gone = next((r for r in before.finding.reasons if r.change in _GONE), None)
    if gone is None:
        gone = evaluate_anchor(anchor, ctx.history.code, ctx.history.now, "", body=False)
        if gone is None or gone.change not in _GONE:
            return None
    if anchor.kind is AnchorKind.SYMBOL:
        served = served_as(ctx.history.git.root, ref, anchor, anchor.path, gone, ctx.index, ctx.history.now)
        if served is not None:
            return served
    return Gone(anchor, gone)


def _called(res: Resolution) -> Anchor | None:
    """The class a call names when what it is bound against is the class's constructor."""
    return symbol_anchor(res.called) if res.called is not None else None


def _before(previous: Observation, ref: TextRef) -> _Before | None:
    """What ``previous`` said of the reference written as ``ref.text``: its anchor (followed
    through renames) and the reasons about it."""
    match = next((r for r in previous.references if r.text == ref.text), None)
    if match is None:
        return None
    chain = {match.target_ref}
    for r in previous.stale_reasons:
        if r.change is ChangeKind.RENAMED and r.anchor_ref in chain and r.new_ref:
            chain.add(r.new_ref)
    reasons = tuple(r for r in previous.stale_reasons if r.anchor_ref in chain)
    anchor = next((a for a in previous.anchors if a.ref in chain), None)
    if anchor is None:
        # deprecated: the finding followed the module hook that serves the name; the name's
        # own code is gone (its anchor as the reason recorded it: ``_gone_before`` asks again)
        deprecated = next((r for r in reasons if r.change is ChangeKind.DEPRECATED), None)
        if deprecated is None:
            return None
        path = deprecated.anchor_ref.partition("::")[0]
        anchor = Anchor(AnchorKind.SYMBOL, deprecated.anchor_ref, previous.repo_id, path,
                        signature=deprecated.old_signature)  # fmt: skip
        reasons = ()
    key = anchor.symbol_id or f"{anchor.repo_id}:{anchor.path}"
    return _Before(key, RefFinding(ref, anchor, reasons, match.close_matches))


def _gone(ctx: _Pass, before: _Before) -> bool:
    """Whether the code a reference's previous anchor followed is gone from the graph (its
    symbol, or its file), or was renamed or moved (memory followed it: the text still says
    the old name)."""
    if any(r.change in _GONE for r in before.finding.reasons):
        return True
    anchor = before.finding.anchor
    if anchor.kind is AnchorKind.SYMBOL:
        return ctx.history.code.symbol(anchor.symbol_id) is None
    return anchor.path not in ctx.index.paths


def _keep_history(o: Observation, previous: Observation) -> Observation:
    """An unchanged unit keeps what its observation had beyond the file: its status (an
    archived or superseded one stays so), its dependency reasons (they mark the unit, not its
    references) and whether it needs review."""
    deps = tuple(r for r in previous.stale_reasons if r.change is ChangeKind.DEPENDENCY_CHANGED)
    extra = tuple(r for r in deps if r not in o.stale_reasons)
    return replace(o, status=previous.status, stale_reasons=o.stale_reasons + extra, needs_review=previous.needs_review)


def _read(path: str, data: bytes, kind: KnowledgeKind) -> tuple[KnowledgeDoc, dict[int, SharedNote]]:
    """A file's units, and for a shared note its front matter (by unit index)."""
    if kind is KnowledgeKind.SHARED_NOTE:
        got = read_note(path, decode(data))
        if got is not None:
            return KnowledgeDoc(path, kind, (got[1],)), {0: got[0]}
    return read_doc(path, data, kind), {}


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _selection(root: Path) -> str:
    """The digest of a checkout's ``.graphmem.toml`` ("" when it has none)."""
    try:
        return _digest((root / CONFIG_FILE).read_bytes())
    except OSError:
        return ""


@functools.cache
def code_fingerprint(max_file_size: int) -> str:
    """A fingerprint of the code that reads and grades knowledge files: the daemon's version,
    every source and rules file of the daemon, the shared types and the size limit (an
    upgrade reads every file again once; ~20 ms, once per process)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{__version__}:{max_file_size}".encode())
    daemon = Path(__file__).resolve().parent.parent
    for p in sorted(q for q in daemon.rglob("*") if q.suffix in (".py", ".toml", ".scm")):
        h.update(p.relative_to(daemon).as_posix().encode())
        h.update(p.read_bytes())
    h.update(Path(shared_types.__file__).read_bytes())  # (units and reasons are made of them)
    return h.hexdigest()


def _stat(p: os.PathLike[str]) -> tuple[int, int] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns
