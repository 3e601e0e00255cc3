"""Pure rendering of a knowledge check as a SARIF 2.1.0 log, for GitHub code scanning.

One run, tool ``graphmem`` with one rule per finding state (``dangling-reference``,
``stale-reference``, ``suspect-reference``, ``changed-reference``). A finding repeated in a
file (one symbol, one change) is one result at its first place, its other places in
``relatedLocations`` and every line in the ``lines`` property; the full signatures (normally
spaced) are the ``oldSignature``/``newSignature`` properties. Each result's region is the exact span of the
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

from graphmem.check.format import FailOn, Grade, Group, describe, grade, grouped, level, rule_id
from graphmem.types import KnowledgeCheck, KnowledgeReference

__all__ = ["FINGERPRINT_KEY", "SARIF_SCHEMA", "SARIF_VERSION", "SRCROOT", "sarif_log"]

SARIF_VERSION: Final = "2.1.0"
SARIF_SCHEMA: Final = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: The uriBaseId of every location: the repository root.
SRCROOT: Final = "SRCROOT"
#: The partialFingerprints key graphmem writes (versioned: a new scheme gets a new key).
FINGERPRINT_KEY: Final = "graphmemReference/v1"

_GRADES: Final = (Grade.DANGLING, Grade.STALE, Grade.SUSPECT, Grade.DEPRECATED, Grade.CHANGED)

_RULE_TEXT: Final[dict[Grade, tuple[str, str, str, str]]] = {
    # name, default level, short description, full description
    Grade.DANGLING: (
        "DanglingReference",
        "error",
        "A knowledge file names code that no longer exists.",
        "A documentation, decision-record, agent-instruction or shared-note file names a symbol or a "
        "file that no longer exists in the repository: it was removed, or renamed (the message then "
        "gives the new name). Fix the text, or restore the code.",
    ),
    Grade.STALE: (
        "StaleReference",
        "warning",
        "A knowledge file writes a call that no longer fits the code's signature.",
        "A call written with arguments (f(x, key=...)) was bound against the named function's current "
        "signature: it passes a keyword the function no longer takes, or more positional arguments than "
        "it accepts, after a change made since the lines around it were last committed (git blame). "
        "Fix the call in the text.",
    ),
    Grade.SUSPECT: (
        "SuspectReference",
        "note",
        "A knowledge file names code that changed in a way that breaks old callers.",
        "The named code lost or renamed a parameter, or gained a required one, after the text around "
        "the reference was last committed. The text does not show a call; check that it still holds.",
    ),
    Grade.DEPRECATED: (
        "DeprecatedReference",
        "note",
        "A knowledge file names code that is gone but still served, with a warning.",
        "The named symbol was removed, but a module still serves the name lazily with a deprecation "
        "warning (Python's module-level __getattr__): the text works today and will break when the "
        "shim goes. The message gives the replacement the warning names, when it names one.",
    ),
    Grade.CHANGED: (
        "ChangedReference",
        "note",
        "A knowledge file names code that changed compatibly with what the text uses.",
        "The named code changed after the text was last committed (a body, annotations, defaults, new "
        "optional parameters) but what the text uses still fits. Reported only with --level all.",
    ),
}


def _rule(g: Grade) -> dict[str, object]:
    name, default_level, short, full = _RULE_TEXT[g]
    return {
        "id": f"{g.value}-reference",
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
    key = "\0".join((rule_id(ref), ref.path, ref.text, ref.target_ref, str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _properties(group: Group) -> dict[str, object]:
    ref = group.first
    props: dict[str, object] = {"reference": ref.text, "state": grade(ref).value, "lines": list(group.lines)}
    for key, value in (
        ("targetRef", ref.target_ref),
        ("renamedTo", ref.renamed_to),
        ("commit", ref.commit),
        ("oldSignature", ref.old_signature),
        ("newSignature", ref.new_signature),
        ("observationId", ref.observation_id),
    ):
        if value:
            props[key] = value
    if ref.close_matches:
        props["closeMatches"] = list(ref.close_matches)
    return props


def _location(ref: KnowledgeReference) -> dict[str, object]:
    return {
        "physicalLocation": {"artifactLocation": {"uri": _uri(ref.path), "uriBaseId": SRCROOT}, "region": _region(ref)}
    }


def _result(group: Group, fail_on: FailOn, occurrence: int) -> dict[str, object]:
    ref = group.first
    result: dict[str, object] = {
        "ruleId": rule_id(ref),
        "ruleIndex": _GRADES.index(grade(ref)),
        "kind": "fail",
        "level": level(ref, fail_on).value,
        "message": {"text": describe(ref)},
        "locations": [_location(ref)],
        "partialFingerprints": {FINGERPRINT_KEY: _fingerprint(ref, occurrence)},
        "properties": _properties(group),
    }
    if group.others:  # the same finding at its other places
        result["relatedLocations"] = [{"id": i + 1, **_location(r)} for i, r in enumerate(group.others)]
    return result


def sarif_log(check: KnowledgeCheck, fail_on: FailOn, *, tool_version: str, root: str = "") -> dict[str, object]:
    """The SARIF 2.1.0 log of ``check``: ``root`` is the repository's absolute path (its
    ``file:`` URI becomes ``SRCROOT``), ``tool_version`` graphmem's version."""
    seen: Counter[tuple[str, str, str, str]] = Counter()
    results: list[dict[str, object]] = []
    for group in grouped(check):
        ref = group.first
        key = (rule_id(ref), ref.path, ref.text, ref.target_ref)
        results.append(_result(group, fail_on, seen[key]))
        seen[key] += 1
    run: dict[str, object] = {
        "tool": {
            "driver": {
                "name": "graphmem",
                "version": tool_version,
                "semanticVersion": tool_version,
                "rules": [_rule(g) for g in _GRADES],
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
