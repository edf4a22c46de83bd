"""runyard's tools as LangChain tools: what a LangChain model is offered, where each comes
from, and that they run only inside a runyard run."""

from __future__ import annotations

from dataclasses import replace

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool

from runyard.runtime.graph import RunyardTool
from runyard.tools import IS_FROM_TOOLKIT, SOURCE_NODE_NAME, tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def test_a_langchain_model_is_offered_the_tools_own_name_description_and_schema() -> None:
    offered = convert_to_openai_tool(RunyardTool(add))["function"]

    assert offered["name"] == "add"
    assert offered["description"] == "Add two numbers."
    assert offered["parameters"]["properties"] == {
        "a": {"type": "integer"},
        "b": {"type": "integer"},
    }
    assert offered["parameters"]["required"] == ["a", "b"]


def test_metadata_names_the_catalog_entry_and_toolkit_it_came_from() -> None:
    marked = replace(add, metadata={SOURCE_NODE_NAME: "maths", IS_FROM_TOOLKIT: True})

    assert RunyardTool(marked).metadata == {"sourceNodeName": "maths", "isFromToolkit": True}
    assert RunyardTool(add).metadata == {"sourceNodeName": "add", "isFromToolkit": False}


async def test_it_runs_only_as_a_tool_call_inside_a_runyard_run() -> None:
    langchain_tool = RunyardTool(add)
    call = {"type": "tool_call", "id": "c1", "name": "add", "args": {"a": 1, "b": 2}}

    with pytest.raises(RuntimeError, match="runs only inside a runyard run"):
        await langchain_tool.ainvoke(call)
    with pytest.raises(TypeError, match="is called with a tool call"):
        await langchain_tool.ainvoke({"a": 1, "b": 2})
