"""The one way graphmem's tests and scripts start a browser: Debian's chromium (no browser
download) driven by Playwright through its executable path, headless, with a ``$TMPDIR`` of its
own removed after it exits (chromium can leave a ``.org.chromium.Chromium.*`` file in
``$TMPDIR``; the test suite must leave it empty, and a benchmark or a screenshot run should not
litter it either). Used by the browser tests (``tests/clients/ui/test_ui_browser.py``),
``scripts/bench_ui.py`` and ``scripts/ui_screenshots.py``."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser

__all__ = ["CHROMIUM", "launch_chromium", "playwright_missing"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def playwright_missing() -> bool:
    """Whether Playwright cannot be imported (the dev extras install it)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return True
    return False


@contextmanager
def launch_chromium() -> Iterator[Browser]:
    """A headless chromium for the ``with`` block (module docstring); RuntimeError when chromium
    or Playwright is absent."""
    if CHROMIUM is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    scratch = tempfile.mkdtemp(prefix="gm-chromium-")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                args=["--no-sandbox", "--disable-gpu"],
                env={**os.environ, "TMPDIR": scratch},
            )
            try:
                yield browser
            finally:
                browser.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
