"""With ``RUNYARD_AUTH=keys`` the page asks for an API key, sends it as a header, and opens its
event stream with a stream ticket: the key never appears in a URL. Uploads and stored images go
with the key too (an upload's request, and a blob: URL made of bytes fetched with it)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from ui_server import served

from runyard.models.demo_script import demo_png
from runyard.service.api_keys import issue_api_key
from runyard.storage import open_store

pytestmark = pytest.mark.slow


async def _issue_key(url: str) -> str:
    store = await open_store(url)
    try:
        return (await issue_api_key(store, tenant_id="acme", user_id="alice")).token
    finally:
        await store.close()


@pytest.fixture(scope="module")
def keys_server(
    tmp_path_factory: pytest.TempPathFactory, chromium: Path
) -> Iterator[tuple[str, str]]:
    url = f"sqlite:///{Path(tmp_path_factory.mktemp('keys')) / 'runyard.db'}"
    # Playwright's sync API may keep an event loop running in this thread: issue it in another.
    with ThreadPoolExecutor(1) as pool:
        key = pool.submit(asyncio.run, _issue_key(url)).result()
    with served(url, auth="keys") as base:
        yield base, key


def test_the_page_asks_for_a_key_and_streams_with_a_ticket(
    page: Page, keys_server: tuple[str, str]
) -> None:
    base, key = keys_server
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    page.goto(f"{base}/#thread=t-keys")
    form = page.locator("#key-form")
    expect(form).to_be_visible()
    expect(page.locator("#composer-input")).to_be_disabled()

    form.get_by_label("API key").fill("ryk_wrong")
    form.get_by_role("button", name="Use key").click()
    expect(form.locator("#key-error")).to_have_text("That key was not accepted.")
    form.get_by_label("API key").fill(key)
    form.get_by_role("button", name="Use key").click()
    expect(form).to_be_hidden()
    page.locator("#composer-input").fill("hello with a key")
    page.locator("#composer-input").press("Enter")

    expect(page.locator("article.run")).to_have_attribute("data-state", "completed")
    expect(page.locator(".answer")).to_have_text('You said: "hello with a key"')
    streams = [u for u in urls if "/v1/events/t-keys" in u]
    assert streams
    assert all("ticket=ryt_" in u for u in streams)
    assert not [u for u in urls if key in u]


def test_an_attached_image_uploads_and_shows_through_the_key(
    page: Page, keys_server: tuple[str, str]
) -> None:
    base, key = keys_server
    picture = demo_png(size=12)
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    page.goto(f"{base}/#thread=t-keys-image")
    page.locator("#key-form").get_by_label("API key").fill(key)
    page.locator("#key-form").get_by_role("button", name="Use key").click()
    expect(page.locator("body")).to_have_attribute("data-busy", "idle")

    page.locator("#attach-input").set_input_files(
        files=[{"name": "key.png", "mimeType": "image/png", "buffer": picture}]
    )
    expect(page.locator(".attachment")).to_have_attribute("data-state", "ready")
    page.locator("#composer-input").press("Enter")
    expect(page.locator("article.run")).to_have_attribute("data-state", "completed")
    expect(page.locator(".answer")).to_contain_text(f"an image (image/png, {len(picture)} bytes)")

    page.reload()  # the image now comes from the server: /v1/files/{id}, with the key
    shown = page.locator('.user-blocks figure[data-kind="image"]')
    expect(shown).to_have_attribute("data-state", "ready")
    assert shown.locator("img").evaluate("img => img.decode().then(() => img.naturalWidth)") == 12
    expect(shown.locator("img")).to_have_attribute("src", re.compile(r"^blob:"))
    assert [u for u in urls if "/v1/files/file_" in u]
    assert not [u for u in urls if key in u]


def test_nothing_behind_the_key_field_is_usable_until_a_key_is_accepted(
    page: Page, keys_server: tuple[str, str]
) -> None:
    base, key = keys_server
    page.goto(f"{base}/#thread=t-keys-locked")
    form = page.locator("#key-form")
    expect(form).to_be_visible()
    layout = page.locator("#layout")
    expect(layout).to_have_attribute("inert", "")
    focused = "document.getElementById('new-thread').focus(), document.activeElement.id"
    assert page.evaluate(focused) != "new-thread"  # inert: it takes no focus, no click
    expect(page.locator("#signed-in")).to_be_hidden()

    form.get_by_label("API key").fill(key)
    form.get_by_role("button", name="Use key").click()
    expect(form).to_be_hidden()
    expect(layout).not_to_have_attribute("inert", "")
    expect(page.locator("body")).to_have_attribute("data-busy", "idle")


def test_the_page_says_whom_it_acts_for_and_forgets_the_key(
    page: Page, keys_server: tuple[str, str]
) -> None:
    base, key = keys_server
    page.goto(f"{base}/#thread=t-keys-forget")
    page.locator("#key-form").get_by_label("API key").fill(key)
    page.locator("#key-form").get_by_role("button", name="Use key").click()
    signed_in = page.locator("#signed-in")
    expect(signed_in.locator("#who")).to_have_text("alice (acme)")  # GET /v1/me
    expect(signed_in.locator("#key-id")).to_have_text(key[:16])  # the key's public id only
    assert key not in (signed_in.text_content() or "")
    page.set_viewport_size({"width": 400, "height": 800})
    page.reload()  # the tab keeps the key, and says so
    expect(signed_in.locator("#who")).to_have_text("alice (acme)")
    assert page.evaluate("document.documentElement.scrollWidth") <= 400  # it wraps, narrow

    signed_in.get_by_role("button", name="Forget key").click()
    expect(page.locator("#key-form")).to_be_visible()
    expect(page.locator("#key-form").get_by_label("API key")).to_have_value("")
    expect(page.locator("#key-error")).to_have_text("")
    expect(signed_in).to_be_hidden()
    expect(page.locator("#layout")).to_have_attribute("inert", "")
    expect(page.locator("#thread-list li")).to_have_count(0)
    assert page.evaluate("sessionStorage.length") == 0
    page.reload()  # gone for good: the page asks again
    expect(page.locator("#key-form")).to_be_visible()
