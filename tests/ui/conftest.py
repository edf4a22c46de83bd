"""Fixtures of the browser tests: Debian's Chromium driven by Playwright (one per module) and one
server for the whole run (``ui_server``); every test opens its own tab and thread.

Skipped when ``/usr/bin/chromium`` is absent, unless ``RUNYARD_TEST_REQUIRE_BROWSER=1`` (CI),
which makes that a failure. Playwright never downloads a browser here.
``RUNYARD_UI_SCREENSHOTS=DIR`` saves the screenshots the tests take at the main states into DIR
(docs/ui/ holds the committed ones); otherwise none is taken.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect, sync_playwright
from ui_screenshots import Screenshots
from ui_server import served

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's Chromium; the tests skip without it (fail with RUNYARD_TEST_REQUIRE_BROWSER=1)."""
    if CHROMIUM.exists():
        return CHROMIUM
    if os.environ.get("RUNYARD_TEST_REQUIRE_BROWSER") == "1":
        pytest.fail(f"RUNYARD_TEST_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")


@pytest.fixture(scope="module")
def browser_context(
    tmp_path_factory: pytest.TempPathFactory, chromium: Path
) -> Iterator[BrowserContext]:
    """A headless Chromium with a fresh profile, shared by a module's tests.

    Per module, not per session: Playwright's sync API keeps an event loop running in the test
    thread while it is started, which the asyncio tests of other folders cannot run beside.
    """
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(chromium),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1100, "height": 850},
        )
        context.set_default_timeout(15_000)
        # A loaded two-core machine: waits are on DOM states, so a long ceiling costs nothing.
        expect.set_options(timeout=15_000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="session")
def screenshots() -> Screenshots:
    return Screenshots()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Iterator[str]:
    """The server every browser test of the module talks to (in its own thread; after the
    Chromium check, so a missing browser skips first). Per module, not per session: while its
    lifespan runs, its log redaction sits on the session's logging handlers, which the
    redaction tests in the same worker must find bare."""
    database = tmp_path_factory.mktemp("ui") / "runyard.db"
    with served(f"sqlite:///{database}") as url:
        yield url


@pytest.fixture
def page(browser_context: BrowserContext) -> Iterator[Page]:
    """A fresh tab; any uncaught script error fails the test."""
    tab = browser_context.new_page()
    tab.bring_to_front()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    tab.close()
    assert errors == [], errors
