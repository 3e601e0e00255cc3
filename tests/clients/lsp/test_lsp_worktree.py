"""``graphmem lsp`` in a ``git worktree`` (pytest-lsp's real client, a real daemon, real git):
a note saved in the main checkout and stale only in the worktree (its code edited there) is
not confirmable from the worktree, so the editor there offers no *confirm* code action (only
*archive*), its hover says why and where, and ``graphmem.confirm`` sent with the document is
refused by the daemon instead of confirming the note at home. Sent with the note's id alone, it
is judged from the workspace's checkout of the note's repository, and refused there the same
way; only a workspace holding two checkouts of it confirms the note as saved."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Daemon, wait_for
from gitrepo import committed_fixture, replace_in, worktree
from graphmem.types import ObservationStatus
from lsplib import execute, graphmem_diagnostics, hover_text, open_file, start_server, stop_server
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

pytestmark = pytest.mark.asyncio

HASH = "app/auth/crypto.py::hash_password"  # `def hash_password` is line 7 (0-based), name at 4..17


def _stale_only_in_a_worktree(daemon_factory: Callable[..., Daemon]) -> tuple[Daemon, Path, Path, str]:
    """A checkout, a worktree of it, their daemon, and a note saved in the checkout that an edit
    in the worktree made stale only there."""
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    with d.client() as c:
        wait_for(lambda: any(r.root == str(b) and r.state.value == "ready" for r in c.status().repositories), 30)
        obs_id = c.observe("hash_password must stay constant-time", anchors=[HASH], repo=str(a)).id
        replace_in(b / "app/auth/crypto.py", "salt=SALT)", "salt=SALT + password[:1])")
        wait_for(lambda: c.get(obs_id, repo=str(b)).status is ObservationStatus.STALE, 20)
    return d, a, b, obs_id


async def test_a_note_stale_only_in_the_worktree_offers_no_confirm_there(daemon_factory: Callable[..., Daemon]) -> None:
    d, a, b, obs_id = _stale_only_in_a_worktree(daemon_factory)
    client = await start_server(d.home)
    try:
        uri = open_file(client, b / "app/auth/crypto.py")
        found: list[lsp.Diagnostic] = []
        for _ in range(200):  # the diagnostic of the worktree's view of the note
            found = graphmem_diagnostics(client, uri)
            if found:
                break
            await asyncio.sleep(0.05)
        assert [x.data for x in found] == [{"id": obs_id, "ref": HASH}]
        actions = await client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=found[0].range,
                context=lsp.CodeActionContext(diagnostics=found),
            )
        )
        titles = [x.title for x in actions or [] if isinstance(x, lsp.CodeAction)]
        assert titles == [f"graphmem: archive note {obs_id[:8]}"], titles
        hover = await hover_text(client, uri, 7, 6)
        assert "Not confirmable here" in hover, hover
        assert str(a) in hover, hover
        assert "(branch main)" in hover, hover
        with pytest.raises(JsonRpcException, match="stale only in this checkout"):
            await execute(client, "graphmem.confirm", obs_id, uri)
    finally:
        await stop_server(client)
    with d.client() as c:
        assert c.get(obs_id, repo=str(a)).confirmed_at is None  # nothing was confirmed at home


async def test_confirm_with_only_the_id_is_judged_from_the_workspace_checkout(
    daemon_factory: Callable[..., Daemon], tmp_path: Path
) -> None:
    d, a, b, obs_id = _stale_only_in_a_worktree(daemon_factory)
    elsewhere = tmp_path / "notes"  # a folder in no registered checkout
    elsewhere.mkdir()
    for folders in ([b], [elsewhere, b / "app"]):  # the worktree; a folder inside it beside another
        client = await start_server(d.home, folders=folders)
        try:
            with pytest.raises(JsonRpcException) as refused:
                await execute(client, "graphmem.confirm", obs_id)
            message = str(refused.value)
            said = f"{obs_id} is stale only in this checkout: it was saved in {a} (branch main), where it is fresh"
            assert said in message
            assert "Traceback" not in message
        finally:
            await stop_server(client)
        with d.client() as c:
            assert c.get(obs_id, repo=str(a)).confirmed_at is None, folders  # nothing was confirmed at home

    client = await start_server(d.home, folders=[a, b])  # two checkouts of it: as saved, at home
    try:
        confirmed = await execute(client, "graphmem.confirm", obs_id)
    finally:
        await stop_server(client)
    assert confirmed["id"] == obs_id
    with d.client() as c:
        assert c.get(obs_id, repo=str(a)).confirmed_at is not None
