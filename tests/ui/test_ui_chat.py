"""The web UI in Chromium: a message streams into a rendered answer, a delegate run shows its
sub-agent branch, a run is cancelled, and a page reload or a cut connection in the middle of a
run loses nothing and shows nothing twice."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect
from tcp_proxy import TcpProxy
from ui_screenshots import Screenshots
from ui_server import served

from runyard.registry import load_catalog

pytestmark = pytest.mark.slow

SLOW_WORDS = "alpha beta gamma delta epsilon zeta eta theta"
ANSWER = f'You said: "{SLOW_WORDS}"'


def open_thread(page: Page, base_url: str) -> str:
    thread = f"t-{secrets.token_hex(4)}"
    page.goto(f"{base_url}/#thread={thread}")
    expect(page.locator("body")).to_have_attribute("data-busy", "idle")
    return thread


def send(page: Page, message: str) -> None:
    page.locator("#composer-input").fill(message)
    page.locator("#composer-input").press("Enter")


def finished(page: Page, state: str = "completed") -> None:
    expect(page.locator("article.run").last).to_have_attribute("data-state", state)


def console_errors(page: Page) -> list[str]:
    """What the page logs as an error from now on (a failed request included)."""
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    return errors


def test_a_message_streams_into_a_markdown_answer_with_reasoning_collapsed(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    thread = open_thread(page, base_url)
    send(page, "/delay 40\nhello **world** and `code`")

    expect(page.locator("#composer-input")).to_be_disabled()
    expect(page.locator("#busy-reason")).to_contain_text("The agent is working")
    finished(page)
    answer = page.locator(".answer")
    expect(answer).to_have_text('You said: "hello world and code"')
    expect(answer.locator("strong")).to_have_text("world")
    expect(answer.locator("code")).to_have_text("code")
    expect(page.locator("details.reasoning")).not_to_have_attribute("open", "")
    expect(page.locator(".bubble.user-text")).to_have_text("/delay 40\nhello **world** and `code`")
    expect(page.locator("#composer-input")).to_be_enabled()
    expect(page.locator("#busy-reason")).to_be_hidden()
    # The title the server gave the thread arrived live: in the heading and the list.
    expect(page.locator("#thread-title")).not_to_have_text(thread)
    title = page.locator("#thread-title").text_content()
    expect(page.locator("#thread-list li.current a")).to_have_text(title or "")
    screenshots.take(page, "chat")


def test_model_text_is_never_run_as_html(page: Page, base_url: str) -> None:
    open_thread(page, base_url)
    send(page, '<img src=x onerror="window.pwned=1"> [link](javascript:alert(1))')

    finished(page)
    expect(page.locator(".answer")).to_contain_text("<img src=x")
    assert page.locator(".answer img").count() == 0
    assert page.locator(".answer a").count() == 0
    assert page.evaluate("window.pwned") is None


def test_a_failed_run_shows_its_error_once_and_gives_the_input_back(
    page: Page, base_url: str
) -> None:
    open_thread(page, base_url)
    errors = console_errors(page)
    send(page, "/fail 503")

    finished(page, "error")
    for shown in ("live", "reloaded"):
        expect(page.locator(".event-error"), shown).to_contain_text("503")
        expect(page.locator(".run-footer"), shown).to_have_text(
            re.compile(r"^Failed( · \d+ tokens)?$")
        )
        # Said once: the one alert, not the footer as well.
        expect(page.locator("article.run .event-error:visible"), shown).to_have_count(1)
        expect(page.locator("#composer-input")).to_be_enabled()
        page.reload()
        finished(page, "error")
    assert errors == []


def test_a_delegate_run_renders_its_sub_agent_branch(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    delegation = {
        "role": "math helper",
        "instructions": "You compute.",
        "briefing": '/tool calculator {"expression": "2+3*4"}',
        "tools": ["calculator"],
    }
    tasks = [
        {"id": "t1", "description": "Ask the helper", "status": "completed"},
        {"id": "t2", "description": "Report", "status": "in_progress"},
    ]
    open_thread(page, base_url)
    send(
        page,
        f"/tool plan {json.dumps({'goal': 'sum', 'tasks': tasks})}\n"
        f"/tool delegate {json.dumps(delegation)}",
    )

    finished(page)
    root = page.locator("section.agent.root")
    sub = root.locator("details.agent.sub")
    expect(root.locator(".agent-head")).to_contain_text("Orchestrator")
    expect(sub.locator("summary").first).to_contain_text("Sub-agent (math helper)")
    expect(sub).to_have_attribute("data-status", "completed")
    calculator = sub.locator('.tool:has(.tool-name:text-is("calculator"))')
    expect(calculator.locator(".tool-result")).to_have_text('{"result":14}')
    expect(root.locator('.tool:has(.tool-name:text-is("delegate"))')).to_have_attribute(
        "data-state", "done"
    )
    expect(root.locator("ol.tasks > li")).to_have_text(
        [re.compile("Ask the helper"), re.compile("Report")]
    )
    # Keyboard: the branch folds and unfolds from its summary.
    sub.locator("summary").first.focus()
    page.keyboard.press("Enter")
    expect(sub).not_to_have_attribute("open", "")
    page.keyboard.press("Enter")
    expect(sub).to_have_attribute("open", "")
    screenshots.take(page, "sub-agent")
    screenshots.take_dark(page, "sub-agent-dark")


def test_a_runs_checklist_stays_with_the_run_that_wrote_it(page: Page, base_url: str) -> None:
    tasks = [{"id": "t1", "description": "Paint the hall", "status": "in_progress"}]
    open_thread(page, base_url)
    send(page, f"/tool plan {json.dumps({'goal': 'paint', 'tasks': tasks})}")
    finished(page)
    send(page, "and now something else entirely")
    expect(page.locator("article.run")).to_have_count(2)
    finished(page)

    for shown in ("live", "reloaded"):
        planned, later = page.locator("article.run").all()
        expect(planned.locator("ol.tasks > li"), shown).to_have_text([re.compile("Paint the hall")])
        # The server repeats the thread's plan at the start of the later run: not its checklist.
        expect(later.locator("ol.tasks"), shown).to_be_hidden()
        page.reload()
        finished(page)


def test_cancel_ends_the_run_and_gives_the_input_back(page: Page, base_url: str) -> None:
    open_thread(page, base_url)
    errors = console_errors(page)
    send(page, f"/delay 400\n{SLOW_WORDS}")

    expect(page.locator("details.reasoning")).to_be_visible()
    page.locator("#cancel").click()
    finished(page, "cancelled")
    expect(page.locator(".run-footer")).to_have_text(re.compile(r"^Cancelled( · \d+ tokens)?$"))
    expect(page.locator("#cancel")).to_be_hidden()
    expect(page.locator("#composer-input")).to_be_enabled()
    assert errors == []


def test_a_reload_mid_run_restores_the_run_and_shows_everything_once(
    page: Page, base_url: str
) -> None:
    open_thread(page, base_url)
    send(page, f"/delay 200\n{SLOW_WORDS}")
    expect(page.locator(".reasoning-text")).to_contain_text("The user")

    page.reload()
    expect(page.locator("#busy-reason")).to_contain_text("The agent is working")
    finished(page)
    expect(page.locator("article.run")).to_have_count(1)
    expect(page.locator(".bubble.user-text")).to_have_text(f"/delay 200\n{SLOW_WORDS}")
    expect(page.locator(".answer")).to_have_text(ANSWER)
    reasoning = page.locator(".reasoning-text").text_content() or ""
    assert reasoning.count("The user said") == 1


def test_a_cut_connection_mid_run_reconnects_and_misses_nothing(page: Page, base_url: str) -> None:
    with TcpProxy(int(base_url.rsplit(":", 1)[1])) as proxy:
        open_thread(page, f"http://127.0.0.1:{proxy.port}")
        send(page, f"/delay 200\n{SLOW_WORDS}")
        expect(page.locator(".reasoning-text")).to_contain_text("The user")
        before = proxy.accepted

        proxy.cut()
        finished(page)
        expect(page.locator(".answer")).to_have_text(ANSWER)
        expect(page.locator("article.run")).to_have_count(1)
        assert proxy.accepted > before  # the stream came back through a new connection
        expect(page.locator("#connection")).to_have_text("")


def test_a_narrow_window_works_from_the_keyboard(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    page.set_viewport_size({"width": 400, "height": 800})
    thread = open_thread(page, base_url)
    expect(page.locator("#composer-input")).to_be_focused()  # ready to type at once
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#threads-toggle")).to_be_focused()  # the sidebar is folded away
    outline = "getComputedStyle(document.activeElement).outlineStyle"
    assert page.evaluate(outline) == "solid"  # the focus is visible
    page.locator(".skip").focus()  # the first stop of the page: straight to the message box
    page.keyboard.press("Enter")
    expect(page.locator("#composer-input")).to_be_focused()
    page.keyboard.type("narrow")
    page.keyboard.press("Enter")
    finished(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    expect(page.locator("#sidebar")).to_be_hidden()
    page.locator("#threads-toggle").click()
    expect(page.locator(f'#thread-list li[data-thread-id="{thread}"]')).to_be_visible()
    screenshots.take(page, "narrow")

    # Choosing a thread folds the panel away, so the chat it covered shows.
    page.get_by_role("button", name="New thread").click()
    expect(page.locator("#sidebar")).to_be_hidden()
    page.locator("#threads-toggle").click()
    page.locator(f'#thread-list li[data-thread-id="{thread}"] a').click()
    expect(page.locator("#sidebar")).to_be_hidden()
    expect(page.locator("#threads-toggle")).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".bubble.user-text")).to_have_text("narrow")


def test_a_long_thread_opens_on_its_newest_runs_and_pages_back(page: Page, base_url: str) -> None:
    thread = f"t-{secrets.token_hex(4)}"
    with httpx.Client(base_url=base_url, timeout=30) as client:
        for n in range(11):  # 22 messages: more than the page's first 20
            client.post(f"/v1/chat/{thread}", json={"message": f"message {n}"})
            finishes = 0
            with client.stream("GET", f"/v1/events/{thread}") as stream:
                for line in stream.iter_lines():  # the whole log, up to this run's end
                    finishes += '"type":"run-finish"' in line
                    if finishes == n + 1:
                        break

    page.goto(f"{base_url}/#thread={thread}")
    expect(page.locator("article.run")).to_have_count(10)
    expect(page.locator(".bubble.user-text").first).to_have_text("message 1")
    page.get_by_role("button", name="Show earlier messages").click()
    expect(page.locator("article.run")).to_have_count(11)
    expect(page.locator(".bubble.user-text")).to_have_text([f"message {n}" for n in range(11)])
    expect(page.get_by_role("button", name="Show earlier messages")).to_have_count(0)


def test_a_new_thread_asks_nothing_of_the_server_and_is_named_by_its_first_message(
    page: Page, base_url: str
) -> None:
    open_thread(page, base_url)
    expect(page.locator("#signed-in")).to_be_hidden()  # RUNYARD_AUTH=none: nobody to name
    errors = console_errors(page)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.get_by_role("button", name="New thread").click()
    expect(page.locator("#thread-title")).to_have_text("New thread")
    thread = page.url.rsplit("#thread=", 1)[1]
    send(page, "hi")  # too short for the server to title it
    finished(page)
    assert not [url for url in asked if f"/threads/{thread}/messages" in url]
    assert errors == []

    for shown in ("live", "reloaded"):
        expect(page.locator("#thread-title"), shown).to_have_text("hi")
        expect(page.locator("#thread-list li.current a"), shown).to_have_text("hi")
        # No thread in the list goes by its raw id.
        for name in page.locator("#thread-list a").all_text_contents():
            assert not re.fullmatch(r"t-[0-9a-f]+", name), (shown, name)
        page.reload()
        finished(page)
    assert errors == []


def test_threads_are_made_switched_and_deleted_from_the_list(page: Page, base_url: str) -> None:
    first = open_thread(page, base_url)
    send(page, "keep me")
    finished(page)
    entry = page.locator(f'#thread-list li[data-thread-id="{first}"]')
    expect(entry).to_be_visible()

    page.get_by_role("button", name="New thread").click()
    expect(page.locator("#thread-title")).to_have_text("New thread")
    expect(page.locator("article.run")).to_have_count(0)
    assert first not in page.url
    entry.locator("a").click()
    expect(page.locator(".bubble.user-text")).to_have_text("keep me")

    page.once("dialog", lambda dialog: dialog.accept())
    entry.get_by_role("button").click()
    expect(entry).to_have_count(0)
    expect(page.locator("#announcer")).to_contain_text("Deleted")


def test_a_run_shows_the_agent_routing_chose_and_its_version(page: Page, tmp_path: Path) -> None:
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "agents.yaml").write_text(
        "kind: agent\nid: scribe\nmodel: runyard:demo\n---\nkind: routing\ndefault_agent: scribe\n"
    )
    (entry,) = load_catalog(catalog, known_tools=set()).catalog.agents.values()
    with served(
        f"sqlite:///{tmp_path / 'catalog.db'}", given=None, catalog_dir=str(catalog)
    ) as url:
        open_thread(page, url)
        send(page, "hello")
        finished(page)
        for shown in ("live", "reloaded"):
            head = page.locator("section.agent.root .agent-head")
            expect(head.locator(".chosen-agent"), shown).to_have_text("scribe")
            expect(head.locator(".agent-version"), shown).to_have_text(f" · {entry.version[:12]}")
            expect(head.locator(".agent-version"), shown).to_have_attribute("title", entry.version)
            page.reload()
            finished(page)
