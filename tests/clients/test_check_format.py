"""The pure renderers of ``graphmem check``: exit status per ``--fail-on``, text, JSON, SARIF
2.1.0 (validated against the official OASIS schema vendored in ``tests/clients/data``) and
GitHub Actions workflow commands (syntax and escaping). No daemon: a ``KnowledgeCheck`` in,
text out."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from google.protobuf import json_format
from graphmem import convert
from graphmem.check.format import (
    GITHUB_ANNOTATIONS_SHOWN,
    FailOn,
    Grade,
    Level,
    ReportLevel,
    at_level,
    describe,
    escape_github_data,
    escape_github_property,
    exit_status,
    findings,
    github_lines,
    grade,
    json_text,
    level,
    rule_id,
    summary,
    text_lines,
)
from graphmem.check.sarif import FINGERPRINT_KEY, SARIF_VERSION, SRCROOT, sarif_log
from graphmem.types import (
    Freshness,
    IndexState,
    KnowledgeCheck,
    KnowledgeReference,
    ReferenceState,
    RepoFreshness,
)
from graphmem.v1 import service_pb2

SCHEMA_PATH = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

DANGLING = KnowledgeReference(
    text="AuthService.login",
    path="docs/auth guide.md",
    line=12,
    column=5,
    end_line=12,
    end_column=24,
    state=ReferenceState.DANGLING,
    target_ref="app/auth/service.py::AuthService.login",
    reason="`AuthService.login` was renamed to `AuthService.sign_in` in a1b2c3d",
    renamed_to="app/auth/service.py::AuthService.sign_in",
    commit="a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0",
    close_matches=("app/auth/service.py::AuthService.sign_in", "app/auth/service.py::AuthService.logout"),
    observation_id="obs1",
)
REMOVED = KnowledgeReference(
    text=":func:`hash_pw`",
    path="docs/api.rst",
    line=40,
    column=10,
    end_line=40,
    end_column=25,
    state=ReferenceState.DANGLING,
    target_ref="app/auth/crypto.py::hash_pw",
    close_matches=("app/auth/crypto.py::hash_password",),
)
STALE = KnowledgeReference(
    text="create_user()",
    path="CLAUDE.md",
    line=3,
    column=1,
    end_line=3,
    end_column=14,
    state=ReferenceState.STALE,
    target_ref="app/api/routes.py::create_user",
    reason="the signature of `create_user` changed in 0badc0de after these lines were written",
    commit="0badc0de" * 5,
)
SUSPECT = KnowledgeReference(
    text="[the router](app/api/routes.py#L10)",
    path=".cursor/rules/api.mdc",
    line=7,
    column=3,
    end_line=8,
    end_column=12,
    state=ReferenceState.SUSPECT,
    target_ref="app/api/routes.py::route",
)
OK = KnowledgeReference(text="x", path="README.md", line=1, column=1, end_line=1, end_column=2, state=ReferenceState.OK)


def check_of(*refs: KnowledgeReference, current: bool = True) -> KnowledgeCheck:
    freshness = Freshness(
        current=current,
        repositories=(RepoFreshness("r1", current, IndexState.READY, pending_changes=0 if current else 3),),
    )
    return KnowledgeCheck(references=refs, files_checked=4, units=12, references_checked=30, freshness=freshness)


ALL = check_of(SUSPECT, DANGLING, OK, STALE, REMOVED)


# ---------------------------------------------------------------------------- the gate


@pytest.mark.parametrize(
    ("refs", "fail_on", "expected"),
    [
        ((DANGLING,), FailOn.DANGLING, 1),
        ((DANGLING,), FailOn.STALE, 1),
        ((DANGLING,), FailOn.SUSPECT, 1),
        ((DANGLING,), FailOn.NEVER, 0),
        ((STALE,), FailOn.DANGLING, 0),
        ((STALE,), FailOn.STALE, 1),
        ((STALE,), FailOn.SUSPECT, 1),
        ((SUSPECT,), FailOn.DANGLING, 0),
        ((SUSPECT,), FailOn.STALE, 0),
        ((SUSPECT,), FailOn.SUSPECT, 1),
        ((OK,), FailOn.SUSPECT, 0),
        ((), FailOn.SUSPECT, 0),
        ((SUSPECT, STALE), FailOn.STALE, 1),
    ],
)
def test_exit_status_per_fail_on(refs: tuple[KnowledgeReference, ...], fail_on: FailOn, expected: int) -> None:
    assert exit_status(check_of(*refs), fail_on) == expected


def test_levels_follow_the_threshold() -> None:
    assert level(DANGLING, FailOn.DANGLING) is Level.ERROR
    assert level(STALE, FailOn.DANGLING) is Level.WARNING
    assert level(STALE, FailOn.STALE) is Level.ERROR
    assert level(SUSPECT, FailOn.STALE) is Level.NOTE
    assert level(DANGLING, FailOn.NEVER) is Level.WARNING


DEPRECATED = KnowledgeReference(
    text="BaseCommand",
    path="docs/api.md",
    line=150,
    column=16,
    end_line=150,
    end_column=27,
    state=ReferenceState.SUSPECT,
    target_ref="src/click/core.py::BaseCommand",
    reason="`BaseCommand` is deprecated: `click.__getattr__` still serves it, with a warning, since 9dd1207; "
    "use `Command`",
    commit="9dd1207",
    deprecated=True,
)


def test_deprecated_is_a_grade_of_its_own_below_suspect() -> None:
    both = check_of(SUSPECT, DEPRECATED)
    assert sorted(grade(r) for r in findings(both)) == [Grade.DEPRECATED, Grade.SUSPECT]
    # --level suspect hides it, deprecated (the default) and all show it
    assert at_level(both, ReportLevel.SUSPECT).references == (SUSPECT,)
    assert at_level(both, ReportLevel.DEPRECATED).references == (SUSPECT, DEPRECATED)
    assert at_level(both, ReportLevel.ALL).references == (SUSPECT, DEPRECATED)
    # it fails only at --fail-on deprecated (what fails is shown whatever the level)
    assert exit_status(check_of(DEPRECATED), FailOn.SUSPECT) == 0
    assert exit_status(check_of(DEPRECATED), FailOn.DEPRECATED) == 1
    assert at_level(both, ReportLevel.DANGLING, FailOn.DEPRECATED).references == (SUSPECT, DEPRECATED)
    assert level(DEPRECATED, FailOn.SUSPECT) is Level.NOTE
    assert rule_id(DEPRECATED) == "deprecated-reference"
    assert rule_id(SUSPECT) == "suspect-reference"
    (line, total) = text_lines(check_of(DEPRECATED), FailOn.DANGLING)
    assert line.startswith("docs/api.md:150:16: deprecated: `BaseCommand` is deprecated: ")
    assert total.startswith("0 dangling, 0 stale, 0 suspect, 1 deprecated in ")
    (result,) = sarif_log(check_of(DEPRECATED), FailOn.DANGLING, tool_version="0.1.0")["runs"][0]["results"]  # type: ignore[index]
    assert (result["ruleId"], result["ruleIndex"], result["level"]) == ("deprecated-reference", 3, "note")
    assert result["properties"]["state"] == "deprecated"
    assert json.loads(json_text(check_of(DEPRECATED), FailOn.DANGLING))["references"][0]["deprecated"] is True


def test_findings_are_in_file_order_without_ok_references() -> None:
    expected = [".cursor/rules/api.mdc", "CLAUDE.md", "docs/api.rst", "docs/auth guide.md"]
    assert [r.path for r in findings(ALL)] == expected


# ---------------------------------------------------------------------------- messages and text


def test_describe_keeps_the_daemon_reason_and_adds_close_matches() -> None:
    # the new name is known: that is the fix, no other suggestion
    assert describe(DANGLING) == "`AuthService.login` was renamed to `AuthService.sign_in` in a1b2c3d"
    gone = KnowledgeReference(**{**_fields(DANGLING), "renamed_to": "", "reason": "`AuthService.login` removed"})
    assert describe(gone) == "`AuthService.login` removed; did you mean `AuthService.sign_in`, `AuthService.logout`?"
    assert len(describe(gone, limit=60)) <= 60  # suggestions are cut to fit
    # the same name elsewhere (an example's import from a module it left): said with its file
    moved = KnowledgeReference(
        **{
            **_fields(gone),
            "text": "split_arg_string",
            "reason": "`split_arg_string` removed in 3630add",
            "close_matches": ("src/click/shell_completion.py::split_arg_string", "tests/t.py::test_split_arg_string"),
        }
    )
    assert describe(moved) == (
        "`split_arg_string` removed in 3630add; did you mean `split_arg_string` in src/click/shell_completion.py, "
        "`test_split_arg_string`?"
    )


def test_describe_fits_one_line_of_at_most_160_characters() -> None:
    many = KnowledgeReference(
        **{**_fields(REMOVED), "close_matches": tuple(f"app/auth/crypto.py::hash_password_v{i}" for i in range(9))}
    )
    text = describe(many)
    assert len(text) <= 160
    assert "\n" not in text
    assert text.count("`hash_password_v") == 3  # at most three suggestions, short names
    long = KnowledgeReference(**{**_fields(STALE), "reason": "x" * 400})
    assert len(describe(long)) == 160


def test_describe_without_a_reason_says_what_the_state_means() -> None:
    assert describe(REMOVED) == ("`:func:`hash_pw`` names code that no longer exists; did you mean `hash_password`?")
    assert "breaks old callers" in describe(SUSPECT)


def test_text_lines_are_path_line_column_then_a_summary() -> None:
    lines = text_lines(ALL, FailOn.DANGLING)
    assert lines[0] == f".cursor/rules/api.mdc:7:3: suspect: {describe(SUSPECT)}"
    # the reason does not quote the reference as written: it is put in front
    assert lines[1].startswith("CLAUDE.md:3:1: stale: `create_user()`: the signature of `create_user` changed")
    assert lines[3].startswith("docs/auth guide.md:12:5: dangling: `AuthService.login` was renamed")
    assert lines[-1] == (
        "2 dangling, 1 stale, 1 suspect in 4 files (12 units, 30 references checked); 2 at or above dangling: FAILED"
    )
    passed = "no findings in 4 files (12 units, 30 references checked); passed"
    assert text_lines(check_of(OK), FailOn.STALE) == [passed]


def test_text_warns_when_the_index_lagged() -> None:
    lines = text_lines(check_of(STALE, current=False), FailOn.DANGLING)
    assert lines[-2].startswith("warning: the index was not current when checked (3 pending changes)")
    assert summary(check_of(STALE), FailOn.NEVER).endswith("--fail-on never: reporting only")


# ---------------------------------------------------------------------------- JSON


def test_json_is_the_protobuf_json_mapping_plus_the_gate() -> None:
    data = json.loads(json_text(ALL, FailOn.STALE))
    assert data.pop("fail_on") == "stale"
    assert data.pop("failed") is True
    assert [r["state"] for r in data["references"]] == [
        "REFERENCE_STATE_SUSPECT",
        "REFERENCE_STATE_STALE",
        "REFERENCE_STATE_DANGLING",
        "REFERENCE_STATE_DANGLING",
    ]
    decoded = json_format.ParseDict(data, service_pb2.CheckKnowledgeResponse())
    back = convert.knowledge_check_from_proto(decoded)
    assert back.references == findings(ALL)
    assert (back.files_checked, back.units, back.references_checked) == (4, 12, 30)
    assert back.freshness == ALL.freshness


# ---------------------------------------------------------------------------- SARIF


def _validate(log: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    assert validator_class is jsonschema.Draft4Validator  # the official 2.1.0 schema is draft-04
    validator_class.check_schema(schema)
    # Every format jsonschema knows (rfc3987 checks "uri" and "uri-reference"): the schema
    # uses "uri-reference", which draft-04's own format list does not cover.
    validator = validator_class(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_the_schema_is_the_official_one_and_rejects_a_broken_log() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    log = sarif_log(ALL, FailOn.DANGLING, tool_version="0.1.0", root="/work/repo")
    log["runs"][0]["results"][0]["level"] = "fatal"  # not a SARIF level
    with pytest.raises(AssertionError, match="level"):
        _validate(log)
    bad_uri = sarif_log(ALL, FailOn.DANGLING, tool_version="0.1.0", root="/work/repo")
    bad_uri["runs"][0]["originalUriBaseIds"][SRCROOT]["uri"] = "not a uri"
    with pytest.raises(AssertionError, match="uri"):
        _validate(bad_uri)


@pytest.mark.parametrize("fail_on", list(FailOn))
def test_sarif_validates_against_the_official_schema(fail_on: FailOn) -> None:
    _validate(sarif_log(ALL, fail_on, tool_version="0.1.0", root="/work/my repo"))
    _validate(sarif_log(check_of(), fail_on, tool_version="0.1.0"))


def test_sarif_results_carry_the_exact_span_rule_and_relative_uri() -> None:
    log = sarif_log(ALL, FailOn.DANGLING, tool_version="0.1.0", root="/work/my repo")
    assert log["version"] == SARIF_VERSION
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"] == {SRCROOT: {"uri": "file:///work/my%20repo/"}}
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [
        "dangling-reference",
        "stale-reference",
        "suspect-reference",
        "deprecated-reference",
        "changed-reference",
    ]
    by_uri = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r for r in run["results"]}
    dangling = by_uri["docs/auth%20guide.md"]
    assert dangling["ruleId"] == "dangling-reference"
    assert rules[dangling["ruleIndex"]]["id"] == dangling["ruleId"]
    assert dangling["level"] == "error"
    location = dangling["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uriBaseId"] == SRCROOT
    assert location["region"] == {"startLine": 12, "startColumn": 5, "endLine": 12, "endColumn": 24}
    assert dangling["message"]["text"] == describe(DANGLING)
    assert dangling["properties"]["closeMatches"] == list(DANGLING.close_matches)
    assert by_uri["CLAUDE.md"]["level"] == "warning"
    suspect = by_uri[".cursor/rules/api.mdc"]
    assert suspect["level"] == "note"
    assert suspect["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 7,
        "startColumn": 3,
        "endLine": 8,
        "endColumn": 12,
    }


def test_sarif_fingerprints_survive_lines_moving_and_tell_twins_apart() -> None:
    moved = KnowledgeReference(**{**_fields(DANGLING), "line": 40, "end_line": 40})
    twin = KnowledgeReference(**{**_fields(DANGLING), "line": 50, "end_line": 50})

    def prints(check: KnowledgeCheck) -> list[str]:
        log = sarif_log(check, FailOn.DANGLING, tool_version="0.1.0")
        return [r["partialFingerprints"][FINGERPRINT_KEY] for r in log["runs"][0]["results"]]

    elsewhere = KnowledgeReference(**{**_fields(DANGLING), "path": "docs/other.md"})
    assert prints(check_of(DANGLING)) == prints(check_of(moved))
    (one,) = prints(check_of(moved, twin))  # one symbol, one change, one file: one result
    assert one == prints(check_of(DANGLING))[0]
    first, second = prints(check_of(DANGLING, elsewhere))
    assert second != first


def test_a_repeated_finding_is_one_finding_listing_its_lines() -> None:
    again = [KnowledgeReference(**{**_fields(DANGLING), "line": n, "end_line": n}) for n in (30, 44)]
    check = check_of(DANGLING, *again, STALE)
    lines = text_lines(check, FailOn.DANGLING)
    assert lines[1] == f"docs/auth guide.md:12:5: dangling: {describe(DANGLING)} (also lines 30, 44)"
    assert len(lines) == 3  # the stale one, the grouped dangling one, the summary
    (result,) = [
        r
        for r in sarif_log(check, FailOn.DANGLING, tool_version="0")["runs"][0]["results"]  # type: ignore[index]
        if r["ruleId"] == "dangling-reference"
    ]
    assert result["properties"]["lines"] == [12, 30, 44]
    assert [x["physicalLocation"]["region"]["startLine"] for x in result["relatedLocations"]] == [30, 44]
    (github,) = [x for x in github_lines(check, FailOn.DANGLING) if x.startswith("::error")]
    assert github.endswith("(also lines 30, 44)")


def test_level_chooses_what_is_printed_and_the_gate_still_sees_everything() -> None:
    changed = KnowledgeReference(**{**_fields(SUSPECT), "state": ReferenceState.CHANGED, "line": 20})
    check = check_of(DANGLING, STALE, SUSPECT, changed)
    states = lambda c: sorted(r.state.value for r in c.references)  # noqa: E731
    assert states(at_level(check, ReportLevel.SUSPECT)) == ["dangling", "stale", "suspect"]
    assert states(at_level(check, ReportLevel.ALL)) == ["changed", "dangling", "stale", "suspect"]
    assert states(at_level(check, ReportLevel.DANGLING)) == ["dangling"]
    assert states(at_level(check, ReportLevel.DANGLING, FailOn.STALE)) == ["dangling", "stale"]  # what fails shows
    assert exit_status(check_of(changed), FailOn.SUSPECT) == 0  # a compatible change never fails
    assert summary(check_of(changed), FailOn.DANGLING).startswith("0 dangling, 0 stale, 0 suspect, 1 changed in")


def _fields(ref: KnowledgeReference) -> dict[str, Any]:
    return {name: getattr(ref, name) for name in ref.__slots__}  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- GitHub Actions

#: The documented syntax: ``::command key=value,key=value::message``; values and message
#: escaped, so neither holds a raw newline, and property values no raw ``:`` or ``,``.
COMMAND = re.compile(r"^::(error|warning|notice) ((?:[A-Za-z]+=[^,:\r\n]*)(?:,[A-Za-z]+=[^,:\r\n]*)*)::([^\r\n]*)$")


def _parse(line: str) -> tuple[str, dict[str, str], str]:
    match = COMMAND.match(line)
    assert match, line
    props = dict(pair.split("=", 1) for pair in match.group(2).split(","))
    return match.group(1), props, match.group(3)


def test_github_lines_follow_the_workflow_command_syntax() -> None:
    lines = github_lines(ALL, FailOn.DANGLING)
    assert len(lines) == 4
    parsed = [_parse(line) for line in lines]
    command, props, message = parsed[3]
    assert command == "error"
    assert props == {
        "file": "docs/auth guide.md",
        "line": "12",
        "endLine": "12",
        "col": "5",
        "endColumn": "24",
        "title": "graphmem%3A dangling reference",
    }
    assert message == describe(DANGLING)
    assert parsed[1][0] == "warning"  # stale below --fail-on dangling
    command, props, _ = parsed[0]
    assert command == "notice"  # suspect
    assert "col" not in props  # columns only on one line
    assert "endColumn" not in props
    assert (props["line"], props["endLine"]) == ("7", "8")
    assert [c for c, _, _ in (_parse(x) for x in github_lines(ALL, FailOn.STALE))][1] == "error"


def test_github_escaping() -> None:
    assert escape_github_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_github_property("dir:1,2%\n") == "dir%3A1%2C2%25%0A"
    odd = KnowledgeReference(
        text="a,b",
        path="docs/odd,name:1%.md",
        line=2,
        column=1,
        end_line=2,
        end_column=4,
        state=ReferenceState.DANGLING,
        reason="`a,b` is gone\nsee 50% of: the rest",
    )
    (line,) = github_lines(check_of(odd), FailOn.DANGLING)
    _, props, message = _parse(line)
    assert props["file"] == "docs/odd%2Cname%3A1%25.md"
    assert message == "`a,b` is gone see 50%25 of: the rest"  # one line: a newline in a reason is a space


def test_github_says_when_annotations_will_be_cut() -> None:
    many = [
        KnowledgeReference(
            text=f"gone_{i}",
            path="docs/a.md",
            line=i + 1,
            column=1,
            end_line=i + 1,
            end_column=8,
            state=ReferenceState.DANGLING,
        )
        for i in range(GITHUB_ANNOTATIONS_SHOWN + 1)
    ]
    lines = github_lines(check_of(*many, STALE), FailOn.DANGLING)
    assert len(lines) == GITHUB_ANNOTATIONS_SHOWN + 3
    command, props, message = _parse(lines[-1])
    assert (command, props) == ("notice", {"title": "graphmem check"})
    assert message.startswith(f"{GITHUB_ANNOTATIONS_SHOWN + 1} errors, 1 warning: GitHub shows 10")
    assert len(github_lines(check_of(*many[:GITHUB_ANNOTATIONS_SHOWN]), FailOn.DANGLING)) == GITHUB_ANNOTATIONS_SHOWN
