"""Request validation shared by every RPC: bad input is INVALID_ARGUMENT with a message.

``validate_request`` walks a request message by its descriptor, so every RPC (and any field
added later) is covered: no NUL characters in strings, strings and repeated fields within
limits, path-like fields within what a file system accepts (4096 bytes, 255 bytes a name),
enum values the daemon knows, numbers within range. The server's interceptor calls it before
any servicer runs; invalid UTF-8 never reaches it (the interceptor's deserializer rejects it).

Import lines are parsed and validated here too (``parse_import``): every rejected line is
reported with its number and the rest is imported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from graphmem.errors import InvalidArgument
from graphmem.types import Observation

from graphmemd.memory.obsdoc import MAX_ANCHORS, MAX_ID, MAX_TAG, MAX_TAGS, MAX_TEXT, from_doc

__all__ = ["MAX_IMPORT_LINE", "MAX_IMPORT_LINES", "ImportBatch", "parse_import", "validate_request"]

#: A path (or anything that may be one) in bytes, and one name in it (Linux PATH_MAX/NAME_MAX).
MAX_PATH_BYTES: Final = 4096
MAX_NAME_BYTES: Final = 255
MAX_IMPORT_LINES: Final = 200_000
MAX_IMPORT_LINE: Final = 1024 * 1024
#: Any other string field.
MAX_STRING: Final = 64 * 1024
#: Any repeated field without its own limit.
MAX_REPEATED: Final = 1000

#: Fields that name files or directories (or may: a repo hint is an id or a path).
_PATHLIKE: Final = frozenset({"path", "repo", "file", "files", "paths", "anchors", "symbols", "symbol", "ref"})
_STRING_LIMITS: Final = {
    "text": MAX_TEXT,
    "tags": MAX_TAG,
    "source": MAX_TAG,
    "confirmed_by": MAX_TAG,
    "note": MAX_TEXT,
    "id": MAX_ID,
    "supersedes": MAX_ID,
    "contradicts": MAX_ID,
    "idempotency_key": 256,
    "page_token": 32,
    "pattern": 1024,
    "lines": MAX_IMPORT_LINE,
    "service": 256,
}
_REPEATED_LIMITS: Final = {
    "anchors": MAX_ANCHORS,
    "tags": MAX_TAGS,
    "lines": MAX_IMPORT_LINES,
    "files": 10_000,
    "paths": 10_000,
    # EditContext: the notes a session's hooks have shown (the hook remembers its last 2,000)
    "already_shown": 2_000,
}
_UINT_LIMITS: Final = {"hops": 6, "limit": 100_000, "token_budget": 10_000_000}


def _check_string(name: str, value: str, where: str) -> None:
    if "\x00" in value:
        raise InvalidArgument(f"{where}: contains a NUL character")
    if name in _PATHLIKE:
        raw = value.encode("utf-8", errors="surrogatepass")
        if len(raw) > MAX_PATH_BYTES:
            raise InvalidArgument(f"{where}: is {len(raw)} bytes; a path is at most {MAX_PATH_BYTES}")
        for part in value.replace("::", "/").split("/"):
            if len(part.encode("utf-8", errors="surrogatepass")) > MAX_NAME_BYTES:
                raise InvalidArgument(f"{where}: the name {part[:40]!r}… is longer than {MAX_NAME_BYTES} bytes")
        return
    limit = _STRING_LIMITS.get(name, MAX_STRING)
    if len(value) > limit:
        raise InvalidArgument(f"{where}: is {len(value)} characters; the limit is {limit}")


def _check_scalar(field: FieldDescriptor, value: Any, where: str) -> None:
    if field.type == FieldDescriptor.TYPE_STRING:
        _check_string(field.name, value, where)
    elif field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        if enum is not None and enum.values_by_number.get(value) is None:
            raise InvalidArgument(f"{where}: unknown {enum.name} value {value}")
    elif field.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidArgument(f"{where}: must be a finite number")
    elif field.type in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_UINT64):
        limit = _UINT_LIMITS.get(field.name)
        if limit is not None and value > limit:
            raise InvalidArgument(f"{where}: {value} is over the limit of {limit}")


def validate_request(message: Message, where: str = "") -> None:
    """Raise ``InvalidArgument`` naming the first field of ``message`` that is out of bounds."""
    for field, value in message.ListFields():
        name = f"{where}{field.name}"
        if field.is_repeated:
            limit = _REPEATED_LIMITS.get(field.name, MAX_REPEATED)
            if len(value) > limit:
                raise InvalidArgument(f"{name}: has {len(value)} items; the limit is {limit}")
            for i, item in enumerate(value):
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    validate_request(item, f"{name}[{i}].")
                else:
                    _check_scalar(field, item, f"{name}[{i}]")
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            validate_request(value, f"{name}.")
        else:
            _check_scalar(field, value, name)


@dataclass(frozen=True, slots=True)
class ImportBatch:
    """The valid observations of an import (each with the repository descriptor its line
    carried, if any) and a message per rejected line."""

    items: list[tuple[Observation, dict[str, Any] | None]]
    errors: list[str]

    @property
    def observations(self) -> list[Observation]:
        """The valid observations of the batch, in line order."""
        return [o for o, _repo in self.items]


def parse_import(lines: Iterable[str]) -> ImportBatch:
    """Parse exported JSON lines (``{"op": "put", "obs": {...}}`` or a bare document);
    blank lines are skipped and every other unusable line is reported by its 1-based number."""
    out: list[tuple[Observation, dict[str, Any] | None]] = []
    errors: list[str] = []
    for number, line in enumerate(lines, start=1):
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except ValueError as exc:
            errors.append(f"line {number}: invalid JSON: {exc}")
            continue
        if not isinstance(rec, dict):
            errors.append(f"line {number}: expected a JSON object, got {type(rec).__name__}")
            continue
        if rec.get("op", "put") != "put":
            errors.append(f"line {number}: not an exported observation (op {rec.get('op')!r})")
            continue
        doc = rec.get("obs", rec if "id" in rec else None)
        if not isinstance(doc, dict):
            errors.append(f"line {number}: not an exported observation record")
            continue
        repo = rec.get("repo")
        if doc.get("knowledge") is not None:
            errors.append(f"line {number}: a unit of a knowledge file: it comes with its file, not by import")
            continue
        try:
            out.append((from_doc(doc), repo if isinstance(repo, dict) else None))
        except InvalidArgument as exc:
            errors.append(f"line {number}: {exc.message}")
    return ImportBatch(out, errors)
