"""The CI and pre-commit snippets the docs give for ``graphmem check`` are what they claim:
the pre-commit snippets name the shipped hook, the GitHub Actions workflow is valid YAML that
checks out the history, runs the check as SARIF and uploads it even when the check failed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pre_commit.clientlib import load_manifest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "check.md"


def yaml_blocks(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    return [yaml.safe_load(m.group(1)) for m in re.finditer(r"```yaml\n(.*?)```", text, re.S)]


def test_pre_commit_snippets_name_the_shipped_hook() -> None:
    shipped = {hook["id"] for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    snippets = [
        block
        for path in (DOC, ROOT / "README.md")
        for block in yaml_blocks(path)
        if isinstance(block, list) and block and "repo" in block[0]
    ]
    assert len(snippets) == 2  # docs/check.md and the README
    for (entry,) in snippets:
        assert set(entry) == {"repo", "rev", "hooks"}
        assert {hook["id"] for hook in entry["hooks"]} <= shipped


def test_the_github_workflow_uploads_sarif_from_a_full_checkout() -> None:
    (workflow,) = [b for b in yaml_blocks(DOC) if isinstance(b, dict) and "jobs" in b]
    assert workflow["permissions"]["security-events"] == "write"
    (job,) = workflow["jobs"].values()
    steps = job["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    run = next(i for i, s in enumerate(steps) if "graphmem check --format sarif" in s.get("run", ""))
    upload = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("github/codeql-action/upload-sarif@"))
    assert run < upload
    assert steps[upload]["if"] == "always()"
    assert steps[upload]["with"]["sarif_file"] in steps[run]["run"]
