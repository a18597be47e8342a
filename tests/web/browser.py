"""A headless Chromium driven by Playwright, for the page's tests and its screenshot.

The browser is the system's Chromium (Debian's ``chromium`` package; ``.ci/run`` installs it),
not a browser Playwright downloads. ``SUBGAME_CHROMIUM`` names another executable. When the
browser or Playwright is missing the tests are skipped with a message saying how to get them;
``SUBGAME_REQUIRE_BROWSER=1`` (set by ``.ci/run``, which installs Chromium) makes them fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

REQUIRE_VARIABLE = "SUBGAME_REQUIRE_BROWSER"
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class BrowserUnavailable(RuntimeError):
    """No Playwright or no Chromium on this machine."""


def chromium_path() -> str:
    """The Chromium executable to drive; :class:`BrowserUnavailable` with how to get one if there is none."""
    named = os.environ.get("SUBGAME_CHROMIUM")
    if named:
        if shutil.which(named) is None:
            raise BrowserUnavailable(f"SUBGAME_CHROMIUM={named!r} is not an executable")
        return named
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserUnavailable(
        "no Chromium on this machine (looked for " + ", ".join(CANDIDATES) + "): install Debian's package "
        "(apt-get install chromium) or set SUBGAME_CHROMIUM to a Chromium executable"
    )


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (Playwright's ``Browser``) for the ``with`` block."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BrowserUnavailable(
            "the browser tests need Playwright: pip install -e '.[test]' (or pip install playwright)"
        ) from None
    path = chromium_path()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield browser
        finally:
            browser.close()


def wait_for_answer(page: Any, before: int) -> None:
    """Wait until the page has shown more than ``before`` answers of the server."""
    page.wait_for_function(f"Number(document.body.dataset.shown || 0) > {before}", timeout=10_000)


def answers_shown(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.shown || 0)"))
