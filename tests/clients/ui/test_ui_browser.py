"""The review page in a real headless browser (Debian's chromium driven by Playwright through
its executable path: no browser download), against a real daemon and a real ``graphmem ui``:
the issue's acceptance. Skipped, saying why, where chromium or Playwright is absent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from conftest import wait_for
from gitrepo import replace_in
from graphmem.actor import local_actor
from graphmem.types import ObservationStatus
from uilib import NEEDS_BROWSER, Review, browser, cli_show, review

__all__ = ["browser", "review"]  # the fixtures

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = NEEDS_BROWSER


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], f"script errors on the page: {errors}"


def _make_stale(r: Review) -> None:
    replace_in(r.root / "app/auth/service.py", "raise AuthError(email)", "raise AuthError(email.lower())")


def _wait_status(r: Review, status: ObservationStatus) -> None:
    with r.daemon.client() as c:
        wait_for(lambda: c.get(r.note_id).status is status, 20)


def test_queue_shows_the_item_and_its_diff_and_c_confirms(review: Review, page: Page) -> None:
    _make_stale(review)
    _wait_status(review, ObservationStatus.STALE)
    page.goto(review.ui.url)
    item = page.locator(f"#item-{review.note_id}")
    item.wait_for()
    assert "[STALE: body changed: 1 line]" in item.locator(".reason").inner_text()
    removed = item.locator("table.code tr.del")
    added = item.locator("table.code tr.add")
    removed.first.wait_for()
    assert "raise AuthError(email)" in removed.inner_text()
    assert "raise AuthError(email.lower())" in added.inner_text()
    assert "selected" in (item.get_attribute("class") or "")  # the first item is selected
    page.keyboard.press("c")
    page.locator(f"#item-{review.note_id}.done").wait_for()
    shown = cli_show(review)  # checked through the CLI
    assert shown["status"] == "OBSERVATION_STATUS_FRESH"
    assert shown["confirmed_by"] == local_actor("ui")


def test_the_neighbourhood_picture_renders_its_nodes(review: Review, page: Page) -> None:
    page.goto(review.ui.url)
    page.goto(f"{review.ui.base}/note/{review.note_id}")
    graph = page.locator("#graph[data-rendered]")
    graph.wait_for(timeout=15_000)
    drawn = page.evaluate("() => Number(document.getElementById('graph').dataset.rendered)")
    assert drawn >= 8  # login, its class, callers, callees, files
    assert page.locator("#graph canvas").count() >= 1
    # collapsing by directory draws fewer nodes
    page.locator("#collapse").check()
    page.wait_for_function(f"() => Number(document.getElementById('graph').dataset.rendered) < {drawn}")


def test_a_live_stale_event_appears_without_a_reload(review: Review, page: Page) -> None:
    page.goto(review.ui.url)
    page.locator("#empty").wait_for()
    page.locator("#live.on").wait_for()  # subscribed
    page.evaluate("() => { window.__sameDocument = true; }")
    _make_stale(review)
    item = page.locator(f"#item-{review.note_id}")
    item.wait_for(timeout=20_000)
    assert page.evaluate("() => window.__sameDocument === true")  # no reload happened
    assert "new" in (item.get_attribute("class") or "")
    assert page.locator("#count").inner_text() == "1"


def test_without_the_token_the_browser_is_refused(review: Review, page: Page) -> None:
    response = page.goto(f"{review.ui.base}/queue")
    assert response is not None
    assert response.status == 403
    assert "token" in page.inner_text("body")


def test_the_note_page_shows_its_history_and_delete_asks_first(review: Review, page: Page) -> None:
    actor = local_actor("ui")
    _make_stale(review)
    _wait_status(review, ObservationStatus.STALE)
    page.goto(review.ui.url)
    page.goto(f"{review.ui.base}/note/{review.note_id}")
    page.locator("button[data-key=c]").click()
    page.locator("#note-result .done").wait_for()
    # the daemon's live event of that confirmation leaves the note's page in place
    with review.daemon.client() as c:
        wait_for(lambda: c.get(review.note_id).status is ObservationStatus.FRESH, 20)
    page.locator("table.history").wait_for()
    page.reload()
    rows = page.locator("table.history tr")
    rows.last.wait_for()
    texts = [" ".join(t.split()) for t in rows.all_inner_texts()]
    assert any("went stale" in t and "body changed" in t and "graphmem" in t for t in texts), texts
    assert any("confirmed still true" in t and actor in t for t in texts), texts
    # delete: nothing happens until the id is typed back
    page.locator("details.danger summary").click()
    page.locator("details.danger input[name=confirm]").fill("not-the-id")
    page.locator("details.danger button[type=submit]").click()
    page.locator("#toast.error").get_by_text("type its id to confirm").wait_for()  # the page says why
    with review.daemon.client() as c:
        assert c.get(review.note_id).status is ObservationStatus.FRESH
    page.locator("details.danger input[name=confirm]").fill(review.note_id)
    page.locator("details.danger button[type=submit]").click()
    page.wait_for_url("**/queue")
    response = page.goto(f"{review.ui.base}/note/{review.note_id}")
    assert response is not None
    assert response.status == 410
    assert f"was deleted by {actor} at " in page.inner_text("body")
