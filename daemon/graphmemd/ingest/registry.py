"""The repository registry: records, roots, facts and lifecycle of registered repositories.

A registered root is a *checkout*; checkouts that share a git common directory (the worktrees
of one repository), and clones joined with ``link``, are one *repository*: ``RepoRuntime.id``
is the checkout's id (its graph, symbols and parse cache are its own), ``repository`` the
repository's id (the id of the main working tree's path, so a repository's first checkout
keeps the id it always had). Every checkout ever registered in a repository of several is
remembered (``checkouts`` in ``repos.json``), so the notes saved in one whose directory is
gone stay in their repository.

The one place that answers "which repository does this path belong to": the deepest
registered root containing it. Roots are persisted in ``repos.json`` (atomically) so a
restarted daemon registers them again. Nested repositories (a root inside another
registered root, or containing one) are refused with the conflicting root named.

``RepoRuntime`` is a repository's record: identity, root, ignore rules, resolver and the
counters the indexer maintains (read by ``status`` without waiting for the indexer).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from graphmem.errors import FailedPrecondition, InvalidArgument, NotFound
from graphmem.types import IndexProgress, IndexState

from graphmemd.graph.model import ResolvedEdges
from graphmemd.graph.recent import RecentSymbols
from graphmemd.graph.resolution import RepoFacts, RepoResolver, facts_from_files
from graphmemd.ingest.activity import IDLE, Activity, Doing
from graphmemd.ingest.gitinfo import git_place, worktree_entry
from graphmemd.ingest.gitparse import WorktreeEntry
from graphmemd.ingest.identity import RepoIdentity, identity_of
from graphmemd.ingest.knowledge.selection import DEFAULT_SELECTION, KnowledgeSelection
from graphmemd.ingest.parse_pack import CachedHead
from graphmemd.ingest.walker import RepoFilter, WalkedFile, walk_repo

logger = logging.getLogger(__name__)


def initial_facts(root: Path, flt: RepoFilter) -> RepoFacts:
    """Repository facts (go.mod, Cargo.toml, tsconfig/package.json, Python project files)
    from a walk of the tree at registration. The indexer refreshes them with
    ``facts_from_files`` after its own walks and when a fact file changes."""
    return facts_from_files(root, [w.path for w in walk_repo(root, filter=flt) if isinstance(w, WalkedFile)])


def repo_id_for(root: Path) -> str:
    """A stable, readable id: the directory name plus a short hash of the absolute path."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.name).strip("-") or "repo"
    digest = hashlib.blake2b(str(root).encode(), digest_size=3).hexdigest()
    return f"{name}-{digest}"


def repository_id_for(root: Path, common_dir: Path | None, prefix: str = "") -> str:
    """The id of the repository a checkout at ``root`` belongs to: that of its main working
    tree (the directory holding the common ``.git``), or of the common directory itself for a
    bare repository's worktrees; ``root``'s own id outside git. A folder registered inside a
    working tree (``prefix``, relative to its top) is the same folder of the main working
    tree: two folders of one repository are two repositories to graphmem, and a folder and
    that same folder in another worktree are two checkouts of one."""
    if common_dir is None:
        return repo_id_for(root)
    main = common_dir.parent if common_dir.name == ".git" else common_dir
    return repo_id_for(main / prefix if prefix else main)


@dataclass(eq=False)
class RepoRuntime:
    """A registered repository and the counters its indexer maintains."""

    id: str
    root: Path
    filter: RepoFilter
    resolver: RepoResolver
    state: IndexState = IndexState.PENDING
    files_done: int = 0
    files_total: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    error: str = ""
    indexed_commit: str = ""
    dirty: bool = False
    last_indexed_at: float | None = None
    pending: set[Path] = field(default_factory=set)
    queued: bool = False
    rescan_queued: bool = False
    busy: bool = False
    n_files: int = 0
    n_symbols: int = 0
    n_edges: int = 0
    #: the graph's ``GraphState.version`` when ``n_edges`` was counted (-1: never)
    edges_at: int = -1
    #: the repository facts are still to be read: registered with its load queued, whose
    #: snapshot holds them (``restore``); otherwise read by the first job that may resolve
    #: (``ensure_facts``), never later than that
    facts_pending: bool = False
    #: the indexed sibling checkout whose facts it took at registration instead of walking its
    #: tree (``borrow_facts``; "": none): its first index pass reads its own from its walk,
    #: before it parses anything when it does not derive (a derivation takes the sibling's
    #: facts, then compares them with the walk's as every pass does)
    facts_borrowed: str = ""
    stats: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (size, mtime_ns) at last parse
    #: path -> (size, mtime_ns) of the files the last watcher batch applied (graph, notes, knowledge):
    #: an edit's call-outs are answerable then, before the batch's job ends (``app/settle.py``)
    applied: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Files parsed since the daemon started (a restart with nothing changed parses none).
    files_parsed: int = 0
    #: Symbols in the files parsed by the current pass (progress while the graph is empty).
    pass_symbols: int = 0
    #: The next index pass re-anchors observations (some parses came from another parser).
    rebase: bool = False
    #: What its recent deltas removed and added: the other half of a move seen in two batches
    recent: RecentSymbols = field(default_factory=RecentSymbols)
    #: Passes and batches whose store writes are queued and not durable yet (``DeltaSink.mark``):
    #: co-change mining waits for none, so that it does not compete with a pass's bulk write.
    unwritten: int = 0
    #: Parses a warm restart read back that the resolver does not hold yet (path -> encoded
    #: parse, ``parsecache.py``, or its head in the parse cache when the restart read only
    #: the heads), and the edges the store had for them: the indexer reads and decodes them,
    #: hands them over and re-resolves when it is next idle (``restore.hand_over``), so that
    #: a restart answers before it resolves.
    unhanded: dict[str, str | CachedHead] = field(default_factory=dict)
    stored_edges: ResolvedEdges | None = None
    #: The sibling checkout this one's files, graph and resolver state were derived from in
    #: this run of the daemon (``indexing/derive.py``); "" for one indexed on its own, or
    #: restored. A new checkout derives from a sibling that was not derived itself when it can.
    derived_from: str = ""
    identity: RepoIdentity = field(default_factory=RepoIdentity)
    #: the repository this checkout belongs to (``repository_id_for``; its own id when alone)
    repository: str = ""
    #: the git directory its worktrees share (None: not in a git working tree)
    common_dir: Path | None = None
    #: the root relative to the top of its git working tree ("" at the top, else "a/b/")
    git_prefix: str = ""
    #: a linked worktree's entry in the common directory's ``worktrees/`` and that entry's
    #: ``entry_stamp`` when it was registered (None otherwise): the same worktree after a
    #: ``git worktree move`` (``app/worktrees.py``)
    git_entry: WorktreeEntry | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: which files are knowledge files (``.graphmem.toml``), and why that file was not usable
    knowledge: KnowledgeSelection = DEFAULT_SELECTION
    knowledge_error: str = ""
    #: knowledge file -> (size, mtime_ns) when it was last read
    doc_stats: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the step of the job the indexer runs on it now (``activity.py``: what ``status`` says)
    activity: Activity = IDLE

    @classmethod
    def create(cls, root: Path, *, facts: bool = True) -> RepoRuntime:
        """A new record for the directory ``root`` (absolute, resolved). ``facts``: read the
        repository facts now (``initial_facts``: a walk of the tree); without, they are empty
        until the caller sets them (``read_facts``), which it must do before anything resolves."""
        if not root.is_dir():
            raise InvalidArgument(f"not a directory: {root}")
        rid = repo_id_for(root)
        flt = RepoFilter(root)
        rt = cls(
            id=rid,
            root=root,
            filter=flt,
            resolver=RepoResolver(rid, initial_facts(root, flt) if facts else RepoFacts()),
        )
        place = git_place(root)
        if place is not None:
            rt.common_dir, rt.git_prefix = place.common_dir, place.prefix
            rt.git_entry = worktree_entry(place.git_dir) if place.git_dir != place.common_dir else None
        rt.identity = identity_of(root, rt.git_prefix)
        rt.repository = repository_id_for(root, rt.common_dir, rt.git_prefix)
        return rt

    def read_facts(self) -> None:
        """Set the repository facts from a walk of the tree (``initial_facts``)."""
        self.set_facts(initial_facts(self.root, self.filter))

    def borrow_facts(self, sibling: RepoRuntime) -> None:
        """Set the repository facts to ``sibling``'s (a new checkout of its repository: a
        worktree), for its first index pass to read its own (``facts_borrowed``)."""
        self.set_facts(sibling.resolver.facts)
        self.facts_borrowed = sibling.id

    def set_facts(self, facts: RepoFacts) -> None:
        """Set the repository facts (read, or as a warm restart's snapshot kept them)."""
        self.resolver.set_facts(facts)
        self.facts_pending = False

    def ensure_facts(self) -> None:
        """Read the facts if they are still to be read (``facts_pending``): before anything
        resolves a file of this repository."""
        if self.facts_pending:
            self.read_facts()

    def progress(self, started: float) -> IndexProgress:
        """The index progress, from the counters the indexer maintains (safe from any thread).
        During a first pass, when the graph has nothing yet, the symbols found so far."""
        symbols = self.n_symbols or self.pass_symbols
        return IndexProgress(
            self.id, self.state, self.files_done, self.files_total, symbols, len(self.skipped), time.time() - started
        )

    def doing(self) -> Activity:
        """What the indexer is doing to this checkout now, with an index pass's live figures."""
        a = self.activity
        return Activity(Doing.PARSING, self.files_done, self.files_total) if a.doing is Doing.PARSING else a

    def rel(self, path: Path) -> str | None:
        """``path`` relative to the root (POSIX), or None when outside."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return None
        text = rel.as_posix()
        return None if text in ("", ".") else text

    def contains(self, path: Path) -> bool:
        """Whether ``path`` is the root or inside it."""
        return path == self.root or self.root in path.parents


def _one_repository(root: Path, other: RepoRuntime) -> bool:
    """Whether ``root``, nested with ``other``'s root, is a checkout of ``other``'s repository
    (another working tree of it: a worktree inside the main checkout, as Claude Code puts its
    worktrees in ``.claude/worktrees/``). The outer one's walk leaves the inner one out
    (``RepoFilter``), so no file is in both."""
    place, common = git_place(root), other.common_dir
    return place is not None and common is not None and place.common_dir.resolve() == common.resolve()


def expand_user(path: Path | str) -> Path:
    """``path`` with a leading ``~``/``~user`` expanded; as written when that user has no
    home directory (``~0``: pathlib raises RuntimeError, which must not reach a client)."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return Path(path)


def resolve_root(path: Path | str) -> Path:
    """An existing directory as an absolute, symlink-free path (InvalidArgument otherwise)."""
    root = expand_user(path).absolute()
    try:
        root = root.resolve(strict=True)
    except OSError as exc:
        raise InvalidArgument(f"no such directory: {root}") from exc
    if not root.is_dir():
        raise InvalidArgument(f"not a directory: {root}")
    return root


class RepoRegistry:
    """Every registered repository, by id; persisted as a list of roots, with the identity
    of every repository ever registered (so one registered again elsewhere is recognised)."""

    def __init__(self, repos_file: Path) -> None:
        self._file = repos_file
        self._lock = threading.Lock()
        self._repos: dict[str, RepoRuntime] = {}
        self._identities: dict[str, RepoIdentity] = load_identities(repos_file)
        #: root -> repository id, for clones joined with ``link``
        self._links: dict[str, str] = load_section(repos_file, "links")
        #: checkout id -> (repository id, root) for every checkout of a repository of several
        self._members: dict[str, tuple[str, str]] = load_members(repos_file)
        #: worktree roots not registered again by themselves -> why: "removed" (the user's ``repo
        #: remove``), "refused" (registering it failed); "" in a file older than the reasons
        self._declined: dict[str, str] = load_section(repos_file, "declined")
        #: checkout id -> its worktree's entry in the common directory and that entry's stamp
        #: (``RepoRuntime.git_entry``), kept after it is gone: a worktree moved while the
        #: daemon was stopped is that checkout at its new path (``gone_entries``)
        self._entries: dict[str, WorktreeEntry] = load_entries(repos_file)

    def saved_roots(self) -> list[Path]:
        """The roots persisted by the last run (unreadable file: none)."""
        return load_registry(self._file)

    def roots_to_register(self, configured: Iterable[Path]) -> list[Path]:
        """What a start registers: the roots the last run saved, less the checkouts removed
        meanwhile (``gone_checkout``: not an error, their notes stay), then ``configured``."""
        configured = list(configured)
        saved = []
        for root in self.saved_roots():
            if root not in configured and self.gone_checkout(root):
                logger.info("checkout %s was removed while the daemon was stopped: not registered, notes kept", root)
            else:
                saved.append(root)
        return list(dict.fromkeys([*saved, *configured]))

    def gone_checkout(self, root: Path) -> bool:
        """Whether ``root`` (a saved root) is a checkout whose directory is gone while another
        checkout of its repository is still there: a worktree removed while the daemon was
        stopped (its notes stay with the repository). A lone repository's missing directory is
        not (an unmounted disk, say: registering it fails, and says so)."""
        if root.is_dir():
            return False
        with self._lock:
            members = list(self._members.values())
        repository = next((rep for rep, r in members if r == str(root)), None)
        return repository is not None and any(rep == repository and Path(r).is_dir() for rep, r in members)

    def identity(self, repo_id: str) -> RepoIdentity | None:
        """The identity of a repository registered now or before."""
        with self._lock:
            return self._identities.get(repo_id)

    def former_ids(self, rt: RepoRuntime) -> list[str]:
        """Ids of repositories no longer registered that were clones of ``rt``'s repository
        (the same working tree moved, or an earlier clone)."""
        with self._lock:
            live = {r.repository for r in self._repos.values()}
            return sorted(
                rid
                for rid, ident in self._identities.items()
                if rid not in self._repos
                and ident.same_repository(rt.identity)
                # a gone checkout of a repository still here keeps its notes where they are
                and self._members.get(rid, ("", ""))[0] not in live
            )

    def local_for(self, repo_id: str, identity: RepoIdentity | None) -> RepoRuntime | None:
        """The registered repository that knowledge recorded for ``repo_id`` (with
        ``identity``) belongs to here: the same id, else the one clone of the same repository."""
        with self._lock:
            if repo_id in self._repos:
                return self._repos[repo_id]
            known = identity or self._identities.get(repo_id)
            if known is None:
                return None
            clones = [rt for rt in self._repos.values() if rt.identity.same_repository(known)]
            return clones[0] if len(clones) == 1 else None

    def register(self, path: Path | str, *, facts: bool = True) -> tuple[RepoRuntime, bool]:
        """Register the directory ``path``; returns the record and whether it is new (without
        ``facts``, a new one's repository facts are left for the caller: ``RepoRuntime.create``)."""
        root = resolve_root(path)
        with self._lock:
            rid = repo_id_for(root)
            if rid in self._repos:
                return self._repos[rid], False
            for other in self._repos.values():
                if (other.contains(root) or root in other.root.parents) and not _one_repository(root, other):
                    raise InvalidArgument(
                        f"{root} is nested with the registered repository {other.id} ({other.root}); "
                        "nested repositories are not supported: register one of them"
                    )
            rt = RepoRuntime.create(root, facts=facts)
            rt.repository = self._links.get(str(root), rt.repository)
            self._declined.pop(str(root), None)  # registered again: by the user, or not declined
            self._repos[rid] = rt
            self._identities[rid] = rt.identity
            if rt.git_entry is not None:
                self._entries[rid] = rt.git_entry
            self._note_member_locked(rt)
            self._save_locked()
        return rt, True

    def gone_entries(self) -> dict[WorktreeEntry, str]:
        """The worktree entries of checkouts no longer registered, whose entry git still
        keeps, with their ids: a checkout registered with one of them is that worktree moved."""
        with self._lock:
            kept = [(e, cid) for cid, e in self._entries.items() if cid not in self._repos]
        return {e: cid for e, cid in kept if e[0].is_dir()}

    def forget_entry(self, checkout_id: str) -> None:
        """``checkout_id``'s worktree was taken by the checkout it moved to: not again."""
        with self._lock:
            if self._entries.pop(checkout_id, None) is not None:
                self._save_locked()

    def _note_member_locked(self, rt: RepoRuntime) -> None:
        """Remember ``rt`` as a checkout of its repository (and its first checkout too, once
        the repository has a second one)."""
        self._members[rt.id] = (rt.repository, str(rt.root))
        for other in self._repos.values():
            if other.repository == rt.repository:
                self._members.setdefault(other.id, (other.repository, str(other.root)))

    # ------------------------------------------------------------------ repositories of checkouts

    def repository_of(self, checkout_id: str) -> str:
        """The repository of a checkout registered now or before (its own id when unknown)."""
        with self._lock:
            rt = self._repos.get(checkout_id)
            if rt is not None:
                return rt.repository
            return self._members.get(checkout_id, (checkout_id, ""))[0]

    def checkouts(self, repository: str) -> list[RepoRuntime]:
        """The registered checkouts of ``repository``, by id."""
        with self._lock:
            return sorted((r for r in self._repos.values() if r.repository == repository), key=lambda r: r.id)

    def first_facts(self, rt: RepoRuntime) -> None:
        """Set the facts of ``rt``, new and not in the store: an indexed sibling checkout's
        (``RepoRuntime.borrow_facts``: its first pass reads its own from its walk), else read
        from a walk of its tree."""
        sibling = next((s for s in self.siblings(rt.id) if s.n_files and not s.facts_pending), None)
        if sibling is not None:
            rt.borrow_facts(sibling)
        else:
            rt.read_facts()

    def siblings(self, checkout_id: str) -> list[RepoRuntime]:
        """The other registered checkouts of ``checkout_id``'s repository (all of them when
        ``checkout_id`` is a checkout that is gone)."""
        repository = self.repository_of(checkout_id)
        return [r for r in self.checkouts(repository) if r.id != checkout_id]

    def adding(self, besides: str) -> bool:
        """Whether a checkout other than ``besides`` is in its first index pass (its job runs,
        it was never current) beside an indexed sibling: a worktree being added, which the
        store writer's bulk writes of other checkouts give way to (``StoreWriter.yield_point``).
        A lone repository's cold pass is not one (its own writes are not held up)."""
        return any(
            rt.busy and rt.last_indexed_at is None and rt.id != besides and any(s.n_files for s in self.siblings(rt.id))
            for rt in self.all()
        )

    def members(self, repository: str) -> list[tuple[str, Path]]:
        """(checkout id, root) of every checkout ``repository`` ever had: registered or gone."""
        with self._lock:
            found = {cid: Path(root) for cid, (rep, root) in self._members.items() if rep == repository}
            found.update((r.id, r.root) for r in self._repos.values() if r.repository == repository)
        return sorted(found.items())

    def clones_of(self, rt: RepoRuntime) -> list[str]:
        """The other repositories with a registered checkout that looks like a clone of
        ``rt``'s (same root commit, same ``origin`` when both have one): candidates for
        ``link``, never joined without being asked."""
        with self._lock:
            return sorted(
                {
                    r.repository
                    for r in self._repos.values()
                    if r.repository != rt.repository and r.identity.same_repository(rt.identity)
                }
            )

    def repository(self, hint: str) -> str:
        """A repository named by its id, or by a checkout of it (id or path)."""
        with self._lock:
            if any(r.repository == hint for r in self._repos.values()):
                return hint
        return self.find(hint).repository

    def decline(self, root: Path, why: str = "removed") -> None:
        """The worktree at ``root`` stays unregistered until the user adds it again (``why``:
        "removed" by the user, "refused" when registering it failed)."""
        with self._lock:
            self._declined[str(root)] = why
            self._save_locked()

    def declined(self) -> set[Path]:
        """The worktree roots not to register by themselves: the user removed them, or
        registering them failed. A worktree inside a registered checkout of its repository
        declined before the reasons were kept is not among them: those were all refused as
        nested (Claude Code's ``.claude/worktrees/``), which a worktree no longer is."""
        with self._lock:
            return {Path(r) for r, why in self._declined.items() if why or not self._inside_sibling_locked(Path(r))}

    def _inside_sibling_locked(self, root: Path) -> bool:
        return any(root != rt.root and rt.contains(root) and _one_repository(root, rt) for rt in self._repos.values())

    def link(self, checkout: RepoRuntime, repository: str) -> None:
        """Make the registered ``checkout`` (a separate clone) a checkout of ``repository``."""
        with self._lock:
            if not any(r.repository == repository for r in self._repos.values()):
                raise NotFound(f"no registered repository {repository!r}")
            self._links[str(checkout.root)] = repository
            checkout.repository = repository
            self._note_member_locked(checkout)
            self._save_locked()

    def unregister(self, repo_id: str) -> None:
        """Forget a repository (its graph and observations are the caller's business)."""
        with self._lock:
            self._repos.pop(repo_id, None)
            self._save_locked()

    def _save_locked(self) -> None:
        members = {cid: m for cid, m in self._members.items() if sum(x[0] == m[0] for x in self._members.values()) > 1}
        save_registry(
            self._file,
            [r.root for r in self._repos.values()],
            self._identities,
            self._links,
            members,
            dict(sorted(self._declined.items())),
            {cid: e for cid, e in self._entries.items() if cid in members or cid in self._repos},
        )

    def get(self, repo_id: str) -> RepoRuntime | None:
        """The record of ``repo_id``, or None."""
        with self._lock:
            return self._repos.get(repo_id)

    def all(self) -> list[RepoRuntime]:
        """Every record (a snapshot)."""
        with self._lock:
            return list(self._repos.values())

    def of_path(self, path: Path) -> RepoRuntime | None:
        """The repository whose root is the deepest one containing ``path``."""
        with self._lock:
            best: RepoRuntime | None = None
            for rt in self._repos.values():
                if rt.contains(path) and (best is None or len(rt.root.parts) > len(best.root.parts)):
                    best = rt
            return best

    def find(self, hint: str) -> RepoRuntime:
        """A repository by id, or by a path inside it; with one repository, "" names it."""
        if not hint:
            repos = self.all()
            if len(repos) == 1:
                return repos[0]
            if not repos:
                raise FailedPrecondition("no repository is registered: add one with `graphmem repo add PATH`")
            raise InvalidArgument(
                "several repositories are registered; name one with --repo (or run inside it): "
                + ", ".join(f"{r.id} ({r.root})" for r in sorted(repos, key=lambda r: r.id))
            )
        rt = self.get(hint)
        if rt is not None:
            return rt
        p = expand_user(hint)
        if p.is_absolute() or p.exists():
            try:
                p = p.resolve()
            except OSError:
                p = p.absolute()
            found = self.of_path(p)
            if found is not None:
                return found
        known = ", ".join(sorted(r.id for r in self.all())) or "none"
        raise NotFound(f"no registered repository {hint!r} (registered: {known})")

    def scope(self, hint: str) -> list[RepoRuntime]:
        """The repositories a query covers: the one named, or every one."""
        return [self.find(hint)] if hint else self.all()

    def locate(self, path_part: str, repo_hint: str) -> tuple[RepoRuntime, str]:
        """(repository, path relative to its root) of a file given absolute or relative."""
        p = Path(path_part)
        if p.is_absolute():
            rt = self.of_path(p)
            if rt is None:
                raise InvalidArgument(f"{path_part} is not inside a registered repository")
            rel = rt.rel(p)
            if rel is None:
                raise InvalidArgument(f"{path_part} is a repository root, not a file")
            return rt, rel
        rt = self.find(repo_hint)
        return rt, p.as_posix().lstrip("./") if path_part.startswith("./") else p.as_posix()


def load_registry(path: Path) -> list[Path]:
    """The roots in ``repos.json`` (a missing or unreadable file: none, logged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        logger.error("cannot read the repository list %s: %s", path, exc)
        return []
    roots = data.get("repositories", []) if isinstance(data, dict) else []
    return [Path(r) for r in roots if isinstance(r, str)]


def _section(path: Path, key: str) -> dict[str, object]:
    """The object ``key`` of ``repos.json`` (a missing or unreadable file, a missing or
    malformed section: empty)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    raw = data.get(key, {}) if isinstance(data, dict) else {}
    return {str(k): v for k, v in raw.items()} if isinstance(raw, dict) else {}


def load_identities(path: Path) -> dict[str, RepoIdentity]:
    """The identities recorded in ``repos.json`` (by repository id)."""
    out: dict[str, RepoIdentity] = {}
    for rid, value in _section(path, "identities").items():
        ident = RepoIdentity.from_json(value)
        if ident is not None:
            out[rid] = ident
    return out


def load_section(path: Path, key: str) -> dict[str, str]:
    """A string-to-string object of ``repos.json`` (missing or malformed: empty)."""
    return {k: v for k, v in _section(path, key).items() if isinstance(v, str)}


def load_members(path: Path) -> dict[str, tuple[str, str]]:
    """The checkouts of repositories of several (``checkouts`` in ``repos.json``)."""
    out: dict[str, tuple[str, str]] = {}
    for cid, rec in _section(path, "checkouts").items():
        if isinstance(rec, dict) and isinstance(rec.get("repository"), str) and isinstance(rec.get("root"), str):
            out[cid] = (rec["repository"], rec["root"])
    return out


def load_entries(path: Path) -> dict[str, WorktreeEntry]:
    """The worktree entries of checkouts (``entries`` in ``repos.json``; missing or malformed:
    none, as in a file older than them)."""
    out: dict[str, WorktreeEntry] = {}
    for cid, rec in _section(path, "entries").items():
        entry, stamp = (rec.get("entry"), rec.get("stamp")) if isinstance(rec, dict) else (None, None)
        if (
            isinstance(entry, str)
            and isinstance(stamp, list)
            and len(stamp) == 2
            and all(isinstance(x, int) for x in stamp)
        ):
            out[cid] = (Path(entry), (stamp[0], stamp[1]))
    return out


def save_registry(
    path: Path,
    roots: list[Path],
    identities: Mapping[str, RepoIdentity] | None = None,
    links: Mapping[str, str] | None = None,
    members: Mapping[str, tuple[str, str]] | None = None,
    declined: Mapping[str, str] | None = None,
    entries: Mapping[str, WorktreeEntry] | None = None,
) -> None:
    """Write ``repos.json`` atomically (temp file, fsync, rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".repos.")
    body = {
        "repositories": [str(r) for r in roots],
        "identities": {rid: ident.to_json() for rid, ident in sorted((identities or {}).items())},
        "links": dict(sorted((links or {}).items())),
        "checkouts": {cid: {"repository": rep, "root": root} for cid, (rep, root) in sorted((members or {}).items())},
        "declined": dict(declined or {}),
        "entries": {cid: {"entry": str(e), "stamp": list(st)} for cid, (e, st) in sorted((entries or {}).items())},
    }
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(body, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
