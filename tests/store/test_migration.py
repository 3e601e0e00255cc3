"""Upgrading the store's engine: a Kùzu store written by the release before LadybugDB became the
default opens on the new default with nothing lost (``store/migration.py``). Real daemons: the
first one writes the store on Kùzu (then made to look as schema 4 wrote it, with DEFINES and
CONTAINS rows), the second one runs on the default engine (LadybugDB) and carries it over at
start."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import Daemon, copy_fixture, short_tmp
from graphmem.types import ObservationStatus

ANCHOR = "app/auth/crypto.py::hash_password"


def _as_schema_4(path: Path) -> None:
    """Make a Kùzu store look as the release before schema 5 wrote it: DEFINES and CONTAINS
    tables with their rows (in a child process: one engine per process)."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from graphmemd.store.engine import Store\n"
        "s = Store(Path(sys.argv[1]), engine='kuzu')\n"
        "s._run('CREATE REL TABLE DEFINES(FROM File TO Symbol)')\n"
        "s._run('CREATE REL TABLE CONTAINS(FROM Symbol TO Symbol)')\n"
        "s._run('MATCH (f:File), (x:Symbol) WHERE x.file = f.id CREATE (f)-[:DEFINES]->(x)')\n"
        "s._run('MATCH (a:Symbol), (b:Symbol) WHERE b.parent = a.id CREATE (a)-[:CONTAINS]->(b)')\n"
        "s._run(\"MATCH (m:Meta {key: 'schema'}) SET m.value = '4'\")\n"
        "s.close()\n"
    )
    subprocess.run([sys.executable, "-c", script, str(path)], check=True, capture_output=True, timeout=120)


def _schema_and_tables(path: Path) -> tuple[str, set[str]]:
    """A LadybugDB store's schema version and table names (read in a child process)."""
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from graphmemd.store.engine import Store\n"
        "s = Store(Path(sys.argv[1]), engine='ladybug')\n"
        "v = s._run(\"MATCH (m:Meta {key: 'schema'}) RETURN m.value\")[0][0]\n"
        "print(json.dumps([v, [r[0] for r in s._run('CALL SHOW_TABLES() RETURN name')]]))\n"
        "s.close()\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(path)], check=True, capture_output=True, timeout=120)
    version, names = json.loads(out.stdout)
    return version, set(names)


def test_a_kuzu_store_is_carried_over_to_ladybug_with_nothing_lost(daemon_factory: Callable[..., Daemon]) -> None:
    repo = copy_fixture("python")
    home = short_tmp()
    d = daemon_factory([repo], home=home, env={"GRAPHMEM_STORE_ENGINE": "kuzu"})
    with d.client() as c:
        made = {
            f"key-{i}": c.observe(f"migrated note {i}", anchors=[ANCHOR], idempotency_key=f"key-{i}").id
            for i in range(30)  # more than one COPY's worth of rows is not needed: 30 creates
        }
        c.delete(made.pop("key-0"))
        (before,) = c.status().repositories
        symbols = {s.id for s in c.find_symbols("hash_password")}
    assert d.stop() == 0
    data = home / "data"
    assert (data / "graph.kuzu").is_file()
    _as_schema_4(data / "graph.kuzu")
    # without the journal, the observations can only come from the carried-over store
    (data / "observations.jsonl").unlink()

    d2 = daemon_factory([repo], home=home, env={"GRAPHMEM_STORE_ENGINE": ""})  # "": the default
    with d2.client() as c:
        listed = {o.id: o for o in c.list(statuses=list(ObservationStatus), limit=0)}
        assert set(listed) == set(made.values())
        assert all(listed[oid].text == f"migrated note {key.split('-')[1]}" for key, oid in made.items())
        (after,) = c.status().repositories
        assert (after.files, after.symbols) == (before.files, before.symbols)
        assert after.files_parsed == 0  # the code graph came over: nothing parsed again
        assert {s.id for s in c.find_symbols("hash_password")} == symbols
        # the idempotency keys came over with the rows: a retried create saves nothing new
        assert c.observe("migrated note 5", anchors=[ANCHOR], idempotency_key="key-5").id == made["key-5"]
        assert len(c.list(limit=0)) == len(made)
        status = c.status()
        assert "carried over to LadybugDB" in status.last_error
    assert (data / "graph.lbug").is_file()
    assert not (data / "graph.kuzu").exists()
    kept = [p.name for p in data.iterdir() if p.name.startswith("graph.kuzu.migrated-")]
    assert kept, sorted(p.name for p in data.iterdir())
    assert not [p for p in data.iterdir() if ".export" in p.name or ".migrating" in p.name]
    assert d2.stop() == 0
    schema, tables = _schema_and_tables(data / "graph.lbug")
    assert schema == "5"
    assert not {"DEFINES", "CONTAINS"} & tables  # schema 4's tables dropped once carried over

    # a third start on LadybugDB does not migrate again, and still has everything
    d3 = daemon_factory([repo], home=home, env={"GRAPHMEM_STORE_ENGINE": "ladybug"})
    with d3.client() as c:
        assert {o.id for o in c.list(limit=0)} == set(made.values())
        assert "carried over" not in c.status().last_error


def test_a_store_that_cannot_be_carried_over_is_kept_and_the_journal_serves(
    daemon_factory: Callable[..., Daemon],
) -> None:
    repo = copy_fixture("python")
    home = short_tmp()
    d = daemon_factory([repo], home=home, env={"GRAPHMEM_STORE_ENGINE": "kuzu"})
    with d.client() as c:
        ids = {c.observe(f"kept note {i}", anchors=[ANCHOR]).id for i in range(5)}
    assert d.stop() == 0
    data = home / "data"
    db = data / "graph.kuzu"
    db.write_bytes(b"\0" * db.stat().st_size)  # damaged: the export cannot read it
    Path(str(db) + ".clean").unlink(missing_ok=True)
    d2 = daemon_factory([repo], home=home, env={"GRAPHMEM_STORE_ENGINE": "ladybug"})
    with d2.client() as c:
        assert {o.id for o in c.list(limit=0)} == ids  # from the journal
        assert "could not be carried over" in c.status().last_error
        (repo_status,) = c.status().repositories
        assert repo_status.files > 0  # indexed again
    assert [p for p in data.iterdir() if p.name.startswith("graph.kuzu.unmigrated-")]
