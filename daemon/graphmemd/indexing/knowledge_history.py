"""What the code was when a knowledge unit was written: the shell around git history for
knowledge staleness (on the indexer thread).

A unit's lines were last changed by a commit C (``git blame``; lines not committed yet, or
no git at all: the unit was written now). For a reference that resolves today, its anchor
takes the fingerprints the symbol had at C (the file at C parsed like any file, in the parse
workers), so a signature or body change since C shows, with the commit that made it (the
newest commit after C among the symbol's lines). For a reference that does not resolve
today, the names of C's versions of the files changed since are searched: one found there
is dangling — renamed (the symbol diff finds it under its new name, or its body elsewhere)
or removed, with the first commit after C that no longer has it.
"""

from __future__ import annotations

import logging
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from dataclasses import replace

from graphmem.types import Anchor, ChangeKind, StaleReason

from graphmemd.graph.diff import diff_symbols, kind_family
from graphmemd.graph.knowledge_refs import CONTAINER_KINDS, RefIndex, Resolution, successor_in
from graphmemd.graph.model import ImportRef, SymbolInfo, SymbolKind
from graphmemd.indexing.change_commits import ChangeCommits, UnitCommit, Want
from graphmemd.indexing.commit_search import Bisection, Version, bisect_together
from graphmemd.indexing.history_shared import OldParse
from graphmemd.indexing.knowledge_served import Gone, served_as
from graphmemd.indexing.old_versions import OldVersions
from graphmemd.ingest.githistory import GitHistory
from graphmemd.ingest.gitparse import BlameLine
from graphmemd.ingest.knowledge.classify import written_as_call
from graphmemd.ingest.knowledge.model import RefKind, TargetKind, TextRef
from graphmemd.ingest.knowledge.roles import wanted
from graphmemd.ingest.parse_pool import ParsePool
from graphmemd.ingest.parsing import language_for_path
from graphmemd.memory.anchors import CodeView, evaluate_anchor, file_anchor, symbol_anchor
from graphmemd.memory.spelling import as_respelled

logger = logging.getLogger(__name__)

#: what a name gone named when written: the symbol, and the symbols of its file then
_Named = tuple[SymbolInfo, list[SymbolInfo]]
#: Old files parsed per unit commit when looking for a name that no longer resolves.
MAX_CANDIDATES = 40
#: what comes right before a definition's name on its line: a keyword (Python, Go with its
#: receiver, Rust, JS/TS, Java) ...
_KEYWORD_BEFORE = re.compile(
    r"\b(?:def|class|func|fn|function|interface|struct|enum|trait|type|record|impl|const|let|var)\s+(?:\([^)]*\)\s*)?$"
)
#: ... or, for a method head opening a block (``  async fetchUser(id) {``), modifiers and a type
_MODIFIERS_BEFORE = re.compile(r"^\s*(?:[\w<>\[\],.?]+\s+)*$")
_HEAD_AFTER = re.compile(r"^\s*\([^;]*[:{]\s*$")
#: ... or a module-level name bound by value to another (``with_ = WithExtension``), at the
#: start of its line
_BOUND_AFTER = re.compile(r"^\s*(?::[^=]*)?=\s*[A-Za-z_$][\w.$]*\s*;?\s*$")


def _defines(text: str, name: str) -> bool:
    """Whether ``text`` defines ``name`` (read from the lines around each occurrence, not
    parsed: a filter before the parse that decides)."""
    j = text.find(name)
    while j >= 0:
        end = j + len(name)
        whole = (j == 0 or not (text[j - 1].isalnum() or text[j - 1] in "_$")) and (
            end == len(text) or not (text[end].isalnum() or text[end] in "_$")
        )
        if whole:
            start = text.rfind("\n", 0, j) + 1
            stop = text.find("\n", end)
            before, after = text[start:j], text[end : stop if stop >= 0 else len(text)]
            if _KEYWORD_BEFORE.search(before) or (_MODIFIERS_BEFORE.match(before) and _HEAD_AFTER.match(after)):
                return True
            if not before and _BOUND_AFTER.match(after):
                return True
        j = text.find(name, end)
    return False


def unit_commit(blame: dict[int, BlameLine], start: int, end: int) -> UnitCommit:
    """The commit that last changed any of lines ``start..end`` (None: one is not committed)."""
    lines = [blame.get(n) for n in range(start, end + 1)]
    if not lines or any(b is None or not b.committed for b in lines):
        return None
    newest = max((b for b in lines if b is not None), key=lambda b: b.time)
    return newest.commit, newest.time


class KnowledgeHistory:
    """One knowledge pass's view of history: old parses are cached by content, for the pass and,
    with ``kept`` (``history_shared``), for the next passes of the repository's checkouts."""

    def __init__(
        self,
        repo_id: str,
        git: GitHistory,
        pool: Callable[[], ParsePool],
        code: CodeView,
        now: float,
        kept: MutableMapping[str, OldParse] | None = None,
    ) -> None:
        self.repo_id = repo_id
        self.git = git
        self.code = code
        self.now = now
        #: the old versions of code files this pass read and parsed
        self.versions = OldVersions(repo_id, git, pool, kept)
        #: the commits that made the changes this pass reports
        self.changes = ChangeCommits(git, self.versions)
        self._defines: dict[tuple[str, str], bool] = {}  # (blob, name) -> whether its text defines it
        self._olds_of: dict[str, list[tuple[str, str, str]]] = {}
        self._gone_found: dict[tuple[str, str, str, UnitCommit], str] = {}
        #: (reference, unit commit) -> (the index it was looked up against, ``_named_then``)
        self._named: dict[tuple[TextRef, tuple[str, int]], tuple[RefIndex, _Named | None]] = {}
        #: rounds of the searches for the commits that removed names (for the log)
        self.gone_rounds = 0

    def close(self) -> None:
        """Remove the scratch files of this pass."""
        self.versions.close()

    def prefetch(
        self,
        baselines: Iterable[tuple[str, str]],
        gone: Iterable[tuple[TextRef, UnitCommit]],
        changed: Iterable[tuple[SymbolInfo, tuple[str, int]]] = (),
    ) -> None:
        """Read and parse, one batch each, every old version the calls that follow will need:
        (commit, path) pairs for anchors as written, and the candidates for references gone;
        then find the commits that changed the symbols ``changed`` since (``prefetch_reasons``)."""
        todo = [(ref, when) for ref, when in gone if when is not None and ref.target_kind is TargetKind.SYMBOL]
        commits = {when[0] for _, when in todo if when is not None}
        ids = self.git.blob_ids((c, old) for c in commits for _, old, _ in self._olds(c))
        self.git.contents(i for i in ids.values() if i is not None)  # one read for every name gone
        pairs = set(baselines)
        for ref, when in todo:
            assert when is not None
            pairs.update((when[0], old) for old in self._candidates(ref, when))
        self.old_symbols(pairs)
        self.prefetch_reasons(changed)

    def _olds(self, commit: str) -> list[tuple[str, str, str]]:
        """The code files changed since ``commit`` that had a version then (modified, deleted, renamed)."""
        got = self._olds_of.get(commit)
        if got is None:
            changes = self.git.changed_since(commit)
            got = self._olds_of[commit] = [c for c in changes if c[0] in "MDR" and language_for_path(c[1]) is not None]
        return got

    def _candidates(self, ref: TextRef, when: tuple[str, int]) -> list[str]:
        """The old paths whose version at ``when`` defines the last part of ``ref``'s name
        (a definition keyword before it, or a method head: read from the text, not parsed)."""
        last = ref.target.rsplit(".", 1)[-1]
        olds = [old for _, old, _ in self._olds(when[0])]
        ids = self.git.blob_ids((when[0], old) for old in olds)
        texts = self.git.contents(i for i in ids.values() if i is not None)
        out: list[str] = []
        for old in olds:
            i = ids.get((when[0], old))
            if i is None or i not in texts:
                continue
            key = (i, last)
            if key not in self._defines:
                text = texts[i]
                self._defines[key] = last.encode() in text and _defines(text.decode("utf-8", "replace"), last)
            if self._defines[key]:
                out.append(old)
        return out[:MAX_CANDIDATES]

    # ------------------------------------------------------------------ old parses

    def old_symbols(self, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[SymbolInfo] | None]:
        """The symbols of ``path`` at ``commit`` for each (commit, path); None: not there."""
        return self.versions.symbols(wanted)

    @property
    def parses(self) -> int:
        """Old versions parsed (for the log)."""
        return self.versions.parses

    # ------------------------------------------------------------------ resolved references

    def baseline(self, res: Resolution, when: UnitCommit) -> tuple[Anchor, tuple[StaleReason, ...]]:
        """The anchor of what ``res`` names, with the fingerprints it had at ``when``, and the
        reason it no longer matches (with the commit that changed it), if any."""
        s = res.symbol
        if s is None:
            fp = self.code.file_fingerprint(self.repo_id, res.path) or ""
            return file_anchor(self.repo_id, res.path, fp), ()
        now = symbol_anchor(s)
        if when is None or not self.symbol_changed(s, when):
            return now, ()
        written = self._as_written(s, when)
        if written is None:
            return now, ()
        anchor, r = written
        return anchor, (replace(r, commit=self.reason_commit(s, when, r)),) if r is not None else ()

    def _as_written(self, s: SymbolInfo, when: tuple[str, int]) -> tuple[Anchor, StaleReason | None] | None:
        """The anchor on ``s`` with the fingerprints it had at ``when``, and the reason it no
        longer matches; None when ``s`` was not there then."""
        old_syms = self.old_symbols([(when[0], s.path)])[(when[0], s.path)]
        old = next((o for o in old_syms or () if o.qualname == s.qualname and o.kind is s.kind), None)
        if old is None:
            return None
        anchor = replace(symbol_anchor(s), signature=old.signature, sig_hash=old.sig_hash, body_hash=old.body_hash)
        return anchor, evaluate_anchor(anchor, self.code, self.now, "", body=False)

    def prefetch_reasons(self, changed: Iterable[tuple[SymbolInfo, tuple[str, int]]]) -> None:
        """Find at once the commits ``baseline`` will name for the symbols ``changed`` since
        their units' commits (their versions then read: ``prefetch``): the searches side by side."""
        asks = []
        for s, when in changed:
            written = self._as_written(s, when)
            if written is not None and written[1] is not None:
                asks.append((s, when, Want.of_reason(s, written[1])))
        self.changes.find(asks)

    def reason_commit(self, s: SymbolInfo, when: UnitCommit, r: StaleReason) -> str:
        """The commit that made the change ``r`` reports of ``s`` (``Want.of_reason``)."""
        return self.changes.find([(s, when, Want.of_reason(s, r))])[0]

    def changed(self, path: str, when: tuple[str, int]) -> bool:
        """Whether ``path`` changed after commit ``when`` (a commit of the same second that
        is not ``when`` itself counts: committer times have one-second steps)."""
        if path in self.git.dirty():
            return True
        return any(t > when[1] or (t == when[1] and c != when[0]) for c, t in self.git.commits(path))

    def symbol_changed(self, s: SymbolInfo, when: tuple[str, int]) -> bool:
        """Whether a line of ``s`` changed after ``when`` (blame of its file; a file git
        does not track: whether the file changed at all). For a class or another container,
        only its head counts (a mention of it does not follow its members)."""
        blame = self.git.blame(s.path)
        if not blame:
            return self.changed(s.path, when)
        last = min(s.end_line, s.start_line + 2) if s.kind in CONTAINER_KINDS else s.end_line  # a class: its head
        for n in range(s.start_line, last + 1):
            b = blame.get(n)
            if b is not None and (not b.committed or b.time > when[1] or (b.time == when[1] and b.commit != when[0])):
                return True
        return False

    def change_commit(self, s: SymbolInfo, when: UnitCommit) -> str:
        """The commit after ``when`` that gave ``s`` the signature and body it has now
        (``change_commits``)."""
        return self.changes.find([(s, when, Want.whole(s))])[0]

    # ------------------------------------------------------------------ dangling references

    def named_at(self, ref: TextRef, when: UnitCommit, index_now: RefIndex) -> Gone | None:
        """What ``ref`` (which resolves to nothing today) named at ``when``, and why it is
        dangling now — or deprecated, when a module still serves the name with a warning
        (``served_as``); None when it named no code then either."""
        if when is None:
            return None
        if ref.target_kind is TargetKind.PATH:
            changes = [c for c in self.git.changed_since(when[0]) if language_for_path(c[1]) is not None]
            got = self._path_at(ref, when, changes)
            return Gone(*got) if got is not None else None
        named = self._named_then(ref, when, index_now)
        if named is None:
            return None
        o, old_file = named
        new_path = next((new for _, old, new in self._olds(when[0]) if old == o.path), o.path)
        anchor, reason = self.gone(o, old_file, new_path, when, index_now.symbols)
        return served_as(self.git.root, ref, o, new_path, reason, index_now, self.now) or Gone(anchor, reason)

    def prefetch_gone(self, gone: Iterable[tuple[TextRef, UnitCommit]], index_now: RefIndex) -> None:
        """Find at once the commits that removed or renamed what the references ``gone`` (none
        of which resolves today) named when written, which ``named_at`` will ask for one by
        one: the searches side by side (``gone_commits``)."""
        asks: list[tuple[str, str, str, UnitCommit]] = []
        for ref, when in gone:
            if when is None or ref.target_kind is not TargetKind.SYMBOL:
                continue
            named = self._named_then(ref, when, index_now)
            if named is not None:
                asks.append((named[0].path, named[0].qualname, named[0].kind.value, when))
        self.gone_commits(asks)

    def _named_then(self, ref: TextRef, when: tuple[str, int], index_now: RefIndex) -> _Named | None:
        """The symbol a reference to a symbol that resolves to nothing today named at
        ``when``, with the symbols of its file then; None when it named none. Kept for the
        pass against the same ``index_now`` (``prefetch_gone`` asks first, ``named_at`` again)."""
        kept = self._named.get((ref, when))
        if kept is not None and kept[0] is index_now:
            return kept[1]
        got = self._find_named_then(ref, when, index_now)
        self._named[(ref, when)] = (index_now, got)
        return got

    def _find_named_then(self, ref: TextRef, when: tuple[str, int], index_now: RefIndex) -> _Named | None:
        hits = self._candidates(ref, when)
        if not hits:
            return None
        parsed = self.old_symbols((when[0], old) for old in hits)
        then = [s for syms in parsed.values() for s in syms or ()]
        changed = {p for _, old, new in self._olds(when[0]) for p in (old, new)}
        if _ambiguous_then(ref, then, changed, index_now):
            return None  # a bare name several symbols had when it was written: no reference then
        found = resolve_ref(index_now.as_of(then, hits), ref)
        o = found.symbol if found is not None else None
        if o is None:
            # re-exported by a module (``attrs.validators`` is ``from attr.validators import *``):
            # defined then in a file the lookup of the name consults today
            origins = index_now.origins(ref.target, ref.module)
            o = next((s for s in then if origins.get(s.path) == s.qualname), None)
        if o is None:
            o = self._imported_then(ref, when, index_now, then) or self._bound_then(ref, when, index_now, then)
            if o is None:
                return None
        return o, parsed.get((when[0], o.path)) or []

    def _bound_then(
        self, ref: TextRef, when: tuple[str, int], index_now: RefIndex, then: list[SymbolInfo]
    ) -> SymbolInfo | None:
        """What a module bound by value at ``when`` under the name ``ref`` spells and no longer
        binds (``jinja2.ext.with_`` when ``ext.py`` had ``with_ = WithExtension``): the symbol
        of that name among ``then`` (the versions at ``when`` of the files changed since)."""
        for name, old, key in self._old_modules(ref, when, index_now):
            value = self.versions.bound(key).get(name)
            found = next((s for s in then if s.path == old and s.qualname == value), None) if value else None
            if found is not None:
                return found
        return None

    def _old_modules(
        self, ref: TextRef, when: tuple[str, int], index_now: RefIndex, *, inits: bool = False
    ) -> Iterator[tuple[str, str, str]]:
        """For each module ``ref``'s name may be in (``module.name``, with the section's module
        first) whose file changed since ``when`` (``inits``: a package's ``__init__`` only): the
        name, the file's path then and its parse's key (``blob:path``, parsed now)."""
        was = {new: old for _, old, new in self._olds(when[0])}
        for candidate in ([f"{ref.module}.{ref.target}"] if ref.module else []) + [ref.target]:
            module, _, name = candidate.rpartition(".")
            for path in index_now.module_files(module) if module else ():
                old = was.get(path)
                if old is None or (inits and posixpath.basename(old) != "__init__.py"):
                    continue
                key = (when[0], old)
                i = self.git.blob_ids([key]).get(key)
                self.old_symbols([key])
                if i is not None:
                    yield name, old, f"{i}:{old}"

    def _imported_then(
        self, ref: TextRef, when: tuple[str, int], index_now: RefIndex, then: list[SymbolInfo]
    ) -> SymbolInfo | None:
        """What a package's ``__init__`` imported at ``when`` under the name ``ref`` spells
        (``click.get_text_stream`` when ``click/__init__.py`` had ``from .utils import
        get_text_stream``) and no longer exports: the symbol among ``then`` (the versions at
        ``when`` of the files changed since) its import named then. A package's names are what
        its ``__init__`` exports, so a name gone is looked for in the old ``__init__``'s imports."""
        for name, old, key in self._old_modules(ref, when, index_now, inits=True):  # (changed since)
            # (the last import of the name: a later `from m import x` rebinds x)
            for imp in reversed(self.versions.imports(key)):
                original = _imported_as(imp, name)
                if original is None:
                    continue
                source = _module_path(posixpath.dirname(old), imp.module)
                found = next((s for s in then if s.qualname == original and _in_module(s.path, source)), None)
                if found is not None:
                    return found
        return None

    def gone(
        self, o: SymbolInfo, old_file: list[SymbolInfo], new_path: str, when: UnitCommit, now: list[SymbolInfo]
    ) -> tuple[Anchor, StaleReason]:
        """Why the symbol ``o`` (as it was at ``when``) is no longer there: renamed or moved
        (the anchor follows it), or removed; with the commit that did it."""
        moved = _moved(o, old_file, new_path, now)
        commit = self.gone_commit(o.path, o.qualname, o.kind.value, when)
        live = not commit and self._at_head(new_path, o)
        if moved is not None:
            detail = f"{o.ref} was renamed or moved to {moved.ref}"
            reason = StaleReason(
                o.ref, ChangeKind.RENAMED, self.now, as_respelled(o.signature, moved.signature, moved.path),
                moved.signature, moved.ref, commit, detail,
                uncommitted=live,
            )  # fmt: skip
            return symbol_anchor(moved), reason
        heir = self._successor(o, new_path, commit, now)
        detail = f"{o.ref} was removed" + (f"; its deprecation names {heir.ref}" if heir is not None else "")
        reason = StaleReason(
            o.ref,
            ChangeKind.REMOVED,
            self.now,
            o.signature,
            new_ref=heir.ref if heir is not None else "",
            commit=commit,
            detail=detail,
            uncommitted=live,
        )
        return symbol_anchor(o), reason

    def _at_head(self, path: str, o: SymbolInfo) -> bool:
        """Whether HEAD's version of ``path`` still defines ``o``: its removal is in the working
        tree only, not committed yet (a removal whose commit the search did not find — made in
        a merge — is committed all the same)."""
        syms = self.old_symbols([("HEAD", path)])[("HEAD", path)]
        return any(s.qualname == o.qualname and s.kind is o.kind for s in syms or ())

    def _successor(self, o: SymbolInfo, path: str, commit: str, now: list[SymbolInfo]) -> SymbolInfo | None:
        """The code a deprecation message names as what replaces the removed ``o``: read in
        its file as it is now and in its package's ``__init__`` (a module ``__getattr__``
        still serving the name), and in its file just before ``commit`` removed it (the
        warning the old class gave). The first name that is one symbol of the code now."""
        texts: list[str] = []
        for rel in dict.fromkeys((path, posixpath.join(posixpath.dirname(path), "__init__.py"))):
            try:
                texts.append((self.git.root / rel).read_text("utf-8", errors="replace"))
            except OSError:
                continue
        if commit:
            key = (f"{commit}^", o.path)
            blob = self.git.blob_ids([key]).get(key)
            data = self.git.contents([blob]).get(blob, b"") if blob is not None else b""
            texts.append(data.decode("utf-8", "replace"))
        for text in texts:
            heir = successor_in(text, o.qualname, now)
            if heir is not None:
                return heir[1]
        return None

    def gone_commit(self, path: str, qualname: str, kind: str, when: UnitCommit) -> str:
        """The first commit after ``when`` whose version of ``path`` no longer defines
        ``qualname`` (binary search over the commits that touched the file; "" when not found)."""
        return self.gone_commits([(path, qualname, kind, when)])[0]

    def gone_commits(self, asks: Sequence[tuple[str, str, str, UnitCommit]]) -> list[str]:
        """``gone_commit`` of each (path, qualname, kind, when) of ``asks``, the searches not
        run yet side by side (each round's versions read and parsed in one batch); answers are
        kept for the pass."""
        todo = [a for a in dict.fromkeys(asks) if a not in self._gone_found]
        searches = [Bisection(self._file_commits(path, when)) for path, _, _, when in todo]

        def gone(i: int, at: Version) -> bool:
            _, qualname, kind, _ = todo[i]
            syms = self.old_symbols([at])[at]
            return syms is None or not any(s.qualname == qualname and s.kind.value == kind for s in syms)

        self.gone_rounds += bisect_together(searches, self.old_symbols, gone)  # (to the end: not by HEAD)
        self._gone_found.update((a, s.found) for a, s in zip(todo, searches, strict=True))
        return [self._gone_found[a] for a in asks]

    def _file_commits(self, path: str, when: UnitCommit) -> list[tuple[str, str]]:
        """(commit, the file's path then) for each commit after ``when`` that touched the
        file, oldest first, following its renames (a move is no removal)."""
        out: list[tuple[str, str]] = []
        current = path
        for c in self.changes.after(when):
            for status, old, new in c.changes:
                if old == current:
                    current = new if status == "R" else current
                    out.append((c.commit, current))
                    break
        return out

    def _path_at(
        self, ref: TextRef, when: tuple[str, int], changes: list[tuple[str, str, str]]
    ) -> tuple[Anchor, StaleReason] | None:
        """A file path that existed at ``when`` and is gone: moved (a rename) or removed."""
        gone = next((c for c in changes if c[1] == ref.target and c[0] in "DR"), None)
        if gone is None:
            return None
        key = ("HEAD", ref.target)
        live = self.git.blob_ids([key]).get(key) is not None  # HEAD has it: moved or removed in the working tree
        if gone[0] == "R":
            moved = file_anchor(self.repo_id, gone[2], self.code.file_fingerprint(self.repo_id, gone[2]) or "")
            detail = f"{ref.target} was renamed or moved to {gone[2]}"
            renamed = StaleReason(
                ref.target, ChangeKind.RENAMED, self.now, new_ref=gone[2], detail=detail, uncommitted=live
            )
            return moved, renamed
        detail = f"file {ref.target} was removed"
        removed = StaleReason(ref.target, ChangeKind.REMOVED, self.now, detail=detail, uncommitted=live)
        return file_anchor(self.repo_id, ref.target, ""), removed


def resolve_ref(index: RefIndex, ref: TextRef) -> Resolution | None:
    """What a reference to a symbol names in ``index``: its role's kind, its module, its
    section's class, and whether it is an inline literal (``RefIndex.resolve_name``)."""
    return index.resolve_name(ref.target, ref.module, wanted(ref.role), ref.scope, literal=ref.kind is RefKind.CODE)


def resolve_use(index: RefIndex, ref: TextRef) -> Resolution | None:
    """What a reference to code now uses: ``resolve_ref``, except that a class called with
    arguments in the text (``Client(url, timeout=5)``), or called in a code example, uses its
    constructor (``RefIndex.constructor``: its ``__init__``, or a base's), against which the
    call is bound as a function's call is; the class itself when the constructor is not
    known (a mention). A method named on an instance in a code example (``Client().get``, or
    a page class's base's: ``UserSchema().load`` -> ``marshmallow.Schema.load``) that its class
    inherits is the base's that defines it (``RefIndex.inherited``). A name gone is looked for
    as written (``named_at``), not this way."""
    found = resolve_ref(index, ref)
    if found is None and ref.kind is RefKind.EXAMPLE and "." in ref.target:
        owner, _, name = ref.target.rpartition(".")
        cls = resolve_ref(index, replace(ref, target=owner, call=None))
        if cls is not None and cls.symbol is not None and cls.symbol.kind is SymbolKind.CLASS:
            got = index.inherited(cls.symbol, name)
            found = Resolution(got.path, got) if got is not None else None
    s = found.symbol if found is not None else None
    if s is None or s.kind is not SymbolKind.CLASS or not written_as_call(ref):
        return found
    init = index.constructor(s)
    return Resolution(init.path, init, called=s) if init is not None else found


def _ambiguous_then(ref: TextRef, then: list[SymbolInfo], changed: set[str], index_now: RefIndex) -> bool:
    """Whether ``ref`` is a bare name in an inline literal (no role, no section) that more
    than one symbol had when it was written — ``then`` (the old versions of the files
    ``changed`` since that defined it) and the other files as they are, tests included —
    so that it named no one symbol then (``RefIndex.resolve_name``'s ``literal``)."""
    if (
        ref.kind is not RefKind.CODE
        or ref.scope
        or "." in ref.target.lstrip(".")
        or ref.target_kind is not TargetKind.SYMBOL
    ):
        return False
    name = ref.target.lstrip(".")
    same = {
        (s.path, s.qualname)
        for s in (*then, *(s for s in index_now.symbols if s.path not in changed))
        if s.name == name
    }
    return len(same) > 1


def _imported_as(imp: ImportRef, name: str) -> str | None:
    """The name ``imp`` (a file-level import) imports as the local ``name``, or None."""
    if imp.scope:
        return None
    if imp.alias is not None:
        return imp.names[0] if imp.alias == name and len(imp.names) == 1 else None
    return name if name in imp.names else None


def _module_path(package_dir: str, module: str) -> str:
    """A Python import's module as a path without its suffix: relative to ``package_dir``
    for ``from .utils import x`` (``..`` one folder up), else the dotted path (``a/b``)."""
    rest = module.lstrip(".")
    if len(rest) == len(module):
        return rest.replace(".", "/")
    base = package_dir
    for _ in range(len(module) - len(rest) - 1):
        base = posixpath.dirname(base)
    return posixpath.join(base, rest.replace(".", "/")) if rest else base


def _in_module(path: str, module_path: str) -> bool:
    """Whether the file ``path`` is the module ``module_path`` (its own file or its package's
    ``__init__``; an absolute module matches the path's last components)."""
    stem = path[:-3] if path.endswith(".py") else path
    stem = stem[: -len("/__init__")] if stem.endswith("/__init__") else stem
    return bool(module_path) and (stem == module_path or stem.endswith("/" + module_path))


def _moved(o: SymbolInfo, old_file: list[SymbolInfo], new_path: str, now: list[SymbolInfo]) -> SymbolInfo | None:
    """Where ``o`` went: the symbol diff of its file (renamed in place or in the renamed
    file), else the one symbol of the repository with its body (moved elsewhere), else the
    one symbol named like it with a leading underscore (made private)."""
    current = [s for s in now if s.path == new_path]
    for c in diff_symbols([s.state() for s in old_file], [s.state() for s in current]):
        if c.kind.value == "renamed" and c.old is not None and c.old.id == o.id and c.new is not None:
            return next((s for s in current if s.id == c.new.id), None)
    existed = {s.id for s in old_file}  # a symbol that was already there is not where ``o`` went
    family = kind_family(o.kind)
    same = [s for s in now if s.body_hash == o.body_hash and kind_family(s.kind) == family and s.id not in existed]
    if len(same) == 1 and o.body_hash:
        return same[0]
    parent, _, simple = o.qualname.rpartition(".")
    private = f"{parent}._{simple}" if parent else f"_{simple}"  # made private (a deprecated alias left)
    hidden = [s for s in now if s.qualname == private and kind_family(s.kind) == family and s.id not in existed]
    return hidden[0] if len(hidden) == 1 else None
