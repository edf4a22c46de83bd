"""LangGraph's React hook, ``useStream`` (``@langchain/langgraph-sdk/react``), in Debian's
Chromium against runyard's ``/langgraph``: a page bundled from npm packages with esbuild
(``node/use_stream/``, nothing fetched at run time), served from another origin (runyard's CORS
lets it call), sends a message and shows the streamed answer, then a tool's approval interrupt
that its button answers with ``command.resume``.

Skipped without ``/usr/bin/chromium`` or Node (failed instead where the run requires them).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from faces.faces_server import node_script, serving

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """The page's requests are no test output."""


@pytest.fixture(scope="module")
def page_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The bundled page, served over HTTP on its own origin."""
    if not CHROMIUM.exists():
        if os.environ.get("RUNYARD_TEST_REQUIRE_BROWSER") == "1":
            pytest.fail(f"RUNYARD_TEST_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    built = tmp_path_factory.mktemp("use-stream-page")
    node_script("use_stream/build.mjs", str(built))
    handler = functools.partial(_Quiet, directory=str(built))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(page_origin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """A Chromium tab on the page, its API runyard's ``/langgraph`` (CORS allows the page)."""
    tmp = tmp_path_factory.mktemp("use-stream-server")
    with serving(tmp, cors_origins=page_origin) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            tab = browser.new_page()
            tab.set_default_timeout(20_000)
            tab.goto(f"{page_origin}/index.html?api={base}/langgraph")
            yield tab
        finally:
            browser.close()


def test_use_stream_sends_streams_and_answers_an_approval(page: Page) -> None:
    messages = page.locator("#messages li")

    page.fill("#draft", '/tool calculator {"expression": "2+3*4"}')
    page.click("#send")
    expect(page.locator("#status")).to_have_text("idle")
    expect(messages.last).to_contain_text("14")
    expect(messages).to_have_count(4)  # human, ai calling the tool, tool, ai

    page.fill("#draft", '/tool save_note {"text": "from the browser"}')
    page.click("#send")
    expect(page.locator("#interrupt")).to_contain_text("Allow save_note?")
    page.click("#approve")
    expect(page.locator("#interrupt")).to_have_count(0)
    expect(messages.last).to_contain_text("save_note returned")
    expect(page.locator("#error")).to_have_count(0)
