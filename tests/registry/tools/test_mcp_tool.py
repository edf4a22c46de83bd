"""The ``mcp`` tool factory against a small MCP server the tests start (stdio and HTTP)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from mcp_servers import HttpMcpServer, free_port, stdio_parameters
from tool_runs import agent_calling, results

from runyard.errors import ConfigurationError
from runyard.registry.tools import (
    IS_FROM_TOOLKIT,
    SOURCE_NODE_NAME,
    BuildContext,
    ToolConfiguration,
    ToolDependencies,
    ToolExecutionError,
    ToolFactories,
)
from runyard.registry.tools.mcp import McpConnection, McpConnections, parse_parameters
from runyard.tools import Tool, ToolContext

# Every test here talks to a server process it starts (a second or more each on a busy machine).
pytestmark = pytest.mark.slow

V1_TOOLS = {"add", "env_value", "greet", "hang", "header", "pid", "refuse"}
V2_TOOLS = {"add", "env_value", "hang", "header", "multiply", "pid", "refuse"}


def build(
    deps: ToolDependencies,
    name: str,
    parameters: dict[str, Any],
    grant: list[str] | None = None,
) -> ToolConfiguration:
    context = BuildContext(name, parameters, grant=grant)
    return ToolFactories.discover([]).build("mcp", context, deps)


def connection(deps: ToolDependencies, parameters: dict[str, Any]) -> McpConnection:
    return McpConnections.of(deps).connection(parse_parameters("any", parameters))


def tools(config: ToolConfiguration) -> dict[str, Tool]:
    return {tool.name: tool for tool in config.tools}


async def call(config: ToolConfiguration, name: str, /, **arguments: Any) -> Any:
    tool = tools(config)[name]
    context = ToolContext(run_id="run", tool_call_id="call", tool_name=name)
    return await tool.call(tool.validate_args(arguments), context)


@pytest.fixture(scope="module")
def stdio_deps() -> Iterator[ToolDependencies]:
    """Dependencies shared by the module's stdio tests: one server process for all of them."""
    deps = ToolDependencies()
    yield deps
    asyncio.run(deps.aclose())


@pytest.fixture(scope="module")
def stdio_kit(stdio_deps: ToolDependencies) -> ToolConfiguration:
    return build(stdio_deps, "kit", stdio_parameters())


@pytest.fixture
async def deps() -> AsyncIterator[ToolDependencies]:
    async with ToolDependencies() as shared:
        yield shared


@pytest.fixture
async def http_server() -> AsyncIterator[HttpMcpServer]:
    server = HttpMcpServer()
    await server.start("v1")
    try:
        yield server
    finally:
        await server.stop()


def test_the_servers_tools_are_a_toolkit_with_their_names_descriptions_and_schemas(
    stdio_kit: ToolConfiguration,
) -> None:
    add = tools(stdio_kit)["add"]

    assert set(tools(stdio_kit)) == V1_TOOLS
    assert stdio_kit.is_toolkit
    assert add.description == "Add two integers."
    assert add.parameters["properties"] == {
        "a": {"title": "A", "type": "integer"},
        "b": {"title": "B", "type": "integer"},
    }
    assert add.parameters["required"] == ["a", "b"]
    assert {tool.metadata[SOURCE_NODE_NAME] for tool in stdio_kit.tools} == {"kit"}
    assert all(tool.metadata[IS_FROM_TOOLKIT] for tool in stdio_kit.tools)


async def test_a_call_returns_the_structured_content_or_else_the_text(
    stdio_kit: ToolConfiguration,
) -> None:
    assert await call(stdio_kit, "add", a=2, b=3) == {"result": 5}
    assert await call(stdio_kit, "greet", name="Ada") == "Hello, Ada!"


async def test_an_error_result_is_a_tool_error_with_the_servers_text(
    stdio_kit: ToolConfiguration,
) -> None:
    failure = r'^Tool "refuse" failed: Error executing tool refuse: refused: no reason$'
    with pytest.raises(ToolExecutionError, match=failure):
        await call(stdio_kit, "refuse", reason="no reason")


def test_arguments_are_checked_against_the_servers_input_schema(
    stdio_kit: ToolConfiguration,
) -> None:
    with pytest.raises(ValueError, match="a: 'x' is not of type 'integer'"):
        tools(stdio_kit)["add"].validate_args({"a": "x", "b": 1})


async def test_the_tools_parameter_offers_only_the_tools_it_names(
    stdio_deps: ToolDependencies,
) -> None:
    only_add = build(stdio_deps, "only_add", stdio_parameters(tools=["add"]))
    assert only_add.toolkit is not None
    context = ToolContext(run_id="run", tool_call_id="call", tool_name="greet")

    assert set(tools(only_add)) == {"add"}
    assert await call(only_add, "add", a=1, b=1) == {"result": 2}
    with pytest.raises(
        ToolExecutionError, match='Tool "greet" is not granted in toolkit "only_add"'
    ):
        await only_add.toolkit.execute("greet", {"name": "Ada"}, context)


def test_the_agents_grant_narrows_the_toolkit_further(stdio_deps: ToolDependencies) -> None:
    granted = build(stdio_deps, "kit", stdio_parameters(tools=["add", "greet"]), grant=["greet"])

    assert set(tools(granted)) == {"greet"}


def test_a_tool_the_server_does_not_list_is_refused_at_build(
    stdio_deps: ToolDependencies,
) -> None:
    with pytest.raises(
        ConfigurationError,
        match=r"tool 'kit' \(mcp\): tools: the server has no tool 'delete_all' \(it has add, ",
    ):
        build(stdio_deps, "kit", stdio_parameters(tools=["add", "delete_all"]))


def test_specs_naming_the_same_server_share_one_connection_listed_once(
    stdio_deps: ToolDependencies, stdio_kit: ToolConfiguration
) -> None:
    build(stdio_deps, "again", stdio_parameters())
    build(stdio_deps, "narrow", stdio_parameters(tools=["greet"]))

    assert connection(stdio_deps, stdio_parameters()).listings == 1


async def test_an_agent_calls_mcp_tools_and_reads_results_and_errors(
    stdio_kit: ToolConfiguration,
) -> None:
    agent = agent_calling(
        stdio_kit.tools, ("add", {"a": 20, "b": 22}), ("refuse", {"reason": "not today"})
    )

    outcome = results(await agent.generate("add, then be refused"))

    assert not outcome["c0"].is_error
    assert outcome["c0"].result == {"result": 42}
    assert outcome["c1"].is_error
    assert str(outcome["c1"].result).endswith("refused: not today")


async def test_a_call_past_its_timeout_is_a_tool_error_and_the_connection_stays(
    deps: ToolDependencies,
) -> None:
    # Generous, so that the quick call after it never comes near it on a busy machine.
    kit = build(deps, "slow", stdio_parameters(call_timeout_s=5))

    with pytest.raises(ToolExecutionError, match=r"MCP server '.*' did not answer within 5s"):
        await call(kit, "hang")
    assert await call(kit, "add", a=1, b=1) == {"result": 2}
    assert connection(deps, stdio_parameters(call_timeout_s=5)).listings == 1


async def test_a_stdio_server_gets_only_the_environment_its_spec_gives(
    deps: ToolDependencies, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNYARD_TEST_SECRET", "must not leak")
    kit = build(deps, "env", stdio_parameters(env={"GREETING": "hi"}))

    assert await call(kit, "env_value", name="GREETING") == "hi"
    assert await call(kit, "env_value", name="RUNYARD_TEST_SECRET") == "<unset>"


async def test_closing_the_dependencies_stops_the_stdio_server() -> None:
    deps = ToolDependencies()
    kit = build(deps, "kit", stdio_parameters())
    pid = int(await call(kit, "pid"))

    await deps.aclose()

    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_an_http_server_is_listed_and_called(
    deps: ToolDependencies, http_server: HttpMcpServer
) -> None:
    kit = build(deps, "remote", http_server.parameters(headers={"X-Team": "ops"}))

    assert set(tools(kit)) == V1_TOOLS
    assert await call(kit, "add", a=2, b=3) == {"result": 5}
    assert await call(kit, "greet", name="Ada") == "Hello, Ada!"
    assert await call(kit, "header", name="X-Team") == "ops"


async def test_after_the_http_server_restarts_its_tools_are_listed_again(
    deps: ToolDependencies,
) -> None:
    server = HttpMcpServer()
    await server.start("v1")
    try:
        kit = build(deps, "remote", server.parameters())
        assert kit.toolkit is not None
        assert await call(kit, "add", a=1, b=2) == {"result": 3}
        await server.stop()

        with pytest.raises(ToolExecutionError, match=f"MCP server {server.url} was lost"):
            await call(kit, "add", a=1, b=2)

        await server.start("v2")
        assert await call(kit, "add", a=2, b=2) == {"result": 4}
        assert {tool.name for tool in kit.toolkit.toolkit.get_tools()} == V2_TOOLS
        assert connection(deps, server.parameters()).listings == 2
        with pytest.raises(ToolExecutionError, match='Tool "greet" is not granted'):
            await call(kit, "greet", name="Ada")
    finally:
        await server.stop()


async def test_a_server_that_is_down_when_called_is_a_tool_error_the_model_reads(
    deps: ToolDependencies, http_server: HttpMcpServer
) -> None:
    kit = build(deps, "remote", http_server.parameters())
    await http_server.stop()

    lost = results(await agent_calling(kit.tools, ("add", {"a": 1, "b": 1})).generate("add"))
    down = results(await agent_calling(kit.tools, ("add", {"a": 1, "b": 1})).generate("add"))

    assert lost["c0"].is_error
    assert f"the connection to MCP server {http_server.url} was lost" in str(lost["c0"].result)
    assert down["c0"].is_error
    assert f"MCP server {http_server.url} is unavailable: ConnectError" in str(down["c0"].result)


def test_a_server_that_is_down_at_build_is_a_configuration_error(
    stdio_deps: ToolDependencies,
) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"

    with pytest.raises(
        ConfigurationError, match=rf"tool 'down' \(mcp\): MCP server {url} is unavailable: "
    ):
        build(stdio_deps, "down", {"transport": "http", "url": url})
    with pytest.raises(ConfigurationError, match="FileNotFoundError"):
        build(stdio_deps, "down", {"transport": "stdio", "command": "runyard-no-such-server"})


@pytest.mark.parametrize(
    ("parameters", "problem"),
    [
        ({"command": "x"}, "transport: must be 'stdio' or 'http'"),
        ({"transport": "stdio"}, "command: Field required"),
        ({"transport": "http", "url": "ftp://example.com"}, "url: Value error, must be an http"),
        ({"transport": "http", "url": "http://x", "token": "t"}, "token: Extra inputs"),
        ({"transport": "stdio", "command": "x", "call_timeout_s": 0}, "call_timeout_s: Input"),
    ],
)
def test_bad_parameters_are_refused_naming_the_field(
    parameters: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ConfigurationError, match=rf"^tool 'bad' \(mcp\): {problem}"):
        parse_parameters("bad", parameters)
