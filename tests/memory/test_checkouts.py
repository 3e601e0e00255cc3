"""The pure cores of one repository with many checkouts: a note judged in another checkout
(``memory/checkouts.py``) and what the worktree loop does (``ingest/worktree_plan.py``).
No threads, no I/O: the code view is a table of symbols."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from graphmem.types import Anchor, AnchorKind, Category, ChangeKind, Observation, ObservationStatus
from graphmemd.graph.model import Language, SymbolInfo, SymbolKind
from graphmemd.ingest.worktree_plan import CheckoutSeen, plan
from graphmemd.memory.checkouts import project, translate, translate_anchor
from graphmemd.memory.staleness import follow_renames

A, B = "proj-aaaaaa", "wt-bbbbbb"


def sym(repo: str, qual: str, body: str = "b1") -> SymbolInfo:
    return SymbolInfo(
        id=f"{repo}:m.py::{qual}#function",
        repo_id=repo,
        path="m.py",
        name=qual,
        qualname=qual,
        kind=SymbolKind.FUNCTION,
        language=Language.PYTHON,
        parent_id=None,
        start_line=1,
        end_line=2,
        signature=f"def {qual}()",
        sig_hash="s1",
        body_hash=body,
    )


class Code:
    """A code view over a fixed set of symbols."""

    def __init__(self, *symbols: SymbolInfo) -> None:
        self._symbols = {s.id: s for s in symbols}

    def symbol(self, symbol_id: str) -> SymbolInfo | None:
        return self._symbols.get(symbol_id)

    def file_fingerprint(self, repo_id: str, path: str) -> str | None:
        return "fp" if any(s.repo_id == repo_id and s.path == path for s in self._symbols.values()) else None


def note(qual: str = "f", *, commit: str = "c1", branch: str = "feature") -> Observation:
    anchor = Anchor(
        AnchorKind.SYMBOL, f"m.py::{qual}", B, "m.py", f"{B}:m.py::{qual}#function", f"def {qual}()", "s1", "b1"
    )
    return Observation(
        "n1", B, "a note", Category.OTHER, 1.0, 1.0, anchors=(anchor,), origin_commit=commit, origin_branch=branch
    )


def never(_commit: str) -> bool:
    raise AssertionError("ancestry asked although nothing differs")


def test_translate_moves_anchors_into_the_checkouts_ids() -> None:
    t = translate(note(), A)
    assert t.repo_id == A
    assert t.anchors[0].symbol_id == f"{A}:m.py::f#function"
    assert t.anchors[0].repo_id == A


def test_same_code_is_fresh_and_changed_code_is_stale_per_checkout() -> None:
    same = project(note(), A, Code(sym(A, "f")), 5.0, "h", never)
    assert same.status is ObservationStatus.FRESH
    assert not same.on_branch
    edited = project(note(), A, Code(sym(A, "f", body="b2")), 5.0, "h", lambda _c: True)
    assert edited.status is ObservationStatus.STALE
    assert [r.change for r in edited.stale_reasons] == [ChangeKind.BODY_CHANGED]


def test_changed_anchor_from_a_branch_not_contained_is_on_branch() -> None:
    """Saved on ``feature`` against its version of ``f``; this checkout never had that
    version (the origin is not an ancestor of its HEAD): no change was made here."""
    p = project(note(), A, Code(sym(A, "f", body="b2")), 5.0, "h", lambda _c: False)
    assert p.on_branch == "feature"
    assert p.status is ObservationStatus.FRESH
    assert p.stale_reasons == ()


def test_missing_anchor_from_a_branch_not_contained_is_on_branch() -> None:
    asked: list[str] = []

    def contains(commit: str) -> bool:
        asked.append(commit)
        return False

    p = project(note(), A, Code(), 5.0, "h", contains)
    assert asked == ["c1"]
    assert p.on_branch == "feature"
    assert p.status is ObservationStatus.FRESH
    assert p.stale_reasons == ()


def test_a_note_on_uncommitted_code_is_on_branch_wherever_its_anchor_differs() -> None:
    """Saved in a worktree on an edit it had not committed: no other checkout holds that code,
    even one that contains the commit it was saved at."""
    saved = replace(note(), origin_uncommitted=True)
    p = project(saved, A, Code(sym(A, "f", body="b2")), 5.0, "h", lambda _c: True)
    assert (p.status, p.on_branch, p.stale_reasons) == (ObservationStatus.FRESH, "feature, uncommitted", ())
    same = project(saved, A, Code(sym(A, "f")), 5.0, "h", never)  # the same code here: an ordinary note
    assert (same.status, same.on_branch) == (ObservationStatus.FRESH, "")


def test_missing_anchor_on_a_contained_commit_is_removed() -> None:
    p = project(note(), A, Code(), 5.0, "h", lambda _c: True)
    assert not p.on_branch
    assert p.status is ObservationStatus.STALE
    assert [r.change for r in p.stale_reasons] == [ChangeKind.REMOVED]


def test_a_note_without_origin_is_judged_like_any() -> None:
    p = project(note(commit="", branch=""), A, Code(), 5.0, "h", never)
    assert p.status is ObservationStatus.STALE


def test_a_reason_keeps_when_it_was_first_seen() -> None:
    code = Code(sym(A, "f", body="b2"))
    first = project(note(), A, code, 5.0, "h1", lambda _c: True)
    again = project(note(), A, code, 9.0, "h2", lambda _c: True, previous=first)
    assert again.stale_reasons[0].detected_at == 5.0
    assert again.stale_reasons[0].commit == "h1"


def test_archived_stays_archived() -> None:
    archived = replace(note(), status=ObservationStatus.ARCHIVED)
    assert project(archived, A, Code(), 5.0, "h", lambda _c: False).status is ObservationStatus.ARCHIVED


def test_a_rename_in_the_showing_checkout_stays_with_its_projection() -> None:
    """A projection whose anchor a rename in A moved (``follow_renames``, as a delta of A does)
    keeps the moved anchor and its RENAMED reason when projected again; a note whose home
    anchor changed since is projected from the home anchor."""
    g = sym(A, "g")
    code = Code(g)
    first = project(note("f"), A, Code(sym(A, "f")), 1.0, "h", never)
    moved = follow_renames(first, {f"{A}:m.py::f#function": g}, 2.0, "h")
    again = project(note("f"), A, code, 3.0, "h", lambda _c: True, moved)
    assert [x.ref for x in again.anchors] == ["m.py::g"]
    assert again.status is ObservationStatus.STALE  # (a rename is for review, as in A's own notes)
    assert [(r.change, r.anchor_ref, r.new_ref) for r in again.stale_reasons] == [
        (ChangeKind.RENAMED, "m.py::f", "m.py::g")
    ]
    assert again.needs_review
    # the home note was re-anchored meanwhile: its own anchor wins
    home = replace(note("h"), anchors=(translate_anchor(replace(note("h").anchors[0]), B),))
    other = project(home, A, Code(sym(A, "h")), 4.0, "h", lambda _c: True, moved)
    assert [x.ref for x in other.anchors] == ["m.py::h"]


def seen(
    cid: str, root: str, repo: str = "r", common: str | None = "/r/.git", exists: bool = True, prefix: str = ""
) -> CheckoutSeen:
    return CheckoutSeen(cid, Path(root), repo, Path(common) if common else None, exists, prefix)


def test_plan_registers_new_worktrees_and_drops_removed_ones() -> None:
    checkouts = [seen("main", "/r"), seen("b", "/wt/b")]
    todo = plan(checkouts, {Path("/r/.git"): [Path("/r"), Path("/wt/c")]}, declined=[])
    assert todo.add == (Path("/wt/c"),)
    assert todo.drop == ("b",)  # git no longer lists it


def test_plan_keeps_declined_and_lone_missing_checkouts() -> None:
    lone = [seen("solo", "/s", repo="s", common="/s/.git", exists=False)]
    assert plan(lone, {Path("/s/.git"): [Path("/s")]}, declined=[]).drop == ()  # maybe an unmounted disk
    shared = [seen("main", "/r"), seen("b", "/wt/b", exists=False)]
    todo = plan(shared, {Path("/r/.git"): [Path("/r"), Path("/wt/b"), Path("/wt/d")]}, declined=[Path("/wt/d")])
    assert todo.add == ()
    assert todo.drop == ("b",)  # its directory is gone, and its repository has another checkout


def test_plan_for_a_folder_of_a_working_tree_is_that_folder_of_every_worktree() -> None:
    checkouts = [
        seen("py", "/r/fx/py", repo="py", prefix="fx/py/"),
        seen("b", "/wt/b/fx/py", repo="py", prefix="fx/py/"),
    ]
    todo = plan(checkouts, {Path("/r/.git"): [Path("/r"), Path("/wt/c")]}, declined=[])
    assert todo.add == (Path("/wt/c/fx/py"),)  # not /wt/c itself: the folder is what was registered
    assert todo.drop == ("b",)  # its worktree is no longer listed
    alone = [seen("py", "/r/fx/py", repo="py", prefix="fx/py/", exists=False)]
    assert plan(alone, {Path("/r/.git"): [Path("/r")]}, declined=[]) == plan([], {}, [])  # (lone: kept)


def test_plan_sees_a_worktree_moved_by_its_entry_in_the_common_directory() -> None:
    entry = (Path("/r/.git/worktrees/b"), (7, 100))
    checkouts = [seen("main", "/r"), replace(seen("b", "/wt/b", exists=False), entry=entry)]
    listed = {Path("/r/.git"): [Path("/r"), Path("/wt/moved")]}
    todo = plan(checkouts, listed, [], entries={Path("/wt/moved"): entry})
    assert (todo.add, todo.drop, todo.moved) == ((Path("/wt/moved"),), ("b",), (("b", Path("/wt/moved")),))
    # its directory gone at one look, its new place listed at the next: still that worktree
    later = plan([seen("main", "/r")], listed, [], entries={Path("/wt/moved"): entry}, dropped={entry: "b"})
    assert later.moved == (("b", Path("/wt/moved")),)
    # removed, and another worktree of the same name added: git wrote its entry anew
    other = (entry[0], (7, 200))
    assert plan([seen("main", "/r")], listed, [], entries={Path("/wt/moved"): other}, dropped={entry: "b"}).moved == ()


def test_a_note_saved_on_uncommitted_code_says_so_in_the_journal_and_on_the_wire() -> None:
    from graphmem.convert import observation_from_proto, observation_to_proto
    from graphmemd.memory.obsdoc import from_doc, to_doc

    saved = replace(note(), origin_uncommitted=True)
    assert from_doc(to_doc(saved)).origin_uncommitted
    assert observation_from_proto(observation_to_proto(saved)).origin_uncommitted
    assert "origin_uncommitted" not in to_doc(note())  # (older journals and notes: no key)
