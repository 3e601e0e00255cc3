"""The layer rules in ``pyproject.toml`` ([tool.importlinter]) are checked by ``lint-imports``
in ``scripts/test.sh``. These tests show that each contract catches what it is for: a
temporary copy of the packages with one deliberate violation breaks exactly that contract."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).parent / "lint-imports"


def _copy(dst: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "daemon" / "graphmemd", dst / "daemon" / "graphmemd", ignore=ignore)
    shutil.copytree(ROOT / "clients" / "graphmem", dst / "clients" / "graphmem", ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", dst / "pyproject.toml")


def _lint(copy: Path, contract: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{copy / 'daemon'}:{copy / 'clients'}"}
    return subprocess.run(
        [str(LINT), "pyproject.toml", "--no-cache", "--contract", contract],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


CONTRACTS = ["layers", "acyclic", "one-engine-module", "pure-cores", "read-side", "clients", "agents-pure",
             "lean-hook", "ui-pure-cores", "ui-shell"]

#: (contract, module file under the copy, line added to it)
VIOLATIONS = [
    ("layers", "daemon/graphmemd/graph/model.py", "import graphmemd.service.servicers"),
    ("layers", "daemon/graphmemd/store/engine.py", "import graphmemd.memory.memory"),
    ("acyclic", "daemon/graphmemd/graph/resolution/index.py", "import graphmemd.graph.resolution.resolver"),
    ("one-engine-module", "daemon/graphmemd/memory/memory.py", "import kuzu"),
    ("one-engine-module", "daemon/graphmemd/store/engine.py", "import ladybug"),
    ("one-engine-module", "daemon/graphmemd/store/kuzu_engine.py", "import ladybug"),
    ("pure-cores", "daemon/graphmemd/graph/delta.py", "import kuzu"),
    ("pure-cores", "daemon/graphmemd/memory/staleness.py", "import grpc"),
    ("pure-cores", "daemon/graphmemd/retrieval/ranking.py", "import threading"),
    ("pure-cores", "daemon/graphmemd/graph/diff.py", "import subprocess"),
    ("read-side", "daemon/graphmemd/retrieval/retriever.py", "import graphmemd.store.writer"),
    ("read-side", "daemon/graphmemd/retrieval/symbols.py", "import graphmemd.memory.memory"),
    ("clients", "clients/graphmem/cli/common.py", "import graphmemd.store.engine"),
    ("pure-cores", "daemon/graphmemd/retrieval/overview.py", "import subprocess"),
    ("agents-pure", "clients/graphmem/agents/plan.py", "import graphmem.agents.state"),
    ("agents-pure", "clients/graphmem/agents/hookio.py", "import grpc"),
    ("lean-hook", "clients/graphmem/agents/hook.py", "import graphmem.client"),
    ("lean-hook", "clients/graphmem/agents/hook.py", "from graphmem.v1 import service_pb2"),
    ("pure-cores", "daemon/graphmemd/memory/then.py", "import subprocess"),
    ("ui-pure-cores", "clients/graphmem/ui/model.py", "import graphmem.client"),
    ("ui-pure-cores", "clients/graphmem/ui/diff.py", "import starlette"),
    ("ui-pure-cores", "clients/graphmem/ui/guard.py", "import graphmem.ui.gateway"),
    ("ui-shell", "clients/graphmem/client.py", "import graphmem.ui.web"),
    ("ui-shell", "clients/graphmem/cli/common.py", "import jinja2"),
]


@pytest.fixture(scope="module")
def clean_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("layers")
    _copy(dst)
    return dst


@pytest.mark.parametrize("contract", CONTRACTS)
def test_the_tree_keeps_every_contract(clean_copy: Path, contract: str) -> None:
    out = _lint(clean_copy, contract)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "KEPT" in out.stdout


@pytest.mark.parametrize(("contract", "module", "line"), VIOLATIONS)
def test_a_deliberate_violation_breaks_its_contract(tmp_path: Path, contract: str, module: str, line: str) -> None:
    _copy(tmp_path)
    target = tmp_path / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # deliberate violation\n", encoding="utf-8")
    out = _lint(tmp_path, contract)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "BROKEN" in out.stdout
    assert line.split()[-1].rsplit(".", 1)[-1] in out.stdout  # the report names the forbidden import
