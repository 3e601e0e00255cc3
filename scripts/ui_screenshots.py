#!/usr/bin/env python3
"""Take the review page's screenshots for the docs (``docs/ui-queue.png``, ``docs/ui-note.png``)
from a real daemon on a real repository, as a user would see them.

The python fixture repository (``fixtures/repos/python``) is copied into a temporary directory
and committed; an agent saves three notes (through the client, as ``mcp:claude-code`` and
``cli``); then one commit changes the code under them the way a colleague would:

- ``app/util/encoding.py::digest`` loses its ``salt`` parameter: the note on it is **stale**
  ("parameter `salt` removed");
- ``AuthService.login`` gets a required ``otp`` parameter: the note on it is **stale**, and the
  note on ``app/api/routes.py::create_user``, which calls it and was not changed, is
  **suspect** ("calls `AuthService.login`, whose parameter `otp` was added (required)").

``graphmem ui --no-open`` runs against that daemon and Debian's chromium (through Playwright,
as the browser tests drive it) takes the queue and the stale note's page. Run from the
repository root: ``.venv/bin/python scripts/ui_screenshots.py`` (``--out DIR``: where to
write them; default ``docs/``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchlib import ROOT, DaemonProc, short_home
from browserlib import launch_chromium
from graphmem.types import Category, ObservationStatus

NOTES = [
    (
        "app/util/encoding.py::digest",
        "digest salts the value before hashing: pass the user's salt, never the empty default "
        "(tokens hashed without one collide across users).",
        Category.CONSTRAINT,
        "mcp:claude-code",
    ),
    (
        "app/auth/service.py::AuthService.login",
        "login raises AuthError with the email as given, so the API layer can say which account failed.",
        Category.DECISION,
        "mcp:claude-code",
    ),
    (
        "app/api/routes.py::create_user",
        "create_user logs the new user in right away: callers get a session token, not the user.",
        Category.ARCHITECTURE,
        "cli",
    ),
]

EDITS = [
    (
        "app/util/encoding.py",
        'def digest(value: str, salt: str = "") -> str:\n    """Hex SHA-256 digest of the salted value."""\n'
        "    raw = to_bytes(salt + value)",
        'def digest(value: str) -> str:\n    """Hex SHA-256 digest of the value."""\n    raw = to_bytes(value)',
    ),
    (
        "app/auth/service.py",
        "    def login(self, email: str, password: str) -> str:\n",
        "    def login(self, email: str, password: str, otp: str) -> str:\n",
    ),
]


def git(root: Path, *args: str) -> None:
    cmd = ["git", "-c", "user.email=ana@example.com", "-c", "user.name=ana", "-c", "commit.gpgsign=false", *args]
    subprocess.run(cmd, cwd=root, check=True, capture_output=True)


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise RuntimeError(f"{rel} no longer has the text this script changes: {old!r}")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def start_ui(home: Path, root: Path) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, GRAPHMEM_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients"), str(ROOT / "daemon")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "ui", "--no-open"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"(http://\S+/queue\?token=\S+)", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"graphmem ui printed {line!r}")
    threading.Thread(target=lambda: [None for _ in proc.stdout or ()], daemon=True).start()
    return proc, m.group(1)


def wait_states(d: DaemonProc, root: Path, ids: list[str], want: list[ObservationStatus]) -> None:
    deadline = time.monotonic() + 120
    with d.client() as c:
        while [c.get(i).status for i in ids] != want:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the notes are {[c.get(i).status.value for i in ids]}, not {want}")
            time.sleep(0.2)


def shoot(url: str, note_id: str, out: Path) -> None:
    base = url.split("/queue", 1)[0]
    with launch_chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1000}, device_scale_factor=1)
        page.goto(url)
        page.locator("table.code tr.del").first.wait_for(timeout=60_000)  # the diffs came
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / "ui-queue.png"))
        page.goto(f"{base}/note/{note_id}")
        page.locator("#graph[data-rendered]").wait_for(timeout=60_000, state="attached")
        page.locator("table.code tr.del").first.wait_for(timeout=60_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(out / "ui-note.png"), full_page=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs", help="where to write the PNGs (default: docs/)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gm-shots-"))
    home = short_home()
    d: DaemonProc | None = None
    ui: subprocess.Popen[str] | None = None
    try:
        root = tmp / "shop"
        shutil.copytree(ROOT / "fixtures" / "repos" / "python", root)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "shop: users, auth and the API")
        d = DaemonProc(home, [root])
        d.wait_queryable()
        with d.client() as c:
            ids = [
                c.observe(text, anchors=[ref], repo=str(root), category=cat, source=source).id
                for ref, text, cat, source in NOTES
            ]
        for rel, old, new in EDITS:
            edit(root, rel, old, new)
        git(root, "commit", "-qam", "auth: a one-time password on login; digest without a salt")
        stale, suspect = ObservationStatus.STALE, ObservationStatus.SUSPECT
        wait_states(d, root, ids, [stale, stale, suspect])
        d.wait_idle()
        ui, url = start_ui(home, root)
        args.out.mkdir(parents=True, exist_ok=True)
        shoot(url, ids[0], args.out)
        print(f"wrote {args.out / 'ui-queue.png'} and {args.out / 'ui-note.png'}")
    finally:
        if ui is not None:
            ui.terminate()
            ui.wait(10)
        if d is not None:
            d.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
