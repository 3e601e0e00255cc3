"""The hook's hand-written protobuf messages (``graphmem.agents.wire``) against the generated
classes: what it writes parses as the request it means, and it reads every response field it
uses from what the generated classes write."""

from __future__ import annotations

import pytest
from graphmem.agents import wire
from graphmem.v1 import service_pb2, types_pb2


def test_session_brief_request_is_the_generated_message() -> None:
    data = wire.session_brief_request("/repo/dir", 1200, True)
    msg = service_pb2.SessionBriefRequest.FromString(data)
    assert msg == service_pb2.SessionBriefRequest(repo="/repo/dir", token_budget=1200, fresh_only=True)
    assert data == msg.SerializeToString()
    bare = service_pb2.SessionBriefRequest.FromString(wire.session_brief_request("ü/x", 0, False))
    assert bare == service_pb2.SessionBriefRequest(repo="ü/x")


def test_edit_context_request_is_the_generated_message() -> None:
    data = wire.edit_context_request("/r", ["/r/a.py", "/r/b é.py"], 600, 500, False, ["id1", "id2"])
    msg = service_pb2.EditContextRequest.FromString(data)
    assert msg == service_pb2.EditContextRequest(repo="/r", files=["/r/a.py", "/r/b é.py"], token_budget=600,
                                                  wait_ms=500, already_shown=["id1", "id2"])


def test_responses_are_read_field_by_field() -> None:
    fresh = types_pb2.Freshness(current=True, repositories=[types_pb2.RepoFreshness(repo_id="r", current=True)])
    brief = service_pb2.SessionBriefResponse(text="# brief ✓", observation_ids=["a", "b"], freshness=fresh,
                                             tokens=42, left_out=300)
    fields = wire.decode(brief.SerializeToString())
    assert wire.strings(fields, 1) == ["# brief ✓"]
    assert wire.strings(fields, 2) == ["a", "b"]
    assert (fields[4], fields[250]) == ([42], [300])
    edit = service_pb2.EditContextResponse(text="x", observation_ids=["c"], callout_ids=["c"], freshness=fresh,
                                           tokens=1, left_out=2, indexed=True)
    fields = wire.decode(edit.SerializeToString())
    assert (wire.strings(fields, 1), wire.strings(fields, 2), wire.strings(fields, 3)) == (["x"], ["c"], ["c"])
    assert fields[7] == [1]
    assert wire.decode(service_pb2.SessionBriefResponse().SerializeToString()) == {}


def test_garbage_is_an_error_not_a_hang() -> None:
    for bad in (b"\x0a\x05ab", b"\x08\x80", b"\x0b"):
        with pytest.raises(ValueError, match=r"truncated|unsupported"):
            wire.decode(bad)
