"""PURE: the protobuf wire format of the hook's two calls, without loading protobuf.

A hook is a new process on every session start and edit; importing the protobuf runtime and
the generated messages costs it about as much again as the rest of its start. The hook needs
two requests (``SessionBriefRequest``, ``EditContextRequest``) and a few fields of their
responses, so it writes and reads them here, by the field numbers of
``proto/graphmem/v1/service.proto`` (``tests/clients/agents/test_agents_wire.py`` checks every
field against the generated classes). Everything else speaks through ``graphmem.v1``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["FieldValue", "decode", "edit_context_request", "encode", "session_brief_request", "strings"]

#: A field as sent: (number, value); str/bytes are length-delimited, int and bool are varints.
FieldValue = tuple[int, "str | bytes | int | bool"]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode(fields: Iterable[FieldValue]) -> bytes:
    """The message of ``fields`` (default values left out, as proto3 does)."""
    out = bytearray()
    for number, value in fields:
        if isinstance(value, bool | int):
            if value:
                out += _varint(number << 3) + _varint(int(value))
        else:
            data = value.encode("utf-8") if isinstance(value, str) else value
            if data:
                out += _varint(number << 3 | 2) + _varint(len(data)) + data
    return bytes(out)


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, i
        shift += 7


def decode(data: bytes) -> dict[int, list[int | bytes]]:
    """Every field of a message by number (varints as int, length-delimited as bytes; fixed32
    and fixed64 fields are skipped)."""
    fields: dict[int, list[int | bytes]] = {}
    i = 0
    while i < len(data):
        key, i = _read_varint(data, i)
        number, kind = key >> 3, key & 7
        if kind == 0:
            value, i = _read_varint(data, i)
            fields.setdefault(number, []).append(value)
        elif kind == 2:
            size, i = _read_varint(data, i)
            if i + size > len(data):
                raise ValueError("truncated field")
            fields.setdefault(number, []).append(data[i : i + size])
            i += size
        elif kind in (1, 5):
            i += 8 if kind == 1 else 4
        else:
            raise ValueError(f"unsupported wire type {kind}")
    return fields


def strings(fields: dict[int, list[int | bytes]], number: int) -> list[str]:
    """The string values of field ``number``."""
    return [v.decode("utf-8") for v in fields.get(number, []) if isinstance(v, bytes)]


def session_brief_request(repo: str, budget: int, fresh_only: bool) -> bytes:
    """``SessionBriefRequest{repo=1, token_budget=5, fresh_only=250}`` (no files: the repository's brief)."""
    return encode([(1, repo), (5, budget), (250, fresh_only)])


def edit_context_request(
    repo: str, files: Sequence[str], budget: int, wait_ms: int, fresh_only: bool, already_shown: Sequence[str]
) -> bytes:
    """``EditContextRequest{repo=1, files=2, token_budget=3, wait_ms=4, fresh_only=5, already_shown=6}``."""
    return encode([(1, repo), *((2, f) for f in files), (3, budget), (4, wait_ms), (5, fresh_only),
                   *((6, s) for s in already_shown)])
