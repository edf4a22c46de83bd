"""LangGraph agents in Chromium (the catalog: ``langgraph_catalog``): the ``runtime: langchain``
agent the routing chooses streams its answer, shows its tool call and asks for an approval on a
card; the custom graph, picked in the agent picker, shows its subgraph as a sub-agent branch with
its status and image, and the answer it handed back in the orchestrator's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect
from test_ui_chat import finished, open_thread, send
from ui_server import served

from langgraph_catalog import write_langgraph_catalog

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, chromium: object) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("ui-langgraph")
    catalog = write_langgraph_catalog(tmp / "agents")
    with served(f"sqlite:///{tmp / 'runyard.db'}", given=None, catalog_dir=catalog) as url:
        yield url


def test_a_langchain_agent_runs_a_tool_and_an_approved_call(page: Page, base_url: str) -> None:
    open_thread(page, base_url)
    send(page, '/tool calculator {"expression": "2+3*4"}')
    finished(page)
    root = page.locator("section.agent.root")
    calculator = root.locator('.tool:has(.tool-name:text-is("calculator"))')
    expect(calculator.locator(".tool-result")).to_have_text('{"result":14}')
    expect(root).to_contain_text("14")

    send(page, '/tool save_note {"text": "buy milk"}')
    card = page.locator(".card")
    expect(card.locator(".card-title")).to_have_text('Allow "save_note" to run?')
    card.get_by_role("button", name="Approve").click()
    finished(page)
    note = page.locator('.tool:has(.tool-name:text-is("save_note"))').last
    expect(note.locator("pre.json").last).to_contain_text("buy milk")


def test_a_custom_graphs_subgraph_is_a_sub_agent_branch(page: Page, base_url: str) -> None:
    open_thread(page, base_url)
    page.locator("#agent-picker").select_option("researcher")
    send(page, "the capital")
    finished(page)

    root = page.locator("section.agent.root")
    sub = root.locator("details.agent.sub")
    expect(sub.locator("summary").first).to_contain_text("reader")
    expect(sub).to_have_attribute("data-status", "completed")
    expect(sub).to_contain_text("Found it.")
    expect(sub.locator('.content figure[data-kind="image"] img')).to_have_count(1)
    expect(root.locator(".agent-head .chosen-agent")).to_have_text("researcher")
    expect(root).to_contain_text("Looking into the capital.")
