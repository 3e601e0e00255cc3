"""The pure text edits behind ``graphmem setup``: JSON/JSONC members and array items, TOML
tables, the instruction block. Every other byte of the user's file stays as it was."""

from __future__ import annotations

import json
import tomllib
from typing import Any

import pytest
from graphmem.agents import instructions, jsonc, tomledit
from hypothesis import example, given, settings
from hypothesis import strategies as st

ENTRY = {"type": "stdio", "command": "/opt/bin/graphmem", "args": ["mcp"]}


def ours(item: Any) -> bool:
    return isinstance(item, dict) and item.get("id") == "gm"


def test_jsonc_keeps_comments_order_and_indentation() -> None:
    text = (
        "{\n"
        "    // the user's servers\n"
        '    "zeta": 1, /* keep */\n'
        '    "mcpServers": {\n'
        '        "other": {"command": "o", "args": []},\n'
        "    },\n"
        '    "alpha": [1, 2,],\n'
        "}\n"
    )
    new = jsonc.set_member(text, ["mcpServers"], "graphmem", ENTRY)
    assert new.startswith(text[: text.index('"other"')])
    assert '        "graphmem": {\n            "type": "stdio"' in new  # the file's own 4-space unit
    assert "// the user's servers" in new
    assert "/* keep */" in new
    assert '"alpha": [1, 2,],' in new
    value = jsonc.value_of(new)
    assert list(value) == ["zeta", "mcpServers", "alpha"]
    assert list(value["mcpServers"]) == ["other", "graphmem"]
    assert value["mcpServers"]["graphmem"] == ENTRY
    assert jsonc.set_member(new, ["mcpServers"], "graphmem", ENTRY) == new  # twice: no change
    assert jsonc.remove_member(new, ["mcpServers"], "graphmem") == text


def test_jsonc_creates_missing_objects_and_files() -> None:
    assert json.loads(jsonc.set_member("", ["servers"], "graphmem", ENTRY)) == {"servers": {"graphmem": ENTRY}}
    assert jsonc.set_member("", ["a"], "b", 1) == '{\n  "a": {\n    "b": 1\n  }\n}\n'
    inline = jsonc.set_member('{"x": 1}', ["servers"], "graphmem", {"k": 1})
    assert inline == '{"x": 1, "servers": {"graphmem": {"k": 1}}}'
    assert jsonc.set_member("{}\n", ["s"], "g", 2) == '{\n  "s": {\n    "g": 2\n  }\n}\n'


def test_jsonc_replaces_a_changed_member_in_place() -> None:
    text = '{\n  "mcpServers": {\n    "graphmem": {"command": "/old"},\n    "b": 2\n  }\n}\n'
    new = jsonc.set_member(text, ["mcpServers"], "graphmem", {"command": "/new"})
    assert jsonc.value_of(new) == {"mcpServers": {"graphmem": {"command": "/new"}, "b": 2}}
    assert new.index('"graphmem"') < new.index('"b"')


def test_jsonc_array_items_are_upserted_once_and_removed() -> None:
    text = '{\n  "hooks": {\n    "Start": [\n      {"id": "theirs"}\n    ]\n  }\n}\n'
    one = jsonc.upsert_item(text, ["hooks", "Start"], ours, {"id": "gm", "v": 1})
    assert jsonc.value_of(one)["hooks"]["Start"] == [{"id": "theirs"}, {"id": "gm", "v": 1}]
    assert jsonc.upsert_item(one, ["hooks", "Start"], ours, {"id": "gm", "v": 1}) == one
    two = jsonc.upsert_item(one, ["hooks", "Start"], ours, {"id": "gm", "v": 2})
    assert jsonc.value_of(two)["hooks"]["Start"] == [{"id": "theirs"}, {"id": "gm", "v": 2}]
    assert jsonc.remove_items(two, ["hooks", "Start"], ours) == text
    dup = jsonc.set_member(text, ["hooks"], "Start", [{"id": "gm"}, {"id": "x"}, {"id": "gm"}])
    once = jsonc.upsert_item(dup, ["hooks", "Start"], ours, {"id": "gm"})
    assert jsonc.value_of(once)["hooks"]["Start"] == [{"id": "gm"}, {"id": "x"}]


def test_jsonc_rejects_what_is_not_json() -> None:
    for bad in ('{"a": }', '{"a": 1', "[1, 2] 3", '{"a" 1}'):
        with pytest.raises(jsonc.JsonSyntaxError):
            jsonc.parse(bad)
    with pytest.raises(jsonc.JsonSyntaxError):
        jsonc.set_member('{"mcpServers": []}', ["mcpServers"], "graphmem", {})


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "graphmem-top"), json_values, max_size=4),
    indent=st.sampled_from([None, 2, 4, "\t"]),
    value=json_values,
)
@example(doc={"": None}, indent=None, value={",}": None})  # a string holding ",}" is no trailing comma
def test_jsonc_set_then_remove_gives_the_text_back(doc: dict[str, Any], indent: Any, value: Any) -> None:
    text = json.dumps(doc, indent=indent) + "\n"
    new = jsonc.set_member(text, [], "graphmem-top", value)
    assert json.loads(new) == {**doc, "graphmem-top": value}
    assert jsonc.set_member(new, [], "graphmem-top", value) == new
    assert jsonc.remove_member(new, [], "graphmem-top") == text


CODEX = """# my Codex configuration
model = "o3"  # the one I like

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]

[profiles.fast]
model = "o4-mini"
"""


def test_toml_table_is_added_and_removed_keeping_the_rest() -> None:
    new = tomledit.set_table(CODEX, ["mcp_servers"], "graphmem", {"command": "/opt/bin/graphmem", "args": ["mcp"]})
    data = tomllib.loads(new)
    assert data["mcp_servers"]["graphmem"] == {"command": "/opt/bin/graphmem", "args": ["mcp"]}
    assert data["mcp_servers"]["context7"]["command"] == "npx"
    assert data["profiles"]["fast"]["model"] == "o4-mini"
    assert new.startswith(CODEX[: CODEX.index("[profiles.fast]")])
    assert "\n\n[profiles.fast]" in new  # a blank line still separates the tables
    entry = {"command": "/opt/bin/graphmem", "args": ["mcp"]}
    assert tomledit.set_table(new, ["mcp_servers"], "graphmem", entry) == new
    assert tomledit.remove_table(new, ["mcp_servers"], "graphmem") == CODEX
    fresh = tomledit.set_table("", ["mcp_servers"], "graphmem", {"command": "g", "args": ["mcp"]})
    assert tomllib.loads(fresh) == {"mcp_servers": {"graphmem": {"command": "g", "args": ["mcp"]}}}
    assert tomledit.remove_table(fresh, ["mcp_servers"], "graphmem").strip() == ""


def test_toml_flag_is_set_only_when_absent() -> None:
    flagged = tomledit.set_default(CODEX, ["features"], "codex_hooks", True, unless=["hooks"])
    assert tomllib.loads(flagged)["features"] == {"codex_hooks": True}
    off = CODEX + "\n[features]\nhooks = false\n"
    assert tomledit.set_default(off, ["features"], "codex_hooks", True, unless=["hooks"]) == off
    with pytest.raises(tomledit.TomlSyntaxError):
        tomledit.set_table("[a\nb = ", ["mcp_servers"], "graphmem", {})


def test_instruction_block_is_written_once_updated_in_place_and_removed() -> None:
    mine = "# Agents\n\nRun the tests with make.\n"
    one = instructions.upsert(mine)
    assert one.startswith(mine)
    assert one.count(instructions.BEGIN) == 1
    assert instructions.upsert(one) == one
    older = one.replace("narrowest code", "smallest code")
    assert instructions.upsert(older) == one  # replaced in place
    doubled = one + "\nmore\n" + instructions.BLOCK
    assert instructions.upsert(doubled).count(instructions.BEGIN) == 1
    assert instructions.remove(one) == mine
    assert instructions.upsert(None) == instructions.BLOCK
    assert instructions.remove(instructions.BLOCK) == ""
    assert "save_observation" in instructions.BLOCK
    assert "path/to/file.py::Class.method" in instructions.BLOCK
