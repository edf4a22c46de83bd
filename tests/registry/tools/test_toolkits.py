"""Toolkits: metadata on every tool, grants, and calls routed through the toolkit's executor."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from tool_runs import agent_calling, results

from runyard.errors import ConfigurationError
from runyard.registry.tools import (
    IS_FROM_TOOLKIT,
    SOURCE_NODE_NAME,
    BuildContext,
    StaticToolkit,
    ToolConfiguration,
    ToolExecutionError,
    ToolkitExecutor,
)
from runyard.tools import Tool, ToolContext, tool


@tool
def list_issues(repo: str) -> list[str]:
    """List a repository's open issues."""
    return [f"{repo}#1"]


@tool(requires_approval=True)
def close_issue(issue: str) -> str:
    """Close an issue."""
    return f"closed {issue}"


@tool
def broken(repo: str) -> str:
    """Always fails."""
    raise RuntimeError(f"{repo} is unreachable")


@dataclass
class ChangingToolkit:
    """A toolkit whose list changes, as a remote server's may after a reconnect."""

    name: str
    tools: list[Tool] = field(default_factory=list)

    def get_tools(self) -> Sequence[Tool]:
        return list(self.tools)


def test_a_single_tool_reports_its_catalog_entry_and_not_a_toolkit() -> None:
    built = ToolConfiguration.single(list_issues, BuildContext("issues", {"repo": "x"}))
    [issues] = built.tools
    assert issues.metadata == {SOURCE_NODE_NAME: "issues", IS_FROM_TOOLKIT: False}
    assert not built.is_toolkit
    assert built.parameters == {"repo": "x"}
    assert list_issues.metadata == {}  # the original tool is left as it was


def test_toolkit_tools_report_the_toolkit_and_keep_their_approval_gate() -> None:
    toolkit = StaticToolkit("github", [list_issues, close_issue])
    built = ToolConfiguration.from_toolkit(toolkit, BuildContext("team_github"))
    assert [t.name for t in built.tools] == ["list_issues", "close_issue"]
    assert all(
        t.metadata == {SOURCE_NODE_NAME: "team_github", IS_FROM_TOOLKIT: True} for t in built.tools
    )
    assert built.source_node_name == "team_github"
    assert [t.gated for t in built.tools] == [False, True]
    assert built.tools[0].parameters == list_issues.parameters


def test_a_grant_limits_the_tools_and_must_name_real_ones() -> None:
    toolkit = StaticToolkit("github", [list_issues, close_issue])
    granted = ToolConfiguration.from_toolkit(toolkit, BuildContext("github", grant=["list_issues"]))
    assert [t.name for t in granted.tools] == ["list_issues"]
    with pytest.raises(ConfigurationError, match=r"toolkit 'github' has no tool 'merge'"):
        ToolConfiguration.from_toolkit(toolkit, BuildContext("github", grant=["merge"]))


async def test_a_call_of_a_tool_not_granted_is_a_clear_tool_error() -> None:
    executor = ToolkitExecutor(StaticToolkit("github", [list_issues, close_issue]), ["list_issues"])
    ctx = ToolContext(run_id="r", tool_call_id="c", tool_name="close_issue")
    with pytest.raises(ToolExecutionError) as refused:
        await executor.execute("close_issue", {"issue": "x#1"}, ctx)
    assert str(refused.value) == 'Tool "close_issue" is not granted in toolkit "github"'


async def test_the_agent_calls_toolkit_tools_through_the_executor() -> None:
    toolkit = ChangingToolkit("github", [list_issues, broken])
    built = ToolConfiguration.from_toolkit(toolkit, BuildContext("github"))
    toolkit.tools.remove(broken)  # gone from the toolkit after the agent was built
    toolkit.tools.append(broken.renamed("later"))
    agent = agent_calling(
        built.tools,
        ("list_issues", {"repo": "runyard"}),
        ("broken", {"repo": "runyard"}),
    )
    outcomes = results(await agent.generate("go"))

    assert outcomes["c0"].result == ["runyard#1"]
    assert outcomes["c1"].is_error
    assert outcomes["c1"].result == 'Tool "broken" is not granted in toolkit "github"'


async def test_a_toolkit_tool_that_raises_is_a_tool_error_naming_it() -> None:
    built = ToolConfiguration.from_toolkit(StaticToolkit("ops", [broken]), BuildContext("ops"))
    outcome = results(await agent_calling(built.tools, ("broken", {"repo": "r"})).generate("go"))
    assert outcome["c0"].is_error
    assert outcome["c0"].result == 'Tool "broken" failed: r is unreachable'
