"""The pure choice of how a client's file names graphmem, per scope."""

from __future__ import annotations

import pytest
from graphmem.agents.invocation import ON_PATH, Invocation, Setting, invocation, parse_command
from graphmem.agents.table import Scope, is_our_hook

RUNNING = ("/home/me/.venv/bin/graphmem",)
EXPORTED = Setting(None, "/home/me/.gm")  # GRAPHMEM_HOME exported, no --home flag


def test_a_project_file_names_graphmem_on_path_and_no_exported_home() -> None:
    assert invocation(Scope.PROJECT, None, RUNNING, EXPORTED, Setting()) == Invocation(ON_PATH, {}, None)


def test_a_project_file_carries_the_home_and_address_flags() -> None:
    got = invocation(Scope.PROJECT, None, RUNNING, Setting("/srv/gm", "/srv/gm"), Setting("unix:/s", "unix:/s"))
    assert got == Invocation(ON_PATH, {"GRAPHMEM_HOME": "/srv/gm", "GRAPHMEM_ADDRESS": "unix:/s"}, "/srv/gm")


def test_a_user_file_names_the_running_graphmem_and_the_home_in_effect() -> None:
    got = invocation(Scope.USER, None, RUNNING, EXPORTED, Setting(None, "h:1"))
    assert got == Invocation(RUNNING, {"GRAPHMEM_HOME": "/home/me/.gm", "GRAPHMEM_ADDRESS": "h:1"}, "/home/me/.gm")


@pytest.mark.parametrize("scope", list(Scope))
def test_a_chosen_launcher_wins_at_either_scope(scope: Scope) -> None:
    assert invocation(scope, ("uvx", "graphmem"), RUNNING, Setting(), Setting()).command == ("uvx", "graphmem")


def test_command_words() -> None:
    assert parse_command("'/opt/my tools/gm' run") == ("/opt/my tools/gm", "run")
    with pytest.raises(ValueError, match="--command needs an executable"):
        parse_command("  ")


def test_a_hook_of_a_chosen_launcher_is_recognised_as_graphmem_s() -> None:
    assert is_our_hook({"command": "/opt/tools/gm hook post-edit --client cursor"})
    assert is_our_hook({"hooks": [{"command": "graphmem hook session-start --client codex"}]})
    assert not is_our_hook({"command": "git hook run pre-commit --client x"})
    assert not is_our_hook({"command": "prettier --write"})
