"""Operations on the checkouts of a repository: a worktree found or gone, a clone linked, and
what ``status`` says of a checkout's repository (see docs/how-it-works.md, "One repository,
many checkouts")."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from graphmem.errors import FailedPrecondition, GraphMemError, InvalidArgument
from graphmem.types import Anchor, AnchorKind, Checkout, Observation, ObservationStatus, Repository

from graphmemd.app.status import repository_summary
from graphmemd.app.worktrees import GitDirWatch, WorktreeWatch
from graphmemd.graph.graphstate import GraphState
from graphmemd.indexing.bodylines_git import measure_bodies
from graphmemd.indexing.indexer import Indexer, Job, rescan_moved
from graphmemd.ingest.checkouts import RegistryCheckouts
from graphmemd.ingest.gitinfo import head_branch, head_commit, head_info, uncommitted_paths
from graphmemd.ingest.registry import RepoRegistry, RepoRuntime
from graphmemd.ingest.watcher import RepoWatcher
from graphmemd.memory.anchors import CodeView
from graphmemd.memory.bodylines import BodyQuery
from graphmemd.memory.memory import Memory
from graphmemd.memory.observations import NO_ORIGIN, Origin
from graphmemd.retrieval.cochange_git import CoChangeKeeper
from graphmemd.retrieval.readview import ReadView
from graphmemd.runtime.health import Health
from graphmemd.runtime.supervisor import SupervisedThread

logger = logging.getLogger(__name__)


class CheckoutOps:
    """What spans the registry, memory's projections, the indexer and the watcher when a
    checkout comes, goes or joins a repository."""

    def __init__(
        self,
        registry: RepoRegistry,
        parts: Callable[[], tuple[Memory, Indexer, RepoWatcher | None]],
        add: Callable[[Path], RepoRuntime],
        cochange: CoChangeKeeper,
        health: Health,
    ) -> None:
        self._registry = registry
        self._parts = parts
        self._add = add
        self._cochange = cochange
        #: worktrees added and removed by git are registered and dropped by themselves
        self.watch = WorktreeWatch(registry.all, registry.declined, self.found, self.drop, watched=self._watched,
                                   moved=self.moved, gone_entries=registry.gone_entries)  # fmt: skip
        self._loop = SupervisedThread("worktrees", self.watch.step, health)
        #: wakes that loop, and co-change's, when a common git directory or its worktree folders
        #: change (a worktree added or removed; a commit, checkout or reset: each writes there)
        self._git_dirs = GitDirWatch(self.watch.common_dirs, self._git_changed)
        #: each common directory's refs at the last look (``_refs_moved``)
        self._refs: dict[Path, tuple[str, ...]] = {}
        #: the registry's checkouts as memory sees them (``attach``)
        self._map = RegistryCheckouts(registry)
        self._git_loop = SupervisedThread("git-dirs", self._git_dirs.step, health)

    def _watched(self) -> bool:
        return self._git_dirs.live

    def _git_changed(self) -> None:
        self.watch.wake()
        self._cochange.wake()
        # a commit, checkout or reset moved a HEAD: its rescan now, not at the next query there
        with contextlib.suppress(FailedPrecondition):  # (not started yet)
            rescan_moved(self._registry.all(), self._parts()[1].submit)
        self._refs_moved()

    def _refs_moved(self) -> None:
        """A branch was made or deleted (the refs of a common directory changed since the last
        look): every checkout of that repository judges its siblings' notes again. A note made
        on a branch deleted unmerged is then judged on each checkout's code, not "on branch"."""
        by_common: dict[Path, list[RepoRuntime]] = {}
        for rt in self._registry.all():
            if rt.common_dir is not None:
                by_common.setdefault(rt.common_dir, []).append(rt)
        for common, rts in by_common.items():
            signature, before = self._map.refs_now(common), self._refs.get(common)
            self._refs[common] = signature
            if before is not None and before != signature:
                for rt in rts:
                    self._parts()[0].views.refresh(rt.id)

    def attach(self, memory: Memory, code: CodeView) -> None:
        """Let memory project every note into the other checkouts of its repository."""
        memory.views.attach(self._map, code)

    def _unwatch(self, root: Path) -> None:
        watcher = self._parts()[2]
        if watcher is not None:
            watcher.remove_root(root)

    def start(self) -> None:
        """Start watching the registered repositories' worktrees."""
        self._loop.start()
        self._git_loop.start()

    def stop(self) -> None:
        """Stop watching them (the loops end at their next step)."""
        self._git_dirs.stop()
        self.watch.stop()

    def removing(self, rt: RepoRuntime) -> None:
        """The user removes ``rt``: it is not watched, a worktree of a repository of several
        is not registered again by itself, and it shows nothing any more."""
        self._unwatch(rt.root)
        if self._registry.siblings(rt.id):
            self._registry.decline(rt.root)
        self._parts()[0].views.forget(rt.id)

    def found(self, root: Path) -> None:
        """A worktree of a registered repository appeared (``worktrees.py``): register it."""
        try:
            self._add(root)
        except GraphMemError as exc:  # e.g. nested inside a registered checkout
            logger.warning("new worktree %s not registered: %s", root, exc)
            self._registry.decline(root, "refused")

    def drop(self, rt: RepoRuntime) -> None:
        """A worktree was removed (or its directory deleted): forget its graph, keep its notes
        (its siblings go on showing them)."""
        memory, indexer, _ = self._parts()
        self._unwatch(rt.root)
        memory.views.forget(rt.id)
        job = indexer.submit(Job("remove", rt.id))
        job.done.wait(60)
        self._cochange.forget(rt.id)
        for sibling in self._registry.siblings(rt.id):  # its notes are judged on each sibling's code
            memory.views.refresh(sibling.id)

    def moved(self, old: str, root: Path) -> None:
        """The worktree of the checkout ``old`` (dropped) was moved to ``root`` (registered
        now, ``found``): the notes saved in ``old`` are that checkout's (``Memory.rehome``:
        their anchors then its), and every checkout of the repository shows them so."""
        rt = self._registry.of_path(root)
        if rt is None or rt.root != root:  # (its registration failed: the notes stay where they were, shown)
            return
        memory = self._parts()[0]
        for o in [o for o in memory.book.all() if o.repo_id == old]:
            memory.rehome(o.id, rt.id, announce=True)
        self._registry.forget_entry(old)
        for each in self._registry.checkouts(rt.repository):
            memory.views.refresh(each.id)

    def link(self, path: str, to: str) -> RepoRuntime:
        """Make the registered checkout ``path`` (a separate clone) a checkout of ``to``'s
        repository; each then shows the other's notes."""
        rt = self._registry.find(path)
        target = self._registry.repository(to)
        if target == rt.repository:
            raise InvalidArgument(f"{rt.id} is already a checkout of repository {rt.repository}")
        self._registry.link(rt, target)
        memory = self._parts()[0]
        for each in self._registry.checkouts(target):
            memory.views.refresh(each.id)
        return rt

    def describe(
        self,
        rt: RepoRuntime,
        listed: dict[str, tuple[Checkout, ...]] | None = None,
        by_checkout: Mapping[str, Sequence[Observation]] | None = None,
    ) -> Repository:
        """A checkout's summary (``status.repository_summary``, its own notes and those it
        shows from its siblings) with its repository, branch, every checkout of that
        repository (each with how many notes were saved in it; gone ones marked, and left out
        when none was) and the look-alike clones of other repositories. ``listed``: the
        checkouts of each repository already read in this request (by repository id; filled
        here), so that describing every checkout of a repository reads each one's HEAD once,
        not once per checkout.
        ``by_checkout``: the saved notes by checkout, when the caller sorted them already
        (None: sorted here)."""
        memory = self._parts()[0]
        by_checkout = _by_checkout(memory.book.all()) if by_checkout is None else by_checkout
        own = by_checkout.get(rt.id, ())
        summary = repository_summary(rt, [*own, *memory.views.projections.in_checkout(rt.id)])
        listed = {} if listed is None else listed
        checkouts = listed.get(rt.repository)
        if checkouts is None:
            every = (
                Checkout(cid, str(root), *head_info(root), not root.is_dir(),
                         sum(o.knowledge is None for o in by_checkout.get(cid, ())))  # (its notes, not its docs)
                for cid, root in (self._registry.members(rt.repository) or [(rt.id, rt.root)])
            )  # fmt: skip
            # (a removed worktree where no note was saved holds nothing: one line each of an agent's
            # worktrees, a worktree per session, would bury the checkouts there are)
            checkouts = listed[rt.repository] = tuple(c for c in every if not c.missing or c.notes)
        here = next((c for c in checkouts if c.id == rt.id), None)
        return replace(
            summary,
            repository_id=rt.repository,
            branch=here.branch if here is not None else head_branch(rt.root),
            checkouts=checkouts,
            possible_clones=tuple(self._registry.clones_of(rt)),
        )

    def describe_all(self, rts: Iterable[RepoRuntime]) -> list[Repository]:
        """``describe`` of each of ``rts``, every repository's checkouts read once and the
        notes sorted by checkout once."""
        listed: dict[str, tuple[Checkout, ...]] = {}
        by_checkout = _by_checkout(self._parts()[0].book.all())
        return [self.describe(rt, listed, by_checkout) for rt in rts]


def leave_out_of_outer(registry: RepoRegistry, rt: RepoRuntime, submit: Callable[[Job], object]) -> None:
    """``rt`` was just registered: when it lies inside another checkout of its repository (a
    worktree in the main checkout's ``.claude/worktrees/``), that one's walk and watch leave
    its directory out from now on (``RepoFilter``: its verdicts read again) and a pass of it
    removes what it took of those files before (a watcher batch while git wrote them)."""
    outer = registry.of_path(rt.root.parent)
    if outer is not None and outer.id != rt.id and outer.repository == rt.repository:
        outer.filter.reload()
        submit(Job("index", outer.id))
        logger.info("%s: the worktree %s inside it is a checkout of its own; left out of its walk", outer.id, rt.root)


def _by_checkout(notes: Iterable[Observation]) -> dict[str, list[Observation]]:
    """``notes`` by the checkout each was saved in."""
    out: dict[str, list[Observation]] = {}
    for o in notes:
        out.setdefault(o.repo_id, []).append(o)
    return out


def origin_of(
    rt: RepoRuntime | None,
    anchors: Iterable[Anchor] = (),
    shared: bool = False,
    lines: Callable[[Anchor], tuple[int, int] | None] = lambda _a: None,
) -> Origin:
    """Where a note saved in checkout ``rt`` on ``anchors`` is made: the commit and branch its
    HEAD is at and, when its repository has other checkouts (``shared``), whether its anchored
    code differs from that commit (the note is then about code no other checkout holds): a
    file anchor whose file differs, a symbol whose lines (``lines``: its span now) a diff of
    its file from HEAD touches — or that cannot be measured (a file HEAD does not have)."""
    if rt is None:
        return NO_ORIGIN
    commit = head_commit(rt.root)
    mine = [a for a in anchors if a.repo_id == rt.id and a.path]
    dirty = uncommitted_paths(rt.root, {a.path for a in mine}) if shared and commit and mine else frozenset()
    return Origin(commit, head_branch(rt.root), _uncommitted(rt.root, [a for a in mine if a.path in dirty], lines))


def symbol_lines(state: GraphState, a: Anchor) -> tuple[int, int] | None:
    """The lines the symbol ``a`` is anchored to spans now (None: not in the graph)."""
    with state.reading() as graph:
        s = graph.symbols.get(a.symbol_id)
    return (s.start_line, s.end_line) if s is not None else None


def _uncommitted(root: Path, anchors: Sequence[Anchor], lines: Callable[[Anchor], tuple[int, int] | None]) -> bool:
    """Whether any of ``anchors`` (each in a file that differs from HEAD) is code HEAD does not
    have as it is now (``origin_of``)."""
    queries: list[BodyQuery] = []
    for a in anchors:
        span = lines(a) if a.kind is AnchorKind.SYMBOL else None
        if span is None:
            return True  # a whole file, or a symbol not known: its file differs
        queries.append(BodyQuery(a.ref, a.path, *span))
    counts = measure_bodies(root, queries, "") if queries else {}
    return any(counts.get(q.anchor_ref, 1) > 0 for q in queries)


def confirming_elsewhere(view: ReadView, home: Observation, checkout: str, shown: Observation | None = None) -> str:
    """Why confirming ``home`` (a note as saved) from ``checkout`` is refused ("" when it is
    not): a note confirms on the code of the checkout it was saved in. Stale or suspect only in
    another checkout (fresh at home), it would be re-anchored to code that did not change and
    stay stale where it was confirmed. ``shown``: the note as ``checkout`` shows it, when the
    caller has it already (read otherwise)."""
    if not checkout or checkout == home.repo_id or not view.registered(home.repo_id):
        return ""  # (a note whose checkout is gone is confirmed where it is shown: ``adopt_orphan``)
    if shown is None:
        shown = view.observation_in(home.id, (checkout,))
    doubted = (ObservationStatus.STALE, ObservationStatus.SUSPECT)
    if shown.status not in doubted or home.status in doubted:
        return ""
    home_rt = view.repo(home.repo_id)
    branch = head_branch(home_rt.root)
    where = f"{home_rt.root}" + (f" (branch {branch})" if branch else "")
    return (
        f"{home.id} is {shown.status.value} only in this checkout: it was saved in {where}, where it is "
        f"{home.status.value}. Confirm it there once this change is merged; if it no longer holds, edit its text"
    )


def adopt_orphan(view: ReadView, memory: Memory, o: Observation, checkout: str) -> Observation:
    """``o``, moved to ``checkout`` (when that is not a checkout of its repository: the
    repository's main one) when the checkout it was saved in is gone (an agent's worktree
    removed once its branch was merged): confirming it there re-anchors it on that checkout's
    code, which becomes its home. Unchanged when its repository has no checkout left."""
    if view.registered(o.repo_id):
        return o
    heir = view.heir(o.repo_id, checkout)
    return memory.rehome(o.id, heir) if heir else o


def current_anchors(view: ReadView, o: Observation) -> tuple[list[Anchor], list[str]]:
    """``o``'s anchors on the code as it is now (what a confirmation re-anchors it to), and the
    references of those whose code is gone."""
    anchors: list[Anchor] = []
    lost: list[str] = []
    for a in o.anchors:
        now = view.current_anchor(a)
        if now is None:
            lost.append(a.ref)
        else:
            anchors.append(now)
    return anchors, lost
