"""Confirmation cards in Chromium, one per ``inputType``: approve and deny a note (with a
reason), a questions wizard, a text answer, a plan review and a domain-access request. An
answered card locks, and a card answered in another tab locks there too."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect
from ui_screenshots import Screenshots

pytestmark = pytest.mark.slow

NOTE = '/tool save_note {"text": "buy milk"}'


def ask(page: Page, base_url: str, message: str) -> Locator:
    """Open a new thread, send ``message`` and return the card it raises."""
    page.goto(f"{base_url}/#thread=t-{secrets.token_hex(4)}")
    expect(page.locator("body")).to_have_attribute("data-busy", "idle")
    page.locator("#composer-input").fill(message)
    page.locator("#composer-input").press("Enter")
    card = page.locator(".card")
    expect(card).to_be_visible()
    expect(page.locator("body")).to_have_attribute("data-busy", "waiting")
    return card


def tool_row(page: Page, name: str) -> Locator:
    return page.locator(f'.tool:has(.tool-name:text-is("{name}"))')


def assert_locked(card: Locator, outcome: str) -> None:
    expect(card).to_have_class("card severity-warning answered")
    expect(card.locator(".card-status")).to_have_text(outcome)
    for button in card.locator("button").all():
        expect(button).to_be_disabled()


def finished(page: Page) -> None:
    expect(page.locator("article.run").last).to_have_attribute("data-state", "completed")
    expect(page.locator("#composer-input")).to_be_enabled()


def test_approving_a_note_runs_the_tool_and_locks_the_card(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    card = ask(page, base_url, NOTE)
    expect(card.locator(".card-title")).to_have_text('Allow "save_note" to run?')
    expect(page.locator("#busy-reason")).to_contain_text("waiting for your answer")
    screenshots.take(page, "approval")

    card.get_by_role("button", name="Approve").click()
    finished(page)
    assert_locked(card, "Approved")
    expect(tool_row(page, "save_note").locator("pre.json").last).to_contain_text("buy milk")


def test_denying_with_a_reason_ends_the_call_in_an_error(page: Page, base_url: str) -> None:
    card = ask(page, base_url, NOTE)
    card.get_by_label("Reason (optional, sent with a denial)").fill("not today")

    card.get_by_role("button", name="Deny").click()
    finished(page)
    assert_locked(card, "Denied")
    expect(tool_row(page, "save_note")).to_have_attribute("data-state", "error")
    expect(tool_row(page, "save_note").locator(".tool-error")).to_contain_text("denied")


def test_a_questions_card_is_a_wizard_whose_answers_reach_the_tool(
    page: Page, base_url: str, screenshots: Screenshots
) -> None:
    card = ask(page, base_url, '/tool survey {"topic": "paint"}')
    expect(card.locator(".card-intro")).to_have_text("Please answer")
    expect(card.locator("legend")).to_have_text("Question 1 of 2: Which colour?")
    card.get_by_label("blue").check()
    screenshots.take(page, "questions")
    card.get_by_role("button", name="Next").click()
    expect(card.locator("legend")).to_have_text("Question 2 of 2: Which rooms?")
    card.get_by_label("hall").check()
    card.get_by_label("kitchen").check()

    card.get_by_role("button", name="Submit answers").click()
    finished(page)
    expect(card.locator(".card-status")).to_have_text("Answered")
    result = tool_row(page, "survey").locator("pre.json").last
    expect(result).to_contain_text('"selectedOptions": [\n          "blue"')
    expect(result).to_contain_text('"hall",\n          "kitchen"')


@pytest.mark.parametrize(
    ("message", "answering", "outcome", "result"),
    [
        (
            '/tool ask_text {"topic": "note"}',
            [("fill", "Your answer", "paint the hall"), ("click", "Send answer", "")],
            "Answered",
            "paint the hall",
        ),
        (
            '/tool review_plan {"topic": "hall"}',
            [("click", "Approve plan", "")],
            "Plan approved",
            '"approved": true',
        ),
        (
            '/tool fetch_page {"topic": "page"}',
            [("click", "Allow example.com", "")],
            "Allowed example.com",
            '"approved": true',
        ),
    ],
    ids=["text", "plan-review", "domain-access"],
)
def test_each_kind_of_card_is_answered_with_its_own_controls(
    page: Page,
    base_url: str,
    message: str,
    answering: list[tuple[str, str, str]],
    outcome: str,
    result: str,
) -> None:
    card = ask(page, base_url, message)
    for action, name, value in answering:
        if action == "fill":
            card.get_by_label(name).fill(value)
        else:
            card.get_by_role("button", name=name).click()

    finished(page)
    expect(card.locator(".card-status")).to_have_text(outcome)
    expect(tool_row(page, message.split()[1]).locator("pre.json").last).to_contain_text(result)


def test_a_plan_review_shows_the_tasks_and_can_be_sent_back(page: Page, base_url: str) -> None:
    card = ask(page, base_url, '/tool review_plan {"topic": "hall"}')
    expect(card.locator("ol.plan > li")).to_have_text(["Buy paint", "Paint the hall"])
    card.get_by_label("What to change (sent back with the plan)").fill("paint the kitchen too")

    card.get_by_role("button", name="Send back").click()
    finished(page)
    assert_locked(card, "Sent back")
    # The tool gets the refusal with the feedback, and decides what it means.
    answer = tool_row(page, "review_plan").locator("pre.json").last
    expect(answer).to_contain_text('"approved": false')
    expect(answer).to_contain_text('"userInput": "paint the kitchen too"')


def test_a_card_answered_in_another_tab_locks_here_too(
    page: Page, browser_context: BrowserContext, base_url: str
) -> None:
    card = ask(page, base_url, NOTE)
    other = browser_context.new_page()
    try:
        other.goto(page.url)
        other.locator(".card").get_by_role("button", name="Approve").click()
        expect(other.locator(".card .card-status")).to_have_text("Approved")
    finally:
        other.close()

    finished(page)
    assert_locked(card, "Answered")
    expect(tool_row(page, "save_note").locator("pre.json").last).to_contain_text("buy milk")
