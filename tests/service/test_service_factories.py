"""The service's tool factories: named after their catalog entry, ``notes`` as a toolkit,
``delegate`` in its two forms, every name discoverable beside runyard's and plugins'."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from runyard.registry.tools import (
    IS_FROM_TOOLKIT,
    SOURCE_NODE_NAME,
    BuildContext,
    ToolDependencies,
    ToolFactories,
)
from runyard.service import catalog_tool_names, discover_factories
from runyard.tools import ToolContext


@pytest.fixture
async def deps() -> AsyncIterator[ToolDependencies]:
    async with ToolDependencies() as shared:
        yield shared


@pytest.fixture
def factories() -> ToolFactories:
    return discover_factories()


def test_the_service_factories_are_found_beside_runyards(factories: ToolFactories) -> None:
    assert {"agent", "calculator", "delegate", "http_request", "notes", "plan"} <= set(factories)
    names = catalog_tool_names(factories)
    assert {"notes", "save_note", "list_notes", "task_status", "await_task"} <= set(names)


async def test_a_single_tool_takes_its_catalog_entrys_name(
    factories: ToolFactories, deps: ToolDependencies
) -> None:
    [sums] = factories.build("calculator", BuildContext("sums"), deps).tools

    result = await sums.call({"expression": "2+3*4"}, ToolContext("r", "c", "sums"))

    assert sums.name == "sums"
    assert result == {"result": 14}
    assert sums.metadata == {SOURCE_NODE_NAME: "sums", IS_FROM_TOOLKIT: False}


def test_notes_is_a_toolkit_an_agent_may_be_granted_part_of(
    factories: ToolFactories, deps: ToolDependencies
) -> None:
    every = factories.build("notes", BuildContext("notes"), deps)
    read_only = factories.build("notes", BuildContext("notes", grant=["list_notes"]), deps)

    assert every.is_toolkit
    assert sorted(tool.name for tool in every.tools) == ["list_notes", "save_note"]
    assert [tool.name for tool in read_only.tools] == ["list_notes"]
    assert every.tools[0].requires_approval  # save_note keeps its approval gate


def test_delegate_goes_to_the_sub_agents_when_the_agent_lists_some(
    factories: ToolFactories, deps: ToolDependencies
) -> None:
    [ad_hoc] = factories.build("delegate", BuildContext("delegate"), deps).tools
    listed = BuildContext("delegate", sub_agents=("billing", "support"))
    [to_agents] = factories.build("delegate", listed, deps).tools

    assert {"role", "instructions", "tools"} <= set(ad_hoc.parameters["properties"])
    assert "agent" not in ad_hoc.parameters["properties"]
    assert set(to_agents.parameters["required"]) == {"agent", "briefing"}
    assert "billing, support" in to_agents.description
