"""Pure rendering of a knowledge check as a SARIF 2.1.0 log, for GitHub code scanning.

One run, tool ``graphmem`` with one rule per finding state (``dangling-reference``,
``stale-reference``, ``suspect-reference``). Each result's region is the exact span of the
reference in its knowledge file (``startLine``/``startColumn``/``endLine``/``endColumn``;
columns count Unicode code points, so the run says ``columnKind: unicodeCodePoints``), its
location a repository-relative URI against the ``SRCROOT`` base (``originalUriBaseIds`` holds
the checkout's absolute ``file:`` URI when it is known). ``partialFingerprints`` carries a
line-independent key (rule, file, reference, target) so an alert survives lines moving above
it; GitHub's upload action adds its own ``primaryLocationLineHash`` beside it.

The log validates against the official OASIS schema (``sarif-schema-2.1.0.json``, errata 01),
which the tests vendor.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import PurePosixPath
from typing import Final
from urllib.parse import quote

from graphmem.check.format import FailOn, describe, findings, level, rule_id
from graphmem.types import KnowledgeCheck, KnowledgeReference, ReferenceState

__all__ = ["FINGERPRINT_KEY", "SARIF_SCHEMA", "SARIF_VERSION", "SRCROOT", "sarif_log"]

SARIF_VERSION: Final = "2.1.0"
SARIF_SCHEMA: Final = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: The uriBaseId of every location: the repository root.
SRCROOT: Final = "SRCROOT"
#: The partialFingerprints key graphmem writes (versioned: a new scheme gets a new key).
FINGERPRINT_KEY: Final = "graphmemReference/v1"

_STATES: Final = (ReferenceState.DANGLING, ReferenceState.STALE, ReferenceState.SUSPECT)

_RULE_TEXT: Final[dict[ReferenceState, tuple[str, str, str, str]]] = {
    # name, default level, short description, full description
    ReferenceState.DANGLING: (
        "DanglingReference",
        "error",
        "A knowledge file names code that no longer exists.",
        "A documentation, decision-record, agent-instruction or shared-note file names a symbol or a "
        "file that no longer exists in the repository: it was removed, or renamed (the message then "
        "gives the new name). Fix the text, or restore the code.",
    ),
    ReferenceState.STALE: (
        "StaleReference",
        "warning",
        "A knowledge file names code whose signature changed after the text was last edited.",
        "The named function, method or class changed its signature in a commit made after the lines "
        "around the reference were last committed (git blame). Check that the text still holds, then "
        "edit it or confirm it.",
    ),
    ReferenceState.SUSPECT: (
        "SuspectReference",
        "note",
        "A knowledge file names code whose body changed after the text was last edited.",
        "The named code's body changed after the text around the reference was last committed. A "
        "mention in passing is a weak anchor: worth a look, not an error.",
    ),
}


def _rule(state: ReferenceState) -> dict[str, object]:
    name, default_level, short, full = _RULE_TEXT[state]
    return {
        "id": rule_id(state),
        "name": name,
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": full},
        "defaultConfiguration": {"level": default_level},
        "properties": {"tags": ["documentation", "maintainability"], "precision": "high"},
    }


def _uri(path: str) -> str:
    """A repository-relative path as a relative URI reference (percent-encoded, ``/`` kept)."""
    return quote(PurePosixPath(path).as_posix(), safe="/")


def _region(ref: KnowledgeReference) -> dict[str, int]:
    end_line = max(ref.end_line, ref.line)
    region = {"startLine": max(ref.line, 1), "endLine": max(end_line, 1)}
    if ref.column >= 1:
        region["startColumn"] = ref.column
        if ref.end_column >= 1 and (end_line > ref.line or ref.end_column > ref.column):
            region["endColumn"] = ref.end_column
    return region


def _fingerprint(ref: KnowledgeReference, occurrence: int) -> str:
    key = "\0".join((rule_id(ref.state), ref.path, ref.text, ref.target_ref, str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _properties(ref: KnowledgeReference) -> dict[str, object]:
    props: dict[str, object] = {"reference": ref.text, "state": ref.state.value}
    for key, value in (
        ("targetRef", ref.target_ref),
        ("renamedTo", ref.renamed_to),
        ("commit", ref.commit),
        ("observationId", ref.observation_id),
    ):
        if value:
            props[key] = value
    if ref.close_matches:
        props["closeMatches"] = list(ref.close_matches)
    return props


def _result(ref: KnowledgeReference, fail_on: FailOn, occurrence: int) -> dict[str, object]:
    return {
        "ruleId": rule_id(ref.state),
        "ruleIndex": _STATES.index(ref.state),
        "kind": "fail",
        "level": level(ref, fail_on).value,
        "message": {"text": describe(ref)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(ref.path), "uriBaseId": SRCROOT},
                    "region": _region(ref),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: _fingerprint(ref, occurrence)},
        "properties": _properties(ref),
    }


def sarif_log(check: KnowledgeCheck, fail_on: FailOn, *, tool_version: str, root: str = "") -> dict[str, object]:
    """The SARIF 2.1.0 log of ``check``: ``root`` is the repository's absolute path (its
    ``file:`` URI becomes ``SRCROOT``), ``tool_version`` graphmem's version."""
    seen: Counter[tuple[str, str, str, str]] = Counter()
    results: list[dict[str, object]] = []
    for ref in findings(check):
        key = (rule_id(ref.state), ref.path, ref.text, ref.target_ref)
        results.append(_result(ref, fail_on, seen[key]))
        seen[key] += 1
    run: dict[str, object] = {
        "tool": {
            "driver": {
                "name": "graphmem",
                "version": tool_version,
                "semanticVersion": tool_version,
                "rules": [_rule(state) for state in _STATES],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
        "invocations": [{"executionSuccessful": True}],
    }
    if root:
        base = PurePosixPath(root).as_uri()
        run["originalUriBaseIds"] = {SRCROOT: {"uri": base if base.endswith("/") else base + "/"}}
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}
