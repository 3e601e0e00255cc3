"""PURE: how a client's file names graphmem, per scope.

A project-scope file is committed and read on every teammate's machine, so it names
``graphmem`` as found on ``PATH`` (every client documents ``command`` as an executable on the
system path or a full path) and carries ``GRAPHMEM_HOME``/``GRAPHMEM_ADDRESS`` only when the
user passed ``--home``/``--address`` on this setup's command line. A user-scope file is this
user's own: it names the running graphmem by its absolute path (clients started from a desktop
launcher often have a shorter ``PATH`` than the shell) and passes on the home and address in
effect, flag or environment. ``--command`` names a launcher the user chose, at either scope.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graphmem.agents.table import Scope

__all__ = ["ON_PATH", "Invocation", "Setting", "invocation", "parse_command"]

#: The command a project file names when the user chose none.
ON_PATH: tuple[str, ...] = ("graphmem",)


@dataclass(frozen=True, slots=True)
class Setting:
    """A global option as this setup got it: the flag's value (None: not on the command line)
    and the value in effect (flag, else environment)."""

    flag: str | None = None
    effective: str | None = None


@dataclass(frozen=True, slots=True)
class Invocation:
    """What a file at one scope runs: the command (executable and leading arguments), the
    environment its MCP entry sets, and the ``--home`` its hook lines pass."""

    command: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    home: str | None = None


def parse_command(text: str) -> tuple[str, ...]:
    """``--command``'s value as words (``"uvx graphmem"`` is two); ValueError when empty."""
    words = tuple(shlex.split(text))
    if not words:
        raise ValueError("--command needs an executable: a path, or a name found on PATH")
    return words


def invocation(
    scope: Scope, chosen: Sequence[str] | None, running: Sequence[str], home: Setting, address: Setting
) -> Invocation:
    """The invocation a file at ``scope`` names: ``chosen`` (``--command``) at any scope; else
    ``graphmem`` on PATH for a project file, the ``running`` graphmem's absolute command for a
    user file. ``home`` is already an absolute path when set."""
    project = scope is Scope.PROJECT
    command = tuple(chosen) if chosen else (ON_PATH if project else tuple(running))
    chosen_home = home.flag if project else home.effective
    chosen_address = address.flag if project else address.effective
    env: dict[str, str] = {}
    if chosen_home:
        env["GRAPHMEM_HOME"] = chosen_home
    if chosen_address:
        env["GRAPHMEM_ADDRESS"] = chosen_address
    return Invocation(command, env, chosen_home)
