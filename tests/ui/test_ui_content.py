"""Content in the web UI, in Chromium: files attached with the paperclip or dropped on the message
box upload with progress and go out as content blocks; images show inline (live and after a
reload), files as download chips, JSON as a foldable tree, citations as links; an upload or a
block the server refuses shows its message on the attachment and holds the message back."""

from __future__ import annotations

import base64
import io
import json
import secrets
import wave
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect
from ui_screenshots import Screenshots
from ui_server import served

from runyard.models.demo_script import demo_png

pytestmark = pytest.mark.slow

MAX_FILE_BYTES = 4096
PICTURE = demo_png(size=16, rgb=(31, 95, 191))


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Iterator[str]:
    """This module's server takes files up to ``MAX_FILE_BYTES``, so one can be too large."""
    database = tmp_path_factory.mktemp("ui-content") / "runyard.db"
    with served(f"sqlite:///{database}", max_file_bytes=MAX_FILE_BYTES) as url:
        yield url


def open_thread(page: Page, base_url: str) -> str:
    thread = f"t-{secrets.token_hex(4)}"
    page.goto(f"{base_url}/#thread={thread}")
    expect(page.locator("body")).to_have_attribute("data-busy", "idle")
    return thread


def attach(page: Page, name: str, mime_type: str, data: bytes) -> Locator:
    page.locator("#attach-input").set_input_files(
        files=[{"name": name, "mimeType": mime_type, "buffer": data}]
    )
    return page.locator(".attachment").filter(has_text=name)


def drop(page: Page, name: str, text: str) -> None:
    """Drop a file on the message box, as a drag from the desktop would."""
    page.evaluate(
        """([name, text]) => {
            const files = new DataTransfer();
            files.items.add(new File([text], name, { type: "text/plain" }));
            const box = document.getElementById("composer");
            for (const type of ["dragenter", "dragover", "drop"]) {
                box.dispatchEvent(new DragEvent(type, { dataTransfer: files, bubbles: true, cancelable: true }));
            }
        }""",
        [name, text],
    )


def send(page: Page, message: str) -> None:
    page.locator("#composer-input").fill(message)
    page.locator("#composer-input").press("Enter")


def finished(page: Page, runs: int = 1) -> None:
    expect(page.locator("article.run")).to_have_count(runs)
    expect(page.locator("article.run").last).to_have_attribute("data-state", "completed")


def tone_wav(seconds: float = 0.25, rate: int = 8000) -> bytes:
    """A short silent WAV, made here."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(1)
        sound.setframerate(rate)
        sound.writeframes(bytes([128]) * int(seconds * rate))
    return buffer.getvalue()


def expect_image(figure: Locator, width: int) -> None:
    expect(figure).to_have_attribute("data-state", "ready")
    image = figure.locator("img")
    expect(image).to_be_visible()
    assert image.evaluate("img => img.decode().then(() => img.naturalWidth)") == width


def test_an_attached_image_is_sent_echoed_and_shown_inline_live_and_after_a_reload(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    open_thread(page, base_url)
    chip = attach(page, "dot.png", "image/png", PICTURE)

    expect(chip).to_have_attribute("data-state", "ready")
    assert chip.locator("progress").evaluate("bar => bar.value") == 100
    expect(chip).to_contain_text(f"image/png · {len(PICTURE)} B")
    send(page, "What is this?\n/image")

    finished(page)
    expect(page.locator(".attachment")).to_have_count(0)
    for shown in ("live", "reloaded"):
        expect(page.locator(".answer"), shown).to_contain_text(
            f"attached: an image (image/png, {len(PICTURE)} bytes)"
        )
        expect(page.locator(".bubble.user-text"), shown).to_have_text("What is this?\n/image")
        expect_image(page.locator('.user-blocks figure[data-kind="image"]'), 16)
        made = page.locator('section.agent.root .content figure[data-kind="image"]')
        expect_image(made, 8)
        expect(made.locator("figcaption")).to_have_text("demo.png")
        if shown == "live":
            screenshots.take(page, "content")
            page.reload()
            finished(page)

    page.get_by_role("button", name="Show demo.png at full size").click()
    lightbox = page.locator("dialog.lightbox")
    expect(lightbox).to_be_visible()
    assert lightbox.locator("img").evaluate("img => img.decode().then(() => img.naturalWidth)") == 8
    page.keyboard.press("Escape")
    expect(lightbox).to_be_hidden()


def test_a_dropped_file_alone_is_a_message_and_files_download_from_their_chips(
    page: Page, base_url: str
) -> None:
    open_thread(page, base_url)
    drop(page, "notes.txt", "plain words\n")
    expect(page.locator(".attachment")).to_have_attribute("data-state", "ready")
    page.locator("#composer-input").press("Enter")  # no text: the attachment is the message

    finished(page)
    expect(page.locator(".answer")).to_contain_text("attached: a file (text/plain, 12 bytes)")
    sent = page.locator('.user-blocks [data-kind="file"]')
    expect(sent).to_contain_text("notes.txt")
    expect(sent).to_contain_text("text/plain · 12 B")
    with page.expect_download() as download:
        sent.get_by_role("button", name="Download notes.txt").click()
    assert download.value.suggested_filename == "notes.txt"
    assert Path(download.value.path()).read_text() == "plain words\n"

    send(page, "/file report.txt")
    finished(page, runs=2)
    made = page.locator('section.agent.root .content [data-kind="file"]').last
    expect(made).to_contain_text("report.txt")
    with page.expect_download() as download:
        made.get_by_role("button", name="Download report.txt").click()
    assert "named report.txt" in Path(download.value.path()).read_text()


def test_structured_json_is_a_foldable_tree_and_citations_link_only_to_the_web(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    open_thread(page, base_url)
    send(page, f"/tool report {json.dumps({'city': 'Oslo'})}")

    finished(page)
    for shown in ("live", "reloaded"):
        tree = page.locator(".json-tree")
        expect(tree, shown).to_have_count(1)
        expect(tree.locator("summary").first).to_have_text("{ } 2 keys")
        expect(tree.locator(".json-leaf").first).to_have_text('city: "Oslo"')
        heading = tree.locator("summary", has_text="readings")
        expect(heading).to_have_text("readings: [ ] 2 items")
        readings = heading.locator("..")
        first = readings.locator("details.json-branch").first
        expect(first).not_to_have_attribute("open", "")  # deeper levels start folded
        first.locator("summary").click()
        expect(first.locator(".json-number")).to_have_text(["9", "-3.5"])
        expect(first.locator(".json-leaf").first).to_have_text("hour: 9")

        citations = page.locator(".citation")
        expect(citations).to_have_count(2)
        link = citations.locator("a")
        expect(link).to_have_count(1)  # javascript: stays text
        expect(link).to_have_text("Example weather")
        expect(link).to_have_attribute("href", "https://example.com/weather")
        expect(link).to_have_attribute("rel", "noopener noreferrer")
        expect(citations.nth(0).locator(".cited")).to_have_text("-3.5 at 9")
        expect(citations.nth(1)).to_contain_text("Not a link")
        if shown == "live":
            screenshots.take(page, "json")
            page.reload()
            finished(page)


def test_a_too_large_upload_shows_the_servers_message_and_holds_the_message_back(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    open_thread(page, base_url)
    chip = attach(page, "big.txt", "text/plain", b"x" * (MAX_FILE_BYTES * 2))

    expect(chip).to_have_attribute("data-state", "error")
    expect(chip.locator(".attachment-error")).to_have_text(
        f"the file is larger than RUNYARD_MAX_FILE_BYTES ({MAX_FILE_BYTES} bytes)"
    )
    expect(page.locator("#send")).to_be_disabled()
    expect(page.locator("#busy-reason")).to_contain_text("remove it")
    screenshots.take(page, "attachment-refused")
    send(page, "without the file?")
    expect(page.locator("#composer-input")).to_have_value("without the file?")
    expect(page.locator("article.run")).to_have_count(0)

    chip.get_by_role("button", name="Remove big.txt").click()
    expect(page.locator(".attachment")).to_have_count(0)
    expect(page.locator("#send")).to_be_enabled()
    page.locator("#send").click()
    finished(page)
    expect(page.locator(".answer")).to_have_text('You said: "without the file?"')


def test_a_file_no_model_can_take_is_refused_on_its_chip_when_sent(
    page: Page, base_url: str
) -> None:
    open_thread(page, base_url)
    chip = attach(page, "archive.zip", "application/zip", b"PK\x03\x04" + bytes(60))
    expect(chip).to_have_attribute("data-state", "ready")
    send(page, "unpack this")

    expect(chip).to_have_attribute("data-state", "error")
    expect(chip.locator(".attachment-error")).to_contain_text(
        "a file block of 'application/zip' cannot be sent to a model"
    )
    expect(page.locator("#send")).to_be_disabled()
    expect(page.locator("article.run")).to_have_count(0)
    expect(page.locator("#composer-input")).to_have_value("unpack this")


def test_audio_plays_inline_and_a_block_by_url_is_a_link_the_page_never_loads(
    page: Page, base_url: str
) -> None:
    thread = f"t-{secrets.token_hex(4)}"
    clip = "https://example.com/clip.mp4"
    content = [
        {
            "type": "audio",
            "mime_type": "audio/wav",
            "base64": base64.b64encode(tone_wav()).decode(),
        },
        {"type": "video", "url": clip, "filename": "clip.mp4"},
    ]
    with httpx.Client(base_url=base_url, timeout=30) as client:
        answer = client.post(f"/v1/chat/{thread}", json={"message": "listen", "content": content})
        assert answer.status_code == 200, answer.text
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"{base_url}/#thread={thread}")

    finished(page)
    audio = page.locator('.user-blocks figure[data-kind="audio"] audio')
    expect(audio).to_have_attribute("controls", "")
    duration = audio.evaluate(
        """a => new Promise((done) => {
            if (a.readyState >= 1) return done(a.duration);
            a.onloadedmetadata = () => done(a.duration);
            a.onerror = () => done(-1);
        })"""
    )
    assert duration == pytest.approx(0.25, abs=0.01)
    link = page.locator('.user-blocks [data-kind="video"] a')
    expect(link).to_have_text("clip.mp4")
    expect(link).to_have_attribute("href", clip)
    assert page.locator(".user-blocks video").count() == 0
    assert not [url for url in requested if "example.com" in url]
