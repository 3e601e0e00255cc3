"""A daemon's notes as an older version wrote them, for the tests of a stale reason's fields
(issue 41: what the daemon once said in a reason's detail is now a field of its own): read
and rewrite the observation documents of a stopped daemon's store (on ``STORE_ENGINE``) and
journal through a function that turns a document into its old form, and ``show --json``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import STORE_ENGINE, Daemon, store_file
from graphmem.client import GraphMem
from graphmem.paths import resolve_paths

#: turns an observation document (changed in place or not) into the old code's form
OldForm = Callable[[dict[str, Any]], dict[str, Any]]

_STORE_DOCS = """\
import json, sys
from pathlib import Path
from graphmemd.store.engine import Store, observation_row
s = Store(Path(sys.argv[1]), engine=sys.argv[2])
if sys.argv[3] == "read":
    print(json.dumps([[json.loads(o.doc), o.key] for o in s.observations()]))
else:
    s.upsert_observations([observation_row(doc, key) for doc, key in json.load(sys.stdin)])
s.close()
"""


def before_dependency_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """An observation document as the code before a dependency reason's hop count and removal
    were fields wrote it: without them (its detail said both, and still does)."""
    for r in doc.get("stale_reasons", ()):
        r.pop("dependency_hops", None)
        r.pop("dependency_removed", None)
    return doc


def show_json(d: Daemon, oid: str) -> dict[str, Any]:
    """``graphmem show OID --json`` against the daemon, parsed."""
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "show", oid, "--json"],
        env=d.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    doc: dict[str, Any] = json.loads(out.stdout)
    return doc


def _store_docs(home: Path, how: str, docs: list[Any] | None = None) -> list[Any]:
    """Read (``how="read"``) or write the store's observation documents with their keys, in a
    child process (one engine per process)."""
    out = subprocess.run(
        [sys.executable, "-c", _STORE_DOCS, str(store_file(home)), STORE_ENGINE, how],
        input=json.dumps(docs or []),
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    got: list[Any] = json.loads(out.stdout) if how == "read" else []
    return got


def rewrite_store(home: Path, old_form: OldForm) -> list[dict[str, Any]]:
    """Rewrite every observation document of a stopped daemon's store in its old form; the
    documents as written."""
    docs = [[old_form(doc), key] for doc, key in _store_docs(home, "read")]
    _store_docs(home, "write", docs)
    return [doc for doc, _ in docs]


def rewrite_journal(journal: Path, old_form: OldForm) -> int:
    """Rewrite every observation record of a stopped daemon's journal in its old form; how
    many records that changed."""
    lines, changed = [], 0
    for line in journal.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if "obs" in rec:
            before = json.dumps(rec["obs"])
            rec["obs"] = old_form(rec["obs"])
            changed += before != json.dumps(rec["obs"])
        lines.append(json.dumps(rec))
    journal.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return changed


def reload_in_old_form(
    start: Callable[[], Daemon],
    home: Path,
    old_form: OldForm,
    old_in: Callable[[list[dict[str, Any]]], int],
    expected_old: int,
    check: Callable[[GraphMem], None],
) -> None:
    """A stopped daemon's journal and store rewritten in their old form (``old_form``;
    ``old_in`` counts the old-form reasons of the store's documents: ``expected_old``), then
    opened by a new daemon (``start``, same home) and ``check``-ed; then the old store alone
    (the journal deleted: rebuilt from it), the same way."""
    journal = resolve_paths(str(home), {}).journal
    assert rewrite_journal(journal, old_form) >= expected_old
    assert old_in(rewrite_store(home, old_form)) == expected_old
    d = start()  # the old journal (and store): read through the one conversion
    with d.client() as c:
        check(c)
    assert d.stop() == 0

    assert old_in(rewrite_store(home, old_form)) == expected_old
    journal.unlink()
    d = start()
    with d.client() as c:
        check(c)
