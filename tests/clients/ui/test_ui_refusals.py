"""The review page never offers an action the daemon would refuse: a note saved in one
checkout and stale only in a ``git worktree`` of it (its code edited there) is not confirmed
from that worktree (``app/confirming``), so the worktree's page shows, in place of its Confirm
button, why and where it can be confirmed (the home checkout's path and branch): live, after a
reload, and on the note's page, in a real headless chromium against a real daemon and a real
``graphmem ui``. ``graphmem show`` and the MCP note text in the worktree say it in one line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import Daemon, wait_for
from gitrepo import committed_fixture, replace_in, worktree
from graphmem.client import GraphMem
from graphmem.errors import FailedPrecondition
from graphmem.mcp_bridge import _observation_text
from graphmem.types import ObservationStatus
from uilib import LOGIN, NEEDS_BROWSER, browser, ui_server

__all__ = ["browser"]  # the fixture

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = NEEDS_BROWSER


def test_a_note_stale_only_in_a_worktree_offers_no_confirm_there_and_says_where(
    daemon_factory: Callable[..., Daemon], browser: Browser
) -> None:
    a = committed_fixture()
    b = worktree(a)
    d = daemon_factory([a, b])
    with d.client() as c:
        wait_for(lambda: any(r.root == str(b) and r.state.value == "ready" for r in c.status().repositories), 30)
        note = c.observe("login raises AuthError with the email as given", anchors=[LOGIN], repo=str(a))
        assert c.get(note.id, repo=str(b)).confirm_refused == ""  # fresh everywhere: confirmable
    with ui_server(d, b) as ui:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        try:
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(ui.url)
            page.locator("#live.on").wait_for()
            replace_in(b / "app/auth/service.py", "raise AuthError(email)", "raise AuthError(email.lower())")
            item = page.locator(f"#item-{note.id}")
            item.wait_for(timeout=20_000)  # live, from the daemon's event in the worktree
            _says_where(item.locator(".refused").inner_text(), str(a))
            assert item.locator("button[data-key=c]").count() == 0
            page.reload()  # the queue read whole
            item.locator(".refused").wait_for()
            _says_where(item.locator(".refused").inner_text(), str(a))
            assert item.locator("button[data-key=c]").count() == 0
            assert item.locator("button[data-key=a]").count() == 1  # what it can do is still offered
            page.goto(f"{ui.base}/note/{note.id}")
            refused = page.locator(f"#refused-{note.id}")
            refused.wait_for()
            assert refused.get_attribute("role") == "note"  # said in text, not by colour
            _says_where(refused.inner_text(), str(a))
            assert page.locator("button[data-key=c]").count() == 0
            with d.client() as c:
                _refused_in_worktree(c, d, note.id, a, b)
            # the same change made at home: stale there too, so confirmable from here (and the
            # page's kept queue hears it although the worktree's view of the note is the same)
            page.goto(ui.url)
            page.locator("#live.on").wait_for()
            replace_in(a / "app/auth/service.py", "raise AuthError(email)", "raise AuthError(email.lower())")
            with d.client() as c:
                wait_for(lambda: c.get(note.id, repo=str(a)).status is ObservationStatus.STALE, 20)
            confirm = item.locator("button[data-key=c]")
            confirm.wait_for(timeout=20_000)
            page.reload()
            confirm.wait_for()
            assert item.locator(".refused").count() == 0
            confirm.click()
            page.locator(f"#item-{note.id}.done").wait_for()
        finally:
            context.close()
        assert errors == [], errors
    with d.client() as c:
        assert c.get(note.id, repo=str(a)).status is ObservationStatus.FRESH  # confirmed at home
        wait_for(lambda: c.get(note.id, repo=str(b)).status is ObservationStatus.FRESH, 20)  # same code here


def _refused_in_worktree(c: GraphMem, d: Daemon, note_id: str, a: Path, b: Path) -> None:
    """The note, stale only in ``b``, carries the refusal ``confirm`` from ``b`` gives, word
    for word (in the file outline the language server reads too); the MCP note text and
    ``graphmem show`` run in ``b`` say it in one line."""
    shown = c.get(note_id, repo=str(b))
    assert shown.status is ObservationStatus.STALE
    with pytest.raises(FailedPrecondition) as said:
        c.confirm(note_id, repo=str(b))
    assert said.value.message == shown.confirm_refused
    at_home = c.get(note_id, repo=str(a))
    assert at_home.status is ObservationStatus.FRESH
    assert at_home.confirm_refused == ""
    outline = c.file_outline(str(b / "app/auth/service.py"), repo=str(b))  # what the language server reads
    assert [o.confirm_refused for o in outline.observations if o.id == note_id] == [shown.confirm_refused]
    mcp = [line for line in _observation_text(shown).splitlines() if "not confirmable here" in line]
    assert len(mcp) == 1, _observation_text(shown)
    _says_where(mcp[0], str(a))
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "show", note_id],
        cwd=b,
        env=d.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    (line,) = [x for x in out.splitlines() if x.startswith("confirm:")]
    _says_where(line, str(a))


def _says_where(text: str, home: str) -> None:
    """The refusal names why (stale only here) and where to confirm: the home checkout's
    path and branch."""
    assert "stale only in this checkout" in text, text
    assert home in text, text
    assert "(branch main)" in text, text
