"""Factory discovery (built-ins and ``runyard.tools`` entry points) and the shared dependencies."""

from __future__ import annotations

import sys

import pytest
from tool_runs import agent_calling, results

from runyard.errors import ConfigurationError
from runyard.registry.tools import (
    IS_FROM_TOOLKIT,
    SOURCE_NODE_NAME,
    BuildContext,
    ExecutionContext,
    ToolConfiguration,
    ToolDependencies,
    ToolFactories,
    dependencies,
)
from runyard.tools import tool
from tool_plugins import Install

ECHO_PLUGIN = '''
from runyard.registry.tools import StaticToolkit, ToolConfiguration
from runyard.tools import tool

CLIENTS = []


class EchoFactory:
    """A toolkit of two tools that prefix what they echo with the spec's ``prefix``."""

    def build(self, context, deps, exec_ctx):
        CLIENTS.append(deps.http)
        prefix = exec_ctx.get_parameter("prefix", default="")

        @tool
        def echo(text: str) -> str:
            """Say the text back."""
            return prefix + text

        @tool
        def shout(text: str) -> str:
            """Say the text back, loudly."""
            return (prefix + text).upper()

        toolkit = StaticToolkit(context.name, [echo, shout])
        return ToolConfiguration.from_toolkit(toolkit, context)
'''


async def test_an_installed_package_adds_a_factory_that_builds_tools(install: Install) -> None:
    install("runyard-echo-plugin", "echo_kit = runyard_echo_plugin:EchoFactory", ECHO_PLUGIN)
    factories = ToolFactories.discover()
    assert {"echo_kit", "http_request", "mcp"} <= set(factories)

    context = BuildContext("echoes", {"prefix": "> "}, tenant="acme", grant=["echo"])
    async with ToolDependencies() as deps:
        built = factories.build("echo_kit", context, deps)
        [echo] = built.tools
        result = await agent_calling(built.tools, ("echo", {"text": "hi"})).generate("go")

    assert built.is_toolkit
    assert echo.metadata == {SOURCE_NODE_NAME: "echoes", IS_FROM_TOOLKIT: True}
    assert results(result)["c0"].result == "> hi"


async def test_every_build_gets_the_one_shared_client_closed_at_shutdown(install: Install) -> None:
    install("runyard-echo-plugin", "echo_kit = runyard_echo_plugin:EchoFactory", ECHO_PLUGIN)
    factories = ToolFactories.discover()
    async with ToolDependencies() as deps:
        factories.build("echo_kit", BuildContext("first"), deps)
        factories.build("echo_kit", BuildContext("second", tenant="other"), deps)
        shared = deps.http
        assert not shared.is_closed
        assert not shared.trust_env  # no proxy or CA setting read from the environment

    clients = sys.modules["runyard_echo_plugin"].CLIENTS
    assert len(clients) == 2
    assert all(client is shared for client in clients)
    assert shared.is_closed


async def test_the_shared_client_is_made_only_when_a_tool_asks_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Making it loads the CA bundle: a service whose tools call nowhere skips that at start-up.
    made: list[object] = []
    make = dependencies.guarded_client
    monkeypatch.setattr(dependencies, "guarded_client", lambda e: made.append(e) or make(e))
    async with ToolDependencies() as deps:
        assert made == []
        shared = deps.http
        assert deps.http is shared
    assert len(made) == 1
    assert shared.is_closed


async def test_a_factory_gets_clients_a_plugin_registered_by_name() -> None:
    closed: list[str] = []

    class GraphClient:
        async def aclose(self) -> None:
            closed.append("graph")

    class GraphFactory:
        def build(
            self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
        ) -> ToolConfiguration:
            client = deps.get("graph")

            @tool
            def graph_client() -> str:
                """Name the client in use."""
                return type(client).__name__

            return ToolConfiguration.single(graph_client, context)

    graph = GraphClient()
    async with ToolDependencies() as deps:
        deps.register("graph", graph, close=graph.aclose)
        assert "graph" in deps
        assert "bpmn" not in deps
        built = ToolFactories({"graph": GraphFactory()}).build("graph", BuildContext("g"), deps)
        result = await agent_calling(built.tools, ("graph_client", {})).generate("go")
        with pytest.raises(
            ConfigurationError, match=r"'bpmn' is not registered \(registered: graph\)"
        ):
            deps.get("bpmn")

    assert results(result)["c0"].result == "GraphClient"
    assert closed == ["graph"]


def test_a_plugin_that_fails_to_load_names_its_distribution(install: Install) -> None:
    install("runyard-broken-plugin", "broken = runyard_broken_plugin:Missing", "X = 1\n")
    with pytest.raises(ConfigurationError) as failure:
        ToolFactories.discover()
    message = str(failure.value)
    assert "runyard-broken-plugin 1.0" in message
    assert "broken = runyard_broken_plugin:Missing" in message


def test_a_plugin_clashing_with_a_built_in_is_refused(install: Install) -> None:
    install("runyard-echo-plugin", "http_request = runyard_echo_plugin:EchoFactory", ECHO_PLUGIN)
    with pytest.raises(ConfigurationError, match=r"'http_request' from runyard-echo-plugin 1\.0"):
        ToolFactories.discover()


def test_an_entry_point_that_is_no_builder_is_refused(install: Install) -> None:
    install("runyard-odd-plugin", "odd = runyard_odd_plugin:VALUE", "VALUE = 3\n")
    with pytest.raises(ConfigurationError, match=r"runyard-odd-plugin 1\.0 .*not a ToolBuilder"):
        ToolFactories.discover()


async def test_an_unknown_factory_lists_the_known_ones() -> None:
    async with ToolDependencies() as deps:
        with pytest.raises(
            ConfigurationError, match=r"unknown tool factory 'nope' \(known: http_request, mcp\)"
        ):
            ToolFactories.discover([]).build("nope", BuildContext("x"), deps)


async def test_the_store_is_asked_for_by_name_when_missing() -> None:
    async with ToolDependencies() as deps:
        with pytest.raises(ConfigurationError, match="needs the store"):
            _ = deps.store


async def test_a_factory_that_fails_or_returns_something_else_is_named() -> None:
    class Failing:
        def build(
            self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
        ) -> ToolConfiguration:
            raise KeyError("token")

    class Odd:
        def build(
            self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
        ) -> ToolConfiguration:
            return []  # type: ignore[return-value]

    factories = ToolFactories({"failing": Failing(), "odd": Odd()})
    async with ToolDependencies() as deps:
        with pytest.raises(
            ConfigurationError, match="tool factory 'failing' failed to build 'f': 'token'"
        ):
            factories.build("failing", BuildContext("f"), deps)
        with pytest.raises(
            ConfigurationError, match="'odd' returned list, not a ToolConfiguration"
        ):
            factories.build("odd", BuildContext("o"), deps)
