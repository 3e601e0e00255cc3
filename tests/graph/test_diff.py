from __future__ import annotations

import random

import pytest
from graphmemd.graph.diff import diff_symbols, kind_family
from graphmemd.graph.model import ChangeKind, SymbolChange, SymbolKind, SymbolState, symbol_id

REPO = "r1"


def sym(
    path: str,
    qualname: str,
    kind: SymbolKind = SymbolKind.FUNCTION,
    sig: str = "sig",
    body: str = "body",
) -> SymbolState:
    return SymbolState(
        id=symbol_id(REPO, path, qualname, kind),
        path=path,
        qualname=qualname,
        kind=kind,
        signature=f"def {qualname.rsplit('.', 1)[-1]}()",
        sig_hash=sig,
        body_hash=body,
    )


def kinds(changes: list[SymbolChange]) -> list[tuple[ChangeKind, str | None, str | None]]:
    return [(c.kind, c.old.qualname if c.old else None, c.new.qualname if c.new else None) for c in changes]


def test_matching_ids() -> None:
    old = [
        sym("a.py", "same", body="b1"),
        sym("a.py", "body", body="b2"),
        sym("a.py", "sig", sig="s1", body="b3"),
        sym("a.py", "both", sig="s1", body="b4"),
    ]
    new = [
        sym("a.py", "same", body="b1"),
        sym("a.py", "body", body="b2x"),
        sym("a.py", "sig", sig="s2", body="b3"),
        sym("a.py", "both", sig="s2", body="b4x"),
    ]
    assert kinds(diff_symbols(old, new)) == [
        (ChangeKind.BODY_CHANGED, "body", "body"),
        (ChangeKind.SIGNATURE_CHANGED, "both", "both"),
        (ChangeKind.SIGNATURE_CHANGED, "sig", "sig"),
    ]
    with_unchanged = diff_symbols(old, new, include_unchanged=True)
    assert (ChangeKind.UNCHANGED, "same", "same") in kinds(with_unchanged)
    assert len(with_unchanged) == 4


def test_added_removed() -> None:
    old = [sym("a.py", "gone", body="g")]
    new = [sym("a.py", "fresh", body="f")]
    assert kinds(diff_symbols(old, new)) == [
        (ChangeKind.ADDED, None, "fresh"),
        (ChangeKind.REMOVED, "gone", None),
    ]


def test_rename_in_same_file() -> None:
    old = [sym("a.py", "login", sig="s1", body="unique")]
    new = [sym("a.py", "sign_in", sig="s2", body="unique")]
    changes = diff_symbols(old, new)
    assert kinds(changes) == [(ChangeKind.RENAMED, "login", "sign_in")]
    assert changes[0].id == old[0].id


def test_move_across_files_in_one_batch() -> None:
    old = [sym("a.py", "helper", body="h"), sym("a.py", "stays", body="s")]
    new = [sym("b/util.py", "helper", body="h"), sym("a.py", "stays", body="s")]
    changes = diff_symbols(old, new)
    assert len(changes) == 1
    (c,) = changes
    assert c.kind is ChangeKind.RENAMED
    assert c.old is not None
    assert c.new is not None
    assert (c.old.path, c.new.path) == ("a.py", "b/util.py")


def test_function_to_method_is_one_family_but_class_is_not() -> None:
    assert kind_family(SymbolKind.FUNCTION) == kind_family(SymbolKind.METHOD)
    assert kind_family(SymbolKind.CLASS) != kind_family(SymbolKind.STRUCT)
    old = [sym("a.py", "run", SymbolKind.FUNCTION, body="x"), sym("a.py", "Box", SymbolKind.CLASS, body="k")]
    new = [
        sym("a.py", "Runner.run", SymbolKind.METHOD, body="x"),
        sym("a.py", "Box", SymbolKind.STRUCT, body="k"),
    ]
    assert kinds(diff_symbols(old, new)) == [
        (ChangeKind.REMOVED, "Box", None),
        (ChangeKind.ADDED, None, "Box"),
        (ChangeKind.RENAMED, "run", "Runner.run"),
    ]


def test_class_rename_renames_its_methods() -> None:
    old = [
        sym("a.py", "Auth", SymbolKind.CLASS, body="cls"),
        sym("a.py", "Auth.login", SymbolKind.METHOD, body="m1"),
        sym("a.py", "Auth.logout", SymbolKind.METHOD, body="m2"),
    ]
    new = [
        sym("a.py", "AuthService", SymbolKind.CLASS, body="cls"),
        sym("a.py", "AuthService.login", SymbolKind.METHOD, body="m1"),
        sym("a.py", "AuthService.logout", SymbolKind.METHOD, body="m2"),
    ]
    assert kinds(diff_symbols(old, new)) == [
        (ChangeKind.RENAMED, "Auth", "AuthService"),
        (ChangeKind.RENAMED, "Auth.login", "AuthService.login"),
        (ChangeKind.RENAMED, "Auth.logout", "AuthService.logout"),
    ]


def test_trivial_bodies_do_not_pair() -> None:
    # Three `pass` functions removed and three added across files: boilerplate, no renames.
    old = [sym("a.py", f"old{i}", body="PASS") for i in range(3)]
    new = [sym(f"m{i}.py", f"new{i}", body="PASS") for i in range(3)]
    result = kinds(diff_symbols(old, new))
    assert all(k in (ChangeKind.ADDED, ChangeKind.REMOVED) for k, _, _ in result)
    assert len(result) == 6


def test_body_shared_with_unchanged_symbols_is_trivial() -> None:
    # One removed and one added `pass` body, but the same body is on untouched symbols too.
    unchanged = [sym("c.py", f"keep{i}", body="PASS") for i in range(2)]
    old = [*unchanged, sym("a.py", "foo", body="PASS")]
    new = [*unchanged, sym("b.py", "bar", body="PASS")]
    assert kinds(diff_symbols(old, new)) == [
        (ChangeKind.REMOVED, "foo", None),
        (ChangeKind.ADDED, None, "bar"),
    ]


def test_trivial_bodies_parameter_and_empty_hash() -> None:
    old = [sym("a.py", "foo", body="EMPTY"), sym("a.py", "x", body="")]
    new = [sym("a.py", "bar", body="EMPTY"), sym("a.py", "y", body="")]
    result = diff_symbols(old, new, trivial_bodies={"EMPTY"})
    assert {c.kind for c in result} == {ChangeKind.ADDED, ChangeKind.REMOVED}
    assert len(result) == 4
    assert ChangeKind.RENAMED in {c.kind for c in diff_symbols(old, new)}  # without the hint


def test_duplicate_bodies_pair_by_file_then_name_then_similarity() -> None:
    # Two identical helpers move together; each pairs with its own counterpart.
    old = [sym("a.py", "get_x", body="dup"), sym("b.py", "get_y", body="dup")]
    new = [sym("b2.py", "get_y", body="dup"), sym("a.py", "get_x2", body="dup")]
    pairs = {(c.old.id, c.new.id) for c in diff_symbols(old, new) if c.old and c.new}
    assert pairs == {(old[0].id, new[1].id), (old[1].id, new[0].id)}  # same file wins for a.py

    old = [sym("a.py", "alpha", body="dup"), sym("a.py", "beta", body="dup")]
    new = [sym("z.py", "beta", body="dup"), sym("z.py", "alphas", body="dup")]
    pairs = {(c.old.qualname, c.new.qualname) for c in diff_symbols(old, new) if c.old and c.new}
    assert pairs == {("alpha", "alphas"), ("beta", "beta")}

    old = [sym("a.py", "C.handle_get", SymbolKind.METHOD, body="dup")]
    new = [
        sym("a.py", "D.process", SymbolKind.METHOD, body="dup"),
        sym("a.py", "C.handle_got", SymbolKind.METHOD, body="dup"),
    ]
    changes = diff_symbols(old, new)
    assert kinds(changes) == [
        (ChangeKind.RENAMED, "C.handle_get", "C.handle_got"),
        (ChangeKind.ADDED, None, "D.process"),
    ]


def test_never_pairs_a_symbol_twice() -> None:
    old = [sym("a.py", "one", body="dup")]
    new = [sym("b.py", "one", body="dup"), sym("c.py", "one", body="dup")]
    changes = diff_symbols(old, new)
    assert sorted(c.kind.value for c in changes) == ["added", "renamed"]
    renamed = next(c for c in changes if c.kind is ChangeKind.RENAMED)
    assert renamed.new is not None
    assert renamed.new.path == "b.py"  # tie broken by id


def test_output_sorted_and_deterministic() -> None:
    rng = random.Random(7)
    old = [sym(f"f{i % 4}.py", f"fn{i}", body=f"b{i}", sig=f"s{i}") for i in range(40)]
    new = [
        *(sym(f"f{i % 4}.py", f"fn{i}", body=f"b{i}x", sig=f"s{i}") for i in range(0, 10)),
        *(sym(f"f{i % 4}.py", f"fn{i}", body=f"b{i}", sig=f"s{i}y") for i in range(10, 20)),
        *(sym(f"g{i % 3}.py", f"moved{i}", body=f"b{i}") for i in range(20, 30)),
        *(sym("new.py", f"added{i}", body=f"n{i}") for i in range(5)),
    ]
    expected = diff_symbols(old, new)
    for _ in range(5):
        rng.shuffle(old)
        rng.shuffle(new)
        assert diff_symbols(old, new) == expected
    assert [c.id for c in expected] == sorted(c.id for c in expected)
    counts = {k: sum(1 for c in expected if c.kind is k) for k in ChangeKind}
    assert counts[ChangeKind.BODY_CHANGED] == 10
    assert counts[ChangeKind.SIGNATURE_CHANGED] == 10
    assert counts[ChangeKind.RENAMED] == 10
    assert counts[ChangeKind.REMOVED] == 10
    assert counts[ChangeKind.ADDED] == 5


def test_duplicate_ids_rejected() -> None:
    s = sym("a.py", "f")
    with pytest.raises(ValueError, match="duplicate"):
        diff_symbols([s, s], [])


def test_ambiguous_body_pairs_by_name() -> None:
    # A file moved: four methods share one boilerplate body; each follows its own name.
    names = ["C.a", "C.b", "C.c", "helper"]
    old = [sym("a.py", q, SymbolKind.METHOD if "." in q else SymbolKind.FUNCTION, body="PASS") for q in names]
    new = [sym("pkg/b.py", q, SymbolKind.METHOD if "." in q else SymbolKind.FUNCTION, body="PASS") for q in names]
    changes = diff_symbols(old, new)
    assert [(c.kind, c.old.qualname if c.old else None, c.new.qualname if c.new else None) for c in changes] == [
        (ChangeKind.RENAMED, q, q) for q in sorted(names)
    ]
    assert all(c.new is not None and c.new.path == "pkg/b.py" for c in changes)


def test_ambiguous_body_pairs_a_similar_name_in_the_same_file() -> None:
    shared = [sym("b.py", "x", body="D"), sym("c.py", "y", body="D")]
    old = [*shared, sym("a.py", "handle", body="D")]
    new = [*shared, sym("a.py", "handle2", body="D")]
    assert kinds(diff_symbols(old, new)) == [(ChangeKind.RENAMED, "handle", "handle2")]
    # unrelated names in another file stay apart
    new = [*shared, sym("z.py", "other", body="D")]
    assert kinds(diff_symbols(old, new)) == [(ChangeKind.REMOVED, "handle", None), (ChangeKind.ADDED, None, "other")]


def test_move_plus_reformat_is_a_move() -> None:
    from graphmemd.ingest.parsing import parse_source

    before = b"def keep():\n    return 1\n\n\ndef helper(a, b):\n    return {'k': (a + b), 'v': [1, 2,]}\n"
    after_a = b"def keep():\n    return 1\n"
    after_b = b'def helper(a,b): return {"k": a+b, "v": [1, 2]}\n'

    def states(path: str, data: bytes) -> list[SymbolState]:
        return [
            SymbolState(
                id=symbol_id(REPO, path, s.qualname, s.kind),
                path=path,
                qualname=s.qualname,
                kind=s.kind,
                signature=s.signature,
                sig_hash=s.sig_hash,
                body_hash=s.body_hash,
            )
            for s in parse_source(path, data).symbols
        ]

    changes = diff_symbols(states("a.py", before), [*states("a.py", after_a), *states("b.py", after_b)])
    assert kinds(changes) == [(ChangeKind.RENAMED, "helper", "helper")]
    assert changes[0].new is not None
    assert changes[0].new.path == "b.py"


def test_a_move_seen_in_two_batches_pairs_with_the_earlier_half() -> None:
    """The watcher's batches are not transactions: a function moved to another file can arrive
    as its removal, then its addition (or the other way round). The earlier half, handed in,
    pairs as a move; it is never reported again on its own."""
    moved_out = sym("a.py", "hash_password", body="h")  # removed by an earlier batch
    # removal first: this batch adds the same body elsewhere
    second = diff_symbols([sym("b.py", "other", body="o")],
                          [sym("b.py", "other", body="o"), sym("b.py", "hash_password", body="h")],
                          earlier_removed=[moved_out])
    assert kinds(second) == [(ChangeKind.RENAMED, "hash_password", "hash_password")]
    assert second[0].old == moved_out
    # addition first: this batch removes what an earlier batch added elsewhere
    moved_in = sym("b.py", "hash_password", body="h")
    later = diff_symbols([sym("a.py", "hash_password", body="h")], [], earlier_added=[moved_in])
    assert kinds(later) == [(ChangeKind.RENAMED, "hash_password", "hash_password")]
    assert later[0].new == moved_in
    # nothing of this batch's: the earlier halves are not paired with each other, nor reported
    assert diff_symbols([], [], earlier_removed=[moved_out], earlier_added=[moved_in]) == []
    unrelated = diff_symbols([sym("c.py", "f", body="x")], [], earlier_added=[moved_in])
    assert kinds(unrelated) == [(ChangeKind.REMOVED, "f", None)]
    # an ambiguous body pairs across batches only when the names say so too
    common = [sym(f"d{i}.py", f"h{i}", body="pass") for i in range(3)]
    ambiguous = diff_symbols([], [sym("e.py", "unrelated", body="pass")], earlier_removed=common)
    assert kinds(ambiguous) == [(ChangeKind.ADDED, None, "unrelated")]
    # a symbol this batch holds is the batch's: an earlier removal of it that came back is not a move
    back = diff_symbols([], [moved_out], earlier_removed=[moved_out])
    assert kinds(back) == [(ChangeKind.ADDED, None, "hash_password")]
