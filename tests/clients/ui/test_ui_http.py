"""The review page over plain HTTP (no browser): the token guard, bad input as a message on
the page, nothing changed twice, a daemon that went down. A real daemon, a real ``graphmem ui``
process and real requests."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from collections.abc import Callable
from urllib.parse import urlencode

from conftest import Daemon, wait_for
from gitrepo import replace_in
from graphmem.actor import local_actor
from graphmem.types import HistoryKind, ObservationStatus
from uilib import LOGIN, Review, cli_show, review, ui_server

__all__ = ["review"]  # the fixture

#: who the page acts as: it runs as this test's user
UI_ACTOR = local_actor("ui")


def _stale(r: Review) -> None:
    replace_in(r.root / "app/auth/service.py", "raise AuthError(email)", "raise AuthError(email.lower())")
    with r.daemon.client() as c:
        wait_for(lambda: c.get(r.note_id).status is ObservationStatus.STALE, 20)


def test_a_request_without_the_token_is_refused(review: Review) -> None:
    ui = review.ui
    status, body, _ = ui.request("/queue", cookie=False)
    assert status == 403
    assert "token" in body
    assert ui.request("/static/ui.css", cookie=False)[0] == 403
    # the URL's token sets the cookie and redirects to the same page without it
    status, _, headers = ui.request(f"/queue?token={ui.token}&state=stale", cookie=False)
    assert status == 303
    assert headers["location"] == "/queue?state=stale"
    assert f"graphmem_ui_{ui.port}={ui.token}" in headers["set-cookie"]
    assert "SameSite=strict" in headers["set-cookie"]
    assert "HttpOnly" in headers["set-cookie"]
    assert ui.request("/queue", headers={"Cookie": f"graphmem_ui_{ui.port}=wrong"}, cookie=False)[0] == 403
    # a change needs the header too: a cookie alone (another site's form) is refused, nothing changes
    _stale(review)
    status, body, _ = ui.request(f"/note/{review.note_id}/confirm", method="POST", header=False)
    assert status == 403
    with review.daemon.client() as c:
        assert c.get(review.note_id).status is ObservationStatus.STALE
    # a wrong Host header (DNS rebinding) is refused
    assert ui.request("/queue", headers={"Host": f"evil.example:{ui.port}"})[0] == 421


def test_bad_input_is_a_message_and_nothing_changes_twice(review: Review) -> None:
    ui = review.ui
    status, body, _ = ui.request("/note/no-such-note")
    assert status == 404
    assert "there is no note 'no-such-note'" in html.unescape(body)
    assert "Traceback" not in body
    status, body, _ = ui.request("/queue?state=nonsense")
    assert status == 400
    assert "unknown state 'nonsense'" in html.unescape(body)
    # confirming a note that is fresh: refused with the reason, nothing changed
    status, body, _ = ui.request(f"/note/{review.note_id}/confirm", method="POST", headers={"HX-Request": "true"})
    assert status == 409
    assert body == f"{review.note_id} is fresh now, not stale or suspect; nothing changed"
    _stale(review)
    assert ui.request(f"/note/{review.note_id}/confirm", method="POST")[0] == 200
    status, body, _ = ui.request(f"/note/{review.note_id}/confirm", method="POST", headers={"HX-Request": "true"})
    assert status == 409
    assert "was already confirmed by" in body
    assert "nothing changed" in body
    # delete needs the id typed back
    status, body, _ = ui.request(f"/note/{review.note_id}/delete", method="POST", data=b"confirm=nope")
    assert status == 400
    shown = cli_show(review)  # checked through the CLI: confirmed once, by the page's user
    assert shown["status"] == "OBSERVATION_STATUS_FRESH"
    assert shown["confirmed_by"] == UI_ACTOR
    kinds = [(e["kind"], e.get("by")) for e in shown["history"]]  # type: ignore[attr-defined]
    assert kinds == [
        ("HISTORY_KIND_CREATED", "python-client"),  # the client library's default source
        ("HISTORY_KIND_STALE", "graphmem"),
        ("HISTORY_KIND_CONFIRMED", UI_ACTOR),
    ]


def test_edit_supersedes_and_archive_once(review: Review) -> None:
    ui = review.ui
    _stale(review)
    status, body, _ = ui.request(
        f"/note/{review.note_id}/edit", method="POST", data=b"text=login+lower-cases+the+email"
    )
    assert status == 200
    assert "superseded" in body
    with review.daemon.client() as c:
        old = c.get(review.note_id)
        assert old.status is ObservationStatus.SUPERSEDED
        new = c.get(old.superseded_by)
        assert new.text == "login lower-cases the email"
        assert [a.ref for a in new.anchors] == [LOGIN]
        assert new.source == UI_ACTOR
    status, _, _ = ui.request(f"/note/{new.id}/archive", method="POST")
    assert status == 200
    status, body, _ = ui.request(f"/note/{new.id}/archive", method="POST", headers={"HX-Request": "true"})
    assert status == 409
    assert body == f"{new.id} was already archived; nothing changed"


def test_a_daemon_that_went_down_is_a_message(review: Review) -> None:
    assert review.ui.request("/queue")[0] == 200
    review.daemon.stop()
    status, body, _ = review.ui.request("/queue")
    assert status == 503
    assert "daemon" in body
    assert "Traceback" not in body


def test_outside_every_repository_the_command_says_so(review: Review) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "graphmem", "ui", "--no-open", "--repo", "/nowhere/at/all"],
        env=review.daemon.env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 64
    assert "no registered repository is '/nowhere/at/all'" in out.stderr


def test_a_non_loopback_host_is_only_taken_when_given_and_warned_about(review: Review) -> None:
    with ui_server(review.daemon, review.root, ["--host", "0.0.0.0"]) as ui:
        assert ui.url.startswith("http://0.0.0.0:")
        err = ""
        assert ui.proc.stderr is not None
        ui.proc.terminate()
        ui.proc.wait(10)
        err = ui.proc.stderr.read()
        assert "warning: the review page listens on 0.0.0.0" in err
    assert review.ui.url.startswith("http://127.0.0.1:")


def test_the_queue_follows_changes_made_elsewhere(review: Review) -> None:
    ui = review.ui
    _stale(review)

    def shows(present: bool) -> bool:
        return (f'id="item-{review.note_id}"' in ui.request("/queue")[1]) is present

    wait_for(lambda: shows(True), 20)
    subprocess.run(
        [sys.executable, "-m", "graphmem", "confirm", review.note_id, "--by", "ana"],
        env=review.daemon.env,
        check=True,
        capture_output=True,
    )
    wait_for(lambda: shows(False), 20)  # the page's follower saw the daemon's event: not read from before


def test_reanchor_overview_search_and_bulk_archive(review: Review) -> None:
    ui = review.ui
    _stale(review)
    status, body, _ = ui.request(f"/note/{review.note_id}/reanchor")
    assert status == 200
    assert "app/auth/service.py::AuthService.login" in body  # the closest match of the anchor's name
    target = "app/auth/service.py::AuthService.register"
    form = urlencode({"anchor": LOGIN, "to": target}).encode()
    status, body, _ = ui.request(f"/note/{review.note_id}/reanchor", method="POST", data=form)
    assert status == 200
    assert "re-anchored" in body
    with review.daemon.client() as c:
        new = c.get(c.get(review.note_id).superseded_by)
        assert [a.ref for a in new.anchors] == [target]
        other = c.observe("routes build the token", anchors=["app/api/routes.py::create_user"], repo=str(review.root))

    status, body, _ = ui.request("/overview")
    assert status == 200
    assert "Saved notes by state" in body
    assert str(review.root) in body
    status, body, _ = ui.request("/search?q=token")
    assert status == 200
    assert other.id in body
    assert "score components" in body

    form = urlencode([("ids", new.id), ("ids", other.id), ("ids", "no-such-note")]).encode()
    status, body, _ = ui.request("/bulk/archive", method="POST", data=form)
    assert status == 200
    assert "archived 2; skipped 1" in html.unescape(body)
    with review.daemon.client() as c:
        assert c.get(other.id).status is ObservationStatus.ARCHIVED
        # one entry per note, each saying who archived it; the re-anchored note says how it went
        for oid in (new.id, other.id):
            last = c.get(oid).history[-1]
            assert (last.kind, last.by) == (HistoryKind.ARCHIVED, UI_ACTOR)
            assert last.commit  # the repository's HEAD
        last = c.get(review.note_id).history[-1]
        assert (last.kind, last.by, last.detail, last.related) == (
            HistoryKind.SUPERSEDED,
            UI_ACTOR,
            "re-anchored",
            new.id,
        )
    status, body, _ = ui.request(f"/note/{other.id}")
    assert status == 200
    text = html.unescape(body)
    assert "archived" in text
    assert UI_ACTOR in text


def test_delete_asks_first_and_its_record_says_who_and_when(
    review: Review, daemon_factory: Callable[..., Daemon]
) -> None:
    ui = review.ui
    status, body, _ = ui.request(f"/note/{review.note_id}/delete", method="POST", data=b"confirm=nope")
    assert status == 400
    with review.daemon.client() as c:
        assert c.get(review.note_id).status is ObservationStatus.FRESH  # nothing changed
    status, _, headers = ui.request(
        f"/note/{review.note_id}/delete", method="POST", data=f"confirm={review.note_id}".encode()
    )
    assert status == 200
    assert headers["hx-redirect"] == "/queue"
    status, body, _ = ui.request(f"/note/{review.note_id}")
    assert status == 410
    assert f"note '{review.note_id}' was deleted by {UI_ACTOR} at " in html.unescape(body)

    def show() -> str:
        out = subprocess.run(
            [sys.executable, "-m", "graphmem", "show", review.note_id],
            env=review.daemon.env,
            capture_output=True,
            text=True,
        )
        assert out.returncode != 0
        return out.stderr

    assert f"was deleted by {UI_ACTOR} at " in show()
    # the deletion record is the journal's: a restart keeps it
    review.daemon.stop()
    review.daemon = daemon_factory([review.root], home=review.daemon.home)
    assert f"was deleted by {UI_ACTOR} at " in show()


def test_signatures_are_shown_spaced_as_the_one_renderer_spaces_them(review: Review) -> None:
    """The store keeps signatures normalised (``def login(self,email:str,...)->str:``); the
    note's anchors and the picture's node details show them as ``graphmem.changes.spaced`` does."""
    ui = review.ui
    stored = cli_show(review)["anchors"][0]["signature"]  # type: ignore[index]
    assert stored == "def login(self,email:str,password:str)->str:"
    shown = "def login(self, email: str, password: str) -> str"
    status, body, _ = ui.request(f"/note/{review.note_id}")
    assert status == 200
    assert html.escape(shown) in body
    assert html.escape(stored) not in body
    status, body, _ = ui.request(f"/note/{review.note_id}/graph.json")
    assert status == 200
    nodes = {e["data"]["ref"]: e["data"] for e in json.loads(body)["elements"] if "ref" in e["data"]}
    assert nodes[LOGIN]["signature"] == shown


def test_the_change_view_says_a_dependency_change_as_the_one_renderer_does(review: Review) -> None:
    """A note on a caller of ``login``, whose signature gains a required parameter: the change
    view's caption is ``changes.change_words`` of the note's reason, not a fixed sentence."""
    with review.daemon.client() as c:
        caller = c.observe("create_user logs the new user in", anchors=["app/api/routes.py::create_user"]).id
        replace_in(
            review.root / "app/auth/service.py",
            "def login(self, email: str, password: str) -> str:",
            "def login(self, email: str, password: str, otp: str) -> str:",
        )
        wait_for(lambda: c.get(caller).status is ObservationStatus.SUSPECT, 20)
    status, body, _ = review.ui.request(f"/note/{caller}/change")
    assert status == 200
    said = "calls `app/auth/service.py::AuthService.login`, whose parameter `otp` was added (required)"
    assert html.escape(said) in body
    assert "the dependency's signature changed" not in html.unescape(body)
