"""PURE: the language server's commands (``workspace/executeCommand``) and their arguments.

Every command takes positional JSON arguments; bad ones raise ``InvalidArgument`` with a
message saying what is expected (the server answers with an InvalidParams error).

    graphmem.showNotes  [uri, ref]                     the notes at a symbol ("" or absent: the file's own;
                                                       "*": every note of the file)
    graphmem.confirm    [observation_id, uri?]         a stale/suspect note still holds: re-anchor it, fresh
                                                       (judged from the document's checkout; without
                                                       a uri, the workspace folder's: parse_confirm)
    graphmem.archive    [observation_id]               keep it, stop showing and recalling it
    graphmem.addNote    [uri, line, character, text, category?]
                                                       a note on the symbol at the position (0-based;
                                                       the file when no symbol encloses it)
    graphmem.recall     [uri, line?]                   ranked notes for the file (the cursor line focuses it)
    graphmem.status     []                             daemon health and index freshness
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from graphmem.errors import InvalidArgument
from graphmem.types import Category

__all__ = ["AddNote", "Command", "ShowNotes", "parse_add_note", "parse_id", "parse_recall", "parse_show_notes"]


class Command(str, Enum):
    """The command ids the server advertises."""

    SHOW_NOTES = "graphmem.showNotes"
    CONFIRM = "graphmem.confirm"
    ARCHIVE = "graphmem.archive"
    ADD_NOTE = "graphmem.addNote"
    RECALL = "graphmem.recall"
    STATUS = "graphmem.status"


@dataclass(frozen=True, slots=True)
class ShowNotes:
    """Which notes to show: a symbol's (by ref) or the file's own (``ref`` empty)."""

    uri: str
    ref: str


@dataclass(frozen=True, slots=True)
class AddNote:
    """A note to save on the symbol at a position of a document."""

    uri: str
    line: int
    character: int
    text: str
    category: Category


def _text_arg(args: Sequence[object], i: int, what: str, command: Command) -> str:
    if len(args) <= i or not isinstance(args[i], str) or not str(args[i]).strip():
        raise InvalidArgument(f"{command.value}: argument {i + 1} must be {what}")
    return str(args[i]).strip()


def _int_arg(args: Sequence[object], i: int, what: str, command: Command) -> int:
    value = args[i] if len(args) > i else None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(f"{command.value}: argument {i + 1} must be {what} (a number from 0)")
    return value


def parse_id(command: Command, args: Sequence[object]) -> str:
    """The observation id of ``graphmem.confirm`` / ``graphmem.archive``."""
    return _text_arg(args, 0, "the note's id", command)


def parse_confirm(args: Sequence[object]) -> tuple[str, str]:
    """``[id, uri?]`` of ``graphmem.confirm``: the note, and the document it is confirmed from
    ("" for none): its checkout is the one the daemon judges the confirmation from (a note
    stale only in a worktree is refused there, not confirmed at home). With no document, the
    server judges it from the checkout it serves: the one workspace folder that is (or lies in)
    a registered checkout of the note's repository; with none or several such folders, the
    note's home checkout (as saved), as before (``GraphmemServer.confirming_checkout``)."""
    obs_id = parse_id(Command.CONFIRM, args)
    uri = args[1] if len(args) > 1 else ""
    if not isinstance(uri, str):
        raise InvalidArgument(f"{Command.CONFIRM.value}: argument 2 must be the document's URI (or absent)")
    return obs_id, uri.strip()


def parse_show_notes(args: Sequence[object]) -> ShowNotes:
    """``[uri, ref]`` of ``graphmem.showNotes``."""
    uri = _text_arg(args, 0, "the document's URI", Command.SHOW_NOTES)
    ref = args[1] if len(args) > 1 else ""
    if not isinstance(ref, str):
        raise InvalidArgument(f"{Command.SHOW_NOTES.value}: argument 2 must be a symbol ref (or empty for the file)")
    return ShowNotes(uri, ref.strip())


def parse_add_note(args: Sequence[object]) -> AddNote:
    """``[uri, line, character, text, category?]`` of ``graphmem.addNote``."""
    cmd = Command.ADD_NOTE
    uri = _text_arg(args, 0, "the document's URI", cmd)
    line = _int_arg(args, 1, "the line", cmd)
    character = _int_arg(args, 2, "the character", cmd)
    if len(args) <= 3 or not isinstance(args[3], str) or not args[3].strip():
        raise InvalidArgument(
            f"{cmd.value}: the note's text is missing: give it as argument 4 ([uri, line, character, text, category?])"
        )
    text = args[3].strip()
    category = Category.OTHER
    if len(args) > 4 and args[4] not in (None, ""):
        try:
            category = Category(str(args[4]).strip().lower())
        except ValueError:
            choices = ", ".join(c.value for c in Category)
            raise InvalidArgument(f"{cmd.value}: category must be one of {choices} (got {args[4]!r})") from None
    if len(args) > 5:
        raise InvalidArgument(f"{cmd.value}: at most 5 arguments ([uri, line, character, text, category?])")
    return AddNote(uri, line, character, text, category)


def parse_recall(args: Sequence[object]) -> tuple[str, int | None]:
    """``[uri, line?]`` of ``graphmem.recall`` (line 0-based)."""
    uri = _text_arg(args, 0, "the document's URI", Command.RECALL)
    if len(args) < 2 or args[1] is None:
        return uri, None
    return uri, _int_arg(args, 1, "the cursor line", Command.RECALL)
